"""Background tasks of the orders app.

Every task here runs at least once, not exactly once: a worker killed before
the ack, a Redis redelivery, autoretry_for, or someone pressing "retry" in
Flower all run it again with the same arguments. Each task is annotated with
what that second run does. Tasks marked "Correct" are what twice stays silent on.
"""
import logging
import uuid
from smtplib import SMTPException

import requests
import stripe
from celery import shared_task
from django.conf import settings
from django.core.mail import send_mail
from django.db import OperationalError, transaction
from django.db.models import F
from twilio.base.exceptions import TwilioRestException
from twilio.rest import Client

from shop.celery import app

from .models import Invitation, LoyaltyAccount, Order, Payment, ProcessedWebhook
from .notifications import send_receipt, send_review_request
from .payments import charge_order, current_surcharge_cents, refund_order

logger = logging.getLogger(__name__)
client = Client(settings.TWILIO_ACCOUNT_SID, settings.TWILIO_AUTH_TOKEN)

REFERRAL_BONUS_POINTS = 500


# --- Payments -----------------------------------------------------------------


@shared_task(autoretry_for=(stripe.APIConnectionError,), retry_backoff=True, max_retries=5)
def charge_order_task(order_id):
    order = Order.objects.get(pk=order_id)
    if order.status == Order.Status.PAID:
        return
    # charge_order() passes no idempotency key, and the status guard does not
    # help: a crash between the charge and the update below (or a timeout after
    # Stripe charged) charges again. Fix: idempotency_key=f"charge-order-{order.pk}".
    intent = charge_order(order)  # expect: TW101
    Payment.objects.create(order=order, intent_id=intent.id, amount_cents=order.total_cents)
    Order.objects.filter(pk=order_id).update(status=Order.Status.PAID)
    send_receipt_task.delay(order_id)


@app.task(autoretry_for=(stripe.APIConnectionError,), retry_backoff=True, max_retries=5)
def charge_preorder(order_id):
    order = Order.objects.get(pk=order_id)
    if order.status == Order.Status.PAID:
        return
    # A key that is new on every run is no key: after a timeout the retry sends
    # a fresh uuid4 and Stripe charges the card again. Use f"charge-{order_id}".
    intent = stripe.PaymentIntent.create(
        amount=order.total_cents,
        currency=order.currency,
        customer=order.stripe_customer_id,
        payment_method=order.payment_method_id,
        confirm=True,
        off_session=True,
        idempotency_key=f"charge-{uuid.uuid4()}",  # expect: TW201
    )
    Payment.objects.create(order=order, intent_id=intent.id, amount_cents=order.total_cents)
    Order.objects.filter(pk=order_id).update(status=Order.Status.PAID)


@shared_task(bind=True, max_retries=3)
def charge_delivery_surcharge(self, order_id, amount_cents):
    order = Order.objects.get(pk=order_id)
    try:
        stripe.PaymentIntent.create(
            amount=amount_cents,
            currency=order.currency,
            customer=order.stripe_customer_id,
            payment_method=order.payment_method_id,
            confirm=True,
            off_session=True,
            idempotency_key=f"surcharge-{order_id}-{amount_cents}",
        )
    except stripe.APIConnectionError as exc:
        # The connection dropped, so the charge may well have succeeded. Retrying
        # with a re-quoted amount changes the key, and Stripe charges again.
        new_amount = current_surcharge_cents(order)
        raise self.retry(exc=exc, args=[order_id, new_amount], countdown=10)  # expect: TW501


@shared_task(autoretry_for=(stripe.APIConnectionError,), retry_backoff=True, max_retries=5)
def refund_order_task(order_id):
    # Correct: refund_order() keys the refund on the order, so a crash before
    # the updates below repeats the request and Stripe returns the same refund.
    order = Order.objects.select_related("payment").get(pk=order_id)
    if order.payment.status == Payment.Status.REFUNDED:
        return
    refund = refund_order(order)
    Payment.objects.filter(order_id=order_id).update(status=Payment.Status.REFUNDED, refund_id=refund.id)
    Order.objects.filter(pk=order_id).update(status=Order.Status.REFUNDED)


# --- Outgoing HTTP --------------------------------------------------------------


@shared_task(bind=True, max_retries=4)
def register_shipment(self, order_id):
    order = Order.objects.get(pk=order_id)
    headers = {
        "Authorization": f"Bearer {settings.CARRIER_API_TOKEN}",
        # retries is 0, 1, 2...: each retry is a new key, so a POST that timed
        # out but went through books a second pickup. Use f"shipment-{order_id}".
        "Idempotency-Key": f"shipment-{order_id}-{self.request.retries}",  # expect: TW202
    }
    try:
        response = requests.post(settings.CARRIER_URL, json={"order": order.number}, headers=headers, timeout=10)
        response.raise_for_status()
    except requests.RequestException as exc:
        raise self.retry(exc=exc, countdown=30)
    Order.objects.filter(pk=order_id).update(tracking_number=response.json()["tracking_number"])


