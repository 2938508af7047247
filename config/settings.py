"""Settings for the grounded support agent.

Every value that differs between a laptop and production is read from the
environment here (django-environ, an optional ``.env`` file beside
``manage.py``). App modules read ``django.conf.settings`` lazily.
"""

import os
import tempfile
import warnings
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env")

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env(
    "DJANGO_SECRET_KEY",
    default="django-insecure-development-only-key-set-DJANGO_SECRET_KEY-in-production",
)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "daphne",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "channels",
    "staff",
    "django_tasks",
    "django_tasks_db",
    "chat",
    "grounding",
    "actions",
]

MIDDLEWARE = [
    # Probes answer first, whatever their Host header (config/health.py).
    "config.health.ProbeMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
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

# Database: SQLite file by default; DATABASE_URL=postgres://... for production.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL lets readers run beside the writer; IMMEDIATE takes the write lock at
    # BEGIN so two writers queue on the busy timeout instead of failing with
    # "database is locked" halfway through a transaction.
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env.float("SQLITE_TIMEOUT", default=20.0),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        }
    )
    # A file, not memory, so threads in tests share it; one per test process so
    # two runs side by side do not delete each other's database.
    DATABASES["default"]["TEST"] = {
        "NAME": str(Path(tempfile.gettempdir()) / f"support-agent-test-{os.getpid()}.sqlite3")
    }
# Worker threads keep their connection instead of opening one per query.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DB_CONN_MAX_AGE", default=60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The staff socket re-reads its user's permission and session at most this often (seconds).
STAFF_RECHECK_SECONDS = env.float("STAFF_RECHECK_SECONDS", default=5.0)

# Live handoff: a person answers customers who ask for one whenever a staff console is open;
# opening hours narrow that (chat.handoff_rules: unset, "always", "never", or e.g.
# "mon-fri 08:00-17:00; sat 10:00-14:00", site time zone).
HANDOFF_OPENING_HOURS = env("HANDOFF_OPENING_HOURS", default="")
# An open staff console says it is still there this often (seconds); one silent for three
# intervals (its process died) no longer counts as a person available.
STAFF_PRESENCE_SECONDS = env.float("STAFF_PRESENCE_SECONDS", default=20.0)
# A conversation whose owner has had no staff console open this long goes back to the queue.
HANDOFF_RELEASE_SECONDS = env.float("HANDOFF_RELEASE_SECONDS", default=60.0)
# A waiting request whose customer has had no chat connection open this long expires.
HANDOFF_WAITING_EXPIRE_SECONDS = env.float("HANDOFF_WAITING_EXPIRE_SECONDS", default=120.0)
# Requests for a person one client address may have waiting at once (0: no limit), and how
# many queue entries the staff console gets (the total is sent beside them).
HANDOFF_MAX_WAITING_PER_ADDRESS = env.int("HANDOFF_MAX_WAITING_PER_ADDRESS", default=3)
HANDOFF_QUEUE_PAGE = env.int("HANDOFF_QUEUE_PAGE", default=50)

# Channel layer: in memory for one process; Redis when REDIS_URL is set.
REDIS_URL = env("REDIS_URL", default="")
if REDIS_URL:
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            # redis-py 8 reads with a 5 s timeout by default, the same 5 s that
            # channels-redis blocks waiting for a message: an idle connection
            # would die with 1011. Options in the URL still win.
            "CONFIG": {"hosts": [{"address": REDIS_URL, "socket_timeout": 15}]},
        }
    }
else:
    CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "sv"
LANGUAGES = [("sv", "Svenska"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env("TIME_ZONE", default="Europe/Stockholm")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
# Serve straight from the apps' static folders so `make run` needs no
# collectstatic; production can run collectstatic and turn this off.
WHITENOISE_USE_FINDERS = env.bool("WHITENOISE_USE_FINDERS", default=True)
WHITENOISE_AUTOREFRESH = DEBUG
# Without collectstatic there is no STATIC_ROOT; the finders serve everything.
warnings.filterwarnings("ignore", message="No directory at: ")

SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=60 * 60 * 24 * 30)

# LOG_FORMAT=json: one JSON object per line for a log shipper; plain otherwise.
# Every line carries the conversation and message id of the turn that wrote it.
LOG_FORMAT = env("LOG_FORMAT", default="plain")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"turn_context": {"()": "config.logging.TurnContextFilter"}},
    "formatters": {
        "plain": {"()": "config.logging.PlainFormatter"},
        "json": {"()": "config.logging.JsonFormatter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if LOG_FORMAT == "json" else "plain",
            "filters": ["turn_context"],
        }
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"django": {"level": "INFO"}, "bm25s": {"level": "WARNING"}},
}

