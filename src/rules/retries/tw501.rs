use ruff_text_size::TextRange;

use crate::catalog::ByNameArguments;
use crate::facts::{CallSite, EventKind, Function, Lit, Value};
use crate::i18n::{Lang, tr};
use crate::path::Sym;
use crate::project::CallClass;
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports `self.retry(args=..., kwargs=...)` or `task.retry(...)` with arguments that
    /// differ from the task's own parameters, and a task re-enqueueing itself with changed
    /// arguments from an `except` handler (a hand-made retry): `apply_async`/`delay`,
    /// Dramatiq's `send`, Huey's `schedule(args=...)` or a call of the Huey task itself, RQ's
    /// `queue.enqueue(func, ...)`/`enqueue_call(func, args=...)` (with `enqueue`, `enqueue_at`
    /// and `enqueue_in`, a keyword that RQ does not keep for the job, such as `since=`
    /// beside `job_timeout=`, is the function's argument), or by the task's registered
    /// name (Celery's `send_task("app.tasks.crawl", args=[...])`, arq's
    /// `ctx["redis"].enqueue_job("crawl", ...)`). A parameter updated from
    /// itself before the call (`amount = amount - fee`, `attempt += 1`, `rows = rows[100:]`)
    /// is a changed argument under its old name, and so is one changed in place
    /// (`contact_ids.remove(done)`, `options.update(force=True)`), also when the change comes
    /// later in a loop's body than the retry, which then passes it on the next pass; a default
    /// filled in (`currency or "EUR"`) is not, since every run fills in the same. A copy of the arguments changed before the
    /// call (`kwargs = dict(self.request.kwargs)`, then `kwargs["region"] = ...`) passes the
    /// changed entry; so does a list of them changed by index (`args = list(self.request.args)`,
    /// then `args[1] = ...`). A method a bound or class-based task calls on itself (a helper
    /// of its base class: `self.retry_on_backup(exc, message_id)`) retries the task too; its
    /// `self.retry(kwargs={..., "provider": "backup"})` is reported where it is, and the
    /// method's own parameters count as what the task handed them.
    ///
    /// ## Why it matters on a second run
    /// Keys computed from the arguments drift between attempts: the attempt that timed out but
    /// succeeded at the provider used the old key, the retry uses a new one, and the provider
    /// executes both.
    ///
    /// ## Example
    /// ```python
    /// except QuoteExpired as exc:
    ///     raise self.retry(exc=exc, args=[payout_id, fx_client.quote(pair)])
    /// ```
    ///
    /// ## Use instead
    /// Keep retries argument-stable and compute what changes inside the task:
    /// ```python
    /// except QuoteExpired as exc:
    ///     raise self.retry(exc=exc, countdown=5)
    /// ```
    pub const RULE = {
        code: "TW501",
        name: "retry-with-changed-arguments",
        group: "retries",
        severity: Error,
        summary: "A retry or self-re-enqueue changes the task's arguments",
        fixable: false,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let lang = checker.lang;
    let function = task.function;
    let Some(spec) = project.catalog.framework(task.task.framework) else {
        return;
    };
    let skip_first = task.task.options.bind || function.class().is_some();
    // arq's `ctx` is not an argument of the enqueue either.
    let skip = usize::from(skip_first || spec.context_first);
    let params: Vec<&str> = function
        .params
        .iter()
        .skip(skip)
        .map(|p| p.name())
        .collect();
    for (index, event) in function.events().iter().enumerate() {
        let EventKind::Call(call) = &event.kind else {
            continue;
        };
        let Some(path) = &call.path else { continue };
        let is_own_task = |path: &crate::path::QPath| {
            project.resolve_function(&project.canonical(path), Some(task.id)) == Some(task.id)
        };
        // Calls that enqueue the task they name: calling a Huey task, RQ's
        // `queue.enqueue(crawl, url, tries + 1)`; the arguments after the task are its own.
        if function.in_handler(event.block) {
            let mut shown = call.method.as_str().to_string();
            let changed = if spec.call_enqueues && is_own_task(path) {
                shown.push_str("(...)");
                changed_positional(call.args(), call.keywords(), &params, lang)
            } else if let Some(rq) = project.catalog.rq_method(call.method.as_str())
                && let Some(position) = rq.function.position
                && rq
                    .function
                    .find(call)
                    .and_then(|f| f.path.as_ref())
                    .is_some_and(&is_own_task)
            {
                if call.keyword("args").is_some() || call.keyword("kwargs").is_some() {
                    // `enqueue_call(func, args=..., kwargs=...)`.
                    changed_arguments(
                        call.keyword("args"),
                        call.keyword("kwargs"),
                        &params,
                        false,
                        lang,
                    )
                } else {
                    // The keywords RQ does not keep for the job go to the function; of those,
                    // only the ones naming a parameter are read (an unknown keyword may be an
                    // option of a newer RQ).
                    let keywords: Vec<(Sym, Value)> = if rq.passes_keywords {
                        call.keywords()
                            .iter()
                            .filter(|(key, _)| {
                                Some(key.as_str()) != rq.function.keyword.as_deref()
                                    && !project.catalog.is_rq_option(key.as_str())
                                    && params.contains(&key.as_str())
                            })
                            .cloned()
                            .collect()
                    } else {
                        Vec::new()
                    };
                    let given_by_keyword = rq
                        .function
                        .keyword
                        .as_deref()
                        .is_some_and(|k| call.keyword(k).is_some());
                    let first = if given_by_keyword {
                        position
                    } else {
                        position + 1
                    };
                    changed_positional(
                        call.args().get(first..).unwrap_or_default(),
                        &keywords,
                        &params,
                        lang,
                    )
                }
            } else if let Some(by_name) = project.catalog.by_name(&project.canonical(path))
                && by_name
                    .name
                    .find(call)
                    .and_then(Value::as_str)
                    .is_some_and(|name| is_named(task, name))
            {
                // `send_task("app.tasks.crawl", args=[...])`, arq's `enqueue_job("crawl", ...)`.
                match by_name.arguments {
                    ByNameArguments::ArgsKwargs => changed_arguments(
                        call.keyword("args"),
                        call.keyword("kwargs"),
                        &params,
                        false,
                        lang,
                    ),
                    ByNameArguments::Rest => {
                        let named_by_keyword = by_name
                            .name
                            .keyword
                            .as_deref()
                            .is_some_and(|k| call.keyword(k).is_some());
                        let first = by_name.name.position.map_or(0, |p| p + 1);
                        let args = if named_by_keyword {
                            call.args()
                        } else {
                            call.args().get(first..).unwrap_or_default()
                        };
                        let keywords: Vec<(Sym, Value)> = call
                            .keywords()
                            .iter()
                            .filter(|(key, _)| {
                                Some(key.as_str()) != by_name.name.keyword.as_deref()
                                    && by_name
                                        .option_prefix
                                        .as_deref()
                                        .is_none_or(|prefix| !key.starts_with(prefix))
                            })
                            .cloned()
                            .collect();
                        changed_positional(args, &keywords, &params, lang)
                    }
                }
            } else {
                None
            };
            if let Some(what) = changed {
                report(checker, task, task.id, call, &shown, &what);
                continue;
            }
        }
        let mut receiver = crate::path::QPath(path.0[..path.0.len().saturating_sub(1)].to_vec());
        // `task.configure(schedule_in=...).defer(...)`, `task.using(priority=-10).enqueue(...)`:
        // the task with other options.
        project.catalog.strip_builders(&mut receiver);
        let on_self = receiver.0.len() == 1
            && skip_first
            && function
                .params
                .first()
                .is_some_and(|p| *p.name() == *receiver.0[0].name);
        if !(on_self || is_own_task(&receiver)) {
            continue;
        }
        let method = call.method.as_str();
        let listed = |methods: &[String]| listed_in(methods, method);
        let in_handler = function.in_handler(event.block);
        let enqueues = || {
            matches!(
                project.call_class(task.id, index),
                Some(CallClass::Enqueue { .. })
            )
        };
        let mut shown = method.to_string();
        let changed = if spec.retry_method.as_deref() == Some(method) {
            // `retry(args=None, kwargs=None, exc=None, ...)`: by keyword or by position.
            changed_arguments(
                call.keyword("args").or_else(|| call.args().first()),
                call.keyword("kwargs").or_else(|| call.args().get(1)),
                &params,
                false,
                lang,
            )
        } else if !in_handler {
            None
        } else if listed(&spec.options_methods) {
            // Celery's `apply_async(args, kwargs)`, Dramatiq's `send_with_options(args=...)`.
            enqueues()
                .then(|| {
                    changed_arguments(
                        call.keyword("args").or_else(|| call.args().first()),
                        call.keyword("kwargs").or_else(|| call.args().get(1)),
                        &params,
                        false,
                        lang,
                    )
                })
                .flatten()
        } else if listed(&spec.enqueue_methods) {
            // The framework's own enqueue method, with the task's arguments as its own:
            // `delay(...)`, Dramatiq's `send(...)`, Taskiq's `kiq(...)`, Procrastinate's
            // `defer(...)`, Django's `enqueue(...)`. Not a builder whose result is called next
            // (`configure(...).defer(...)`, `kicker().kiq(...)`): its arguments are options.
            (enqueues() && next_call_on(function, index, call.range).is_none())
                .then(|| changed_positional(call.args(), call.keywords(), &params, lang))
                .flatten()
        } else if listed(&spec.signature_methods) {
            // `task.s(...).apply_async(countdown=10)`: the signature holds the arguments.
            next_call_on(function, index, call.range)
                .filter(|next| listed_in(&spec.enqueue_methods, next.method.as_str()))
                .and_then(|next| {
                    shown = format!("{method}(...).{}", next.method.as_str());
                    changed_positional(call.args(), call.keywords(), &params, lang)
                })
        } else if listed(&spec.options_signature_methods) {
            // `self.signature((id,), {"engine": "ocr"}, countdown=30).apply_async()`.
            next_call_on(function, index, call.range)
                .filter(|next| listed_in(&spec.enqueue_methods, next.method.as_str()))
                .and_then(|next| {
                    shown = format!("{method}(...).{}", next.method.as_str());
                    changed_arguments(
                        call.keyword("args").or_else(|| call.args().first()),
                        call.keyword("kwargs").or_else(|| call.args().get(1)),
                        &params,
                        false,
                        lang,
                    )
                })
        } else {
            None
        };
        let Some(what) = changed else { continue };
        report(checker, task, task.id, call, &shown, &what);
    }
    if skip_first {
        retries_in_methods(checker, task, &params);
    }
}

