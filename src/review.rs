//! `twice review`: for every task, what happens when it runs twice. The replay story lists the
//! steps that matter on a second run (done-guards, effects with their keys, markers, locks, state
//! writes, enqueues), what a redelivery after a crash at each point does, and a verdict that
//! follows from the diagnostics twice reports for the task.

use ruff_text_size::TextRange;
use serde::Serialize;

use crate::catalog::{EffectKind, Framework, Ttl};
use crate::diagnostic::Diagnostic;
use crate::facts::{EventKind, GuardTest};
use crate::project::{CallClass, KeyStatus, Project};
use crate::rules::TaskView;
use crate::rules::locks::{TimeLimit, time_limit};

/// How a second run turns out, worst last.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// A repeat is certain on any redelivery.
    Unsafe,
    /// A bounded window or race: a crash or a concurrent run at the wrong moment repeats work.
    AtRisk,
    /// twice met calls it could not follow, and found nothing in what it saw.
    Unknown,
    Safe,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Unsafe => "unsafe",
            Verdict::AtRisk => "at risk",
            Verdict::Unknown => "unknown",
            Verdict::Safe => "safe",
        }
    }
}

/// What a task touches, in the order the source article reviews tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Exposure {
    Money,
    Messages,
    Http,
    Other,
}

impl Exposure {
    pub fn as_str(self) -> &'static str {
        match self {
            Exposure::Money => "money",
            Exposure::Messages => "e-mail and messages",
            Exposure::Http => "webhooks and HTTP",
            Exposure::Other => "other",
        }
    }
}

/// Codes whose finding makes a repeat certain on any redelivery.
const UNSAFE: &[&str] = &[
    "TW101", "TW102", "TW201", "TW202", "TW303", "TW305", "TW501", "TW502",
];

#[derive(Debug, Serialize)]
pub struct Delivery {
    pub acks: String,
    pub reject_on_worker_lost: String,
    pub retries: String,
    pub time_limit: String,
    pub broker: String,
}

#[derive(Debug, Serialize)]
pub struct Step {
    pub line: usize,
    pub kind: &'static str,
    pub text: String,
    /// What a redelivery after a crash right after this step does; `None` where nothing is lost
    /// or repeated.
    pub crash: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct Finding {
    pub code: &'static str,
    pub name: &'static str,
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Serialize)]
pub struct TaskReview {
    pub task: String,
    pub framework: &'static str,
    pub file: String,
    pub line: usize,
    pub exposure: Exposure,
    pub verdict: Verdict,
    /// Whether every call could be followed.
    pub complete: bool,
    pub delivery: Delivery,
    pub steps: Vec<Step>,
    pub findings: Vec<Finding>,
    /// Files whose code the task runs (its own and those of the helpers it reaches).
    #[serde(skip)]
    pub files: Vec<std::path::PathBuf>,
}

#[derive(Debug, Default, Serialize)]
pub struct Summary {
    pub tasks: usize,
    pub safe: usize,
    pub at_risk: usize,
    #[serde(rename = "unsafe")]
    pub unsafe_: usize,
    pub unknown: usize,
}

/// Reviews every task of the project, riskiest first.
pub fn review(project: &Project, diagnostics: &[Diagnostic]) -> Vec<TaskReview> {
    let mut reviews: Vec<TaskReview> = project
        .tasks
        .iter()
        .filter_map(|task| TaskView::new(project, task))
        .map(|view| review_task(project, &view, diagnostics))
        .collect();
    reviews.sort_by(|a, b| {
        (a.exposure, a.verdict, &a.file, a.line).cmp(&(b.exposure, b.verdict, &b.file, b.line))
    });
    reviews
}

pub fn summarize(reviews: &[TaskReview]) -> Summary {
    let mut summary = Summary {
        tasks: reviews.len(),
        ..Summary::default()
    };
    for review in reviews {
        match review.verdict {
            Verdict::Safe => summary.safe += 1,
            Verdict::AtRisk => summary.at_risk += 1,
            Verdict::Unsafe => summary.unsafe_ += 1,
            Verdict::Unknown => summary.unknown += 1,
        }
    }
    summary
}

