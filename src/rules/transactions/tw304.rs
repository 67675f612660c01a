use crate::facts::{EventKind, Function};
use crate::i18n::tr;
use crate::project::{CallClass, FuncId};
use crate::rules::transactions::walk_helpers;
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports `Model.objects.get_or_create(**lookup)` or `update_or_create` in a task when the
    /// project's definition of `Model` has no unique constraint covering the lookup fields
    /// (`unique=True`, `primary_key=True`, `OneToOneField`, `unique_together`, or a
    /// `UniqueConstraint(fields=...)` without a `condition`, on those fields or a subset; a
    /// functional `UniqueConstraint("list_id", Lower("email"), ...)` covers the fields it
    /// names, directly or through a function of one).
    /// Models defined outside the project are unknown and not reported. A lookup in a project
    /// function the task calls (a repository's `ensure(...)`, a model method) races the same
    /// way, and is reported where it is written.
    ///
    /// ## Why it matters on a second run
    /// `get_or_create` is a read followed by an insert. Two workers running the task at once —
    /// a redelivery while the first run is still going, a retry racing a duplicate message —
    /// both read nothing and both insert: two rows, and every later `get()` raises
    /// `MultipleObjectsReturned`.
    ///
    /// ## Example
    /// ```python
    /// class LoyaltyAccount(models.Model):
    ///     customer = models.ForeignKey(User, on_delete=models.CASCADE)
    ///     program = models.CharField(max_length=32)
    ///
    /// LoyaltyAccount.objects.get_or_create(customer_id=customer_id, program=program)
    /// ```
    ///
    /// ## Use instead
    /// Add the constraint (and its migration):
    /// ```python
    /// class Meta:
    ///     constraints = [models.UniqueConstraint(fields=["customer", "program"], name="uniq_account")]
    /// ```
    pub const RULE = {
        code: "TW304",
        name: "get-or-create-without-unique-constraint",
        group: "transactions",
        severity: Error,
        summary: "`get_or_create` on fields no unique constraint covers",
        fixable: false,
    };
}

/// Keywords of `get_or_create`/`update_or_create` that are not part of the lookup.
const NOT_LOOKUP: &[&str] = &["defaults", "create_defaults"];

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let methods = &project.catalog.orm.get_or_create_methods;
    // The task, and the project functions it calls (a repository's `ensure(...)`): the race
    // is the same wherever the lookup is written, and is reported there.
    walk_helpers(project, task.id, |id, function, pending| {
        for index in 0..function.events().len() {
            if let Some(CallClass::Project(callee)) = project.call_class(id, index) {
                pending.push(*callee);
            }
        }
        if function.calls_named(|name| methods.has(name.as_str())) {
            check_function(checker, task, id, function);
        }
    });
}

/// The lookups of one function the task runs (`id`: the task or a helper it reaches).
fn check_function(checker: &mut Checker, task: &TaskView, id: FuncId, function: &Function) {
    let project = checker.project;
    for event in function.events() {
        let EventKind::Call(call) = &event.kind else {
            continue;
        };
        if !project
            .catalog
            .orm
            .get_or_create_methods
            .has(call.method.as_str())
            || call.star_kwargs
            || call.star_args
        {
            continue;
        }
        let Some(path) = &call.path else { continue };
        let Some(target) = project.models.manager_target(project, path) else {
            continue;
        };
        let model = &project.models.list[target.model];
        let mut fields: Vec<String> = call
            .keywords()
            .iter()
            .map(|(k, _)| k.to_string())
            .filter(|k| !NOT_LOOKUP.contains(&k.as_str()))
            .collect();
        let explicit = fields.len();
        // A related manager fills in its relation (`order.lines.get_or_create(sku=...)`).
        fields.extend(target.implicit.map(str::to_string));
        if explicit == 0 || model.lookup_is_unique(&fields) {
            continue;
        }
        let listed = fields
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ");
        // The manager as written (`Subscriber.active`); a related manager's rows are the
        // model's, named through its default manager.
        let manager = match target.implicit {
            None => path
                .segs()
                .iter()
                .rev()
                .nth(1)
                .filter(|seg| seg.call == crate::path::Call::No)
                .map_or("objects", |seg| seg.name.as_str()),
            Some(_) => "objects",
        };
        let lang = checker.lang;
        let message = tr!(
            lang,
            "tw304.message",
            model = model.name,
            manager = manager,
            method = call.method.as_str(),
            fields = listed,
            task = task.name()
        );
        let constraint_fields = fields
            .iter()
            .map(|f| format!("\"{}\"", model.normalize(f)))
            .collect::<Vec<_>>()
            .join(", ");
        let help = tr!(lang, "tw304.help", fields = constraint_fields);
        checker.report(&RULE, id.file, call.range, message, help);
    }
}