# --- Product settings -------------------------------------------------------

PORT = env.int("PORT", default=8787)

KB_DIR = Path(env("KB_DIR", default=str(BASE_DIR / "kb")))
KB_CHUNK_SIZE = env.int("KB_CHUNK_SIZE", default=1200)
KB_CHUNK_OVERLAP = env.int("KB_CHUNK_OVERLAP", default=150)
# GET /metrics answers these client addresses, or a scraper sending "Authorization: Bearer
# <METRICS_TOKEN>"; anyone else gets 403.
METRICS_ALLOWED_ADDRESSES = env.list("METRICS_ALLOWED_ADDRESSES", default=["127.0.0.1", "::1"])
METRICS_TOKEN = env("METRICS_TOKEN", default="")
# A KB file larger than this is skipped (and reported) by reindex_kb; 0: no cap.
KB_MAX_FILE_BYTES = env.int("KB_MAX_FILE_BYTES", default=2_000_000)
# A table row's columns and a line's numbers beyond these are skipped (and reported) as a
# KB file is read (grounding/bounds.py); 0: no bound.
KB_MAX_TABLE_COLUMNS = env.int("KB_MAX_TABLE_COLUMNS", default=50)
KB_MAX_NUMBERS_PER_LINE = env.int("KB_MAX_NUMBERS_PER_LINE", default=200)
KB_MAX_NUMBERS_PER_FILE = env.int("KB_MAX_NUMBERS_PER_FILE", default=2000)
# With more facts than this in the KB, an answer's number checks run in a worker thread, so a
# question about thousands of like facts stalls no other customer (chat/pipeline.py).
VERIFY_IN_THREAD_FACTS = env.int("VERIFY_IN_THREAD_FACTS", default=1000)
# ... and on any KB, a sentence of more numbers than this (each is checked against its fact's
# whole group: hundreds of them in one sentence cost seconds even on a small KB).
VERIFY_IN_THREAD_NUMBERS = env.int("VERIFY_IN_THREAD_NUMBERS", default=4)
# Those checks run in this many threads of their own, one check per connection at a time
# (chat/verify_pool.py): pure Python holds the GIL, so more threads only take the loop's share.
VERIFY_WORKERS = env.int("VERIFY_WORKERS", default=1)
# A turn whose socket went away mid-answer goes on for this long for the page to come back (a
# reload takes a second or two, chat/shutdown.py); then, taken by no connection, it is cancelled
# with its check.
PARKED_TURN_GRACE_SECONDS = env.float("PARKED_TURN_GRACE_SECONDS", default=20.0)
# manage.py import_kb: a site's crawl and each page's bounds (docs/import.md).
KB_IMPORT_MAX_PAGES = env.int("KB_IMPORT_MAX_PAGES", default=200)
KB_IMPORT_MAX_DEPTH = env.int("KB_IMPORT_MAX_DEPTH", default=3)
KB_IMPORT_MAX_BYTES = env.int("KB_IMPORT_MAX_BYTES", default=2_000_000)
KB_IMPORT_TIMEOUT = env.float("KB_IMPORT_TIMEOUT", default=15.0)
KB_IMPORT_DELAY = env.float("KB_IMPORT_DELAY", default=1.0)
# A page's whole fetch (a page sending a byte a second is cut), and a site's whole crawl.
KB_IMPORT_PAGE_SECONDS = env.float("KB_IMPORT_PAGE_SECONDS", default=60.0)
KB_IMPORT_RUN_SECONDS = env.float("KB_IMPORT_RUN_SECONDS", default=1800.0)
# A DOCX or PDF is refused before it is parsed when it would unpack to more than this, or
# to more than this many times its size, or (a PDF) has more pages (grounding/kbimport/bounds.py).
KB_IMPORT_MAX_UNPACKED_BYTES = env.int("KB_IMPORT_MAX_UNPACKED_BYTES", default=50_000_000)
KB_IMPORT_MAX_RATIO = env.float("KB_IMPORT_MAX_RATIO", default=100.0)
KB_IMPORT_MAX_PDF_PAGES = env.int("KB_IMPORT_MAX_PDF_PAGES", default=2000)
# The address space of an importing process (import_kb, the import worker); 0: unbounded.
KB_IMPORT_MAX_MEMORY_BYTES = env.int("KB_IMPORT_MAX_MEMORY_BYTES", default=2_000_000_000)
# Hosts (by name, as a URL spells them) an import may reach although they resolve to a
# loopback, private or link-local address; every other such address is refused.
KB_IMPORT_INTERNAL_HOSTS = env.list("KB_IMPORT_INTERNAL_HOSTS", default=[])
KB_IMPORT_USER_AGENT = env(
    "KB_IMPORT_USER_AGENT", default="GroundedSupportKBImport/1.0 (+knowledge base import)"
)
# A page's category from its URL path: the first (fnmatch pattern, category) that matches
# (a municipality's sections); else KB_IMPORT_DEFAULT_CATEGORY.
KB_IMPORT_CATEGORIES = [
    ("*/utbildningochforskola/*", "Utbildning och förskola"),
    ("*/omsorgochstod/*", "Omsorg och stöd"),
    ("*/kulturochfritid/*", "Kultur och fritid"),
    ("*/byggaboochmiljo/*", "Bygga, bo och miljö"),
    ("*/trafikochinfrastruktur/*", "Trafik och infrastruktur"),
    ("*/naringslivocharbete/*", "Näringsliv och arbete"),
    ("*/kommunochpolitik/*", "Kommun och politik"),
]
KB_IMPORT_DEFAULT_CATEGORY = env("KB_IMPORT_DEFAULT_CATEGORY", default="Övrigt")
# A re-import started from the admin is a job on the task queue, run by the import worker
# (``manage.py import_worker``, started by ``make run``); False: in the request.
KB_IMPORT_IN_BACKGROUND = env.bool("KB_IMPORT_IN_BACKGROUND", default=True)
KB_IMPORT_QUEUE = "kb-import"
# Django's tasks framework (the django-tasks backport): jobs in the database (django-tasks-db),
# on SQLite as on PostgreSQL.
TASKS = {
    "default": {
        "BACKEND": env("TASKS_BACKEND", default="django_tasks_db.DatabaseBackend"),
        "QUEUES": ["default", KB_IMPORT_QUEUE],
    }
}
# A run still "running" this long after it started died with its process: the next start
# marks it failed instead of being refused.
KB_IMPORT_RUN_STALE_SECONDS = env.int("KB_IMPORT_RUN_STALE_SECONDS", default=3600)
# How many chunks a question retrieves: what the generator answers from and the guard counts
# as retrieved (docs/grounding.md, "Retrieval", has the measurements behind 10).
RETRIEVAL_TOP_K = env.int("RETRIEVAL_TOP_K", default=10)
# A chunk is retrieved when it shares a search term with the question and scores at
# least this share of the best chunk's BM25 score (relative: a score's scale depends on
# the KB's size). The question shares no term with the KB: "no support".
RETRIEVAL_RELATIVE_THRESHOLD = env.float("RETRIEVAL_RELATIVE_THRESHOLD", default=0.2)
HISTORY_EXCHANGES = env.int("HISTORY_EXCHANGES", default=5)
# How stale the in-memory KB index may be when no reindex announcement arrives
# (e.g. no shared channel layer): the database's version is checked this often.
KB_VERSION_CHECK_SECONDS = env.float("KB_VERSION_CHECK_SECONDS", default=0.5)