/// The verdict the findings of a task imply.
pub fn verdict_of(codes: &[&str], complete: bool) -> Verdict {
    if codes.iter().any(|c| UNSAFE.contains(c)) {
        Verdict::Unsafe
    } else if codes
        .iter()
        .any(|c| c.starts_with("TW") && !c.starts_with("TW0"))
    {
        Verdict::AtRisk
    } else if !complete {
        Verdict::Unknown
    } else {
        Verdict::Safe
    }
}

fn review_task(project: &Project, view: &TaskView, diagnostics: &[Diagnostic]) -> TaskReview {
    let function = view.function;
    let file = &project.files[view.id.file as usize];
    let line = |range: TextRange| file.location(range.start()).0;
    // The task's findings: those rules attributed to it, and those inside its definition
    // (decorator options, transactions in its body).
    let declared = view.task.declared_at.start().min(function.range.start());
    let span = TextRange::new(declared, function.range.end());
    let findings: Vec<Finding> = diagnostics
        .iter()
        .filter(|d| {
            d.task.as_deref() == Some(function.qualname.as_str())
                || d.file == view.id.file && span.contains_range(d.range)
        })
        .map(|d| Finding {
            code: d.code,
            name: d.name,
            line: project.files[d.file as usize].location(d.range.start()).0,
            message: d.message.clone(),
        })
        .collect();
    let complete = project.summary(view.id).is_none_or(|s| s.complete);
    let codes: Vec<&str> = findings.iter().map(|f| f.code).collect();
    let exposure = view
        .effects
        .iter()
        .map(|e| match e.effect.kind {
            EffectKind::Payment => Exposure::Money,
            EffectKind::Email | EffectKind::Message => Exposure::Messages,
            EffectKind::Http | EffectKind::Publish => Exposure::Http,
        })
        .min()
        .unwrap_or(Exposure::Other);
    let mut files = vec![file.path.clone()];
    for effect in &view.effects {
        for hop in &effect.trace {
            let path = &project.files[hop.file as usize].path;
            if !files.contains(path) {
                files.push(path.clone());
            }
        }
    }
    TaskReview {
        task: function.qualname.clone(),
        framework: view.task.framework.as_str(),
        file: file.display.clone(),
        line: line(function.name_range),
        exposure,
        verdict: verdict_of(&codes, complete),
        complete,
        delivery: delivery(project, view),
        steps: steps(project, view, &findings),
        findings,
        files,
    }
}

