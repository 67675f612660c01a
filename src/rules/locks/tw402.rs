use crate::catalog::Ttl;
use crate::i18n::tr;
use crate::rules::locks::{locks, ttl_seconds};
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a lock with no expiry taken in a task: `redis.lock(name)` without `timeout`
    /// (`blocking_timeout` is how long to wait, not a TTL), `SET NX` without `ex`/`px`,
    /// `cache.add(..., timeout=None)`, `redis_lock.Lock` without `expire`, and `timeout=0` for
    /// the redis-py and python-redis-lock locks, which read a false timeout as none (Django's
    /// `cache.add(..., timeout=0)` expires at once, which is TW401). Locks handed to the
    /// task by a decorator or a project function count as TW401 says, but the report is at the
    /// lock call in the decorator or the helper, where the TTL is missing: once, however many
    /// tasks take the lock.
    ///
    /// ## Why it matters on a second run
    /// A worker killed while holding the lock — OOM, SIGKILL, a lost node — never releases it.
    /// Every later run of the task, including the redelivery of the killed one, waits or gives
    /// up: the task is blocked forever until someone deletes the key by hand.
    ///
    /// ## Example
    /// ```python
    /// with redis_client.lock(f"numbering:{company_id}", blocking_timeout=10):
    ///     allocate_numbers(company_id)
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// with redis_client.lock(f"numbering:{company_id}", timeout=120, blocking_timeout=10):
    ///     allocate_numbers(company_id)
    /// ```
    pub const RULE = {
        code: "TW402",
        name: "lock-without-ttl",
        group: "locks",
        severity: Warning,
        summary: "A lock without expiry blocks the task forever when its holder dies",
        fixable: false,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let lang = checker.lang;
    let mut found = Vec::new();
    for lock in locks(project, task) {
        if let Err(Ttl::Forever) = ttl_seconds(project, &lock) {
            let (file, at) = lock.call_site();
            found.push((file, at, lock.api_text(project, lang)));
        }
    }
    for (file, range, api) in found {
        let message = tr!(lang, "tw402.message", api = api, task = task.name());
        let help = tr!(lang, "tw402.help");
        checker.report(&RULE, file, range, message, help);
    }
}
