//! The rules. Each file holds one rule: its documentation (the doc comment, printed by
//! `twice rule`), its metadata and its check, which reads facts and the project model.

use std::borrow::Cow;

use rayon::prelude::*;
use ruff_text_size::TextRange;

use crate::diagnostic::{Diagnostic, Severity};
use crate::facts::{Function, ParamDefault, ParamKind, Value};
use crate::i18n::{Lang, tr};
use crate::intern::Sym;
use crate::project::{Effect, FuncId, Holder, Hop, KeyStatus, Project, SpreadKey, Task, TraceHop};

pub mod config;
pub mod effects;
pub mod keys;
pub mod locks;
pub mod retries;
pub mod transactions;

/// What `twice rule` and the registry know of a rule.
#[derive(Debug)]
pub struct RuleMeta {
    pub code: &'static str,
    pub name: &'static str,
    pub group: &'static str,
    pub severity: Severity,
    pub summary: &'static str,
    /// The rule's documentation, from its doc comment.
    pub doc: &'static str,
    pub fixable: bool,
}

impl RuleMeta {
    /// The rule's one-line summary in `lang`.
    pub fn summary_in(&self, lang: Lang) -> &'static str {
        lang.rule_doc(self.code)
            .map_or(self.summary, |(summary, _)| summary)
    }

    /// The rule's documentation in `lang`, as Markdown (the doc comment without its leading
    /// space, for English).
    pub fn markdown(&self, lang: Lang) -> String {
        match lang.rule_doc(self.code) {
            Some((_, doc)) => doc.trim_matches('\n').to_string(),
            None => self
                .doc
                .lines()
                .map(|line| line.strip_prefix(' ').unwrap_or(line))
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }
}

/// Declares a rule's metadata; the doc comment above it becomes its documentation.
macro_rules! declare_rule {
    (
        $(#[doc = $doc:literal])*
        pub const $ident:ident = {
            code: $code:literal,
            name: $name:literal,
            group: $group:literal,
            severity: $severity:ident,
            summary: $summary:literal,
            fixable: $fixable:literal $(,)?
        };
    ) => {
        pub const $ident: $crate::rules::RuleMeta = $crate::rules::RuleMeta {
            code: $code,
            name: $name,
            group: $group,
            severity: $crate::diagnostic::Severity::$severity,
            summary: $summary,
            doc: concat!($($doc, "\n"),*),
            fixable: $fixable,
        };
    };
}
pub(crate) use declare_rule;

/// An effect that a task reaches at one of its calls.
#[derive(Debug)]
pub struct EffectAt<'a> {
    /// Index of the call event in the task function.
    pub index: usize,
    pub order: u32,
    pub block: u32,
    /// The call in the task.
    pub range: TextRange,
    pub effect: &'a Effect,
    /// The key as this task passes it: the effect's own, or, when a helper passes one of its
    /// parameters as the key, the argument the task gives for it (`None` when it gives none
    /// and the parameter defaults to `None`).
    pub key: Cow<'a, KeyStatus>,
    /// The function the key value is written in (its ranges and call events are that
    /// function's): the task, or a helper on the way.
    pub key_func: FuncId,
    /// From the call in the task to the effect, the effect last.
    pub trace: Vec<TraceHop>,
    /// The same calls as the project knows them (function and event).
    pub hops: Vec<Hop>,
    /// Preceded by a done-guard, in the task or in a helper on the way.
    pub guarded: bool,
    /// Followed by another effect inside the helpers on the way.
    pub followed_inside: bool,
    /// In a loop inside the helpers on the way.
    pub looped_inside: bool,
    /// In a lambda (`transaction.on_commit(lambda: send_mail(...))`): it runs later in the
    /// task, or not at all, so it has no place in the order of the task's steps.
    pub deferred: bool,
}

/// A task as rules see it.
pub struct TaskView<'a> {
    pub id: FuncId,
    pub task: &'a Task,
    pub function: &'a Function,
    pub effects: Vec<EffectAt<'a>>,
    /// The method a task class runs (`class SendReceipt(Task): def run(self, ...)`, a Dramatiq
    /// `GenericActor`'s `perform`): the task is named by its class.
    class_based: bool,
    /// The task's qualified name: the function's, or for a task class that inherits its
    /// method from a base, the class's with the method's name.
    qualname: std::borrow::Cow<'a, str>,
}

