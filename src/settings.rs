//! Celery settings as the project sets them: Django settings (with the namespace given to
//! `config_from_object`, and the old upper-case names), `celeryconfig.py`, configuration classes,
//! `app.conf.update(...)`, `app.conf.x = ...` and `Celery(...)` keywords. A value read at run time
//! (environment, files) is unknown, and rules say nothing about unknowns.

use rayon::prelude::*;
use ruff_text_size::TextRange;

use crate::catalog::{CallTimeLimit, Framework};
use crate::facts::{EventKind, FunctionBody, Lit, ModuleFacts, Value};
use crate::path::{Call, QPath, Sym};
use crate::project::Project;

/// A setting's value (`None` when only run time knows it) and where it is set.
#[derive(Clone, Debug)]
pub struct Setting {
    pub value: Option<Value>,
    pub file: u32,
    pub range: TextRange,
}

impl Setting {
    pub fn as_bool(&self) -> Option<bool> {
        self.value.as_ref()?.as_bool()
    }

    pub fn as_int(&self) -> Option<i64> {
        self.value.as_ref()?.as_int()
    }

    pub fn as_str(&self) -> Option<&str> {
        self.value.as_ref()?.as_str()
    }

    /// The written start of a string setting ([`Value::str_start`]).
    pub fn str_start(&self) -> Option<&str> {
        self.value.as_ref()?.str_start()
    }
}

/// The settings the rules read, by their Celery 4+ names.
#[derive(Clone, Debug, Default)]
pub struct CelerySettings {
    pub task_acks_late: Option<Setting>,
    pub task_reject_on_worker_lost: Option<Setting>,
    pub task_time_limit: Option<Setting>,
    pub task_soft_time_limit: Option<Setting>,
    pub broker_url: Option<Setting>,
    pub broker_transport_options: Option<Setting>,
    /// The app's default task class (`Celery(..., task_cls=BaseTask)`), the base of every task
    /// that names none: a class, or its name in a string (`"proj.tasks:BaseTask"`).
    pub task_cls: Option<Setting>,
    /// Time limits set for every task of a framework by a call rather than by settings
    /// (Dramatiq's `TimeLimit(time_limit=...)` middleware), in file order.
    pub global_time_limits: Vec<GlobalTimeLimit>,
    /// The files that set them or make the app that loads them, sorted: a project that sets
    /// none runs with these when it imports one of them.
    files: Vec<u32>,
    /// When the folder makes several Celery apps (`Celery("proj")`, `Celery("realtime")`), the
    /// settings each runs with, by the app's main name ([`app_key`]): what the folder's
    /// configuration sources set, and what is told to that app alone (`app.conf.update(...)`,
    /// its `Celery(...)` keywords). The settings above merge them all, for tasks whose app is
    /// not known (`@shared_task`). Empty with one app.
    pub apps: Vec<(Call, CelerySettings)>,
}

/// A call that bounds every task of `framework`: the catalog's entry
/// (`FrameworkSpec::global_time_limits[index]`) and the keyword's value.
#[derive(Clone, Debug)]
pub struct GlobalTimeLimit {
    pub framework: Framework,
    pub index: usize,
    /// The call's name, as the message shows it (`TimeLimit`).
    pub call: Sym,
    pub setting: Setting,
}

impl CelerySettings {
    fn slot(&mut self, name: &str) -> Option<&mut Option<Setting>> {
        Some(match name {
            "task_acks_late" | "acks_late" => &mut self.task_acks_late,
            "task_reject_on_worker_lost" => &mut self.task_reject_on_worker_lost,
            "task_time_limit" => &mut self.task_time_limit,
            "task_soft_time_limit" => &mut self.task_soft_time_limit,
            "broker_url" | "broker" => &mut self.broker_url,
            "broker_transport_options" => &mut self.broker_transport_options,
            TASK_CLS => &mut self.task_cls,
            _ => return None,
        })
    }

    fn set(&mut self, name: &str, value: Option<Value>, file: u32, range: TextRange) {
        if let Some(slot) = self.slot(name) {
            *slot = Some(Setting { value, file, range });
            self.files.push(file);
        }
    }

    /// A module variable of a settings module or `celeryconfig`: the setting, or entries of
    /// it when the module only sets entries of a star-imported dict (a dict that starts with a
    /// spread, [`crate::facts::extract`]'s `star_imported_dict`).
    fn set_var(&mut self, project: &Project, name: &str, value: &Value, file: u32) {
        if let Some([(None, _), entries @ ..]) = value.dict() {
            for (key, entry) in entries {
                if let Some(key) = key {
                    let known = known(project, entry);
                    self.set_entry(name, *key, known, file, entry.setting_range());
                }
            }
            return;
        }
        self.set(name, known(project, value), file, value.setting_range());
    }

