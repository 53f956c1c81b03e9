"""Django settings. Every value that may differ between machines is read in config.env."""

from pathlib import Path

from config.checks import production_require
from config.env import database_from_url, env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
DATA_DIR = Path(env_str("HEARTBENCH_DATA_DIR", str(BASE_DIR / "data")))

# Off unless asked for: with DEBUG on, an error shows experts a traceback with the settings, and
# every SQL statement is timed, kept and (on SQLite) quoted by a second statement.
DEBUG = env_bool("DJANGO_DEBUG", False)
# The fallback key only protects a local pilot; production refuses to start on it.
SECRET_KEY = env_str("DJANGO_SECRET_KEY", "insecure-local-development-key-set-DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
# HEARTBENCH_ENV=production: refuse unsafe settings (see config/checks.py) and turn on the
# secure defaults below.
PRODUCTION = production_require(
    environment=env_str("HEARTBENCH_ENV", "development"),
    debug=DEBUG,
    secret_key=env_str("DJANGO_SECRET_KEY"),
    allowed_hosts=ALLOWED_HOSTS,
    hosts_from_env=bool(env_str("DJANGO_ALLOWED_HOSTS").strip()),
)
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS", [])
# TLS ends at the reverse proxy in the deployment guide; cookies and HSTS assume HTTPS there.
SESSION_COOKIE_SECURE = env_bool("DJANGO_SECURE_COOKIES", PRODUCTION)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 31536000 if PRODUCTION else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_SSL_REDIRECT = env_bool("DJANGO_SSL_REDIRECT", False)
if env_bool("DJANGO_TRUST_X_FORWARDED_PROTO", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

INSTALLED_APPS = [
    "config.apps.AdminConfig",  # django.contrib.admin
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served locally, never from a CDN
    "benchmark",
    "annotation",
    "validation",
    "frontend",
    "webhooks",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # Content-Security-Policy on every response; bidi controls in rendered text neutralised.
    "config.page_safety.PageSafetyMiddleware",
    # Static files straight from the WSGI server, before sessions and auth are touched.
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Text that cannot be stored, a body too deep or too big: a 400 before any view reads it.
    "config.request_text.RequestTextMiddleware",
    "config.login_throttle.LoginThrottleMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A view that waited past SQLite's busy timeout answers 503 with Retry-After, not 500.
    "config.busy.DatabaseBusyMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        # Project-wide overrides of third-party templates (the admin's base_site with the
        # language switch); DIRS are searched before the apps' folders.
        "DIRS": [BASE_DIR / "config" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": database_from_url(
        env_str("DATABASE_URL"),
        default_sqlite=DATA_DIR / "heartbench.sqlite3",
        prepared=env_bool("DATABASE_PREPARED_STATEMENTS", True),
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Django's password backend, reading the session's user with its expert profile (config.auth).
AUTHENTICATION_BACKENDS = ["config.auth.ExpertModelBackend"]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
]

# Two interface languages; Simplified Chinese is the product default. LocaleMiddleware picks
# the language from the `django_language` cookie (set by the switch on every page through
# /i18n/setlang/), then Accept-Language, then this default. One project catalogue for every
# app (config/locale/, django and djangojs domains) keeps completeness checkable in one place;
# the compiled .mo files are committed so `make run` needs no GNU gettext.
LANGUAGE_CODE = "zh-hans"
LANGUAGES = [("zh-hans", "简体中文"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "config" / "locale"]
TIME_ZONE = env_str("HEARTBENCH_TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("HEARTBENCH_STATIC_ROOT", str(BASE_DIR / "staticfiles")))
# Production serves `heartbench collectstatic` output with hashed, compressed names (cached for
# ever by browsers); development serves the app folders as they are.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
# Outside production whitenoise reads the app folders directly, so no collectstatic is needed.
WHITENOISE_USE_FINDERS = not PRODUCTION
WHITENOISE_AUTOREFRESH = not PRODUCTION

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "config.auth.TokenWithExpertAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "config.openapi.Schema",
    "DEFAULT_PAGINATION_CLASS": "config.pagination.Pages",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "HeartBench validation platform API",
    "VERSION": "1",
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "PREPROCESSING_HOOKS": ["config.openapi.without_aliases"],
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "config.openapi.add_links",
    ],
    # The admin API's close takes the same choice for two groups of units: one enum.
    "ENUM_NAME_OVERRIDES": {"ShortUnitsEnum": "validation.closing.CHOICES"},
}

# Celery: with no broker configured, tasks run in process (the embedded default). Three queues
# so judge runs (long, rate-limited) never hold up reports and gold labels; `heartbench worker
# --queues` picks which ones a machine serves.
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL")
CELERY_TASK_DEFAULT_QUEUE = "reports"
# Named outright: a worker must know every task before the first message arrives.
CELERY_IMPORTS = ["benchmark.tasks", "validation.tasks", "webhooks.tasks"]
CELERY_TASK_ROUTES = {
    "benchmark.tasks.judge_*": {"queue": "judge"},
    "benchmark.tasks.generation_*": {"queue": "generate"},
    "benchmark.tasks.construction_*": {"queue": "generate"},
    "validation.tasks.*": {"queue": "reports"},
    "webhooks.tasks.*": {"queue": "reports"},
}
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND") or None
CELERY_TASK_ALWAYS_EAGER = not CELERY_BROKER_URL
# Celery's Django fixup closes a worker's connections around every task unless told to reuse
# them; config.celery keeps them as requests keep theirs, and lets the fixup recycle rarely.
CELERY_DB_REUSE_MAX = 1000
# Eager tasks still get a producer; for an empty broker URL Celery makes an AMQP connection
# object that logs "No hostname was supplied" on every task. In process nothing is ever sent,
# so the producer's connection is an in-memory one.
CELERY_BROKER_WRITE_URL = None if CELERY_BROKER_URL else "memory://localhost/"
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# A task whose worker died unacknowledged goes back to the queue once it has been out for the
# visibility timeout; live workers renew the tasks they hold four times per timeout
# (config/celery.py), so a long chunk stays with its worker and a dead worker's comes back
# within about a minute. Live workers sweep for such tasks every restore interval (kombu's
# default is 100 s, with a throttle of 10 sweeps).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env_int("CELERY_VISIBILITY_TIMEOUT", 45),
    "unacked_restore_interval": env_int("CELERY_RESTORE_INTERVAL", 15),
    "unacked_restore_throttle": 1,
}
# Runs queued while the broker was down wait in the database as pending; a worker started with
# `heartbench worker --beat` queues them again every minute.
CELERY_BEAT_SCHEDULE = {
    "judge-dispatch-waiting": {
        "task": "benchmark.tasks.judge_dispatch_waiting_task",
        "schedule": 60.0,
    },
    "generation-dispatch-waiting": {
        "task": "benchmark.tasks.generation_dispatch_waiting_task",
        "schedule": 60.0,
    },
    "construction-dispatch-waiting": {
        "task": "benchmark.tasks.construction_dispatch_waiting_task",
        "schedule": 60.0,
    },
}
# A worker started while the broker is down waits for it instead of exiting.
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Shared state for rate limits across workers; empty means in-process only.
REDIS_URL = env_str("REDIS_URL") or (
    CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else ""
)
# The cache holds login-failure counts, which every web process must share: Redis when there
# is one, else files in the data folder (`heartbench serve` runs several processes on the
# embedded default too).
CACHES = {
    "default": {
        "BACKEND": "config.cache.RedisCache",
        "LOCATION": REDIS_URL,
        "KEY_PREFIX": "heartbench",
        # A Redis that hangs is as down as one that refuses: the request goes on without it.
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 1.0},
    }
    if REDIS_URL
    else {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
        "LOCATION": str(DATA_DIR / "cache"),
    }
}
# Sessions live in the database alone (one primary-key read a request): a session kept in the
# cache too would come back from it after a logout that happened while the cache was down
# (config.cache answers a down cache as a miss), and a Redis restart must log nobody out.
SESSION_ENGINE = "django.contrib.sessions.backends.db"
HEARTBENCH_LOGIN_THROTTLE = {
    "per_user": env_int("HEARTBENCH_LOGIN_FAILURES_PER_USER", 5),
    "per_address": env_int("HEARTBENCH_LOGIN_FAILURES_PER_ADDRESS", 30),
    "window": env_int("HEARTBENCH_LOGIN_WINDOW_SECONDS", 300),
}
HEARTBENCH_TRUST_X_REAL_IP = env_bool("HEARTBENCH_TRUST_X_REAL_IP", False)

# Responses per judge chunk task: small enough that a killed worker loses little and several
# workers share a run, large enough that dispatch overhead stays negligible.
HEARTBENCH_JUDGE_CHUNK = env_int("HEARTBENCH_JUDGE_CHUNK", 25)

# The dataset a command reads without --dataset when several are imported (NAME or NAME:vN).
HEARTBENCH_DEFAULT_DATASET = env_str("HEARTBENCH_DEFAULT_DATASET")
HEARTBENCH_MAX_IMPORT_BYTES = env_int("HEARTBENCH_MAX_IMPORT_BYTES", 2 * 1024**3)
HEARTBENCH_MAX_IMPORT_LINE_BYTES = env_int("HEARTBENCH_MAX_IMPORT_LINE_BYTES", 8 * 1024**2)

# Webhooks (webhooks/): links in a delivery are absolute under this URL (site paths without it);
# a failed delivery is tried again after 1, 2, 4, ... x the back-off, up to the attempts.
HEARTBENCH_BASE_URL = env_str("HEARTBENCH_BASE_URL")
HEARTBENCH_WEBHOOK_ATTEMPTS = env_int("HEARTBENCH_WEBHOOK_ATTEMPTS", 6)
HEARTBENCH_WEBHOOK_BACKOFF_SECONDS = env_int("HEARTBENCH_WEBHOOK_BACKOFF_SECONDS", 30)
HEARTBENCH_WEBHOOK_TIMEOUT = env_int("HEARTBENCH_WEBHOOK_TIMEOUT", 5)

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("HEARTBENCH_LOG_LEVEL", "WARNING")},
}

# Annotation: experts log in on the workbench's own page. (What validation does when a unit
# gets its last rating is subscribed in validation/apps.py, through annotation.events.)
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"
