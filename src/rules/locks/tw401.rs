use crate::diagnostic::Severity;
use crate::i18n::tr;
use crate::rules::locks::{TimeLimit, extends_lock, locks, time_limit, ttl_seconds};
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a lock taken in a task — `redis.lock(name, timeout=T)`,
    /// `set(k, v, nx=True, ex=T)`/`px=`, `cache.add(k, v, T)`, `cache.lock(name, timeout=T)`,
    /// `redis_lock.Lock(..., expire=T)` — whose TTL is shorter than the task's time limit
    /// (`time_limit`/`soft_time_limit`, else the global `task_time_limit`, Dramatiq's
    /// `TimeLimit(time_limit=...)` middleware or the `default_timeout` of the RQ queue the job
    /// is enqueued on, else the framework's default; Dramatiq's is in milliseconds), when the
    /// task never extends the lock
    /// (`.extend()`, `.reacquire()`, `auto_renewal=True`, or a project helper it hands the lock
    /// to that extends it: `keep_alive(lock)`). A warning when nothing bounds the
    /// task's run, since then nothing proves the TTL long enough.
    ///
    /// A lock counts as taken in the task when the task takes it itself, through a decorator
    /// of the project applied to it, or through a project function that hands it out (one
    /// returning the lock, a context manager holding it: `with task_lock(name):`, or a class
    /// whose `__enter__` takes it, or acquires the one its `__init__` made, and whose
    /// `__exit__` gives a set-if-absent key back: `with RedisLock(name):`, or a claim helper returning a
    /// set-if-absent answer whose key the task gives back in a `finally`: `if not
    /// try_lock(key, 60): return`); the last two are reported at the
    /// decorator, at the task's call, or at the `with` entering the class's instance. A TTL that
    /// is one of the decorator's or the helper's parameters is the argument given for it, else
    /// its default (`def single_instance(name, ttl=30)` applied as `@single_instance("sync")`:
    /// 30 s); in a class, `self.ttl` set from `__init__`'s `ttl` is the constructor's argument,
    /// and `self.lock_ttl` that the class body (or a base's) assigns is that value.
    /// A TTL read from Django's settings object (`timeout=settings.STOCK_LOCK_TTL`) is the
    /// value the project's settings modules give it, when they agree on one.
    ///
    /// ## Why it matters on a second run
    /// The lock expires while the first run is still working. A redelivered or duplicate message
    /// takes the lock and a second worker runs the same task at the same time: the very thing
    /// the lock was there to prevent.
    ///
    /// ## Example
    /// ```python
    /// @shared_task(time_limit=900)
    /// def rebuild_index(shop_id):
    ///     with redis_client.lock(f"rebuild:{shop_id}", timeout=60):
    ///         rebuild(shop_id)
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// @shared_task(time_limit=900)
    /// def rebuild_index(shop_id):
    ///     with redis_client.lock(f"rebuild:{shop_id}", timeout=960):
    ///         rebuild(shop_id)
    /// ```
    pub const RULE = {
        code: "TW401",
        name: "lock-ttl-shorter-than-task",
        group: "locks",
        severity: Error,
        summary: "A lock may expire while the task still runs",
        fixable: false,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let lang = checker.lang;
    let limit = time_limit(project, task, lang);
    let mut found = Vec::new();
    for lock in locks(project, task) {
        if extends_lock(project, task, &lock) {
            continue;
        }
        let Ok(Some((ttl, _))) = ttl_seconds(project, &lock) else {
            continue;
        };
        match &limit {
            TimeLimit::Known(seconds, what) if ttl < *seconds => {
                let message = tr!(
                    lang,
                    "tw401.message",
                    api = lock.api_text(project, lang),
                    ttl = ttl,
                    task = task.name(),
                    seconds = seconds,
                    what = what
                );
                found.push((lock.file, lock.at, message, Severity::Error));
            }
            TimeLimit::None => {
                let message = tr!(
                    lang,
                    "tw401.unbounded",
                    api = lock.api_text(project, lang),
                    ttl = ttl,
                    task = task.name()
                );
                found.push((lock.file, lock.at, message, Severity::Warning));
            }
            _ => {}
        }
    }
    for (file, range, message, severity) in found {
        let help = tr!(lang, "tw401.help");
        let diagnostic = checker.report(&RULE, file, range, message, help);
        diagnostic.severity = severity;
    }
}
