"""Settings shared by every environment. All configuration comes from the environment."""

import datetime
import ipaddress
import os
from pathlib import Path

import environ
from django.utils.translation import gettext_lazy as _

from .api import KNOX_TOKEN_MODEL, REST_FRAMEWORK, REST_KNOX, SPECTACULAR_SETTINGS  # noqa: F401
from .directory import directory_settings, with_directory
from .logs import log_settings
from .oidc import oidc_settings, with_oidc, with_provider_in_csp

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env("DJANGO_SECRET_KEY", default="")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    # modeltranslation must come before django.contrib.admin to patch its forms.
    "modeltranslation",
    "common.admin_apps.ShortlistAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_filters",
    "django_htmx",
    "rules.apps.AutodiscoverRulesConfig",
    "simple_history",
    "axes",
    "csp",
    "common",
    "catalog",
    "evaluations",
    "responsibility",
    "poc",
    "reports",
    "signoff",
    "portable",
    "knox",
    "apitokens",
]
# knox's own token model is replaced by apitokens.ApiToken (KNOX_TOKEN_MODEL): its migrations
# would still create its table, which database flushes do not know about.
MIGRATION_MODULES = {"knox": None}

MIDDLEWARE = [
    # First: every response, a redirect or a refusal included, gets a request id and a log line.
    "common.middleware.RequestLogMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "common.middleware.RefuseNulMiddleware",
    # A GET reads beside the others on SQLite, without the write lock (common/sqlite3/base.py).
    "common.middleware.ReadRequestMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last, as django-axes asks: answers a locked-out sign-in with its lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "common.context_processors.roles",
            ],
        },
    },
    {
        # The rows pages repeat most (common/jinja.py), in templates/<app>/*.jinja; Django's
        # engine above renders every page and hands those blocks over.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "common.jinja.environment",
            "autoescape": True,
            "auto_reload": DEBUG,
        },
    },
]
# Form widgets render through Jinja2 (Django's own widget templates, ported by Django): the
# same HTML as the template engine, in about a third of the time, which counts on pages with
# hundreds of fields (the five questions of eight candidates are 160). Widget templates that
# exist only for Django's engine (the admin's) still render there.
FORM_RENDERER = "common.renderers.FastFormRenderer"

DATABASES = {
    "default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'shortlist.sqlite3'}"),
}
DATABASES["default"]["ATOMIC_REQUESTS"] = True
# The embedded default serves several people at once: write-ahead logging lets readers go on
# while one request writes, a write transaction takes its lock when it starts (IMMEDIATE) so
# two requests never deadlock upgrading a read lock, and a busy database is waited for (20 s)
# instead of answering "database is locked".
SQLITE_OPTIONS = {
    "transaction_mode": "IMMEDIATE",
    "timeout": 20,
    "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"]["ENGINE"] = "common.sqlite3"  # reads take no write lock: see there
    DATABASES["default"]["OPTIONS"] = {**SQLITE_OPTIONS, **DATABASES["default"].get("OPTIONS", {})}
# A web or worker process keeps its database connection between requests (checked before it
# is reused) instead of opening one per request: a new PostgreSQL connection costs the server a
# process and its catalog caches, 10-50 ms on a page that reads many tables; a new SQLite one
# about 2 ms (its pragmas and the functions Django registers on it).
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# A list row's stored status (evaluations/digests.py) is computed again after this many seconds
# even when nothing moved its stamp: a backstop for writes made outside the application.
ROW_STATUS_MAX_AGE = env.int("ROW_STATUS_MAX_AGE", default=3600)
# Seconds a rendered heavy tab is kept while its evaluation's stamp is unchanged (0: never).
PAGE_CACHE_SECONDS = min(env.int("PAGE_CACHE_SECONDS", default=600), ROW_STATUS_MAX_AGE)
PAGE_CACHE_ENTRIES = env.int("PAGE_CACHE_ENTRIES", default=200)
# A catalog claim last checked longer ago than this is stale (catalog/freshness.py).
CATALOG_STALE_AFTER_MONTHS = env.int("CATALOG_STALE_AFTER_MONTHS", default=12)
# An entry whose latest known release is older than this is listed for a new look.
CATALOG_RELEASE_REVIEW_MONTHS = env.int("CATALOG_RELEASE_REVIEW_MONTHS", default=6)
# The largest catalog bundle (zip) an administrator may upload or import, packed or unpacked.
CATALOG_BUNDLE_MAX_BYTES = env.int("CATALOG_BUNDLE_MAX_BYTES", default=20 * 1024 * 1024)
# Where kept tabs live: each web process's memory by default (a tab is then rendered once per
# process after a change), or one Redis database all processes share (PAGE_CACHE_URL, e.g.
# redis://127.0.0.1:6379/3: a database of its own, entries expire after PAGE_CACHE_SECONDS).
PAGE_CACHE_URL = env("PAGE_CACHE_URL", default="")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "pages": (
        {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": PAGE_CACHE_URL,
            "KEY_PREFIX": "shortlist-pages",
        }
        if PAGE_CACHE_URL
        else {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "pages",
            "OPTIONS": {"MAX_ENTRIES": PAGE_CACHE_ENTRIES},
        }
    ),
}