    /// The settings the tasks of an app run with ([`CelerySettings::apps`]): the app's own
    /// when it is one of several, else these.
    pub fn for_app(&self, app: Option<Call>) -> &CelerySettings {
        self.own_app(app).unwrap_or(self)
    }

    /// The settings of an app of several, when `app` names one.
    pub fn own_app(&self, app: Option<Call>) -> Option<&CelerySettings> {
        let app = app?;
        self.apps
            .iter()
            .find(|(key, _)| *key == app)
            .map(|(_, settings)| settings)
    }

    /// Whether nothing is set.
    fn is_empty(&self) -> bool {
        self.files.is_empty() && self.global_time_limits.is_empty()
    }

    /// The settings of each project folder ([`Project::scope_of`]), and per folder the one
    /// whose settings its tasks run with: its own; when it sets none, those of the folder whose
    /// settings or app modules it imports most (a worker package next to the project that
    /// holds the app); else those of the nearest project holding its folder. Projects checked
    /// side by side do not share settings otherwise: one's time limit says nothing about
    /// another's tasks.
    pub fn build_scoped(project: &Project) -> (Vec<CelerySettings>, Vec<u32>) {
        let count = project.scope_count() as usize;
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); count];
        for file in 0..project.files.len() {
            let file = u32::try_from(file).unwrap_or(u32::MAX);
            if let Some(list) = members.get_mut(project.scope_of(file) as usize) {
                list.push(file);
            }
        }
        let settings: Vec<CelerySettings> = members
            .par_iter()
            .map(|files| CelerySettings::build(project, files))
            .collect();
        let used = (0..count)
            .map(|scope| {
                let own = u32::try_from(scope).unwrap_or(u32::MAX);
                if !settings[scope].is_empty() {
                    return own;
                }
                let mut votes: rustc_hash::FxHashMap<u32, usize> = Default::default();
                for &file in &members[scope] {
                    let Some(facts) = project.facts(file) else {
                        continue;
                    };
                    for target in facts.imports.values() {
                        let Some(imported) = project.module_file_of(target) else {
                            continue;
                        };
                        let other = project.scope_of(imported);
                        if other != own
                            && let Some(theirs) = settings.get(other as usize)
                            && theirs.files.binary_search(&imported).is_ok()
                        {
                            *votes.entry(other).or_default() += 1;
                        }
                    }
                }
                let imported = votes
                    .into_iter()
                    .max_by_key(|&(other, count)| (count, std::cmp::Reverse(other)))
                    .map(|(other, _)| other);
                // Else the project that holds it (a plugin inside the app's repository).
                let mut holder = project.scope_parent(own);
                for _ in 0..count {
                    match holder {
                        Some(parent) if settings[parent as usize].is_empty() => {
                            holder = project.scope_parent(parent);
                        }
                        _ => break,
                    }
                }
                imported.or(holder).unwrap_or(own)
            })
            .collect();
        (settings, used)
    }

    /// `app.conf.<name>[key] = value`: one entry of a dict setting. Celery's dict settings
    /// start empty, so an entry set on an unset one makes a dict of that entry alone; an
    /// entry of a setting only run time knows leaves it unknown.
    fn set_entry(
        &mut self,
        name: &str,
        key: Sym,
        value: Option<Value>,
        file: u32,
        range: TextRange,
    ) {
        let Some(slot) = self.slot(name) else { return };
        let mut dict = match slot.take() {
            None => Some(Vec::new()),
            Some(Setting {
                value:
                    Some(Value {
                        lit: Lit::Dict(items),
                        ..
                    }),
                ..
            }) => Some(items),
            Some(_) => None,
        };
        if let Some(items) = &mut dict {
            let value = value.unwrap_or_default();
            match items.iter_mut().find(|(k, _)| *k == Some(key)) {
                Some(entry) => entry.1 = value,
                None => items.push((Some(key), value)),
            }
        }
        *slot = Some(Setting {
            value: dict.map(|items| Value {
                lit: Lit::Dict(items),
                ..Value::default()
            }),
            file,
            range,
        });
        self.files.push(file);
    }

    /// The broker's visibility timeout in seconds, when the broker redelivers after one and
    /// both are known: the configured one, or the broker's default.
    pub fn visibility_timeout(&self, project: &Project) -> Option<i64> {
        // `f"redis://{host}:6379/0"` says the scheme as well as a literal does.
        let url = self.broker_url.as_ref()?.str_start()?;
        let (scheme, _) = url.split_once("://")?;
        let scheme = scheme.to_ascii_lowercase();
        let default = *project
            .catalog
            .celery_settings
            .visibility_timeouts
            .get(&scheme)?;
        let Some(options) = &self.broker_transport_options else {
            return Some(default);
        };
        let options = options.value.as_ref()?;
        match options.dict_get("visibility_timeout") {
            Some(value) => project.constant(value).and_then(|v| v.as_int()),
            // A dict display without the key keeps the default; anything else is unknown.
            None => options.dict().map(|_| default),
        }
    }

    /// The settings `files` set (a project folder's).
    fn build(project: &Project, files: &[u32]) -> CelerySettings {
        // `self.x = ...` sets the Celery app's `conf` only if `self` can stand for something
        // else: bodies that assign only `self`'s attributes are skipped undecoded.
        let self_resolves = project.may_resolve_head(Sym::new("self"));
        let limit_calls = LimitCalls::of(project);
        // What each file's calls set, found in parallel and applied in file order below.
        let from_calls: Vec<(Vec<Assigned>, Vec<GlobalTimeLimit>, Vec<Call>)> = files
            .par_iter()
            .map(|&file_id| {
                project
                    .facts(file_id)
                    .map(|facts| read_calls(project, facts, file_id, self_resolves, &limit_calls))
                    .unwrap_or_default()
            })
            .collect();
        let mut global_time_limits = Vec::new();
        let mut calls = Vec::new();
        let mut apps: Vec<Call> = Vec::new();
        for (&file_id, (assigned, limits, made)) in files.iter().zip(from_calls) {
            global_time_limits.extend(limits);
            for app in made {
                if !apps.contains(&app) {
                    apps.push(app);
                }
            }
            calls.extend(assigned.into_iter().map(|assigned| (file_id, assigned)));
        }
        let found = Sources::find(project, files);
        let assemble = |app: Option<Call>| {
            let sources = found.sources(app);
            let mut settings = CelerySettings::default();
            settings.read_sources(project, files, &sources, app.is_some());
            settings
                .files
                .extend(global_time_limits.iter().map(|limit| limit.setting.file));
            settings.global_time_limits.clone_from(&global_time_limits);
            for class in &sources.classes {
                // Its values are the environment's at run time: unknown.
                if !reads_environment(project, class, 0) {
                    settings.class_settings(project, class, 0);
                }
            }
            settings.apply(&calls, app, &sources.files);
            settings
        };
        let mut settings = assemble(None);
        // Several apps: each runs with the configuration sources it loads (or that no app in
        // particular loads) and what it is told itself.
        if apps.len() > 1 {
            settings.apps = apps
                .into_iter()
                .map(|app| (app, assemble(Some(app))))
                .collect();
        }
        settings
    }

    /// What the settings modules and `celeryconfig` modules `sources` names set. For one app of
    /// several (`own_app`), a `celeryconfig` module counts by its name only when nothing names
    /// the modules the app loads.
    fn read_sources(&mut self, project: &Project, files: &[u32], sources: &Sources, own_app: bool) {
        if sources.elsewhere {
            return;
        }
        // The Django settings modules `DJANGO_SETTINGS_MODULE` names, with the modules they
        // star-import (`from .base import *`): a sibling for tests or another deployment does
        // not configure this one. Nothing named in the project: every settings module counts,
        // but for those named for tests.
        let named = django_settings_closure(project, &sources.django_modules);
        for &file_id in files {
            let Some(facts) = project.facts(file_id) else {
                continue;
            };
            let fi = file_id as usize;
            let last = facts.module.rsplit('.').next().unwrap_or_default();
            // Django settings count when the app loads them, or when nothing says what it
            // loads (its `config_from_object` may be outside the checked files).
            let is_django_settings = (!sources.namespaces.is_empty()
                || (sources.modules.is_empty() && sources.classes.is_empty()))
                && if named.is_empty() {
                    named_like_django_settings(&facts.module) && !named_for_tests(&facts.module)
                } else {
                    named.contains(&file_id)
                };
            let is_celeryconfig = sources.modules.contains(&facts.module)
                || (last == "celeryconfig" && (!own_app || sources.modules.is_empty()));
            if is_celeryconfig {
                // `from celeryconfig_base import *`: the base's settings, which this module's
                // own may override.
                let mut seen = vec![fi];
                self.star_imported(project, facts, &mut seen);
            }
            if is_django_settings || is_celeryconfig {
                for (name, value) in &facts.vars {
                    let key = if is_celeryconfig {
                        config_name(project, name)
                    } else {
                        sources.django_name(project, name)
                    };
                    if let Some(key) = key {
                        self.set_var(project, &key, value, file_id);
                    }
                }
            }
        }
    }

    /// What the app is told in code (`app.conf.update(...)`, `app.conf.x = ...`,
    /// `Celery(broker=...)`) goes over what it loads from its configuration source, whichever
    /// file comes first: Celery keeps it in the layer it reads first. With `app`, only what is
    /// told to that app or to no app in particular.
    fn apply(&mut self, calls: &[(u32, Assigned)], app: Option<Call>, sources: &[u32]) {
        for (file_id, assigned) in calls {
            if app.is_some() && assigned.app.is_some_and(|told| Some(told) != app) {
                continue;
            }
            let file = assigned.file.unwrap_or(*file_id);
            let (name, value, range) = (assigned.name, assigned.value.clone(), assigned.range);
            match assigned.key {
                Some(key) => self.set_entry(name, key, value, file, range),
                None => self.set(name, value, file, range),
            }
        }
        if !self.files.is_empty() {
            self.files.extend(sources);
        }
        self.files.sort_unstable();
        self.files.dedup();
    }

    /// The settings a configuration class (`config_from_object(ProductionConfig)`) sets, its
    /// bases' first.
    fn class_settings(&mut self, project: &Project, class: &str, depth: u32) {
        let Some((file, found)) = project.class(class) else {
            return;
        };
        if depth < 8 {
            for base in &found.bases {
                let base = project.canonical_plain(base).dotted();
                if base != class {
                    self.class_settings(project, &base, depth + 1);
                }
            }
        }
        for (name, value) in &found.attrs {
            if let Some(key) = config_name(project, name) {
                self.set_var(project, &key, value, file);
            }
        }
    }

    /// The settings of the project modules a configuration module star-imports (`from
    /// celeryconfig_base import *`), theirs first; `seen` holds the files already read.
    fn star_imported(&mut self, project: &Project, facts: &ModuleFacts, seen: &mut Vec<usize>) {
        for module in &facts.star_imports {
            let Some(file) = project.module_of(module) else {
                continue;
            };
            if seen.contains(&(file as usize)) || seen.len() > 8 {
                continue;
            }
            seen.push(file as usize);
            let Some(base) = project.facts(file) else {
                continue;
            };
            self.star_imported(project, base, seen);
            for (name, value) in &base.vars {
                if let Some(key) = config_name(project, name) {
                    self.set_var(project, &key, value, file);
                }
            }
        }
    }
}

