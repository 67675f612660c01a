use ruff_text_size::{TextRange, TextSize};

use crate::catalog::Orm;
use crate::diagnostic::{Edit, Fix};
use crate::facts::{CallSite, EventKind};
use crate::i18n::{Lang, tr};
use crate::path::{Call, QPath, Seg, Sym};
use crate::project::Project;
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports `obj.save()` without `update_fields` after an effect, in a task that loaded `obj`
    /// from the database (with `get()`, `first()`... or by iterating a queryset, itself or
    /// through a project function that returns the row: `rental = get_rental(pk)`), unless the
    /// task read it again (`obj.refresh_from_db()`) after the last effect before the save.
    /// Only the object's own save: a member's (`invoice.pdf.save(name, content, save=False)`,
    /// a file field's) writes no row. A manager the model names itself (`active =
    /// ActiveManager()`, `live = LiveQuerySet.as_manager()`) loads rows as `objects` does.
    ///
    /// ## Why it matters on a second run
    /// The full save writes back every field as it was read before the (slow) effect. Whatever a
    /// concurrent run of the same task, or a request, changed in the meantime is overwritten —
    /// including the very status a second run relies on.
    ///
    /// ## Example
    /// ```python
    /// booking = Booking.objects.get(pk=booking_id)
    /// gateway.capture(booking.authorization_id, idempotency_key=f"capture-{booking_id}")
    /// booking.status = "captured"
    /// booking.save()
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// booking.status = "captured"
    /// booking.save(update_fields=["status"])
    /// ```
    /// `--fix` adds `update_fields` with the attributes the task assigned on the object.
    pub const RULE = {
        code: "TW104",
        name: "full-save-after-effect",
        group: "effects",
        severity: Warning,
        summary: "A full `save()` after an effect overwrites what changed meanwhile",
        fixable: true,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let function = task.function;
    let Some(first_effect) = task.ordered_effects().next() else {
        return;
    };
    let file = &checker.project.files[task.id.file as usize];
    for (index, event) in function
        .events()
        .iter()
        .enumerate()
        .skip(first_effect.index + 1)
    {
        let EventKind::Call(call) = &event.kind else {
            continue;
        };
        if !checker
            .project
            .catalog
            .orm
            .save_methods
            .has(call.method.as_str())
            // `update_fields=None` is Django's full save.
            || call.keyword("update_fields").is_some_and(|v| !v.is_none())
            || call.star_kwargs
        {
            continue;
        }
        // After an effect on a path that can reach this save.
        let Some(effect) = task
            .ordered_effects()
            .filter(|effect| effect.index < index && !function.exclusive(effect.block, event.block))
            .map(|effect| effect.index)
            .max()
        else {
            continue;
        };
        let orm = &checker.project.catalog.orm;
        // Loaded in the task, or by a project helper it calls (`rental = get_rental(pk)`
        // returning `Rental.objects.get(pk=pk)`): what the helper returns is in the path.
        let loaded = call.path.as_ref().is_some_and(|path| {
            let receiver = &path.0[..path.0.len().saturating_sub(1)];
            loads(receiver, orm) || loaded_by_helper(checker.project, task, receiver)
        });
        if !loaded {
            continue;
        }
        // The object's own save: not a member's (`invoice.pdf.save(name, content)` is a
        // file field's, which does not write the row with `save=False`).
        let Some(var) = &call.receiver_var.map(Sym::as_str) else {
            continue;
        };
        if call.receiver.map(Sym::as_str) != Some(*var) {
            continue;
        }
        // `obj.refresh_from_db()` after the effect: the save writes back what it read then.
        let refreshed = function.events()[effect + 1..index].iter().any(|e| {
            matches!(&e.kind, EventKind::Call(c)
                if orm.refresh_methods.has(c.method.as_str())
                    && c.receiver_var.map(Sym::as_str) == Some(*var))
        });
        // `obj = Model.objects.select_for_update().get(...)` again after the effect: the object
        // saved is the one loaded then (the load's call has the save's receiver as its path).
        let receiver = call
            .path
            .as_ref()
            .map(|p| &p.0[..p.0.len().saturating_sub(1)]);
        let reloaded = receiver.is_some_and(|receiver| {
            function.events()[effect + 1..index].iter().any(|e| {
                matches!(&e.kind, EventKind::Call(c)
                    if c.path.as_ref().is_some_and(|p| p.0.as_slice() == receiver))
            })
        });
        if refreshed || reloaded {
            continue;
        }
        let mut fields: Vec<&str> = Vec::new();
        for assign in function.events()[..index]
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::AttrAssign(assign) if assign.var == *var => Some(assign),
                _ => None,
            })
        {
            if !fields.contains(&assign.attr.as_str()) {
                fields.push(assign.attr.as_str());
            }
        }
        // The fix lists what the task assigned; it is safe only when nothing else can have
        // changed the object: no other call took it (`mark(obj)`, `setattr(obj, ...)`) and no
        // method of its own ran (`obj.update_status(...)`) between the load and the save.
        let changed_elsewhere = function.escaped().iter().any(|n| n.as_str() == *var)
            || function.events()[..index].iter().any(|e| {
                matches!(&e.kind, EventKind::Call(c)
                    if c.receiver.map(Sym::as_str) == Some(*var)
                        && c.receiver_var.map(Sym::as_str) == Some(*var)
                        && !orm.save_methods.has(c.method.as_str())
                        && !orm.refresh_methods.has(c.method.as_str()))
            });
        let lang = checker.lang;
        let method = call.method.as_str();
        let message = tr!(lang, "tw104.message", var = var, method = method);
        let listed = fields
            .iter()
            .map(|f| format!("\"{f}\""))
            .collect::<Vec<_>>()
            .join(", ");
        let help = if fields.is_empty() {
            tr!(lang, "tw104.help_any", method = method)
        } else if changed_elsewhere {
            tr!(
                lang,
                "tw104.help_partial",
                var = var,
                method = method,
                fields = listed
            )
        } else {
            tr!(
                lang,
                "tw104.help",
                var = var,
                method = method,
                fields = listed
            )
        };
        let fix = (!fields.is_empty() && !changed_elsewhere)
            .then(|| update_fields_fix(lang, call, file.text(), &listed));
        let diagnostic = checker.report(&RULE, task.id.file, call.range, message, help);
        diagnostic.fix = fix.flatten();
    }
}

