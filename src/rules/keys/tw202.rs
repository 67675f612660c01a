use rustc_hash::FxHashSet as HashSet;

use crate::diagnostic::Severity;
use crate::facts::Taint;
use crate::i18n::tr;
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
    let lang = checker.lang;
    for key in key_uses(project, task, lang) {
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
            let template = if meta.changes_on_retry {
                "tw202.retry"
            } else {
                "tw202.id"
            };
            let message = tr!(
                lang,
                template,
                text = text,
                meta = lang.catalog(&meta.what),
                what = key.what
            );
            let help = tr!(lang, "keys.help");
            let diagnostic = checker.report(&RULE, key.file, *range, message, help);
            if meta.changes_on_retry {
                diagnostic.severity = Severity::Error;
            }
        }
    }
}
