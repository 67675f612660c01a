use ruff_text_size::TextRange;

use crate::catalog::Framework;
use crate::facts::{EventKind, Lit, Value};
use crate::i18n::tr;
use crate::project::CallClass;
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// With a Redis or SQS broker, reports a time limit, a literal `countdown` of an
    /// `apply_async`, a task's `signature(...)` or `self.retry` (or in a task's
    /// `retry_kwargs`; `delay(..., countdown=60)` passes `countdown` to the task as an
    /// argument), an `eta` a written
    /// duration after the current time (`eta=timezone.now() + timedelta(hours=3)`), or a task's
    /// `default_retry_delay`/`retry_backoff_max` longer than the broker's `visibility_timeout`
    /// (`broker_transport_options`; Redis defaults to 3600 s, SQS to 1800 s). Values may be
    /// expressions of literals and module constants; when the broker or a value is only known
    /// at run time, nothing is reported (so for a configuration class the environment fills
    /// in, pydantic's `BaseSettings`, whose defaults hold only without it). In a project that makes several Celery apps, each has
    /// its own broker (from its own calls and the configuration it loads, as TW601 says): a task
    /// declared by an app's decorator (`@realtime_app.task`) or task class, and a countdown of a
    /// message sent to it, are measured against that app's.
    ///
    /// ## Why it matters on a second run
    /// Redis and SQS hand an unacknowledged message to another worker once the visibility
    /// timeout passes. A task that runs longer, or waits for its ETA longer, is delivered
    /// again while the first copy is still running or waiting — and again after each timeout.
    ///
    /// ## Example
    /// ```python
    /// app = Celery("analytics", broker="redis://redis:6379/0")
    ///
    /// @app.task(time_limit=7200)
    /// def rebuild_cohorts(project_id): ...
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// app.conf.broker_transport_options = {"visibility_timeout": 7200 + 600}
    /// ```
    pub const RULE = {
        code: "TW602",
        name: "visibility-timeout-shorter-than-task",
        group: "config",
        severity: Error,
        summary: "A time limit or countdown exceeds the broker's visibility timeout",
        fixable: false,
    };
}