/// The setting a name of a configuration module or class (`celeryconfig.py`, the object given
/// to `config_from_object`) sets: the name itself, or the new name of an old upper-case one
/// (`CELERY_ACKS_LATE`), which Celery still reads there.
fn config_name(project: &Project, name: &str) -> Option<String> {
    let setting = told_name(project, name);
    // An upper-case name Celery has no new name for is no setting (`DEBUG`, `INSTALLED_APPS`).
    (!setting.bytes().any(|b| b.is_ascii_uppercase())).then(|| setting.to_string())
}

/// The setting a name told to an app sets (`app.conf.update(CELERY_ACKS_LATE=True)`,
/// `app.conf.BROKER_URL = ...`): Celery converts the old upper-case names it is told before
/// the app is configured, as it does those of a configuration module.
fn told_name<'a>(project: &Project, name: &'a str) -> &'a str {
    if name.bytes().any(|b| b.is_ascii_uppercase())
        && let Some(new) = project.catalog.celery_settings.old_names.get(name)
    {
        crate::intern::intern(new)
    } else {
        name
    }
}

/// A setting a call or an assignment sets: its name, the entry when only one of its dict's
/// entries is set, its value when known, and where (in `file`, when not the call's).
struct Assigned<'a> {
    name: &'a str,
    key: Option<Sym>,
    value: Option<Value>,
    range: TextRange,
    file: Option<u32>,
    /// The app it is told to ([`app_key`]), when the call or assignment names one.
    app: Option<Call>,
}

