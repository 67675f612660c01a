//! Locks and de-duplication tables: TW401–TW403, and what the lock rules share: the locks a
//! task takes and how long the task may run.
pub mod tw401;
pub mod tw402;
pub mod tw403;

use ruff_text_size::TextRange;

use crate::catalog::{LockApi, LockKind, Ttl};
use crate::facts::{
    BlockKind, CallSite, Decorator, EventKind, Function, Param, ParamDefault, Value,
};
use crate::i18n::{Lang, tr};
use crate::path::{Call, QPath, Seg, Sym};
use crate::project::{FuncId, Hop, Project};
use crate::rules::{Argument, TaskView, argument_for};

/// A lock a task takes: itself, through a decorator applied to it, or through a project
/// function that hands it the lock.
pub struct LockUse<'a> {
    pub call: &'a CallSite,
    pub api: &'a LockApi,
    /// Where to report it: the call in the task, the decorator line, or the task's call of the
    /// function that hands the lock out.
    pub file: u32,
    pub at: TextRange,
    pub via: Via<'a>,
    /// The file of the lock call itself (the decorator's or the helper's module).
    pub source: u32,
}

/// Where the lock call is, for the values of its arguments.
#[derive(Clone, Copy)]
pub enum Via<'a> {
    /// In the task (the function itself: a task class's `run`).
    Task(FuncId),
    /// In a decorator applied to the task: the decorator as applied (its arguments give values
    /// to the decorator function's parameters) and those parameters.
    Decorator(&'a Decorator, &'a [Param]),
    /// In a project function the task calls, which returns the lock or is a context manager
    /// holding it around its `yield` (`with task_lock(name):`): the function and the task's
    /// call of it. A project class entered by a `with` (`with RedisLock(name):`) is one too:
    /// `helper` is its `__enter__`, `init` the `__init__` that the task's call of the class
    /// gives arguments to (`self.ttl` in `__enter__` is `__init__`'s `ttl`).
    Helper {
        helper: FuncId,
        init: Option<FuncId>,
        call: Hop,
    },
}

impl LockUse<'_> {
    /// The lock call itself: where a missing TTL is written, whichever decorator or helper of
    /// the project takes the lock for the task.
    pub fn call_site(&self) -> (u32, TextRange) {
        (self.source, self.call.range)
    }

    /// The lock's API as messages name it: a helper's lock says which helper takes it.
    pub fn api_text(&self, project: &Project, lang: Lang) -> String {
        match self.via {
            Via::Helper { helper, .. } => {
                let helper = project.function(helper).map_or("", |f| match f.name() {
                    // A class's `__enter__`: the class the task enters.
                    "__enter__" | "__aenter__" => {
                        f.qualname.rsplit('.').nth(1).unwrap_or_else(|| f.name())
                    }
                    name => name,
                });
                tr!(lang, "lock.helper", api = self.api.api, helper = helper)
            }
            Via::Task(_) | Via::Decorator(..) => self.api.api.clone(),
        }
    }
}

/// The locks a task takes: lock APIs, and set-if-absent keys that the task releases (in a
/// `finally` or a `with`). Set-if-absent keys never released are markers (TW303), not locks.
pub fn locks<'a>(project: &'a Project, task: &'a TaskView) -> Vec<LockUse<'a>> {
    let mut found = Vec::new();
    for (call, api) in lock_calls(project, &[task.function], false) {
        found.push(LockUse {
            call,
            api,
            file: task.id.file,
            at: call.range,
            via: Via::Task(task.id),
            source: task.id.file,
        });
    }
    // A project decorator applied to the task that takes a lock around it.
    for decorator in &task.function.decorators {
        let Some(path) = &decorator.path else {
            continue;
        };
        let Some(id) = project.resolve_function(&project.canonical(path), Some(task.id)) else {
            continue;
        };
        let (Some(facts), Some(outer)) = (project.facts(id.file), project.function(id)) else {
            continue;
        };
        let functions: Vec<&Function> = facts
            .functions
            .iter()
            .filter(|f| std::ptr::eq(*f, outer) || is_nested_in(facts, f, outer))
            .collect();
        for (call, api) in lock_calls(project, &functions, false) {
            found.push(LockUse {
                call,
                api,
                file: task.id.file,
                at: decorator.range,
                via: Via::Decorator(decorator, outer.params.as_slice()),
                source: id.file,
            });
        }
    }
    found.extend(helper_locks(project, task));
    found
}