pub fn check_project(checker: &mut Checker, tasks: &[TaskView]) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let lang = checker.lang;
    let celery = &project.catalog.celery_settings;
    // Per project folder, the visibility timeout its tasks run with: projects checked
    // together each have their own broker.
    let timeouts: Vec<Option<i64>> = (0..project.scope_count())
        .map(|scope| project.settings_of_scope(scope).visibility_timeout(project))
        .collect();
    // A folder making several apps: each has its broker ([`CelerySettings::apps`]); whether
    // one of them has a visibility timeout.
    let app_timeouts: Vec<bool> = (0..project.scope_count())
        .map(|scope| {
            let settings = project.settings_of_scope(scope);
            settings
                .apps
                .iter()
                .any(|(_, own)| own.visibility_timeout(project).is_some())
        })
        .collect();
    // Whether a folder's tasks run with the settings of their apps.
    let by_app = |scope: u32| !project.settings_of_scope(scope).apps.is_empty();
    if timeouts.iter().all(Option::is_none) && !app_timeouts.iter().any(|&any| any) {
        return;
    }
    let timeout_of = |file: u32| timeouts[project.scope_of(file) as usize];
    let mut found: Vec<(u32, TextRange, String)> = Vec::new();
    let own_settings =
        project
            .own_settings()
            .flat_map(|(_, settings)| match settings.apps.is_empty() {
                true => vec![settings],
                false => settings.apps.iter().map(|(_, own)| own).collect(),
            });
    for settings in own_settings {
        let Some(timeout) = settings.visibility_timeout(project) else {
            continue;
        };
        for (setting, name) in [
            (&settings.task_time_limit, "task_time_limit"),
            (&settings.task_soft_time_limit, "task_soft_time_limit"),
        ] {
            if let Some(setting) = setting
                && let Some(value) = setting.value.as_ref().and_then(Value::as_f64)
                && exceeds(value, timeout)
            {
                found.push((
                    setting.file,
                    setting.range,
                    tr!(
                        lang,
                        "tw602.global",
                        name = name,
                        value = value,
                        timeout = timeout
                    ),
                ));
                break;
            }
        }
    }
    let timeout_of_task = |task: &crate::project::Task| {
        let settings = project.settings_of(task.id.file);
        match settings.apps.is_empty() {
            true => timeout_of(task.id.file),
            false => settings.for_app(task.app).visibility_timeout(project),
        }
    };
    for task in tasks
        .iter()
        .filter(|t| t.task.framework == Framework::Celery)
    {
        let Some(timeout) = timeout_of_task(task.task) else {
            continue;
        };
        for name in &celery.unacked_options {
            let Some((file, value)) = task.task.options.get_in(name) else {
                continue;
            };
            let Some(seconds) = project.constant(value).and_then(|v| v.as_f64()) else {
                continue;
            };
            if exceeds(seconds, timeout) {
                found.push((
                    file,
                    value.setting_range(),
                    tr!(
                        lang,
                        "tw602.option",
                        name = name,
                        seconds = seconds,
                        task = task.name(),
                        timeout = timeout
                    ),
                ));
                // One report per task for its time limits.
                if name.ends_with("time_limit") {
                    break;
                }
            }
        }
        // `autoretry_for=..., retry_kwargs={"countdown": 7200}`: the retries it makes wait as
        // `self.retry(countdown=7200)` does.
        if let Some((file, options)) = task.task.options.get_in(&celery.retry_options)
            && let Some(countdown) = options.dict_get(&celery.countdown)
            && let Some(seconds) = project.constant(countdown).and_then(|v| v.as_f64())
            && exceeds(seconds, timeout)
        {
            found.push((
                file,
                countdown.setting_range(),
                tr!(
                    lang,
                    "tw602.countdown",
                    seconds = seconds,
                    method = celery.retry_options.as_str(),
                    timeout = timeout
                ),
            ));
        }
    }
    // Literal countdowns of enqueues and retries, anywhere in the project.
    let retry_method = project
        .catalog
        .framework(Framework::Celery)
        .and_then(|spec| spec.retry_method.as_deref());
    // Only calls of these names can carry a countdown the broker waits for: bodies without
    // them stay encoded.
    let frameworks = || project.catalog.frameworks();
    let mut scheduling: Vec<&str> = frameworks()
        .flat_map(|spec| {
            (spec.enqueue_methods.iter())
                .chain(&spec.unresolved_enqueue_methods)
                .chain(&spec.options_methods)
                .chain(&spec.options_signature_methods)
                .chain(&spec.retry_method)
                .map(String::as_str)
        })
        .collect();
    scheduling.sort_unstable();
    scheduling.dedup();
    let may_schedule = |name: crate::path::Sym| {
        scheduling.binary_search(&name.as_str()).is_ok() || project.may_name_enqueue_or_app_by(name)
    };
    for (id, function) in project.all_functions() {
        let scope = project.scope_of(id.file);
        let apps = by_app(scope);
        let scope_timeout = timeout_of(id.file);
        let any_timeout = scope_timeout.is_some() || apps && app_timeouts[scope as usize];
        if !any_timeout || !function.calls_named(may_schedule) {
            continue;
        }
        for (index, event) in function.events().iter().enumerate() {
            let EventKind::Call(call) = &event.kind else {
                continue;
            };
            // `countdown=10800`, or `eta=timezone.now() + timedelta(hours=3)`.
            let (countdown, eta) = match call.keyword(&celery.countdown) {
                Some(countdown) => (countdown, false),
                None => match call.keyword(&celery.eta) {
                    Some(eta) => (eta, true),
                    None => continue,
                },
            };
            let class = project.call_class(id, index);
            // `send_reminder.delay(user_id, countdown=60)` passes `countdown` to the task as
            // an argument: only a method that takes options (`apply_async`) schedules.
            let arguments_only = || {
                project.enqueued_framework(call, id).is_some_and(|spec| {
                    let method = call.method.as_str();
                    spec.enqueue_methods.iter().any(|m| m == method)
                        && !spec.options_methods.iter().any(|m| m == method)
                })
            };
            let enqueue = matches!(class, Some(CallClass::Enqueue { .. })) && !arguments_only();
            // A project method of the retry method's name (`attempt.retry(countdown=...)` on a
            // model) schedules nothing on the broker.
            let retry = retry_method.is_some_and(|m| m == call.method.as_str())
                && !matches!(class, Some(CallClass::Project(_)));
            // `sync.signature((pk,), countdown=7200)`: the countdown of the message it sends.
            let signature = !enqueue
                && !retry
                && project.enqueued_framework(call, id).is_some_and(|spec| {
                    spec.options_signature_methods
                        .iter()
                        .any(|m| m == call.method.as_str())
                });
            if !(enqueue || retry || signature) {
                continue;
            }
            // With several apps, the broker of the task's app: the one sent, or the one
            // retrying; a task of no known app, the merged settings'.
            let task = match (apps, retry) {
                (false, _) => None,
                (true, true) => project.task(id),
                (true, false) => project.enqueued_task(call, id),
            };
            let Some(timeout) = task.map_or(scope_timeout, timeout_of_task) else {
                continue;
            };
            let value = project.constant(countdown);
            let seconds = match value.as_ref().map(|v| &v.lit) {
                Some(Lit::FromNow(seconds)) if eta => *seconds,
                Some(_) if !eta => match value.as_ref().and_then(Value::as_f64) {
                    Some(seconds) => seconds,
                    None => continue,
                },
                _ => continue,
            };
            if exceeds(seconds, timeout) {
                let key = if eta { "tw602.eta" } else { "tw602.countdown" };
                found.push((
                    id.file,
                    countdown.setting_range(),
                    tr!(
                        lang,
                        key,
                        seconds = seconds,
                        method = call.method.as_str(),
                        timeout = timeout
                    ),
                ));
            }
        }
    }
    // A setting several apps run with is reported once.
    found.sort_by_key(|(file, range, _)| (*file, range.start(), range.end()));
    found.dedup_by_key(|(file, range, _)| (*file, *range));
    for (file, range, what) in found {
        let message = tr!(lang, "tw602.message", what = what);
        let help = tr!(lang, "tw602.help");
        checker.report(&RULE, file, range, message, help);
    }
}

/// Whether a duration in seconds, as written (`3600.5` is not `3600`), runs past the broker's
/// visibility timeout.
#[expect(
    clippy::cast_precision_loss,
    reason = "timeouts are far below 2^52 seconds"
)]
fn exceeds(seconds: f64, timeout: i64) -> bool {
    seconds.is_finite() && seconds > timeout as f64
}
