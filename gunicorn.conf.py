"""gunicorn settings every deployment shares; gunicorn reads this file from its working directory (the
repository root, `/app` in the image), so the Dockerfile, docker-compose, `make fuzz` and `make bench`
all get it. Command-line flags still override it.
"""
from apps.core.pipeline import server_errors

# Access-log lines carry request lines and referrers: tokens sent as `?access_token=`, OAuth codes and
# client secrets are redacted before they are written (apps/core/security/redaction.py, RFC 9700 §4.3).
logger_class = "apps.core.security.redaction.RedactingGunicornLogger"

# The longest request line gunicorn takes (its maximum, as common proxies): list URLs keep every filter
# in their Link headers. Beyond it, and for other requests gunicorn refuses itself, the answer is the
# API's JSON error body, not gunicorn's HTML page (apps/core/pipeline/server_errors.py).
limit_request_line = 8190
server_errors.install()