@shared_task
def export_order_to_erp(order_id):
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
        if order.erp_id:
            return
        # Keyed, but made while holding the row lock and a DB connection for as
        # long as the ERP takes; on rollback the ERP keeps an order we forget.
        # Commit the claim first, call the ERP after the block.
        response = requests.post(  # expect: TW301
            settings.ERP_URL,
            json={"number": order.number, "total_cents": order.total_cents},
            headers={"Idempotency-Key": f"erp-order-{order_id}"},
            timeout=10,
        )
        order.erp_id = response.json()["id"]
        order.save(update_fields=["erp_id"])


# --- Notifications --------------------------------------------------------------


@shared_task(autoretry_for=(SMTPException,), retry_backoff=True)
def send_receipt_task(order_id):
    # Nothing checks or records that the receipt went out: every redelivery
    # mails the customer again.
    order = Order.objects.get(pk=order_id)
    send_receipt(order)  # expect: TW102


@shared_task
def send_invoice(order_id):
    order = Order.objects.select_related("team").get(pk=order_id)
    if order.invoice_sent:
        return
    # The guard is right, the order is not: if the worker dies after the mail
    # and before the save, the flag never reaches the database and the retry
    # mails the invoice again.
    send_mail(  # expect: TW103
        f"Invoice for order {order.number}",
        f"Amount due: {order.total_cents / 100:.2f} {order.currency.upper()}",
        settings.DEFAULT_FROM_EMAIL,
        [order.team.billing_email if order.team else order.email],
    )
    order.invoice_sent = True
    # A full save writes back every field as read before the slow send, undoing
    # e.g. a status change made meanwhile. Use update_fields=["invoice_sent"].
    order.save()  # expect: TW104


@shared_task(autoretry_for=(TwilioRestException, SMTPException), retry_backoff=True, max_retries=3)
def send_shipping_update(order_id):
    order = Order.objects.get(pk=order_id)
    if order.shipping_notice_sent:
        return
    # Two sends, one flag at the end: when the mail fails, autoretry sends the
    # SMS again, because no progress was recorded after it.
    client.messages.create(  # expect: TW103, TW502
        to=order.phone,
        from_=settings.TWILIO_FROM_NUMBER,
        body=f"Order {order.number} is on its way: {order.tracking_number}",
    )
    send_mail(  # expect: TW103
        f"Order {order.number} has shipped",
        f"Tracking number: {order.tracking_number}",
        settings.DEFAULT_FROM_EMAIL,
        [order.email],
    )
    order.shipping_notice_sent = True
    order.save(update_fields=["shipping_notice_sent"])


@shared_task
def request_review(order_id):
    # Correct (at-most-once): the flag is checked and set under select_for_update
    # in one transaction, and the mail goes out after the commit. A crash may
    # lose the mail, never duplicate it: the right trade for a review request.
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
        if order.review_requested:
            return
        order.review_requested = True
        order.save(update_fields=["review_requested"])
    send_review_request(order)


# --- Webhooks, loyalty, teams -------------------------------------------------


@shared_task(autoretry_for=(OperationalError,), retry_backoff=True, max_retries=5)
def handle_stripe_event(event_id, event_type, data):
    # The marker commits on its own (autocommit) before the work. If an update
    # below fails, the retry finds the marker and skips the event forever.
    # Put marker and updates in one transaction.atomic() block.
    _, created = ProcessedWebhook.objects.get_or_create(event_id=event_id)  # expect: TW303
    if not created:
        return
    if event_type == "charge.refunded":
        number = data["metadata"]["order"]
        Payment.objects.filter(order__number=number).update(status=Payment.Status.REFUNDED)
        Order.objects.filter(number=number).update(status=Order.Status.REFUNDED)
    elif event_type == "charge.dispute.created":
        Payment.objects.filter(intent_id=data["payment_intent"]).update(status=Payment.Status.DISPUTED)


@shared_task
def add_invitation(team_id, email, role="buyer"):
    # Two workers running this at once both miss the SELECT and both INSERT:
    # without a unique constraint on (team, email) nothing stops the duplicate.
    invitation, _ = Invitation.objects.get_or_create(  # expect: TW304
        team_id=team_id,
        email=email.lower(),
        defaults={"role": role},
    )
    if invitation.role != role:
        invitation.role = role
        invitation.save(update_fields=["role"])


@shared_task
def credit_referral_bonus(referrer_id, order_id):
    # An increment with nothing recording that this order's bonus was paid:
    # every redelivery credits another 500 points.
    LoyaltyAccount.objects.filter(customer_id=referrer_id).update(points=F("points") + REFERRAL_BONUS_POINTS)  # expect: TW305
    logger.info("referral bonus for order %s credited to %s", order_id, referrer_id)


@shared_task
def award_loyalty_points(order_id):
    # Correct: the guard and the increment share one transaction under a row
    # lock, and the flag commits together with the points.
    with transaction.atomic():
        order = Order.objects.select_for_update().get(pk=order_id)
        if order.points_awarded:
            return
        points = order.total_cents // 100
        LoyaltyAccount.objects.filter(customer_id=order.customer_id).update(points=F("points") + points)
        order.points_awarded = True
        order.save(update_fields=["points_awarded"])