AUTHENTICATION_BACKENDS = [
    # First: refuses a sign-in (form, admin or HTTP Basic) for a locked-out user and address.
    "axes.backends.AxesStandaloneBackend",
    "rules.permissions.ObjectPermissionBackend",
    "django.contrib.auth.backends.ModelBackend",
]

# --- Company sign-in: LDAP / Active Directory (config/settings/directory.py) ----------------
# Off unless LDAP_SERVER_URI is set; then the directory's backend sits before ModelBackend,
# which keeps local accounts (a break-glass admin) working.
LDAP_SERVER_URI = ""
LDAP_ROLE_GROUPS: dict = {}
globals().update(directory_settings(os.environ))
AUTHENTICATION_BACKENDS = with_directory(AUTHENTICATION_BACKENDS, globals())

# --- Company sign-in: OpenID Connect (config/settings/oidc.py) -------------------------------
# Off unless OIDC_DISCOVERY_URL is set; then a "company account" button on the sign-in page.
globals().update(oidc_settings(os.environ))
AUTHENTICATION_BACKENDS = with_oidc(AUTHENTICATION_BACKENDS, globals())
# Content-Security-Policy (django-csp) on every response: everything comes from the app itself,
# no inline script anywhere (behaviour lives in static/js), no framing, no plugins. Inline
# style *attributes* stay allowed: the report's column widths and the server-drawn SVG charts
# use them, and they cannot run code.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "style-src-attr": ["'unsafe-inline'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}
CONTENT_SECURITY_POLICY = with_provider_in_csp(CONTENT_SECURITY_POLICY, globals())