impl<'a> Assigned<'a> {
    fn new(
        name: &'a str,
        key: Option<Sym>,
        value: Option<Value>,
        range: TextRange,
        app: Option<Call>,
    ) -> Self {
        Assigned {
            name,
            key,
            value,
            range,
            file: None,
            app,
        }
    }
}

/// `app.conf.update(...)`, `app.conf.x = ...`, `Celery(..., broker=...)`, in the order they
/// appear.
fn read_calls<'a>(
    project: &Project,
    facts: &'a ModuleFacts,
    file: u32,
    self_resolves: bool,
    limit_calls: &LimitCalls,
) -> (Vec<Assigned<'a>>, Vec<GlobalTimeLimit>, Vec<Call>) {
    let mut assigned = Vec::new();
    let mut limits = Vec::new();
    let mut apps = Vec::new();
    for function in &facts.functions {
        let assigns = if self_resolves {
            function.has_attr_assign()
        } else {
            function.may_assign_app_conf()
        };
        let may_set = assigns
            || function.calls_named(|name| {
                is_conf_update(project, &name)
                    || project.may_name_enqueue_or_app_by(name)
                    || limit_calls.may_match(name)
            });
        if !may_set {
            continue;
        }
        function.peek(|body| {
            read_events(project, body, &mut assigned, &mut apps);
            limit_calls.read(project, body, file, &mut limits);
        });
    }
    (assigned, limits, apps)
}

