"""Quick start (`make run`): embedded defaults so the service runs with only Python present."""
from .base import *  # noqa: F401,F403
from .base import CELERY_BROKER_URL, DATABASE_URL, DATABASES, REDIS_URL, RUN_DIR, S3_ENDPOINT_URL, env

DEBUG = True
RUN_DIR.mkdir(parents=True, exist_ok=True)
if not DATABASE_URL:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": RUN_DIR / "thingyard.sqlite3"}}
# docs/decisions.md (Quick start): the web process and the worker write to SQLite at the same moment, and
# clients of the original API do not retry a 503 `database is locked`. WAL lets readers and the one
# writer work at once; a transaction takes the write lock when it begins (IMMEDIATE), so it waits for
# the other writer (busy timeout) instead of failing when it upgrades from reading to writing, which
# SQLite refuses at once, whatever the timeout; the busy timeout bounds that wait.
SQLITE_OPTIONS = {
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}
if not S3_ENDPOINT_URL:
    AWS_S3_ENDPOINT_URL = "http://127.0.0.1:9000"  # moto's S3 server, started by `make run`
ALLOW_PRIVATE_WEBHOOK_URLS = True
SECURE_SSL_REDIRECT = False
if not (CELERY_BROKER_URL.startswith("redis") or REDIS_URL):
    # A broker in plain files: the web process and `celery worker` share it without any server.
    # Every folder of the transport under .run/: kombu's default puts its `control` (broadcast) folder
    # in the working directory, i.e. the checkout.
    _broker = RUN_DIR / "broker"
    for _sub in ("in", "processed", "control"):
        (_broker / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker / "in"),
        "data_folder_out": str(_broker / "in"),
        "processed_folder": str(_broker / "processed"),
        "control_folder": str(_broker / "control"),
        "store_processed": False,
    }
# Outgoing mail (password resets, address confirmations) as files under .run/mail/ unless EMAIL_URL names
# a real server: open the newest file to follow a link (README, quick start).
if not env.str("EMAIL_URL", default=""):
    EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
    EMAIL_FILE_PATH = str(RUN_DIR / "mail")