LLM_BACKEND = env("LLM_BACKEND", default="mock")
LLM_BASE_URL = env("LLM_BASE_URL", default="https://api.openai.com/v1")
LLM_MODEL = env("LLM_MODEL", default="gpt-4o-mini")
LLM_API_KEY = env("LLM_API_KEY", default="")
LLM_TEMPERATURE = env.float("LLM_TEMPERATURE", default=0.3)
LLM_TOKEN_DELAY_MS = env("LLM_TOKEN_DELAY_MS", default="20,80")
LLM_CONNECT_TIMEOUT = env.float("LLM_CONNECT_TIMEOUT", default=5.0)
LLM_FIRST_TOKEN_TIMEOUT = env.float("LLM_FIRST_TOKEN_TIMEOUT", default=20.0)
LLM_TOTAL_TIMEOUT = env.float("LLM_TOTAL_TIMEOUT", default=120.0)
LLM_MAX_RETRIES = env.int("LLM_MAX_RETRIES", default=2)
LLM_MAX_TOKENS = env.int("LLM_MAX_TOKENS", default=1024)
LLM_PROMPT_TOKEN_BUDGET = env.int("LLM_PROMPT_TOKEN_BUDGET", default=6000)

# Audit writes that may wait for the database while it is away (chat/audit.py).
AUDIT_QUEUE_MAX = env.int("AUDIT_QUEUE_MAX", default=10_000)
# A turn's completion waits this long for others to share its transaction, so the
# customer's next question, sent as the answer arrives, is written first (chat/audit.py).
AUDIT_COMPLETION_LINGER_MS = env.int("AUDIT_COMPLETION_LINGER_MS", default=10)
# The audit batches are written by a process of the server's own (chat/audit_process.py).
# On by default on PostgreSQL, where the first frame came sooner under load and nothing
# else measured worse; on SQLite it traded the gap between frames for the first frame
# (docs/performance.md, fifth pass).
AUDIT_WRITER_PROCESS = env.bool(
    "AUDIT_WRITER_PROCESS",
    default=DATABASES["default"]["ENGINE"] != "django.db.backends.sqlite3",
)