/// Locks that project functions the task calls hand out to it: a function returning the lock
/// it takes (`return cache.lock(name, timeout=30)`), or a context manager taking one
/// (`@contextmanager` around `with redis.lock(name, timeout=30): yield`). A function that
/// takes and releases a lock around its own work is not one: the lock is not the task's.
fn helper_locks<'a>(project: &'a Project, task: &'a TaskView) -> Vec<LockUse<'a>> {
    let mut found = Vec::new();
    for (index, event) in task.function.events().iter().enumerate() {
        let EventKind::Call(call) = &event.kind else {
            continue;
        };
        let Some(path) = &call.path else { continue };
        let canonical = project.canonical(path);
        // Reported at the call, or at the `with` entering the class's instance.
        let (helper, init, exit, entered) = match project
            .resolve_function(&canonical, Some(task.id))
            .filter(|&id| id != task.id)
        {
            Some(helper) => (helper, None, None, None),
            None => match entered_class(project, task, call, &canonical) {
                Some(class) => (class.enter, class.init, class.exit, Some(class.at)),
                None => continue,
            },
        };
        let Some(function) = project.function(helper) else {
            continue;
        };
        let context_manager = entered.is_some()
            || function.decorators.iter().any(|decorator| {
                decorator.path.as_ref().is_some_and(|path| {
                    project.catalog.is_context_manager(&project.canonical(path))
                })
            });
        // `if not try_lock(key, 60): return` over `return r.set(key, 1, nx=True, ex=ttl)`,
        // then `finally: unlock(key)`: the key the helper sets is the task's lock. So is the
        // key a class's `__enter__` sets and its `__exit__` deletes.
        let released = project.releases_keys(task.function)
            || exit
                .and_then(|exit| project.function(exit))
                .is_some_and(|exit| project.releases_any_key(exit));
        // A class's lock may be made in its `__init__` and acquired in `__enter__`
        // (`self._lock = r.lock(name, timeout=20)`).
        let init_function = init.and_then(|init| project.function(init));
        let functions: Vec<&Function> = std::iter::once(function).chain(init_function).collect();
        for (lock, api) in lock_calls(project, &functions, released) {
            if !context_manager && !function.returns().iter().any(|v| is_result_of(v, lock)) {
                continue;
            }
            found.push(LockUse {
                call: lock,
                api,
                file: task.id.file,
                at: entered.unwrap_or(call.range),
                via: Via::Helper {
                    helper,
                    init,
                    call: Hop {
                        func: task.id,
                        event: index as u32,
                    },
                },
                source: helper.file,
            });
        }
    }
    found
}

/// `with RedisLock(name):` (or `lock = RedisLock(name)` and `with lock:`): a call of a project
/// class that the task enters in a `with`, and whose `__enter__` (or `__aenter__`) is in the
/// project: that method, the `__init__` the call gives its arguments to and the `__exit__`,
/// when the project has them.
fn entered_class(
    project: &Project,
    task: &TaskView,
    call: &CallSite,
    constructor: &QPath,
) -> Option<EnteredClass> {
    // Most calls are of no project class: known without a look at the task's blocks.
    if !constructor.is_call() || project.class(&constructor.dotted()).is_none() {
        return None;
    }
    // The `with` item entering it: the call itself, else a name holding its result.
    let items = || {
        task.function
            .blocks()
            .iter()
            .flat_map(|block| match &block.kind {
                BlockKind::With { items } => items.as_slice(),
                _ => &[],
            })
    };
    let entered = items().find(|item| item.range == call.range).or_else(|| {
        items().find(|item| {
            (item.path.as_ref()).is_some_and(|p| *project.canonical(p) == *constructor)
        })
    })?;
    let method = |name: &str| {
        let mut segs = constructor.segs().to_vec();
        segs.push(Seg {
            name: Sym::new(name),
            call: Call::No,
        });
        project.resolve_function(&QPath(segs), Some(task.id))
    };
    let enter = method("__enter__").or_else(|| method("__aenter__"))?;
    Some(EnteredClass {
        enter,
        init: method("__init__"),
        exit: method("__exit__").or_else(|| method("__aexit__")),
        at: entered.range,
    })
}

/// A project class a task enters in a `with` ([`entered_class`]): its methods, and the `with`
/// item entering it.
struct EnteredClass {
    enter: FuncId,
    init: Option<FuncId>,
    exit: Option<FuncId>,
    at: TextRange,
}

/// Whether a returned value is the result of `call` (`return cache.lock(...)`, or a local
/// assigned it): its path is the call's, called.
fn is_result_of(value: &Value, call: &CallSite) -> bool {
    let (Some(returned), Some(called)) = (&value.path, &call.path) else {
        return false;
    };
    returned.is_call()
        && returned.segs().len() == called.segs().len()
        && returned
            .segs()
            .iter()
            .zip(called.segs())
            .all(|(a, b)| a.name == b.name)
}

