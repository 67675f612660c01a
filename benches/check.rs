//! `cargo bench`: the whole check on generated projects of growing size (cross-module calls,
//! models, tasks with effects and guards), and parsing with fact extraction alone.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use twice::check::check;
use twice::config::{Overrides, Settings};

fn main() {
    divan::main();
}

/// A project of `apps` Django apps, each calling into the next one.
fn generate(apps: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    let root = dir.path();
    std::fs::write(
        root.join("celery_app.py"),
        "from celery import Celery\napp = Celery(\"gen\")\n",
    )
    .expect("write");
    for i in 0..apps {
        let pkg = root.join(format!("app{i}"));
        std::fs::create_dir(&pkg).expect("mkdir");
        std::fs::write(pkg.join("__init__.py"), "").expect("write");
        let next = (i + 1) % apps;
        let mut models = String::from("from django.db import models\n\n\n");
        let _ = write!(
            models,
            "class Order{i}(models.Model):\n    number = models.CharField(max_length=20, unique=True)\n    status = models.CharField(max_length=16)\n    notified = models.BooleanField(default=False)\n"
        );
        std::fs::write(pkg.join("models.py"), models).expect("write");
        let services = format!(
            "import stripe\nfrom django.core.mail import send_mail\n\nfrom app{next}.services import audit as next_audit\n\n\ndef charge(order):\n    return stripe.PaymentIntent.create(amount=100, currency=\"eur\", idempotency_key=f\"charge-{{order.pk}}\")\n\n\ndef notify(order):\n    send_mail(\"Paid\", \"Thanks\", None, [\"a@example.com\"])\n\n\ndef audit(order, depth=0):\n    if depth > 3:\n        return\n    next_audit(order, depth + 1)\n"
        );
        std::fs::write(pkg.join("services.py"), services).expect("write");
        let tasks = format!(
            "from celery import shared_task\n\nfrom .models import Order{i}\nfrom .services import audit, charge, notify\n\n\n@shared_task\ndef pay(order_id):\n    order = Order{i}.objects.get(pk=order_id)\n    if order.status == \"paid\":\n        return\n    charge(order)\n    Order{i}.objects.filter(pk=order_id).update(status=\"paid\")\n    audit(order)\n\n\n@shared_task\ndef send_notice(order_id):\n    order = Order{i}.objects.get(pk=order_id)\n    if order.notified:\n        return\n    notify(order)\n    order.notified = True\n    order.save(update_fields=[\"notified\"])\n"
        );
        std::fs::write(pkg.join("tasks.py"), tasks).expect("write");
    }
    dir
}

fn run(root: &Path, threads: usize) -> usize {
    let settings = Settings::resolve(None, &Overrides::default(), root).expect("settings");
    check(&[PathBuf::from(root)], &settings, root, threads)
        .diagnostics
        .len()
}

#[divan::bench(args = [50, 200, 800])]
fn check_project(bencher: divan::Bencher, apps: usize) {
    let dir = generate(apps);
    bencher.bench(|| run(dir.path(), 2));
}

#[divan::bench(args = [200])]
fn check_project_one_thread(bencher: divan::Bencher, apps: usize) {
    let dir = generate(apps);
    bencher.bench(|| run(dir.path(), 1));
}