/// The settings one function body sets, in order ([`read_calls`]).
fn read_events(
    project: &Project,
    body: &FunctionBody,
    assigned: &mut Vec<Assigned<'_>>,
    apps: &mut Vec<Call>,
) {
    for event in &body.events {
        match &event.kind {
            EventKind::Call(call) => {
                let Some(path) = &call.path else { continue };
                let conf_update = is_conf_update(project, call.method.as_str());
                if !conf_update && !project.may_name_enqueue_or_app(path) {
                    continue;
                }
                let canonical = project.canonical(path);
                let app = app_key(&canonical);
                if conf_update && is_conf(&canonical, 1) {
                    for (key, value) in call.keywords() {
                        assigned.push(Assigned::new(
                            told_name(project, key.as_str()),
                            None,
                            known(project, value),
                            value.setting_range(),
                            app,
                        ));
                    }
                    // `update({...})`, or `update(CELERY_OPTIONS)` with the dict in another
                    // module, where its entries are reported.
                    let (items, file) = call
                        .args()
                        .first()
                        .and_then(|arg| {
                            arg.dict().map(|items| (items, None)).or_else(|| {
                                let (var, file) = project.module_var(arg)?;
                                Some((var.dict()?, Some(file)))
                            })
                        })
                        .unwrap_or((&[], None));
                    for (key, value) in items {
                        if let Some(key) = key {
                            assigned.push(Assigned {
                                file,
                                ..Assigned::new(
                                    told_name(project, key.as_str()),
                                    None,
                                    known(project, value),
                                    value.setting_range(),
                                    app,
                                )
                            });
                        }
                    }
                } else if conf_update
                    && call.method.as_str() == DICT_UPDATE
                    && is_conf(&canonical, 2)
                {
                    // `app.conf.broker_transport_options.update({...})`: entries of one setting.
                    let segs = canonical.segs();
                    let setting = told_name(project, segs[segs.len() - 2].name.as_str());
                    // Entries from a value only run time knows (`update(options)`, `**extra`):
                    // the whole setting is unknown from here on.
                    let opaque = call.args().first().is_some_and(|a| a.dict().is_none());
                    if opaque || call.star_kwargs || call.star_args {
                        assigned.push(Assigned::new(setting, None, None, call.range, app));
                        continue;
                    }
                    let entries = call.keywords().iter().map(|(k, v)| (Some(*k), v));
                    let items = call.args().first().and_then(Value::dict).unwrap_or(&[]);
                    for (key, value) in entries.chain(items.iter().map(|(k, v)| (*k, v))) {
                        // A `**spread` entry: what it sets is not known here.
                        let Some(key) = key else {
                            assigned.push(Assigned::new(setting, None, None, value.range, app));
                            continue;
                        };
                        assigned.push(Assigned::new(
                            setting,
                            Some(key),
                            known(project, value),
                            value.setting_range(),
                            app,
                        ));
                    }
                } else if is_celery_app(&canonical) {
                    apps.extend(app);
                    // Celery sets its keywords as settings (`broker` is `broker_url`); its
                    // `task_cls` is a class, kept as written.
                    for (key, value) in call.keywords() {
                        let range = value.setting_range();
                        let value = match key.as_str() {
                            TASK_CLS => Some(value.clone()),
                            _ => known(project, value),
                        };
                        assigned.push(Assigned::new(key.as_str(), None, value, range, app));
                    }
                }
            }
            EventKind::AttrAssign(assign) => {
                let Some(object) = &assign.object else {
                    continue;
                };
                let canonical = project.canonical(object);
                if is_conf(&canonical, 0) {
                    assigned.push(Assigned::new(
                        told_name(project, assign.attr.as_str()),
                        assign.key,
                        known(project, &assign.value),
                        assign.value.setting_range(),
                        app_key(&canonical),
                    ));
                }
            }
            EventKind::Guard(_) => {}
        }
    }
}

/// The calls that bound every task of a framework (catalog `global-time-limits`), looked for
/// anywhere in the project: `broker.add_middleware(TimeLimit(time_limit=3_600_000))`.
struct LimitCalls<'c>(Vec<(Framework, usize, &'c CallTimeLimit)>);

