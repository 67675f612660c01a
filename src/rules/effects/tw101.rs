use crate::catalog::EffectKind;
use crate::diagnostic::Severity;
use crate::facts::{Param, ParamKind, ParamShape};
use crate::i18n::tr;
use crate::project::KeyStatus;
use crate::rules::{Checker, TaskView, declare_rule, effect_clause};

declare_rule! {
    /// ## What it does
    /// Reports a task that reaches an effect whose provider accepts an idempotency key — a
    /// payment, a keyed e-mail or HTTP API — and passes none (or passes `None`). A task reaches
    /// what the project functions it calls do, and what another task's body does when it runs
    /// that body in its own process (`refund.run(...)`, `.apply()`, Huey's `call_local`,
    /// Dramatiq's `.fn`, Django's `.call()`), not what a task it enqueues does. Effects in a
    /// lambda the task builds (`transaction.on_commit(lambda: ...)`), or in a function it hands
    /// to `transaction.on_commit` (`on_commit(notify)`, `on_commit(partial(notify, pk))`), are
    /// reached too: they run again on a second run. Headers are read as the call sends them:
    /// built in steps (`headers["Idempotency-Key"] = ...`, `headers.update({...})`) or returned
    /// by a project helper (`headers=auth_headers(token)`, a dict with no key header). A client
    /// or session made with default headers sends them with each request
    /// (`httpx.Client(headers={"Idempotency-Key": k})`, `session.headers.update({...})`), in
    /// the function, in a project helper that returns it (`session = keyed_session(key)`) or
    /// in a method of the class holding it (`self.client = httpx.Client(headers=...)` in
    /// `__init__`), and a request object sends what `req.add_header(...)` gave it. A wrapper
    /// that spreads its `**kwargs` into the call (`def charge(**kwargs): return
    /// stripe.PaymentIntent.create(**kwargs)`) passes on what its caller gives: the key is read
    /// at the task's call to the wrapper, as a keyword or inside the `headers=` or `options=`
    /// it gives (`partner_post("/vouchers", json=...)` around `requests.post(url, **kwargs)`
    /// sends no key header). So does one that takes the key or the headers out of its
    /// `**kwargs` and adds its own entries (`headers = kwargs.pop("headers", {})`, then
    /// `headers["Authorization"] = ...`; `kwargs.pop("idempotency_key", None)`). A wrapper that
    /// passes a parameter of its own on as the headers or options (`def partner_post(path,
    /// headers=None)`, then `client.post(path, headers=headers)`) sends no key when its caller
    /// gives none, `None`, or a dict without one.
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
        let label = effect.trace.last().map_or("", |hop| hop.label.as_str());
        let example = format!(
            "f\"{}-{{{}}}\"",
            key_prefix(e.kind, label),
            first_param(task)
        );
        let how = project.key_spec(e).map_or_else(
            || {
                tr!(
                    lang,
                    "key.keyword",
                    keyword = "idempotency_key",
                    key = example
                )
            },
            |spec| spec.example(lang, &example, e.in_items),
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

/// The example key's prefix. For a payment, what the call does, read from its name
/// (`stripe.Refund.create` → `refund`, `client.v1.payment_intents.create` →
/// `payment-intent`, `gateway.capture` → `capture`): a charge and a refund made by one task
/// must not share a key, which the provider would refuse as a reused key.
fn key_prefix(kind: EffectKind, label: &str) -> String {
    let fixed = match kind {
        EffectKind::Payment => return operation_word(label).unwrap_or_else(|| "charge".into()),
        EffectKind::Email => "mail",
        EffectKind::Message => "message",
        EffectKind::Http => "request",
        EffectKind::Publish => "event",
    };
    fixed.to_string()
}

/// `Refund.create` → `refund`; `payment_intents.create_async` → `payment-intent`;
/// `transfer_create`, `create_order` → `transfer`, `order`: the resource a `create` makes, else
/// the method.
fn operation_word(label: &str) -> Option<String> {
    let mut segments = label.rsplit('.');
    let method = segments.next()?;
    let method = method.strip_suffix("_async").unwrap_or(method);
    let word = match segments.next() {
        Some(resource) if method == "create" => singular(resource),
        _ => method
            .strip_prefix("create_")
            .or_else(|| method.strip_suffix("_create"))
            .unwrap_or(method),
    };
    let mut kebab = String::with_capacity(word.len() + 4);
    for (i, c) in word.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !kebab.ends_with('-') {
                kebab.push('-');
            }
            kebab.push(c.to_ascii_lowercase());
        } else if c == '_' {
            kebab.push('-');
        } else if c.is_ascii_alphanumeric() {
            kebab.push(c);
        }
    }
    (!kebab.is_empty()).then_some(kebab)
}

/// `refunds` → `refund`, `payment_intents` → `payment_intent`; `Refund`, `address` unchanged.
fn singular(word: &str) -> &str {
    match word.strip_suffix('s') {
        Some(stem) if stem.len() > 2 && !stem.ends_with('s') => stem,
        _ => word,
    }
}

/// The parameter the example key is made from: the first that names an id (`order_id`,
/// `invoice_pk`, `reference`), else the first other than `self`/`ctx` and `*args`/`**kwargs`.
/// A mapping (`shipment: dict`) is keyed by its `id` item; a sequence is no key.
pub(crate) fn first_param(task: &TaskView) -> String {
    let params: Vec<_> = task
        .function
        .params
        .iter()
        .filter(|p| {
            p.kind != ParamKind::Variadic
                && !matches!(p.name(), "self" | "cls" | "ctx" | "context" | "task")
        })
        .collect();
    let shaped = |p: &Param, shape: ParamShape| p.shape == shape;
    if let Some(id) = params
        .iter()
        .find(|p| shaped(p, ParamShape::Unknown) && names_an_id(p.name()))
    {
        return id.name().to_string();
    }
    match params.iter().find(|p| !shaped(p, ParamShape::Collection)) {
        Some(p) if shaped(p, ParamShape::Mapping) => format!("{}['id']", p.name()),
        Some(p) => p.name().to_string(),
        None => "object_id".to_string(),
    }
}

/// `order_id`, `invoice_pk`, `payment_uuid`, `reference`, `id`: a name that says it holds an
/// identifier.
fn names_an_id(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["id", "pk", "uuid", "ref", "reference"]
        .iter()
        .any(|word| name == *word || name.ends_with(&format!("_{word}")))
}

#[cfg(test)]
mod tests {
    use super::{EffectKind, key_prefix};

    #[test]
    fn payment_keys_are_named_after_the_operation() {
        let prefix = |label| key_prefix(EffectKind::Payment, label);
        assert_eq!(prefix("stripe.Refund.create"), "refund");
        assert_eq!(prefix("stripe.PaymentIntent.create"), "payment-intent");
        assert_eq!(prefix("client.v1.payment_intents.create"), "payment-intent");
        assert_eq!(prefix("stripe.Refund.create_async"), "refund");
        assert_eq!(prefix("client.checkout.sessions.create"), "session");
        assert_eq!(prefix("yookassa.Payment.capture"), "capture");
        assert_eq!(prefix("payment_gateway.refund"), "refund");
        assert_eq!(prefix("api.refund_payment"), "refund-payment");
        assert_eq!(prefix("client.transfer_create"), "transfer");
        assert_eq!(prefix("orders.create_order"), "order");
        assert_eq!(prefix("create"), "create");
        assert_eq!(prefix(""), "charge");
        // Other kinds keep one prefix whatever the call.
        assert_eq!(
            key_prefix(EffectKind::Email, "stripe.Refund.create"),
            "mail"
        );
    }
}
