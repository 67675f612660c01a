use ruff_text_size::TextRange;

use crate::facts::{BlockKind, EventKind, Exit, GuardTest};
use crate::i18n::tr;
use crate::project::{FUNCTION_TRANSACTION, FuncId, Project};
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a de-duplication marker committed **before** the work it protects: a row created
    /// in its own `transaction.atomic()` block and guarded by `except IntegrityError: return`
    /// (or psycopg's `UniqueViolation`),
    /// `get_or_create` followed by `if not created: return`, or `cache.add`/`redis.set(nx=True)`
    /// (`sadd`, `hsetnx`) followed by an early return — when the work is not inside the marker's
    /// transaction. `if created: work()` protects the body of the `if` alone, so a test that
    /// only picks a log line guards nothing. A block on another database
    /// (`atomic(using="events")` inside `atomic()`) is a transaction of its own, committed when
    /// it ends; one on the same database is a savepoint of the outer block. The same holds for an insert that skips a row already there and returns what
    /// it inserted (`INSERT ... ON CONFLICT DO NOTHING RETURNING id`, SQLAlchemy's
    /// `.on_conflict_do_nothing().returning(...)`) followed by `if row is None: return`, and for
    /// a row staged with `session.add(...)` and committed behind `except IntegrityError:
    /// return`. A
    /// claim helper that writes the marker and answers whether this run is the first
    /// (`if not first_delivery(event_id): return`, then the work) is reported at its marker;
    /// so is one that returns the marker's answer itself (`return cache.add(key, 1, ttl)`,
    /// `return created` after `get_or_create`). A key given back when the work ends is a lock,
    /// not a marker: released in a `finally` (directly, or by a project helper that deletes
    /// it: `release_lock(key)`, or a `release()` the task defines; also when a claim helper
    /// took it: `if not try_lock(key): return`, then `finally: unlock(key)`), or taken by a
    /// context manager
    /// (`with mutex.acquire() as acquired: if not acquired: return`). Nor is one deleted when
    /// the work fails (`except Exception: redis.delete(marker); raise`): the retry takes it
    /// again. It must be that key: a `finally` that deletes a progress key or releases another
    /// lock object (`render_lock.release()`) leaves the marker in place. A `pending` → `done`
    /// marker is one only when its guard checks `done`: a test that holds for the state the
    /// row is created in (`defaults={"status": "pending"}`, then `if not created and
    /// d.status == "pending": return`, or `!= "done"`) leaves a retry there too.
    ///
    /// ## Why it matters on a second run
    /// If the work fails after the marker is committed — an exception, a timeout, a worker
    /// killed — the retry finds the marker and returns at once. The work is skipped forever,
    /// silently: no error, no second attempt.
    ///
    /// ## Example
    /// ```python
    /// try:
    ///     with transaction.atomic():
    ///         ProcessedEvent.objects.create(event_id=event_id)
    /// except IntegrityError:
    ///     return
    /// apply_event(payload)
    /// ```
    ///
    /// ## Use instead
    /// Keep marker and work in one transaction, or use a `pending` → `done` marker whose guard
    /// checks `done`:
    /// ```python
    /// with transaction.atomic():
    ///     _, created = ProcessedEvent.objects.get_or_create(event_id=event_id)
    ///     if not created:
    ///         return
    ///     apply_event(payload)
    /// ```
    pub const RULE = {
        code: "TW303",
        name: "dedup-marker-before-work",
        group: "transactions",
        severity: Error,
        summary: "A de-duplication marker is committed before the work it protects",
        fixable: false,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let function = task.function;
    for (guard_index, event) in function.events().iter().enumerate() {
        let EventKind::Guard(guard) = &event.kind else {
            continue;
        };
        let Some(marker) = marker_of(project, task, &guard.test) else {
            continue;
        };
        // Where the marker is written in the task: at the marker call, or at the call of the
        // claim helper that writes it (the guard's test).
        let marker_block = match marker.helper {
            None => match call_index_at(function, marker.range) {
                Some(index) => function.events()[index].block,
                None => continue,
            },
            Some(_) => event.block,
        };
        // The work: what the guard protects, after it; for `if created: work()`, the body of
        // the `if` alone (what follows it runs on every delivery, marker or not).
        let work: Vec<usize> = (guard_index + 1..function.events().len())
            .filter(|&i| {
                guard.exit != Exit::Skip
                    || function.block_within(function.events()[i].block, event.block)
            })
            .filter(|&i| is_work(project, task, i))
            .collect();
        let Some(&first_work) = work.first() else {
            continue;
        };
        if marker.transactional {
            // The outermost transaction the marker commits with; the work must be inside it too.
            if let Some(outer) = project.committing_transaction(task.id, marker_block)
                && work.iter().all(|&i| {
                    outer == FUNCTION_TRANSACTION
                        || function.block_within(function.events()[i].block, outer)
                })
            {
                continue;
            }
        }
        let file = &project.files[task.id.file as usize];
        let (row, _) = file.location(work_range(function, first_work).start());
        let lang = checker.lang;
        let committed = lang.text(if marker.transactional {
            "tw303.committed"
        } else {
            "tw303.cached"
        });
        let (marker_file, message) = match marker.helper {
            None => (
                task.id.file,
                tr!(
                    lang,
                    "tw303.message",
                    committed = committed,
                    line = row,
                    task = task.name()
                ),
            ),
            Some(helper) => (
                helper.file,
                tr!(
                    lang,
                    "tw303.message_helper",
                    committed = committed,
                    helper = project.function(helper).map_or("", |f| f.name()),
                    task = task.name(),
                    line = row,
                    file = file.display
                ),
            ),
        };
        let help = tr!(lang, "tw303.help");
        checker.report(&RULE, marker_file, marker.range, message, help);
    }
}