impl<'c> LimitCalls<'c> {
    fn of(project: &Project<'c>) -> LimitCalls<'c> {
        let catalog: &'c crate::catalog::Catalog = project.catalog;
        LimitCalls(
            catalog
                .frameworks
                .iter()
                .flat_map(|spec| {
                    (spec.global_time_limits.iter().enumerate())
                        .map(move |(index, limit)| (spec.framework, index, limit))
                })
                .collect(),
        )
    }

    /// Whether a call named so may be one of them: a cheap test before decoding a body.
    fn may_match(&self, name: Sym) -> bool {
        self.0
            .iter()
            .any(|(_, _, limit)| limit.calls.may_match(name))
    }

    /// The limits the calls of one body set, in order.
    fn read(
        &self,
        project: &Project,
        body: &FunctionBody,
        file: u32,
        found: &mut Vec<GlobalTimeLimit>,
    ) {
        if self.0.is_empty() {
            return;
        }
        for event in &body.events {
            let EventKind::Call(call) = &event.kind else {
                continue;
            };
            let Some(path) = &call.path else { continue };
            if !path.0.last().is_some_and(|last| self.may_match(last.name)) {
                continue;
            }
            let canonical = project.canonical(path);
            for (framework, index, limit) in &self.0 {
                if limit.calls.find(&canonical).is_none() {
                    continue;
                }
                if let Some(value) = call.keyword(&limit.limit.keyword) {
                    found.push(GlobalTimeLimit {
                        framework: *framework,
                        index: *index,
                        call: canonical.segs().last().map_or(call.method, |s| s.name),
                        setting: Setting {
                            value: known(project, value),
                            file,
                            range: value.setting_range(),
                        },
                    });
                }
            }
        }
    }
}

/// Whether `app.conf.<method>(...)` sets several settings at once (`update`, `setdefault`).
fn is_conf_update(project: &Project, method: &str) -> bool {
    project
        .catalog
        .celery_settings
        .conf_update_methods
        .iter()
        .any(|m| m == method)
}

/// The files of the Django settings modules `modules` names and of the project modules they
/// star-import, transitively (a few levels: `prod` → `base` → `components.celery`). A module
/// named for tests does not count: `conftest.py` points the test run at `settings.test`.
fn django_settings_closure(project: &Project, modules: &[String]) -> Vec<u32> {
    let mut files: Vec<u32> = modules
        .iter()
        .filter(|module| !named_for_tests(module))
        .filter_map(|module| project.module_of(module))
        .collect();
    let mut next = 0;
    while next < files.len() && files.len() < 32 {
        if let Some(facts) = project.facts(files[next]) {
            for module in &facts.star_imports {
                if let Some(file) = project.module_of(module)
                    && !files.contains(&file)
                {
                    files.push(file);
                }
            }
        }
        next += 1;
    }
    files
}

/// Whether a settings module is named for the test suite (`settings.test`, `test_settings`,
/// `settings_tests`): what the tests run with, not a deployment.
fn named_for_tests(module: &str) -> bool {
    module.split('.').any(|part| {
        matches!(part, "test" | "tests" | "testing")
            || part.starts_with("test_")
            || part.ends_with("_test")
            || part.ends_with("_tests")
    })
}

/// Whether a module is named like Django settings: a part of its name contains `settings`
/// (`proj.settings`, `config.settings.prod`, `proj.settings_local`).
pub(crate) fn named_like_django_settings(module: &str) -> bool {
    module.split('.').any(|part| part.contains("settings"))
}

/// The keyword of `Celery(...)` that names the app's default task class.
const TASK_CLS: &str = "task_cls";

/// The dict method that sets entries of a dict setting (`setdefault` is not read there).
const DICT_UPDATE: &str = "update";

/// Django's settings module, as `config_from_object` is given it (`"django.conf:settings"`, or
/// the `django.conf.settings` object).
const DJANGO_SETTINGS: &str = "django.conf";

/// The app method that loads settings from a module or class.
const CONFIG_FROM_OBJECT: &str = "config_from_object";
const DJANGO_SETTINGS_MODULE: &str = "DJANGO_SETTINGS_MODULE";

/// The keyword of `Celery(...)` that does what `config_from_object` does.
const CONFIG_SOURCE: &str = "config_source";

/// `celery.Celery().conf` followed by `extra` more segments.
fn is_conf(path: &QPath, extra: usize) -> bool {
    let segs = path.segs();
    segs.len() >= 2 + extra
        && segs[segs.len() - 1 - extra].name == CELERY_CONF
        && is_celery_app(&QPath(segs[..segs.len() - 1 - extra].to_vec()))
}

/// The attribute of a Celery app that holds its settings (`app.conf`).
pub const CELERY_CONF: &str = "conf";

/// The last name of the paths [`is_celery_app`] accepts.
pub const CELERY_APP_CLASS: &str = "Celery";

/// The Celery app a canonical path starts from, by its main name: `Call::Str("proj")` for
/// `celery.Celery("proj").conf.update` or `.task`; `Call::Any` for an app made without a
/// literal name (`Celery(__name__)`), which apps so made share.
pub fn app_key(path: &QPath) -> Option<Call> {
    let segs = path.segs();
    (1..segs.len().min(4))
        .find(|&at| is_celery_app_segs(&segs[..=at]))
        .map(|at| segs[at].call)
}

fn is_celery_app(path: &QPath) -> bool {
    is_celery_app_segs(path.segs())
}

fn is_celery_app_segs(segs: &[crate::path::Seg]) -> bool {
    let names = segs.iter().map(|seg| seg.name);
    segs.last().is_some_and(|seg| seg.call != Call::No)
        && [
            &["celery", CELERY_APP_CLASS][..],
            &["celery", "app", CELERY_APP_CLASS],
            &["celery", "app", "base", CELERY_APP_CLASS],
        ]
        .iter()
        .any(|dotted| names.clone().eq(dotted.iter().copied()))
}

/// Whether a configuration class derives from a class whose attributes the environment
/// overrides (catalog `environment-classes`: pydantic's `BaseSettings`).
fn reads_environment(project: &Project, class: &str, depth: u32) -> bool {
    let Some((_, found)) = project.class(class) else {
        return false;
    };
    let catalog = &project.catalog.celery_settings;
    depth < 8
        && found.bases.iter().any(|base| {
            let base = project.canonical_plain(base).dotted();
            catalog.environment_classes.contains(&base)
                || base != class && reads_environment(project, &base, depth + 1)
        })
}

fn known(project: &Project, value: &Value) -> Option<Value> {
    project.constant(value)
}

/// Where the apps of a project folder are told to read settings from ([`Sources::find`]).
#[derive(Default)]
struct Found {
    /// By the app told ([`app_key`]; `None`: no app in particular), in the order first seen.
    told: Vec<(Option<Call>, Sources)>,
    /// `DJANGO_SETTINGS_MODULE` defaults, by the file that sets them.
    django_modules: Vec<(u32, String)>,
}

impl Found {
    /// Where an app reads settings from (with `None`, any app of the folder): what it is told
    /// and what no app in particular is told.
    fn sources(&self, app: Option<Call>) -> Sources {
        let mut sources = Sources::default();
        for (told, found) in &self.told {
            if app.is_some() && told.is_some_and(|told| Some(told) != app) {
                continue;
            }
            sources.namespaces.extend(found.namespaces.iter().cloned());
            sources.modules.extend(found.modules.iter().cloned());
            sources.classes.extend(found.classes.iter().cloned());
            sources.files.extend(&found.files);
        }
        // The worker runs the app's module: the settings module it names is the worker's, and
        // what `manage.py` or `wsgi.py` name is the web process's. Named elsewhere only, any
        // of them may be.
        let by_app = self
            .django_modules
            .iter()
            .any(|(file, _)| sources.files.contains(file));
        sources.django_modules = self
            .django_modules
            .iter()
            .filter(|(file, _)| !by_app || sources.files.contains(file))
            .map(|(_, module)| module.clone())
            .collect();
        // With no `config_from_object` at all, Django's `CELERY_` settings are the likely
        // source; with one that names another module or class only, Django's are not read.
        if sources.namespaces.is_empty() && sources.modules.is_empty() && sources.classes.is_empty()
        {
            if !self.told.is_empty() {
                sources.elsewhere = true;
                return sources;
            }
            sources.namespaces.push("CELERY_".to_string());
            sources.guessed = true;
        }
        sources
    }
}

/// Where the project tells Celery to read its settings from.
#[derive(Default)]
struct Sources {
    /// Namespaces of Django settings (`CELERY_`), from `config_from_object(..., namespace=)`.
    namespaces: Vec<String>,
    /// Modules named in `config_from_object("module")`.
    modules: Vec<String>,
    /// Classes passed to `config_from_object(Config)`.
    classes: Vec<String>,
    /// No `config_from_object` was found: `CELERY_` is a guess, and Celery 3's names
    /// (`BROKER_URL`) may be what the project uses.
    guessed: bool,
    /// The files that say where settings come from (the app's module).
    files: Vec<u32>,
    /// Django settings modules named by `os.environ.setdefault("DJANGO_SETTINGS_MODULE", m)`,
    /// whatever their names.
    django_modules: Vec<String>,
    /// Found for one app of several: only other apps are told where to read settings from,
    /// so this one reads none (a standalone `Celery("tracking", broker=...)`).
    elsewhere: bool,
}

impl Sources {
    /// Where the apps of `files` are told to read settings from, by the app told
    /// ([`app_key`]; `None`: no app in particular).
    fn find(project: &Project, files: &[u32]) -> Found {
        let mut found = Found::default();
        for &file in files {
            let Some(facts) = project.facts(file) else {
                continue;
            };
            for function in &facts.functions {
                // `os.environ.setdefault("DJANGO_SETTINGS_MODULE", "proj.conf.prod")`. Bodies
                // are read without keeping them decoded: `dict.setdefault` is common.
                if function.calls_named(|name| name == "setdefault") {
                    function.peek(|body| {
                        for event in &body.events {
                            if let EventKind::Call(call) = &event.kind
                                && call.method.as_str() == "setdefault"
                                && let [name, module] = call.args()
                                && name.as_str() == Some(DJANGO_SETTINGS_MODULE)
                                && let Some(module) = module.as_str()
                            {
                                found.django_modules.push((file, module.to_string()));
                            }
                        }
                    });
                }
                if !function
                    .calls_named(|name| name == CONFIG_FROM_OBJECT || name == CELERY_APP_CLASS)
                {
                    continue;
                }
                for event in function.events() {
                    let EventKind::Call(call) = &event.kind else {
                        continue;
                    };
                    // `app.config_from_object(source)`, `Celery(..., config_source=source)`.
                    let canonical = call.path.as_ref().map(|path| project.canonical(path));
                    let source = if call.method.as_str() == CONFIG_FROM_OBJECT {
                        call.args().first()
                    } else if canonical.as_deref().is_some_and(is_celery_app) {
                        call.keyword(CONFIG_SOURCE)
                    } else {
                        None
                    };
                    let Some(first) = source else {
                        continue;
                    };
                    let told = canonical.as_deref().and_then(app_key);
                    let sources = match found.told.iter().position(|(app, _)| *app == told) {
                        Some(at) => &mut found.told[at].1,
                        None => {
                            found.told.push((told, Sources::default()));
                            &mut found.told.last_mut().expect("just pushed").1
                        }
                    };
                    sources.files.push(file);
                    let django = || {
                        let namespace = call
                            .keyword("namespace")
                            .and_then(Value::as_str)
                            .unwrap_or_default();
                        if namespace.is_empty() {
                            String::new()
                        } else {
                            format!("{namespace}_")
                        }
                    };
                    match first.as_str() {
                        Some(target) if target.starts_with(DJANGO_SETTINGS) => {
                            sources.namespaces.push(django());
                        }
                        // `"proj.config:ProductionConfig"`: a class in a module.
                        // `"proj.config.ProductionConfig"`: the same, as Celery also takes it.
                        Some(target) if project.class(&target.replace(':', ".")).is_some() => {
                            sources.classes.push(target.replace(':', "."));
                        }
                        Some(module) => sources
                            .modules
                            .push(module.split(':').next().unwrap_or(module).to_string()),
                        None => {
                            if let Some(path) = &first.path {
                                let canonical = project.canonical(path).dotted();
                                // `from django.conf import settings`, passed as an object.
                                if canonical.starts_with(DJANGO_SETTINGS) {
                                    sources.namespaces.push(django());
                                } else if project.class(&canonical).is_some() {
                                    sources.classes.push(canonical);
                                } else {
                                    sources.modules.push(canonical);
                                }
                            }
                        }
                    }
                }
            }
        }
        found
    }

    /// The Celery name of a Django setting: `CELERY_TASK_ACKS_LATE` with namespace `CELERY_`,
    /// or an old upper-case name (`BROKER_URL`, `CELERY_ACKS_LATE`). Celery reads only the
    /// new names under a namespace: with `namespace="CELERY"`, a `BROKER_URL` left over from
    /// Celery 3 is ignored, so the old names count only without one (or when nothing says).
    fn django_name(&self, project: &Project, name: &str) -> Option<String> {
        let old_names_read = self.guessed || self.namespaces.iter().any(String::is_empty);
        if old_names_read && let Some(old) = project.catalog.celery_settings.old_names.get(name) {
            return Some(old.clone());
        }
        self.namespaces
            .iter()
            .filter(|ns| !ns.is_empty())
            .find_map(|ns| name.strip_prefix(ns.as_str()))
            .map(str::to_ascii_lowercase)
    }
}
