use crate::i18n::tr;
use crate::project::KeyStatus;
use crate::rules::{Checker, TaskView, declare_rule, effect_clause};

declare_rule! {
    /// ## What it does
    /// Reports an effect without idempotency-key support (Django `send_mail`,
    /// `EmailMessage.send`, `smtplib`, most SMS and chat APIs) that a task reaches with no
    /// done-guard before it. A fetched row or answer tested before the task leaves is one,
    /// inline or through a local: `.exists()`, `cache.get(k)`, and SQLAlchemy's
    /// `session.scalar(select(exists().where(...)))`, `session.get(M, pk) is not None`,
    /// `.first()`, `.one_or_none()`, a value of a row unpacked from `cur.fetchone()` or read
    /// by key (`row["sent"]`), and a field or a comparison kept in a local first (`sent =
    /// order.receipt_sent` or `sent = order.status == "sent"`, then `if sent: return`); so is
    /// the changed-rows count of a conditional update
    /// (`if result.rowcount != 1: return`, `== 0`, `not result.rowcount`), and a row selected
    /// in the state the task then writes (`filter(pk=pk, status="paid", sms_sent=False).first()`
    /// then `if row is None: return`, or `get(pk=pk, sent=False)` behind `except
    /// Model.DoesNotExist: return`, with `sms_sent`/`sent` set later), and so each pass of a
    /// loop over rows selected that way (`for r in filter(sent=False):` with `r.sent = True`
    /// in the pass; TW103 then has the window). A project helper the
    /// task calls first that raises when the work
    /// is done (`ensure_not_sent(order)` doing `if order.sent: raise AlreadySent`) is a
    /// done-guard, unless the task catches what it raises and goes on (a handler that returns,
    /// raises, or `continue`s the loop the effect is in keeps it one). So is `if helper(...): return` when
    /// the helper returns a done-check (`return invoice.reminder_sent_at is not None`,
    /// `.exists()`, `bool(cache.get(k))`), as the same test written in the task is, and
    /// `if not helper(...): return` when the helper claims the work: it returns `False` where
    /// its own done-guard leaves and `True` after (`claim_receipt(order_id)`), or the count of a
    /// conditional update (`return filter(sent=False).update(sent=True) == 1`); a returned
    /// done-check negated (`if not is_open(invoice): return` over `return invoice.status ==
    /// "open"`) counts only if the task then writes the field it tests, as below. A test of a
    /// field the task never writes is a precondition, not a done-guard: `if x.status !=
    /// "queued": return` or `if ticket.priority > 1: return` guards nothing unless the task
    /// later writes `status` or `priority` (a state it advances, `sent_count += 1`). Nor is a
    /// branch that does work of its own on such a field: `if t.mode == "webhook": return
    /// t.post(body)` dispatches, and the mail after it is unguarded. A guard in each branch of
    /// an `if` with an `else` guards what follows the `if` (`if resend: if inv.resent: return`
    /// / `else: if inv.sent: return`); in one branch only, it leaves the other path open. An
    /// `elif` that returns is a guard as the `if` is (`elif inv.sent: return`), and so is a
    /// `case _ if inv.sent: return` of a `match`, or `case Invoice(sent=True): return`. A guard inside a `try` does not guard its
    /// `finally`, which runs on the guard's way out as well. An `assert` raises as `if not
    /// ...: raise` does (`assert not inv.sent` is a done-guard), and `any(...)`/`all(...)` over
    /// the rows the task loaded tests them as `.exists()` tests the table (`if any(n.kind ==
    /// "overdue" for n in inv.notices.all()): return`); a test of their values for an ordering
    /// (`any(line.amount < 0 for ...)`) is a validation, not a done-guard. `getattr(inv,
    /// "sent", False)` reads the field as `inv.sent` does. A setting or a module's constant
    /// (`if settings.NOTIFICATIONS_PAUSED: return`) says how the code is configured, not
    /// whether the work was done: no done-guard. A send with `dry_run=True` (Firebase)
    /// delivers nothing and is no effect.
    ///
    /// ## Why it matters on a second run
    /// Nothing records that the e-mail or SMS went out and nothing checks it: every redelivery
    /// sends it again, and the provider cannot drop the duplicate.
    ///
    /// ## Example
    /// ```python
    /// @shared_task
    /// def send_receipt(order_id):
    ///     order = Order.objects.get(pk=order_id)
    ///     send_mail("Your receipt", render_receipt(order), None, [order.email])
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// @shared_task
    /// def send_receipt(order_id):
    ///     with transaction.atomic():
    ///         order = Order.objects.select_for_update().get(pk=order_id)
    ///         if order.receipt_sent:
    ///             return
    ///         order.receipt_sent = True
    ///         order.save(update_fields=["receipt_sent"])
    ///     send_mail("Your receipt", render_receipt(order), None, [order.email])
    /// ```
    pub const RULE = {
        code: "TW102",
        name: "unguarded-effect",
        group: "effects",
        severity: Warning,
        summary: "A task reaches an effect without key support and nothing checks that it already happened",
        fixable: false,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let mut seen = Vec::new();
    for effect in &task.effects {
        if !matches!(*effect.key, KeyStatus::Unsupported)
            || effect.guarded
            || seen.contains(&effect.index)
        {
            continue;
        }
        seen.push(effect.index);
        let lang = checker.lang;
        let message = tr!(
            lang,
            "tw102.message",
            subject = effect_clause(lang, &effect.trace, lang.text("tw102.predicate")),
            task = task.name(),
            repeat = effect.effect.kind.repeat(lang)
        );
        let help = tr!(lang, "tw102.help");
        let diagnostic = checker.report(&RULE, task.id.file, effect.range, message, help);
        if effect.trace.len() > 1 {
            diagnostic.trace = effect.trace.clone();
        }
    }
}
