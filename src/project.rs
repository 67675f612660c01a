//! The whole project: modules by name, canonical names across modules, tasks of every framework,
//! how each call is classified (effect, project call, enqueue) and, per function, a summary of
//! what it reaches, computed once over the call graph.

use std::borrow::Cow;
use std::sync::Arc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use rayon::prelude::*;
use ruff_text_size::TextRange;

use crate::catalog::{
    Catalog, EffectKind, Framework, FrameworkSpec, HEADERS_KEYWORD, KeySpec, MethodSpec,
    OPTIONS_KEYWORD, Sink, TimeLimitSpec,
};
use crate::discover::Scopes;
use crate::facts::{
    BlockKind, CallSite, Class, Decorator, Ends, EventKind, Exit, Function, FunctionBody,
    GuardTest, Lit, ModuleFacts, ParamDefault, ParamKind, Taint, Value,
};
use crate::models::Models;
use crate::parse::SourceFile;
use crate::path::{Call, QPath, Seg, Sym, dotted_join};
use crate::settings::CelerySettings;

/// Shards of the canonical memo.
const MEMO_SHARDS: usize = 64;
/// How deep [`Project::mro`] follows bases: deeper only in code whose bases lead back to a
/// class.
const MAX_MRO_DEPTH: u32 = 16;

/// How many calls deep [`Project::returned_path`] follows functions returning each other's calls.
const MAX_RETURN_DEPTH: u32 = 8;
/// How many [`Project::canonical`] expansions may nest on a thread: far beyond real code's.
const MAX_CANONICAL_NESTING: usize = 256;
/// The longest call path [`Project::returned_path`] follows: far beyond a chain anyone writes.
const MAX_PATH_LEN: usize = 64;

thread_local! {
    /// Set when [`Project::returned_path`] stopped at its recursion bound during the current
    /// [`Project::canonical`] computation.
    static CUT_SHORT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Hashes of the paths [`Project::canonical`] is expanding on this thread, outermost first.
    static CANONICALIZING: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The classes whose method resolution order is being worked out on this thread.
    static LINEARIZING: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
    /// The calls [`Project::returned_path`] is following on this thread, outermost first: their
    /// number is its depth.
    static RETURNING: std::cell::RefCell<Vec<QPath>> = const { std::cell::RefCell::new(Vec::new()) };
    /// Canonical paths cut short by the bounds of [`Project::returned_path`], by path and the
    /// depth they were computed at, for the current outermost [`Project::canonical`] only (a
    /// cut result also depends on the calls under way): remembering them keeps code whose
    /// methods return chains of their own calls (`return self.m().m()`) from costing
    /// exponential time.
    static CUT_MEMO: std::cell::RefCell<HashMap<(QPath, u32), QPath>> =
        std::cell::RefCell::new(HashMap::default());
}

/// How many [`Project::returned_path`] calls are under way on this thread.
fn return_depth() -> u32 {
    RETURNING.with_borrow(|calls| u32::try_from(calls.len()).unwrap_or(u32::MAX))
}

thread_local! {
    /// While summaries of leaf functions are probed in parallel: `Some(false)` until the
    /// function being summarised asks for another one's summary, then `Some(true)`.
    static LEAF_PROBE: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// At most this many effects are kept per function summary: enough to report, bounded for
/// helpers that reach many.
const MAX_REACHED: usize = 16;

/// What [`Project::effect`] returns for a hop that is not an effect (never, by construction).
static NO_EFFECT: Effect = Effect {
    kind: EffectKind::Http,
    sink: None,
    random_default: false,
    key: KeyStatus::Unknown,
    key_func: None,
    in_items: false,
};

/// Stands for the transaction of a function decorated `@transaction.atomic`.
pub const FUNCTION_TRANSACTION: u32 = u32::MAX;

/// A function of the project: file index and function index in that file's facts, and for a
/// method a subclass inherits, the subclass it runs for ([`Project::find_method`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId {
    pub file: u32,
    pub func: u32,
    /// 0 for the function as written; otherwise 1 + the project-wide number of the class whose
    /// instance `self` is: `Base.notify` run for `EmailNotifier`, where `self.deliver()` is
    /// the subclass's.
    pub ctx: u32,
}

impl FuncId {
    pub fn new(file: u32, func: usize) -> FuncId {
        FuncId {
            file,
            func: u32::try_from(func).unwrap_or(u32::MAX),
            ctx: 0,
        }
    }
}

#[derive(Debug)]
pub struct Task {
    pub id: FuncId,
    pub framework: Framework,
    pub options: TaskOptions,
    /// Where the task is declared (decorator or class), for reports about its options.
    pub declared_at: TextRange,
    /// The Celery app whose decorator declares it (`@realtime_app.task`), by main name
    /// ([`crate::settings::app_key`]); `None` for `@shared_task` and other frameworks.
    pub app: Option<crate::path::Call>,
}

/// A task's options: inherited from its `base=` class or its classes' bases first, then its
/// own (decorator keywords, class attributes); the last one set wins.
#[derive(Debug, Default)]
pub struct TaskOptions {
    pub bind: bool,
    options: Vec<TaskOption>,
}

#[derive(Debug)]
struct TaskOption {
    name: String,
    value: Value,
    /// The file the option is set in: a base class's may be another module.
    file: u32,
}

/// The Celery task option naming the task's class.
const BASE: &str = "base";

impl TaskOptions {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.get_in(name).map(|(_, value)| value)
    }

    /// The option and the file that sets it.
    pub fn get_in(&self, name: &str) -> Option<(u32, &Value)> {
        self.options
            .iter()
            .rev()
            .find(|option| option.name == name)
            .map(|option| (option.file, &option.value))
    }

    fn push(&mut self, name: &str, value: &Value, file: u32) {
        self.options.push(TaskOption {
            name: name.to_string(),
            value: value.clone(),
            file,
        });
    }
}

/// How the idempotency key of an effect call is passed.
#[derive(Clone, Debug)]
pub enum KeyStatus {
    /// The sink takes no key.
    Unsupported,
    /// The sink takes a key and the call passes none (or `None`).
    Missing,
    /// The key is passed; the value it was given.
    Present(Box<Value>),
    /// The call passes `**kwargs` or a headers value twice cannot see: say nothing.
    Unknown,
    /// The call spreads a parameter of the function making it (`create(**kwargs)` in
    /// `def charge(**kwargs)`): the key is what that function's callers put there, read
    /// where a task reaches the effect ([`crate::rules::EffectAt::key`]); unknown until then.
    Spread(Sym),
    /// The call gives a parameter of the function making it as the `headers=` or `options=`
    /// that would carry the key (`def post(path, headers=None)`, then `requests.post(url,
    /// headers=headers)`): the key is in what that function's callers give for it, read where
    /// a task reaches the effect; unknown until then.
    Holder(Box<Value>, Holder),
}

/// Which of a sink's arguments holds its key in a dict ([`KeyStatus::Holder`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    Headers,
    Options,
}

/// What a call gives for the key of an effect a wrapper spreads its `**kwargs` into
/// ([`Project::key_in_spread`]).
pub enum SpreadKey<'c> {
    Given(&'c Value),
    /// No key, or `None`.
    Missing,
    /// The call spreads a `**kwargs` of its own.
    Spread(Sym),
    /// It gives a parameter of its own function as the headers or options that hold the key
    /// (`headers=headers`).
    Holder(&'c Value, Holder),
    /// It may pass one the facts do not show.
    Unknown,
}

#[derive(Clone, Debug)]
pub struct Effect {
    pub kind: EffectKind,
    /// The catalog sink (index into `Catalog::sinks`); `None` for a heuristic effect.
    pub sink: Option<u32>,
    pub random_default: bool,
    pub key: KeyStatus,
    /// The function the key is written in when it is not the one making the call: a helper
    /// that returns the headers (`headers=partner_headers(token)`).
    pub key_func: Option<FuncId>,
    /// The call passes the items its key belongs in (`Entries=[...]` of an SQS batch), so the
    /// key is a field of each item rather than the call's keyword: for the help line.
    pub in_items: bool,
}

impl Effect {
    pub fn heuristic(&self) -> bool {
        self.sink.is_none()
    }
}

/// A call on the way from a task to an effect: the function and the call's event index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hop {
    pub func: FuncId,
    pub event: u32,
}

#[derive(Clone, Debug)]
pub enum CallClass {
    Effect(Effect),
    /// A call of a project function.
    Project(FuncId),
    /// Enqueues a task (`.delay`, `.apply_async`, `.send`, `enqueue`...).
    Enqueue {
        deferred_to_commit: bool,
    },
    Other,
}

/// An effect a function reaches, directly or through project calls. The trace is rebuilt from
/// the summaries when a diagnostic needs it ([`Project::trace`]).
#[derive(Clone, Copy, Debug)]
pub struct Reached {
    /// The effect call itself.
    pub origin: Hop,
    /// The call in this function that leads to it (the origin itself for a direct effect).
    pub next: Hop,
    /// Whether a done-guard in a helper on the way precedes it.
    pub guarded: bool,
    /// Whether, inside the helpers on the way, another effect may follow it: a failure there
    /// makes a retry repeat it (TW502). False for a direct effect.
    pub followed_inside: bool,
    /// Whether it sits in a loop inside the helpers on the way.
    pub looped_inside: bool,
}

/// A hop as diagnostics show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceHop {
    pub label: String,
    pub file: u32,
    pub range: TextRange,
}

/// What is computed for a function only when something asks for it.
#[derive(Default)]
struct LazyFunction {
    classes: std::sync::OnceLock<Box<[Option<CallClass>]>>,
    /// The summary of a function outside [`Project::summarize`]'s set.
    summary: std::sync::OnceLock<Box<Summary>>,
}

/// A source that flows into a function's return value, and where in it: `element` 0 for the
/// whole value, `k` for the `k`-th item of a returned tuple or list display (`return key,
/// timezone.now()`: the clock is in the second item only).
#[derive(Clone, Debug)]
pub struct Returned<T> {
    pub element: u8,
    pub source: T,
}

impl<T> Returned<T> {
    /// Whether the source is in the part of the value a caller reads as `element`
    /// ([`crate::facts::Taint::Call`]): the whole value holds every item's sources, an item
    /// its own and those of the whole.
    pub fn in_element(&self, element: u8) -> bool {
        element == 0 || self.element == 0 || self.element == element
    }
}

#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub effects: Vec<Reached>,
    /// Nondeterministic sources that flow into the return value: (file, range, call), with
    /// the item they are in ([`Returned`]).
    pub returns_nondet: Vec<Returned<(u32, TextRange, String)>>,
    /// Delivery metadata that flows into the return value: (file, range, catalog index), with
    /// the item they are in ([`Returned`]).
    pub returns_meta: Vec<Returned<(u32, TextRange, u32)>>,
    /// Whether the function returns the result of a done-check (usable as a guard).
    pub returns_done_check: bool,
    /// The field that done-check tests, when every returned one tests the same
    /// (`return user.is_active`): `if not helper(...): return` in a caller is a done-guard
    /// only if the caller then writes that field, as for the test written out there
    /// ([`Summary::guards`]).
    pub done_field: Option<Sym>,
    /// Whether it answers whether the work is still to do: `return False` (or `None`) when a
    /// done-guard leaves, `return True` otherwise (`claim_receipt`): `if not helper(...):
    /// return` in a caller is a done-guard.
    pub returns_false_when_done: bool,
    /// For a claim helper ([`Summary::returns_false_when_done`]) whose claim is a marker it
    /// writes (`try: with atomic(): Processed.objects.create(...)` / `except IntegrityError:
    /// return False`, `get_or_create` and `if not created`, `cache.add`): the marker call, and
    /// whether it is a database row (else a cache key). Committed when the helper returns,
    /// before whatever work its caller does after asking it.
    pub claim_marker: Option<(TextRange, bool)>,
    /// Whether the function raises when the work is done (`if order.sent: raise AlreadySent`)
    /// on its way through: called as a statement, it is a guard.
    pub raises_when_done: bool,
    /// Whether it writes state (ORM writes).
    pub writes_state: bool,
    /// Whether everything it calls could be followed.
    pub complete: bool,
    /// The first enqueue it reaches outside a commit callback: the enqueue call itself.
    pub enqueue: Option<Hop>,
    /// The event of this function that leads to [`Summary::enqueue`].
    pub enqueue_next: u32,
}

/// The database a transaction is opened on ([`Project::committing_transaction`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Database {
    Default,
    Named(Sym),
    /// Computed at run time (`using=self.db`), or a transaction the catalog names none for.
    Unknown,
}

impl Database {
    /// Whether two transactions may be on the same database.
    fn same_as(self, other: Database) -> bool {
        self == other || self == Database::Unknown || other == Database::Unknown
    }
}

impl Summary {
    /// Whether `if helper(...): return` (`negated`: `if not helper(...): return`) in `caller`
    /// is a done-guard, for the helper this summarises. Negated, a claim helper's answer is
    /// one; so is a done-check's, unless it tests a field `caller` never writes: `if not
    /// self.enabled_for(user): return` over `return user.is_active` checks who may be
    /// notified, not what was done, as `if not user.is_active: return` written out does.
    fn guards(&self, negated: bool, caller: &Function) -> bool {
        if !negated {
            return self.returns_done_check;
        }
        self.returns_false_when_done
            || self.returns_done_check
                && self.done_field.is_none_or(|field| {
                    caller
                        .events()
                        .iter()
                        .any(|event| event.kind.writes_field(field))
                })
    }
}

pub struct Project<'a> {
    pub files: &'a [SourceFile],
    pub catalog: &'a Catalog,
    pub heuristics: bool,
    modules: HashMap<&'a str, u32>,
    functions: FunctionTable<'a>,
    classes: ClassTable<'a>,
    pub tasks: Vec<Task>,
    task_index: HashMap<FuncId, usize>,
    /// Per file, per function: what is computed only when something asks for it.
    lazy: Vec<Box<[LazyFunction]>>,
    /// The same for inherited methods run for a subclass ([`FuncId::ctx`]), made as calls
    /// resolve to them: slots by id.
    variant_lazy: boxcar::Vec<LazyFunction>,
    variant_slots: std::sync::RwLock<HashMap<FuncId, usize>>,
    /// Per file, the number of classes in the files before it ([`Project::class_number`]).
    class_offsets: Vec<u32>,
    /// Summaries of the functions rules start from (tasks, functions with a transaction) and of
    /// everything they reach, computed once in a fixed order ([`Project::summarize`]).
    summaries: HashMap<FuncId, Summary>,
    /// The functions that open a transaction, in project order.
    transaction_functions: Vec<FuncId>,
    /// The names under which a call may reach an enqueue function of the catalog or Celery's
    /// app class ([`Project::may_name_enqueue_or_app`]); `None` when that cannot be told.
    enqueue_or_app_names: Option<HashSet<Sym>>,
    pub models: Models,
    /// Per project folder ([`crate::discover::project_scopes`]; 0 for files in none), the
    /// Celery settings it sets.
    settings: Vec<CelerySettings>,
    /// Per project folder, the one whose settings its tasks run with: its own, or, when it
    /// sets none, those of the project whose modules it imports most.
    settings_used: Vec<u32>,
    /// Per file, its project folder, and which folder holds each ([`Scopes`]).
    scopes: &'a Scopes,
    /// The files of modules named like Django settings (a part of the name contains
    /// `settings`): where `django.conf.settings.NAME` is looked up ([`Project::django_setting`]).
    django_settings_files: Vec<u32>,
    /// Module variables whose type only run time knows, typed by the API called on them
    /// (`app.config_from_object(...)` makes `app` a Celery app).
    inferred_types: HashMap<String, QPath>,
    /// First components of the project's module names (`shop` of `shop.orders.tasks`)
    /// ([`Project::is_root`]).
    roots: HashSet<Sym>,
    /// First components of every project function's and class's qualified name: a path that
    /// starts otherwise names none of them.
    defined_heads: HashSet<Sym>,
    no_reach: bool,
    /// Memo of [`Project::mro`], cleared with the memo of [`Project::canonical`] (which bases
    /// are read through).
    mro_memo: std::sync::RwLock<HashMap<u32, Arc<[u32]>>>,
    /// Memo of [`Project::method_for`]: whether each inherited method asked about needs a
    /// variant for the subclass (the key is the variant).
    variant_memo: std::sync::RwLock<HashMap<FuncId, bool>>,
    /// Memo of [`Project::implementation`]: by interface class number and method name, the
    /// implementation and the number of the class it is in.
    implementation_memo: std::sync::RwLock<ImplementationMemo>,
    /// Memo of [`Project::canonical`]: real code names the same few thousand paths over and
    /// over. Cleared whenever what `canonical` reads changes (inferred types, models).
    canonical_memo: Vec<std::sync::RwLock<HashMap<QPath, QPath>>>,
    /// Per function asked about, the calls of helpers that raise when the work is done,
    /// outside any `try` ([`Project::raising_guard_before`]). A map rather than a slot per
    /// function: only tasks and the helpers they reach are asked.
    raising_calls: std::sync::Mutex<HashMap<FuncId, Box<[u32]>>>,
    /// Memo of [`Project::project_transaction_decorator`], by the decorator function.
    decorator_transactions: std::sync::RwLock<HashMap<FuncId, Option<QPath>>>,
}

/// Django's settings object, whose attributes are the settings modules' upper-case names.
const DJANGO_SETTINGS_OBJECT: &str = "django.conf.settings";