fn delivery(project: &Project, view: &TaskView) -> Delivery {
    let options = &view.task.options;
    let option_bool = |name: &str| {
        options
            .get(name)
            .map(|v| project.constant(v).and_then(|c| c.as_bool()))
    };
    let settings = &project.settings;
    let global = |setting: &Option<crate::settings::Setting>| {
        setting.as_ref().map(crate::settings::Setting::as_bool)
    };
    let yes_no = |value: Option<Option<bool>>, default: &str| match value {
        Some(Some(true)) => "yes".to_string(),
        Some(Some(false)) => "no".to_string(),
        Some(None) => "unknown (set at run time)".to_string(),
        None => default.to_string(),
    };
    let celery = view.task.framework == Framework::Celery;
    let spec = project.catalog.framework(view.task.framework);
    let acks = if celery {
        match option_bool("acks_late").or_else(|| global(&settings.task_acks_late)) {
            Some(Some(true)) => "late (after the run)".to_string(),
            Some(Some(false)) => "early (before the run)".to_string(),
            Some(None) => "unknown (set at run time)".to_string(),
            None => "early (before the run, Celery's default)".to_string(),
        }
    } else {
        spec.and_then(|s| s.delivery.clone())
            .unwrap_or_else(|| "unknown".to_string())
    };
    let reject = if celery {
        yes_no(
            option_bool("reject_on_worker_lost")
                .or_else(|| global(&settings.task_reject_on_worker_lost)),
            "no (Celery's default)",
        )
    } else {
        "not applicable".to_string()
    };
    let mut retries = Vec::new();
    for name in [
        "autoretry_for",
        "max_retries",
        "retry_backoff",
        "retries",
        "retry",
        "max_tries",
        "retry_delay",
        "default_retry_delay",
    ] {
        if let Some(value) = options.get(name) {
            retries.push(format!(
                "{name}={}",
                project.source_text(view.id.file, value.range)
            ));
        }
    }
    let retries = if retries.is_empty() {
        spec.and_then(|s| s.retries.clone())
            .unwrap_or_else(|| "none".to_string())
    } else {
        retries.join(", ")
    };
    let time_limit = match time_limit(project, view) {
        TimeLimit::Known(seconds, what) => format!("{seconds} s ({what})"),
        TimeLimit::Unknown => "unknown (set at run time)".to_string(),
        TimeLimit::None => "none".to_string(),
    };
    let broker = if celery {
        match settings
            .broker_url
            .as_ref()
            .map(crate::settings::Setting::as_str)
        {
            Some(Some(url)) => {
                let scheme = url.split("://").next().unwrap_or(url);
                match settings.visibility_timeout(project) {
                    Some(timeout) => format!("{scheme}, visibility timeout {timeout} s"),
                    None => scheme.to_string(),
                }
            }
            Some(None) => "unknown (set at run time)".to_string(),
            None => "unknown".to_string(),
        }
    } else {
        "not applicable".to_string()
    };
    Delivery {
        acks,
        reject_on_worker_lost: reject,
        retries,
        time_limit,
        broker,
    }
}

