"""Stripe helpers, called from tasks (and could be from views).

Stripe de-duplicates a request by its idempotency key for 24 hours. Without a
key, stripe-python invents a random one per call: that covers its own network
retries, but a second run of the task is a new call, hence a second charge.
The key must therefore come from the business fact ("refund of order 42"),
never from the attempt.
"""
import requests
import stripe
from django.conf import settings

stripe.api_key = settings.STRIPE_SECRET_KEY


def charge_order(order):
    # No idempotency_key. twice reports this at the task that calls
    # charge_order() (orders/tasks.py), since the task is what runs twice.
    return stripe.PaymentIntent.create(
        amount=order.total_cents,
        currency=order.currency,
        customer=order.stripe_customer_id,
        payment_method=order.payment_method_id,
        confirm=True,
        off_session=True,
        metadata={"order": order.number},
    )


def refund_order(order):
    # Correct: the key names the order, so every run of every task that
    # refunds this order asks Stripe for the same, single refund.
    return stripe.Refund.create(
        payment_intent=order.payment.intent_id,
        idempotency_key=f"refund-{order.pk}",
    )


def current_surcharge_cents(order):
    """Today's delivery surcharge from the carrier's tariff API (a GET: a read)."""
    response = requests.get(settings.CARRIER_TARIFF_URL, params={"country": order.country}, timeout=5)
    response.raise_for_status()
    return response.json()["surcharge_cents"]