impl<'a> TaskView<'a> {
    pub fn new(project: &'a Project<'a>, task: &'a Task) -> Option<TaskView<'a>> {
        let function = project.function(task.id)?;
        let mut effects = Vec::new();
        for (index, event) in function.events().iter().enumerate() {
            let guarded_here = project.is_guarded(task.id, index);
            for reached in project.effects_at(task.id, index) {
                let hops = project.trace(&reached);
                let trace: Vec<TraceHop> = hops.iter().map(|&hop| project.trace_hop(hop)).collect();
                let range = trace.first().map(|hop| hop.range).unwrap_or_default();
                let effect = project.effect(&reached);
                let (key, key_func) = match passed_in(project, &hops, effect) {
                    Some((key, func)) => (Cow::Owned(key), func),
                    None => (
                        Cow::Borrowed(&effect.key),
                        effect.key_func.unwrap_or(reached.origin.func),
                    ),
                };
                effects.push(EffectAt {
                    index,
                    order: event.order,
                    block: event.block,
                    range,
                    effect,
                    key,
                    key_func,
                    trace,
                    hops,
                    guarded: guarded_here || reached.guarded,
                    followed_inside: reached.followed_inside,
                    looped_inside: reached.looped_inside,
                    deferred: function.is_deferred(event.block),
                });
            }
        }
        let class_based = function.class().is_some()
            && project
                .catalog
                .framework(task.framework)
                .is_some_and(|spec| spec.task_class_method == function.name());
        let qualname = match project.class_of(task.id) {
            Some(class) if class_based && task.id.ctx != 0 => {
                std::borrow::Cow::Owned(format!("{}.{}", class.qualname, function.name()))
            }
            _ => std::borrow::Cow::Borrowed(function.qualname.as_str()),
        };
        Some(TaskView {
            id: task.id,
            task,
            function,
            effects,
            class_based,
            qualname,
        })
    }

    /// The effects that are steps of the task, in order: not those in a lambda, which may run
    /// at another time.
    pub fn ordered_effects(&self) -> impl Iterator<Item = &EffectAt<'a>> {
        self.effects.iter().filter(|effect| !effect.deferred)
    }

    pub fn qualname(&self) -> &str {
        &self.qualname
    }

    /// The task's name as messages show it: the function's, or for a class-based task (its
    /// `run` method) the class's.
    pub fn name(&self) -> &str {
        if self.class_based {
            let mut parts = self.qualname.rsplit('.');
            if let (Some(_), Some(class)) = (parts.next(), parts.next()) {
                return class;
            }
        }
        self.function.name()
    }
}