/// Lock calls in these functions; set-if-absent keys count only when released in a `finally`
/// (of these functions, or `released` elsewhere: by the task a helper hands its key to).
fn lock_calls<'a>(
    project: &'a Project,
    functions: &[&'a Function],
    released: bool,
) -> Vec<(&'a CallSite, &'a LockApi)> {
    let releases = released
        || functions
            .iter()
            .any(|function| project.releases_keys(function));
    let mut found = Vec::new();
    for function in functions {
        for event in function.events() {
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
            found.push((&**call, api));
        }
    }
    found
}

fn is_nested_in(facts: &crate::facts::ModuleFacts, function: &Function, outer: &Function) -> bool {
    let mut current = function.parent().and_then(|p| facts.functions.get(p));
    while let Some(parent) = current {
        if std::ptr::eq(parent, outer) {
            return true;
        }
        current = parent.parent().and_then(|p| facts.functions.get(p));
    }
    false
}

/// Whether the task extends this lock while it works (`lock.extend()`, `auto_renewal=True`).
/// An extension is called on a lock: a lock API's result, or a receiver named as one
/// (`self.lock.extend(...)`); `rows.extend(...)` extends a list. An extension called on the
/// result of another lock call (`outer.extend()` after `with r.lock("a") as outer:`, when this
/// lock is `r.lock("b")`) keeps that other lock alive, not this one; one whose lock the facts
/// cannot tell apart (a receiver named `lock`, a lock a helper hands out) counts for all.
pub fn extends_lock(project: &Project, task: &TaskView, lock: &LockUse) -> bool {
    let spec = &project.catalog.lock_extension;
    let renewed_here = |call: &CallSite| call.range == lock.at && renews_itself(project, call);
    // A lock a `with` statement of the task holds is released where the block ends: only an
    // extension inside the block can be of it.
    let function = task.function;
    let held_by = function
        .blocks()
        .iter()
        .position(|block| {
            matches!(lock.via, Via::Task(_))
                && matches!(&block.kind, BlockKind::With { items }
                    if items.iter().any(|item| item.range == lock.call.range))
        })
        .and_then(|block| u32::try_from(block).ok());
    renews_itself(project, lock.call)
        || function.events().iter().any(|event| {
            let EventKind::Call(call) = &event.kind else {
                return false;
            };
            if held_by.is_some_and(|block| !function.block_within(event.block, block)) {
                return false;
            }
            if renewed_here(call) || hands_to_extender(project, task, call) {
                return true;
            }
            if !spec.methods.iter().any(|m| **m == *call.method.as_str()) {
                return false;
            }
            // The lock call the extension is made on, when its path shows one.
            let on_call = call.path.as_ref().and_then(|path| {
                let segs = path.segs();
                let prefix = crate::path::QPath(segs.get(..segs.len().checked_sub(1)?)?.to_vec());
                project
                    .catalog
                    .is_lock_path(&project.canonical(&prefix))
                    .then_some(prefix)
            });
            match on_call {
                Some(prefix) => {
                    !matches!(lock.via, Via::Task(_))
                        || lock.call.path.as_ref().is_none_or(|path| *path == prefix)
                }
                None => call
                    .receiver
                    .is_some_and(|receiver| spec.names_lock(receiver.as_str())),
            }
        })
}

/// `keep_alive(lock)`: a project helper the task hands a lock to (an argument named as one),
/// which extends one of its own parameters (`def keep_alive(lock): lock.extend(60)`).
fn hands_to_extender(project: &Project, task: &TaskView, call: &CallSite) -> bool {
    let spec = &project.catalog.lock_extension;
    let lock_named = |value: &Value| {
        value
            .name
            .is_some_and(|name| spec.names_lock(name.as_str()))
    };
    if !call.args().iter().any(lock_named) && !call.keywords().iter().any(|(_, v)| lock_named(v)) {
        return false;
    }
    let Some(helper) = call
        .path
        .as_ref()
        .and_then(|path| project.resolve_function(&project.canonical(path), Some(task.id)))
        .and_then(|callee| project.function(callee))
    else {
        return false;
    };
    helper.events().iter().any(|event| {
        matches!(&event.kind, EventKind::Call(extension)
        if spec.methods.iter().any(|m| **m == *extension.method.as_str())
            && extension.receiver.is_some_and(|receiver| {
                helper.params.iter().any(|param| param.name() == receiver.as_str())
            }))
    })
}

