use crate::facts::EventKind;
use crate::i18n::tr;
use crate::project::{CallClass, Project};
use crate::rules::transactions::describe_transaction;
use crate::rules::{Checker, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a task enqueued inside a database transaction: `.delay()`, `.apply_async()`,
    /// `send_task`, RQ's `Queue.enqueue`, `.send()` of a Dramatiq actor, calling a Huey task,
    /// calling a Celery canvas (`chord(header)(callback)`, `group(...)()`), and the other
    /// frameworks' enqueues the catalog names: arq's `enqueue_job`, Taskiq's `.kiq()`,
    /// Procrastinate's `.defer()`, Django tasks' `.enqueue()`, django-q's `async_task`. A
    /// project method of an enqueue method's name (`flight.delay(minutes)` on a model) is not
    /// an enqueue, nor is a local pool's (`ThreadPool(4).apply_async(f, args)` from
    /// `multiprocessing`, which runs `f` in the process); neither is an enqueue that waits for the commit itself (`delay_on_commit`,
    /// a task of djhuey's `@on_commit_task`, a task of Procrastinate's Django app, whose job is
    /// a row of the same transaction, a task whose `base=` class's `apply_async` hands
    /// the message to `transaction.on_commit`, or a `chain(...)`/`group(...)` whose signatures
    /// all name such tasks).
    ///
    /// ## Why it matters on a second run
    /// The message reaches the broker before the commit. A worker can pick it up at once and
    /// read the rows as they were before the transaction; and if the transaction rolls back,
    /// the task runs for data that never existed — or runs again when the request is retried.
    ///
    /// ## Example
    /// ```python
    /// with transaction.atomic():
    ///     order = form.save()
    ///     send_confirmation.delay(order.pk)
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// with transaction.atomic():
    ///     order = form.save()
    ///     transaction.on_commit(lambda: send_confirmation.delay(order.pk))
    ///     # or: send_confirmation.delay_on_commit(order.pk)
    /// ```
    pub const RULE = {
        code: "TW302",
        name: "enqueue-inside-transaction",
        group: "transactions",
        severity: Warning,
        summary: "A task is enqueued inside a database transaction",
        fixable: false,
    };
}

pub fn check_project(checker: &mut Checker) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let lang = checker.lang;
    for (id, function) in project.functions_with_transactions() {
        for (index, event) in function.events().iter().enumerate() {
            let EventKind::Call(call) = &event.kind else {
                continue;
            };
            if function.is_deferred(event.block) {
                continue;
            }
            let Some(&tx) = project.transactions_around(id, event.block).last() else {
                continue;
            };
            // The enqueue itself, or a project helper that reaches one.
            let via = match project.call_class(id, index) {
                Some(CallClass::Enqueue {
                    deferred_to_commit: false,
                }) => None,
                Some(CallClass::Project(callee)) => match project.summary(*callee) {
                    // Not one the call leaves unrun (`save()` where `if reindex:` enqueues).
                    Some(summary) if !project.skips_branch(*callee, summary.enqueue_next, call) => {
                        match summary.enqueue {
                            Some(enqueue) => Some(enqueue),
                            None => continue,
                        }
                    }
                    _ => continue,
                },
                _ => continue,
            };
            let what = match via {
                None => tr!(lang, "tw302.direct", call = written_label(project, call)),
                Some(enqueue) => tr!(
                    lang,
                    "tw302.reached",
                    call = written_label(project, call),
                    enqueue = project.hop_label(enqueue)
                ),
            };
            let message = tr!(
                lang,
                "tw302.message",
                what = what,
                transaction = describe_transaction(project, id, tx, lang)
            );
            let help = if project.transaction_has_on_commit(id, tx) {
                let written = written_label(project, call);
                // `chord(...)(...)` is written with its arguments already.
                let called = if written.ends_with(')') {
                    written.clone()
                } else {
                    format!("{written}(...)")
                };
                // The task's own method that waits for the commit (`delay_on_commit`).
                let twin = project.enqueued_framework(call, id).and_then(|spec| {
                    let twin = format!(
                        "{}{}",
                        call.method.as_str(),
                        spec.on_commit_suffix.as_deref()?
                    );
                    project.catalog.enqueues_on_commit(&twin).then_some(twin)
                });
                match (via, written.rsplit_once('.'), twin) {
                    (Some(enqueue), ..) => {
                        tr!(
                            lang,
                            "tw302.help_reached",
                            enqueue = project.hop_label(enqueue)
                        )
                    }
                    (None, Some((task, _)), Some(twin)) if !task.contains('(') => tr!(
                        lang,
                        "tw302.help_celery",
                        call = called,
                        twin = format!("{task}.{twin}(...)")
                    ),
                    _ => tr!(lang, "tw302.help", call = called),
                }
            } else {
                tr!(lang, "tw302.help_after_block")
            };
            let diagnostic = checker.report(&RULE, id.file, call.func_range, message, help);
            if let Some(enqueue) = via {
                diagnostic.trace = vec![
                    project.trace_hop(crate::project::Hop {
                        func: id,
                        event: u32::try_from(index).unwrap_or(u32::MAX),
                    }),
                    project.trace_hop(enqueue),
                ];
            }
        }
    }
}

/// The call as written: `send_receipt.delay`, `queue.enqueue`, `chord(...)(...)` for the call
/// of a call's result.
fn written_label(project: &Project, call: &crate::facts::CallSite) -> String {
    if call.method.as_str().is_empty() {
        let called = call
            .path
            .as_ref()
            .and_then(crate::path::QPath::last_name)
            .unwrap_or_default();
        return format!("{called}(...)(...)");
    }
    // `render_images.si(...).delay`, `sync.configure(...).defer`, a chain
    // `(a.si(...) | b.si(...)).delay` named by the task it sends first.
    if let Some(path) = &call.path
        && let Some((_, before)) = path.0.split_last()
    {
        let catalog = project.catalog;
        let made = before
            .iter()
            .rev()
            .take_while(|seg| {
                seg.call != crate::path::Call::No
                    && (catalog.is_signature_method(seg.name.as_str())
                        || catalog.is_builder_method(seg.name.as_str()))
            })
            .count();
        if made > 0
            && let Some(task) = before.len().checked_sub(made + 1).map(|i| &before[i])
            && task.call == crate::path::Call::No
            && call
                .receiver
                .is_none_or(|r| r == before[before.len() - 1].name)
        {
            let mut label = task.name.as_str().to_string();
            for seg in &before[before.len() - made..] {
                label.push_str(&format!(".{}(...)", seg.name.as_str()));
            }
            label.push('.');
            label.push_str(call.method.as_str());
            return label;
        }
    }
    match &call.receiver.map(crate::path::Sym::as_str) {
        Some(receiver) => format!("{receiver}.{}", call.method.as_str()),
        None => call.method.as_str().to_string(),
    }
}