/// The key as the task passes it, when the helpers on the way hand the effect a parameter
/// of theirs (`charge(amount, key)`, then `create(..., idempotency_key=key)`): followed back
/// through each call to the argument given for it, and `Missing` where a caller passes `None`
/// or nothing to a parameter that defaults to `None`. A wrapper's spread `**kwargs`
/// ([`KeyStatus::Spread`]) is followed to the key keyword its caller gives. With the function
/// the value is written in; `None` when the effect's own key is not a parameter as passed.
fn passed_in(project: &Project, hops: &[Hop], effect: &Effect) -> Option<(KeyStatus, FuncId)> {
    let mut carried = match &effect.key {
        KeyStatus::Present(key) => Carried::Value(key),
        KeyStatus::Spread(param) => Carried::Spread(*param),
        KeyStatus::Holder(value, holder) => Carried::Holder(value, *holder),
        _ => return None,
    };
    let mut at = hops.len().checked_sub(1)?;
    while at > 0 {
        let (callee, caller) = (hops[at].func, hops[at - 1]);
        match carried {
            Carried::Value(value) => match argument_for(project, callee, caller, value) {
                // `f"settle-{ref}"` of a `None` is a key all the same (a constant one).
                Argument::Given(argument) if argument.is_none() && value.is_text() => break,
                Argument::Given(argument) if argument.is_none() => {
                    return Some((KeyStatus::Missing, caller.func));
                }
                Argument::Given(argument) => carried = Carried::Value(argument),
                Argument::Omitted(ParamDefault::None) if !value.is_text() => {
                    return Some((KeyStatus::Missing, callee));
                }
                Argument::Omitted(_) | Argument::NotAParameter | Argument::Unknown => break,
            },
            Carried::Spread(param) => {
                let spreads_kwargs = project.function(callee).is_some_and(|function| {
                    function
                        .params
                        .iter()
                        .any(|p| p.name() == param.as_str() && p.kind == ParamKind::Variadic)
                });
                let Some(call) = project
                    .call_at(caller.func, caller.event)
                    .filter(|_| spreads_kwargs)
                else {
                    break;
                };
                match project.key_in_spread(effect, call) {
                    SpreadKey::Given(argument) => carried = Carried::Value(argument),
                    SpreadKey::Spread(outer) => carried = Carried::Spread(outer),
                    SpreadKey::Holder(value, holder) => carried = Carried::Holder(value, holder),
                    SpreadKey::Missing => return Some((KeyStatus::Missing, caller.func)),
                    SpreadKey::Unknown => break,
                }
            }
            Carried::Holder(value, holder) => match argument_for(project, callee, caller, value) {
                Argument::Given(argument) => {
                    match project.key_in_holder(effect, argument, holder) {
                        SpreadKey::Given(key) => carried = Carried::Value(key),
                        SpreadKey::Spread(outer) => carried = Carried::Spread(outer),
                        SpreadKey::Holder(value, holder) => {
                            carried = Carried::Holder(value, holder)
                        }
                        SpreadKey::Missing => return Some((KeyStatus::Missing, caller.func)),
                        SpreadKey::Unknown => break,
                    }
                }
                Argument::Omitted(ParamDefault::None) => {
                    return Some((KeyStatus::Missing, callee));
                }
                Argument::Omitted(_) | Argument::NotAParameter | Argument::Unknown => break,
            },
        }
        at -= 1;
    }
    match carried {
        Carried::Value(value) => (at + 1 < hops.len())
            .then(|| (KeyStatus::Present(Box::new(value.clone())), hops[at].func)),
        Carried::Spread(_) | Carried::Holder(..) => None,
    }
}

/// What [`passed_in`] follows back: a value, a spread parameter, or a parameter passed on as
/// the headers or options that hold the key.
#[derive(Clone, Copy)]
enum Carried<'p> {
    Value(&'p Value),
    Spread(Sym),
    Holder(&'p Value, Holder),
}

pub(crate) use crate::project::Argument;

pub(crate) fn argument_for<'p>(
    project: &Project<'p>,
    callee: FuncId,
    caller: Hop,
    value: &Value,
) -> Argument<'p> {
    let (Some(name), true) = (value.name, value.flags & Value::PARAM != 0) else {
        return Argument::NotAParameter;
    };
    let Some(function) = project.function(callee) else {
        return Argument::Unknown;
    };
    let Some(call) = project.call_at(caller.func, caller.event) else {
        return if function.params.iter().any(|p| p.name() == &*name) {
            Argument::Unknown
        } else {
            Argument::NotAParameter
        };
    };
    crate::project::argument(function, call, &name)
}

/// Collects diagnostics for the rules that are enabled.
pub struct Checker<'a> {
    pub project: &'a Project<'a>,
    enabled: &'a (dyn Fn(&str) -> bool + Sync),
    /// The language of messages and help lines.
    pub lang: Lang,
    pub diagnostics: Vec<Diagnostic>,
}

impl<'a> Checker<'a> {
    pub fn new(
        project: &'a Project<'a>,
        enabled: &'a (dyn Fn(&str) -> bool + Sync),
        lang: Lang,
    ) -> Self {
        Checker {
            project,
            enabled,
            lang,
            diagnostics: Vec::new(),
        }
    }

    pub fn enabled(&self, rule: &RuleMeta) -> bool {
        (self.enabled)(rule.code)
    }

