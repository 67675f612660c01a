"""Models of the shop. Unique constraints here decide what a second run can do.

* ``Order.number`` is unique and ``Payment.order`` is a OneToOneField, so a
  repeated ``Payment.objects.create(order=...)`` fails instead of adding a row.
* ``Invitation`` has only a plain index on (team, email): ``get_or_create`` on
  it is a race between two workers, not a de-duplication.
"""
import secrets

from django.conf import settings
from django.db import models


def new_order_number():
    return f"SO-{secrets.token_hex(4).upper()}"


class Team(models.Model):
    name = models.CharField(max_length=120)
    billing_email = models.EmailField()


class Product(models.Model):
    sku = models.CharField(max_length=32, unique=True)
    name = models.CharField(max_length=200)
    stock = models.PositiveIntegerField(default=0)
    reserved = models.PositiveIntegerField(default=0)
    reserved_until = models.DateTimeField(null=True, blank=True)


class Order(models.Model):
    class Status(models.TextChoices):
        NEW = "new"
        PAID = "paid"
        SHIPPED = "shipped"
        DELIVERED = "delivered"
        CANCELLED = "cancelled"
        REFUNDED = "refunded"

    number = models.CharField(max_length=20, unique=True, default=new_order_number)
    customer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="orders")
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.SET_NULL)
    email = models.EmailField()
    phone = models.CharField(max_length=20, blank=True)
    country = models.CharField(max_length=2, default="DE")
    total_cents = models.PositiveIntegerField()
    currency = models.CharField(max_length=3, default="eur")
    stripe_customer_id = models.CharField(max_length=64)
    payment_method_id = models.CharField(max_length=64)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.NEW)
    tracking_number = models.CharField(max_length=40, blank=True)
    erp_id = models.CharField(max_length=40, blank=True)
    # Done flags of the background tasks.
    invoice_sent = models.BooleanField(default=False)
    shipping_notice_sent = models.BooleanField(default=False)
    review_requested = models.BooleanField(default=False)
    points_awarded = models.BooleanField(default=False)
    exported = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)


class Payment(models.Model):
    class Status(models.TextChoices):
        SUCCEEDED = "succeeded"
        REFUNDED = "refunded"
        DISPUTED = "disputed"

    order = models.OneToOneField(Order, on_delete=models.PROTECT, related_name="payment")
    intent_id = models.CharField(max_length=64)
    refund_id = models.CharField(max_length=64, blank=True)
    amount_cents = models.PositiveIntegerField()
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.SUCCEEDED)


# De-duplication table for Stripe webhook events. Rows are only ever inserted:
# no periodic task deletes the ones older than Stripe's retry window (3 days),
# so the table and its unique index grow with every event, forever.
class ProcessedWebhook(models.Model):  # expect: TW403
    event_id = models.CharField(max_length=255, unique=True)
    received_at = models.DateTimeField(auto_now_add=True)


class LoyaltyAccount(models.Model):
    customer = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="loyalty")
    points = models.PositiveIntegerField(default=0)


class Invitation(models.Model):
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="invitations")
    email = models.EmailField()
    role = models.CharField(max_length=16, default="buyer")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # Speeds up the lookup, but does not make (team, email) unique.
        indexes = [models.Index(fields=["team", "email"])]
