"""Warehouse sync jobs, serialised with Redis locks.

A broker lock is only as good as its expiry. Shorter than the task may run,
and it lapses mid-run and lets a second worker in. Missing, and a worker
killed while holding it (OOM, deploy) leaves the key behind for good.
"""
import redis
import requests
from django.conf import settings
from django.db.models.functions import Now

from orders.models import Order, Product
from shop.celery import app

redis_client = redis.Redis(host="redis", port=6379, db=2)

EXPORT_LOCK = "warehouse:export-orders"
RESERVATIONS_LOCK_TTL = 900  # seconds, above the 300 s hard limit of the task using it


@app.task(time_limit=600, soft_time_limit=540)
def sync_stock_levels():
    # The task may run 10 minutes, the lock lives 60 seconds and is never
    # extended: after a minute the next beat tick syncs concurrently.
    # Use timeout=900, or lock.extend() inside the loop.
    with redis_client.lock("warehouse:sync-stock", timeout=60, blocking_timeout=0):  # expect: TW401
        response = requests.get(f"{settings.WAREHOUSE_URL}/stock", timeout=60)
        response.raise_for_status()
        for row in response.json():
            Product.objects.filter(sku=row["sku"]).update(stock=row["on_hand"])


@app.task(bind=True, max_retries=None)
def export_paid_orders(self):
    # SET NX without ex=: if the worker is killed before the finally, the key
    # stays and every later run retries forever. Add ex= above the time limit.
    if not redis_client.set(EXPORT_LOCK, "1", nx=True):  # expect: TW402
        raise self.retry(countdown=60)
    try:
        for order in Order.objects.filter(status=Order.Status.PAID, exported=False):
            # Correct on its own: keyed by the order number, one step recorded per order.
            requests.post(
                f"{settings.WAREHOUSE_URL}/orders",
                json={"number": order.number, "email": order.email},
                headers={"Idempotency-Key": f"wms-order-{order.number}"},
                timeout=10,
            )
            Order.objects.filter(pk=order.pk).update(exported=True)
    finally:
        redis_client.delete(EXPORT_LOCK)


@app.task(time_limit=300, soft_time_limit=270)
def release_expired_reservations():
    # Correct: the lock outlives the task's hard time limit, so it cannot lapse
    # while this run still works; absolute values make a rerun harmless.
    with redis_client.lock("warehouse:release-reservations", timeout=RESERVATIONS_LOCK_TTL, blocking_timeout=0):
        Product.objects.filter(reserved_until__lt=Now()).update(reserved=0, reserved_until=None)
