use ruff_text_size::TextRange;

use crate::catalog::Framework;
use crate::facts::Value;
use crate::i18n::tr;
use crate::rules::{Checker, TaskView, declare_rule};
use crate::settings::CelerySettings;

declare_rule! {
    /// ## What it does
    /// Reports `acks_late` turned on — globally (`task_acks_late`, `CELERY_TASK_ACKS_LATE`) or
    /// per task (`acks_late=True`) — without `reject_on_worker_lost`. A per-task `acks_late` is
    /// fine when the global `task_reject_on_worker_lost` is on, and a global `acks_late` is fine
    /// when every task sets `reject_on_worker_lost=True` or `acks_late=False` for itself. In a
    /// project that makes several Celery apps, a task declared by an app's decorator
    /// (`@batch_app.task`, `class Rebuild(batch_app.Task)`) runs with that app's settings: the
    /// configuration it loads (`batch_app.config_from_object(...)`; an app that loads none while
    /// others do reads no Django settings) and what is told to it (`batch_app.conf...`, its
    /// `Celery(...)` keywords), not what is told to another.
    ///
    /// ## Why it matters on a second run
    /// `acks_late` is meant to make Celery redeliver a task whose worker died. But when the
    /// worker process is killed — OOM, SIGKILL — Celery acknowledges the message anyway unless
    /// `reject_on_worker_lost` is set: the task is lost instead of redelivered, exactly when
    /// redelivery was wanted. Enable both, once the tasks are idempotent.
    ///
    /// ## Example
    /// ```python
    /// app.conf.update(task_acks_late=True)
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// app.conf.update(task_acks_late=True, task_reject_on_worker_lost=True)
    /// ```
    pub const RULE = {
        code: "TW601",
        name: "acks-late-without-reject-on-worker-lost",
        group: "config",
        severity: Warning,
        summary: "`acks_late` without `reject_on_worker_lost`: a killed worker's task is lost",
        fixable: false,
    };
}

pub fn check_project(checker: &mut Checker, tasks: &[TaskView]) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let mut found = Vec::new();
    // Each project checked together runs its tasks with its own settings.
    for (scope, settings) in project.own_settings() {
        let tasks: Vec<&TaskView> = tasks
            .iter()
            .filter(|t| project.settings_scope_of(t.id.file) == scope)
            .collect();
        if settings.apps.is_empty() {
            check_scope(checker, settings, &tasks, &mut found);
            continue;
        }
        // Several apps: each with its tasks; the tasks no app declares with all the
        // settings merged.
        for (app, own) in &settings.apps {
            let of_app: Vec<&TaskView> = (tasks.iter().copied())
                .filter(|t| t.task.app == Some(*app))
                .collect();
            check_scope(checker, own, &of_app, &mut found);
        }
        let unknown: Vec<&TaskView> = (tasks.iter().copied())
            .filter(|t| settings.own_app(t.task.app).is_none())
            .collect();
        if !unknown.is_empty() {
            check_scope(checker, settings, &unknown, &mut found);
        }
    }
    // A setting several apps run with is reported once.
    found.sort_by_key(|(file, range, _)| (*file, range.start(), range.end()));
    found.dedup_by_key(|(file, range, _)| (*file, *range));
    let lang = checker.lang;
    for (file, range, message) in found {
        checker.report(&RULE, file, range, message, tr!(lang, "tw601.help"));
    }
}

/// The reports for the tasks that run with `settings`.
fn check_scope(
    checker: &Checker,
    settings: &CelerySettings,
    tasks: &[&TaskView],
    found: &mut Vec<(u32, TextRange, String)>,
) {
    let project = checker.project;
    // `None`: set, but only run time knows the value.
    let global_reject = match &settings.task_reject_on_worker_lost {
        Some(setting) => setting.as_bool(),
        None => Some(false),
    };
    let global_acks = match &settings.task_acks_late {
        Some(setting) => setting.as_bool(),
        None => Some(false),
    };
    let lang = checker.lang;
    let celery_tasks: Vec<&TaskView> = tasks
        .iter()
        .copied()
        .filter(|t| t.task.framework == Framework::Celery)
        .collect();
    let option = |task: &TaskView, name: &str| project.option_flag(&task.task.options, name);
    for task in &celery_tasks {
        let Some(Some(true)) = option(task, "acks_late") else {
            continue;
        };
        let reject = option(task, "reject_on_worker_lost").unwrap_or(global_reject);
        if reject == Some(false) {
            let (file, value): (u32, &Value) = task
                .task
                .options
                .get_in("acks_late")
                .expect("checked above");
            found.push((
                file,
                value.setting_range(),
                tr!(lang, "tw601.task", task = task.name()),
            ));
        }
    }
    if global_acks == Some(true)
        && global_reject == Some(false)
        && let Some(setting) = &settings.task_acks_late
    {
        // Quiet only when every task is safe whatever the global says: it turns
        // `reject_on_worker_lost` on or `acks_late` off for itself. A task that sets
        // `acks_late=True` itself is reported at its option, and the setting still stands for
        // every task written later.
        let exposed = celery_tasks.is_empty()
            || celery_tasks.iter().any(|task| {
                option(task, "reject_on_worker_lost") != Some(Some(true))
                    && option(task, "acks_late") != Some(Some(false))
            });
        if exposed {
            found.push((setting.file, setting.range, tr!(lang, "tw601.global")));
        }
    }
}
