"""Django settings of the shop (trimmed to what the example needs).

The Celery block at the end is where delivery semantics are decided, and two
of its lines are wrong for this deployment; the comments say why.
"""
import os

SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "dev-only-not-secret")

INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "orders",
    "warehouse",
]

DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": "shop", "HOST": "postgres"}}

DEFAULT_FROM_EMAIL = "Shop <orders@shop.example.com>"

STRIPE_SECRET_KEY = os.environ.get("STRIPE_SECRET_KEY", "")
STRIPE_WEBHOOK_SECRET = os.environ.get("STRIPE_WEBHOOK_SECRET", "")
TWILIO_ACCOUNT_SID = os.environ.get("TWILIO_ACCOUNT_SID", "")
TWILIO_AUTH_TOKEN = os.environ.get("TWILIO_AUTH_TOKEN", "")
TWILIO_FROM_NUMBER = "+15005550006"

ERP_URL = "https://erp.example.com/api/orders"
CARRIER_URL = "https://api.carrier.example.com/v2/shipments"
CARRIER_TARIFF_URL = "https://api.carrier.example.com/v2/tariff"
CARRIER_API_TOKEN = os.environ.get("CARRIER_API_TOKEN", "")
WAREHOUSE_URL = "https://wms.example.com/api"

# --- Celery -----------------------------------------------------------------
CELERY_BROKER_URL = "redis://redis:6379/0"
CELERY_WORKER_PREFETCH_MULTIPLIER = 1

# Ack after the run, so a crashed task is redelivered... except when the OOM
# killer or SIGKILL takes the worker child: Celery then acknowledges the message
# anyway and the task is silently lost. Pair it with
# CELERY_TASK_REJECT_ON_WORKER_LOST = True, once the tasks survive a second run.
CELERY_TASK_ACKS_LATE = True  # expect: TW601

# Two hours, but Redis redelivers any unacknowledged message after its
# visibility_timeout (default 3600 s): a task still running after one hour is
# handed to a second worker. Raise
# CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": ...} above the limit.
CELERY_TASK_TIME_LIMIT = 2 * 60 * 60  # expect: TW602