/// Whether a lock call renews the lock itself (`auto_renewal=True`): a helper's lock may, where
/// the task's calls do not show it.
pub fn renews_itself(project: &Project, call: &CallSite) -> bool {
    project
        .catalog
        .lock_extension
        .keywords
        .iter()
        .any(|k| call.keyword(k).and_then(Value::as_bool) == Some(true))
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
    let mut turned_off = false;
    // The task's options, and what the queue its enqueue names gives it (RQ's
    // `default_timeout`, kept under that keyword).
    for (limit, value, number) in project.option_limits(task.task) {
        let Some(number) = number else {
            return TimeLimit::Unknown;
        };
        if limit.unbounded == Some(number) {
            turned_off = true;
            continue;
        }
        let seconds = limit.unit.seconds(number);
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
    // `timeout=-1`: no bound, and not the framework's default either.
    if turned_off {
        return TimeLimit::None;
    }
    // A limit the project gives every task of the framework (Dramatiq's `TimeLimit`
    // middleware); when calls give different ones, which applies is not known.
    let mut global: Option<(i64, String)> = None;
    for set in &project.settings_of_task(task.task).global_time_limits {
        if set.framework != task.task.framework {
            continue;
        }
        let Some(limit) = spec.global_time_limits.get(set.index) else {
            continue;
        };
        let Some(number) = (set.setting.value.as_ref()).and_then(|v| limit.limit.value_of(v))
        else {
            return TimeLimit::Unknown;
        };
        let seconds = limit.limit.unit.seconds(number);
        if global.as_ref().is_some_and(|(s, _)| *s != seconds) {
            return TimeLimit::Unknown;
        }
        global = Some((
            seconds,
            tr!(
                lang,
                "limit.call",
                call = set.call,
                keyword = limit.limit.keyword,
                value = number,
                framework = task.task.framework.as_str()
            ),
        ));
    }
    if let Some((seconds, what)) = global {
        return TimeLimit::Known(seconds, what);
    }
    if task.task.framework == crate::catalog::Framework::Celery {
        let settings = project.settings_of_task(task.task);
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
    if let Some(text) = value.as_str() {
        // `timeout="2h"`, as written.
        return format!("{text:?}");
    }
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
        Ttl::Given(value, unit) => {
            // In a decorator, the TTL may be one of its parameters: the decorator's argument.
            let value = match (lock.via, value.name.map(crate::path::Sym::as_str)) {
                (Via::Decorator(decorator, params), Some(name))
                    if value.path.as_ref().is_some_and(|p| p.0.len() == 1) =>
                {
                    let Some(i) = params.iter().position(|p| p.name() == name) else {
                        return Ok(project
                            .constant(value)
                            .and_then(|v| v.as_int())
                            .map(|v| (unit.seconds(v), value.range)));
                    };
                    match decorator.keyword(name).or_else(|| decorator.args.get(i)) {
                        Some(argument) => argument,
                        // `@single_instance("sync:{0}")` of `def single_instance(key, ttl=30)`:
                        // the default.
                        None => {
                            return Ok(match params[i].default {
                                ParamDefault::Int(seconds) => {
                                    Some((unit.seconds(i64::from(seconds)), value.range))
                                }
                                _ => None,
                            });
                        }
                    }
                }
                // In a helper, the TTL may be one of its parameters: the task's argument for
                // it, or its default.
                (Via::Helper { helper, init, call }, _) => {
                    match argument_for(project, init.unwrap_or(helper), call, value) {
                        Argument::Given(argument) => argument,
                        Argument::Omitted(ParamDefault::Int(seconds)) => {
                            return Ok(Some((unit.seconds(i64::from(seconds)), value.range)));
                        }
                        Argument::NotAParameter => value,
                        Argument::Omitted(_) | Argument::Unknown => return Ok(None),
                    }
                }
                _ => value,
            };
            // `timeout=self.lock_ttl` in a method: the class's `lock_ttl = 60`, or a base's.
            let method = match lock.via {
                Via::Task(id) | Via::Helper { helper: id, .. } => Some(id),
                Via::Decorator(..) => None,
            };
            let value = match (&value.path, method) {
                (Some(path), Some(id))
                    if matches!(value.lit, crate::facts::Lit::Other)
                        && let [head, attr] = &path.0[..]
                        && head.name == "self"
                        && head.call == Call::No
                        && attr.call == Call::No =>
                {
                    project
                        .class_of(id)
                        .and_then(|class| project.class_attribute(class, attr.name.as_str(), 0))
                        .unwrap_or(value)
                }
                _ => value,
            };
            let constant = project.constant(value);
            // `lock(name, timeout=0)`: no expiry, for a library that reads a false timeout so.
            if constant.as_ref().and_then(Value::as_f64) == Some(0.0)
                && let Some(zero) = lock.api.zero_ttl()
            {
                return Err(zero);
            }
            Ok(constant
                .and_then(|v| v.as_int())
                .map(|v| (unit.seconds(v), value.range)))
        }
        other => Err(other),
    }
}
