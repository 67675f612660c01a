use crate::facts::{BlockKind, Ends, EventKind, Function};
use crate::i18n::tr;
use crate::project::KeyStatus;
use crate::rules::effects::tw103::claimed_before;
use crate::rules::{Checker, EffectAt, TaskView, declare_rule, effect_clause};

declare_rule! {
    /// ## What it does
    /// Reports a task that reaches two or more effects without a key on each — two calls, or
    /// one inside a loop — while recording its progress at most once. Reported at the first
    /// keyless effect that a later effect follows, once per path (each branch of an `if`
    /// starts its own: `if phone: sms(...)` / `else: mail(...)`, then a Slack post after
    /// both, is reported at the SMS and at the e-mail); effects in exclusive branches (of an `if`,
    /// a `match`, or `sms(...) if c else mail(...)`) do not follow each other, nor does a
    /// fallback in an `except` handler follow the effect that ends its `try` body (`try:
    /// sms(...)` / `except TwilioError: mail(...)` mails when the SMS failed). An effect the
    /// loop leaves right after (`send(...)` then `break` or `return`, in a branch, a `try` body
    /// or an `except` handler) runs once per run, and is not repeated by it; nor does the
    /// loop's `else`, which runs only when no pass broke out, follow it (`for p in providers:`
    /// / `try: p.send(...); break` / `else: send_mail(...)`). An effect in a lambda handed over
    /// in a loop (`pool.submit(lambda: send(...))`) runs once per pass too; it follows no step
    /// of the task, as it may run at another time. A lambda handed to `map` or `pool.map`
    /// (`pool.map(lambda u: send(u), users)`) runs now, once per item: a loop. A loop over a one-item display (`for a in
    /// [settings.ALERT_EMAIL]:`) makes one pass. Nor is an effect reported whose run claims its
    /// done state and commits it before the effect, outside any transaction around the effect
    /// (the at-most-once choice): the retry stops at the guard, and a failure loses the rest
    /// instead of repeating it. A retry loop written by hand (`for attempt in range(3): try:
    /// r = requests.post(...); r.raise_for_status()` / `except RequestException: continue` /
    /// `break`) runs the effect again after it went through, when code after it in the `try`
    /// raises and the handler starts the next pass.
    /// A helper that calls itself (over a tree's children, or the next page) repeats what it
    /// reaches as a loop does, unless the call to itself and the effect are in exclusive
    /// branches. Progress counts as recorded where it is committed: an ORM write, or an attribute set
    /// inside a `with session.begin():` block (SQLAlchemy writes it when the block ends, so a
    /// claim in its own block per item, before the item's effect, records each item). A write
    /// in an `except` handler inside the loop (disabling a dead device) records a failed item,
    /// not the items done; nor does a write in a handler that then returns record the step
    /// before the next one, which runs only when the handler did not.
    ///
    /// ## Why it matters on a second run
    /// A failure after the first effect makes the retry repeat it: the SMS goes out again
    /// because the e-mail after it failed, the first 299 subscribers get the newsletter again
    /// because the 300th bounced. A `status == "done"` check cannot help, because `done` was
    /// never written.
    ///
    /// ## Example
    /// ```python
    /// for subscriber in issue.subscribers.all():
    ///     smtp.send_message(build_message(issue, subscriber))
    /// Issue.objects.filter(pk=issue_id).update(sent=True)
    /// ```
    ///
    /// ## Use instead
    /// Split into a chain of idempotent tasks (one per recipient), or record each step: a marker
    /// per recipient checked before its send, or a key per call.
    pub const RULE = {
        code: "TW502",
        name: "partial-progress-not-recorded",
        group: "retries",
        severity: Warning,
        summary: "Several effects without keys and progress recorded at most once",
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
    let keyless =
        |effect: &EffectAt| matches!(*effect.key, KeyStatus::Missing | KeyStatus::Unsupported);
    // `reminder.status = "sent"` in a `with session.begin():` block that ends before `block`:
    // written when the block commits, before what follows it.
    let committed_before = |i: usize, block: u32| {
        project
            .session_write(function, i)
            .is_some_and(|tx| !function.block_within(block, tx))
    };
    // Whether progress is written between two events, on a path that can pass all three: not
    // in a branch or handler that returns before the second (`except: mark_failed(); return`).
    let recorded_between = |from: usize, to: usize, block: u32| {
        (from + 1..to).any(|i| {
            let event = &function.events()[i];
            !function.exclusive(block, event.block)
                && !function.exclusive(event.block, function.events()[to].block)
                && (project.writes_state(task.id, i) && project.effects_at(task.id, i).is_empty()
                    || committed_before(i, function.events()[to].block))
        })
    };
    // A lambda's effect (`pool.submit(lambda: send(...))`, `on_commit(lambda: ...)`) runs at
    // another time than the task's steps, so it follows none of them; handed over in a loop,
    // it still runs once per pass.
    // The first keyless effect of each path: one in another branch than an effect already
    // reported starts a path of its own (`if phone: sms(...)` / `else: mail(...)`, then a
    // Slack post after both).
    let mut reported: Vec<u32> = Vec::new();
    for effect in task.effects.iter().filter(|e| keyless(e)) {
        if reported
            .iter()
            .any(|&block| !function.exclusive(block, effect.block))
        {
            continue;
        }
        // A helper that guards its effect with a done state and writes state records its own
        // progress: a retry passes its guard.
        if effect.guarded && effect.trace.len() > 1 && project.writes_state(task.id, effect.index) {
            continue;
        }
        // The at-most-once choice: the run's done state is claimed and committed before the
        // effect, outside any transaction around it. A retry stops at the guard; what a failure
        // leaves undone is lost, not repeated.
        if effect.guarded
            && effect
                .hops
                .first()
                .is_some_and(|&hop| claimed_before(project, hop))
            && project
                .transactions_around(task.id, effect.block)
                .is_empty()
        {
            continue;
        }
        let followed = task.ordered_effects().find(|other| {
            !effect.deferred
                && other.index > effect.index
                && !function.exclusive(effect.block, other.block)
                && !function.only_if_failed(effect.index, other.index)
                && !recorded_between(effect.index, other.index, effect.block)
        });
        let repeating = function.repeating_loop(effect.block);
        let retried = repeating
            .is_none()
            .then(|| retried_after_success(function, effect.index, effect.block))
            .flatten();
        let repeated_in_loop = repeating.or(retried).filter(|&loop_block| {
            // Per-iteration progress: a guard or a write inside the loop body. A guard before
            // the loop (`if campaign.sent: return`) checks the whole run, which a failure in a
            // later iteration leaves undone.
            let in_loop = |block| function.block_within(block, loop_block);
            // A write in an `except` handler of the loop records a failed item (`disable the
            // dead device`), not the items done: a later failure repeats those.
            let on_failure = |block| {
                function
                    .ancestors(block)
                    .take_while(|&b| b != loop_block)
                    .any(|b| {
                        matches!(
                            function.blocks().get(b as usize).map(|blk| &blk.kind),
                            Some(crate::facts::BlockKind::Handler { .. })
                        )
                    })
            };
            // A guard in the loop checks each item only if the loop records each item: with
            // the flag set after the loop (`filter(...).update(reminded=True)`), or nowhere, a
            // failure mid-loop leaves it unset for the items already done.
            let records_each_time = function.events().iter().enumerate().any(|(i, event)| {
                in_loop(event.block)
                    && !on_failure(event.block)
                    && (project.writes_state(task.id, i) || committed_before(i, effect.block))
            });
            let guarded_each_time = effect.guarded
                && records_each_time
                && (!project.is_guarded(task.id, effect.index)
                    || function.events()[..effect.index].iter().any(|event| {
                        matches!(event.kind, EventKind::Guard(_)) && in_loop(event.block)
                    }));
            // A write in the loop records each item: one of its own, or one the helper that
            // reaches the effect makes (`pay_seller(id)` that transfers, then marks it paid).
            !guarded_each_time
                && !function.events().iter().enumerate().any(|(i, event)| {
                    in_loop(event.block)
                        && !on_failure(event.block)
                        && (project.writes_state(task.id, i)
                            && if i == effect.index {
                                effect.trace.len() > 1
                            } else {
                                project.effects_at(task.id, i).is_empty()
                            }
                            || committed_before(i, effect.block))
                })
        });
        let why = if let Some(other) = followed {
            let (row, _) = project.files[task.id.file as usize].location(other.range.start());
            tr!(lang, "tw502.next_effect", line = row)
        } else if effect.followed_inside {
            tr!(lang, "tw502.helper")
        } else if repeated_in_loop.is_some() && retried.is_some() {
            tr!(lang, "tw502.retried")
        } else if repeated_in_loop.is_some() || effect.looped_inside {
            tr!(lang, "tw502.loop")
        } else {
            continue;
        };
        let predicate = tr!(lang, "tw502.predicate", task = task.name());
        let message = tr!(
            lang,
            "tw502.message",
            subject = effect_clause(lang, &effect.trace, &predicate),
            why = why
        );
        let help = tr!(lang, "tw502.help");
        let diagnostic = checker.report(&RULE, task.id.file, effect.range, message, help);
        if effect.trace.len() > 1 {
            diagnostic.trace = effect.trace.clone();
        }
        reported.push(effect.block);
    }
}

/// The loop that runs the effect at `index` again after it went through: the `try` body around
/// it goes on to code that can raise (`response.raise_for_status()` after the `post`), and a
/// handler of that `try` starts the loop's next pass (`except RequestException: continue`). A
/// retry loop written by hand posts again what the server answered with an error but may have
/// done; a raise from the effect itself (`try: p.send(...); break` over providers) is the next
/// attempt at what did not happen.
fn retried_after_success(function: &Function, index: usize, block: u32) -> Option<u32> {
    let blocks = function.blocks();
    for at in function.ancestors(block) {
        let info = blocks.get(at as usize)?;
        match info.kind {
            BlockKind::Loop { .. } | BlockKind::Deferred => return None,
            BlockKind::Try { .. } => {}
            _ => continue,
        }
        let parent = info.parent?;
        let raises_after = function.events().iter().skip(index + 1).any(|event| {
            matches!(event.kind, EventKind::Call(_)) && function.block_within(event.block, at)
        });
        let next_pass = function.handlers_of(at).any(|handler| {
            matches!(
                handler.kind,
                BlockKind::Handler {
                    ends: Ends::Continues,
                    ..
                }
            )
        });
        if raises_after && next_pass {
            return function.in_loop(parent);
        }
    }
    None
}
