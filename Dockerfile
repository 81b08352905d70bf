# One image for web, worker and the one-shot migrate/seed job (different commands).
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production

# WeasyPrint's libraries (libharfbuzz-subset0 keeps font subsetting fast), CJK fonts for
# Chinese reports, gettext for compiling translations.
RUN apt-get update \
    && apt-get install -y --no-install-recommends \
       libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-noto-cjk gettext \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app
COPY pyproject.toml ./
COPY . .
RUN pip install --no-cache-dir . \
    && DJANGO_SECRET_KEY=build-only python manage.py compilemessages --ignore=.venv -v0 \
    && DJANGO_SECRET_KEY=build-only python manage.py collectstatic --noinput -v0

RUN useradd --create-home --uid 1000 shortlist && mkdir -p /app/var && chown shortlist /app/var
USER shortlist
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