impl<'a> Project<'a> {
    pub fn new(
        files: &'a [SourceFile],
        catalog: &'a Catalog,
        heuristics: bool,
        path_names: &'a [Option<String>],
        scopes: &'a Scopes,
    ) -> Project<'a> {
        let mut timer = crate::check::Timer::new();
        let mut modules = HashMap::default();
        // Path-derived names first, so that package-derived names win on conflicts.
        for (i, name) in path_names.iter().enumerate() {
            if let Some(name) = name
                && files[i].facts.is_some()
            {
                modules
                    .entry(name.as_str())
                    .or_insert(u32::try_from(i).unwrap_or(u32::MAX));
            }
        }
        for (i, file) in files.iter().enumerate() {
            if let Some(facts) = &file.facts {
                modules.insert(facts.module.as_str(), u32::try_from(i).unwrap_or(u32::MAX));
            }
        }
        namespace_aliases(files, path_names, &mut modules);
        // The name tables are independent of each other: built side by side.
        let ((functions, classes), (defined_heads, enqueue_or_app_names)) = rayon::join(
            || name_tables(files),
            || {
                let enqueue_or_app_names = catalog.enqueue_function_names().map(|names| {
                    names_reaching(
                        files,
                        names.chain(std::iter::once(crate::settings::CELERY_APP_CLASS)),
                    )
                    .into_iter()
                    .map(Sym::new)
                    .collect()
                });
                (defined_heads(files), enqueue_or_app_names)
            },
        );
        let roots = modules
            .keys()
            .filter_map(|name| name.split('.').next())
            .map(Sym::new)
            .collect();
        let mut project = Project {
            files,
            catalog,
            heuristics,
            modules,
            functions,
            classes,
            tasks: Vec::new(),
            task_index: HashMap::default(),
            lazy: files
                .iter()
                .map(|file| {
                    let count = file.facts.as_ref().map_or(0, |f| f.functions.len());
                    (0..count).map(|_| LazyFunction::default()).collect()
                })
                .collect(),
            variant_lazy: boxcar::Vec::new(),
            variant_slots: std::sync::RwLock::default(),
            class_offsets: files
                .iter()
                .scan(0u32, |before, file| {
                    let start = *before;
                    let count = file.facts.as_ref().map_or(0, |f| f.classes.len());
                    *before = before.saturating_add(u32::try_from(count).unwrap_or(u32::MAX));
                    Some(start)
                })
                .collect(),
            summaries: HashMap::default(),
            transaction_functions: Vec::new(),
            enqueue_or_app_names,
            models: Models::default(),
            settings: Vec::new(),
            settings_used: Vec::new(),
            scopes,
            django_settings_files: files
                .iter()
                .enumerate()
                .filter(|(_, file)| {
                    file.facts.as_ref().is_some_and(|facts| {
                        crate::settings::named_like_django_settings(&facts.module)
                    })
                })
                .filter_map(|(i, _)| u32::try_from(i).ok())
                .collect(),
            inferred_types: HashMap::default(),
            roots,
            defined_heads,
            no_reach: std::env::var_os("TWICE_NO_REACH").is_some(),
            mro_memo: std::sync::RwLock::default(),
            variant_memo: std::sync::RwLock::default(),
            implementation_memo: std::sync::RwLock::default(),
            canonical_memo: (0..MEMO_SHARDS)
                .map(|_| std::sync::RwLock::default())
                .collect(),
            raising_calls: std::sync::Mutex::default(),
            decorator_transactions: std::sync::RwLock::default(),
        };
        timer.lap("  names");
        project.inferred_types = project.infer_types();
        project.forget_canonical();
        // Before the tasks: an app's `task_cls` is the base of its tasks.
        (project.settings, project.settings_used) = CelerySettings::build_scoped(&project);
        timer.lap("  settings");
        project.find_tasks();
        timer.lap("  tasks");
        project.models = Models::build(&project);
        project.forget_canonical();
        timer.lap("  models");
        project.summarize();
        timer.lap("  summaries");
        project
    }

    /// The project folder of `file` ([`crate::discover::project_scopes`]).
    pub fn scope_of(&self, file: u32) -> u32 {
        self.scopes.of_file.get(file as usize).copied().unwrap_or(0)
    }

    /// The project folder that holds the folder of `scope`, if any.
    pub fn scope_parent(&self, scope: u32) -> Option<u32> {
        self.scopes.parent.get(scope as usize).copied().flatten()
    }

    /// The number of project folders (at least 1): one per folder found, and 0.
    pub fn scope_count(&self) -> u32 {
        u32::try_from(self.scopes.parent.len().max(1)).unwrap_or(u32::MAX)
    }

    /// The project folder whose settings a project folder's tasks run with.
    fn used_scope(&self, scope: u32) -> u32 {
        self.settings_used
            .get(scope as usize)
            .copied()
            .unwrap_or(scope)
    }

    /// The project folder whose settings the tasks of `file` run with.
    pub fn settings_scope_of(&self, file: u32) -> u32 {
        self.used_scope(self.scope_of(file))
    }

    /// The Celery settings the tasks of `file` run with.
    pub fn settings_of(&self, file: u32) -> &CelerySettings {
        self.settings_of_scope(self.scope_of(file))
    }

    /// The Celery settings a task runs with: its folder's, or its app's when the folder makes
    /// several apps.
    pub fn settings_of_task(&self, task: &Task) -> &CelerySettings {
        self.settings_of(task.id.file).for_app(task.app)
    }

    /// The Celery settings the tasks of a project folder run with.
    pub fn settings_of_scope(&self, scope: u32) -> &CelerySettings {
        static NONE: std::sync::LazyLock<CelerySettings> =
            std::sync::LazyLock::new(CelerySettings::default);
        let used = self.used_scope(scope);
        self.settings.get(used as usize).unwrap_or(&NONE)
    }

    /// The project folders that set Celery settings of their own, with them.
    pub fn own_settings(&self) -> impl Iterator<Item = (u32, &CelerySettings)> {
        self.settings
            .iter()
            .enumerate()
            .filter(|(scope, _)| self.settings_used.get(*scope) == Some(&(*scope as u32)))
            .map(|(scope, settings)| (scope as u32, settings))
    }

    pub fn facts(&self, file: u32) -> Option<&'a ModuleFacts> {
        self.files.get(file as usize)?.facts.as_ref()
    }

    pub fn function(&self, id: FuncId) -> Option<&'a Function> {
        self.facts(id.file)?.functions.get(id.func as usize)
    }

    pub fn task(&self, id: FuncId) -> Option<&Task> {
        self.task_index.get(&id).map(|&i| &self.tasks[i])
    }

    /// What `id` reaches. Summaries of the functions rules start from are computed up front
    /// ([`Project::summarize`]); any other is computed on first use from those alone, so the
    /// result does not depend on which rule asked first.
    pub fn summary(&self, id: FuncId) -> Option<&Summary> {
        if let Some(summary) = self.summaries.get(&id) {
            return Some(summary);
        }
        let lazy = self.lazy_of(id)?;
        Some(lazy.summary.get_or_init(|| {
            let mut done = HashMap::default();
            self.summary_of(id, &mut done, &mut HashSet::default());
            Box::new(done.remove(&id).unwrap_or_default())
        }))
    }

    fn lazy_of(&self, id: FuncId) -> Option<&LazyFunction> {
        if id.ctx == 0 {
            return self.lazy.get(id.file as usize)?.get(id.func as usize);
        }
        self.function(id)?;
        let slots = self
            .variant_slots
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(&slot) = slots.get(&id) {
            return self.variant_lazy.get(slot);
        }
        drop(slots);
        let mut slots = self
            .variant_slots
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let slot = *slots
            .entry(id)
            .or_insert_with(|| self.variant_lazy.push(LazyFunction::default()));
        self.variant_lazy.get(slot)
    }

    pub fn call_class(&self, id: FuncId, event: usize) -> Option<&CallClass> {
        self.call_classes(id)?.get(event)?.as_ref()
    }

    /// How each call of a function is classified, by event index (classified on first use:
    /// most functions of a large project are never asked about).
    fn call_classes(&self, id: FuncId) -> Option<&[Option<CallClass>]> {
        let lazy = self.lazy_of(id)?;
        let function = self.function(id)?;
        Some(lazy.classes.get_or_init(|| {
            function
                .events()
                .iter()
                .map(|event| match &event.kind {
                    EventKind::Call(call) => Some(self.classify(call, id)),
                    _ => None,
                })
                .collect()
        }))
    }

    /// The class whose instance `self` is in a method: the one it is written in, or for an
    /// inherited method run for a subclass, that subclass.
    pub fn class_of(&self, id: FuncId) -> Option<&'a Class> {
        if id.ctx != 0 {
            return self.class_by_number(id.ctx - 1);
        }
        self.written_class_of(id)
    }

    /// The class a method is written in.
    fn written_class_of(&self, id: FuncId) -> Option<&'a Class> {
        let function = self.function(id)?;
        self.facts(id.file)?.classes.get(function.class()?)
    }

    pub fn module_of(&self, name: &str) -> Option<u32> {
        self.modules.get(name).copied()
    }

    /// The project file an import's target is in: the module itself, or the module of a name
    /// it holds (`shop.celery.app`), or of a name in that (`shop.models.Order.objects`).
    pub fn module_file_of(&self, target: &str) -> Option<u32> {
        let mut name = target;
        for _ in 0..3 {
            if let Some(file) = self.module_of(name) {
                return Some(file);
            }
            name = name.rsplit_once('.')?.0;
        }
        None
    }

    /// The source text of a range without white space, for messages (at most 80 characters).
    pub fn source_text(&self, file: u32, range: TextRange) -> String {
        let text = self
            .files
            .get(file as usize)
            .and_then(|f| {
                f.text()
                    .get(range.start().to_usize()..range.end().to_usize())
            })
            .unwrap_or_default();
        crate::facts::display_source(text)
    }

    /// The call at an event index of a function.
    pub fn call_at(&self, id: FuncId, event: u32) -> Option<&'a CallSite> {
        match &self.function(id)?.events().get(event as usize)?.kind {
            EventKind::Call(call) => Some(call),
            _ => None,
        }
    }

    /// The key a call gives a wrapper that spreads its `**kwargs` into `effect`'s sink
    /// ([`KeyStatus::Spread`]): the keyword the sink takes its key by, or a key-like keyword
    /// for a heuristic effect. A key inside `options=` or `headers=` is not followed.
    pub fn key_in_spread<'c>(&self, effect: &Effect, call: &'c CallSite) -> SpreadKey<'c> {
        let spec = self.sink_key(effect);
        let is_key = |keyword: &str| match spec {
            Some(spec) => spec.keyword.as_deref() == Some(keyword),
            None => self.catalog.heuristics.is_key_keyword(keyword),
        };
        if let Some((_, value)) = call.keywords().iter().find(|(k, _)| is_key(k)) {
            return given_key(value);
        }
        // The `headers=` or `options=` the caller gives, which the wrapper spreads into the
        // sink: the key in them, or nothing known of them.
        if let Some(spec) = spec {
            let headers = call
                .keyword(HEADERS_KEYWORD)
                .filter(|h| !spec.header.is_empty() && !h.is_none());
            let entries = [
                headers.map(|headers| (header_entry(spec, headers), Holder::Headers)),
                // By keyword only: the caller's positional arguments are the wrapper's.
                options_entry(spec, call, false).map(|entry| (entry, Holder::Options)),
            ];
            for (entry, holder) in entries.into_iter().flatten() {
                if let Some(key) = entry.given(holder) {
                    return key;
                }
            }
        }
        match call.spreads {
            Some(param) if call.star_kwargs => SpreadKey::Spread(param),
            None if call.star_kwargs => SpreadKey::Unknown,
            _ => SpreadKey::Missing,
        }
    }

    /// The key in the headers or options a caller gives for a parameter the effect's call
    /// passes on as them ([`KeyStatus::Holder`]): `Missing` for `None`, or a dict that holds
    /// no key.
    pub fn key_in_holder<'c>(
        &self,
        effect: &Effect,
        value: &'c Value,
        holder: Holder,
    ) -> SpreadKey<'c> {
        if value.is_none() {
            return SpreadKey::Missing;
        }
        let Some(spec) = self.sink_key(effect) else {
            return SpreadKey::Unknown;
        };
        let entry = match holder {
            Holder::Headers => header_entry(spec, value),
            Holder::Options => match options_value_entry(spec, value) {
                Some(entry) => entry,
                None => return SpreadKey::Unknown,
            },
        };
        entry.given(holder).unwrap_or(SpreadKey::Missing)
    }

    /// A value when it is known before run time: a literal, an expression of literals, or a
    /// module constant (also one imported from another module of the project).
    pub fn constant(&self, value: &Value) -> Option<Value> {
        self.constant_at(value, 0)
    }

    /// A task's boolean option: `None` when the task leaves it to the global setting (not
    /// given, or given as `None`, which Celery reads the same way), `Some(None)` when only run
    /// time knows it.
    pub fn option_flag(&self, options: &TaskOptions, name: &str) -> Option<Option<bool>> {
        let value = self.constant(options.get(name)?);
        if value
            .as_ref()
            .is_some_and(|value| matches!(value.lit, Lit::None))
        {
            return None;
        }
        Some(value.and_then(|value| value.as_bool()))
    }

    /// The module variable of a project module that a value names (`settings.TIMEOUT`, an
    /// imported `CELERY_OPTIONS`), with that module's file.
    pub fn module_var(&self, value: &Value) -> Option<(&'a Value, u32)> {
        let path = value.path.as_ref().filter(|p| !p.is_call())?;
        let canonical = self.canonical(path);
        let (name, module) = canonical.segs().split_last()?;
        let module = QPath(module.to_vec()).dotted();
        if module == DJANGO_SETTINGS_OBJECT {
            return self.django_setting(name.name.as_str());
        }
        if let Some(file) = self.module_of(&module)
            && let Some(var) = self
                .facts(file)
                .and_then(|f| f.vars.get(name.name.as_str()))
        {
            return Some((var, file));
        }
        self.module_var_by_import(path)
    }

    /// [`Project::module_var`] for a variable whose value has a path of its own: the canonical
    /// path runs on into it (`TTL = timedelta(seconds=45)` imported from `core.ttl` becomes
    /// `datetime.timedelta()`). Resolves the module and looks the name up there, following
    /// re-exports (`from .ttl import TTL` in a package's `__init__.py`).
    fn module_var_by_import(&self, path: &QPath) -> Option<(&'a Value, u32)> {
        let mut path = Cow::Borrowed(path);
        for _ in 0..8 {
            let (name, module) = path.segs().split_last()?;
            if module.is_empty() || name.call != Call::No {
                return None;
            }
            let module = self.canonical(&QPath(module.to_vec())).dotted();
            let file = self.module_of(&module)?;
            let facts = self.facts(file)?;
            let name = name.name.as_str();
            if let Some(var) = facts.vars.get(name) {
                return Some((var, file));
            }
            path = Cow::Owned(QPath::from_dotted(facts.imports.get(name)?));
        }
        None
    }

    /// What `django.conf.settings.NAME` reads: `NAME` of the project's settings modules, when
    /// those that set it agree on its value (`base.py` and `prod.py` that give a lock TTL two
    /// values leave it unknown). Django's `settings` object has upper-case names only.
    fn django_setting(&self, name: &str) -> Option<(&'a Value, u32)> {
        if !name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        {
            return None;
        }
        let mut found: Option<(&'a Value, u32)> = None;
        for &file in &self.django_settings_files {
            let Some(value) = self.facts(file).and_then(|facts| facts.vars.get(name)) else {
                continue;
            };
            match found {
                None => found = Some((value, file)),
                Some((first, _)) if first.same_literal(value) => {}
                Some(_) => return None,
            }
        }
        found
    }

    fn constant_at(&self, value: &Value, depth: u32) -> Option<Value> {
        if depth > 8 {
            return None;
        }
        match &value.lit {
            Lit::Other => {
                let (constant, _) = self.module_var(value)?;
                match constant.lit {
                    Lit::Other => None,
                    Lit::Arith(_) => self.constant_at(constant, depth + 1),
                    _ => Some(constant.clone()),
                }
            }
            // `3 * HOUR`: both sides known, then the operation.
            Lit::Arith(arith) => {
                let left = self.constant_at(&arith.left, depth + 1)?;
                let right = self.constant_at(&arith.right, depth + 1)?;
                Some(Value {
                    lit: arith.op.apply(&left.lit, &right.lit)?,
                    ..Value::default()
                })
            }
            _ => Some(value.clone()),
        }
    }

    /// Every function of the project (module bodies included), with its id.
    pub fn all_functions(&self) -> impl Iterator<Item = (FuncId, &'a Function)> + '_ {
        self.files.iter().enumerate().flat_map(|(fi, file)| {
            let file_id = u32::try_from(fi).unwrap_or(u32::MAX);
            file.facts.iter().flat_map(move |facts| {
                facts
                    .functions
                    .iter()
                    .enumerate()
                    .map(move |(i, function)| (FuncId::new(file_id, i), function))
            })
        })
    }

    /// The functions that open a transaction (a `with` block or a decorator), in project order.
    pub fn functions_with_transactions(&self) -> impl Iterator<Item = (FuncId, &'a Function)> + '_ {
        self.transaction_functions
            .iter()
            .filter_map(|&id| Some((id, self.function(id)?)))
    }

    /// The facts of the module that defines `class`.
    pub fn facts_of_class(&self, class: &Class) -> Option<&'a ModuleFacts> {
        let &(file, _) = self.classes.get(class.qualname.as_str())?;
        self.facts(file)
    }

    /// The transaction blocks around `block` of a function, innermost first; a function
    /// decorated `@transaction.atomic` adds [`FUNCTION_TRANSACTION`] last.
    pub fn transactions_around(&self, id: FuncId, block: u32) -> Vec<u32> {
        let Some(function) = self.function(id) else {
            return Vec::new();
        };
        let mut found: Vec<u32> = function
            .ancestors(block)
            .filter(|b| {
                function
                    .blocks()
                    .get(*b as usize)
                    .is_some_and(|blk| self.opens_transaction(blk))
            })
            .collect();
        let decorated = self.transaction_decorated(function);
        if decorated {
            found.push(FUNCTION_TRANSACTION);
        }
        found
    }

    /// The outermost transaction that commits together with the innermost one around `block`:
    /// [`Project::transactions_around`] up to the first on another database. `atomic(using=
    /// "events")` nested in `atomic()` commits when its own block ends, not with the outer one.
    pub fn committing_transaction(&self, id: FuncId, block: u32) -> Option<u32> {
        let txs = self.transactions_around(id, block);
        let (&inner, outer) = txs.split_first()?;
        let database = self.transaction_database(id, inner);
        Some(
            outer
                .iter()
                .take_while(|&&tx| database.same_as(self.transaction_database(id, tx)))
                .last()
                .copied()
                .unwrap_or(inner),
        )
    }

    /// The database the transaction `tx` of `id` is opened on, as its `with` item names it.
    fn transaction_database(&self, id: FuncId, tx: u32) -> Database {
        let Some(keyword) = self.catalog.transactions.database_keyword else {
            return Database::Unknown;
        };
        let Some(function) = self.function(id) else {
            return Database::Unknown;
        };
        let Some(BlockKind::With { items }) = function.blocks().get(tx as usize).map(|b| &b.kind)
        else {
            return Database::Unknown;
        };
        let opener = items.iter().find_map(|item| {
            let path = item.path.as_ref().filter(|path| path.is_call())?;
            let receiver = path.0.len().checked_sub(2).map(|i| &*path.0[i].name);
            if !self
                .catalog
                .transactions
                .is_context(&self.canonical(path), receiver)
            {
                return None;
            }
            function
                .events()
                .iter()
                .find_map(|event| match &event.kind {
                    EventKind::Call(call) if call.range == item.range => Some(call),
                    _ => None,
                })
        });
        let Some(call) = opener else {
            return Database::Unknown;
        };
        match call.arg(0, keyword.as_str()).map(|value| &value.lit) {
            None | Some(Lit::None) => Database::Default,
            Some(Lit::Str(name)) if &**name == "default" => Database::Default,
            Some(Lit::Str(name)) => Database::Named(Sym::new(name)),
            Some(_) => Database::Unknown,
        }
    }

    pub fn class(&self, qualname: &str) -> Option<(u32, &'a Class)> {
        self.class_at(qualname)
            .map(|((file, _), class)| (file, class))
    }

    /// A project class by qualified name, with its file and its index there.
    pub fn class_at(&self, qualname: &str) -> Option<((u32, usize), &'a Class)> {
        let &(file, index) = self.classes.get(qualname)?;
        Some(((file, index), self.facts(file)?.classes.get(index)?))
    }

    // ------------------------------------------------------------------ names

    /// Expands module-level bindings of project modules: `shop.celery.app.task` becomes
    /// `celery.Celery().task` when `shop/celery.py` says `app = Celery(...)`, and re-exports
    /// are followed to where the name is defined.
    ///
    /// Most paths do not start like a project module and come back borrowed.
    pub fn canonical<'p>(&self, path: &'p QPath) -> Cow<'p, QPath> {
        // Only a path that starts like a project module can name something of the project.
        if path.0.first().is_none_or(|head| !self.is_root(head.name)) {
            return Cow::Borrowed(path);
        }
        // Shards keep threads that look up different paths off each other's lock.
        let hash = {
            use std::hash::BuildHasher;
            rustc_hash::FxBuildHasher.hash_one(path)
        };
        let shard = &self.canonical_memo[(hash as usize) % MEMO_SHARDS];
        let known = shard
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(path)
            .cloned();
        if let Some(known) = known {
            return Cow::Owned(known);
        }
        // A result cut short by the recursion bound of `returned_path` depends on the depth it
        // was computed at: it is not remembered, so that the outcome never depends on the order
        // in which threads happen to ask.
        let depth = return_depth();
        let cut_before = CUT_MEMO.with_borrow(|memo| {
            (!memo.is_empty())
                .then(|| memo.get(&(path.clone(), depth)).cloned())
                .flatten()
        });
        if let Some(result) = cut_before {
            CUT_SHORT.set(true);
            return Cow::Owned(result);
        }
        // A path whose expansion comes back to itself (bases and members of broken code that
        // name each other) stays as it is, and so does one nested beyond what real code needs.
        let cycle = CANONICALIZING
            .with_borrow(|paths| paths.len() >= MAX_CANONICAL_NESTING || paths.contains(&hash));
        if cycle {
            CUT_SHORT.set(true);
            return Cow::Borrowed(path);
        }
        let outer_cut = CUT_SHORT.replace(false);
        CANONICALIZING.with_borrow_mut(|paths| paths.push(hash));
        let result = self.canonical_uncached(path);
        let outermost = CANONICALIZING.with_borrow_mut(|paths| {
            paths.pop();
            paths.is_empty()
        });
        let cut = CUT_SHORT.replace(outer_cut || CUT_SHORT.get());
        if !cut {
            shard
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(path.clone(), result.clone());
        } else if !outermost {
            CUT_MEMO.with_borrow_mut(|memo| memo.insert((path.clone(), depth), result.clone()));
        }
        if outermost {
            CUT_MEMO.with_borrow_mut(|memo| {
                if !memo.is_empty() {
                    memo.clear();
                }
            });
        }
        Cow::Owned(result)
    }

    /// Whether a path segment's (interned) name is the first component of a project module.
    fn is_root(&self, name: Sym) -> bool {
        self.roots.contains(&name)
    }

    /// Whether [`Project::canonical`] can turn a path that starts with `name` into another:
    /// only when a project module, or a definition of a module without a name, is called so.
    pub fn may_resolve_head(&self, name: Sym) -> bool {
        self.is_root(name) || self.defined_heads.contains(&name)
    }

    /// Whether a call's path may canonically name one of the catalog's enqueue functions or
    /// Celery's app class: a cheap test before [`Project::canonical`] on every call.
    pub fn may_name_enqueue_or_app(&self, path: &QPath) -> bool {
        match path.0.last() {
            Some(last) => self.may_name_enqueue_or_app_by(last.name),
            None => self.enqueue_or_app_names.is_none(),
        }
    }

    /// The same test on the last name of a path.
    pub fn may_name_enqueue_or_app_by(&self, last: Sym) -> bool {
        match &self.enqueue_or_app_names {
            Some(names) => names.contains(&last),
            None => true,
        }
    }

    /// Forgets what [`Project::canonical`] remembered, after what it reads has changed.
    fn forget_canonical(&mut self) {
        for shard in &mut self.canonical_memo {
            shard
                .get_mut()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clear();
        }
        self.mro_memo
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
        self.variant_memo
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
        self.implementation_memo
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clear();
    }

    fn canonical_uncached(&self, path: &QPath) -> QPath {
        let mut path = path.clone();
        for _ in 0..8 {
            let Some((file, at)) = self.split_module(&path) else {
                break;
            };
            let Some(facts) = self.facts(file) else { break };
            let name = path.0[at].name.as_str();
            let rest = &path.0[at + 1..];
            let called = path.0[at].call;
            let replacement = if let Some(target) = facts.imports.get(name) {
                let mut target = QPath::from_dotted(target);
                if let Some(last) = target.0.last_mut() {
                    last.call = called;
                }
                Some(target)
            } else if let Some(app) = self.inferred_types.get(&dotted_join(&facts.module, name)) {
                let mut target = app.clone();
                if called != Call::No {
                    target.0.push(Seg {
                        name: crate::path::Sym::new("__call__"),
                        call: called,
                    });
                }
                Some(target)
            } else if let Some(var) = facts.vars.get(name)
                && let Some(var_path) = &var.path
            {
                let mut target = var_path.clone();
                match target.0.last_mut() {
                    // `notify_customer = send_receipt`, `deliver = mail.send_mail`: an alias,
                    // called as what it names.
                    Some(last) if last.call == Call::No => last.call = called,
                    // `client = Client(...)` called: the instance's `__call__`.
                    _ if called != Call::No => target.0.push(Seg {
                        name: crate::path::Sym::new("__call__"),
                        call: called,
                    }),
                    _ => {}
                }
                Some(target)
            } else if !facts.vars.contains_key(name)
                && !self.defines(facts, name)
                && let Some(star) = self.star_source(facts, name)
            {
                let mut target = QPath::from_dotted(star);
                target.0.push(path.0[at]);
                Some(target)
            } else {
                None
            };
            let next = match replacement {
                Some(replacement) => replacement.join(rest),
                // A name the submodule defines is its own, even when the package rebinds the
                // submodule's name to it (`from .welcome_email import welcome_email`).
                // Named from another root than its own (`billing.notify.notify_overdue` of a
                // namespace package's `notify`): the module's own name, which its definitions
                // are known by.
                None if self.defines(facts, name)
                    && !facts.module.is_empty()
                    && !same_module(&path.0[..at], &facts.module) =>
                {
                    QPath::from_dotted(&facts.module).join(&path.0[at..])
                }
                None if self.binds(facts, name) => break,
                None => match self.package_rebinding(&path, at) {
                    Some(rebound) => rebound.join(&path.0[at..]),
                    None => break,
                },
            };
            if next == path {
                break;
            }
            path = next;
        }
        self.through_bases(path)
    }

    /// `self.x.y` in a method (or a function nested in one) as `mod.Class().x.y`, so that what the
    /// class knows of its members applies; `self.method()` alone stays as it is.
    pub fn with_self(&self, path: &QPath, caller: FuncId) -> QPath {
        if path.0.len() < 3 || path.0[0].name != "self" {
            return path.clone();
        }
        let Some(facts) = self.facts(caller.file) else {
            return path.clone();
        };
        let Some(function) = self.function(caller) else {
            return path.clone();
        };
        let runtime = match caller.ctx {
            0 => None,
            _ => self.class_of(caller),
        };
        let Some(class) = runtime.or_else(|| {
            outermost(facts, function)
                .class()
                .and_then(|c| facts.classes.get(c))
        }) else {
            // `@shared_task(bind=True, base=AlertingTask)`: `self` is the task, an instance of
            // its base class (`self.alert(...)` runs `AlertingTask.alert`).
            return match self.bound_task_base(caller) {
                Some(base) => base.instance().join(&path.0[1..]),
                None => path.clone(),
            };
        };
        QPath::from_dotted(&class.qualname)
            .instance()
            .join(&path.0[1..])
    }

    /// The project class a bound task function names as its `base=`.
    fn bound_task_base(&self, id: FuncId) -> Option<QPath> {
        let task = self.task(id).filter(|task| task.options.bind)?;
        let base = task.options.get(BASE)?.path.as_ref()?;
        if base.is_call() {
            return None;
        }
        let base = self.canonical(base).into_owned();
        self.class(&base.dotted()).is_some().then_some(base)
    }

    /// The position of a manager a project class names itself in a path that goes on to a row
    /// (`Merchant.active.get(...)`: 1), by the catalog's manager suffixes and factories.
    pub fn own_manager_at(&self, path: &QPath) -> Option<usize> {
        let orm = &self.catalog.orm;
        let segs = path.segs();
        // Only a path that ends in a row can stand for an instance: most do not.
        let row = segs.iter().position(|s| {
            s.call != Call::No && orm.row_methods.iter().any(|m| m == s.name.as_str())
        })?;
        (1..row).find(|&at| {
            segs[..=at].iter().all(|s| s.call == Call::No)
                && self
                    .class(&QPath(segs[..at].to_vec()).dotted())
                    .and_then(|(_, class)| class.attrs.get(segs[at].name.as_str()))
                    .and_then(|value| value.path.as_ref())
                    .filter(|made| made.is_call())
                    .and_then(|made| made.last_name())
                    .is_some_and(|name| {
                        orm.manager_suffixes
                            .iter()
                            .any(|s| name.ends_with(s.as_str()))
                            || orm.manager_factories.iter().any(|f| f == name)
                    })
        })
    }

    /// `mod.Sub().task` where the project class `Sub` does not define `task`: the member
    /// comes from a base, so the path names the base's (`celery.Celery().task`).
    fn through_bases(&self, mut path: QPath) -> QPath {
        // A path that already names a known sink is what it is.
        if self.catalog.sink(&path).is_some() {
            return path;
        }
        // `Model.objects.filter(...).get()` is a row: an instance, `Model()`; so is one through
        // a manager the model names itself (`Merchant.active.get(...)`).
        if let Some(at) = path
            .0
            .iter()
            .position(|s| {
                self.catalog
                    .orm
                    .managers
                    .iter()
                    .any(|m| m == s.name.as_str())
            })
            .or_else(|| self.own_manager_at(&path))
            && let Some(row) = path.0[at + 1..].iter().position(|s| {
                s.call != Call::No
                    && self
                        .catalog
                        .orm
                        .row_methods
                        .iter()
                        .any(|m| m == s.name.as_str())
            })
            && at > 0
        {
            let row = at + 1 + row;
            let instance = QPath(path.0[..at].to_vec()).instance();
            path = instance.join(&path.0[row + 1..]);
        }
        for _ in 0..8 {
            let first_call = path.0.iter().position(|s| s.call != Call::No);
            let Some(at) = first_call.filter(|&at| at + 1 < path.0.len()) else {
                // `Pay.stripe.charges.create(...)` where the class says `stripe = StripeClient()`.
                let names = first_call.unwrap_or(path.0.len());
                match self.class_attribute_instance(&path, names) {
                    Some(next) => {
                        path = next;
                        continue;
                    }
                    None => return path,
                }
            };
            let class_name = QPath(path.0[..=at].to_vec()).dotted();
            let Some((_, class)) = self.class(&class_name) else {
                // `Reminder.objects.filter(...).mail_all()` where the model says `objects =
                // ReminderQuerySet.as_manager()`: the chain is on that project class.
                if let Some(next) = self.class_attribute_instance(&path, at)
                    && next
                        .0
                        .iter()
                        .position(|s| s.call != Call::No)
                        .is_some_and(|instance| {
                            self.class(&QPath(next.0[..=instance].to_vec()).dotted())
                                .is_some()
                        })
                {
                    path = next;
                    continue;
                }
                // `helper().send()`: a project function's call stands for what it returns.
                match self.returned_path(&QPath(path.0[..=at].to_vec())) {
                    Some(returned) => {
                        path = returned.join(&path.0[at + 1..]);
                        continue;
                    }
                    None => return path,
                }
            };
            let member = path.0[at + 1].name.as_str();
            // `EntryQuerySet().filter(...).mail_all()`: a queryset method the project's manager
            // or queryset class inherits gives a queryset of the same class.
            if path.0[at + 1].call != Call::No
                && at + 2 < path.0.len()
                && self.catalog.orm.chain_methods.has(member)
                && self.catalog.is_manager_class(class.name.as_str())
                && !self.class_defines(class, member, 0)
            {
                path.0.remove(at + 1);
                continue;
            }
            // `order.customer` where `customer` is a relation: an instance of the related model.
            if let Some(target) = self.models.relation_target(&class_name, member) {
                let next = QPath::from_dotted(&target).instance();
                path = next.join(&path.0[at + 2..]);
                continue;
            }
            // A member a base defines is the base's: the first class in Python's order that
            // defines it.
            let owner = self.member_owner(&class_name, class, member);
            // `stripe = StripeClient(...)` in the class body: the member is that instance.
            if let Some(value) = self.attribute_instance(owner, member) {
                path = value.join(&path.0[at + 2..]);
                continue;
            }
            // `gateway_cls = StripeGateway` in the class body, `self.gateway_cls()`: an
            // instance of that class.
            if path.0[at + 1].call != Call::No
                && let Some(target) = owner
                    .attrs
                    .get(member)
                    .and_then(|value| value.path.as_ref())
                    .filter(|target| !target.is_call())
                && let target = self.canonical(target).into_owned()
                && self.class(&target.dotted()).is_some()
            {
                path = target.instance().join(&path.0[at + 2..]);
                continue;
            }
            if self.class_defines(class, member, 0) {
                // `self.client.messages.create(...)` with `client` a `@cached_property`: what
                // the method returns, as if called.
                if path.0[at + 1].call == Call::No
                    && at + 2 < path.0.len()
                    && self.is_property(owner.qualname.as_str(), owner, member)
                {
                    let mut called = QPath(path.0[..=at + 1].to_vec());
                    if let Some(last) = called.0.last_mut() {
                        last.call = Call::Any;
                    }
                    if let Some(returned) = self.returned_path(&called) {
                        path = returned.join(&path.0[at + 2..]);
                        continue;
                    }
                }
                // `obj.get_backend().send_messages(...)`: a method's call stands for what it
                // returns, when it always returns the same kind of value.
                if path.0[at + 1].call != Call::No
                    && at + 2 < path.0.len()
                    && let Some(returned) = self.returned_path(&QPath(path.0[..=at + 1].to_vec()))
                {
                    path = returned.join(&path.0[at + 2..]);
                    continue;
                }
                return path;
            }
            // `self.mail = MailChannel()` in a method (of the class, or of a base: the first
            // in Python's order that assigns it): the member is an instance of that.
            let assigned = match class.bases.is_empty() {
                true => self.instance_member(&class_name, class, member),
                false => self
                    .mro(&class_name)
                    .into_iter()
                    .find_map(|c| self.instance_member(&c.qualname, c, member)),
            };
            if let Some(member_path) = assigned {
                path = member_path.join(&path.0[at + 2..]);
                continue;
            }
            // The first base outside the project carries the member.
            let Some(base) = self.external_base(class, 0) else {
                return path;
            };
            let mut next = base;
            if let Some(last) = next.0.last_mut() {
                last.call = path.0[at].call;
            }
            path = next.join(&path.0[at + 1..]);
        }
        path
    }

    /// What a call of a project function or method returns, when its `return` statements
    /// return calls (`return get_connection(...)`) or parts of what calls return (`return
    /// client.checkout` of `client = Adyen.Adyen(...)`): that path, canonical.
    fn returned_path(&self, call: &QPath) -> Option<QPath> {
        // Functions returning each other's calls would recurse through `canonical`: bound it.
        // A call already being followed on this thread (`def m(self): return self.m().m()`)
        // returns nothing new, and paths grown beyond any real code's are not followed.
        if return_depth() > MAX_RETURN_DEPTH
            || call.0.len() > MAX_PATH_LEN
            || RETURNING.with_borrow(|calls| calls.contains(call))
        {
            CUT_SHORT.set(true);
            return None;
        }
        RETURNING.with_borrow_mut(|calls| calls.push(call.clone()));
        let result = self.returned_path_inner(call);
        RETURNING.with_borrow_mut(Vec::pop);
        result
    }

    fn returned_path_inner(&self, call: &QPath) -> Option<QPath> {
        let id = self.resolve_function(call, None)?;
        let function = self.function(id)?;
        // Calls returned by name: a bare local (`return klass(...)`) says nothing. So do
        // imported modules and objects from outside the project (`return stripe`).
        let imports = &self.facts(id.file)?.imports;
        let imported = |p: &QPath| {
            !p.is_call() && p.0.first().is_some_and(|head| !self.is_root(head.name)) && {
                let dotted = p.dotted();
                imports.values().any(|target| target == dotted)
            }
        };
        let mut returned: Vec<QPath> = Vec::new();
        for value in function.returns() {
            // `return cls(settings.TWILIO_FROM)` in a class method: an instance of the class.
            if let Some([only]) = value.path.as_ref().map(|p| &p.0[..])
                && only.name == "self"
                && only.call != Call::No
                && let Some(class) = self.class_of(id)
            {
                let instance = QPath::from_dotted(&class.qualname).instance();
                if !returned.contains(&instance) {
                    returned.push(instance);
                }
                continue;
            }
            let Some(path) = value.path.as_ref().filter(|p| {
                (p.0.len() >= 2 && p.0.iter().any(|s| s.call != Call::No)) || imported(p)
            }) else {
                continue;
            };
            // `return self.filter(sent_at=None)` in a custom queryset or manager class: a
            // queryset of that class, whose own methods a caller's chain goes on with.
            if let [head, chained] = &path.0[..]
                && head.name == "self"
                && chained.call != Call::No
                && self.catalog.orm.chain_methods.has(chained.name.as_str())
                && let Some(class) = self.class_of(id)
                && self.catalog.is_manager_class(class.name.as_str())
                && !self.class_defines(class, chained.name.as_str(), 0)
            {
                let instance = QPath::from_dotted(&class.qualname).instance();
                if !returned.contains(&instance) {
                    returned.push(instance);
                }
                continue;
            }
            // `return self.event.get_backend()`: `self` is the method's class.
            let path = if path.0[0].name == "self" {
                self.with_self(path, id)
            } else {
                path.clone()
            };
            if path.0[0].name != "self" && !returned.contains(&path) {
                returned.push(path);
            }
        }
        // One kind of value, or, when branches differ, the one from outside the project
        // (`get_connection(...)` rather than a project subclass of a backend), else the first
        // returned (`return Email(self)` / `return Slack(self)`: one run gets that one and
        // does what it does, as for `Email(self) if ... else Slack(self)`).
        let chosen = match returned.as_slice() {
            [] => return None,
            [only] => only,
            several => several
                .iter()
                .find(|p| !self.is_root(p.0[0].name))
                .unwrap_or(&several[0]),
        };
        // A function returning its own call (recursion) names nothing new.
        (chosen != call).then(|| self.canonical(chosen).into_owned())
    }

    /// What the body of `class`, or of the nearest base that assigns it, gives `member`
    /// (`lock_ttl = 60`, read as `self.lock_ttl`).
    pub fn class_attribute(&self, class: &'a Class, member: &str, depth: u32) -> Option<&'a Value> {
        if depth > 8 {
            return None;
        }
        if let Some(value) = class.attrs.get(member) {
            return Some(value);
        }
        class.bases.iter().find_map(|base| {
            let (_, parent) = self.class(&self.canonical_plain(base).dotted())?;
            self.class_attribute(parent, member, depth + 1)
        })
    }

    /// A class attribute assigned a call in the class body (`stripe = StripeClient("sk")`): the
    /// instance it holds, canonical.
    fn attribute_instance(&self, class: &Class, member: &str) -> Option<QPath> {
        let value = class
            .attrs
            .get(member)?
            .path
            .as_ref()
            .filter(|p| p.is_call())?;
        Some(self.canonical(value).into_owned())
    }

    /// `mod.Pay.stripe.rest` where `mod.Pay` is a project class whose body assigns `stripe` an
    /// instance: that instance, then `rest`. Only the first `names` segments (those before a
    /// call) can name the class and its member, and something must follow the member.
    fn class_attribute_instance(&self, path: &QPath, names: usize) -> Option<QPath> {
        let last_member = names.min(path.0.len().saturating_sub(1));
        for at in (1..last_member).rev() {
            let Some((_, class)) = self.class(&QPath(path.0[..at].to_vec()).dotted()) else {
                continue;
            };
            let instance = self.attribute_instance(class, path.0[at].name.as_str())?;
            return Some(instance.join(&path.0[at + 1..]));
        }
        None
    }

    fn class_defines(&self, class: &Class, member: &str, depth: u32) -> bool {
        if depth > 8 {
            return false;
        }
        class.methods.contains_key(member)
            || class.attrs.contains_key(member)
            || class.bases.iter().any(|base| {
                self.class(&self.canonical_plain(base).dotted())
                    .is_some_and(|(_, parent)| self.class_defines(parent, member, depth + 1))
            })
    }

    /// Whether the class's own method `member` is read as an attribute (`@property`,
    /// `@cached_property`).
    fn is_property(&self, class_name: &str, class: &Class, member: &str) -> bool {
        let Some(&index) = class.methods.get(member) else {
            return false;
        };
        let Some((file, _)) = self.class(class_name) else {
            return false;
        };
        self.facts(file)
            .and_then(|facts| facts.functions.get(index))
            .is_some_and(|function| {
                function.decorators.iter().any(|decorator| {
                    !decorator.called
                        && decorator.path.as_ref().is_some_and(|path| {
                            self.catalog.is_property_decorator(&self.canonical(path))
                        })
                })
            })
    }

    /// What a method of the class assigns to `self.<member>`, when it is a call (an instance of
    /// a class, a function's result): the first such assignment, `__init__`'s usually.
    fn instance_member(&self, class_name: &str, class: &Class, member: &str) -> Option<QPath> {
        let (file, _) = self.class(class_name)?;
        let facts = self.facts(file)?;
        class.methods.iter().find_map(|(_, &index)| {
            let function = facts.functions.get(index)?;
            let this = function.params.first()?.name();
            function
                .events()
                .iter()
                .find_map(|event| match &event.kind {
                    EventKind::AttrAssign(assign)
                        if assign.var == this
                            && assign.attr == member
                            && assign.key.is_none()
                            && !assign.augmented =>
                    {
                        let path = assign.value.path.as_ref().filter(|p| p.is_call())?;
                        Some(self.canonical(path).into_owned())
                    }
                    _ => None,
                })
        })
    }

    /// The tasks a registry lists (arq's `functions`/`cron_jobs`): each item is a function, a
    /// wrapper call taking it first (`func(f, timeout=60)`, `cron(f, hour=3)`) or its dotted
    /// name; `registry_option` reads the registry's own options (`job_timeout`), which apply
    /// where an item's wrapper sets none.
    fn registry_tasks<'v>(
        &self,
        items: &[Value],
        registry_option: impl Fn(&str) -> Option<&'v Value>,
        file_id: u32,
        declared_at: TextRange,
        tasks: &mut Vec<Task>,
    ) {
        let catalog = &self.catalog;
        let function_keyword =
            |name: &str| catalog.registry.function_keywords.iter().any(|k| k == name);
        for item in items {
            let wrapped = item.path.as_ref().is_some_and(|path| {
                path.is_call()
                    && catalog
                        .registry
                        .wrappers
                        .find(&self.canonical(path))
                        .is_some()
            });
            let target = match &item.path {
                Some(_) if wrapped => item
                    .first_arg
                    .as_deref()
                    .or_else(|| {
                        // `func(coroutine=job, name="job")`.
                        item.call
                            .as_ref()?
                            .keywords
                            .iter()
                            .find_map(|(name, value)| {
                                function_keyword(name.as_str()).then_some(value)
                            })
                    })
                    .and_then(|arg| {
                        arg.path
                            .clone()
                            .or_else(|| arg.as_str().map(QPath::from_dotted))
                    }),
                Some(path) if !path.is_call() => Some(path.clone()),
                // `functions = ["app.jobs.issue_voucher"]`: arq imports a dotted name.
                None => item.as_str().map(QPath::from_dotted),
                _ => None,
            };
            let Some(target) = target else { continue };
            let Some(id) = self.resolve_function(&self.canonical(&target), None) else {
                continue;
            };
            let mut options = TaskOptions::default();
            let own = item.call.as_ref().filter(|_| wrapped);
            for (attr, option) in &catalog.registry.class_options {
                // `func(f, timeout=None)` takes the worker's `job_timeout`, as no `timeout` does.
                if let Some(value) = registry_option(attr)
                    && own.is_none_or(|c| c.keyword(option).is_none_or(Value::is_none))
                {
                    options.push(attr, value, file_id);
                }
            }
            for (name, value) in own.iter().flat_map(|c| &c.keywords) {
                if !function_keyword(name.as_str()) {
                    options.push(name.as_str(), value, file_id);
                }
            }
            tasks.push(Task {
                id,
                framework: Framework::Arq,
                options,
                declared_at,
                app: None,
            });
        }
    }

    fn external_base(&self, class: &Class, depth: u32) -> Option<QPath> {
        if depth > 8 {
            return None;
        }
        class.bases.iter().find_map(|base| {
            let canonical = self.canonical_plain(base);
            match self.class(&canonical.dotted()) {
                Some((_, parent)) => self.external_base(parent, depth + 1),
                None => Some(canonical),
            }
        })
    }

    /// `canonical` without the step through bases (for class bases themselves).
    pub fn canonical_plain(&self, path: &QPath) -> QPath {
        let mut plain = path.clone();
        for seg in &mut plain.0 {
            seg.call = Call::No;
        }

        self.canonical(&plain).into_owned()
    }

    fn defines(&self, facts: &ModuleFacts, name: &str) -> bool {
        let qualname = dotted_join(&facts.module, name);
        self.functions.contains_key(qualname.as_str())
            || self.classes.contains_key(qualname.as_str())
    }

    /// `config.celery_app.task` where the submodule `config.celery_app` binds no `task` and
    /// `config/__init__.py` rebinds the name (`from .celery_app import app as celery_app`): the
    /// package's binding replaces its submodule of the same name, as Python's import does, so
    /// `from config import celery_app` is the app. What the package's import names, when the
    /// submodule (the segments before `at`) has no binding of the name at `at`.
    fn package_rebinding(&self, path: &QPath, at: usize) -> Option<QPath> {
        let (submodule, parent) = path.0.get(..at)?.split_last()?;
        if parent.is_empty() || parent.iter().any(|seg| seg.call != Call::No) {
            return None;
        }
        let parent = QPath(parent.to_vec()).dotted();
        let package = self.facts(*self.modules.get(parent.as_str())?)?;
        let target = package.imports.get(submodule.name.as_str())?;
        (*target != dotted_join(&parent, submodule.name.as_str()))
            .then(|| QPath::from_dotted(target))
    }

    /// The module a `from m import *` of `facts` takes `name` from: a project module that binds
    /// it, else the one library module imported so (`from django.core.mail import *`).
    fn star_source<'f>(&self, facts: &'f ModuleFacts, name: &str) -> Option<&'f String> {
        let mut external = facts
            .star_imports
            .iter()
            .filter(|m| self.module_of(m).is_none());
        facts
            .star_imports
            .iter()
            .find(|m| {
                self.module_of(m)
                    .and_then(|f| self.facts(f))
                    .is_some_and(|f| self.binds(f, name))
            })
            .or_else(|| {
                let only = external.next()?;
                external.next().is_none().then_some(only)
            })
    }

    fn binds(&self, facts: &ModuleFacts, name: &str) -> bool {
        facts.imports.contains_key(name)
            || facts.vars.contains_key(name)
            || self.defines(facts, name)
    }

    /// The longest plain prefix of `path` that is a project module, and the index of the name
    /// after it.
    fn split_module(&self, path: &QPath) -> Option<(u32, usize)> {
        let plain = path.plain_prefix_len();
        let mut name = String::new();
        let mut best = None;
        for (i, seg) in path
            .0
            .iter()
            .enumerate()
            .take(plain.saturating_sub(1).max(1))
        {
            if seg.call != Call::No {
                break;
            }
            if i > 0 {
                name.push('.');
            }
            name.push_str(seg.name.as_str());
            if i + 1 < path.0.len()
                && let Some(&file) = self.modules.get(name.as_str())
            {
                best = Some((file, i + 1));
            }
        }
        best
    }

    /// The project function a canonical path names: `mod.func`, `mod.Class.method` (also on an
    /// instance), or a method of the calling function's class through `self`.
    pub fn resolve_function(&self, path: &QPath, caller: Option<FuncId>) -> Option<FuncId> {
        let segs = path.segs();
        if segs.first().is_some_and(|s| s.name == "self") && segs.len() == 2 {
            let caller = caller?;
            let method = segs[1].name.as_str();
            return match self.class_of(caller) {
                Some(class) => self.find_method(&class.qualname, method, 0),
                // A bound task's `self` is an instance of its `base=` class.
                None => self.find_method(&self.bound_task_base(caller)?.dotted(), method, 0),
            };
        }
        // `super().run(...)`, `super(Cls, self).run(...)`: the method as the class's bases have it.
        if let [head, method] = segs
            && head.name == "super"
            && head.call != Call::No
        {
            // The class after the one the call is written in (or the one `super(Cls, self)`
            // names), in the order of the class `self` is an instance of.
            let caller = caller?;
            let written = self.written_class_of(caller)?;
            let runtime = self.class_of(caller).unwrap_or(written);
            let order = self.mro(&runtime.qualname);
            let after = match head.call {
                Call::Str(name) => order.iter().position(|c| c.name == name.as_str()),
                _ => order.iter().position(|c| std::ptr::eq(*c, written)),
            };
            let method = method.name.as_str();
            let (found, owner) = match after {
                Some(at) => order[at + 1..]
                    .iter()
                    .find_map(|class| self.own_method(class, method))?,
                None => written.bases.iter().find_map(|base| {
                    self.find_method_def(&self.canonical(base).dotted(), method, 1)
                })?,
            };
            return Some(self.method_for(found, owner, &runtime.qualname));
        }
        if segs
            .first()
            .is_none_or(|head| !self.defined_heads.contains(&head.name))
        {
            return None;
        }
        if segs
            .iter()
            .take(segs.len().saturating_sub(1))
            .any(|s| s.call != Call::No)
        {
            // `mod.Class().method`: only a call on the class itself.
            let (last, init) = segs.split_last()?;
            let (class_seg, module) = init.split_last()?;
            if class_seg.call == Call::No || module.iter().any(|s| s.call != Call::No) {
                return None;
            }
            let class_name = QPath(init.to_vec()).dotted();
            return self.find_method(&class_name, last.name.as_str(), 0);
        }
        let dotted = path.dotted();
        if let Some(&id) = self.functions.get(dotted.as_str()) {
            // A class's method through the class needs the class to be known: `functions` has it.
            return Some(id);
        }
        let (last, init) = segs.split_last()?;
        let class_name = QPath(init.to_vec()).dotted();
        self.find_method(&class_name, last.name.as_str(), 0)
    }

    /// The method `name` as an instance of `class` has it, looked up through its bases. A
    /// method it inherits is the subclass's own variant ([`FuncId::ctx`]) when `self` in it
    /// names something the subclass defines differently ([`Project::dispatches_differently`]).
    fn find_method(&self, class: &str, name: &str, depth: u32) -> Option<FuncId> {
        let (found, owner) = self.find_method_def(class, name, depth)?;
        // A port's stub: the one class of the project implementing it.
        if let Some((implementation, implementer)) = self.implementation(found, owner, name) {
            return Some(self.method_for(implementation, implementer, &implementer.qualname));
        }
        Some(self.method_for(found, owner, class))
    }

    /// For a stub method (no call in its body: `...`, `pass`, `raise NotImplementedError`) of
    /// an interface (a class on a catalog `interface-bases` base, or a method with an
    /// `abstract-decorators` decorator), the one project class that implements it: a subclass
    /// defining the method, or, for a `Protocol`, any class defining every method the protocol
    /// names. None when no class or several do.
    fn implementation(
        &self,
        found: FuncId,
        owner: &'a Class,
        name: &str,
    ) -> Option<(FuncId, &'a Class)> {
        let function = self.function(found)?;
        let catalog = self.catalog;
        let named_interface = owner.bases.iter().any(|base| {
            base.last_name()
                .is_some_and(|n| catalog.may_be_interface(n))
        });
        let named_abstract = function.decorators.iter().any(|d| {
            d.path
                .as_ref()
                .and_then(QPath::last_name)
                .is_some_and(|n| catalog.may_be_interface(n))
        });
        if !(named_interface || named_abstract) || !function.peek(|body| body.events.is_empty()) {
            return None;
        }
        let interface = owner
            .bases
            .iter()
            .any(|base| catalog.is_interface_base(&self.canonical(base)));
        let abstract_method = function.decorators.iter().any(|d| {
            d.path
                .as_ref()
                .is_some_and(|path| catalog.is_abstract_decorator(&self.canonical(path)))
        });
        if !(interface || abstract_method) {
            return None;
        }
        let key = self.class_number_of(owner)?;
        if let Some(&known) = self
            .implementation_memo
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&(key, Sym::new(name)))
        {
            return known.and_then(|(id, class)| Some((id, self.class_by_number(class)?)));
        }
        let found = self.find_implementation(owner, name);
        self.implementation_memo
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(
                (key, Sym::new(name)),
                found.and_then(|(id, class)| Some((id, self.class_number_of(class)?))),
            );
        found
    }

    fn find_implementation(&self, owner: &'a Class, name: &str) -> Option<(FuncId, &'a Class)> {
        // What a protocol asks for: every method it names.
        let asked: Vec<&str> = owner
            .methods
            .iter()
            .map(|(method, _)| method)
            .filter(|method| !method.starts_with("__"))
            .collect();
        let mut found: Option<(FuncId, &'a Class)> = None;
        for (file, facts) in self
            .files
            .iter()
            .enumerate()
            .filter_map(|(i, file)| Some((u32::try_from(i).ok()?, file.facts.as_ref()?)))
        {
            for class in &facts.classes {
                let Some(&index) = class.methods.get(name) else {
                    continue;
                };
                if std::ptr::eq(class, owner) {
                    continue;
                }
                let order = self.mro(&class.qualname);
                let derives = order.iter().any(|c| std::ptr::eq(*c, owner));
                let structural = !derives
                    && asked
                        .iter()
                        .all(|method| order.iter().any(|c| c.methods.contains_key(method)));
                if !(derives || structural) {
                    continue;
                }
                let id = FuncId::new(file, index);
                // A stub again (another interface), or a second implementation: no answer.
                if self
                    .function(id)
                    .is_none_or(|f| f.peek(|body| body.events.is_empty()))
                {
                    continue;
                }
                match found {
                    None => found = Some((id, class)),
                    Some((other, _)) if other != id => return None,
                    Some(_) => {}
                }
            }
        }
        found
    }

    /// The project-wide number of a project class.
    fn class_number_of(&self, class: &Class) -> Option<u32> {
        let ((file, index), _) = self.class_at(&class.qualname)?;
        Some(self.class_number(file, index))
    }

    /// The method as written, and the class that defines it.
    fn find_method_def(&self, class: &str, name: &str, depth: u32) -> Option<(FuncId, &'a Class)> {
        if depth > 8 {
            return None;
        }
        let (file, facts_class) = self.class(class)?;
        if let Some(&index) = facts_class.methods.get(name) {
            return Some((FuncId::new(file, index), facts_class));
        }
        if facts_class.bases.len() > 1 {
            // Several bases: Python's order, where a shared base comes after every class
            // deriving from it.
            return self
                .mro(class)
                .into_iter()
                .skip(1)
                .find_map(|owner| self.own_method(owner, name));
        }
        facts_class
            .bases
            .iter()
            .find_map(|base| self.find_method_def(&self.canonical(base).dotted(), name, depth + 1))
    }

    /// The class of `class`'s order (itself first) that defines `member` in its body.
    fn member_owner(&self, class_name: &str, class: &'a Class, member: &str) -> &'a Class {
        let defines = |c: &Class| c.methods.contains_key(member) || c.attrs.contains_key(member);
        if defines(class) || class.bases.is_empty() {
            return class;
        }
        self.mro(class_name)
            .into_iter()
            .find(|c| defines(c))
            .unwrap_or(class)
    }

    /// The method `name` the class defines itself.
    fn own_method(&self, class: &'a Class, name: &str) -> Option<(FuncId, &'a Class)> {
        let &index = class.methods.get(name)?;
        let (file, _) = self.class(&class.qualname)?;
        Some((FuncId::new(file, index), class))
    }

    /// The project classes an instance of `class` looks its members up in, in Python's
    /// method resolution order (C3); depth first where the bases admit no such order.
    /// Computed once per class: the orders of a class's bases make its own.
    fn mro(&self, class: &str) -> Vec<&'a Class> {
        self.mro_at(class, 0)
            .iter()
            .filter_map(|&number| self.class_by_number(number))
            .collect()
    }

    /// [`Project::mro`] by class number.
    fn mro_at(&self, class: &str, depth: u32) -> Arc<[u32]> {
        let Some(((file, index), this)) = self.class_at(class) else {
            return Arc::from(Vec::new());
        };
        let key = self.class_number(file, index);
        if let Some(known) = self
            .mro_memo
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
        {
            return known.clone();
        }
        // Bases that lead back to the class (only broken code has them) are cut short, as is
        // a class whose order is being worked out on this thread already: its bases resolved
        // through a member of a class whose order needs its own (`class A(B.x)`, `x` found
        // through `B`'s bases). A cut-short order is not remembered.
        if depth > MAX_MRO_DEPTH || LINEARIZING.with_borrow(|classes| classes.contains(&key)) {
            CUT_SHORT.set(true);
            return Arc::from(vec![key]);
        }
        let outer_cut = CUT_SHORT.replace(false);
        LINEARIZING.with_borrow_mut(|classes| classes.push(key));
        let order: Arc<[u32]> = match self.linearize(key, this, depth) {
            Some(order) => order.into(),
            None => self
                .ancestors(class)
                .iter()
                .filter_map(|c| self.class_number_of(c))
                .collect(),
        };
        LINEARIZING.with_borrow_mut(Vec::pop);
        if !CUT_SHORT.replace(outer_cut || CUT_SHORT.get()) {
            self.mro_memo
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(key, order.clone());
        }
        order
    }

    fn linearize(&self, number: u32, this: &Class, depth: u32) -> Option<Vec<u32>> {
        let bases: Vec<(u32, &str)> = this
            .bases
            .iter()
            .filter_map(|base| self.class_at(&self.canonical(base).dotted()))
            .map(|((file, index), base)| (self.class_number(file, index), base.qualname.as_str()))
            .collect();
        let mut lists: Vec<Vec<u32>> = bases
            .iter()
            .map(|(_, base)| self.mro_at(base, depth + 1).to_vec())
            .collect();
        lists.push(bases.iter().map(|&(n, _)| n).collect());
        let mut order = vec![number];
        loop {
            lists.retain(|list| !list.is_empty());
            if lists.is_empty() {
                return Some(order);
            }
            // The first head that is in no list's tail.
            let head = lists
                .iter()
                .map(|list| list[0])
                .find(|head| !lists.iter().any(|list| list[1..].contains(head)))?;
            order.push(head);
            for list in &mut lists {
                if list[0] == head {
                    list.remove(0);
                }
            }
        }
    }

    /// `found`, defined in `owner`, as it runs for an instance of `runtime` (a subclass).
    fn method_for(&self, found: FuncId, owner: &Class, runtime: &str) -> FuncId {
        if found.ctx != 0 || owner.qualname == runtime {
            return found;
        }
        let Some(((file, index), _)) = self.class_at(runtime) else {
            return found;
        };
        let variant = FuncId {
            ctx: self.class_number(file, index).saturating_add(1),
            ..found
        };
        let known = self
            .variant_memo
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&variant)
            .copied();
        let differs = known.unwrap_or_else(|| {
            let differs = self.dispatches_differently(found, owner, runtime, 0);
            self.variant_memo
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(variant, differs);
            differs
        });
        if differs { variant } else { found }
    }

    /// Whether `self.<name>` in `method` (defined in `owner`) may mean something else for an
    /// instance of `runtime`: a name that a class of `runtime`'s bases outside `owner`'s own
    /// defines (an override, a mixin's sibling), or a method that does so in turn.
    fn dispatches_differently(
        &self,
        method: FuncId,
        owner: &Class,
        runtime: &str,
        depth: u32,
    ) -> bool {
        if depth > 4 {
            return false;
        }
        let Some(function) = self.function(method) else {
            return false;
        };
        let inherited = self.mro(&owner.qualname);
        let own: Vec<&'a Class> = self
            .mro(runtime)
            .into_iter()
            .filter(|class| !inherited.iter().any(|c| std::ptr::eq(*c, *class)))
            .collect();
        if own.is_empty() {
            return false;
        }
        // `super().notify()` goes on along the runtime class's order, past `owner`; `cls(...)`
        // makes the runtime class.
        let mut calls_super = false;
        let self_names: Vec<Sym> = function.peek(|body| {
            body.events
                .iter()
                .filter_map(|event| match &event.kind {
                    EventKind::Call(call) => Some(&**call),
                    _ => None,
                })
                .filter_map(|call| match call.path.as_ref()?.segs() {
                    [this, member, ..] if this.name == "self" => Some(member.name),
                    [head, _, ..] if head.name == "super" && head.call != Call::No => {
                        calls_super = true;
                        None
                    }
                    // `cls(...)` in a class method: an instance of the class it is called on.
                    [this] if this.name == "self" && this.call != Call::No => {
                        calls_super = true;
                        None
                    }
                    // `self.gateway.pay()`, read as what this class assigns `self.gateway`.
                    _ => self_member(call),
                })
                .collect()
        });
        calls_super
            || self_names.iter().any(|&name| {
                let name = name.as_str();
                own.iter().any(|class| {
                    class.methods.contains_key(name)
                        || class.attrs.contains_key(name)
                        || self.assigns_member(class, name)
                }) || self
                    .find_method_def(runtime, name, 0)
                    .is_some_and(|(next, next_owner)| {
                        next != method
                            && next_owner.qualname != runtime
                            && self.dispatches_differently(next, next_owner, runtime, depth + 1)
                    })
            })
    }

    /// In an inherited method run for a subclass ([`FuncId::ctx`]), `self.gateway.pay()` where
    /// the facts read `self.gateway` as what the base assigns it, and a class of the subclass's
    /// own (outside the base's order) assigns it too: the call on the subclass's member.
    fn runtime_member_path(&self, call: &CallSite, caller: FuncId) -> Option<QPath> {
        if caller.ctx == 0 {
            return None;
        }
        let member = self_member(call)?;
        let runtime = self.class_of(caller)?;
        let written = self.written_class_of(caller)?;
        let inherited = self.mro(&written.qualname);
        let replaced = self
            .mro(&runtime.qualname)
            .into_iter()
            .filter(|class| !inherited.iter().any(|c| std::ptr::eq(*c, *class)))
            .any(|class| {
                class.attrs.contains_key(member.as_str())
                    || self.assigns_member(class, member.as_str())
            });
        if !replaced {
            return None;
        }
        let method = *call.path.as_ref()?.0.last()?;
        let mut path = QPath::from_dotted(&runtime.qualname).instance();
        path.0.push(crate::path::Seg::name(member.as_str()));
        path.0.push(method);
        Some(path)
    }

    /// The project classes of `class`'s bases, itself first, depth first.
    fn ancestors(&self, class: &str) -> Vec<&'a Class> {
        let mut found: Vec<&'a Class> = Vec::new();
        let mut stack = vec![(class.to_string(), 0u32)];
        while let Some((name, depth)) = stack.pop() {
            let Some((_, class)) = self.class(&name) else {
                continue;
            };
            if depth > 8 || found.iter().any(|c| std::ptr::eq(*c, class)) {
                continue;
            }
            found.push(class);
            for base in class.bases.iter().rev() {
                stack.push((self.canonical(base).dotted(), depth + 1));
            }
        }
        found
    }

    /// Whether a method of the class assigns `self.<member>`.
    fn assigns_member(&self, class: &Class, member: &str) -> bool {
        let Some(facts) = self.facts_of_class(class) else {
            return false;
        };
        class.methods.iter().any(|(_, &index)| {
            facts.functions.get(index).is_some_and(|function| {
                function.peek(|body| {
                    body.events.iter().any(|event| {
                        matches!(&event.kind, EventKind::AttrAssign(assign)
                            if assign.var == "self" && assign.attr == member)
                    })
                })
            })
        })
    }

    /// The project-wide number of the class at `index` in file `file`.
    fn class_number(&self, file: u32, index: usize) -> u32 {
        let before = self.class_offsets.get(file as usize).copied().unwrap_or(0);
        before.saturating_add(u32::try_from(index).unwrap_or(u32::MAX))
    }

    /// The class a [`FuncId::ctx`] names.
    fn class_by_number(&self, number: u32) -> Option<&'a Class> {
        let file = self
            .class_offsets
            .partition_point(|&start| start <= number)
            .checked_sub(1)?;
        let start = *self.class_offsets.get(file)?;
        let facts = self.facts(u32::try_from(file).ok()?)?;
        facts.classes.get((number - start) as usize)
    }

    /// Module variables typed by the methods called on them at module level.
    fn infer_types(&self) -> HashMap<String, QPath> {
        let mut inferred = HashMap::default();
        for file in self.files {
            let Some(facts) = &file.facts else { continue };
            let Some(body) = facts.functions.first() else {
                continue;
            };
            if !body.calls_named(|name| self.catalog.is_api_method(name)) {
                continue;
            }
            body.peek(|body| {
                for event in &body.events {
                    let EventKind::Call(call) = &event.kind else {
                        continue;
                    };
                    let (Some(var), Some(_)) = (call.receiver_var.map(Sym::as_str), &call.path)
                    else {
                        continue;
                    };
                    if call.receiver.map(Sym::as_str) != Some(var) || !facts.vars.contains_key(var)
                    {
                        continue;
                    }
                    if let Some(ty) = self.catalog.type_by_api(call.method.as_str()) {
                        // `app = Celery("proj")`: the value says more than the type (the
                        // app's name, which tells apps apart).
                        let names = |p: &QPath| p.segs().iter().map(|s| s.name).collect::<Vec<_>>();
                        let ty = match facts.vars.get(var).and_then(|v| v.path.as_ref()) {
                            Some(own) if names(own) == names(&ty) => own.clone(),
                            _ => ty,
                        };
                        inferred.insert(dotted_join(&facts.module, var), ty);
                    }
                }
            });
        }
        inferred
    }

    // ------------------------------------------------------------------ tasks

    fn find_tasks(&mut self) {
        let mut timer = crate::check::Timer::new();
        let catalog = self.catalog;
        // Project functions that apply a task decorator themselves are task decorators too.
        // Each pass below looks at one file at a time, so files are read in parallel; the
        // results are put together in file order, as a sequential pass would.
        let found: Vec<Vec<(String, Framework)>> = self
            .files
            .par_iter()
            .map(|file| {
                let mut wrappers = Vec::new();
                let Some(facts) = &file.facts else {
                    return wrappers;
                };
                for function in facts.functions.iter().skip(1) {
                    if !function.calls_named(|name| catalog.may_be_task_decorator(name)) {
                        continue;
                    }
                    // The paths of the calls that may apply a task decorator.
                    let applied = function.peek(|body| {
                        body.events
                            .iter()
                            .filter_map(|event| match &event.kind {
                                EventKind::Call(call)
                                    if catalog.may_be_task_decorator(call.method) =>
                                {
                                    call.path.clone()
                                }
                                _ => None,
                            })
                            .collect::<Vec<QPath>>()
                    });
                    for path in &applied {
                        let outer = outermost(facts, function);
                        let path = match (
                            path.0.first(),
                            outer.class().and_then(|c| facts.classes.get(c)),
                        ) {
                            (Some(head), Some(class)) if head.name == "self" => {
                                QPath::from_dotted(&class.qualname)
                                    .instance()
                                    .join(&path.0[1..])
                            }
                            _ => path.clone(),
                        };
                        if let Some(framework) = catalog.task_decorator(&self.canonical(&path)) {
                            wrappers.push((outer.qualname.clone(), framework));
                        }
                    }
                }
                wrappers
            })
            .collect();
        timer.lap("    wrappers");
        let wrappers: HashMap<String, Framework> = found.into_iter().flatten().collect();
        let inherits_run = self.names_deriving_task_classes();
        let declared: Vec<Vec<Task>> = self
            .files
            .par_iter()
            .enumerate()
            .map(|(fi, file)| {
                let mut tasks = Vec::new();
                let Some(facts) = &file.facts else {
                    return tasks;
                };
                let file_id = u32::try_from(fi).unwrap_or(u32::MAX);
                for (i, function) in facts.functions.iter().enumerate().skip(1) {
                    let id = FuncId::new(file_id, i);
                    for decorator in &function.decorators {
                        let Some(path) = &decorator.path else {
                            continue;
                        };
                        let canonical = self.canonical(path);
                        // Most projects wrap no task decorator: no name to spell out then.
                        let wrapped = || match wrappers.is_empty() {
                            true => None,
                            false => wrappers.get(&canonical.dotted()).copied(),
                        };
                        let framework = catalog.task_decorator(&canonical).or_else(wrapped);
                        if let Some(framework) = framework {
                            // `@job("ml", redis, 3600)`: options by position, then by name.
                            let positional = catalog
                                .framework(framework)
                                .map(|spec| spec.decorator_parameters.as_slice())
                                .unwrap_or_default();
                            let mut options = self.decorator_options(
                                framework,
                                positional
                                    .iter()
                                    .zip(&decorator.args)
                                    .map(|(k, v)| (k.as_str(), v))
                                    .chain(decorator.keywords.iter().map(|(k, v)| (k.as_str(), v))),
                                file_id,
                            );
                            // `@job(etl_queue)` without a timeout: the queue's default.
                            if let Some(spec) = catalog.framework(framework)
                                && !spec.queue_time_limits.is_empty()
                                && !spec
                                    .time_limits
                                    .iter()
                                    .any(|l| options.get(&l.keyword).is_some())
                                && let Some(queue) =
                                    spec.queue_option.as_deref().and_then(|o| options.get(o))
                                && let Some((keyword, value, at)) =
                                    self.queue_value_limit(spec, queue, file_id)
                            {
                                options.push(keyword, &value, at);
                            }
                            tasks.push(Task {
                                id,
                                framework,
                                options,
                                declared_at: decorator.range,
                                app: crate::settings::app_key(&canonical),
                            });
                            break;
                        }
                    }
                }
                // Class-based tasks: `run` of a class deriving from Celery's `Task`, `perform`
                // of one deriving from Dramatiq's `GenericActor`.
                for (index, class) in facts.classes.iter().enumerate() {
                    // The method first: a look-up in the class, where the framework walks its
                    // bases. A method the class inherits from a project base runs for the
                    // class ([`FuncId::ctx`]): each subclass is a task of its own.
                    let own_run = |spec: &FrameworkSpec| {
                        let &run = class.methods.get(&spec.task_class_method)?;
                        Some(FuncId::new(file_id, run))
                    };
                    let inherited_run = |spec: &FrameworkSpec| {
                        let (found, owner) =
                            self.find_method_def(&class.qualname, &spec.task_class_method, 0)?;
                        (!std::ptr::eq(owner, class)).then(|| FuncId {
                            ctx: self.class_number(file_id, index).saturating_add(1),
                            ..found
                        })
                    };
                    let runs = |spec: &FrameworkSpec| {
                        own_run(spec).or_else(|| {
                            class
                                .bases
                                .iter()
                                .any(|base| match &inherits_run {
                                    Some(names) => {
                                        base.last_name().is_some_and(|n| names.contains(n))
                                    }
                                    None => true,
                                })
                                .then(|| inherited_run(spec))
                                .flatten()
                        })
                    };
                    if !catalog.frameworks.iter().any(|spec| runs(spec).is_some()) {
                        continue;
                    }
                    let Some(framework) = self.task_class_framework(class, 0) else {
                        continue;
                    };
                    let Some(spec) = catalog.framework(framework) else {
                        continue;
                    };
                    let Some(id) = runs(spec) else { continue };
                    let mut options = TaskOptions {
                        bind: true,
                        options: Vec::new(),
                    };
                    self.inherit_class_options(class, &mut options, 0);
                    let own = match &spec.task_class_options {
                        Some(holder) => class
                            .inner
                            .iter()
                            .filter_map(|&inner| facts.classes.get(inner))
                            .find(|inner| inner.name == *holder),
                        None => Some(class),
                    };
                    // `abstract = True` (Dramatiq's `Meta`, old Celery's class attribute): a
                    // base for actors, not one itself.
                    if own
                        .and_then(|own| own.attrs.get("abstract"))
                        .is_some_and(|value| matches!(value.lit, Lit::Bool(true)))
                    {
                        continue;
                    }
                    for (k, v) in own.iter().flat_map(|own| own.attrs.iter()) {
                        options.push(k, v, file_id);
                    }
                    // `class Reindex(fast_app.Task)`: a task of that app.
                    let app = class
                        .bases
                        .iter()
                        .find_map(|base| crate::settings::app_key(&self.canonical(base)));
                    tasks.push(Task {
                        id,
                        framework,
                        options,
                        declared_at: class.name_range,
                        app,
                    });
                }
                // Registries: arq's `WorkerSettings.functions = [func(f, ...), g]`.
                let imports_framework = facts.imports.values().any(|target| {
                    target.split('.').next() == Some(catalog.registry.requires_import.as_str())
                });
                for class in &facts.classes {
                    if !(imports_framework || catalog.registry.class_names.contains(&class.name)) {
                        continue;
                    }
                    for attr in &catalog.registry.class_attributes {
                        if let Some(items) = class.attrs.get(attr).and_then(Value::items) {
                            let option = |name: &str| class.attrs.get(name);
                            self.registry_tasks(
                                items,
                                option,
                                file_id,
                                class.name_range,
                                &mut tasks,
                            );
                        }
                    }
                }
                // And the same lists given to a constructor: `Worker(functions=[...])`.
                if imports_framework {
                    for function in &facts.functions {
                        if !function
                            .calls_named(|name| catalog.registry.constructors.may_match(name))
                        {
                            continue;
                        }
                        for event in function.events() {
                            let EventKind::Call(call) = &event.kind else {
                                continue;
                            };
                            let Some(path) = &call.path else { continue };
                            if catalog
                                .registry
                                .constructors
                                .find(&self.canonical(path))
                                .is_none()
                            {
                                continue;
                            }
                            for attr in &catalog.registry.class_attributes {
                                if let Some(items) = call.keyword(attr).and_then(Value::items) {
                                    let option = |name: &str| call.keyword(name);
                                    self.registry_tasks(
                                        items, option, file_id, call.range, &mut tasks,
                                    );
                                }
                            }
                        }
                    }
                }
                tasks
            })
            .collect();
        timer.lap("    declared");
        // Functions handed to RQ's `enqueue` (and django-q's `async_task` by dotted name).
        let handed: Vec<Vec<Task>> = self
            .files
            .par_iter()
            .enumerate()
            .map(|(index, file)| {
                let mut tasks = Vec::new();
                let Some(facts) = &file.facts else {
                    return tasks;
                };
                let file_id = u32::try_from(index).unwrap_or(u32::MAX);
                for function in &facts.functions {
                    let may_hand = function.calls_named(|name| {
                        catalog.rq_method(&name).is_some()
                            || self.may_name_enqueue_or_app_by(name)
                            || catalog.may_be_task_decorator(name)
                    });
                    if !may_hand {
                        continue;
                    }
                    function.peek(|body| self.handed_tasks(body, file_id, &mut tasks));
                }
                tasks
            })
            .collect();
        timer.lap("    handed");
        for task in declared.into_iter().flatten() {
            if self.task_index.contains_key(&task.id) {
                continue;
            }
            self.task_index.insert(task.id, self.tasks.len());
            self.tasks.push(task);
        }
        let declared_count = self.tasks.len();
        for task in handed.into_iter().flatten() {
            match self.task_index.get(&task.id) {
                // A function enqueued in several places runs under the longest limit they give.
                Some(&at) if at >= declared_count => {
                    let longer =
                        match (self.handed_limit(&task), self.handed_limit(&self.tasks[at])) {
                            (Some(new), Some(old)) => new > old,
                            _ => false,
                        };
                    if longer {
                        self.tasks[at].options = task.options;
                    }
                }
                Some(_) => {}
                None => {
                    self.task_index.insert(task.id, self.tasks.len());
                    self.tasks.push(task);
                }
            }
        }
    }

    /// The time limit an enqueue gives a function it hands over, in seconds: its options' or
    /// its queue's, else the framework's default; `i64::MAX` without a bound; `None` when only
    /// run time knows it.
    /// The names of the project classes that may derive from a framework's task class (`Task`,
    /// `GenericActor`), by the last names of their bases: only a class naming one of them as
    /// a base can inherit a task class's method (`run`, `perform`) from the project, and few do.
    /// `None` when that cannot be told by name (a pattern in the user's catalog).
    fn names_deriving_task_classes(&self) -> Option<HashSet<&'a str>> {
        let classes = || {
            self.files
                .iter()
                .filter_map(|file| file.facts.as_ref())
                .flat_map(|facts| facts.classes.iter())
        };
        let mut names: HashSet<&'a str> = self.catalog.task_class_names()?.collect();
        for _ in 0..8 {
            let before = names.len();
            let deriving: Vec<&'a str> = classes()
                .filter(|class| {
                    !names.contains(class.name.as_str())
                        && class
                            .bases
                            .iter()
                            .any(|base| base.last_name().is_some_and(|n| names.contains(n)))
                })
                .map(|class| class.name.as_str())
                .collect();
            names.extend(deriving);
            if names.len() == before {
                break;
            }
        }
        Some(names)
    }

    fn handed_limit(&self, task: &Task) -> Option<i64> {
        let spec = self.catalog.framework(task.framework)?;
        let mut longest = None;
        for (limit, _, number) in self.option_limits(task) {
            let number = number?;
            if limit.unbounded == Some(number) {
                return Some(i64::MAX);
            }
            longest = longest.max(Some(limit.unit.seconds(number)));
        }
        longest.or(Some(spec.default_time_limit.unwrap_or(i64::MAX)))
    }

    /// The options that bound a task's run (its own, then what its queue gives: RQ's
    /// `default_timeout`), each with its value and the number it says in the option's unit
    /// (`None`: only run time knows). `timeout=None` sets nothing and is left out.
    pub fn option_limits<'t>(
        &'t self,
        task: &'t Task,
    ) -> impl Iterator<Item = (&'a TimeLimitSpec, &'t Value, Option<i64>)> + 't {
        let spec = self.catalog.framework(task.framework);
        let own = spec.into_iter().flat_map(|spec| &spec.time_limits);
        let queue = (spec.into_iter())
            .flat_map(|spec| &spec.queue_time_limits)
            .map(|limit| &limit.limit);
        own.chain(queue).filter_map(move |limit| {
            let value = task.options.get(&limit.keyword).filter(|v| !v.is_none())?;
            let number = self.constant(value).and_then(|v| limit.value_of(&v));
            Some((limit, value, number))
        })
    }

    /// Whether a call's receiver is a project class, an instance of one or a member of one
    /// (`notifier.mail.deliver` with `notifier = Notifier()`): what it does is the project's.
    fn on_project_instance(&self, canonical: &QPath) -> bool {
        self.is_project_path(canonical)
            && (1..canonical.0.len()).any(|end| {
                (end == canonical.0.len() - 1 || canonical.0[end - 1].call != Call::No)
                    && self
                        .class(&QPath(canonical.0[..end].to_vec()).dotted())
                        .is_some()
            })
    }

    /// Functions a body hands to RQ (`queue.enqueue(f, ...)`) or django-q (`async_task(f)`).
    fn handed_tasks(&self, body: &FunctionBody, file: u32, tasks: &mut Vec<Task>) {
        let catalog = self.catalog;
        for event in &body.events {
            let EventKind::Call(call) = &event.kind else {
                continue;
            };
            if let Some(task) = self.decorator_called(body, call, file) {
                tasks.push(task);
                continue;
            }
            // `enqueue` of the project's own class (a local runner) is not RQ's.
            let rq = catalog.rq_method(call.method.as_str()).filter(|_| {
                !call
                    .path
                    .as_ref()
                    .is_some_and(|p| self.on_project_instance(&self.canonical(p)))
            });
            let django_q = call.path.as_ref().is_some_and(|p| {
                self.may_name_enqueue_or_app(p) && catalog.is_enqueue_function(&self.canonical(p))
            });
            // The function handed over: where RQ's method takes it, django-q's first argument.
            let handed = match rq {
                Some(rq) => rq.function.find(call),
                None if django_q => call.args().first(),
                None => continue,
            };
            let Some(first) = handed else {
                continue;
            };
            let target = match (&first.path, first.as_str()) {
                (Some(path), _) if !path.is_call() => self.canonical(path).into_owned(),
                // A dotted name is imported as written: through the module's re-exports.
                (_, Some(dotted)) => self.canonical(&QPath::from_dotted(dotted)).into_owned(),
                _ => continue,
            };
            if let Some(id) = self.resolve_function(&target, None) {
                let framework = if rq.is_some() {
                    Framework::Rq
                } else {
                    Framework::DjangoQ
                };
                // What the enqueueing call bounds the run with (`job_timeout=60`), else the
                // queue's default (`Queue("payroll", default_timeout=1800)`).
                let mut options = TaskOptions::default();
                if let Some(spec) = catalog.framework(framework) {
                    for limit in &spec.time_limits {
                        if let Some(value) = call.keyword(&limit.keyword) {
                            options.push(&limit.keyword, value, file);
                        }
                    }
                    if options.options.is_empty()
                        && let Some((keyword, value, at)) =
                            self.queue_time_limit(spec, body, call, file)
                    {
                        options.push(keyword, &value, at);
                    }
                }
                tasks.push(Task {
                    id,
                    framework,
                    options,
                    declared_at: self.function(id).map(|f| f.name_range).unwrap_or_default(),
                    app: None,
                });
            }
        }
    }

    /// The time limit the queue an enqueue is called on gives its jobs (catalog
    /// `queue-time-limits`): the keyword of the queue's constructor, called in the chain
    /// (`Queue("ml", default_timeout=3600).enqueue(f)`) or bound to a module variable
    /// (`payroll_queue = Queue(..., default_timeout=1800)`). Its keyword, value and file.
    fn queue_time_limit(
        &self,
        spec: &'a FrameworkSpec,
        body: &FunctionBody,
        call: &CallSite,
        file: u32,
    ) -> Option<(&'a str, Value, u32)> {
        if spec.queue_time_limits.is_empty() {
            return None;
        }
        let path = call.path.as_ref()?;
        let (_, receiver) = path.segs().split_last()?;
        let receiver = QPath(receiver.to_vec());
        // The constructor's call: in this body, where the chain starts
        // (`Queue("ml", default_timeout=3600).enqueue(f)`), or a local's, the body's one call
        // of the queue's class before this one (`queue = Queue(..., default_timeout=3600)`).
        if receiver.is_call() {
            let start = call.range.start();
            let calls = || {
                body.events.iter().filter_map(|event| match &event.kind {
                    EventKind::Call(c) => Some(&**c),
                    _ => None,
                })
            };
            let chained = calls()
                .filter(|c| c.range.start() == start && c.range != call.range)
                .find_map(|c| self.queue_keyword(spec, c));
            if let Some((keyword, value)) = chained {
                return Some((keyword, value, file));
            }
            // A variable of this module stands in the path for what it is bound to.
            let module_var = (self.facts(file)?.vars.get(call.receiver_var?.as_str()))
                .filter(|var| var.path.as_ref() == Some(&receiver));
            let Some(var) = module_var else {
                let made = self.canonical(&receiver);
                let mut before = calls().filter(|c| {
                    c.range.end() <= start
                        && c.path.as_ref().is_some_and(|p| self.canonical(p) == made)
                });
                let constructor = before.next()?;
                let (keyword, value) = before
                    .next()
                    .is_none()
                    .then(|| self.queue_keyword(spec, constructor))??;
                return Some((keyword, value, file));
            };
            return self.var_queue_limit(spec, var, file);
        }
        // An imported variable (`payroll.queues.payroll_queue`).
        let (var, var_file) = self.imported_var(&receiver)?;
        self.var_queue_limit(spec, var, var_file)
    }

    /// The module variable an imported name's path names (`payroll.queues.payroll_queue`): the
    /// variable itself, not what it is bound to.
    fn imported_var(&self, path: &QPath) -> Option<(&'a Value, u32)> {
        let (name, module) = path.segs().split_last()?;
        let file = self.module_of(&QPath(module.to_vec()).dotted())?;
        Some((self.facts(file)?.vars.get(name.name.as_str())?, file))
    }

    /// The time limit of the queue a value names (`@job(etl_queue)`): a module variable of
    /// this module or an imported one, bound to a queue constructor.
    fn queue_value_limit(
        &self,
        spec: &'a FrameworkSpec,
        value: &Value,
        file: u32,
    ) -> Option<(&'a str, Value, u32)> {
        let path = value.path.as_ref()?;
        let (var, var_file) = if path.is_call() {
            let var = self.facts(file)?.vars.get(value.name?.as_str())?;
            (var.path.as_ref() == Some(path)).then_some((var, file))?
        } else {
            self.imported_var(path)?
        };
        self.var_queue_limit(spec, var, var_file)
    }

    /// The time limit a module variable's queue constructor gives (`etl_queue = Queue("etl",
    /// default_timeout=3600)`), found among its module's calls.
    fn var_queue_limit(
        &self,
        spec: &'a FrameworkSpec,
        var: &Value,
        var_file: u32,
    ) -> Option<(&'a str, Value, u32)> {
        let module = self.facts(var_file)?.functions.first()?;
        let (keyword, value) = module.peek(|body| {
            body.events.iter().find_map(|event| match &event.kind {
                EventKind::Call(c) if c.range == var.range => self.queue_keyword(spec, c),
                _ => None,
            })
        })?;
        Some((keyword, value, var_file))
    }

    /// The keyword and value by which a call of a queue's class (catalog `queue-time-limits`)
    /// bounds the queue's jobs.
    fn queue_keyword(
        &self,
        spec: &'a FrameworkSpec,
        constructor: &CallSite,
    ) -> Option<(&'a str, Value)> {
        let made = self.canonical(constructor.path.as_ref()?);
        let limit = spec
            .queue_time_limits
            .iter()
            .find(|limit| limit.calls.find(&made).is_some())?;
        let value = constructor.keyword(&limit.limit.keyword)?;
        Some((limit.limit.keyword.as_str(), value.clone()))
    }

    /// A task decorator called on a function instead of written above it: `remind =
    /// shared_task(_remind)`, `dramatiq.actor(f, max_retries=3)`, `app.task(bind=True)(f)`,
    /// `huey.task()(f)`. The options are the decorator's: the call's own keywords, or those of
    /// the call that made the decorator.
    fn decorator_called(&self, body: &FunctionBody, call: &CallSite, file: u32) -> Option<Task> {
        let path = call.path.as_ref()?;
        if !self.catalog.may_be_task_decorator(path.0.last()?.name) {
            return None;
        }
        let target = call
            .args()
            .first()?
            .path
            .as_ref()
            .filter(|p| !p.is_call())?;
        // The decorator as `@` would name it: the path without the call of the function.
        let mut decorator = path.clone();
        if let Some(last) = decorator.0.last_mut() {
            last.call = Call::No;
        }
        let decorator = self.canonical(&decorator);
        let framework = self.catalog.task_decorator(&decorator)?;
        let app = crate::settings::app_key(&decorator);
        let id = self.resolve_function(&self.canonical(target), None)?;
        // `app.task(bind=True)(f)`: the options are the inner call's, the one this calls.
        let made_by = call
            .method
            .as_str()
            .is_empty()
            .then(|| {
                body.events.iter().find_map(|event| match &event.kind {
                    EventKind::Call(inner) if inner.range == call.func_range => Some(&**inner),
                    _ => None,
                })
            })
            .flatten();
        let keywords = made_by.unwrap_or(call).keywords();
        let options = self.decorator_options(
            framework,
            keywords.iter().map(|(name, value)| (name.as_str(), value)),
            file,
        );
        Some(Task {
            id,
            framework,
            options,
            declared_at: call.range,
            app,
        })
    }

    /// A task's options from its decorator's keywords, after those of its `base=` class (for
    /// Celery, the app's `task_cls` when the task names no base).
    fn decorator_options<'v>(
        &self,
        framework: Framework,
        keywords: impl Iterator<Item = (&'v str, &'v Value)> + Clone,
        file: u32,
    ) -> TaskOptions {
        let mut options = TaskOptions::default();
        let named = keywords.clone().find(|(name, _)| *name == BASE);
        if named.is_none()
            && framework == Framework::Celery
            && let Some(base) = self.app_task_class(file)
        {
            self.inherit_options(&base, &mut options, 0);
            let value = Value {
                path: Some(base),
                ..Value::default()
            };
            options.push(BASE, &value, file);
        }
        if let Some(base) = named
            .and_then(|(_, v)| v.path.as_ref())
            .filter(|path| !path.is_call())
        {
            self.inherit_options(&self.canonical(base), &mut options, 0);
        }
        for (k, v) in keywords {
            options.push(k, v, file);
        }
        options.bind = options
            .get("bind")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        options
    }

    /// The project class a Celery app makes the base of its tasks (`Celery(...,
    /// task_cls=BaseTask)`, or `task_cls="proj.tasks:BaseTask"`).
    fn app_task_class(&self, file: u32) -> Option<QPath> {
        let value = self.settings_of(file).task_cls.as_ref()?.value.as_ref()?;
        let path = match (&value.path, value.as_str()) {
            (Some(path), _) if !path.is_call() => self.canonical(path).into_owned(),
            (_, Some(name)) => self
                .canonical(&QPath::from_dotted(&name.replace(':', ".")))
                .into_owned(),
            _ => return None,
        };
        self.class(&path.dotted()).is_some().then_some(path)
    }

    /// Adds the options the project class `qualname` sets, after those of its own bases.
    fn inherit_options(&self, qualname: &QPath, options: &mut TaskOptions, depth: u32) {
        let Some((file, class)) = self.class(&qualname.dotted()) else {
            return;
        };
        self.inherit_class_options(class, options, depth);
        for (k, v) in class.attrs.iter() {
            options.push(k, v, file);
        }
    }

    /// Adds the options `class`'s project bases set: the last base first, so that an earlier
    /// one wins, as in Python's method resolution order for the simple cases.
    fn inherit_class_options(&self, class: &Class, options: &mut TaskOptions, depth: u32) {
        if depth > 8 {
            return;
        }
        for base in class.bases.iter().rev() {
            self.inherit_options(&self.canonical(base), options, depth + 1);
        }
    }

    fn task_class_framework(&self, class: &Class, depth: u32) -> Option<Framework> {
        if depth > 8 {
            return None;
        }
        class.bases.iter().find_map(|base| {
            let canonical = self.canonical(base);
            self.catalog.task_class(&canonical).or_else(|| {
                let (_, parent) = self.class(&canonical.dotted())?;
                self.task_class_framework(parent, depth + 1)
            })
        })
    }

    /// The project's task an enqueue call sends by a method of the task's own
    /// (`build.apply_async(...)`, `build.s(...).apply_async(...)`).
    pub fn enqueued_task(&self, call: &CallSite, caller: FuncId) -> Option<&Task> {
        let canonical = self.canonical(call.path.as_ref()?);
        let mut receiver = QPath(canonical.0.split_last()?.1.to_vec());
        self.catalog.strip_builders(&mut receiver);
        self.task(self.resolve_function(&receiver, Some(caller))?)
    }

    /// The framework of the task an enqueue call sends by a method of the task's own: the
    /// project's task (`sync.delay(...)`, `sync.configure(lock=k).defer(...)`), or a task
    /// imported from outside the checked tree by a method only one framework has.
    pub fn enqueued_framework(&self, call: &CallSite, caller: FuncId) -> Option<&FrameworkSpec> {
        let canonical = self.canonical(call.path.as_ref()?);
        let mut receiver = QPath(canonical.0.split_last()?.1.to_vec());
        self.catalog.strip_builders(&mut receiver);
        if let Some(id) = self.resolve_function(&receiver, Some(caller)) {
            return self.catalog.framework(self.task(id)?.framework);
        }
        // Not what a call returned (`chain(...)`, `Client().tasks`), anywhere along the path.
        if receiver
            .segs()
            .iter()
            .any(|seg| seg.call != crate::path::Call::No)
        {
            return None;
        }
        let method = call.method.as_str();
        self.catalog
            .frameworks()
            .find(|spec| spec.unresolved_enqueue_methods.iter().any(|m| m == method))
    }

    /// Whether a canonical path names a task of the project (for enqueue detection).
    fn is_task_path(&self, path: &QPath, caller: FuncId) -> bool {
        self.resolve_function(path, Some(caller))
            .is_some_and(|id| self.task_index.contains_key(&id))
    }

    // ------------------------------------------------------------------ calls

    fn classify(&self, call: &CallSite, caller: FuncId) -> CallClass {
        let Some(path) = &call.path else {
            return CallClass::Other;
        };
        let with_self = match self.runtime_member_path(call, caller) {
            Some(path) => path,
            None => self.with_self(path, caller),
        };
        let canonical = self.canonical(&with_self);
        if let Some(enqueue) = self.enqueue(call, &canonical, caller) {
            return enqueue;
        }
        if let Some((index, sink)) = self.catalog.sink(&canonical) {
            if self.catalog.is_dry_run(call) {
                return CallClass::Other;
            }
            let index = u32::try_from(index).unwrap_or(u32::MAX);
            return match self.sink_effect(index, sink, call, caller) {
                Some(effect) => CallClass::Effect(effect),
                None => CallClass::Other,
            };
        }
        if let Some(id) = self.resolve_function(&canonical, Some(caller)) {
            return CallClass::Project(id);
        }
        // `refund_line.run(line_id)`, Huey's `call_local`: the task's body, run here.
        if let Some((_, receiver)) = canonical.0.split_last()
            && let Some(id) = self.resolve_function(&QPath(receiver.to_vec()), Some(caller))
            && let Some(task) = self.task(id)
            && self
                .catalog
                .framework(task.framework)
                .is_some_and(|spec| spec.run_methods.iter().any(|m| m == call.method.as_str()))
        {
            return CallClass::Project(id);
        }
        if self.heuristics
            && let Some(effect) = self.heuristic_effect(call, &canonical)
        {
            return CallClass::Effect(effect);
        }
        CallClass::Other
    }

    fn enqueue(&self, call: &CallSite, canonical: &QPath, caller: FuncId) -> Option<CallClass> {
        let method = call.method.as_str();
        // `chord(header)(callback)`: the call of what `chord(...)` returned (no method name).
        if method.is_empty() && self.catalog.enqueues_when_called(canonical) {
            return Some(CallClass::Enqueue {
                deferred_to_commit: false,
            });
        }
        if self.catalog.enqueues_on_commit(method) {
            return Some(CallClass::Enqueue {
                deferred_to_commit: true,
            });
        }
        // RQ's methods by name, but not a project method of that name (`outbox.enqueue(topic,
        // payload)` that inserts a row).
        if self.catalog.is_enqueue_function(canonical)
            || (self
                .catalog
                .rq_method(method)
                .is_some_and(|rq| rq.function.find(call).is_some())
                && self.resolve_function(canonical, Some(caller)).is_none())
        {
            return Some(CallClass::Enqueue {
                deferred_to_commit: false,
            });
        }
        let mut receiver_path = QPath(canonical.0.split_last()?.1.to_vec());
        // `task.configure(lock=k).defer(...)`: the task with other options.
        self.catalog.strip_builders(&mut receiver_path);
        // `task.delay(...)`, `actor.send(...)`: a method of a task object.
        if let Some(id) = self.resolve_function(&receiver_path, Some(caller))
            && let Some(task) = self.task(id)
            && self
                .catalog
                .framework(task.framework)
                .is_some_and(|spec| spec.enqueue_methods.iter().any(|m| m == method))
        {
            return Some(CallClass::Enqueue {
                deferred_to_commit: self.base_defers_to_commit(task)
                    || self.decorated_on_commit(id),
            });
        }
        // Calling a Huey task enqueues it (djhuey's `on_commit_task` when the commit comes).
        if let Some(id) = self.resolve_function(canonical, Some(caller))
            && let Some(task) = self.task(id)
            && self
                .catalog
                .framework(task.framework)
                .is_some_and(|spec| spec.call_enqueues)
        {
            return Some(CallClass::Enqueue {
                deferred_to_commit: self.decorated_on_commit(id),
            });
        }
        // `chain(sigs).apply_async()`: each task of the canvas is sent through its own
        // `apply_async` (the chain's first now, the others by the worker after it).
        let enqueue_method = || {
            self.catalog
                .frameworks()
                .any(|spec| spec.unresolved_enqueue_methods.iter().any(|m| m == method))
        };
        if receiver_path.is_call()
            && self.catalog.enqueues_when_called(&receiver_path)
            && enqueue_method()
        {
            return Some(CallClass::Enqueue {
                deferred_to_commit: self.canvas_defers_to_commit(call, caller),
            });
        }
        // `delay`, `apply_async`, `kiq` on a task the project does not define still enqueue;
        // not a project method of that name (`flight.delay(minutes)` on a model).
        // Nor a local pool's (`ThreadPool(4).apply_async(f, args)`).
        if enqueue_method()
            && !self.is_task_path(canonical, caller)
            && self.resolve_function(canonical, Some(caller)).is_none()
            && !self.catalog.runs_locally(&receiver_path)
        {
            return Some(CallClass::Enqueue {
                deferred_to_commit: false,
            });
        }
        None
    }

    /// Whether every task a canvas sent by `call` (`chain(...).apply_async()`) names is one
    /// whose base enqueues through the commit: its signatures, given as arguments or in a list.
    fn canvas_defers_to_commit(&self, call: &CallSite, caller: FuncId) -> bool {
        let Some(function) = self.function(caller) else {
            return false;
        };
        // `workflow = chain(...)` then `workflow.apply_async()`: the last call before it that
        // made what it is called on.
        let receiver = call
            .path
            .as_ref()
            .and_then(|path| path.0.split_last())
            .map(|(_, receiver)| receiver);
        function.peek(|body| {
            let inline = body.events.iter().find_map(|event| match &event.kind {
                EventKind::Call(canvas)
                    if canvas.range.start() == call.range.start()
                        && canvas.range.end() < call.range.end() =>
                {
                    Some(canvas)
                }
                _ => None,
            });
            let held = || {
                let receiver = receiver.filter(|r| r.last().is_some_and(|s| s.call != Call::No))?;
                body.events
                    .iter()
                    .rev()
                    .find_map(|event| match &event.kind {
                        EventKind::Call(canvas)
                            if canvas.range.end() <= call.range.start()
                                && canvas.path.as_ref().is_some_and(|p| p.0[..] == *receiver) =>
                        {
                            Some(canvas)
                        }
                        _ => None,
                    })
            };
            let Some(canvas) = inline.or_else(held) else {
                return false;
            };
            let signatures: Vec<&Value> = canvas
                .args()
                .iter()
                .flat_map(|arg| match &arg.lit {
                    Lit::Seq(items) => items.iter().collect(),
                    _ => vec![arg],
                })
                .collect();
            !signatures.is_empty()
                && signatures.iter().all(|signature| {
                    signature
                        .path
                        .as_ref()
                        .and_then(|path| {
                            let first_call = path.segs().iter().position(|s| s.call != Call::No)?;
                            let task = QPath(path.segs()[..first_call].to_vec());
                            let id = self.resolve_function(&self.canonical(&task), Some(caller))?;
                            self.task(id)
                        })
                        .is_some_and(|task| self.base_defers_to_commit(task))
                })
        })
    }

    /// Whether the task's `base=` class enqueues through the commit: its `apply_async` (which
    /// `delay` calls too) hands the message to `transaction.on_commit`.
    /// Whether a task's decorator makes its enqueue wait for the commit: djhuey's
    /// `on_commit_task`, Procrastinate's Django app, whose jobs are rows of the transaction.
    fn decorated_on_commit(&self, id: FuncId) -> bool {
        self.function(id).is_some_and(|function| {
            function.decorators.iter().any(|decorator| {
                decorator
                    .path
                    .as_ref()
                    .is_some_and(|path| self.catalog.is_on_commit_decorator(&self.canonical(path)))
            })
        })
    }

    fn base_defers_to_commit(&self, task: &Task) -> bool {
        let Some(base) = task.options.get(BASE).and_then(|v| v.path.as_ref()) else {
            return false;
        };
        let base = self.canonical(base).dotted();
        let Some(apply_async) = self.find_method(&base, "apply_async", 0) else {
            return false;
        };
        let Some(facts) = self.facts(apply_async.file) else {
            return false;
        };
        // The method and the functions nested in it (a callback handed to `on_commit`).
        facts.functions.iter().enumerate().any(|(i, function)| {
            let inside = i == apply_async.func as usize
                || outermost(facts, function).qualname
                    == facts.functions[apply_async.func as usize].qualname;
            inside
                && function.events().iter().any(|event| match &event.kind {
                    EventKind::Call(call) => {
                        self.catalog.enqueues_on_commit(call.method.as_str())
                            || call.path.as_ref().is_some_and(|p| {
                                self.catalog.transactions.is_on_commit(&self.canonical(p))
                            })
                    }
                    _ => false,
                })
        })
    }

    fn sink_effect(
        &self,
        index: u32,
        sink: &Sink,
        call: &CallSite,
        caller: FuncId,
    ) -> Option<Effect> {
        if let Some(method) = &sink.method {
            let value = match (&method.keyword, method.position) {
                (Some(k), Some(p)) => call.arg(p, k),
                (Some(k), None) => call.keyword(k),
                (None, Some(p)) => call.args().get(p),
                (None, None) => None,
            };
            let verb = http_method(method, value, call)?;
            if !method.writes.iter().any(|w| w.eq_ignore_ascii_case(verb)) {
                return None;
            }
        }
        let (key, key_func) = match &sink.key {
            None => (KeyStatus::Unsupported, None),
            Some(spec) => match key_status(spec, call) {
                KeyStatus::Unknown if let Some(param) = spread_key(spec, call) => {
                    (KeyStatus::Spread(param), None)
                }
                KeyStatus::Unknown => self
                    .helper_headers_key(spec, call, caller)
                    .unwrap_or((KeyStatus::Unknown, None)),
                KeyStatus::Missing => self
                    .client_headers_key(spec, call, caller)
                    .unwrap_or((KeyStatus::Missing, None)),
                status => (status, None),
            },
        };
        let in_items = sink.key.as_ref().is_some_and(|spec| {
            spec.field.is_some()
                && spec
                    .field_in
                    .iter()
                    .any(|list| call.keyword(list).is_some())
        });
        Some(Effect {
            kind: sink.kind,
            sink: Some(index),
            random_default: sink.random_default,
            key,
            key_func,
            in_items,
        })
    }

    /// The key in the headers a project helper returns (`headers=partner_headers(token)`),
    /// with the helper it is written in (none when it is the caller's, passed in): `Missing`
    /// when the helper's dict holds no key header and nothing unknown.
    fn helper_headers_key(
        &self,
        spec: &KeySpec,
        call: &CallSite,
        caller: FuncId,
    ) -> Option<(KeyStatus, Option<FuncId>)> {
        let given = call.keyword(HEADERS_KEYWORD)?;
        let (helper, headers) = self.returned_headers(given, caller)?;
        let mut key = header_key(spec, headers).unwrap_or(KeyStatus::Missing);
        // A parameter of the helper's, not of the function making the call: what it derives
        // from is what the call's arguments derive from (`carrier_headers(key)` with a key
        // made of `uuid4()` or `self.request.retries`).
        if let KeyStatus::Present(value) = &mut key
            && value.flags & Value::PARAM != 0
        {
            value.flags &= !Value::PARAM;
            value.taint.clone_from(&given.taint);
            return Some((key, None));
        }
        Some((key, Some(helper)))
    }

    /// The key header of a client a project helper returns and the call is made on
    /// (`session = keyed_session(key)`, then `session.post(...)`), with the helper it is
    /// written in (none when it is the helper's parameter: the caller's own key).
    fn client_headers_key(
        &self,
        spec: &KeySpec,
        call: &CallSite,
        caller: FuncId,
    ) -> Option<(KeyStatus, Option<FuncId>)> {
        let path = call.path.as_ref()?;
        let (_, receiver) = path.0.split_last()?;
        let receiver = QPath(receiver.to_vec());
        if !receiver.is_call() {
            return None;
        }
        let canonical = self
            .canonical(&self.with_self(&receiver, caller))
            .into_owned();
        let helper = self.resolve_function(&canonical, Some(caller))?;
        let headers = self
            .function(helper)?
            .returns()
            .iter()
            .find_map(|value| value.call.as_deref()?.keyword(HEADERS_KEYWORD))?;
        match header_key(spec, headers)? {
            KeyStatus::Present(mut value) => {
                if value.flags & Value::PARAM != 0 {
                    value.flags &= !Value::PARAM;
                    value.taint.clear();
                    return Some((KeyStatus::Present(value), None));
                }
                Some((KeyStatus::Present(value), Some(helper)))
            }
            _ => Some((KeyStatus::Unknown, None)),
        }
    }

    /// The dict a project helper returns, when `headers` is its result and it returns one
    /// dict (kept with its key headers only, [`crate::facts`]).
    fn returned_headers(&self, headers: &Value, caller: FuncId) -> Option<(FuncId, &Value)> {
        // Not a dict changed after the call (`h = auth_headers(t); h["X-Key"] = k`).
        if headers.dict().is_some() {
            return None;
        }
        let path = headers.path.as_ref().filter(|p| p.is_call())?;
        let canonical = self.canonical(&self.with_self(path, caller)).into_owned();
        let helper = self.resolve_function(&canonical, Some(caller))?;
        let mut dicts = self
            .function(helper)?
            .returns()
            .iter()
            .filter(|value| value.dict().is_some());
        let only = dicts.next()?;
        dicts.next().is_none().then_some((helper, only))
    }

    fn heuristic_effect(&self, call: &CallSite, canonical: &QPath) -> Option<Effect> {
        let mut method = call.method.as_str();
        let receiver = match call.receiver {
            Some(receiver) => receiver.as_str(),
            // `from acmepay import charge`, then `charge(...)`: `acmepay.charge(...)` by another
            // name, a function of the module it is imported from.
            None => {
                let [.., module, function] = &canonical.0[..] else {
                    return None;
                };
                if module.call != Call::No
                    || self.is_root(canonical.0[0].name)
                    || self.is_project_path(canonical)
                {
                    return None;
                }
                // Imported under another name (`send as send_text`): the function's own.
                method = function.name.as_str();
                module.name.as_str()
            }
        };
        let h = &self.catalog.heuristics;
        // ORM calls are local writes, never effects, whatever the model's name: managers,
        // related managers (`order.payments.create`), and `<model>_set`.
        if self.models.is_related_name(receiver) || receiver.ends_with("_set") {
            return None;
        }
        // A method a project model defines (`order.send_mail(...)` on an untyped `order`) is the
        // model's own, followed where the type is known and never guessed at.
        if self.models.is_model_method(method) {
            return None;
        }
        // A class of a known library is not an unknown object: its effects are in the catalog.
        // An object it hands out from the project's configuration is (`settings.GATEWAY`).
        if canonical
            .0
            .first()
            .is_some_and(|head| h.known_libraries.iter().any(|l| l == head.name.as_str()))
            && !h.configured_objects.iter().any(|p| p.matches(canonical))
        {
            return None;
        }
        let written = call.path.as_ref();
        if self.catalog.orm.through_manager(canonical)
            || written.is_some_and(|p| self.catalog.orm.through_manager(p))
            || receiver == "self" && self.is_project_path(canonical)
        {
            return None;
        }
        // Calls on the project's own classes, or on their members, are followed, not guessed.
        if self.on_project_instance(canonical) {
            return None;
        }
        let strong = h.strong_verbs.iter().any(|v| v == method);
        let receiver_lower = receiver.to_ascii_lowercase();
        let weak = h.weak_verbs.iter().any(|v| v == method)
            && h.domain_words
                .iter()
                .any(|w| receiver_lower.contains(w.as_str()));
        if !(strong || weak) {
            return None;
        }
        let key = call
            .keywords()
            .iter()
            .find(|(k, _)| h.is_key_keyword(k))
            .map_or(
                if call.star_kwargs {
                    call.spreads.map_or(KeyStatus::Unknown, KeyStatus::Spread)
                } else {
                    KeyStatus::Missing
                },
                |(_, v)| {
                    if v.is_none() {
                        KeyStatus::Missing
                    } else {
                        KeyStatus::Present(Box::new(v.clone()))
                    }
                },
            );
        Some(Effect {
            kind: self.catalog.heuristic_kind(&receiver_lower, method),
            sink: None,
            random_default: false,
            key,
            key_func: None,
            in_items: false,
        })
    }

    /// ORM writes, and cache or Redis writes that record a done state.
    pub fn is_state_write(&self, call: &CallSite) -> bool {
        if call
            .path
            .as_ref()
            .is_some_and(|path| self.catalog.orm.is_write(call.method.as_str(), path))
        {
            return true;
        }
        // A related manager (`bill.billinglog_set.create(...)`, `order.payments.update(...)`).
        if let Some(receiver) = call.receiver.map(Sym::as_str)
            && (receiver.ends_with("_set") || self.models.is_related_name(receiver))
            && self
                .catalog
                .orm
                .related_manager_writes
                .has(call.method.as_str())
        {
            return true;
        }
        if call
            .path
            .as_ref()
            .is_some_and(|path| self.catalog.writes_rows(&self.canonical(path), call))
        {
            return true;
        }
        let writes = &self.catalog.state_writes;
        if !writes
            .cache_methods
            .iter()
            .any(|m| **m == *call.method.as_str())
        {
            return false;
        }
        let receiver = call.receiver_lowercase();
        writes
            .receiver_words
            .iter()
            .any(|w| receiver.contains(w.as_str()))
            || call.path.as_ref().is_some_and(|p| {
                p.0.iter().rev().skip(1).any(|s| {
                    writes
                        .receiver_words
                        .iter()
                        .any(|w| s.name.to_ascii_lowercase().contains(w.as_str()))
                })
            })
    }

    fn is_project_path(&self, path: &QPath) -> bool {
        path.0.first().is_some_and(|s| s.name == "self") || self.split_module(path).is_some()
    }

    // ------------------------------------------------------------------ summaries

    /// Computes the summaries rules start from: those of tasks and of functions with a
    /// transaction, and of every function they reach. Functions nothing starts from (most of a
    /// large project) are neither classified nor summarised here.
    fn summarize(&mut self) {
        self.transaction_functions = self
            .all_functions()
            .collect::<Vec<_>>()
            .into_par_iter()
            .filter(|&(_, function)| self.has_transaction(function))
            .map(|(id, _)| id)
            .collect();
        let mut roots: Vec<FuncId> = self.tasks.iter().map(|task| task.id).collect();
        roots.extend(&self.transaction_functions);
        // Everything the roots reach, a level at a time; each level is classified in parallel.
        let mut reached: HashSet<FuncId> = roots.iter().copied().collect();
        let mut frontier = roots;
        while !frontier.is_empty() {
            let next: Vec<FuncId> = frontier
                .par_iter()
                .flat_map_iter(|&id| self.summary_dependencies(id))
                .collect();
            frontier = next.into_iter().filter(|id| reached.insert(*id)).collect();
        }
        let mut ids: Vec<FuncId> = reached.into_iter().collect();
        ids.sort_unstable();
        // An inherited method run for a subclass opens its transaction too: the calls inside
        // it are the subclass's (`with atomic(): self.apply()` in a base).
        let variants: Vec<FuncId> = ids
            .iter()
            .copied()
            .filter(|id| id.ctx != 0)
            .filter(|&id| self.function(id).is_some_and(|f| self.has_transaction(f)))
            .collect();
        if !variants.is_empty() {
            self.transaction_functions.extend(variants);
            self.transaction_functions.sort_unstable();
        }
        let mut done: HashMap<FuncId, Summary> =
            HashMap::with_capacity_and_hasher(ids.len(), Default::default());
        // Most functions call no project function: their summaries depend on nothing else and
        // are computed in parallel first. A computation that would need another function's
        // summary stops being a probe ([`LEAF_PROBE`]) and is left to the pass below, which
        // visits functions in a fixed order, so results (cycles included) are the same on
        // every run.
        let leaves: Vec<(FuncId, Summary)> = ids
            .par_iter()
            .filter_map(|&id| {
                LEAF_PROBE.set(Some(false));
                let summary =
                    self.compute_summary(id, &mut HashMap::default(), &mut HashSet::default());
                let needed_others = LEAF_PROBE.replace(None) != Some(false);
                (!needed_others).then_some((id, summary))
            })
            .collect();
        done.extend(leaves);
        let mut visiting = HashSet::default();
        for id in ids {
            self.summary_of(id, &mut done, &mut visiting);
        }
        self.summaries = done;
    }

    /// The functions whose summaries the summary of `id` reads: the project functions it calls
    /// and those whose results it returns.
    fn summary_dependencies(&self, id: FuncId) -> Vec<FuncId> {
        let (Some(function), Some(classes)) = (self.function(id), self.call_classes(id)) else {
            return Vec::new();
        };
        if id.func == 0 || self.no_reach {
            return Vec::new();
        }
        let mut found: Vec<FuncId> = classes
            .iter()
            .filter_map(|class| match class {
                Some(CallClass::Project(callee)) => Some(*callee),
                _ => None,
            })
            .collect();
        for value in function.returns() {
            for taint in &value.taint {
                if let Taint::Call { event, .. } = taint
                    && let Some(callee) = self.returned_callee(id, function, *event)
                {
                    found.push(callee);
                }
            }
        }
        found
    }

    /// The project function whose result the call at `event` of `function` returns.
    /// The project function whose result the call at `event` of `id` (`function`) gives.
    pub fn returned_callee(&self, id: FuncId, function: &Function, event: u32) -> Option<FuncId> {
        let path = match &function.events().get(event as usize)?.kind {
            EventKind::Call(call) => call.path.as_ref()?,
            _ => return None,
        };
        self.resolve_function(&self.canonical(path), Some(id))
            .filter(|&callee| callee != id)
    }

    /// Whether a function opens a transaction (a `with` block or a decorator).
    fn has_transaction(&self, function: &Function) -> bool {
        function.has_with()
            && function.peek(|body| {
                body.blocks
                    .iter()
                    .any(|block| self.opens_transaction(block))
            })
            || self.transaction_decorated(function)
    }

    /// Whether a block is a `with` over a transaction (`transaction.atomic()`, `session.begin()`).
    pub(crate) fn opens_transaction(&self, block: &crate::facts::Block) -> bool {
        self.opens_transaction_at(block, 0)
    }

    fn opens_transaction_at(&self, block: &crate::facts::Block, depth: u32) -> bool {
        let BlockKind::With { items } = &block.kind else {
            return false;
        };
        items.iter().any(|item| {
            item.path.as_ref().is_some_and(|path| {
                self.transaction_context(path).is_some()
                    || (depth < 4 && self.transaction_context_helper(&self.canonical(path), depth))
            })
        })
    }

    /// The canonical path of a `with` item the catalog knows opens a transaction
    /// (`transaction.atomic()`, `session.begin()`, read with its receiver's name).
    fn transaction_context(&self, path: &QPath) -> Option<QPath> {
        let receiver = path.0.len().checked_sub(2).map(|i| &*path.0[i].name);
        let canonical = self.canonical(path);
        self.catalog
            .transactions
            .is_context(&canonical, receiver)
            .then(|| canonical.into_owned())
    }

    /// Whether the transaction `tx` of `id` (a block, or [`FUNCTION_TRANSACTION`]) is one that
    /// `transaction.on_commit` applies to, so that the fix can name it; a SQLAlchemy session's
    /// or psycopg's is not.
    pub fn transaction_has_on_commit(&self, id: FuncId, tx: u32) -> bool {
        if tx == FUNCTION_TRANSACTION {
            return self
                .function(id)
                .is_some_and(|f| self.decorator_has_on_commit(f));
        }
        self.function(id)
            .and_then(|f| f.blocks().get(tx as usize))
            .is_some_and(|block| self.block_has_on_commit(block, 0))
    }

    /// Whether a function's transaction decorator opens one that `transaction.on_commit`
    /// applies to (Django's `@transaction.atomic`, not Tortoise's `@atomic()`).
    fn decorator_has_on_commit(&self, function: &Function) -> bool {
        self.transaction_decorator(function)
            .is_some_and(|(_, opens)| self.catalog.transactions.has_on_commit(&opens))
    }

    /// [`Project::transaction_has_on_commit`] of a `with` block, through the project's
    /// context-manager helpers (`with unit_of_work():` whose body is `with atomic(): yield`).
    fn block_has_on_commit(&self, block: &crate::facts::Block, depth: u32) -> bool {
        let BlockKind::With { items } = &block.kind else {
            return false;
        };
        items
            .iter()
            .filter_map(|item| item.path.as_ref())
            .any(|path| {
                let canonical = self.canonical(path);
                if self.catalog.transactions.has_on_commit(&canonical) {
                    return true;
                }
                depth < 4
                    && self.transaction_context_helper(&canonical, depth)
                    && self
                        .resolve_function(&canonical, None)
                        .and_then(|id| self.function(id))
                        .is_some_and(|helper| {
                            self.decorator_has_on_commit(helper)
                                || helper
                                    .blocks()
                                    .iter()
                                    .any(|block| self.block_has_on_commit(block, depth + 1))
                        })
            })
    }

    /// Whether `path` calls a project generator made a context manager
    /// (`@contextlib.contextmanager`) that opens a transaction around its `yield`:
    /// `with atomic_step(): ...` runs the caller's block in that transaction.
    fn transaction_context_helper(&self, path: &QPath, depth: u32) -> bool {
        if !path.is_call() || !path.0.first().is_some_and(|head| self.is_root(head.name)) {
            return false;
        }
        let Some(function) = self
            .resolve_function(path, None)
            .and_then(|id| self.function(id))
        else {
            return false;
        };
        let is_context_manager = function.decorators.iter().any(|d| {
            d.path
                .as_ref()
                .is_some_and(|p| self.catalog.is_context_manager(&self.canonical(p)))
        });
        // The caller's block runs at the `yield`: in the transaction only when a block
        // around the `yield` opens it (not `with atomic(): log(...)`, then `yield`).
        let blocks = function.blocks();
        is_context_manager
            && (self.transaction_decorated(function)
                || function.body().yields.iter().any(|&at| {
                    function.ancestors(at).any(|b| {
                        blocks
                            .get(b as usize)
                            .is_some_and(|block| self.opens_transaction_at(block, depth + 1))
                    })
                }))
    }

    /// Whether a function is decorated `@transaction.atomic` (or the like), also through a
    /// wrapper (`@method_decorator(transaction.atomic)`).
    fn transaction_decorated(&self, function: &Function) -> bool {
        self.transaction_decorator(function).is_some()
    }

    /// The decorator that runs a function in a transaction, with the canonical path of what
    /// opens it: `@transaction.atomic`, `@db.atomic()`, or the decorator a wrapper applies
    /// (`@method_decorator(transaction.atomic)`).
    fn transaction_decorator<'f>(&self, function: &'f Function) -> Option<(&'f Decorator, QPath)> {
        let transactions = &self.catalog.transactions;
        let opening = |path: &QPath| {
            let canonical = self.canonical(path);
            transactions
                .is_decorator(&canonical)
                .then(|| canonical.into_owned())
        };
        function.decorators.iter().find_map(|d| {
            let path = d.path.as_ref()?;
            let opens = opening(path)
                .or_else(|| {
                    (d.called && transactions.is_decorator_wrapper(&self.canonical(path)))
                        .then(|| {
                            d.args
                                .first()
                                .and_then(|a| a.path.as_ref())
                                .and_then(opening)
                        })
                        .flatten()
                })
                .or_else(|| {
                    (!d.called)
                        .then(|| self.project_transaction_decorator(&self.canonical(path)))
                        .flatten()
                })?;
            Some((d, opens))
        })
    }

    /// What a decorator the project defines runs the decorated function in, when that is a
    /// transaction: `def in_transaction(func):` whose wrapper calls `func` inside `with
    /// transaction.atomic():`, or one that returns `transaction.atomic(func)`. The canonical
    /// path of what opens it.
    fn project_transaction_decorator(&self, path: &QPath) -> Option<QPath> {
        if !path.0.first().is_some_and(|head| self.is_root(head.name)) {
            return None;
        }
        let id = self.resolve_function(path, None)?;
        if let Ok(memo) = self.decorator_transactions.read()
            && let Some(found) = memo.get(&id)
        {
            return found.clone();
        }
        let found = self.decorator_transaction(id);
        if let Ok(mut memo) = self.decorator_transactions.write() {
            memo.insert(id, found.clone());
        }
        found
    }

    fn decorator_transaction(&self, id: FuncId) -> Option<QPath> {
        let decorator = self.function(id)?;
        let param = decorator.params.first()?.name();
        for value in decorator.returns() {
            let Some(path) = &value.path else { continue };
            let canonical = self.canonical(path);
            // `return transaction.atomic(func)`.
            if self.catalog.transactions.is_decorator(&canonical) {
                return Some(canonical.into_owned());
            }
            // `return wrapper`, whose body calls `func` in a transaction.
            let Some(wrapper) = self
                .resolve_function(&canonical, Some(id))
                .filter(|&w| w != id)
                .and_then(|w| self.function(w))
            else {
                continue;
            };
            for event in wrapper.events() {
                let EventKind::Call(call) = &event.kind else {
                    continue;
                };
                let calls_func = call
                    .path
                    .as_ref()
                    .is_some_and(|p| matches!(p.segs(), [only] if only.name == param));
                if !calls_func {
                    continue;
                }
                for b in wrapper.ancestors(event.block) {
                    let Some(BlockKind::With { items }) =
                        wrapper.blocks().get(b as usize).map(|blk| &blk.kind)
                    else {
                        continue;
                    };
                    if let Some(opens) = items
                        .iter()
                        .find_map(|item| self.transaction_context(item.path.as_ref()?))
                    {
                        return Some(opens);
                    }
                }
            }
        }
        None
    }

    /// The decorator that runs a function in a transaction, as written (`@db.atomic()`,
    /// `@method_decorator(transaction.atomic)`), for messages.
    pub fn transaction_decorator_text(&self, id: FuncId) -> Option<String> {
        let (decorator, _) = self.transaction_decorator(self.function(id)?)?;
        let text = self.source_text(id.file, decorator.range);
        Some(if text.starts_with('@') {
            text
        } else {
            format!("@{text}")
        })
    }

    /// Computes the summary of `id` into `done` (and those of what it calls).
    fn summary_of(
        &self,
        id: FuncId,
        done: &mut HashMap<FuncId, Summary>,
        visiting: &mut HashSet<FuncId>,
    ) {
        if let Some(needed) = LEAF_PROBE.get() {
            if !needed {
                LEAF_PROBE.set(Some(true));
            }
            return;
        }
        // A cycle: what is being computed further up the stack counts as nothing here.
        if done.contains_key(&id) || self.summaries.contains_key(&id) || !visiting.insert(id) {
            return;
        }
        let summary = self.compute_summary(id, done, visiting);
        visiting.remove(&id);
        done.insert(id, summary);
    }

    fn compute_summary(
        &self,
        id: FuncId,
        done: &mut HashMap<FuncId, Summary>,
        visiting: &mut HashSet<FuncId>,
    ) -> Summary {
        let Some(function) = self.function(id) else {
            return Summary::default();
        };
        let mut summary = Summary {
            complete: true,
            ..Summary::default()
        };
        // `TWICE_NO_REACH=1`: summaries stay empty, so nothing is followed into helpers (a
        // developer switch to measure what reach costs and finds).
        if id.func == 0 || self.no_reach {
            return summary;
        }
        summary.returns_false_when_done = returns_false_when_done(function);
        if summary.returns_false_when_done {
            summary.claim_marker = self.claim_marker(function);
        } else if let [answer] = function.returns()
            && answer.flags & (Value::MARKER | Value::CREATED) != 0
            && function.events().iter().any(
                |event| matches!(&event.kind, EventKind::Call(call) if call.range == answer.range),
            )
        {
            // `return cache.add(key, 1, ttl)`, `return created` after `get_or_create`: the
            // helper answers whether this run set the marker, which it leaves set. Negated
            // (`return not cache.add(...)`, a done-check) it answers whether it was set before.
            summary.returns_false_when_done = answer.flags & Value::DONE_TEST == 0;
            summary.claim_marker = Some((answer.range, answer.flags & Value::CREATED != 0));
        }
        summary.raises_when_done = function.events().iter().any(|event| {
            matches!(&event.kind, EventKind::Guard(guard)
                if guard.exit == Exit::Raise && is_done_test(&guard.test))
                && function
                    .block_kinds(event.block)
                    .all(|kind| matches!(kind, BlockKind::Body | BlockKind::With { .. }))
        });
        // `if not claim_receipt(order_id): return` in a helper: the claim helper's summary says
        // whether it is a done-check, as it does for the same guard in a task.
        let mut helper_guards: Vec<(&QPath, bool)> = Vec::new();
        for event in function.events() {
            if let EventKind::Guard(guard) = &event.kind
                && let GuardTest::Helper { path, negated } = &guard.test
                && let Some(callee) = self.resolve_function(&self.canonical(path), Some(id))
            {
                self.summary_of(callee, done, visiting);
                if done
                    .get(&callee)
                    .or_else(|| self.summaries.get(&callee))
                    .is_some_and(|s| s.guards(*negated, function))
                {
                    helper_guards.push((path, *negated));
                }
            }
        }
        let working = self.working_guards(id, function, |callee| {
            self.summary_of(callee, done, visiting);
            done.get(&callee)
                .or_else(|| self.summaries.get(&callee))
                .is_some_and(|s| !s.effects.is_empty())
        });
        let guarded_at = |i: usize| {
            dominating_guards(self, function, i, &working).any(|test| match test {
                GuardTest::Helper { path, negated } => helper_guards.contains(&(path, *negated)),
                other => is_done_test(other),
            })
        };
        // Whether the event at `i` is repeated by a loop that records no progress per iteration
        // (no write in its body) and no guard precedes it.
        let repeated_by_loop = |i: usize, block: u32| {
            !guarded_at(i)
                && function.repeating_loop(block).is_some_and(|loop_block| {
                    !function.events().iter().enumerate().any(|(j, other)| {
                        j != i
                            && function.block_within(other.block, loop_block)
                            && matches!(&other.kind, EventKind::Call(c) if self.is_state_write(c))
                    })
                })
        };
        let mut self_calls: Vec<(u32, bool)> = Vec::new();
        for (i, event) in function.events().iter().enumerate() {
            // `row.sent = True` in `with session.begin():`, written when the block commits.
            if matches!(event.kind, EventKind::AttrAssign(_))
                && self.session_write(function, i).is_some()
            {
                summary.writes_state = true;
            }
            let EventKind::Call(call) = &event.kind else {
                continue;
            };
            if function.is_deferred(event.block) {
                continue;
            }
            if self.is_state_write(call) {
                summary.writes_state = true;
            }
            let here = Hop {
                func: id,
                event: u32::try_from(i).unwrap_or(u32::MAX),
            };
            if is_dynamic_call(call) {
                summary.complete = false;
            }
            match self.call_class(id, i) {
                Some(CallClass::Enqueue {
                    deferred_to_commit: false,
                }) if summary.enqueue.is_none() => {
                    summary.enqueue = Some(here);
                    summary.enqueue_next = here.event;
                }
                Some(CallClass::Effect(_)) => summary.effects.push(Reached {
                    origin: here,
                    next: here,
                    guarded: guarded_at(i),
                    followed_inside: false,
                    looped_inside: repeated_by_loop(i, event.block),
                }),
                // `for child in folder.children.all(): archive_tree(child)`: the function
                // itself again, whose effects are what this very summary collects.
                Some(CallClass::Project(callee)) if *callee == id => {
                    self_calls.push((event.block, repeated_by_loop(i, event.block)));
                }
                Some(CallClass::Project(callee)) => {
                    self.summary_of(*callee, done, visiting);
                    let Some(callee_summary) =
                        done.get(callee).or_else(|| self.summaries.get(callee))
                    else {
                        continue;
                    };
                    summary.writes_state |= callee_summary.writes_state;
                    summary.complete &= callee_summary.complete;
                    if summary.enqueue.is_none()
                        && !self.skips_branch(*callee, callee_summary.enqueue_next, call)
                    {
                        summary.enqueue = callee_summary.enqueue;
                        summary.enqueue_next = here.event;
                    }
                    let guarded_here = guarded_at(i);
                    let looped = repeated_by_loop(i, event.block);
                    for reached in &callee_summary.effects {
                        if summary.effects.len() >= MAX_REACHED {
                            break;
                        }
                        if self.skips_branch(*callee, reached.next.event, call) {
                            continue;
                        }
                        summary.effects.push(Reached {
                            origin: reached.origin,
                            next: here,
                            guarded: reached.guarded || guarded_here,
                            followed_inside: reached.followed_inside,
                            looped_inside: reached.looped_inside || looped,
                        });
                    }
                }
                _ => {}
            }
        }
        let events = function.events();
        // A function that calls itself in a loop, or on a path with an effect, repeats that
        // effect once per call: it is in a loop.
        for reached in &mut summary.effects {
            let block = events
                .get(reached.next.event as usize)
                .map_or(0, |e| e.block);
            if self_calls
                .iter()
                .any(|&(at, looped)| looped || !function.exclusive(at, block))
            {
                reached.looped_inside = true;
            }
        }
        // An effect that another one follows here, on a path through both, is repeated when
        // that one fails (the list is in event order, a helper's effects in their own).
        for k in 0..summary.effects.len() {
            let at = &summary.effects[k];
            let block = |hop: Hop| events.get(hop.event as usize).map_or(0, |e| e.block);
            let followed = summary.effects[k + 1..].iter().any(|later| {
                later.next.event > at.next.event
                    && !function.exclusive(block(at.next), block(later.next))
            });
            if followed {
                summary.effects[k].followed_inside = true;
            }
        }
        for value in function.returns() {
            // `return key, timezone.now()`: each item's sources, by their place; otherwise
            // the whole value's.
            let items: Vec<(u8, &[Taint])> = match &value.lit {
                Lit::Seq(items) => items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| (u8::try_from(i + 1).unwrap_or(0), &item.taint[..]))
                    .collect(),
                _ => vec![(0, &value.taint[..])],
            };
            for (at, taints) in items {
                for taint in taints {
                    match taint {
                        Taint::Nondet { range, name } => {
                            summary.returns_nondet.push(Returned {
                                element: at,
                                source: (id.file, *range, name.as_str().to_string()),
                            });
                        }
                        Taint::Meta { range, index } => {
                            summary.returns_meta.push(Returned {
                                element: at,
                                source: (id.file, *range, *index),
                            });
                        }
                        // What a caller passes for the parameter is in its own call's value.
                        Taint::Param { .. } => {}
                        Taint::Call { event, element } => {
                            let Some(callee) = self.returned_callee(id, function, *event) else {
                                continue;
                            };
                            self.summary_of(callee, done, visiting);
                            let Some(callee_summary) =
                                done.get(&callee).or_else(|| self.summaries.get(&callee))
                            else {
                                continue;
                            };
                            // The callee's sources in the part returned, placed where it is
                            // returned (all of it keeps the callee's places).
                            let place = |from: u8| if at == 0 { from } else { at };
                            for found in &callee_summary.returns_nondet {
                                if found.in_element(*element) {
                                    summary.returns_nondet.push(Returned {
                                        element: place(found.element),
                                        source: found.source.clone(),
                                    });
                                }
                            }
                            for found in &callee_summary.returns_meta {
                                if found.in_element(*element) {
                                    summary.returns_meta.push(Returned {
                                        element: place(found.element),
                                        source: found.source,
                                    });
                                }
                            }
                        }
                    }
                }
            }
            if value.flags & Value::DONE_TEST != 0
                || value
                    .path
                    .as_ref()
                    .and_then(QPath::last_name)
                    .is_some_and(|m| self.catalog.orm.exists_methods.has(m))
            {
                let field = value.name.filter(|_| value.flags & Value::DONE_TEST != 0);
                summary.done_field = if summary.returns_done_check {
                    summary.done_field.filter(|known| Some(*known) == field)
                } else {
                    field
                };
                summary.returns_done_check = true;
            }
        }
        summary.returns_nondet.truncate(4);
        summary.returns_meta.truncate(4);
        summary
    }

    /// Whether `call` of `callee` leaves the callee's `event` unrun: it sits in an `if flag:`
    /// on a parameter that the call omits (its default `False`, `None` or 0) or passes
    /// `False` or `None` (`save()` reaching `if should_reindex: self.index()`).
    pub fn skips_branch(&self, callee: FuncId, event: u32, call: &CallSite) -> bool {
        let Some(function) = self.function(callee) else {
            return false;
        };
        let Some(event) = function.events().get(event as usize) else {
            return false;
        };
        function.block_kinds(event.block).any(|kind| match kind {
            BlockKind::Branch {
                on_param: Some(name),
                ..
            } => falsy_argument(function, call, name.as_str()),
            _ => false,
        })
    }

    /// A function's name within its module: `send_receipt`, `Gateway.charge`.
    pub fn short_name(&self, id: FuncId) -> Option<String> {
        let function = self.function(id)?;
        let module = &self.facts(id.file)?.module;
        let name = function
            .qualname
            .strip_prefix(module.as_str())
            .map_or(function.qualname.as_str(), |rest| {
                rest.trim_start_matches('.')
            });
        Some(name.to_string())
    }

    /// The insert an `except IntegrityError` guard protects, among the `inserts` of its `try`:
    /// the last one into a project model whose unique constraints cover the fields it sets
    /// (`try: Processed.objects.create(key=k); Ticket.objects.create(...)` guards with the
    /// first); else the last insert, when no model tells.
    pub fn integrity_marker(
        &self,
        function: &Function,
        inserts: &[TextRange],
    ) -> Option<TextRange> {
        if let [only] = inserts {
            return Some(*only);
        }
        let unique = |range: &TextRange| {
            function.events().iter().any(|event| match &event.kind {
                EventKind::Call(call) if call.range == *range => call
                    .path
                    .as_ref()
                    .and_then(|path| self.models.manager_target(self, path))
                    .is_some_and(|target| {
                        let mut fields: Vec<String> =
                            call.keywords().iter().map(|(k, _)| k.to_string()).collect();
                        fields.extend(target.implicit.map(str::to_string));
                        self.models.list[target.model].lookup_is_unique(&fields)
                    }),
                _ => false,
            })
        };
        inserts
            .iter()
            .rev()
            .find(|range| unique(range))
            .or(inserts.last())
            .copied()
    }

    /// Whether the event at `index` of `id` is preceded by a done-guard on every path,
    /// including guards that call a project helper returning a done-check.
    /// Whether the function releases set-if-absent keys (in a `finally`): then the keys it
    /// takes (`if not cache.add(k, 1): return`) are locks, held while it runs, not markers of
    /// work done.
    pub fn releases_keys(&self, function: &Function) -> bool {
        self.releases_keys_in(function, |k| matches!(k, BlockKind::Finally))
    }

    /// Whether the function releases set-if-absent keys in an exception handler: when the
    /// work fails, the marker goes with it (`except Exception: redis.delete(marker); raise`),
    /// and the retry does the work. Kept when the work succeeds, the key is still a done-guard.
    /// Whether the function releases set-if-absent keys anywhere in its body: a class's
    /// `__exit__` (`cache.delete(self.key)`) gives back what its `__enter__` took.
    pub fn releases_any_key(&self, function: &Function) -> bool {
        self.releases_keys_in(function, |_| true)
    }

    pub fn releases_keys_on_failure(&self, function: &Function) -> bool {
        self.releases_keys_in(function, |k| matches!(k, BlockKind::Handler { .. }))
    }

    fn releases_keys_in(&self, function: &Function, within: impl Fn(&BlockKind) -> bool) -> bool {
        function.events().iter().any(|event| {
            let EventKind::Call(call) = &event.kind else {
                return false;
            };
            function.block_kinds(event.block).any(&within)
                && (self.catalog.lock_release.releases(call) || self.helper_releases(call))
        })
    }

    /// Whether the key a claim helper takes (its [`Summary::claim_marker`], a cache key) is a
    /// lock's when `caller` asks it: `caller` gives its keys back in a `finally` (`if not
    /// try_lock(key): return`, then `finally: unlock(key)`), so the next run takes it again.
    pub fn claim_released(&self, summary: &Summary, caller: &Function) -> bool {
        summary
            .claim_marker
            .is_some_and(|(_, transactional)| !transactional)
            && self.releases_keys(caller)
    }

    /// Whether a call is of a project function that releases a key itself: `finally:
    /// release_lock(key)` with `def release_lock(key): cache.delete(key)`.
    fn helper_releases(&self, call: &CallSite) -> bool {
        let Some(path) = &call.path else {
            return false;
        };
        if call.marks.releases_other_key() {
            return false;
        }
        let Some(helper) = self
            .resolve_function(&self.canonical(path), None)
            .and_then(|id| self.function(id))
        else {
            return false;
        };
        helper.events().iter().any(|event| {
            matches!(&event.kind, EventKind::Call(call) if self.catalog.lock_release.releases(call))
        })
    }

    /// The marker a claim helper leaves on (`return False`): [`Summary::claim_marker`].
    fn claim_marker(&self, function: &Function) -> Option<(TextRange, bool)> {
        function
            .events()
            .iter()
            .find_map(|event| match &event.kind {
                EventKind::Guard(guard) if guard.exit == Exit::Return => {
                    self.guard_marker(function, &guard.test)
                }
                _ => None,
            })
    }

    /// The de-duplication marker a guard of `function` tests, when it writes one: the marker
    /// call, and whether it is a database row (`if not created`, `except IntegrityError`)
    /// rather than a cache key (`if not cache.add(...)`, not a lock's key).
    pub fn guard_marker(&self, function: &Function, test: &GuardTest) -> Option<(TextRange, bool)> {
        match test {
            GuardTest::NotCreated {
                marker,
                compound: false,
            } => Some((*marker, true)),
            GuardTest::Integrity { inserts } => {
                Some((self.integrity_marker(function, inserts)?, true))
            }
            GuardTest::NotMarker { marker }
                if !self.releases_keys(function) && !self.releases_keys_on_failure(function) =>
            {
                Some((*marker, false))
            }
            _ => None,
        }
    }

    /// The guard events of `function` that test a field it never writes and whose own branch
    /// does work: an effect, called there or reached through a project call (`reaches`). `if
    /// t.mode == "webhook": return t.send_webhook(n)` dispatches, it does not leave because
    /// the work is done, so it guards nothing after it.
    fn working_guards(
        &self,
        id: FuncId,
        function: &Function,
        mut reaches: impl FnMut(FuncId) -> bool,
    ) -> Vec<usize> {
        let events = function.events();
        let mut working = Vec::new();
        for (at, event) in events.iter().enumerate() {
            let EventKind::Guard(guard) = &event.kind else {
                continue;
            };
            let GuardTest::DoneCheck {
                field: Some(field), ..
            } = guard.test
            else {
                continue;
            };
            // A field the function writes later is its done flag, and the branch's work a
            // report that the work was done (`mail_admins("queued twice")`).
            if events[at + 1..]
                .iter()
                .any(|later| later.kind.writes_field(field))
            {
                continue;
            }
            // The `if` statement's own events come right before its guard.
            let inside = |earlier: &crate::facts::Event| {
                let range = match &earlier.kind {
                    EventKind::Guard(inner) => inner.range,
                    _ => event_range(earlier).unwrap_or_default(),
                };
                guard.range.contains_range(range)
            };
            let own = events[..at].iter().enumerate().rev();
            let works = own.take_while(|(_, e)| inside(e)).any(|(i, earlier)| {
                if !matches!(earlier.kind, EventKind::Call(_)) {
                    return false;
                }
                match self.call_class(id, i) {
                    Some(CallClass::Effect(_)) => true,
                    Some(CallClass::Project(callee)) => reaches(*callee),
                    _ => false,
                }
            });
            if works {
                working.push(at);
            }
        }
        working
    }

    pub fn is_guarded(&self, id: FuncId, index: usize) -> bool {
        let Some(function) = self.function(id) else {
            return false;
        };
        let working = self.working_guards(id, function, |callee| {
            self.summary(callee).is_some_and(|s| !s.effects.is_empty())
        });
        dominating_guards(self, function, index, &working).any(|guard| match guard {
            GuardTest::Helper { path, negated } => self
                .resolve_function(&self.canonical(path), Some(id))
                .and_then(|callee| self.summary(callee))
                .is_some_and(|s| s.guards(*negated, function) && !self.claim_released(s, function)),
            _ => true,
        }) || self.raising_guard_before(id, function, index)
    }

    /// Whether a call before the event at `index`, on every path to it and outside any `try`,
    /// is of a project helper that raises when the work is done (`ensure_not_sent(order)`).
    fn raising_guard_before(&self, id: FuncId, function: &Function, index: usize) -> bool {
        let Some(target) = function.events().get(index) else {
            return false;
        };
        let lock = || {
            self.raising_calls
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        // Found once per function, so that asking for every event stays linear. Found outside
        // the lock: it reads summaries, which may ask again.
        if !lock().contains_key(&id) {
            let found: Box<[u32]> = (0..function.events().len())
                .filter(|&i| {
                    matches!(self.call_class(id, i), Some(CallClass::Project(callee))
                        if self.summary(*callee).is_some_and(|s| s.raises_when_done))
                })
                .filter_map(|i| u32::try_from(i).ok())
                .collect();
            lock().entry(id).or_insert(found);
        }
        let map = lock();
        map.get(&id).is_some_and(|calls| {
            calls
                .iter()
                .take_while(|&&i| (i as usize) < index)
                .any(|&i| {
                    let block = function.events()[i as usize].block;
                    raise_skips(function, block, target.block)
                        && guard_covers(function, block, target.block)
                })
        })
    }

    /// The effects an event reaches: one for a direct effect, those of the summary for a
    /// project call.
    pub fn effects_at(&self, id: FuncId, index: usize) -> Vec<Reached> {
        let here = Hop {
            func: id,
            event: u32::try_from(index).unwrap_or(u32::MAX),
        };
        match self.call_class(id, index) {
            Some(CallClass::Effect(_)) => vec![Reached {
                origin: here,
                next: here,
                guarded: false,
                followed_inside: false,
                looped_inside: false,
            }],
            Some(CallClass::Project(callee)) => self
                .summary(*callee)
                .map(|summary| {
                    let call = self.call_at(id, here.event);
                    summary
                        .effects
                        .iter()
                        .filter(|reached| {
                            call.is_none_or(|call| {
                                !self.skips_branch(*callee, reached.next.event, call)
                            })
                        })
                        .map(|reached| Reached {
                            origin: reached.origin,
                            next: here,
                            guarded: reached.guarded,
                            followed_inside: reached.followed_inside,
                            looped_inside: reached.looped_inside,
                        })
                        .collect()
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }

    /// The effect a reached effect is.
    pub fn effect(&self, reached: &Reached) -> &Effect {
        match self.call_class(reached.origin.func, reached.origin.event as usize) {
            Some(CallClass::Effect(effect)) => effect,
            // `Reached::origin` always names an effect call.
            _ => &NO_EFFECT,
        }
    }

    /// The calls from `reached.next` to the effect, the effect last.
    pub fn trace(&self, reached: &Reached) -> Vec<Hop> {
        let mut hops = vec![reached.next];
        let mut current = reached.next;
        while current != reached.origin && hops.len() <= MAX_REACHED {
            let Some(CallClass::Project(callee)) =
                self.call_class(current.func, current.event as usize)
            else {
                break;
            };
            let Some(step) = self
                .summary(*callee)
                .and_then(|s| s.effects.iter().find(|r| r.origin == reached.origin))
            else {
                break;
            };
            hops.push(step.next);
            current = step.next;
        }
        hops
    }

    /// The hops of a trace as diagnostics show them.
    pub fn trace_hops(&self, reached: &Reached) -> Vec<TraceHop> {
        self.trace(reached)
            .into_iter()
            .map(|hop| self.trace_hop(hop))
            .collect()
    }

    pub fn trace_hop(&self, hop: Hop) -> TraceHop {
        let label = self.hop_label(hop);
        let range = self
            .call_at(hop.func, hop.event)
            .map(|c| c.func_range)
            .unwrap_or_default();
        TraceHop {
            label,
            file: hop.func.file,
            range,
        }
    }

    /// A hop's name: the callee's name for a project call, the resolved call for an effect.
    pub fn hop_label(&self, hop: Hop) -> String {
        let Some(call) = self.call_at(hop.func, hop.event) else {
            return String::new();
        };
        match self.call_class(hop.func, hop.event as usize) {
            Some(CallClass::Project(callee)) => {
                self.short_name(*callee).unwrap_or_else(|| call_label(call))
            }
            // An effect by the name it resolves to (`send_mail` bound by a star import is
            // `django.core.mail.send_mail`), when the module named it by a project path.
            Some(CallClass::Effect(_))
                if call.path.as_ref().is_some_and(|p| self.is_project_path(p)) =>
            {
                let canonical = call.path.as_ref().map(|p| self.canonical(p).into_owned());
                path_label(call, canonical.as_ref())
            }
            _ => call_label(call),
        }
    }

    /// The range of the call a hop names, in the hop's file.
    pub fn hop_range(&self, hop: Hop) -> TextRange {
        self.call_at(hop.func, hop.event)
            .map(|c| c.func_range)
            .unwrap_or_default()
    }

    /// Where a sink takes its key; heuristic effects take `idempotency_key=`.
    /// Where the effect's catalog sink takes its key; `None` for a heuristic effect.
    fn sink_key(&self, effect: &Effect) -> Option<&'a KeySpec> {
        self.catalog.sinks.get(effect.sink? as usize)?.key.as_ref()
    }

    pub fn key_spec(&self, effect: &Effect) -> Option<KeySpec> {
        match effect.sink {
            Some(index) => self.catalog.sinks.get(index as usize)?.key.clone(),
            None => Some(KeySpec {
                keyword: Some("idempotency_key".to_string()),
                ..KeySpec::default()
            }),
        }
    }

    /// The SDK a sink belongs to, for messages.
    pub fn sink_name(&self, effect: &Effect) -> &str {
        effect
            .sink
            .and_then(|i| self.catalog.sinks.get(i as usize))
            .map_or("the client", |s| s.sdk.as_str())
    }

    /// Whether a call writes state: ORM writes directly or through a project helper.
    /// Whether the block `tx` of `function` is a `with` over a session's `begin()` (`with
    /// session.begin():`, `async with Session() as session, session.begin():`; the catalog's
    /// `unit-of-work-methods`), whose commit at the block's end writes the rows' changed
    /// attributes.
    pub fn begins_session(&self, function: &Function, tx: u32) -> bool {
        let methods = &self.catalog.transactions.unit_of_work_methods;
        function.blocks().get(tx as usize).is_some_and(|block| {
            matches!(&block.kind, BlockKind::With { items }
            if items.iter().any(|item| {
                (item.path.as_ref().and_then(|p| p.last_name()))
                    .is_some_and(|m| methods.iter().any(|u| u == m))
            }))
        })
    }

    /// The `with session.begin():` block that commits the attribute write at `index` of
    /// `function` (`reminder.status = "sent"`) when it ends: the innermost such block around
    /// it. SQLAlchemy's unit of work writes it there, with no call of its own.
    pub fn session_write(&self, function: &Function, index: usize) -> Option<u32> {
        let event = function.events().get(index)?;
        let EventKind::AttrAssign(assign) = &event.kind else {
            return None;
        };
        if assign.key.is_some() || function.is_deferred(event.block) {
            return None;
        }
        function
            .ancestors(event.block)
            .find(|&block| self.begins_session(function, block))
    }

    pub fn writes_state(&self, id: FuncId, index: usize) -> bool {
        let Some(function) = self.function(id) else {
            return false;
        };
        let Some(EventKind::Call(call)) = function.events().get(index).map(|e| &e.kind) else {
            return false;
        };
        if self.is_state_write(call) {
            return true;
        }
        match self.call_class(id, index) {
            Some(CallClass::Project(callee)) => {
                self.summary(*callee).is_some_and(|s| s.writes_state)
            }
            _ => false,
        }
    }
}

/// Whether the plain segments `segs` spell the dotted module name `module`.
fn same_module(segs: &[Seg], module: &str) -> bool {
    let mut parts = module.split('.');
    segs.iter()
        .all(|seg| parts.next() == Some(seg.name.as_str()))
        && parts.next().is_none()
}

/// `billing/notify.py` in a folder without an `__init__.py`, checked from above the folder that
/// is on `sys.path` (`twice check .` over `repo/service/billing/notify.py`): Python imports it as
/// `billing.notify`, a namespace package, but its own name is `notify` and its name from the
/// checked root `service.billing.notify`. The dotted tails of the root's name between the two
/// name the module too, when no other module is named so and no other file has the same tail.
fn namespace_aliases<'a>(
    files: &'a [SourceFile],
    path_names: &'a [Option<String>],
    modules: &mut HashMap<&'a str, u32>,
) {
    let mut tails: HashMap<&'a str, Option<u32>> = HashMap::default();
    for (i, (file, name)) in files.iter().zip(path_names).enumerate() {
        let (Some(facts), Some(name)) = (&file.facts, name) else {
            continue;
        };
        // Most files are named the same from the root as by their packages.
        if name.len() <= facts.module.len() {
            continue;
        }
        let own = facts.module.matches('.').count() + 1;
        // The tails longer than the module's own name, shortest first: the one after the
        // `own`-th dot from the end, and so on.
        for (dot, _) in name.rmatch_indices('.').skip(own) {
            let tail = &name[dot + 1..];
            let file = u32::try_from(i).unwrap_or(u32::MAX);
            tails
                .entry(tail)
                .and_modify(|seen| {
                    if *seen != Some(file) {
                        *seen = None;
                    }
                })
                .or_insert(Some(file));
        }
    }
    for (tail, file) in tails {
        if let Some(file) = file {
            modules.entry(tail).or_insert(file);
        }
    }
}

/// A call twice cannot follow: no name or attribute path (`handlers[kind](...)`,
/// `getattr(obj, name)(...)`), or a call of a parameter (`callback(...)`).
/// The names that may stand for a function or class whose name is one of `targets`: the
/// targets, and every name a module imports one of those names as (`from m import f as g`),
/// through any number of such imports. [`Project::canonical`] changes the last name of a
/// call's path only through such an import (other rebindings end the path in `__call__`),
/// so a path ending otherwise cannot be canonically one of the targets.
fn names_reaching<'a, 't>(
    files: &'a [SourceFile],
    targets: impl Iterator<Item = &'t str>,
) -> HashSet<&'a str> {
    let mut names: HashSet<&str> = targets.map(crate::intern::intern).collect();
    loop {
        let before = names.len();
        for file in files {
            let Some(facts) = &file.facts else { continue };
            for (local, target) in facts.imports.iter() {
                let last = target.rsplit('.').next().unwrap_or(target);
                if names.contains(last) && !names.contains(local) {
                    names.insert(local);
                }
            }
        }
        if names.len() == before {
            return names;
        }
    }
}