/// A marker a guard leaves on: written by the task itself, or by the claim helper the guard
/// asks (`if not first_delivery(event_id): return`).
struct Marker {
    range: TextRange,
    /// A database row (committed with its transaction), else a cache key (written at once).
    transactional: bool,
    /// The claim helper the marker is written in.
    helper: Option<FuncId>,
}

fn marker_of(project: &Project, task: &TaskView, test: &GuardTest) -> Option<Marker> {
    if let GuardTest::Helper { path, negated } = test {
        let helper = project.resolve_function(&project.canonical(path), Some(task.id))?;
        let summary = project.summary(helper)?;
        // `if not claim(...): return` asks whether this run set the marker; `if seen(...):
        // return`, whether an earlier one did.
        let answers = if *negated {
            summary.returns_false_when_done
        } else {
            summary.returns_done_check
        };
        let (range, transactional) = summary.claim_marker.filter(|_| answers)?;
        // A cache key the task gives back when the work ends, or when it fails, is a lock's.
        if !transactional
            && (project.releases_keys(task.function)
                || project.releases_keys_on_failure(task.function))
        {
            return None;
        }
        return Some(Marker {
            range,
            transactional,
            helper: Some(helper),
        });
    }
    let (range, transactional) = project.guard_marker(task.function, test)?;
    Some(Marker {
        range,
        transactional,
        helper: None,
    })
}

fn call_index_at(function: &crate::facts::Function, range: TextRange) -> Option<usize> {
    function.events().iter().position(|event| matches!(&event.kind, EventKind::Call(call) if call.range == range || call.range.contains_range(range) && call.func_range.start() == range.start()))
}

fn work_range(function: &crate::facts::Function, index: usize) -> TextRange {
    match &function.events()[index].kind {
        EventKind::Call(call) => call.range,
        EventKind::Guard(guard) => guard.range,
        EventKind::AttrAssign(assign) => assign.range,
    }
}

/// The work a marker protects: effects, state writes, calls into the project, and calls into
/// other code (an imported `apply_update(...)`), but not logging or builtins.
fn is_work(project: &Project, task: &TaskView, index: usize) -> bool {
    let event = &task.function.events()[index];
    // A `finally` runs on the guard's early return too: cleanup (`conn.close()`), not work the
    // marker protects.
    if task.function.is_deferred(event.block)
        || task
            .function
            .block_kinds(event.block)
            .any(|kind| matches!(kind, BlockKind::Finally))
    {
        return false;
    }
    let EventKind::Call(call) = &event.kind else {
        return false;
    };
    if !project.effects_at(task.id, index).is_empty()
        || project.writes_state(task.id, index)
        || matches!(
            project.call_class(task.id, index),
            Some(crate::project::CallClass::Project(_))
        )
    {
        return true;
    }
    call.path.as_ref().is_some_and(|path| {
        path.0.len() >= 2
            && path.0[0].name != "self"
            && !project.catalog.is_logging(call.method.as_str())
    })
}