# Password guessing (django-axes): after AXES_FAILURE_LIMIT wrong passwords for one username
# from one client address, sign-in to that account from that address is refused for
# AXES_COOLOFF_MINUTES, even with the right password.
# Admins unlock early in Django admin (Access attempts) or with `manage.py axes_reset_username`.
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = datetime.timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
# The lock is on the account *from the guesser's address*, never on the account everywhere: its
# owner still signs in from anywhere else. The address is the real client's behind the proxies
# in TRUSTED_PROXIES (common/client_ip.py), so that users behind one proxy are not one address.
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_CLIENT_IP_CALLABLE = "common.client_ip.client_ip"
# Reverse proxies in front of the app (comma-separated addresses or CIDR networks): from them,
# the client is the rightmost X-Forwarded-For entry that is not one of them. Empty: REMOTE_ADDR,
# and X-Forwarded-For is ignored. A value that is not an address or network stops the process.
TRUSTED_PROXIES = [
    str(ipaddress.ip_network(entry.strip(), strict=False))
    for entry in env.list("TRUSTED_PROXIES", default=[])
    if entry.strip()
]
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Internationalisation: English and Simplified Chinese everywhere.
LANGUAGE_CODE = env("DJANGO_LANGUAGE_CODE", default="en")
LANGUAGES = [("en", _("English")), ("zh-hans", _("Simplified Chinese"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Per-language number and date formats that differ from Django's (zh-Hans groups thousands).
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = env("DJANGO_TIME_ZONE", default="Asia/Shanghai")
USE_I18N = True
USE_TZ = True
MODELTRANSLATION_DEFAULT_LANGUAGE = "en"
MODELTRANSLATION_LANGUAGES = ("en", "zh-hans")
MODELTRANSLATION_FALLBACK_LANGUAGES = ("en", "zh-hans")

# Uploaded evidence. Never served as public media: a members-only view streams each file.
MEDIA_ROOT = env("DJANGO_MEDIA_ROOT", default=str(VAR_DIR / "media"))
# /healthz tells anyone healthy or not; the details need a signed-in admin or this token.
HEALTHZ_TOKEN = env("HEALTHZ_TOKEN", default="")
EVIDENCE_MAX_BYTES = env.int("EVIDENCE_MAX_BYTES", default=20 * 1024 * 1024)
FILE_UPLOAD_HANDLERS = [
    "common.uploads.SizeLimitUploadHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]

# --- File storage: local disk, or an S3-compatible object store shared by several machines ---
# Evidence and report PDFs go through Django's storage API. Without S3_BUCKET they stay on local
# disk under MEDIA_ROOT (one machine). With it, django-storages keeps them in that bucket (AWS S3,
# MinIO, Ceph RGW, a cloud's object storage), so any web process or worker on any machine reads
# what another wrote. The bucket stays private: no ACLs are set, files are streamed to members by
# the app and never linked to. Keys empty: boto3's own chain (AWS_ACCESS_KEY_ID, AWS_PROFILE, an
# instance or pod role) supplies the credentials.
S3_BUCKET = env("S3_BUCKET", default="")
S3_ENDPOINT_URL = env("S3_ENDPOINT_URL", default="")
if S3_BUCKET:
    MEDIA_STORAGE = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": S3_BUCKET,
            "endpoint_url": S3_ENDPOINT_URL or None,
            "region_name": env("S3_REGION", default="") or None,
            "access_key": env("S3_ACCESS_KEY_ID", default="") or None,
            "secret_key": env("S3_SECRET_ACCESS_KEY", default="") or None,
            "location": env("S3_PREFIX", default="").strip("/"),
            # MinIO and Ceph answer path-style requests (endpoint/bucket/key) out of the box.
            "addressing_style": env(
                "S3_ADDRESSING_STYLE", default="path" if S3_ENDPOINT_URL else "auto"
            ),
            "default_acl": None,
            "file_overwrite": False,
            "querystring_auth": True,
            # A download is spooled to a temporary file past this size instead of held in memory.
            "max_memory_size": 2 * 1024 * 1024,
        },
    }
else:
    MEDIA_STORAGE = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
STORAGES = {
    "default": MEDIA_STORAGE,
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
# --- end of file storage -----------------------------------------------------------------------

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]
# The documentation site `make docs` builds (MkDocs, mkdocs.yml), served at /docs/ by
# common/docs.py; build output, not in git. Unbuilt, /docs/ says how to build it.
DOCS_SITE_ROOT = VAR_DIR / "docs-site"

# --- The REST API (config/settings/api.py): DRF, its schema, personal tokens ----------------
API_TOKEN_MAX_DAYS = env.int("API_TOKEN_MAX_DAYS", default=365)
# HTTP Basic runs the password hasher on every call: off unless an installation needs it for
# old scripts, and then its attempts are limited per client address.
API_BASIC_AUTH = env.bool("API_BASIC_AUTH", default=False)
API_BASIC_AUTH_RATE = env("API_BASIC_AUTH_RATE", default="30/min")

# Celery. With REDIS_URL (production, docker compose, CI) the broker is Redis. Without it (the
# embedded default of `make run`) the broker is kombu's filesystem transport: messages are files
# under var/celery/, so the web server returns at once and a worker started beside it (make run
# does) renders the report, as in production, with no broker server to install.
# CELERY_BROKER_URL overrides either choice; CELERY_TASK_ALWAYS_EAGER=true runs tasks inside the
# requesting process instead (the test settings do so when there is no Redis).
REDIS_URL = env("REDIS_URL", default="")
CELERY_BROKER_DIR = Path(env("CELERY_BROKER_DIR", default=str(VAR_DIR / "celery")))
CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="") or REDIS_URL or "filesystem://localhost/"
CELERY_RESULT_BACKEND = None
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
if CELERY_BROKER_URL.startswith("filesystem:"):
    # One folder for both directions (web writes, worker reads); how often an idle worker looks.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(CELERY_BROKER_DIR / "queue"),
        "data_folder_out": str(CELERY_BROKER_DIR / "queue"),
        "control_folder": str(CELERY_BROKER_DIR / "control"),
        "polling_interval": env.float("CELERY_POLLING_INTERVAL", default=0.25),
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {"socket_connect_timeout": 3, "socket_timeout": 5}
CELERY_TIMEZONE = TIME_ZONE
# Reports: a redelivered task must be safe (tasks are idempotent), so acknowledge late and
# requeue when a worker dies; keep the broker's visibility timeout above the hard time limit.
REPORT_SOFT_TIME_LIMIT = env.int("REPORT_SOFT_TIME_LIMIT", default=240)
REPORT_TIME_LIMIT = env.int("REPORT_TIME_LIMIT", default=300)
REPORT_MAX_ATTEMPTS = env.int("REPORT_MAX_ATTEMPTS", default=3)
REPORT_STUCK_AFTER = env.int("REPORT_STUCK_AFTER", default=900)
# Freeze what is loaded and hold off the older generations of the garbage collector while a
# report renders (reports/gc_tuning.py); False renders under the interpreter's defaults.
REPORT_GC_TUNING = env.bool("REPORT_GC_TUNING", default=True)
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_MAX_MEMORY_PER_CHILD = env.int("CELERY_WORKER_MAX_MEMORY_PER_CHILD", default=600_000)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    **CELERY_BROKER_TRANSPORT_OPTIONS,
    "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=REPORT_TIME_LIMIT * 4),
}
# Stored files no row refers to (a rolled-back upload, a killed worker) are deleted once they
# are older than this many seconds: long enough for any transaction still writing them.
FILE_SWEEP_GRACE = env.int("FILE_SWEEP_GRACE", default=3600)
CELERY_BEAT_SCHEDULE = {
    "reports-fail-stuck-runs": {"task": "reports.fail_stuck_runs", "schedule": 300.0},
    "sweep-orphan-files": {"task": "common.sweep_orphan_files", "schedule": 3600.0},
}

