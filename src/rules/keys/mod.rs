//! Keys: TW201–TW202, and the key values a task passes that both rules inspect.
pub mod tw201;
pub mod tw202;

use std::borrow::Cow;

use crate::facts::{EventKind, Lit, Value};
use crate::i18n::{Lang, tr};
use crate::project::{CallClass, KeyStatus, Project};
use crate::rules::{EffectAt, TaskView};

/// A value a task uses as an idempotency, lock or de-duplication key.
pub struct KeyUse<'a> {
    pub value: Cow<'a, Value>,
    /// The file the value's taint ranges refer to (a helper's, for reached effects).
    pub file: u32,
    pub what: String,
}

/// Every key value the task passes: effect keys (direct and reached) and lock/marker names.
/// A helper's key that is one of its parameters is the argument the task passes for it.
pub fn key_uses<'a>(project: &Project, task: &'a TaskView, lang: Lang) -> Vec<KeyUse<'a>> {
    let mut uses = Vec::new();
    for effect in &task.effects {
        if let KeyStatus::Present(value) = &effect.effect.key {
            let what = tr!(
                lang,
                "keys.effect",
                call = effect
                    .trace
                    .last()
                    .map_or(lang.text("keys.unknown_call"), |h| h.label.as_str())
            );
            let (value, file) = match passed_in(project, task, effect, value) {
                Some(argument) => (Cow::Owned(argument.clone()), task.id.file),
                None => (
                    Cow::Borrowed(&**value),
                    effect.trace.last().map_or(task.id.file, |hop| hop.file),
                ),
            };
            uses.push(KeyUse { value, file, what });
        }
    }
    for event in task.function.events() {
        let EventKind::Call(call) = &event.kind else {
            continue;
        };
        let Some(path) = &call.path else { continue };
        let Some(lock) = project.catalog.lock(&project.canonical(path), call) else {
            continue;
        };
        if let Some(name) = lock.name(call) {
            uses.push(KeyUse {
                value: Cow::Borrowed(name),
                file: task.id.file,
                what: tr!(lang, "keys.lock", method = call.method.as_str()),
            });
        }
    }
    uses
}

/// The argument the task passes for a helper's parameter that the helper uses as the key of
/// the effect it calls directly (`charge(amount, key)`, then `create(..., idempotency_key=key)`).
fn passed_in<'p>(
    project: &Project<'p>,
    task: &TaskView,
    effect: &EffectAt,
    key: &Value,
) -> Option<&'p Value> {
    // The task's call, then the effect in the helper: one hop between them.
    if effect.trace.len() != 2 {
        return None;
    }
    // Read from a name with nothing known of it: a parameter as passed, not a literal or a
    // value derived in the helper.
    if !matches!(key.lit, Lit::Other) || !key.taint.is_empty() {
        return None;
    }
    let name = key.name?;
    let event = u32::try_from(effect.index).ok()?;
    let Some(CallClass::Project(helper)) = project.call_class(task.id, effect.index) else {
        return None;
    };
    let helper = project.function(*helper)?;
    let position = helper.params.iter().position(|p| *p.name == *name)?;
    let call = project.call_at(task.id, event)?;
    // A method's first parameter is its instance, not an argument.
    let skip = usize::from(
        helper.class.is_some()
            && helper
                .params
                .first()
                .is_some_and(|p| matches!(p.name, "self" | "cls")),
    );
    call.keyword(&name)
        .or_else(|| call.args().get(position.checked_sub(skip)?))
}
