FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends curl && rm -rf /var/lib/apt/lists/*
COPY . .
# Editable install: settings find templates/ and static/ next to config/, in /app.
RUN pip install -e . \
    && DJANGO_SETTINGS_MODULE=config.settings.local python manage.py collectstatic --noinput \
    && rm -rf .run \
    && useradd --create-home --uid 1000 thingyard && chown -R thingyard /app
USER thingyard
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