/// Whether a value's path is a row the ORM loaded (`Model.objects.get(...)`,
/// `.filter(...).first()`), not one it created.
fn loads(path: &[Seg], orm: &Orm) -> bool {
    path.iter()
        .any(|seg| seg.call != Call::No && orm.loaders.iter().any(|l| l == seg.name.as_str()))
        && !path
            .iter()
            .any(|seg| seg.call != Call::No && orm.create_methods.has(seg.name.as_str()))
}

/// `rental = get_rental(pk)`: a project function the task calls whose every return is a row it
/// loads (`return Rental.objects.get(pk=pk)`).
fn loaded_by_helper(project: &Project, task: &TaskView, receiver: &[Seg]) -> bool {
    if receiver.last().is_none_or(|seg| seg.call == Call::No) {
        return false;
    }
    let call = QPath(receiver.to_vec());
    let Some(helper) = project
        .resolve_function(&project.canonical(&call), Some(task.id))
        .and_then(|id| project.function(id))
    else {
        return false;
    };
    let returns = helper.returns();
    !returns.is_empty()
        && returns.iter().all(|value| {
            value
                .path
                .as_ref()
                .is_some_and(|p| loads(&p.0, &project.catalog.orm))
        })
}

/// Inserts `update_fields=[...]` before the closing parenthesis of the call, or puts the list
/// in place of `update_fields=None`.
fn update_fields_fix(lang: Lang, call: &CallSite, source: &str, listed: &str) -> Option<Fix> {
    if let Some(none) = call.keyword("update_fields") {
        return Some(Fix {
            message: tr!(lang, "tw104.fix", fields = listed),
            edits: vec![Edit {
                range: none.range,
                content: format!("[{listed}]"),
            }],
        });
    }
    let args = call.args_range;
    let open = args.start() + TextSize::from(1);
    let inside = source.get(open.to_usize()..args.end().to_usize().checked_sub(1)?)?;
    let close = args.end().checked_sub(TextSize::from(1))?;
    let trimmed = inside.trim_end();
    let mut content = if trimmed.trim().is_empty() {
        format!("update_fields=[{listed}]")
    } else if trimmed.ends_with(',') {
        format!(" update_fields=[{listed}]")
    } else {
        format!(", update_fields=[{listed}]")
    };
    let start = if trimmed.trim().is_empty() {
        open
    } else {
        open + TextSize::try_from(trimmed.len()).ok()?
    };
    let mut range = TextRange::new(start, close.max(start));
    // Arguments on lines of their own (`save(\n    using="default",\n)`): one more line,
    // indented as the last, before the closing parenthesis's own line, which stays.
    if !trimmed.trim().is_empty() && inside[trimmed.len()..].contains('\n') {
        range = TextRange::empty(start);
        if trimmed.contains('\n') {
            let last_line = &trimmed[trimmed.rfind('\n').map_or(0, |at| at + 1)..];
            let indent = &last_line[..last_line.len() - last_line.trim_start().len()];
            let comma = if trimmed.ends_with(',') { "" } else { "," };
            content = format!("{comma}\n{indent}update_fields=[{listed}],");
        }
    }
    Some(Fix {
        message: tr!(lang, "tw104.fix", fields = listed),
        edits: vec![Edit { range, content }],
    })
}