    /// Adds a diagnostic; returns it for the caller to add a trace or a fix.
    pub fn report(
        &mut self,
        rule: &RuleMeta,
        file: u32,
        range: TextRange,
        message: String,
        help: String,
    ) -> &mut Diagnostic {
        self.diagnostics.push(Diagnostic {
            code: rule.code,
            name: rule.name,
            severity: rule.severity,
            message,
            help,
            file,
            range,
            task: None,
            complete: None,
            trace: Vec::new(),
            fix: None,
        });
        let last = self.diagnostics.len() - 1;
        &mut self.diagnostics[last]
    }
}

/// Every rule, in code order.
pub const ALL: &[&RuleMeta] = &[
    &crate::registry::INVALID_SYNTAX,
    &crate::registry::UNREADABLE_FILE,
    &effects::tw101::RULE,
    &effects::tw102::RULE,
    &effects::tw103::RULE,
    &effects::tw104::RULE,
    &keys::tw201::RULE,
    &keys::tw202::RULE,
    &transactions::tw301::RULE,
    &transactions::tw302::RULE,
    &transactions::tw303::RULE,
    &transactions::tw304::RULE,
    &transactions::tw305::RULE,
    &locks::tw401::RULE,
    &locks::tw402::RULE,
    &locks::tw403::RULE,
    &retries::tw501::RULE,
    &retries::tw502::RULE,
    &config::tw601::RULE,
    &config::tw602::RULE,
];

/// Runs every rule: the task rules over every task, then the project-wide ones.
pub fn check_all(checker: &mut Checker) {
    let project = checker.project;
    let views: Vec<TaskView> = project
        .tasks
        .par_iter()
        .filter_map(|task| TaskView::new(project, task))
        .collect();
    // Tasks are checked independently, in parallel; their diagnostics are put together in task
    // order, as one pass would.
    let (enabled, lang) = (checker.enabled, checker.lang);
    let per_task: Vec<Vec<Diagnostic>> = views
        .par_iter()
        .map(|view| {
            let mut checker = Checker::new(project, enabled, lang);
            effects::tw101::check(&mut checker, view);
            effects::tw102::check(&mut checker, view);
            effects::tw103::check(&mut checker, view);
            effects::tw104::check(&mut checker, view);
            keys::tw201::check(&mut checker, view);
            keys::tw202::check(&mut checker, view);
            transactions::tw303::check(&mut checker, view);
            transactions::tw304::check(&mut checker, view);
            transactions::tw305::check(&mut checker, view);
            locks::tw401::check(&mut checker, view);
            locks::tw402::check(&mut checker, view);
            retries::tw501::check(&mut checker, view);
            retries::tw502::check(&mut checker, view);
            let complete = project.summary(view.id).is_none_or(|s| s.complete);
            for diagnostic in &mut checker.diagnostics {
                diagnostic
                    .task
                    .get_or_insert_with(|| view.qualname().to_string());
                diagnostic.complete = Some(complete);
            }
            checker.diagnostics
        })
        .collect();
    checker.diagnostics.extend(per_task.into_iter().flatten());
    transactions::tw301::check_project(checker);
    transactions::tw302::check_project(checker);
    locks::tw403::check_project(checker, &views);
    config::tw601::check_project(checker, &views);
    config::tw602::check_project(checker, &views);
}

/// A trace as a path for messages: `charge_order → create_order_intent → stripe.PaymentIntent.create`.
pub fn trace_text(trace: &[TraceHop]) -> String {
    trace
        .iter()
        .map(|hop| hop.label.as_str())
        .collect::<Vec<_>>()
        .join(" → ")
}

/// A sentence about an effect: "`stripe.Refund.create` is ..." for a direct call,
/// "`charge_order` reaches `stripe.Refund.create`, which is ..." for a reached one (with the
/// whole path when it has more than one step between).
pub fn effect_clause(lang: Lang, trace: &[TraceHop], predicate: &str) -> String {
    let Some(last) = trace.last() else {
        return tr!(lang, "clause.none", predicate = predicate);
    };
    match trace.len() {
        1 => tr!(
            lang,
            "clause.direct",
            callee = last.label,
            predicate = predicate
        ),
        2 => tr!(
            lang,
            "clause.reached",
            first = trace[0].label,
            last = last.label,
            predicate = predicate
        ),
        _ => tr!(
            lang,
            "clause.reached_path",
            first = trace[0].label,
            last = last.label,
            path = trace_text(trace),
            predicate = predicate
        ),
    }
}
