use ruff_text_size::TextRange;

use crate::facts::{EventKind, Function, GuardTest, Lit};
use crate::i18n::tr;
use crate::path::Sym;
use crate::project::{FuncId, Hop, KeyStatus, Project};
use crate::rules::{Checker, TaskView, declare_rule, effect_clause};

declare_rule! {
    /// ## What it does
    /// Reports a guarded effect without key support whose done state is written only **after**
    /// it (`x.notified = True; x.save()`, `.update(status="sent")` following the send; in
    /// SQLAlchemy the `session.commit()` after `x.notified = True`, or an executed
    /// `update(...)` statement; raw `UPDATE` SQL). The guard
    /// may test the done state (`if x.notified:`) or the pending one (`if x.status != "queued":
    /// return`, when the task writes `status` later; without that write it is a precondition).
    /// The guard, the effect and the write may each be in the task or in a helper it calls
    /// (`send_receipt(order)` that sends and then sets `receipt_sent`); the report is then at
    /// the task's call, as for every effect reached through a helper. A write before the effect
    /// makes it at most once only when it can be the done state: a write of another field than
    /// the one the guard tests (an attempts counter, another row's `last_activity_at`) leaves
    /// the window open, and so does a claim of a state the guard does not leave on
    /// (`delivery = "sending"` under `if doc.delivery == "sent": return`: a redelivery after
    /// a crash finds `"sending"` and sends again; `in ("sending", "sent")` closes it). After
    /// the effect, a guard comparing a field with written-out states (`if ticket.status ==
    /// "closed": return`) is recorded only by a write that may set that field: a timestamp
    /// (`update(last_nudged_at=now)`, in the task or a helper) is not its done state, and the
    /// test is a precondition. A flag (`if order.receipt_sent:`) may be a property or one of
    /// several, and any later write counts.
    ///
    /// ## Why it matters on a second run
    /// A crash between the effect and the write — an OOM kill, a deploy's SIGTERM, a lost
    /// connection — leaves the done state unwritten. The redelivered task passes the guard and
    /// sends again. This is the opening scenario of the source article: the mail went out,
    /// `notified = True` never reached the database.
    ///
    /// ## Example
    /// ```python
    /// @shared_task
    /// def notify(shipment_id):
    ///     shipment = Shipment.objects.get(pk=shipment_id)
    ///     if shipment.notified:
    ///         return
    ///     send_mail("Shipped", "...", None, [shipment.email])
    ///     shipment.notified = True
    ///     shipment.save(update_fields=["notified"])
    /// ```
    ///
    /// ## Use instead
    /// An idempotency key at the provider, or an outbox row committed before the send and marked
    /// after it. If losing a message is acceptable, write the flag before the send in the same
    /// transaction as the guard (at most once):
    /// ```python
    /// @shared_task
    /// def notify(shipment_id):
    ///     with transaction.atomic():
    ///         shipment = Shipment.objects.select_for_update().get(pk=shipment_id)
    ///         if shipment.notified:
    ///             return
    ///         shipment.notified = True
    ///         shipment.save(update_fields=["notified"])
    ///     send_mail("Shipped", "...", None, [shipment.email])
    /// ```
    /// A claim counts the same: when the guard's transaction writes a state before the effect
    /// (`status = "sending"`) and the final state (`"sent"`) follows the effect, the effect is
    /// at most once and is not reported. So does a guard that writes its own state: a claiming
    /// update (`claimed = Notice.objects.filter(pk=pk, status="queued").update(status=
    /// "sending")`, then `if not claimed: return`), `if not cache.add(key, ...): return`, or
    /// `get_or_create` followed by `if not created: return` (a marker that may be lost with the
    /// work is TW303's finding).
    pub const RULE = {
        code: "TW103",
        name: "crash-window-after-effect",
        group: "effects",
        severity: Warning,
        summary: "The done state of a guarded effect is written after it: a crash in between repeats it",
        fixable: false,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let mut seen = Vec::new();
    for effect in task.ordered_effects() {
        if !matches!(*effect.key, KeyStatus::Unsupported)
            || !effect.guarded
            || seen.contains(&effect.index)
        {
            continue;
        }
        // The done state written after the effect, on a path that can follow it: in the task
        // after its call, or in a helper on the way after the call that leads to the effect
        // (`send_mail(...)` then `invoice.save(update_fields=["reminder_sent"])` in the helper).
        let tested = tested_fields(project, &effect.hops);
        let Some(write) = effect
            .hops
            .iter()
            .find_map(|&hop| write_after(project, hop, tested.as_deref()))
        else {
            continue;
        };
        if effect.hops.iter().any(|&hop| claimed_before(project, hop)) {
            continue;
        }
        seen.push(effect.index);
        let file = &project.files[write.file as usize];
        let (row, _) = file.location(write.range.start());
        let lang = checker.lang;
        let predicate = if write.file == task.id.file {
            tr!(lang, "tw103.predicate", line = row)
        } else {
            tr!(lang, "tw103.predicate_in", file = file.display, line = row)
        };
        let message = tr!(
            lang,
            "tw103.message",
            subject = effect_clause(lang, &effect.trace, &predicate),
            task = task.name(),
            repeat = effect.effect.kind.repeat(lang)
        );
        let help = tr!(lang, "tw103.help");
        let diagnostic = checker.report(&RULE, task.id.file, effect.range, message, help);
        if effect.trace.len() > 1 {
            diagnostic.trace = effect.trace.clone();
        }
    }
}

/// Where the call at `hop` is followed by a write of state that is not itself an effect, on a
/// path through both: the call that writes the done state after the effect.
struct Write {
    file: u32,
    range: TextRange,
}

/// The fields the done-guards over an effect compare with written-out states (`status` in
/// `if ticket.status == "closed": return`), when every one of them does; `None` when one tests
/// something else: a flag (`if order.receipt_sent:`, which may be a property or one of several
/// in an `or`), `.exists()`, `cache.get(k)`, a helper. Any later write may record those.
fn tested_fields(project: &Project, hops: &[Hop]) -> Option<Vec<Sym>> {
    let mut fields = Vec::new();
    for hop in hops {
        let function = project.function(hop.func)?;
        let target = function.events().get(hop.event as usize)?.block;
        for event in &function.events()[..hop.event as usize] {
            let EventKind::Guard(guard) = &event.kind else {
                continue;
            };
            if matches!(guard.test, GuardTest::Precondition)
                || !crate::project::guard_covers(function, event.block, target)
            {
                continue;
            }
            match guard.test {
                GuardTest::DoneCheck {
                    field: Some(field),
                    ref states,
                } if !states.is_empty() => fields.push(field),
                _ => return None,
            }
        }
    }
    (!fields.is_empty()).then_some(fields)
}

/// Whether the write at `index` of `func` may set one of the `tested` fields: it names the
/// fields it sets and one is tested, or it may set any. A project helper called there writes
/// what its own ORM writes name.
fn may_write_tested(project: &Project, func: FuncId, index: usize, tested: &[Sym]) -> bool {
    let sets_tested = |fields: Option<Vec<Sym>>| {
        fields.is_none_or(|fields| fields.iter().any(|field| tested.contains(field)))
    };
    if let Some(crate::project::CallClass::Project(callee)) = project.call_class(func, index) {
        let Some(helper) = project.function(*callee) else {
            return true;
        };
        return helper.events().iter().enumerate().any(|(i, event)| {
            matches!(event.kind, EventKind::Call(_))
                && project.writes_state(*callee, i)
                && sets_tested(written_fields(project, *callee, i))
        });
    }
    sets_tested(written_fields(project, func, index))
}

fn write_after(project: &Project, hop: Hop, tested: Option<&[Sym]>) -> Option<Write> {
    let function = project.function(hop.func)?;
    let at = hop.event as usize;
    let block = function.events().get(at)?.block;
    function
        .events()
        .iter()
        .enumerate()
        .skip(at + 1)
        .find_map(|(i, event)| {
            let EventKind::Call(call) = &event.kind else {
                return None;
            };
            // A write of another field than the guard tests (`last_nudged_at` under `if
            // ticket.status == "closed": return`) is not its done state.
            (!function.exclusive(block, event.block)
                && !function.is_deferred(event.block)
                && writes_done_state(project, hop.func, i)
                && tested.is_none_or(|tested| may_write_tested(project, hop.func, i, tested)))
            .then_some(Write {
                file: hop.func.file,
                range: call.range,
            })
        })
}

/// The at-most-once choice at `hop`: a done-guard followed by a state write (a claim,
/// `status = "inflight"`, the flag itself) before the call, in the guard's transaction or
/// committed on its own. After a crash the redelivery stops at the guard; the effect may be
/// lost, but it is not repeated, and a write after the effect is not its done state.
pub(crate) fn claimed_before(project: &Project, hop: Hop) -> bool {
    let Some(function) = project.function(hop.func) else {
        return false;
    };
    let effect = hop.event as usize;
    let Some(target) = function.events().get(effect).map(|e| e.block) else {
        return false;
    };
    function.events()[..effect]
        .iter()
        .enumerate()
        .any(|(g, guard)| {
            let EventKind::Guard(test) = &guard.kind else {
                return false;
            };
            if matches!(test.test, GuardTest::Precondition) {
                return false;
            }
            // A guard that writes its own state: a claiming update (`if not claimed: return`),
            // `if not cache.add(k): return`, `if not created: return`. The redelivery stops at
            // it; that the marker may be lost with the work is TW303's finding, not this one.
            let self_writing = match test.test {
                GuardTest::Claim
                | GuardTest::NotCreated {
                    compound: false, ..
                } => true,
                // Unless it is a lock's key, released when the function ends.
                GuardTest::NotMarker { .. } => !project.releases_keys(function),
                // `if not repo.claim_for_sending(id): return`: a helper that writes its claim
                // and answers whether this run made it.
                GuardTest::Helper {
                    ref path,
                    negated: true,
                } => project
                    .resolve_function(&project.canonical(path), Some(hop.func))
                    .and_then(|callee| project.summary(callee))
                    .is_some_and(|s| {
                        s.writes_state
                            && (s.returns_false_when_done || s.returns_done_check)
                            && !project.claim_released(s, function)
                    }),
                _ => false,
            };
            if self_writing && crate::project::guard_covers(function, guard.block, target) {
                return true;
            }
            // In the guard's transaction when it has one, else anywhere on the way.
            let tx = project
                .transactions_around(hop.func, guard.block)
                .last()
                .copied();
            let in_tx = |block| match tx {
                Some(tx) => {
                    tx == crate::project::FUNCTION_TRANSACTION || function.block_within(block, tx)
                }
                None => !function.exclusive(block, target),
            };
            // A write of another field than the one the guard tests (an attempts counter,
            // `last_activity_at`) claims nothing: the next delivery still passes the guard.
            let (tested, states) = match &test.test {
                GuardTest::DoneCheck { field, states } => (*field, &states[..]),
                _ => (None, &[][..]),
            };
            let claims = |w: usize| {
                tested.is_none_or(|field| {
                    written_fields(project, hop.func, w).is_none_or(|set| set.contains(&field))
                        && written_state(function, g, w, field)
                            .is_none_or(|state| states.is_empty() || states.contains(&state))
                })
            };
            // SQLAlchemy's unit of work: `row.sent = True` inside the guard's `with
            // session.begin():` is written when the block commits, before an effect after it.
            let flushed = |event: &crate::facts::Event| {
                let (EventKind::AttrAssign(assign), Some(field), Some(tx)) =
                    (&event.kind, tested, tx)
                else {
                    return false;
                };
                assign.attr == field
                    && assign.key.is_none()
                    && tx != crate::project::FUNCTION_TRANSACTION
                    && function.block_within(event.block, tx)
                    && !function.block_within(target, tx)
                    && project.begins_session(function, tx)
            };
            // The guard must stand over the effect: `if not x.sms_sent:` guards its own body,
            // not the next step's effect after it.
            crate::project::guard_covers(function, guard.block, target)
                && (g + 1..effect).any(|w| {
                    let event = &function.events()[w];
                    (in_tx(event.block) && writes_done_state(project, hop.func, w) && claims(w))
                        || flushed(event)
                })
        })
}

/// The fields the ORM write at `index` of `func` sets, when the call names them all
/// (`save(update_fields=["attempts"])`, `update(last_activity_at=now)`); `None` when it may
/// set any (a plain `save()`, a helper, a cache write).
fn written_fields(project: &Project, func: FuncId, index: usize) -> Option<Vec<Sym>> {
    let function = project.function(func)?;
    let EventKind::Call(call) = &function.events().get(index)?.kind else {
        return None;
    };
    if call.star_kwargs || call.dropped.any() {
        return None;
    }
    let orm = &project.catalog.orm;
    let method = call.method.as_str();
    if orm.save_methods.has(method) {
        let Lit::Seq(items) = &call.keyword("update_fields")?.lit else {
            return None;
        };
        items
            .iter()
            .map(|item| item.as_str().map(Sym::new))
            .collect()
    } else if orm.update_methods.has(method) {
        Some(call.keywords().iter().map(|(name, _)| *name).collect())
    } else {
        None
    }
}

/// The state the write at `index` sets `field` to, when it is written out: `.update(delivery=
/// "sending")`, or `doc.delivery = "sending"` after the guard at `guard` and before a
/// `save()`. A claim of another state than the guard leaves on (`"sending"` under `if
/// doc.delivery == "sent": return`) stops no redelivery.
fn written_state(function: &Function, guard: usize, index: usize, field: Sym) -> Option<Sym> {
    let events = function.events();
    let value = match &events.get(index)?.kind {
        EventKind::AttrAssign(assign) if assign.attr == field => &assign.value,
        EventKind::Call(call) => match call.keyword(field.as_str()) {
            Some(value) => value,
            None => events
                .get(guard + 1..index)?
                .iter()
                .rev()
                .find_map(|event| match &event.kind {
                    EventKind::AttrAssign(assign)
                        if assign.attr == field && assign.key.is_none() && !assign.augmented =>
                    {
                        Some(&assign.value)
                    }
                    _ => None,
                })?,
        },
        _ => return None,
    };
    match &value.lit {
        Lit::Str(text) => Some(Sym::new(text)),
        Lit::Other => value
            .path
            .as_ref()
            .filter(|path| !path.is_call())
            .and_then(|path| path.last_name())
            .map(Sym::new),
        _ => None,
    }
}

/// Whether the event at `index` of `func` writes state and is no effect itself: a done state.
fn writes_done_state(project: &Project, func: FuncId, index: usize) -> bool {
    project.writes_state(func, index) && project.effects_at(func, index).is_empty()
}
