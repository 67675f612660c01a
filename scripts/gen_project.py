#!/usr/bin/env python3
"""Generates a Django + Celery project of N apps for scaling measurements: each app has models,
services calling other apps' services (cross-module calls), and tasks with effects and guards.

usage: gen_project.py N OUT_DIR
"""
import os
import sys

n, out = int(sys.argv[1]), sys.argv[2]
os.makedirs(out, exist_ok=True)
open(os.path.join(out, "celery_app.py"), "w").write('from celery import Celery\napp = Celery("gen")\n')
for i in range(n):
    pkg = os.path.join(out, f"app{i}")
    os.makedirs(pkg, exist_ok=True)
    open(os.path.join(pkg, "__init__.py"), "w").write("")
    open(os.path.join(pkg, "models.py"), "w").write(f'''from django.db import models


class Order{i}(models.Model):
    number = models.CharField(max_length=20, unique=True)
    status = models.CharField(max_length=16)
    notified = models.BooleanField(default=False)


class Line{i}(models.Model):
    order = models.ForeignKey(Order{i}, on_delete=models.CASCADE, related_name="lines")
    sku = models.CharField(max_length=32)
''')
    nxt = (i + 1) % n
    open(os.path.join(pkg, "services.py"), "w").write(f'''import requests
import stripe
from django.core.mail import send_mail
from django.db import transaction

from app{nxt}.services import audit as next_audit
from .models import Order{i}


def charge(order):
    return stripe.PaymentIntent.create(amount=100, currency="eur", idempotency_key=f"charge-{{order.pk}}")


def notify(order):
    send_mail("Paid", "Thanks", None, ["a@example.com"])


def audit(order, depth=0):
    if depth > 3:
        return
    requests.get("https://audit.example.com", params={{"order": order.pk}})
    next_audit(order, depth + 1)


def settle(order_id):
    with transaction.atomic():
        order = Order{i}.objects.select_for_update().get(pk=order_id)
        order.status = "settled"
        order.save(update_fields=["status"])
''')
    open(os.path.join(pkg, "tasks.py"), "w").write(f'''from celery import shared_task

from celery_app import app
from .models import Order{i}
from .services import audit, charge, notify, settle


@shared_task(bind=True, max_retries=3)
def pay(self, order_id):
    order = Order{i}.objects.get(pk=order_id)
    if order.status == "paid":
        return
    charge(order)
    Order{i}.objects.filter(pk=order_id).update(status="paid")
    audit(order)


@app.task
def send_notice(order_id):
    order = Order{i}.objects.get(pk=order_id)
    if order.notified:
        return
    notify(order)
    order.notified = True
    order.save(update_fields=["notified"])


@shared_task
def settle_later(order_id):
    settle(order_id)
    for line in Order{i}.objects.get(pk=order_id).lines.all():
        line.sku = line.sku.strip()
        line.save(update_fields=["sku"])
''')
