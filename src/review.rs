//! `twice review`: for every task, what happens when it runs twice. The replay story lists the
//! steps that matter on a second run (done-guards, effects with their keys, markers, locks, state
//! writes, enqueues), what a redelivery after a crash at each point does, and a verdict that
//! follows from the diagnostics twice reports for the task.

use ruff_text_size::TextRange;
use serde::Serialize;

use crate::catalog::{EffectKind, Framework, Ttl};
use crate::check::Findings;
use crate::diagnostic::Diagnostic;
use crate::facts::{BlockKind, EventKind, Exit, GuardTest};
use crate::i18n::{Lang, tr};
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
        self.label(Lang::En)
    }

    /// The verdict in `lang`: "at risk", "под риском".
    pub fn label(self, lang: Lang) -> &'static str {
        lang.text(match self {
            Verdict::Unsafe => "verdict.unsafe",
            Verdict::AtRisk => "verdict.at_risk",
            Verdict::Unknown => "verdict.unknown",
            Verdict::Safe => "verdict.safe",
        })
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
        self.label(Lang::En)
    }

    /// What the task touches, in `lang`.
    pub fn label(self, lang: Lang) -> &'static str {
        lang.text(match self {
            Exposure::Money => "exposure.money",
            Exposure::Messages => "exposure.messages",
            Exposure::Http => "exposure.http",
            Exposure::Other => "exposure.other",
        })
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
    /// Findings a `# noqa` comment silenced: they do not count for the verdict, and the report
    /// says they are there.
    pub suppressed: Vec<Finding>,
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

/// Reviews every task of the project, riskiest first, in English.
pub fn review(project: &Project, findings: &Findings) -> Vec<TaskReview> {
    review_in(project, findings, Lang::En)
}

/// Reviews every task of the project, riskiest first, with the texts in `lang`.
pub fn review_in(project: &Project, findings: &Findings, lang: Lang) -> Vec<TaskReview> {
    let mut reviews: Vec<TaskReview> = project
        .tasks
        .iter()
        .filter_map(|task| TaskView::new(project, task))
        .map(|view| review_task(project, &view, findings, lang))
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

fn review_task(project: &Project, view: &TaskView, all: &Findings, lang: Lang) -> TaskReview {
    let function = view.function;
    let file = &project.files[view.id.file as usize];
    let line = |range: TextRange| file.location(range.start()).0;
    // The task's findings: those rules attributed to it, and those inside its definition
    // (decorator options, transactions in its body).
    // A task class inheriting its method is declared in another class, maybe another file.
    let declared = match view.id.ctx {
        0 => view.task.declared_at.start().min(function.range.start()),
        _ => function.range.start(),
    };
    let span = TextRange::new(declared, function.range.end());
    let of_task = |diagnostics: &[Diagnostic]| -> Vec<Finding> {
        diagnostics
            .iter()
            .filter(|d| {
                d.task.as_deref() == Some(view.qualname())
                    || d.file == view.id.file && span.contains_range(d.range)
            })
            .map(|d| Finding {
                code: d.code,
                name: d.name,
                line: project.files[d.file as usize].location(d.range.start()).0,
                message: d.message.clone(),
            })
            .collect()
    };
    let findings = of_task(all.reported);
    let suppressed = of_task(all.suppressed);
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
        task: view.qualname().to_string(),
        framework: view.task.framework.as_str(),
        file: file.display.clone(),
        line: line(function.name_range),
        exposure,
        verdict: verdict_of(&codes, complete),
        complete,
        delivery: delivery(project, view, lang),
        steps: steps(project, view, &findings, lang),
        findings,
        suppressed,
        files,
    }
}