/// The steps that matter on a second run, in order, with what a crash after each one does.
fn steps(project: &Project, view: &TaskView, findings: &[Finding]) -> Vec<Step> {
    let function = view.function;
    let file = &project.files[view.id.file as usize];
    let line = |range: TextRange| file.location(range.start()).0;
    let text = |range: TextRange| project.source_text(view.id.file, range);
    let has = |code: &str, at: usize| findings.iter().any(|f| f.code == code && f.line == at);
    let markers: Vec<TextRange> = function
        .events
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Guard(guard) => match &guard.test {
                GuardTest::NotCreated { marker, .. }
                | GuardTest::NotMarker { marker }
                | GuardTest::Integrity {
                    marker: Some(marker),
                } => Some(*marker),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let mut steps = Vec::new();
    for (index, event) in function.events.iter().enumerate() {
        if function.is_deferred(event.block) {
            continue;
        }
        match &event.kind {
            EventKind::Guard(guard) => {
                let first_line = file.line_text(line(guard.range)).trim().to_string();
                steps.push(Step {
                    line: line(guard.range),
                    kind: "guard",
                    text: format!("checks `{first_line}` and returns early when it holds"),
                    crash: None,
                });
            }
            EventKind::Call(call) => {
                let at = line(call.range);
                if markers
                    .iter()
                    .any(|m| call.range.contains_range(*m) || *m == call.range)
                {
                    let crash = has("TW303", at).then(|| {
                        "the redelivery finds the marker and skips the work forever".to_string()
                    });
                    steps.push(Step {
                        line: at,
                        kind: "marker",
                        text: format!(
                            "creates the de-duplication marker `{}`",
                            text(call.func_range)
                        ),
                        crash,
                    });
                    continue;
                }
                if let Some(effect) = view.effects.iter().find(|e| e.index == index) {
                    let label = effect
                        .trace
                        .last()
                        .map_or(String::new(), |h| h.label.clone());
                    // The key is written where the effect is: in a helper for a reached effect.
                    let key_file = effect.trace.last().map_or(view.id.file, |h| h.file);
                    let key_text = |range: TextRange| project.source_text(key_file, range);
                    let unstable = |value: &crate::facts::Value| {
                        value.taint.iter().any(|t| {
                            matches!(
                                t,
                                crate::facts::Taint::Nondet { .. }
                                    | crate::facts::Taint::Meta { .. }
                            )
                        }) || findings.iter().any(|f| matches!(f.code, "TW201" | "TW202"))
                    };
                    let via = if effect.trace.len() > 1 {
                        format!(" (through `{}`)", effect.trace[0].label)
                    } else {
                        String::new()
                    };
                    let (key, crash) = match &effect.effect.key {
                        KeyStatus::Present(value) if unstable(value) => (
                            format!("with key `{}`, which changes between runs", key_text(value.range)),
                            Some(format!("the redelivery {}: the key is new", effect.effect.kind.repeat())),
                        ),
                        KeyStatus::Present(value) => (
                            format!("with key `{}`", key_text(value.range)),
                            Some(format!("safe: the provider de-duplicates on `{}`", key_text(value.range))),
                        ),
                        KeyStatus::Missing => ("without an idempotency key".to_string(), Some(format!("the redelivery {}", effect.effect.kind.repeat()))),
                        KeyStatus::Unsupported if effect.guarded && !has("TW103", at) => (
                            "(no key support), after a done-guard".to_string(),
                            Some("the redelivery passes or stops at the guard as the done state says".to_string()),
                        ),
                        KeyStatus::Unsupported if effect.guarded => (
                            "(no key support); its done state is written after it".to_string(),
                            Some(format!("the done state was not written yet: the redelivery passes the guard and {}", effect.effect.kind.repeat())),
                        ),
                        KeyStatus::Unsupported => ("(no key support), unguarded".to_string(), Some(format!("the redelivery {}", effect.effect.kind.repeat()))),
                        KeyStatus::Unknown => ("(key passed in a form twice cannot see)".to_string(), None),
                    };
                    steps.push(Step {
                        line: at,
                        kind: "effect",
                        text: format!("{} via `{label}`{via} {key}", effect.effect.kind.noun()),
                        crash,
                    });
                    continue;
                }
                if let Some(CallClass::Enqueue { deferred_to_commit }) =
                    project.call_class(view.id, index)
                {
                    let when = if *deferred_to_commit {
                        " after the commit"
                    } else {
                        ""
                    };
                    steps.push(Step {
                        line: at,
                        kind: "enqueue",
                        text: format!("enqueues `{}`{when}", text(call.func_range)),
                        crash: None,
                    });
                    continue;
                }
                if let Some(path) = &call.path
                    && let Some(lock) = project.catalog.lock(&project.canonical(path), call)
                {
                    let ttl = match lock.ttl(call) {
                        Ttl::Given(value, unit) => format!(
                            "expiring after `{}` {}",
                            text(value.range),
                            match unit {
                                crate::catalog::TimeUnit::Seconds => "s",
                                crate::catalog::TimeUnit::Milliseconds => "ms",
                            }
                        ),
                        Ttl::Forever => "with no expiry".to_string(),
                        Ttl::LibraryDefault => "with the library's default expiry".to_string(),
                    };
                    steps.push(Step {
                        line: at,
                        kind: "lock",
                        text: format!("takes a lock ({}) {ttl}", lock.api),
                        crash: None,
                    });
                    continue;
                }
                if project.writes_state(view.id, index) {
                    steps.push(Step {
                        line: at,
                        kind: "write",
                        text: if matches!(
                            project.call_class(view.id, index),
                            Some(CallClass::Project(_))
                        ) {
                            format!("writes state through `{}`", text(call.func_range))
                        } else {
                            format!("writes `{}`", text(call.func_range))
                        },
                        crash: None,
                    });
                }
            }
            EventKind::AttrAssign(_) => {}
        }
    }
    // Source order: a guard is recorded after the body of its `if`.
    steps.sort_by_key(|step| step.line);
    steps
}
