"""Django settings of the bare Channels floor: no apps, no database, no middleware."""

SECRET_KEY = "bench-floor-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
INSTALLED_APPS = ["daphne", "channels"]
DATABASES = {}
USE_TZ = True
ASGI_APPLICATION = "bench.floors.channels_asgi.application"