/// Top-level functions by qualified name.
type FunctionTable<'a> = HashMap<&'a str, FuncId>;
/// Classes by qualified name, with their file and their index there.
type ClassTable<'a> = HashMap<&'a str, (u32, usize)>;
/// By interface class number and method name: the implementation, and its class's number.
type ImplementationMemo = HashMap<(u32, Sym), Option<(FuncId, u32)>>;

/// Top-level functions and classes by qualified name, with their file and their index there.
fn name_tables(files: &[SourceFile]) -> (FunctionTable<'_>, ClassTable<'_>) {
    let (function_count, class_count) = files
        .iter()
        .filter_map(|file| file.facts.as_ref())
        .fold((0, 0), |(f, c), facts| {
            (f + facts.functions.len(), c + facts.classes.len())
        });
    let mut functions = HashMap::with_capacity_and_hasher(function_count, Default::default());
    let mut classes = HashMap::with_capacity_and_hasher(class_count, Default::default());
    for (fi, file) in files.iter().enumerate() {
        let Some(facts) = &file.facts else { continue };
        let file_id = u32::try_from(fi).unwrap_or(u32::MAX);
        // Nested functions too: the enclosing function calls them by name (`_sms(phone)`).
        for (i, function) in facts.functions.iter().enumerate().skip(1) {
            functions.insert(function.qualname.as_str(), FuncId::new(file_id, i));
        }
        for (i, class) in facts.classes.iter().enumerate() {
            classes.insert(class.qualname.as_str(), (file_id, i));
        }
    }
    (functions, classes)
}