/// The retries made by the methods a bound or class-based task calls on itself
/// (`self.retry_on_backup(exc, message_id)`, a helper of its base class): their
/// `self.retry(kwargs=...)` retries the task. Their own parameters pass on what the task handed
/// them and are not read as changes; literals and values computed there are.
fn retries_in_methods(checker: &mut Checker, task: &TaskView, params: &[&str]) {
    let project = checker.project;
    let lang = checker.lang;
    let function = task.function;
    let Some(retry_method) = project
        .catalog
        .framework(task.task.framework)
        .and_then(|spec| spec.retry_method.as_deref())
    else {
        return;
    };
    let Some(me) = function.params.first().map(|p| p.name()) else {
        return;
    };
    let mut seen: Vec<crate::project::FuncId> = Vec::new();
    for (index, event) in function.events().iter().enumerate() {
        let EventKind::Call(call) = &event.kind else {
            continue;
        };
        let on_self = call
            .path
            .as_ref()
            .is_some_and(|path| path.0.len() == 2 && *path.0[0].name == *me);
        if !on_self {
            continue;
        }
        let Some(CallClass::Project(helper_id)) = project.call_class(task.id, index) else {
            continue;
        };
        if *helper_id == task.id || seen.contains(helper_id) {
            continue;
        }
        seen.push(*helper_id);
        let Some(helper) = project.function(*helper_id) else {
            continue;
        };
        let Some(own) = helper.params.first().filter(|_| helper.class().is_some()) else {
            continue;
        };
        for event in helper.events() {
            let EventKind::Call(retry) = &event.kind else {
                continue;
            };
            let is_retry = retry.path.as_ref().is_some_and(|path| {
                path.0.len() == 2 && *path.0[0].name == *own.name() && retry.method == retry_method
            });
            if !is_retry {
                continue;
            }
            if let Some(what) = changed_arguments(
                retry.keyword("args").or_else(|| retry.args().first()),
                retry.keyword("kwargs").or_else(|| retry.args().get(1)),
                params,
                true,
                lang,
            ) {
                report(checker, task, *helper_id, retry, retry_method, &what);
            }
        }
    }
}

