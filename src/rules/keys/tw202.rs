use rustc_hash::FxHashSet as HashSet;

use crate::diagnostic::Severity;
use crate::facts::Taint;
use crate::rules::keys::key_uses;
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports delivery metadata — `self.request.retries`, `self.request.id`, Dramatiq's
    /// message id, RQ's job id — used in an idempotency or lock key. An error for the retry
    /// counter, a warning for ids.
    ///
    /// ## Why it matters on a second run
    /// `self.request.retries` changes on every retry, so the key is new each time: a request
    /// that timed out but succeeded is executed again. The task id survives a redelivery and
    /// `self.retry()`, but not a manual re-run (Flower, `apply_async` again), so keys built on
    /// it protect less than they seem to.
    ///
    /// ## Example
    /// ```python
    /// headers = {"Idempotency-Key": f"shipment-{shipment_id}-{self.request.retries}"}
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// headers = {"Idempotency-Key": f"shipment-{shipment_id}"}
    /// ```
    pub const RULE = {
        code: "TW202",
        name: "key-from-delivery-metadata",
        group: "keys",
        severity: Warning,
        summary: "An idempotency key depends on the retry counter or the message id",
        fixable: false,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let mut seen = HashSet::default();
    for key in key_uses(project, task) {
        for taint in &key.value.taint {
            let Taint::Meta { range, index } = taint else {
                continue;
            };
            if !seen.insert((key.file, *range)) {
                continue;
            }
            let Some(meta) = project.catalog.metadata.get(*index as usize) else {
                continue;
            };
            let text = project.source_text(key.file, *range);
            let message = if meta.changes_on_retry {
                format!(
                    "`{text}` ({}) is part of {}: it changes on every retry, so each attempt sends a new key and the provider repeats the work",
                    meta.what, key.what
                )
            } else {
                format!(
                    "`{text}` ({}) is part of {}: it survives a redelivery but not a manual re-run, which mints a new id and repeats the work",
                    meta.what, key.what
                )
            };
            let help = "derive the key from the task's arguments only, or create it where the task is enqueued and pass it in".to_string();
            let diagnostic = checker.report(&RULE, key.file, *range, message, help);
            if meta.changes_on_retry {
                diagnostic.severity = Severity::Error;
            }
        }
    }
}