/// The first names of the function and class tables' keys. Every top-level function, class
/// and method of a module is named `module.…`, so the head of a module that defines any is
/// the head of its name; only a module without a name has others.
fn defined_heads(files: &[SourceFile]) -> HashSet<Sym> {
    let mut heads = HashSet::default();
    for facts in files.iter().filter_map(|file| file.facts.as_ref()) {
        let top_level = facts
            .functions
            .iter()
            .skip(1)
            .filter(|function| function.parent().is_none())
            .map(|function| function.qualname.as_str());
        let mut names = top_level.chain(facts.classes.iter().map(|class| class.qualname.as_str()));
        if facts.module.is_empty() {
            heads.extend(
                names
                    .filter_map(|name| name.split('.').next())
                    .map(Sym::new),
            );
        } else if names.next().is_some() {
            heads.insert(Sym::new(facts.module.split('.').next().unwrap_or_default()));
        }
    }
    heads
}

/// `self.gateway.pay()` resolved by the facts through what the class assigns `self.gateway`:
/// the member's name.
fn self_member(call: &CallSite) -> Option<Sym> {
    let receiver = call.receiver.filter(|r| r.as_str() != "self")?;
    let path = call.path.as_ref()?;
    (call.receiver_var.is_some_and(|v| v.as_str() == "self")
        && path.0.first().is_some_and(|head| head.name != "self")
        && path.0.len() >= 2)
        .then_some(receiver)
}