fn delivery(project: &Project, view: &TaskView, lang: Lang) -> Delivery {
    let options = &view.task.options;
    let option_bool = |name: &str| project.option_flag(options, name);
    let settings = project.settings_of_task(view.task);
    let global = |setting: &Option<crate::settings::Setting>| {
        setting.as_ref().map(crate::settings::Setting::as_bool)
    };
    let text = |key: &'static str| lang.text(key).to_string();
    let yes_no = |value: Option<Option<bool>>, default: &str| match value {
        Some(Some(true)) => text("delivery.yes"),
        Some(Some(false)) => text("delivery.no"),
        Some(None) => text("delivery.run_time"),
        None => default.to_string(),
    };
    let celery = view.task.framework == Framework::Celery;
    let spec = project.catalog.framework(view.task.framework);
    let acks = if celery {
        match option_bool("acks_late").or_else(|| global(&settings.task_acks_late)) {
            Some(Some(true)) => text("delivery.late"),
            Some(Some(false)) => text("delivery.early"),
            Some(None) => text("delivery.run_time"),
            None => text("delivery.early_default"),
        }
    } else {
        spec.and_then(|s| s.delivery.as_deref())
            .map_or_else(|| text("delivery.unknown"), |d| lang.catalog(d).to_string())
    };
    let reject = if celery {
        yes_no(
            option_bool("reject_on_worker_lost")
                .or_else(|| global(&settings.task_reject_on_worker_lost)),
            lang.text("delivery.reject_default"),
        )
    } else {
        text("delivery.not_applicable")
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
        if let Some((file, value)) = options.get_in(name) {
            retries.push(format!("{name}={}", project.source_text(file, value.range)));
        }
    }
    let retries = if retries.is_empty() {
        spec.and_then(|s| s.retries.as_deref())
            .map_or_else(|| text("delivery.none"), |r| lang.catalog(r).to_string())
    } else {
        retries.join(", ")
    };
    let time_limit = match time_limit(project, view, lang) {
        TimeLimit::Known(seconds, what) => {
            tr!(lang, "delivery.time_limit", seconds = seconds, what = what)
        }
        TimeLimit::Unknown => text("delivery.run_time"),
        TimeLimit::None => text("delivery.none"),
    };
    let broker = if celery {
        match settings
            .broker_url
            .as_ref()
            .map(crate::settings::Setting::str_start)
        {
            Some(Some(url)) => {
                let scheme = url.split("://").next().unwrap_or(url);
                match settings.visibility_timeout(project) {
                    Some(timeout) => tr!(
                        lang,
                        "delivery.broker_timeout",
                        scheme = scheme,
                        timeout = timeout
                    ),
                    None => scheme.to_string(),
                }
            }
            Some(None) => text("delivery.run_time"),
            None => text("delivery.unknown"),
        }
    } else {
        text("delivery.not_applicable")
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
fn steps(project: &Project, view: &TaskView, findings: &[Finding], lang: Lang) -> Vec<Step> {
    let function = view.function;
    let file = &project.files[view.id.file as usize];
    let line = |range: TextRange| file.location(range.start()).0;
    let text = |range: TextRange| project.source_text(view.id.file, range);
    let has = |code: &str, at: usize| findings.iter().any(|f| f.code == code && f.line == at);
    // A set-if-absent key the task gives back in a `finally` is a lock, shown as one below.
    let releases = project.releases_keys(function);
    let markers: Vec<TextRange> = function
        .events()
        .iter()
        .filter_map(|e| match &e.kind {
            EventKind::Guard(guard) => match &guard.test {
                GuardTest::NotCreated { marker, .. } => Some(*marker),
                GuardTest::NotMarker { marker } if !releases => Some(*marker),
                GuardTest::Integrity { inserts } => project.integrity_marker(function, inserts),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let mut steps = Vec::new();
    for (index, event) in function.events().iter().enumerate() {
        if function.is_deferred(event.block) {
            continue;
        }
        match &event.kind {
            // An `if` around code that is not a done-check's is an ordinary branch.
            EventKind::Guard(guard)
                if guard.exit == Exit::Skip && matches!(guard.test, GuardTest::Precondition) => {}
            EventKind::Guard(guard) => {
                let first_line = file.line_text(line(guard.range)).trim().to_string();
                steps.push(Step {
                    line: line(guard.range),
                    kind: "guard",
                    text: if guard.exit == Exit::Skip
                        && function
                            .blocks()
                            .get(event.block as usize)
                            .is_some_and(|b| matches!(b.kind, BlockKind::Loop { .. }))
                    {
                        tr!(lang, "step.guard_loop", line = first_line)
                    } else if guard.exit == Exit::Skip {
                        tr!(lang, "step.guard_around", line = first_line)
                    } else {
                        tr!(lang, "step.guard", line = first_line)
                    },
                    crash: None,
                });
            }
            EventKind::Call(call) => {
                let at = line(call.range);
                if markers
                    .iter()
                    .any(|m| call.range.contains_range(*m) || *m == call.range)
                {
                    let crash = has("TW303", at).then(|| tr!(lang, "step.marker_crash"));
                    steps.push(Step {
                        line: at,
                        kind: "marker",
                        text: tr!(lang, "step.marker", call = text(call.func_range)),
                        crash,
                    });
                    continue;
                }
                if let Some(effect) = view.effects.iter().find(|e| e.index == index) {
                    let label = effect
                        .trace
                        .last()
                        .map_or(String::new(), |h| h.label.clone());
                    // The key is written where the effect is (in a helper for a reached
                    // effect), or in the task when it passes the helper its key.
                    let key_file = effect.key_func.file;
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
                        tr!(lang, "step.via", label = effect.trace[0].label)
                    } else {
                        String::new()
                    };
                    let repeat = effect.effect.kind.repeat(lang);
                    let (key, crash) = match &*effect.key {
                        KeyStatus::Present(value) if unstable(value) => (
                            tr!(lang, "step.key_unstable", key = key_text(value.range)),
                            Some(tr!(lang, "step.key_unstable_crash", repeat = repeat)),
                        ),
                        KeyStatus::Present(value) => (
                            tr!(lang, "step.key", key = key_text(value.range)),
                            Some(tr!(lang, "step.key_crash", key = key_text(value.range))),
                        ),
                        KeyStatus::Missing => (
                            tr!(lang, "step.key_missing"),
                            Some(tr!(lang, "step.repeat_crash", repeat = repeat)),
                        ),
                        KeyStatus::Unsupported if effect.guarded && !has("TW103", at) => (
                            tr!(lang, "step.guarded"),
                            Some(tr!(lang, "step.guarded_crash")),
                        ),
                        KeyStatus::Unsupported if effect.guarded => (
                            tr!(lang, "step.written_after"),
                            Some(tr!(lang, "step.written_after_crash", repeat = repeat)),
                        ),
                        KeyStatus::Unsupported => (
                            tr!(lang, "step.unguarded"),
                            Some(tr!(lang, "step.repeat_crash", repeat = repeat)),
                        ),
                        KeyStatus::Unknown | KeyStatus::Spread(_) | KeyStatus::Holder(..) => {
                            (tr!(lang, "step.key_hidden"), None)
                        }
                    };
                    steps.push(Step {
                        line: at,
                        kind: "effect",
                        text: tr!(
                            lang,
                            "step.effect",
                            noun = effect.effect.kind.noun(lang),
                            label = label,
                            via = via,
                            key = key
                        ),
                        crash,
                    });
                    continue;
                }
                if let Some(CallClass::Enqueue { deferred_to_commit }) =
                    project.call_class(view.id, index)
                {
                    let when = if *deferred_to_commit {
                        lang.text("step.after_commit")
                    } else {
                        ""
                    };
                    steps.push(Step {
                        line: at,
                        kind: "enqueue",
                        text: tr!(
                            lang,
                            "step.enqueue",
                            call = text(call.func_range),
                            when = when
                        ),
                        crash: None,
                    });
                    continue;
                }
                if let Some(path) = &call.path
                    && let Some(lock) = project.catalog.lock(&project.canonical(path), call)
                {
                    let ttl = match lock.ttl(call) {
                        Ttl::Given(value, unit) => tr!(
                            lang,
                            "step.ttl",
                            value = text(value.range),
                            unit = lang.text(match unit {
                                crate::catalog::TimeUnit::Seconds
                                | crate::catalog::TimeUnit::At => "step.unit_s",
                                crate::catalog::TimeUnit::Milliseconds => "step.unit_ms",
                            })
                        ),
                        Ttl::At(value) => tr!(lang, "step.expires_at", value = text(value.range)),
                        Ttl::Forever => tr!(lang, "step.no_expiry"),
                        Ttl::LibraryDefault => tr!(lang, "step.default_expiry"),
                    };
                    steps.push(Step {
                        line: at,
                        kind: "lock",
                        text: tr!(lang, "step.lock", api = lock.api, ttl = ttl),
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
                            tr!(lang, "step.write_through", call = text(call.func_range))
                        } else {
                            tr!(lang, "step.write", call = text(call.func_range))
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