# --- Logs (config/settings/logs.py) ----------------------------------------------------------
# DJANGO_LOG_FORMAT (`text` or `json`) and DJANGO_LOG_LEVEL; every line carries the request id.
LOG_FORMAT, LOGGING = log_settings(env)

# --- Metrics for operators (Prometheus, django-prometheus) -------------------------------------
# /metrics answers only a caller presenting METRICS_TOKEN (Authorization: Bearer …) or calling
# from an address in METRICS_ALLOWED_IPS (comma-separated addresses or CIDR networks, matched
# against REMOTE_ADDR: behind a proxy that is the proxy's address). With neither set, and to
# anyone else, it is 404 like any unknown page.
METRICS_TOKEN = env("METRICS_TOKEN", default="")
# A value that is not an address or network stops the process here, with the value in the error.
METRICS_ALLOWED_IPS = [
    str(ipaddress.ip_network(entry.strip(), strict=False))
    for entry in env.list("METRICS_ALLOWED_IPS", default=[])
    if entry.strip()
]
# Request counts and latency by view: the "before" middleware first, the "after" one as late as
# possible; axes stays last as it asks, so its lockout answers are counted with their status.
MIDDLEWARE.insert(0, "django_prometheus.middleware.PrometheusBeforeMiddleware")
MIDDLEWARE.insert(
    MIDDLEWARE.index("axes.middleware.AxesMiddleware"),
    "django_prometheus.middleware.PrometheusAfterMiddleware",
)
# Query counts and durations: the same database backends, wrapped to count what they execute.
PROMETHEUS_DATABASE_ENGINES = {
    "django.db.backends.postgresql": "django_prometheus.db.backends.postgresql",
    "django.db.backends.sqlite3": "django_prometheus.db.backends.sqlite3",
}
for _database in DATABASES.values():
    _database["ENGINE"] = PROMETHEUS_DATABASE_ENGINES.get(_database["ENGINE"], _database["ENGINE"])

# --- Portable evaluations (portable/) -----------------------------------------------------------
# The largest evaluation archive an import accepts, as uploaded and as unpacked; a larger one is
# refused before any of it is read into the database.
PORTABLE_MAX_BYTES = env.int("PORTABLE_MAX_BYTES", default=256 * 1024 * 1024)
# The largest evaluation.json (the rows, parsed in memory: about ten times its size at worst,
# with at most common.parsing.MAX_VALUES values); evidence and other files keep the limit above.
PORTABLE_DOCUMENT_MAX_BYTES = env.int("PORTABLE_DOCUMENT_MAX_BYTES", default=32 * 1024 * 1024)
# --- end of portable evaluations ---------------------------------------------------------------