fn report(
    checker: &mut Checker,
    task: &TaskView,
    at: crate::project::FuncId,
    call: &CallSite,
    method: &str,
    what: &str,
) {
    let lang = checker.lang;
    let message = tr!(
        lang,
        "tw501.message",
        method = method,
        task = task.name(),
        what = what
    );
    let help = tr!(lang, "tw501.help");
    checker.report(&RULE, at.file, call.range, message, help);
}

/// Whether `name` is the name `task` is registered under: its `name=` option, or by default
/// its function's name (arq) or qualified name (Celery).
fn is_named(task: &TaskView, name: &str) -> bool {
    match task.task.options.get("name") {
        Some(given) => given.as_str() == Some(name),
        None => name == task.function.name() || name == task.qualname(),
    }
}

/// The call made on the result of the call at `index` (`range`), if it is the next event:
/// `task.s(...).apply_async()`, `configure(...).defer(...)`.
fn next_call_on(function: &Function, index: usize, range: TextRange) -> Option<&CallSite> {
    match &function.events().get(index + 1)?.kind {
        EventKind::Call(next) if next.range.start() == range.start() => Some(next),
        _ => None,
    }
}

fn listed_in(methods: &[String], method: &str) -> bool {
    methods.iter().any(|m| m == method)
}

/// Describes how `args`/`kwargs` differ from the parameters; `None` when they pass them
/// unchanged or cannot be seen.
fn changed_arguments(
    args: Option<&Value>,
    kwargs: Option<&Value>,
    params: &[&str],
    in_helper: bool,
    lang: Lang,
) -> Option<String> {
    if let Some(args) = args {
        let Lit::Seq(items) = &args.lit else {
            // `args = list(self.request.args)`, then `args[1] = ...`: a changed copy.
            return (args.flags & Value::UPDATED != 0)
                .then(|| lang.text("tw501.changed_copy").to_string());
        };
        for (i, item) in items.iter().enumerate() {
            let expected = params.get(i).copied();
            if !(is_plain_name(item, expected) || in_helper && is_received(item)) {
                return Some(new_value(lang, expected));
            }
        }
    }
    if let Some(kwargs) = kwargs {
        let items = kwargs.dict()?;
        for (key, value) in items {
            // `**self.request.kwargs`: unknown, but a literal key after it still says what
            // the retry passes for that name.
            let Some(key) = key else { continue };
            if !(is_plain_name(value, Some(key)) || in_helper && is_received(value)) {
                return Some(new_value(lang, Some(key)));
            }
        }
    }
    None
}