/// What a call gives for a parameter of the callee.
pub enum Argument<'c> {
    Given(&'c Value),
    /// Not passed: the parameter keeps its default.
    Omitted(ParamDefault),
    /// The value is not a parameter as the callee received it (a literal, a value derived or
    /// assigned in the callee).
    NotAParameter,
    /// The call may pass it in a way the facts do not show (`*args`, dropped arguments).
    Unknown,
}

/// What `call` of `function` gives for its parameter `name`.
pub fn argument<'c>(function: &Function, call: &'c CallSite, name: &str) -> Argument<'c> {
    let Some(index) = function.params.iter().position(|p| p.name() == name) else {
        return Argument::NotAParameter;
    };
    let param = &function.params[index];
    if let Some(given) = call.keyword(name) {
        return Argument::Given(given);
    }
    if param.kind == ParamKind::Positional {
        // A method's first parameter is its instance, not an argument.
        let skip = usize::from(
            function.class().is_some()
                && function
                    .params
                    .first()
                    .is_some_and(|p| matches!(p.name(), "self" | "cls")),
        );
        let Some(position) = index.checked_sub(skip) else {
            return Argument::Unknown;
        };
        if let Some(given) = call.args().get(position) {
            return Argument::Given(given);
        }
        if call.dropped.positional() > position {
            return Argument::Unknown;
        }
    }
    if call.star_args || call.star_kwargs || call.dropped.keywords() {
        return Argument::Unknown;
    }
    Argument::Omitted(param.default)
}