ACTION_WINDOW_SECONDS = env.int("ACTION_WINDOW_SECONDS", default=30)
# An execution left pending or running this long was abandoned by a crash:
# the next confirm, or `manage.py recover_executions`, runs it again with the
# same idempotency key (actions/services.py).
EXECUTION_RECOVERY_SECONDS = env.float("EXECUTION_RECOVERY_SECONDS", default=30.0)
# Attempts before an abandoned execution is marked failed instead.
EXECUTION_MAX_ATTEMPTS = env.int("EXECUTION_MAX_ATTEMPTS", default=3)
# A repeated confirm waits this long for the running attempt's result.
EXECUTION_WAIT_SECONDS = env.float("EXECUTION_WAIT_SECONDS", default=5.0)
# Quotas on SMS and callbacks, "count/seconds" each ("0": off); actions/quotas.py.
ACTION_QUOTA_PER_CONVERSATION = env("ACTION_QUOTA_PER_CONVERSATION", default="3/86400")
ACTION_QUOTA_PER_NUMBER = env("ACTION_QUOTA_PER_NUMBER", default="3/86400")
ACTION_QUOTA_PER_ADDRESS = env("ACTION_QUOTA_PER_ADDRESS", default="10/3600")
ACTION_QUOTA_PER_MINUTE = env("ACTION_QUOTA_PER_MINUTE", default="30/60")
# The empty chat page's suggestion chips per page language ("|" between chips).
CHAT_SUGGESTIONS = {
    "sv": env(
        "CHAT_SUGGESTIONS_SV",
        default="Vad kostar premium?|Vad ingår i Business?|Ring mig på 070-123 45 67",
    ).split("|"),
    "en": env(
        "CHAT_SUGGESTIONS_EN",
        default="What does Premium cost?|What is included in Business?|Call me on 070-123 45 67",
    ).split("|"),
}
SMS_BACKEND = env("SMS_BACKEND", default="actions.sms.ConsoleBackend")

