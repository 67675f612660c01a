"""E-mail helpers. Django's mail API takes no idempotency key: once the SMTP
server accepted a message nobody de-duplicates it. Whether a task calling these
is safe therefore depends on the task alone: does it check, and record, that
the mail went out?
"""
from django.conf import settings
from django.core.mail import EmailMultiAlternatives, send_mail
from django.template.loader import render_to_string


def send_receipt(order):
    send_mail(
        f"Receipt for order {order.number}",
        render_to_string("orders/receipt.txt", {"order": order}),
        settings.DEFAULT_FROM_EMAIL,
        [order.email],
    )


def send_review_request(order):
    context = {"order": order}
    message = EmailMultiAlternatives(
        subject=f"How was order {order.number}?",
        body=render_to_string("orders/review_request.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[order.email],
    )
    message.attach_alternative(render_to_string("orders/review_request.html", context), "text/html")
    message.send()
