use crate::catalog::EffectKind;
use crate::diagnostic::Severity;
use crate::i18n::tr;
use crate::project::KeyStatus;
use crate::rules::{Checker, TaskView, declare_rule, effect_clause};

declare_rule! {
    /// ## What it does
    /// Reports a task that reaches an effect whose provider accepts an idempotency key — a
    /// payment, a keyed e-mail or HTTP API — and passes none (or passes `None`). Effects in a
    /// lambda the task builds (`transaction.on_commit(lambda: ...)`), or in a function it hands
    /// to `transaction.on_commit` (`on_commit(notify)`, `on_commit(partial(notify, pk))`), are
    /// reached too: they run again on a second run. Headers are read as the call sends them:
    /// built in steps (`headers["Idempotency-Key"] = ...`, `headers.update({...})`) or returned
    /// by a project helper (`headers=auth_headers(token)`, a dict with no key header). A wrapper
    /// that spreads its `**kwargs` into the call (`def charge(**kwargs): return
    /// stripe.PaymentIntent.create(**kwargs)`) passes on what its caller gives: the key is read
    /// at the task's call to the wrapper.
    ///
    /// ## Why it matters on a second run
    /// The broker delivers at least once: a worker killed before the ack, a visibility timeout,
    /// a retry. The second run calls the provider again and the provider, without a key, cannot
    /// tell it from a new request: the card is charged twice. A done-guard does not help, since
    /// the window between the call and the write of the done state remains. SDKs that make up a
    /// random key when none is passed (Stripe, YooKassa) only protect their own HTTP retries,
    /// not a second run of the task.
    ///
    /// ## Example
    /// ```python
    /// @shared_task
    /// def charge(order_id):
    ///     order = Order.objects.get(pk=order_id)
    ///     stripe.PaymentIntent.create(amount=order.total_cents, currency="eur")
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// @shared_task
    /// def charge(order_id):
    ///     order = Order.objects.get(pk=order_id)
    ///     stripe.PaymentIntent.create(
    ///         amount=order.total_cents,
    ///         currency="eur",
    ///         idempotency_key=f"charge-order-{order_id}",
    ///     )
    /// ```
    pub const RULE = {
        code: "TW101",
        name: "effect-without-idempotency-key",
        group: "effects",
        severity: Error,
        summary: "A task reaches an effect that accepts an idempotency key and passes none",
        fixable: false,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let mut seen = Vec::new();
    for effect in &task.effects {
        if !matches!(*effect.key, KeyStatus::Missing) || seen.contains(&effect.index) {
            continue;
        }
        seen.push(effect.index);
        let e = effect.effect;
        let project = checker.project;
        let lang = checker.lang;
        let predicate = tr!(lang, "tw101.predicate", is = e.kind.is(lang));
        let mut message = tr!(
            lang,
            "tw101.message",
            subject = effect_clause(lang, &effect.trace, &predicate),
            task = task.name(),
            repeat = e.kind.repeat(lang)
        );
        if e.random_default {
            message.push_str(&tr!(
                lang,
                "tw101.random_default",
                sdk = project.sink_name(e)
            ));
        }
        let example = format!("f\"{}-{{{}}}\"", key_prefix(e.kind), first_param(task));
        let how = project.key_spec(e).map_or_else(
            || {
                tr!(
                    lang,
                    "key.keyword",
                    keyword = "idempotency_key",
                    key = example
                )
            },
            |spec| spec.example(lang, &example),
        );
        let help = tr!(lang, "tw101.help", how = how);
        let diagnostic = checker.report(&RULE, task.id.file, effect.range, message, help);
        if e.kind != EffectKind::Payment {
            diagnostic.severity = Severity::Warning;
        }
        if effect.trace.len() > 1 {
            diagnostic.trace = effect.trace.clone();
        }
    }
}

fn key_prefix(kind: EffectKind) -> &'static str {
    match kind {
        EffectKind::Payment => "charge",
        EffectKind::Email => "mail",
        EffectKind::Message => "message",
        EffectKind::Http => "request",
        EffectKind::Publish => "event",
    }
}

/// The first parameter that is not `self`/`ctx`, for the example key.
pub(crate) fn first_param(task: &TaskView) -> String {
    task.function
        .params
        .iter()
        .map(|p| p.name)
        .find(|name| !matches!(*name, "self" | "cls" | "ctx" | "context" | "task"))
        .unwrap_or("object_id")
        .to_string()
}
