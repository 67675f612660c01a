"""Views that start background work.

A task enqueued inside transaction.atomic() is published to Redis at once, but
the rows it needs become visible only at COMMIT: the worker may read the old
state, or run for an order that a rollback removed. Enqueue after the commit.
"""
import stripe
from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from .models import Order
from .tasks import charge_order_task, handle_stripe_event, refund_order_task, request_review


@login_required
@require_POST
def checkout(request):
    cart = request.session.get("cart") or {}
    with transaction.atomic():
        order = Order.objects.create(
            customer=request.user,
            email=request.user.email,
            total_cents=sum(line["price_cents"] * line["qty"] for line in cart.values()),
            stripe_customer_id=request.user.profile.stripe_customer_id,
            payment_method_id=request.POST["payment_method"],
        )
        # Published before COMMIT: a fast worker gets Order.DoesNotExist.
        # Use charge_order_task.delay_on_commit(order.pk).
        charge_order_task.delay(order.pk)  # expect: TW302
    request.session.pop("cart", None)
    return redirect("orders:detail", pk=order.pk)


@login_required
@require_POST
def confirm_delivery(request, pk):
    with transaction.atomic():
        order = get_object_or_404(Order.objects.select_for_update(), pk=pk, customer=request.user)
        order.status = Order.Status.DELIVERED
        order.save(update_fields=["status"])
        # Correct: published only once the DELIVERED status is committed.
        transaction.on_commit(lambda: request_review.delay(order.pk))
    return redirect("orders:detail", pk=order.pk)


@login_required
@require_POST
def cancel_order(request, pk):
    with transaction.atomic():
        order = get_object_or_404(Order.objects.select_for_update(), pk=pk, customer=request.user)
        order.status = Order.Status.CANCELLED
        order.save(update_fields=["status"])
        # Correct: Celery's shortcut for transaction.on_commit(... .delay(...)).
        refund_order_task.delay_on_commit(order.pk)
    return redirect("orders:detail", pk=order.pk)


@csrf_exempt
@require_POST
def stripe_webhook(request):
    signature = request.headers.get("Stripe-Signature", "")
    try:
        event = stripe.Webhook.construct_event(request.body, signature, settings.STRIPE_WEBHOOK_SECRET)
    except (ValueError, stripe.SignatureVerificationError):
        return HttpResponseBadRequest()
    # No transaction is open here, so a plain delay() is fine.
    handle_stripe_event.delay(event["id"], event["type"], event["data"]["object"])
    return HttpResponse(status=200)