/// Whether `call` gives the parameter `name` of `function` a false value: `False` or `None`
/// written, or nothing, where the default is `False`, `None` or 0. Not when the facts cannot
/// tell (`*args`, arguments the catalog's filter dropped).
fn falsy_argument(function: &Function, call: &CallSite, name: &str) -> bool {
    match argument(function, call, name) {
        Argument::Given(value) => value.is_none() || matches!(value.lit, Lit::Bool(false)),
        Argument::Omitted(default) => matches!(
            default,
            ParamDefault::None | ParamDefault::False | ParamDefault::Int(0)
        ),
        Argument::NotAParameter | Argument::Unknown => false,
    }
}

fn is_dynamic_call(call: &CallSite) -> bool {
    call.dynamic
}

fn outermost<'f>(facts: &'f ModuleFacts, mut function: &'f Function) -> &'f Function {
    while let Some(parent) = function.parent().and_then(|p| facts.functions.get(p)) {
        function = parent;
    }
    function
}

/// The guards that dominate the event at `index`: earlier, in a block that contains it.
/// `opens_transaction` tells which `with` blocks are transactions.
/// `working` lists the guard events that do the work themselves ([`Project::working_guards`]).
pub fn dominating_guards<'f>(
    project: &'f Project,
    function: &'f Function,
    index: usize,
    working: &'f [usize],
) -> impl Iterator<Item = &'f GuardTest> + 'f {
    let events = function.events();
    let target = events.get(index);
    let before = events[..index.min(events.len())]
        .iter()
        .enumerate()
        .filter_map(move |(at, event)| {
            let target = target?;
            let EventKind::Guard(guard) = &event.kind else {
                return None;
            };
            if working.contains(&at) {
                return None;
            }
            let is_guard = match guard.test {
                GuardTest::Precondition | GuardTest::StateNot { .. } => false,
                // A key released when the function ends is a lock: the next run takes it again.
                GuardTest::NotMarker { .. } => !project.releases_keys(function),
                _ => true,
            };
            (is_guard && guard_covers(function, event.block, target.block)).then_some(&guard.test)
        });
    // `try: Marker.objects.create(...); work() except IntegrityError: return`: the insert
    // guards what follows it in the `try` (its guard event comes after the whole statement).
    let after = events
        .get(index.saturating_add(1)..)
        .unwrap_or_default()
        .iter()
        .filter_map(move |event| {
            let target = target?;
            let EventKind::Guard(guard) = &event.kind else {
                return None;
            };
            let GuardTest::Integrity { inserts } = &guard.test else {
                return None;
            };
            let marker = project.integrity_marker(function, inserts)?;
            let at = event_range(target)?;
            let in_try_body = guard.range.contains_range(at)
                && (marker.end() <= at.start()
                    || rolled_back_with(project, function, event.block, marker, target.block))
                && !function
                    .block_kinds(target.block)
                    .any(|kind| matches!(kind, BlockKind::Handler { .. } | BlockKind::Finally));
            in_try_body.then_some(&guard.test)
        });
    before.chain(after)
}