/// Whether `value` is one of a helper's own parameters, as it received it: what its caller
/// handed in is not known here, so it is not read as a change.
fn is_received(value: &Value) -> bool {
    value.flags & Value::PARAM != 0 && value.flags & Value::UPDATED == 0 && !value.is_text()
}

fn changed_positional(
    args: &[Value],
    keywords: &[(Sym, Value)],
    params: &[&str],
    lang: Lang,
) -> Option<String> {
    for (i, arg) in args.iter().enumerate() {
        let expected = params.get(i).copied();
        if !is_plain_name(arg, expected) {
            return Some(new_value(lang, expected));
        }
    }
    for (key, value) in keywords {
        if !is_plain_name(value, Some(key)) {
            return Some(new_value(lang, Some(key)));
        }
    }
    None
}

/// "a new value for `order_id`" (or for an extra argument).
fn new_value(lang: Lang, name: Option<&str>) -> String {
    tr!(
        lang,
        "tw501.changed",
        name = name.unwrap_or(lang.text("tw501.extra_argument"))
    )
}

/// Whether `value` is just the parameter `expected`, read by its name and not updated from
/// itself since (`amount = amount - fee` before the retry is a new value under the old name;
/// a default filled in is not: the next run fills in the same).
fn is_plain_name(value: &Value, expected: Option<&str>) -> bool {
    let (Some(name), Some(expected)) = (value.name, expected) else {
        return false;
    };
    // A parameter as received may carry its annotation's type (`entry_id: UUID`) as a path;
    // a text made from it (`f"retry-{order_id}"`) is another value.
    name == expected
        && value.flags & Value::UPDATED == 0
        && !value.is_text()
        && (value.flags & Value::PARAM != 0 || value.path.as_ref().is_none_or(|p| p.0.len() == 1))
}
