use rustc_hash::FxHashSet as HashSet;

use crate::facts::Taint;
use crate::i18n::tr;
use crate::project::{FuncId, Project};
use crate::rules::keys::{key_uses, returned_by};
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a nondeterministic source (`uuid4()`, `time.time()`, `datetime.now()`,
    /// `random`, `secrets`, the builtin `hash()`, salted per process for strings) inside a task whose value flows into an idempotency key, a lock name
    /// or a de-duplication key (a marker's key, or the lookup of a marker row: `get_or_create`
    /// behind `if not created: return`, an insert behind `except IntegrityError: return`) —
    /// through assignments (also to a local a nested function then reads: `key = str(uuid4())`,
    /// `def _post(): ... headers={"Idempotency-Key": key}`), f-strings, `str()`, `format`, `%`, `+`,
    /// `join`, `hashlib` digests, a dict union (`auth() | {"Idempotency-Key": k}`) or a project
    /// helper that returns it (a lambda bound to a name, `new_key = lambda: uuid4().hex`, in
    /// the module or in the task, is one, and so is a method of a model or class the project
    /// defines, `loan.payment_key(period)`), a parameter's default evaluated at import
    /// (`key=uuid4().hex`: each worker process has its own) or a field's factory
    /// (`key: str = field(default_factory=lambda: str(uuid4()))` in a class of the module, on
    /// an object the task builds without passing the field), or returns the headers
    /// that carry it (`headers=partner_headers(token)`). Of a helper that returns several
    /// values (`return f"refund-{pk}", timezone.now()`), the key is the item the task unpacks
    /// (`key, requested_at = ...`) or indexes (`request[0]`). A helper that takes the key as a
    /// parameter, or spreads its `**kwargs`, and passes it to the effect it calls uses what the
    /// task passes (as it is, converted, `idempotency_key=str(key)`, or in a text made from it
    /// alone, `f"settle-{ref}"`, `"settle-" + ref`, `"settle-{}".format(ref)`), by keyword or by
    /// position, through as many helpers as pass it on; a key a helper makes of several of its
    /// parameters (`f"refund-{charge_id}-{attempt}"`, `%`, `format`) holds what the caller
    /// passes for each (`refund_once(charge_id, amount, uuid4().hex)`): a key
    /// helper's result passed by position counts when its name says it is a key (`idem =
    /// keys.refund_key(pk)` then `issue_refund(req, idem)`, or `send(req, refund_key(pk))`).
    /// A local assigned in more than one branch (`if`/`else`, `match` cases, `try` and its
    /// `except`, or a branch after the first assignment) holds whatever any of them gave it;
    /// an assignment that runs on every path replaces what came before. The report is
    /// at the source call (in the helper when a helper makes the key). A value that only
    /// selects rows (`Invoice.objects.filter(due_at__lt=timezone.now())`) is not in them: a
    /// key made from a selected row's fields is stable; a row created with a random value
    /// holds it, unless it is `get_or_create`'s `defaults` (`update_or_create`'s
    /// `create_defaults`), which only the run that creates the row writes and later runs read
    /// back. A key made only when none is stored (`if not order.payment_key:`) and stored
    /// in the same branch, before anything uses it, is made once and read back by every later
    /// run: not reported; one stored only after the call is.
    ///
    /// ## Why it matters on a second run
    /// The second run computes a different key, so the provider, the lock or the de-duplication
    /// table sees a new request: the payment goes through twice, two workers take "the" lock.
    ///
    /// ## Example
    /// ```python
    /// @shared_task
    /// def pay_out(payout_id):
    ///     stripe.Transfer.create(..., idempotency_key=f"payout-{uuid.uuid4()}")
    /// ```
    ///
    /// ## Use instead
    /// Derive the key from the task's arguments, or make it where the task is enqueued and pass
    /// it in:
    /// ```python
    /// @shared_task
    /// def pay_out(payout_id):
    ///     stripe.Transfer.create(..., idempotency_key=f"payout-{payout_id}")
    /// ```
    pub const RULE = {
        code: "TW201",
        name: "nondeterministic-idempotency-key",
        group: "keys",
        severity: Error,
        summary: "An idempotency or lock key is built from uuid4(), the clock or randomness inside the task",
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
        for (file, range, call) in nondeterministic_sources(project, key.func, &key.value.taint) {
            if !seen.insert((file, range)) {
                continue;
            }
            let message = tr!(
                lang,
                "tw201.message",
                call = call,
                what = key.what,
                task = task.name()
            );
            let help = tr!(lang, "keys.help");
            checker.report(&RULE, file, range, message, help);
        }
    }
}

/// Nondeterministic sources among `taint`: direct ones, and those of project helpers whose
/// return value carries one.
fn nondeterministic_sources(
    project: &Project,
    func: FuncId,
    taint: &[Taint],
) -> Vec<(u32, ruff_text_size::TextRange, String)> {
    let mut found = Vec::new();
    for t in taint {
        match t {
            Taint::Nondet { range, name } => {
                found.push((func.file, *range, name.as_str().to_string()))
            }
            Taint::Call { event, element } => {
                if let Some(summary) = returned_by(project, func, *event) {
                    found.extend(
                        summary
                            .returns_nondet
                            .iter()
                            .filter(|found| found.in_element(*element))
                            .map(|found| found.source.clone()),
                    );
                }
            }
            Taint::Meta { .. } | Taint::Param { .. } => {}
        }
    }
    found
}
