use rustc_hash::FxHashSet as HashSet;

use crate::diagnostic::Severity;
use crate::facts::Taint;
use crate::i18n::tr;
use ruff_text_size::TextRange;

use crate::project::{FuncId, Project};
use crate::rules::keys::{key_uses, returned_by};
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports delivery metadata — `self.request.retries`, `self.request.id`, Dramatiq's
    /// message id, RQ's job id — used in an idempotency or lock key, or choosing it (`key =
    /// f"order-{id}" if self.request.retries == 0 else None` sends none on retries). An error
    /// for the retry counter, a warning for ids. Keys are followed as in TW201: through
    /// assignments in any branch, and into helpers that make a key of their parameters
    /// (`refund_once(charge_id, self.request.retries)` over `f"refund-{charge_id}-{attempt}"`),
    /// where the report is at the metadata the task passes.
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
        for (file, range, index) in metadata_reads(project, key.func, &key.value.taint) {
            if !seen.insert((file, range)) {
                continue;
            }
            let Some(meta) = project.catalog.metadata.get(index as usize) else {
                continue;
            };
            let text = project.source_text(file, range);
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
            let diagnostic = checker.report(&RULE, file, range, message, help);
            if meta.changes_on_retry {
                diagnostic.severity = Severity::Error;
            }
        }
    }
}

/// Delivery metadata among `taint`: read directly, or in a project helper whose return value
/// carries it (reported there, as TW201 reports a helper's source).
fn metadata_reads(project: &Project, func: FuncId, taint: &[Taint]) -> Vec<(u32, TextRange, u32)> {
    let mut found = Vec::new();
    for t in taint {
        match t {
            Taint::Meta { range, index } => found.push((func.file, *range, *index)),
            Taint::Call { event, element } => {
                if let Some(summary) = returned_by(project, func, *event) {
                    found.extend(
                        summary
                            .returns_meta
                            .iter()
                            .filter(|found| found.in_element(*element))
                            .map(|found| found.source),
                    );
                }
            }
            Taint::Nondet { .. } | Taint::Param { .. } => {}
        }
    }
    found
}
