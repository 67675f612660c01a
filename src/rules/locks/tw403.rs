use rustc_hash::FxHashSet as HashSet;

use crate::facts::{EventKind, Exit, Function, GuardTest};
use crate::i18n::tr;
use crate::project::{FuncId, Project};
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports the `class` of a model used as a de-duplication table — rows created in a task
    /// (or a project helper it calls) and checked through `IntegrityError`, `get_or_create`/`created` or `.exists()`, or a model
    /// whose name contains `Processed`, `Dedup` or `Idempoten` — when no code in the project
    /// deletes its rows (`.delete()` on its manager or querysets, a raw `DELETE FROM <table>`,
    /// also with the table named through the model: `f"DELETE FROM {Model._meta.db_table}"`,
    /// `"DELETE FROM {}".format(...)`, `%`). A delete through a variable counts for the models
    /// it holds: a generic helper's parameter (`def purge(model, days): model.objects...
    /// .delete()`, called as `purge(ProcessedEvent, 7)` or `purge(model=ProcessedEvent, ...)`),
    /// or a loop over a written-out tuple of models in the same function (or of tuples holding
    /// them: `for model, days in [(ProcessedEvent, 14)]:`). So does a delete of the queryset a
    /// project helper returns (`stale_events().delete()` over `return ProcessedEvent.objects
    /// .filter(...)`). A delete in an exception handler (`except ValueError: marker.delete();
    /// raise`) gives a failed run's marker back for the retry, and cleans nothing up. A
    /// `created` that only picks a log line (`if created: logger.info(...)`) skips no work, so
    /// its table is not a de-duplication table.
    ///
    /// ## Why it matters on a second run
    /// A de-duplication table only needs to remember keys for as long as a message can be
    /// redelivered. Kept forever, it and its unique index grow with every task run, and every
    /// insert — the marker each run writes first — gets slower.
    ///
    /// ## Example
    /// ```python
    /// class ProcessedWebhook(models.Model):
    ///     event_id = models.CharField(max_length=64, unique=True)
    /// ```
    ///
    /// ## Use instead
    /// A periodic task that deletes rows older than the retry window:
    /// ```python
    /// @shared_task
    /// def purge_processed_webhooks():
    ///     ProcessedWebhook.objects.filter(received_at__lt=now() - timedelta(days=14)).delete()
    /// ```
    pub const RULE = {
        code: "TW403",
        name: "dedup-table-without-cleanup",
        group: "locks",
        severity: Warning,
        summary: "A de-duplication table grows forever: nothing deletes its rows",
        fixable: false,
    };
}

pub fn check_project(checker: &mut Checker, tasks: &[TaskView]) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let mut dedup: HashSet<usize> = HashSet::default();
    for task in tasks {
        dedup.extend(dedup_models(project, task));
    }
    let parts = &project.catalog.models.dedup_name_parts;
    let mut found = Vec::new();
    for (index, model) in project.models.list.iter().enumerate() {
        if model.is_abstract || project.models.is_deleted(index) {
            continue;
        }
        let by_name = parts.iter().any(|p| model.name.contains(p.as_str()));
        if !(by_name || dedup.contains(&index)) {
            continue;
        }
        let lang = checker.lang;
        let how = lang.text(if dedup.contains(&index) {
            "tw403.used"
        } else {
            "tw403.named"
        });
        let message = tr!(lang, "tw403.message", model = model.name, how = how);
        let help = tr!(lang, "tw403.help", model = model.name);
        found.push((model.file, model.name_range, message, help));
    }
    for (file, range, message, help) in found {
        checker.report(&RULE, file, range, message, help);
    }
}

/// How many calls deep a task's project helpers are read for the tables they de-duplicate on.
const HELPER_DEPTH: usize = 3;

/// Models a task uses as de-duplication tables, itself or in the project helpers it calls
/// (`_store(batch_id)` inserting behind `except IntegrityError: return`).
fn dedup_models(project: &Project, task: &TaskView) -> Vec<usize> {
    let mut found = Vec::new();
    let mut seen: HashSet<FuncId> = HashSet::default();
    seen.insert(task.id);
    let mut level = vec![task.id];
    for depth in 0..=HELPER_DEPTH {
        let mut next = Vec::new();
        for id in level {
            let Some(function) = project.function(id) else {
                continue;
            };
            found.extend(dedup_models_in(project, function, depth == 0));
            if depth == HELPER_DEPTH {
                continue;
            }
            for event in function.events() {
                let EventKind::Call(call) = &event.kind else {
                    continue;
                };
                let Some(path) = &call.path else { continue };
                if let Some(callee) = project.resolve_function(&project.canonical(path), Some(id))
                    && seen.insert(callee)
                {
                    next.push(callee);
                }
            }
        }
        level = next;
    }
    found
}

/// Models one function uses as de-duplication tables: created and checked through
/// `IntegrityError` or `created`, or in the task itself (`checked_exists`) checked with
/// `.exists()` and created in it. A helper's `.exists()` and insert are often a log it reads
/// and writes (`initial = log.filter(...).exists()`, then `log.create(...)`), not a guard.
fn dedup_models_in(project: &Project, function: &Function, checked_exists: bool) -> Vec<usize> {
    let model_of = |index: usize| match &function.events().get(index)?.kind {
        EventKind::Call(call) => project
            .models
            .model_of_manager_call(project, call.path.as_ref()?),
        _ => None,
    };
    let index_of = |range| {
        function
            .events()
            .iter()
            .position(|e| matches!(&e.kind, EventKind::Call(c) if c.range == range))
    };
    let orm = &project.catalog.orm;
    let mut found = Vec::new();
    let mut created = Vec::new();
    let mut checked = Vec::new();
    for (index, event) in function.events().iter().enumerate() {
        match &event.kind {
            EventKind::Guard(guard) => match &guard.test {
                // `if created: logger.info(...)` only picks a log line: no work is skipped
                // for a row already there, so the table de-duplicates nothing.
                GuardTest::NotCreated { marker, .. }
                    if guard.exit != Exit::Skip
                        || function.events()[index + 1..].iter().any(|e| {
                            function.block_within(e.block, event.block)
                                && matches!(&e.kind, EventKind::Call(c)
                                    if !project.catalog.is_logging(c.method.as_str()))
                        }) =>
                {
                    found.extend(index_of(*marker).and_then(model_of));
                }
                GuardTest::Integrity { inserts } => {
                    let marker = project.integrity_marker(function, inserts);
                    found.extend(marker.and_then(index_of).and_then(model_of));
                }
                _ => {}
            },
            EventKind::Call(call) => {
                let method = call.method.as_str();
                if orm.exists_methods.has(method) {
                    checked.extend(model_of(index));
                } else if orm.insert_methods.has(method) {
                    created.extend(model_of(index));
                }
            }
            EventKind::AttrAssign(_) => {}
        }
    }
    if checked_exists {
        found.extend(checked.into_iter().filter(|m| created.contains(m)));
    }
    found
}
