//! Locks and de-duplication tables: TW401–TW403, and what the lock rules share: the locks a
//! task takes and how long the task may run.
pub mod tw401;
pub mod tw402;
pub mod tw403;

use ruff_text_size::TextRange;

use crate::catalog::{LockApi, LockKind, Ttl};
use crate::facts::{BlockKind, CallSite, EventKind, Value};
use crate::i18n::{Lang, tr};
use crate::project::Project;
use crate::rules::TaskView;

/// A lock a task takes.
pub struct LockUse<'a> {
    pub call: &'a CallSite,
    pub api: &'a LockApi,
}

/// The locks a task takes: lock APIs, and set-if-absent keys that the task releases (in a
/// `finally` or a `with`). Set-if-absent keys never released are markers (TW303), not locks.
pub fn locks<'a>(project: &'a Project, task: &'a TaskView) -> Vec<LockUse<'a>> {
    let function = task.function;
    let releases = function.events.iter().any(|event| {
        matches!(&event.kind, EventKind::Call(call) if project.catalog.lock_release.methods.iter().any(|m| **m == *call.method))
            && function.block_kinds(event.block).any(|k| matches!(k, BlockKind::Finally))
    });
    let mut found = Vec::new();
    for event in &function.events {
        let EventKind::Call(call) = &event.kind else {
            continue;
        };
        let Some(path) = &call.path else { continue };
        let Some(api) = project.catalog.lock(&project.canonical(path), call) else {
            continue;
        };
        if api.kind == LockKind::SetIfAbsent && !releases {
            continue;
        }
        found.push(LockUse { call, api });
    }
    found
}

/// Whether the task extends its locks while it works (`lock.extend()`, `auto_renewal=True`).
pub fn extends_locks(project: &Project, task: &TaskView) -> bool {
    let spec = &project.catalog.lock_extension;
    task.function.events.iter().any(|event| {
        let EventKind::Call(call) = &event.kind else {
            return false;
        };
        spec.methods.iter().any(|m| **m == *call.method)
            || spec
                .keywords
                .iter()
                .any(|k| call.keyword(k).and_then(Value::as_bool) == Some(true))
    })
}

/// How long a task may run.
pub enum TimeLimit {
    /// In seconds, and where it comes from (for messages).
    Known(i64, String),
    /// Set, but only run time knows the value: say nothing.
    Unknown,
    /// Nothing bounds the run.
    None,
}

/// The task's own limit, else the global Celery one, else the framework's default; where it
/// comes from is said in `lang`.
pub fn time_limit(project: &Project, task: &TaskView, lang: Lang) -> TimeLimit {
    let Some(spec) = project.catalog.framework(task.task.framework) else {
        return TimeLimit::None;
    };
    let mut best: Option<(i64, String)> = None;
    for limit in &spec.time_limits {
        let Some(value) = task.task.options.get(&limit.keyword) else {
            continue;
        };
        let Some(seconds) = project.constant(value).and_then(|v| v.as_int()) else {
            return TimeLimit::Unknown;
        };
        let seconds = limit.unit.seconds(seconds);
        if best.as_ref().is_none_or(|(b, _)| seconds > *b) {
            best = Some((
                seconds,
                tr!(
                    lang,
                    "limit.option",
                    keyword = limit.keyword,
                    value = value_text(value, seconds, lang)
                ),
            ));
        }
    }
    if let Some((seconds, what)) = best {
        return TimeLimit::Known(seconds, what);
    }
    if task.task.framework == crate::catalog::Framework::Celery {
        let settings = &project.settings;
        for (setting, name) in [
            (&settings.task_time_limit, "task_time_limit"),
            (&settings.task_soft_time_limit, "task_soft_time_limit"),
        ] {
            if let Some(setting) = setting {
                return match setting.as_int() {
                    Some(seconds) => TimeLimit::Known(
                        seconds,
                        tr!(lang, "limit.global", name = name, seconds = seconds),
                    ),
                    None => TimeLimit::Unknown,
                };
            }
        }
    }
    match spec.default_time_limit {
        Some(seconds) => TimeLimit::Known(
            seconds,
            tr!(
                lang,
                "limit.default",
                framework = task.task.framework.as_str(),
                seconds = seconds
            ),
        ),
        None => TimeLimit::None,
    }
}

fn value_text(value: &Value, seconds: i64, lang: Lang) -> String {
    value.as_int().map_or_else(
        || tr!(lang, "limit.seconds", seconds = seconds),
        |v| v.to_string(),
    )
}

/// The lock's expiry in seconds when it is known; `Err` for no expiry or a library default.
pub fn ttl_seconds<'c>(
    project: &Project,
    lock: &LockUse<'c>,
) -> Result<Option<(i64, TextRange)>, Ttl<'c>> {
    match lock.api.ttl(lock.call) {
        Ttl::Given(value, unit) => Ok(project
            .constant(value)
            .and_then(|v| v.as_int())
            .map(|v| (unit.seconds(v), value.range))),
        other => Err(other),
    }
}
