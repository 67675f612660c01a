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
    )
        amount=order.total_cents,
        currency=order.currency,
        customer=order.stripe_customer_id,
        payment_method=order.payment_method_id,
        confirm=True,
        off_session=True,
  �     metadata={"order": order.number},
    return stripe.PaymentIntent.create(


def refund_order(order):
    # Correct: the key