/// Whether a write before the insert an `except IntegrityError` guards is undone with it:
/// both are in one transaction opened inside the `try` (`try: with atomic(): work(); Marker
/// .objects.create(...)`), which the duplicate insert rolls back whole.
fn rolled_back_with(
    project: &Project,
    function: &Function,
    guard_block: u32,
    marker: TextRange,
    target_block: u32,
) -> bool {
    let Some(marker_block) = function
        .events()
        .iter()
        .find_map(|event| match &event.kind {
            EventKind::Call(call) if call.range == marker => Some(event.block),
            _ => None,
        })
    else {
        return false;
    };
    // The blocks from the insert out to the `try` statement's own block.
    function
        .ancestors(marker_block)
        .take_while(|&block| block != guard_block)
        .any(|block| {
            function
                .blocks()
                .get(block as usize)
                .is_some_and(|b| project.opens_transaction(b))
                && function.block_within(target_block, block)
        })
}

/// Where an event is in the source, when it is a call or an assignment.
fn event_range(event: &crate::facts::Event) -> Option<TextRange> {
    match &event.kind {
        EventKind::Call(call) => Some(call.range),
        EventKind::AttrAssign(assign) => Some(assign.range),
        EventKind::Guard(_) => None,
    }
}

/// Whether an exception raised by a call in `block` leaves code in `target` unrun: no `try`
/// around the call catches it, or every handler of each `try` around it that `target` is not
/// in leaves too: returns or raises, or ends the pass of a loop `target` is in (`except
/// AlreadyInvited: continue`). A handler that goes on lets the code after the `try` run.
fn raise_skips(function: &Function, block: u32, target: u32) -> bool {
    let blocks = function.blocks();
    for at in function.ancestors(block) {
        let Some(info) = blocks.get(at as usize) else {
            return false;
        };
        if !matches!(info.kind, BlockKind::Try { .. }) {
            continue;
        }
        // The rest of the `try` body is skipped whatever catches the exception.
        if function.block_within(target, at) {
            return true;
        }
        let Some(parent) = info.parent else {
            return false;
        };
        let in_loop = function
            .in_loop(parent)
            .is_some_and(|pass| function.block_within(target, pass));
        let leaves = function.handlers_of(at).all(|handler| match handler.kind {
            BlockKind::Handler { ends, .. } => {
                ends == Ends::Leaves || in_loop && matches!(ends, Ends::Continues | Ends::Breaks)
            }
            _ => true,
        });
        if !leaves {
            return false;
        }
    }
    true
}

