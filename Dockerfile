# The site's front-end libraries (three.js) come from the npm registry, exactly as package-lock.json pins
# them; only node_modules travels to the Python image, where collectstatic takes the files it needs
# (config/settings/base.py NODE_STATIC_FILES).
FROM node:20-slim AS assets
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --loglevel=error

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
COPY . .
COPY --from=assets /app/node_modules ./node_modules
# Editable install: settings find templates/ and static/ next to config/, in /app. Static files are
# collected with the production storage (hashed names and their manifest, which production settings
# read); collectstatic touches no database, so the build-only values below connect to nothing.
RUN pip install -e . \
    && DJANGO_SETTINGS_MODULE=config.settings.production DATABASE_URL=postgres://build@localhost/build \
       REDIS_URL=redis://localhost:6379/0 DJANGO_SECRET_KEY=build-only-not-a-secret \
       python manage.py collectstatic --noinput \
    && rm -rf .run node_modules \
    && useradd --create-home --uid 1000 thingyard && chown -R thingyard /app
USER thingyard
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
