//! Keys: TW201–TW202, and the key values a task passes that both rules inspect.
pub mod tw201;
pub mod tw202;

use std::borrow::Cow;

use ruff_text_size::TextRange;

use crate::facts::{EventKind, GuardTest, Taint, Value};
use crate::i18n::{Lang, tr};
use crate::project::{CallClass, FuncId, Hop, KeyStatus, Project, Summary};
use crate::rules::{Argument, TaskView, argument_for};

/// A value a task uses as an idempotency, lock or de-duplication key.
pub struct KeyUse<'a> {
    pub value: Cow<'a, Value>,
    /// The function the value is written in: its taint's ranges and call events are that
    /// function's (a helper's, for a key made in a helper).
    pub func: FuncId,
    pub what: String,
}

/// Every key value the task passes: effect keys (direct and reached) and lock/marker names.
/// A helper's key that is one of its parameters is the argument the task passes for it.
pub fn key_uses<'a>(project: &Project, task: &'a TaskView, lang: Lang) -> Vec<KeyUse<'a>> {
    let mut uses = Vec::new();
    for effect in &task.effects {
        if let KeyStatus::Present(value) = &*effect.key {
            let what = tr!(
                lang,
                "keys.effect",
                call = effect
                    .trace
                    .last()
                    .map_or(lang.text("keys.unknown_call"), |h| h.label.as_str())
            );
            if let Some(at) = effect.hops.iter().rposition(|h| h.func == effect.key_func) {
                caller_parts(project, &effect.hops[..=at], value, &what, &mut uses);
            }
            uses.push(KeyUse {
                value: Cow::Borrowed(&**value),
                func: effect.key_func,
                what,
            });
        }
    }
    // De-duplication rows: the lookup of `get_or_create` behind `if not created: return`, the
    // insert behind `except IntegrityError: return`.
    let markers: Vec<TextRange> = task
        .function
        .events()
        .iter()
        .filter_map(|event| match &event.kind {
            EventKind::Guard(guard) => match &guard.test {
                GuardTest::NotCreated { marker, .. } => Some(*marker),
                GuardTest::Integrity { inserts } => {
                    project.integrity_marker(task.function, inserts)
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    for event in task.function.events() {
        let EventKind::Call(call) = &event.kind else {
            continue;
        };
        if markers.contains(&call.range) {
            // Not `defaults=`, written only by the run that creates the row.
            let creation_only = project
                .catalog
                .orm
                .creation_only_keywords
                .get(call.method.as_str());
            for (name, value) in call.keywords() {
                if creation_only.is_none_or(|only| only != name.as_str()) {
                    uses.push(KeyUse {
                        value: Cow::Borrowed(value),
                        func: task.id,
                        what: tr!(lang, "keys.lock", call = crate::project::call_label(call)),
                    });
                }
            }
            continue;
        }
        let Some(path) = &call.path else { continue };
        let Some(lock) = project.catalog.lock(&project.canonical(path), call) else {
            continue;
        };
        if let Some(name) = lock.name(call) {
            uses.push(KeyUse {
                value: Cow::Borrowed(name),
                func: task.id,
                what: tr!(lang, "keys.lock", call = crate::project::call_label(call)),
            });
        }
    }
    helper_lock_keys(project, task, lang, &mut uses);
    uses
}

/// The keys of the locks and markers the task's project helpers take under one of their
/// parameters, as the task passes them: `try_lock(lock_key, 900)` over `def try_lock(key,
/// ttl): return r.set(key, "1", nx=True, ex=ttl)` names its lock `lock_key`.
fn helper_lock_keys(project: &Project, task: &TaskView, lang: Lang, uses: &mut Vec<KeyUse>) {
    for (index, event) in task.function.events().iter().enumerate() {
        if !matches!(event.kind, EventKind::Call(_)) {
            continue;
        }
        let Some(CallClass::Project(callee)) = project.call_class(task.id, index) else {
            continue;
        };
        let Some(helper) = project
            .function(*callee)
            .filter(|helper| helper.calls_named(|name| project.catalog.may_name_lock(&name)))
        else {
            continue;
        };
        let caller = Hop {
            func: task.id,
            event: u32::try_from(index).unwrap_or(u32::MAX),
        };
        for inner in helper.events() {
            let EventKind::Call(call) = &inner.kind else {
                continue;
            };
            let Some(path) = &call.path else { continue };
            let Some(name) = project
                .catalog
                .lock(&project.canonical(path), call)
                .and_then(|lock| lock.name(call))
            else {
                continue;
            };
            let what = tr!(lang, "keys.lock", call = crate::project::call_label(call));
            let hops = [
                caller,
                Hop {
                    func: *callee,
                    event: 0,
                },
            ];
            caller_parts(project, &hops, name, &what, uses);
            if let Argument::Given(argument) = argument_for(project, *callee, caller, name) {
                uses.push(KeyUse {
                    value: Cow::Owned(argument.clone()),
                    func: task.id,
                    what,
                });
            }
        }
    }
}

/// The arguments the callers on the way give for the parameters a helper's key is made of
/// among other parts (`f"refund-{order_id}-{attempt}"`, from `refund_once(order.pk,
/// self.request.retries)`): each is part of the key, as written in its caller, and followed
/// on when it is a parameter of that caller in turn. `hops` runs from the task's call to the
/// function `value` is written in (the last hop's).
fn caller_parts(
    project: &Project,
    hops: &[Hop],
    value: &Value,
    what: &str,
    uses: &mut Vec<KeyUse>,
) {
    let [.., caller, callee] = hops else { return };
    let parts = value.taint.iter().filter_map(|t| match t {
        Taint::Param { name } => Some(*name),
        _ => None,
    });
    for name in parts {
        let param = Value {
            name: Some(name),
            flags: Value::PARAM,
            ..Value::default()
        };
        let Argument::Given(argument) = argument_for(project, callee.func, *caller, &param) else {
            continue;
        };
        uses.push(KeyUse {
            value: Cow::Owned(argument.clone()),
            func: caller.func,
            what: what.to_string(),
        });
        // `refund_once(order_id, attempt)` in a helper given `attempt` in turn.
        let up = &hops[..hops.len() - 1];
        if argument.flags & Value::PARAM != 0
            && let Some(name) = argument.name
        {
            let mut alone = argument.clone();
            alone.taint.push(Taint::Param { name });
            caller_parts(project, up, &alone, what, uses);
        } else {
            caller_parts(project, up, argument, what, uses);
        }
    }
}

/// The summary of the project helper whose result a key value carries
/// ([`crate::facts::Taint::Call`] at `event` of `func`, the function the value is written in):
/// what its return value is made of.
fn returned_by<'p>(project: &'p Project, func: FuncId, event: u32) -> Option<&'p Summary> {
    let helper = project.returned_callee(func, project.function(func)?, event)?;
    project.summary(helper)
}