/// Whether leaving from `guard_block` (by `return`, `raise` or `continue`) prevents reaching
/// `target`: the guard's block, or a block it always runs through (`with`, `try`), contains the
/// target, outside the `finally` of a `try` it leaves. A conditional block (a branch, a loop
/// body, a handler) ends the walk: past it, some path skips the guard; except a branch of an
/// `if` with an `else` whose other branches all return, raise or hold a guard of their own
/// (`if resend: if inv.resent: return` / `else: if inv.sent: return`), which every run past
/// the `if` went through. A `continue` guard stops at its loop, so it covers that body only.
pub(crate) fn guard_covers(function: &Function, guard_block: u32, target: u32) -> bool {
    guard_covers_within(function, guard_block, target, 0)
}

/// How many `if`s deep guards in their other branches are looked for.
const BRANCH_GUARD_DEPTH: u32 = 4;

fn guard_covers_within(function: &Function, guard_block: u32, target: u32, depth: u32) -> bool {
    // Not an effect in another branch of the guard's `if`, nor one no run reaches after it.
    if function.exclusive(guard_block, target) {
        return false;
    }
    // A branch that leaves, or that a guard of its own leaves from before its end.
    let branch_closed = |branch: u32, leaves: bool| {
        leaves
            || depth < BRANCH_GUARD_DEPTH
                && function.events().iter().any(|event| {
                    matches!(&event.kind, EventKind::Guard(guard)
                    if matches!(guard.exit, Exit::Return | Exit::Raise)
                        && !matches!(
                            guard.test,
                            GuardTest::Precondition | GuardTest::StateNot { .. }
                        ))
                        && function.block_within(event.block, branch)
                        && guard_covers_within(function, event.block, branch, depth + 1)
                })
    };
    let mut block = guard_block;
    loop {
        if function.block_within(target, block) {
            return true;
        }
        let Some(info) = function.blocks().get(block as usize) else {
            return false;
        };
        match (&info.kind, info.parent) {
            // `try: if run.finished: return` / `finally: post(...)`: the `finally` runs on the
            // guard's way out too.
            (BlockKind::Try { .. }, Some(_))
                if function
                    .finally_of(block)
                    .is_some_and(|finally| function.block_within(target, finally)) =>
            {
                return false;
            }
            (BlockKind::With { .. } | BlockKind::Try { .. } | BlockKind::Finally, Some(parent)) => {
                block = parent
            }
            // `if a: <guard> ... else: ...; return`: what follows the `if` runs only after
            // the guard's branch, when every other one returns or raises.
            (
                BlockKind::Branch {
                    if_id,
                    index,
                    exhaustive: true,
                    ..
                },
                Some(parent),
            ) if function
                .blocks()
                .iter()
                .enumerate()
                .all(|(other_block, other)| match other.kind {
                    BlockKind::Branch {
                        if_id: other_if,
                        index: other_index,
                        leaves,
                        ..
                    } => {
                        other_if != *if_id
                            || other_index == *index
                            || u32::try_from(other_block)
                                .is_ok_and(|other_block| branch_closed(other_block, leaves))
                    }
                    _ => true,
                }) =>
            {
                block = parent
            }
            _ => return false,
        }
    }
}

/// Whether a function returns a falsy literal where a done-guard leaves it and `True` past
/// its guards: `if order.receipt_sent: return False` ... `return True`, or the claimed row
/// (`if loan.reminded: return None` ... `return loan`).
fn returns_false_when_done(function: &Function) -> bool {
    let done_guards: Vec<TextRange> = function
        .events()
        .iter()
        .filter_map(|event| match &event.kind {
            EventKind::Guard(guard) if guard.exit == Exit::Return && is_done_test(&guard.test) => {
                Some(guard.range)
            }
            _ => None,
        })
        .collect();
    if done_guards.is_empty() {
        return false;
    }
    let under_guard = |value: &Value| done_guards.iter().any(|g| g.contains_range(value.range));
    // `True`, or an object of a known type (a row).
    let truthy = |value: &Value| match value.lit {
        Lit::Bool(true) => true,
        Lit::Other => value.path.is_some(),
        _ => false,
    };
    let returns = function.returns();
    returns
        .iter()
        .any(|v| matches!(v.lit, Lit::Bool(false) | Lit::None) && under_guard(v))
        && returns.iter().any(|v| truthy(v) && !under_guard(v))
        && !returns.iter().any(|v| truthy(v) && under_guard(v))
}

/// Whether a guard test says the work is done (not a precondition, nor a helper's result).
fn is_done_test(test: &GuardTest) -> bool {
    !matches!(
        test,
        GuardTest::Helper { .. } | GuardTest::Precondition | GuardTest::StateNot { .. }
    )
}

/// A short label for a call in traces: `send_receipt`, `stripe.PaymentIntent.create`.
pub fn call_label(call: &CallSite) -> String {
    path_label(call, call.path.as_ref())
}

/// [`call_label`] with the call's path given.
fn path_label(call: &CallSite, path: Option<&QPath>) -> String {
    match (&call.receiver.map(Sym::as_str), path) {
        (_, Some(path))
            if path.0.len() <= 4
                && !path
                    .0
                    .iter()
                    .take(path.0.len() - 1)
                    .any(|s| s.call != Call::No) =>
        {
            let dotted = path.dotted();
            if dotted.starts_with("self.") {
                call.method.as_str().to_string()
            } else {
                dotted
            }
        }
        (Some(receiver), _) => format!("{receiver}.{}", call.method.as_str()),
        _ => call.method.as_str().to_string(),
    }
}

/// The HTTP method of a call to a generic request function: the argument the spec names, or,
/// for a URL-or-request argument, the request object's method, else POST with a body and GET
/// without one. A method the analysis cannot read is none: the call is not taken for a write.
fn http_method<'v>(
    method: &MethodSpec,
    value: Option<&'v Value>,
    call: &'v CallSite,
) -> Option<&'v str> {
    let Some(field) = &method.request_field else {
        return value.and_then(Value::as_str);
    };
    let with_body = |body: Option<&Value>| {
        if body.is_some_and(|b| !b.is_none()) {
            Some("POST")
        } else {
            Some("GET")
        }
    };
    if let Some(request) = value.and_then(Value::request) {
        if let Some(verb) = request.keyword(field) {
            return verb.as_str();
        }
        let body = method.body.as_ref().and_then(|b| b.keyword.as_deref());
        return with_body(body.and_then(|k| request.keyword(k)));
    }
    with_body(method.body.as_ref().and_then(|b| b.find(call)))
}

/// How the key of a catalog sink is passed in a call.
fn key_status(spec: &KeySpec, call: &CallSite) -> KeyStatus {
    if let Some(keyword) = &spec.keyword
        && let Some(value) = call.keyword(keyword)
    {
        // `idempotency_key=kwargs.pop("idempotency_key", None)`: the caller's key.
        if let Lit::CallerKeyword(param, given) = value.lit
            && given == keyword.as_str()
        {
            return KeyStatus::Spread(param);
        }
        return present(value);
    }
    if let Some(position) = spec.position
        && let Some(value) = call.args().get(position)
    {
        return present(value);
    }
    // Called under another name (a project module re-exporting the sink), the call kept only
    // how many positional arguments it had, and not its unread keywords: a positional key is
    // there or not, but a field inside a dropped argument cannot be seen, nor its absence.
    if let Some(position) = spec.position
        && call.dropped.positional() > position
    {
        return KeyStatus::Present(Box::default());
    }
    if spec.field.is_some() && call.dropped.any() {
        return KeyStatus::Unknown;
    }
    // `options=` as a keyword, or positionally after the params (`send(params, options)`).
    match options_entry(spec, call, true) {
        Some(Entry::Given(value)) => return present(value),
        Some(Entry::Unknown | Entry::Caller(_)) => return KeyStatus::Unknown,
        Some(Entry::Param(value)) => {
            return KeyStatus::Holder(Box::new(value.clone()), Holder::Options);
        }
        Some(Entry::Absent) | None => {}
    }
    // Headers passed to the call, or carried by a request object passed to it.
    let headers = call.keyword(HEADERS_KEYWORD).or_else(|| {
        call.args()
            .iter()
            .chain(call.keywords().iter().map(|(_, v)| v))
            .find_map(|v| v.request()?.keyword(HEADERS_KEYWORD))
    });
    // `headers=None` sends no headers.
    if !spec.header.is_empty()
        && let Some(headers) = headers.filter(|h| !h.is_none())
        && let Some(key) = header_key(spec, headers)
    {
        return key;
    }
    if let Some(field) = &spec.field {
        let holds = |keyword: &Sym| {
            spec.field_in.is_empty() || spec.field_in.iter().any(|k| k == keyword.as_str())
        };
        for value in call.args().iter().chain(
            call.keywords()
                .iter()
                .filter(|(k, _)| holds(k))
                .map(|(_, v)| v),
        ) {
            if let Some(found) = find_field(value, field, 0) {
                return present(found);
            }
        }
        if call.keyword(field).is_some() {
            return KeyStatus::Present(Box::default());
        }
        // A request body built elsewhere may carry the field: say nothing.
        if call
            .args()
            .iter()
            .any(|a| a.dict().is_none() && a.request().is_none())
        {
            return KeyStatus::Unknown;
        }
    }
    if call.star_kwargs || call.star_args {
        return KeyStatus::Unknown;
    }
    // Positional keys: a call with fewer arguments simply lacks it.
    KeyStatus::Missing
}

/// The parameter a call spreads (`**kwargs`) when it is all that can carry the sink's key
/// (its keyword, or the `headers=`/`options=` that hold it): no `options=` or `headers=` the
/// call gives itself, no arguments the filter dropped.
fn spread_key(spec: &KeySpec, call: &CallSite) -> Option<Sym> {
    let positional = spec.position.is_some() && call.star_args;
    let ok = (spec.keyword.is_some() || spec.options.is_some() || !spec.header.is_empty())
        && call.star_kwargs
        && !positional
        && !key_elsewhere(spec, call)
        && !call.dropped.any();
    ok.then_some(call.spreads).flatten()
}

/// Whether the call gives `options=` or `headers=` where the sink may also take its key.
fn key_elsewhere(spec: &KeySpec, call: &CallSite) -> bool {
    spec.options.is_some() && call.keyword(OPTIONS_KEYWORD).is_some()
        || !spec.header.is_empty() && call.keyword(HEADERS_KEYWORD).is_some()
}

/// A key passed as `value`: `None` passes none.
fn present(value: &Value) -> KeyStatus {
    if value.is_none() {
        KeyStatus::Missing
    } else {
        KeyStatus::Present(Box::new(value.clone()))
    }
}

/// The key in a headers dict, if it holds one; `Unknown` when it may hold one the facts do
/// not show (not a display, an entry under a computed name, `**other`).
fn header_key(spec: &KeySpec, headers: &Value) -> Option<KeyStatus> {
    match header_entry(spec, headers) {
        Entry::Given(value) => Some(present(value)),
        Entry::Unknown => Some(KeyStatus::Unknown),
        Entry::Caller(param) => Some(KeyStatus::Spread(param)),
        Entry::Param(value) => Some(KeyStatus::Holder(Box::new(value.clone()), Holder::Headers)),
        Entry::Absent => None,
    }
}

/// What a dict that may carry the key holds of it.
enum Entry<'v> {
    Given(&'v Value),
    /// Not a dict display, or an entry under a name the facts do not show (`**other`).
    Unknown,
    /// Whatever the function's caller gives as `headers=` through its `**kwargs` (this
    /// parameter), with entries that are not the key (`headers = kwargs.pop("headers", {})`,
    /// then `headers["Authorization"] = ...`).
    Caller(Sym),
    /// A parameter of the function, as its caller gave it (`headers=headers`).
    Param(&'v Value),
    Absent,
}

impl<'v> Entry<'v> {
    /// The key as a caller gives it through this entry of a dict held in `holder`; `None`
    /// when the dict does not hold it.
    fn given(self, holder: Holder) -> Option<SpreadKey<'v>> {
        Some(match self {
            Entry::Given(value) => given_key(value),
            Entry::Unknown => SpreadKey::Unknown,
            Entry::Caller(param) => SpreadKey::Spread(param),
            Entry::Param(value) => SpreadKey::Holder(value, holder),
            Entry::Absent => return None,
        })
    }
}

/// A key a caller gives a wrapper: `None` gives none; what a wrapper of a wrapper takes out of
/// its own `**kwargs` is its caller's.
fn given_key(value: &Value) -> SpreadKey<'_> {
    match value.lit {
        Lit::None => SpreadKey::Missing,
        Lit::CallerKeyword(param, _) => SpreadKey::Spread(param),
        _ => SpreadKey::Given(value),
    }
}

/// The key header in a headers dict.
fn header_entry<'v>(spec: &KeySpec, headers: &'v Value) -> Entry<'v> {
    let callers = |value: &Value| match value.lit {
        Lit::CallerKeyword(param, keyword) if keyword == HEADERS_KEYWORD => Some(param),
        _ => None,
    };
    if let Some(param) = callers(headers) {
        return Entry::Caller(param);
    }
    let Some(items) = headers.dict() else {
        return param_entry(headers);
    };
    if let Some((_, value)) = items
        .iter()
        .find(|(name, _)| name.is_some_and(|n| spec.is_key_header(&n)))
    {
        return Entry::Given(value);
    }
    let mut unknown = items.iter().filter(|(name, _)| name.is_none());
    match unknown.next() {
        None => Entry::Absent,
        // Only the caller's headers besides the entries written: the key is in those or nowhere.
        Some((_, first)) => match callers(first) {
            Some(param) if unknown.all(|(_, other)| callers(other) == Some(param)) => {
                Entry::Caller(param)
            }
            _ => Entry::Unknown,
        },
    }
}

/// The key in the `options=` a call gives (as a keyword, or with `positional` also after the
/// params: `send(params, options)`), when the sink takes it there; `None` when it gives none,
/// or `options=None`, which gives no options at all.
fn options_entry<'c>(spec: &KeySpec, call: &'c CallSite, positional: bool) -> Option<Entry<'c>> {
    let options = call
        .keyword(OPTIONS_KEYWORD)
        .or_else(|| call.args().get(1).filter(|_| positional))
        .filter(|options| !options.is_none())?;
    options_value_entry(spec, options)
}

/// The key in an options dict; `None` when the sink takes none there.
fn options_value_entry<'v>(spec: &KeySpec, options: &'v Value) -> Option<Entry<'v>> {
    let option = spec.options.as_deref()?;
    Some(match (options.dict(), options.dict_get(option)) {
        (None, _) => param_entry(options),
        (Some(_), Some(value)) => Entry::Given(value),
        (Some(_), None) => Entry::Absent,
    })
}

/// A headers or options value that is not a dict display: a parameter as the function
/// received it is its caller's to fill; anything else is unknown.
fn param_entry(value: &Value) -> Entry<'_> {
    if value.flags & Value::PARAM != 0 && value.name.is_some() && value.taint.is_empty() {
        Entry::Param(value)
    } else {
        Entry::Unknown
    }
}

/// The field of a dict or request object, or of every item of a sequence of them
/// (`Entries=[{"Id": ..., "MessageDeduplicationId": ...}, ...]`).
fn find_field<'v>(value: &'v Value, field: &str, depth: u32) -> Option<&'v Value> {
    // A batch's key is a field of every entry (`Entries=[{..., "MessageDeduplicationId": k}]`).
    if let Lit::Seq(items) = &value.lit {
        if depth > 0 {
            return None;
        }
        let mut found = items.iter().map(|item| find_field(item, field, depth + 1));
        let first = found.next()??;
        return found.all(|f| f.is_some()).then_some(first);
    }
    // The field is where the SDK reads it: in the body or request itself, not in a dict
    // nested in it (`metadata={"idempotency_key": k}`, `MessageAttributes={...}`).
    // A request object's keywords are its fields (`TransferCreateRequest(idempotency_key=k)`).
    if let Some(request) = value.request() {
        return request
            .keywords
            .iter()
            .find_map(|(k, v)| (k.as_str() == field).then_some(v));
    }
    value
        .dict()?
        .iter()
        .find_map(|(k, v)| (k.as_deref() == Some(field)).then_some(v))
}

/// Whether a block or one of its ancestors is a `with` whose context manager satisfies `pred`.
pub fn enclosing_with<'f>(
    function: &'f Function,
    block: u32,
) -> impl Iterator<Item = &'f [Value]> + 'f {
    function.block_kinds(block).filter_map(|k| match k {
        BlockKind::With { items } => Some(items.as_slice()),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_module;

    fn load(modules: &[(&str, &str)], catalog: &Catalog) -> Vec<SourceFile> {
        modules
            .iter()
            .map(|(module, text)| parse_module(module, text, catalog))
            .collect()
    }

    #[test]
    fn names_reaching_an_enqueue_function_follow_renaming_imports() {
        let catalog = Catalog::new(&[], &[]);
        let files = load(
            &[
                (
                    "shop.queue",
                    "from django_q.tasks import async_task as later\n",
                ),
                (
                    "shop.helpers",
                    "from shop.queue import later as schedule_later\nfrom shop.queue import other\n",
                ),
                (
                    "shop.views",
                    "from shop.helpers import schedule_later as go\n",
                ),
            ],
            &catalog,
        );
        let names = vec![None; files.len()];
        let scopes = Scopes::default();
        let project = Project::new(&files, &catalog, true, &names, &scopes);
        let may = |dotted: &str| project.may_name_enqueue_or_app(&QPath::from_dotted(dotted));
        assert!(may("django_q.tasks.async_task"));
        assert!(may("shop.queue.later"));
        assert!(may("shop.helpers.schedule_later"));
        assert!(may("shop.views.go"));
        assert!(may("celery.Celery"));
        assert!(!may("shop.helpers.other"));
        assert!(!may("requests.post"));
    }

    #[test]
    fn namespace_package_modules_are_found_by_the_tails_of_their_paths() {
        let catalog = Catalog::new(&[], &[]);
        // Folders without `__init__.py`: each module's own name is its file's stem.
        let files = load(
            &[
                ("notify", "def notify_overdue(invoice):\n    pass\n"),
                ("mail", "def send():\n    pass\n"),
                ("mail", "def send():\n    pass\n"),
            ],
            &catalog,
        );
        let names = vec![
            Some("service.billing.notify".to_string()),
            Some("service.billing.mail".to_string()),
            Some("worker.billing.mail".to_string()),
        ];
        let scopes = Scopes::default();
        let project = Project::new(&files, &catalog, true, &names, &scopes);
        assert_eq!(project.module_of("billing.notify"), Some(0));
        assert_eq!(project.module_of("service.billing.notify"), Some(0));
        // Two files end in `billing.mail`: the tail names neither.
        assert_eq!(project.module_of("billing.mail"), None);
        assert_eq!(project.module_of("worker.billing.mail"), Some(2));
        // Imported by a tail, a definition is known by the module's own name.
        let imported = QPath::from_dotted("billing.notify.notify_overdue");
        let canonical = project.canonical(&imported);
        assert_eq!(canonical.dotted(), "notify.notify_overdue");
        assert!(
            project
                .resolve_function(&canonical, None)
                .is_some_and(|id| id.file == 0)
        );
    }

    #[test]
    fn defined_heads_are_the_first_names_of_modules_that_define_something() {
        let catalog = Catalog::new(&[], &[]);
        let files = load(
            &[
                (
                    "shop.billing",
                    "class Invoice:\n    def pay(self):\n        pass\n",
                ),
                ("crm.jobs", "def sync():\n    pass\n"),
                ("ops.constants", "LIMIT = 3\n"),
                ("", "def top():\n    pass\n"),
            ],
            &catalog,
        );
        let names = vec![None; files.len()];
        let scopes = Scopes::default();
        let project = Project::new(&files, &catalog, true, &names, &scopes);
        let mut heads: Vec<&str> = project.defined_heads.iter().map(|h| h.as_str()).collect();
        heads.sort_unstable();
        assert_eq!(heads, ["crm", "shop", "top"]);
    }

    #[test]
    fn functions_no_rule_starts_from_are_classified_and_summarised_on_demand() {
        let catalog = Catalog::new(&[], &[]);
        let files = load(
            &[(
                "shop.billing",
                "import stripe\n\n\ndef charge():\n    stripe.Charge.create(amount=1)\n\n\ndef pay():\n    charge()\n",
            )],
            &catalog,
        );
        let names = vec![None; files.len()];
        let scopes = Scopes::default();
        let project = Project::new(&files, &catalog, true, &names, &scopes);
        assert!(project.tasks.is_empty());
        // No task and no transaction: nothing was summarised up front.
        assert!(project.summaries.is_empty());
        let pay = FuncId::new(0, 2);
        let charge = FuncId::new(0, 1);
        assert!(matches!(
            project.call_class(pay, 0),
            Some(CallClass::Project(callee)) if *callee == charge
        ));
        assert!(matches!(
            project.call_class(charge, 0),
            Some(CallClass::Effect(_))
        ));
        let summary = project.summary(pay).expect("summary of pay");
        assert_eq!(summary.effects.len(), 1);
        assert_eq!(
            summary.effects[0].origin,
            Hop {
                func: charge,
                event: 0
            }
        );
        assert_eq!(project.effects_at(pay, 0).len(), 1);
    }
}