WS_RATE_LIMIT = env("WS_RATE_LIMIT", default="20/10")
WS_MAX_FRAME_BYTES = env.int("WS_MAX_FRAME_BYTES", default=64 * 1024)
WS_MAX_TEXT_CHARS = env.int("WS_MAX_TEXT_CHARS", default=2000)
# A frame this large gets its error and then the connection is closed (1009);
# daphne itself drops anything over twice this (see the Makefile).
WS_CLOSE_FRAME_BYTES = env.int("WS_CLOSE_FRAME_BYTES", default=256 * 1024)
# Frames of any kind, valid or not, per connection; past it: error, then close (1008).
WS_FLOOD_LIMIT = env("WS_FLOOD_LIMIT", default="400/10")
# Frames one staff console may send ("count/seconds"; "0": off): more get rate_limited.
STAFF_RATE_LIMIT = env("STAFF_RATE_LIMIT", default="60/10")
# Open WebSocket connections per client address and process (0: no limit).
WS_MAX_CONNECTIONS_PER_IP = env.int("WS_MAX_CONNECTIONS_PER_IP", default=50)
# Turns that may start per pass of the event loop; streams in progress go first
# (chat/admission.py). 0: no limit.
TURN_STARTS_PER_PASS = env.int("TURN_STARTS_PER_PASS", default=32)
# ... and no more once a pass's starts have taken this long (one start always goes).
TURN_START_BUDGET_MS = env.float("TURN_START_BUDGET_MS", default=20.0)
# Server patches, installed by `python -m config.serve` only (config/server/; what
# each is worth: the README's "Server patches" table). Plain daphne and uvicorn
# serve the product without them.
SERVER_UVLOOP = env.bool("SERVER_UVLOOP", default=True)
SERVER_CLOSE_CODES = env.bool("SERVER_CLOSE_CODES", default=True)
GC_TUNING = env.bool("GC_TUNING", default=True)
# Awaited on SIGTERM before the server stops (config/server/shutdown.py).
SERVER_SHUTDOWN_HOOK = "chat.composition.shut_down_connections"
# The garbage collector's pauses stop every stream (config/server/gc_tuning.py).
GC_FREEZE = env.bool("GC_FREEZE", default=True)
GC_FULL_COLLECTION_SECONDS = env.float("GC_FULL_COLLECTION_SECONDS", default=60.0)
GC_YOUNG_THRESHOLD = env.int("GC_YOUNG_THRESHOLD", default=10_000)

# --- Production security ----------------------------------------------------
# DJANGO_DEBUG=0 declares production: secure cookies, HSTS and the SSL
# redirect are on unless a variable turns one off, so with only DJANGO_DEBUG=0,
# DJANGO_SECRET_KEY and ALLOWED_HOSTS `manage.py check --deploy --fail-level
# WARNING` passes. Without DJANGO_DEBUG (`make run`, the tests) they stay off,
# so the product works on http://localhost.
PRODUCTION = "DJANGO_DEBUG" in os.environ and not DEBUG

SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=PRODUCTION)
# Probes and scrapers call a process directly over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^livez$", r"^readyz$", r"^metrics$"]
SESSION_COOKIE_SECURE = env.bool("DJANGO_SESSION_COOKIE_SECURE", default=PRODUCTION)
CSRF_COOKIE_SECURE = env.bool("DJANGO_CSRF_COOKIE_SECURE", default=PRODUCTION)
SECURE_HSTS_SECONDS = env.int(
    "DJANGO_SECURE_HSTS_SECONDS", default=60 * 60 * 24 * 365 if PRODUCTION else 0
)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool(
    "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=PRODUCTION
)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=PRODUCTION)
# Only behind a proxy that terminates TLS and always sets X-Forwarded-Proto;
# otherwise a client could claim https itself.
if env.bool("DJANGO_SECURE_PROXY_SSL_HEADER", default=False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
# e.g. https://chat.example.com (scheme included), for the admin's forms.
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# The chat widget (docs/widget.md): the sites that may embed it (its frame's CSP
# frame-ancestors) and open the chat's WebSocket, as origins, comma-separated
# ("https://www.example.com,https://shop.example.com"). The product's own pages
# need no entry.
WIDGET_ALLOWED_ORIGINS = env.list("WIDGET_ALLOWED_ORIGINS", default=[])
# How long a widget conversation token resumes its conversation, from its first use.
WIDGET_TOKEN_DAYS = env.int("WIDGET_TOKEN_DAYS", default=30)
# ``/widget-demo/``, a page that embeds the widget as a customer's site would: served in
# development (DJANGO_DEBUG=1) unless turned off, and outside it when turned on.
WIDGET_DEMO = env.bool("WIDGET_DEMO", default=DEBUG)

# Reverse proxies whose X-Forwarded-For is believed (addresses or CIDR ranges,
# comma-separated, e.g. "127.0.0.1,10.0.0.0/8"). Empty: the peer is the client.
# See chat/edge.py.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])

# Seconds an HTTP connection may send nothing (a half-open or slow request)
# before daphne drops it (config/server/daphne_edge_limits.py; Twisted's default is 60).
# The application's own time per request: daphne's --http-timeout (Makefile).
HTTP_IDLE_TIMEOUT_SECONDS = env.int("HTTP_IDLE_TIMEOUT_SECONDS", default=15)
# A readiness check slower than this counts as failed (config/health.py).
READINESS_CHECK_TIMEOUT_SECONDS = env.float("READINESS_CHECK_TIMEOUT_SECONDS", default=1.0)
