# The production image. Its build steps are scripts/build-production.sh, the same script CI runs without
# Docker (.ci/run) and a plain machine runs (README "Running in production"):
#   assets  npm ci: the front-end libraries (three.js, Swagger UI) exactly as package-lock.json pins them;
#           only node_modules travels to the Python image, where collectstatic takes the files it needs
#           (config/settings/base.py NODE_STATIC_FILES)
#   install pip install -e . (editable: settings find templates/ and static/ next to config/, in /app)
#   static  collectstatic with the production settings: hashed names, their manifest, gzip and Brotli
FROM node:20-slim AS assets
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts/build-production.sh scripts/
RUN bash scripts/build-production.sh assets

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
COPY . .
COPY --from=assets /app/node_modules ./node_modules
RUN PYTHON=python bash scripts/build-production.sh install static \
    && rm -rf .run node_modules \
    && useradd --create-home --uid 1000 thingyard && chown -R thingyard /app
USER thingyard
EXPOSE 8000
# Readiness (config/health.py): healthy only when a page renders with its static files and PostgreSQL,
# Redis, the broker and the object store answer. docker-compose.yml gives the workers and beat their own.
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=5 \
    CMD curl -fsS http://localhost:8000/readyz || exit 1
# From /app, the repository root: gunicorn reads gunicorn.conf.py there (log redaction, request limits).
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "30", \
     "--access-logfile", "-"]
