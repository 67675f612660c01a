//! Models of the project: Django models (with abstract bases and inheritance) and SQLAlchemy
//! declarative models, their fields, what makes them unique, their tables, and which of them
//! the project ever deletes rows of.

use rayon::prelude::*;
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use ruff_text_size::TextRange;

use crate::facts::{BlockKind, Class, EventKind, Function, FunctionBody, Lit, Value};
use crate::path::{Call, QPath, Seg, Sym};
use crate::project::{FuncId, Project};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Orm {
    Django,
    SqlAlchemy,
}

#[derive(Debug)]
pub struct Model {
    pub file: u32,
    pub qualname: String,
    pub name: String,
    /// The `class` line, for reports about the model.
    pub name_range: TextRange,
    pub orm: Orm,
    pub is_abstract: bool,
    /// The database table, lower-case.
    pub table: String,
    /// Field sets with a unique constraint (each a single field, or several together).
    pub unique_sets: Vec<Vec<String>>,
    /// Relation fields: looked up as `<name>` or `<name>_id`.
    pub relations: Vec<String>,
    /// Relation fields with their target model's name and the reverse accessor on the target.
    pub reverse: Vec<Reverse>,
    /// Relation fields and their target model's class name.
    pub targets: Vec<(String, String)>,
    /// Qualified names of the project's manager and queryset classes this model uses.
    pub managers: Vec<String>,
    /// Attributes holding a manager under a name the catalog does not list
    /// (`active = ActiveManager()`, `lifecycle = ExpiredQuerySet.as_manager()`).
    pub manager_names: Vec<String>,
    /// The Django fields defined, the model's own first, then its bases' not redefined.
    pub fields: Vec<String>,
    /// The model a proxy model (`Meta.proxy = True`) stands for: the first base, whose table
    /// it shares.
    pub proxy_of: Option<String>,
}

/// A relation seen from its target: `order.payments` is the `order` field of `OrderPayment`.
#[derive(Debug, Clone)]
pub struct Reverse {
    /// The relation field on the owning model.
    pub field: String,
    /// The target model's class name (`Order`), as the field names it.
    pub target: String,
    /// The accessor on the target: `related_name`, or `<owner>_set`.
    pub related_name: String,
}

/// What a manager call works on: the model, and the relation field a related manager fills in
/// by itself (`order.payments.create(...)` sets `order`).
#[derive(Debug, Clone, Copy)]
pub struct ManagerTarget<'m> {
    pub model: usize,
    pub implicit: Option<&'m str>,
}

impl Model {
    /// Whether a lookup on these fields can only match one row: some unique set is contained in
    /// it. `pk`/`id` lookups are unique by definition.
    pub fn lookup_is_unique(&self, fields: &[String]) -> bool {
        let normal: HashSet<String> = fields.iter().map(|f| self.normalize(f)).collect();
        if normal.contains("pk") || normal.contains("id") {
            return true;
        }
        self.unique_sets
            .iter()
            .any(|set| !set.is_empty() && set.iter().all(|f| normal.contains(&self.normalize(f))))
    }

    /// The field a lookup names: `user_id` → `user` for a relation (a plain `external_id`
    /// field stays); anything after `__` is a lookup on another table.
    pub fn normalize(&self, field: &str) -> String {
        let field = field.split("__").next().unwrap_or(field);
        if let Some(base) = field.strip_suffix("_id")
            && self.relations.iter().any(|r| r == base)
        {
            return base.to_string();
        }
        field.to_string()
    }
}

#[derive(Debug, Default)]
pub struct Models {
    pub list: Vec<Model>,
    by_qualname: HashMap<String, usize>,
    /// Models some code deletes rows of (by index into `list`).
    deleted: HashSet<usize>,
    /// Reverse accessors (`payments`) → (owning model, index into its `reverse`).
    by_related_name: HashMap<String, Vec<(usize, usize)>>,
    /// Model class names → models (for relation targets named by string or bare name).
    by_name: HashMap<String, Vec<usize>>,
    /// The model `AUTH_USER_MODEL` names, when it is one of the project's.
    user_model: Option<usize>,
    /// Names of methods that project models define.
    model_methods: HashSet<&'static str>,
    /// The models' custom manager attributes ([`Model::manager_names`]), all together.
    manager_names: HashSet<String>,
}

impl Models {
    pub fn get(&self, qualname: &str) -> Option<&Model> {
        self.by_qualname.get(qualname).map(|&i| &self.list[i])
    }

    pub fn index(&self, qualname: &str) -> Option<usize> {
        self.by_qualname.get(qualname).copied()
    }

    /// The model a path names: a model class, or a call that returns one by its label
    /// (`apps.get_model("billing", "Invoice")`) or from the settings (`get_user_model()`).
    pub fn model_at(&self, project: &Project, path: &QPath) -> Option<usize> {
        let canonical = project.canonical(path);
        let dotted = canonical.dotted();
        if let Some(index) = self.index(&dotted) {
            return Some(index);
        }
        let orm = &project.catalog.orm;
        match canonical.segs().last()?.call {
            Call::No => None,
            _ if orm.user_model_calls.contains(&dotted) => self.user_model,
            Call::Str(label) if orm.model_lookups.contains(&dotted) => {
                self.by_label(label.as_str())
            }
            _ => None,
        }
    }

    /// The model an app label and class name name (`"billing.Invoice"`): the one model of that
    /// name in a module of a package called like the app.
    fn by_label(&self, label: &str) -> Option<usize> {
        let (app, name) = label.rsplit_once('.')?;
        let mut found = self.by_name.get(name)?.iter().copied().filter(|&i| {
            let qualname = &self.list[i].qualname;
            let module = qualname.rsplit_once('.').map_or("", |(module, _)| module);
            module.split('.').any(|part| part == app)
        });
        let first = found.next()?;
        found.next().is_none().then_some(first)
    }

    pub fn is_deleted(&self, index: usize) -> bool {
        self.deleted.contains(&index)
    }

    pub fn build(project: &Project) -> Models {
        // What each class's bases name, worked out in parallel: it is most of the cost.
        let bases: Vec<Vec<Vec<String>>> = project
            .files
            .par_iter()
            .map(|file| {
                let Some(facts) = &file.facts else {
                    return Vec::new();
                };
                facts
                    .classes
                    .iter()
                    .map(|class| {
                        class
                            .bases
                            .iter()
                            .map(|base| project.canonical(base).dotted())
                            .collect()
                    })
                    .collect()
            })
            .collect();
        // Which classes are models, in file order (a class's answer depends on its bases').
        let mut memo: HashMap<&str, Option<Orm>> = HashMap::default();
        let mut found = Vec::new();
        for (fi, file) in project.files.iter().enumerate() {
            let Some(facts) = &file.facts else { continue };
            let file_id = u32::try_from(fi).unwrap_or(u32::MAX);
            for (ci, class) in facts.classes.iter().enumerate() {
                if let Some(orm) = orm_of(project, &bases, (file_id, ci), class, &mut memo, 0) {
                    found.push((file_id, &facts.module, class, orm));
                }
            }
        }
        let built: Vec<Model> = found
            .par_iter()
            .map(|&(file, module, class, orm)| build_model(project, file, module, class, orm))
            .collect();
        let mut models = Models::default();
        for (model, &(_, _, class, _)) in built.into_iter().zip(&found) {
            let index = models.list.len();
            for (r, reverse) in model.reverse.iter().enumerate() {
                models
                    .by_related_name
                    .entry(reverse.related_name.clone())
                    .or_default()
                    .push((index, r));
            }
            models
                .manager_names
                .extend(model.manager_names.iter().cloned());
            models.by_qualname.insert(model.qualname.clone(), index);
            models
                .by_name
                .entry(model.name.clone())
                .or_default()
                .push(index);
            models
                .model_methods
                .extend(class.methods.keys().map(|m| crate::intern::intern(m)));
            models.list.push(model);
        }
        models.user_model = models.find_user_model(project);
        models.find_deletions(project);
        models
    }

    /// The project model the settings name as the user model (`AUTH_USER_MODEL =
    /// "accounts.User"`), when every setting of it agrees.
    fn find_user_model(&self, project: &Project) -> Option<usize> {
        let setting = project.catalog.orm.user_model_setting.as_deref()?;
        let mut labels = project.files.iter().filter_map(|file| {
            let value = file.facts.as_ref()?.vars.get(setting)?;
            Some(value.as_str().map(str::to_string))
        });
        let first = labels.next()??;
        if labels.any(|label| label.as_deref() != Some(first.as_str())) {
            return None;
        }
        self.by_label(&first)
    }

    /// The model a call's receiver names: `Order.objects.filter(...)`, `Order._default_manager`.
    pub fn model_of_manager_call(&self, project: &Project, path: &QPath) -> Option<usize> {
        self.manager_target(project, path).map(|t| t.model)
    }

    /// The model a relation field of `model` points to (`Order.customer` → `Customer`), by
    /// qualified name, when the target's name is one model of the project.
    pub fn relation_target(&self, model: &str, field: &str) -> Option<String> {
        let model = self.get(model)?;
        let target = &model.targets.iter().find(|(f, _)| f == field)?.1;
        match self.by_name.get(target)?.as_slice() {
            [only] => Some(self.list[*only].qualname.clone()),
            _ => None,
        }
    }

    /// Whether some project model defines a method of this name.
    pub fn is_model_method(&self, name: &str) -> bool {
        self.model_methods.contains(name)
    }

    /// Whether `name` is the reverse accessor of some relation in the project (`payments` of
    /// `order.payments`): calls on it are ORM calls.
    pub fn is_related_name(&self, name: &str) -> bool {
        self.by_related_name.contains_key(name)
    }

    /// The model (and implicit relation field) a manager call works on:
    /// `Order.objects...`, `order.payments...` (a related manager), `Order.objects.get().lines...`.
    pub fn manager_target(&self, project: &Project, path: &QPath) -> Option<ManagerTarget<'_>> {
        let segs = path.segs();
        let (method_at, _) = segs.split_last()?;
        let _ = method_at;
        let last = segs.len() - 1;
        let mut target: Option<ManagerTarget> = None;
        let start = match project.catalog.orm.manager_at(path) {
            Some(at) => {
                target = Some(ManagerTarget {
                    model: self.model_at(project, &QPath(segs[..at].to_vec()))?,
                    implicit: None,
                });
                at + 1
            }
            // `Entry.lifecycle.filter(...)`: a manager the model names itself.
            None => match self.custom_manager_at(project, segs) {
                Some((at, model)) => {
                    target = Some(ManagerTarget {
                        model,
                        implicit: None,
                    });
                    at + 1
                }
                None => 0,
            },
        };
        // Attributes after that (not queryset calls) follow relations: `.payments`, `.lines`.
        for seg in &segs[start..last] {
            if seg.call != crate::path::Call::No {
                continue;
            }
            let Some(candidates) = self.by_related_name.get(seg.name.as_str()) else {
                if target.is_some() && start > 0 {
                    // An attribute of a loaded row that is not a relation: not a manager.
                    return None;
                }
                continue;
            };
            let from = target.map(|t| self.list[t.model].name.as_str());
            let chosen = candidates
                .iter()
                .find(|(owner, r)| {
                    from.is_none_or(|name| self.list[*owner].reverse[*r].target == name)
                })
                .or_else(|| (candidates.len() == 1).then(|| &candidates[0]))?;
            let (owner, r) = *chosen;
            target = Some(ManagerTarget {
                model: owner,
                implicit: Some(self.list[owner].reverse[r].field.as_str()),
            });
        }
        target
    }

    /// The position of a custom manager attribute in a path (`Entry.lifecycle.filter`: 1),
    /// with its model: the attribute is one the model holds a manager in.
    fn custom_manager_at(&self, project: &Project, segs: &[Seg]) -> Option<(usize, usize)> {
        if self.manager_names.is_empty() {
            return None;
        }
        let at = segs.iter().enumerate().skip(1).position(|(i, seg)| {
            seg.call == Call::No
                && i + 1 < segs.len()
                && self.manager_names.contains(seg.name.as_str())
        })? + 1;
        if segs[..at].iter().any(|seg| seg.call != Call::No) {
            return None;
        }
        let model = project.canonical(&QPath(segs[..at].to_vec())).into_owned();
        let index = self.index(&model.dotted())?;
        self.list[index]
            .manager_names
            .iter()
            .any(|name| name == segs[at].name.as_str())
            .then_some((at, index))
    }

    /// Models deleted by the calls of one body (`Model.objects.filter(...).delete()`,
    /// `session.query(Model).delete()`), added to `deleted`.
    fn deletions_in(
        &self,
        project: &Project,
        function: &Function,
        body: &FunctionBody,
        own_model: Option<usize>,
        found: &mut Deletions,
    ) {
        let mut queried: Vec<usize> = Vec::new();
        for event in &body.events {
            let EventKind::Call(call) = &event.kind else {
                continue;
            };
            let Some(path) = &call.path else { continue };
            let is_query = call.method.as_str() == "query";
            let is_delete = project.catalog.orm.delete_methods.has(call.method.as_str());
            if !is_query && !is_delete {
                continue;
            }
            // `session.query(Model)`, `delete(Model)`: the model is the first argument.
            let first_model = call
                .args()
                .first()
                .and_then(|a| a.path.as_ref())
                .and_then(|p| self.model_at(project, p));
            if is_query && let Some(model) = first_model {
                queried.push(model);
            }
            if !is_delete {
                continue;
            }
            // `except ValueError: marker.delete(); raise`: the row goes when the work fails,
            // so the retry can claim it again; every run that succeeds keeps its row.
            if body
                .block_kinds(event.block)
                .any(|kind| matches!(kind, BlockKind::Handler { .. }))
            {
                continue;
            }
            let param = |name: Sym| function.params.iter().position(|p| name == p.name());
            if let Some(model) = self.model_of_manager_call(project, path) {
                found.models.push(model);
            } else if let Some(model) = own_model
                && path.0.len() > 2
                && path.0[0].name == "self"
                && project.catalog.orm.manager_at(path) == Some(1)
            {
                // `cls.objects.filter(...).delete()` in a class method of the model.
                found.models.push(model);
            } else if path.0.len() > 3
                && path.0[0].name == "self"
                && path.0[1].call == crate::path::Call::No
                && project.catalog.orm.manager_at(path) == Some(2)
            {
                // `self.model.objects.filter(...).delete()` in a generic repository: the
                // model its subclasses name (`model = ProcessedCommand`).
                found.attributes.push(path.0[1].name.as_str());
            } else if path.0.len() > 2
                && path.0[0].call == crate::path::Call::No
                && call.receiver_var == Some(path.0[0].name)
                && project.catalog.orm.manager_at(path) == Some(1)
                && let Some(at) = param(path.0[0].name)
            {
                // `model.objects.filter(...).delete()` in a generic helper: the model its
                // callers pass (`purge_older_than(IdempotencyRecord, days=7)`).
                found.parameters.push(at);
            } else if let Some(model) = first_model {
                found.models.push(model);
            } else if path.contains("query") {
                found.models.extend(queried.iter().copied());
            } else if let Some(model) =
                self.model_of_manager_call(project, &project.canonical(path))
            {
                // `stale_deliveries().delete()`: a helper returns the model's queryset.
                found.models.push(model);
            }
        }
    }

    /// `self.model.objects...delete()` in a method of `class`: the models that `class` and its
    /// subclasses assign to the attribute (`model = ProcessedCommand`) are deleted.
    fn deleted_through_attributes(&mut self, project: &Project, pairs: &[(String, &'static str)]) {
        let inherits = |class: &Class, ancestor: &str| {
            let mut current = vec![class];
            for _ in 0..8 {
                let mut next = Vec::new();
                for c in current {
                    if c.qualname == ancestor {
                        return true;
                    }
                    for base in &c.bases {
                        if let Some((_, base)) = project.class(&project.canonical(base).dotted()) {
                            next.push(base);
                        }
                    }
                }
                if next.is_empty() {
                    return false;
                }
                current = next;
            }
            false
        };
        for file in project.files {
            let Some(facts) = &file.facts else { continue };
            for class in &facts.classes {
                for (ancestor, attribute) in pairs {
                    let Some(model) = class
                        .attrs
                        .get(attribute)
                        .and_then(|v| v.path.as_ref())
                        .and_then(|p| self.index(&project.canonical(p).dotted()))
                    else {
                        continue;
                    };
                    if inherits(class, ancestor) {
                        self.deleted.insert(model);
                    }
                }
            }
        }
    }

    /// `model.objects...delete()` on a parameter of a generic helper: the models its callers
    /// pass there, by position or by name (`purge_older_than(IdempotencyRecord, days=7)`).
    fn deleted_through_parameters(&mut self, project: &Project, pairs: &[(FuncId, usize)]) {
        let names: Vec<Sym> = pairs
            .iter()
            .filter_map(|(id, _)| project.function(*id))
            .map(|f| Sym::new(f.name()))
            .collect();
        let passed: Vec<usize> = project
            .files
            .par_iter()
            .enumerate()
            .flat_map_iter(|(file_index, file)| {
                let mut passed = Vec::new();
                let Some(facts) = &file.facts else {
                    return passed;
                };
                let file_index = u32::try_from(file_index).unwrap_or(u32::MAX);
                for (index, function) in facts.functions.iter().enumerate() {
                    if !function.calls_named(|name| names.contains(&name)) {
                        continue;
                    }
                    let caller = FuncId::new(file_index, index);
                    function.peek(|body| {
                        for event in &body.events {
                            let EventKind::Call(call) = &event.kind else {
                                continue;
                            };
                            let Some(path) =
                                call.path.as_ref().filter(|_| names.contains(&call.method))
                            else {
                                continue;
                            };
                            let Some(callee) =
                                project.resolve_function(&project.canonical(path), Some(caller))
                            else {
                                continue;
                            };
                            for (helper, at) in pairs {
                                if (helper.file, helper.func) != (callee.file, callee.func) {
                                    continue;
                                }
                                let Some(helper) = project.function(*helper) else {
                                    continue;
                                };
                                let Some(param) = helper.params.get(*at) else {
                                    continue;
                                };
                                // A method's `self` is not among the call's arguments.
                                let position =
                                    at.checked_sub(usize::from(helper.class().is_some()));
                                let arg = call
                                    .keywords()
                                    .iter()
                                    .find(|(k, _)| k.as_str() == param.name())
                                    .map(|(_, v)| v)
                                    .or_else(|| position.and_then(|p| call.args().get(p)));
                                if let Some(model) = arg
                                    .and_then(|a| a.path.as_ref())
                                    .and_then(|p| self.model_at(project, p))
                                {
                                    passed.push(model);
                                }
                            }
                        }
                    });
                }
                passed
            })
            .collect();
        self.deleted.extend(passed);
    }

    fn find_deletions(&mut self, project: &Project) {
        let mut tables: HashSet<String> = HashSet::default();
        for file in project.files {
            let Some(facts) = &file.facts else { continue };
            tables.extend(facts.deleted_tables.iter().cloned());
        }
        // Models deleted; (class, attribute) pairs of `self.<attribute>.objects...delete()`;
        // (function, parameter) pairs of `model.objects...delete()` on a parameter.
        type Found = (
            Vec<usize>,
            Vec<(String, &'static str)>,
            Vec<(FuncId, usize)>,
        );
        let (deleted, through_attributes, through_parameters): Found = project
            .files
            .par_iter()
            .enumerate()
            .map(|(file_index, file)| {
                let mut deleted = Vec::new();
                let mut through = Vec::new();
                let mut parameters = Vec::new();
                let Some(facts) = &file.facts else {
                    return (deleted, through, parameters);
                };
                for (index, function) in facts.functions.iter().enumerate() {
                    if function.calls_named(|name| project.catalog.orm.delete_methods.has(&name)) {
                        let class = function.class().and_then(|c| facts.classes.get(c));
                        let own_model = class.and_then(|class| self.index(&class.qualname));
                        let mut found = Deletions::default();
                        function.peek(|body| {
                            self.deletions_in(project, function, body, own_model, &mut found);
                        });
                        deleted.extend(found.models);
                        if let Some(class) = class {
                            through.extend(
                                found
                                    .attributes
                                    .into_iter()
                                    .map(|a| (class.qualname.clone(), a)),
                            );
                        }
                        let id = FuncId::new(u32::try_from(file_index).unwrap_or(u32::MAX), index);
                        parameters.extend(found.parameters.into_iter().map(|at| (id, at)));
                    }
                }
                (deleted, through, parameters)
            })
            .reduce(
                || (Vec::new(), Vec::new(), Vec::new()),
                |mut a, b| {
                    a.0.extend(b.0);
                    a.1.extend(b.1);
                    a.2.extend(b.2);
                    a
                },
            );
        self.deleted.extend(deleted);
        if !through_attributes.is_empty() {
            self.deleted_through_attributes(project, &through_attributes);
        }
        if !through_parameters.is_empty() {
            self.deleted_through_parameters(project, &through_parameters);
        }
        for file in project.files {
            let Some(facts) = &file.facts else { continue };
            for path in &facts.deleted_models {
                if let Some(model) = self.index(&project.canonical(path).dotted()) {
                    self.deleted.insert(model);
                }
            }
        }
        for (i, model) in self.list.iter().enumerate() {
            if tables.contains(&model.table) {
                self.deleted.insert(i);
            }
        }
        // `queryset.delete()` in a method of the model's own manager or queryset class.
        for (i, model) in self.list.iter().enumerate() {
            for manager in &model.managers {
                let Some((file, class)) = project.class(manager) else {
                    continue;
                };
                let Some(facts) = project.facts(file) else {
                    continue;
                };
                let deletes = class.methods.values().filter_map(|&m| facts.functions.get(m)).any(|function| {
                    function.events().iter().any(|e| matches!(&e.kind, EventKind::Call(c) if project.catalog.orm.delete_methods.has(c.method.as_str())))
                });
                if deletes {
                    self.deleted.insert(i);
                }
            }
        }
        // Rows deleted through a proxy model are its concrete model's rows.
        for _ in 0..4 {
            let through_proxies: Vec<usize> = self
                .deleted
                .iter()
                .filter_map(|&i| self.index(self.list[i].proxy_of.as_deref()?))
                .filter(|base| !self.deleted.contains(base))
                .collect();
            if through_proxies.is_empty() {
                break;
            }
            self.deleted.extend(through_proxies);
        }
    }
}

/// The ORM a class is a model of, through its bases (`bases`: what each class's bases name,
/// by file and class index).
fn orm_of<'p>(
    project: &Project<'p>,
    bases: &[Vec<Vec<String>>],
    at: (u32, usize),
    class: &'p Class,
    memo: &mut HashMap<&'p str, Option<Orm>>,
    depth: u32,
) -> Option<Orm> {
    if depth > 12 {
        return None;
    }
    if let Some(known) = memo.get(class.qualname.as_str()) {
        return *known;
    }
    let spec = &project.catalog.models;
    let mut found = None;
    let named = bases
        .get(at.0 as usize)
        .and_then(|classes| classes.get(at.1))
        .map_or(&[][..], Vec::as_slice);
    for dotted in named {
        if spec.django_bases.contains(dotted) {
            found = Some(Orm::Django);
        } else if spec.sqlalchemy_bases.contains(dotted) {
            found = Some(Orm::SqlAlchemy);
        } else if let Some((at, parent)) = project.class_at(dotted) {
            found = orm_of(project, bases, at, parent, memo, depth + 1);
        }
        if found.is_some() {
            break;
        }
    }
    memo.insert(class.qualname.as_str(), found);
    found
}

fn build_model(project: &Project, file: u32, module: &str, class: &Class, orm: Orm) -> Model {
    let mut model = Model {
        file,
        qualname: class.qualname.clone(),
        name: class.name.clone(),
        name_range: class.name_range,
        orm,
        is_abstract: false,
        table: String::new(),
        unique_sets: Vec::new(),
        relations: Vec::new(),
        reverse: Vec::new(),
        targets: Vec::new(),
        managers: Vec::new(),
        manager_names: Vec::new(),
        fields: Vec::new(),
        proxy_of: None,
    };
    if meta_of(project, class)
        .and_then(|meta| meta.attrs.get("proxy"))
        .and_then(Value::as_bool)
        == Some(true)
    {
        model.proxy_of = class.bases.first().map(|b| project.canonical(b).dotted());
    }
    collect(project, class, &mut model, 0, true, Shadowed::default());
    if model.table.is_empty() {
        model.table = default_table(module, &class.name, class, project);
    }
    model
}

/// Whether the catalog names managers `name` (`objects`): such calls are found without the
/// model.
fn spec_managers_has(project: &Project, name: &str) -> bool {
    project.catalog.orm.managers.iter().any(|m| m == name)
}

/// Fields and constraints of a class and its model bases (abstract or not). `inherits_meta`:
/// whether the model inherits this class's `Meta` options, which Django gives a child of an
/// abstract base unless a class between them declares a `Meta` of its own that does not
/// extend the base's (`class Meta:` rather than `class Meta(Base.Meta):`).
fn collect(
    project: &Project,
    class: &Class,
    model: &mut Model,
    depth: u32,
    inherits_meta: bool,
    shadowed: Shadowed,
) {
    if depth > 12 {
        return;
    }
    let spec = &project.catalog.models;
    let is_root = depth == 0;
    for (name, value) in &class.attrs {
        let Some(path) = &value.path else { continue };
        // `active = ActiveManager()`, `lifecycle = ExpiredQuerySet.as_manager()` (named
        // `ExpiredQuerySet()` by the facts), `objects = models.Manager()`.
        let makes_manager = path.is_call()
            && path
                .last_name()
                .is_some_and(|class| project.catalog.is_manager_class(class));
        if makes_manager
            && !spec_managers_has(project, name)
            && !model.manager_names.iter().any(|m| m == name)
        {
            model.manager_names.push(name.to_string());
        }
        // `objects = EntryManager()`; `objects = EntryQuerySet.as_manager()` and
        // `Manager.from_queryset(EntryQuerySet)()` are named `EntryQuerySet()` by the facts.
        let canonical = project
            .canonical(&QPath(
                path.0
                    .iter()
                    .map(|s| crate::path::Seg {
                        name: s.name,
                        call: crate::path::Call::No,
                    })
                    .collect(),
            ))
            .into_owned();
        if project.class(&canonical.dotted()).is_some() {
            model.managers.push(canonical.dotted());
        }
    }
    for (name, value) in &class.attrs {
        let Some(path) = &value.path else { continue };
        let field_class = path.last_name().unwrap_or_default();
        let Some(call) = &value.call else { continue };
        let flag = |key: &str| call.keyword(key).and_then(Value::as_bool) == Some(true);
        match model.orm {
            Orm::Django => {
                let is_field = field_class.ends_with("Field")
                    || spec.relation_fields.iter().any(|f| f == field_class);
                if !is_field {
                    continue;
                }
                // A field the model (or a nearer base) defines again replaces an abstract
                // base's: `external_id = CharField(db_index=True)` over a `unique=True` one.
                if model.fields.iter().any(|f| f == name) {
                    continue;
                }
                model.fields.push(name.to_string());
                if spec.relation_fields.iter().any(|f| f == field_class) {
                    model.relations.push(name.to_string());
                    let target = call
                        .keyword("to")
                        .or_else(|| call.args.first())
                        .and_then(|v| {
                            v.as_str().map(str::to_string).or_else(|| {
                                v.path
                                    .as_ref()
                                    .and_then(QPath::last_name)
                                    .map(str::to_string)
                            })
                        })
                        .map(|t| t.rsplit('.').next().unwrap_or(&t).to_string())
                        .unwrap_or_default();
                    let related_name = match call.keyword("related_name").and_then(Value::as_str) {
                        Some("+") => None,
                        Some(name) => Some(name.to_string()),
                        None => Some(format!("{}_set", class.name.to_ascii_lowercase())),
                    };
                    if !target.is_empty() {
                        model.targets.push((name.to_string(), target.clone()));
                    }
                    if let Some(related_name) = related_name
                        && is_root
                    {
                        model.reverse.push(Reverse {
                            field: name.to_string(),
                            target,
                            related_name,
                        });
                    }
                }
                if flag("unique")
                    || flag("primary_key")
                    || spec.unique_fields.iter().any(|f| f == field_class)
                {
                    model.unique_sets.push(vec![name.to_string()]);
                }
            }
            Orm::SqlAlchemy => {
                let canonical = project.canonical(path).dotted();
                let is_column = spec.sqlalchemy_columns.contains(&canonical)
                    || spec
                        .sqlalchemy_columns
                        .iter()
                        .any(|c| c.rsplit('.').next() == Some(field_class));
                if is_column && (flag("unique") || flag("primary_key")) {
                    model.unique_sets.push(vec![name.to_string()]);
                }
            }
        }
    }
    // A concrete class's options hold on its own table: what the model's `Meta` overrides
    // hides only the abstract bases' options that it inherits.
    let own_meta = (model.orm == Orm::Django)
        .then(|| meta_of(project, class))
        .flatten();
    let is_abstract = own_meta.is_some_and(abstract_meta);
    let mut shadowed = if is_root || is_abstract {
        shadowed
    } else {
        Shadowed::default()
    };
    match model.orm {
        Orm::Django => {
            if let Some(meta) = own_meta
                // An abstract base's options reach the model only through `Meta` inheritance;
                // a concrete parent's constraints hold on its own table whatever the child says.
                .filter(|meta| is_root || inherits_meta || !abstract_meta(meta))
            {
                if is_root {
                    model.is_abstract = abstract_meta(meta);
                    if let Some(table) = meta.attrs.get("db_table").and_then(Value::as_str) {
                        model.table = table.to_ascii_lowercase();
                    }
                }
                let hidden = shadowed;
                let together = meta.attrs.get("unique_together");
                let constraints = meta.attrs.get("constraints");
                shadowed.unique_together |= together.is_some_and(lists_only_fields);
                shadowed.constraints |= constraints.is_some_and(lists_only_calls);
                if let Some(together) = together.filter(|_| !hidden.unique_together) {
                    model.unique_sets.extend(field_sets(together));
                }
                if let Some(Value {
                    lit: Lit::Seq(constraints),
                    ..
                }) = constraints.filter(|_| !hidden.constraints)
                {
                    for constraint in constraints {
                        let (Some(path), Some(call)) = (&constraint.path, &constraint.call) else {
                            continue;
                        };
                        let canonical = project.canonical(path).dotted();
                        let is_unique = spec.unique_constraints.contains(&canonical)
                            || path.last_name() == Some("UniqueConstraint");
                        // `condition=None` is Django's default: an unconditional constraint.
                        let conditional = call.keyword("condition").is_some_and(|c| !c.is_none());
                        if !is_unique || conditional {
                            continue;
                        }
                        if let Some(fields) = call.keyword("fields").map(strings) {
                            model.unique_sets.push(fields);
                        } else if let Some(fields) = expression_fields(&call.args) {
                            model.unique_sets.push(fields);
                        }
                    }
                }
            }
        }
        Orm::SqlAlchemy => {
            if is_root && let Some(table) = class.attrs.get("__tablename__").and_then(Value::as_str)
            {
                model.table = table.to_ascii_lowercase();
            }
            if let Some(Value {
                lit: Lit::Seq(items),
                ..
            }) = class.attrs.get("__table_args__")
            {
                for item in items {
                    let (Some(path), Some(call)) = (&item.path, &item.call) else {
                        continue;
                    };
                    let kind = path.last_name().unwrap_or_default();
                    let columns: Vec<String> = call
                        .args
                        .iter()
                        .filter_map(|a| a.as_str().map(str::to_string))
                        .collect();
                    match kind {
                        "UniqueConstraint" if !columns.is_empty() => {
                            model.unique_sets.push(columns)
                        }
                        "Index"
                            if call.keyword("unique").and_then(Value::as_bool) == Some(true)
                                && columns.len() > 1 =>
                        {
                            model.unique_sets.push(columns[1..].to_vec());
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    // `USERNAME_FIELD = "email"`: Django requires the login field unique.
    if model.orm == Orm::Django
        && let Some(field) = (spec.username_field.as_deref())
            .and_then(|attr| class.attrs.get(attr))
            .and_then(Value::as_str)
    {
        model.unique_sets.push(vec![field.to_string()]);
    }
    let own_plain_meta = own_meta.is_some_and(|meta| meta.bases.is_empty());
    for base in &class.bases {
        let canonical = project.canonical(base).dotted();
        // `class User(AbstractUser)`: the unique fields Django's base declares.
        if let Some(fields) = spec.base_unique_fields.get(&canonical) {
            model
                .unique_sets
                .extend(fields.iter().map(|field| vec![field.clone()]));
        }
        if let Some((_, parent)) = project.class(&canonical) {
            collect(
                project,
                parent,
                model,
                depth + 1,
                inherits_meta && !own_plain_meta,
                shadowed,
            );
        }
    }
}

/// `Meta` options set by a class nearer the model, which hide the same options of the abstract
/// bases whose `Meta` it extends: `class Meta(Base.Meta): constraints = [...]` replaces the
/// base's list, as any class attribute does.
#[derive(Clone, Copy, Default)]
struct Shadowed {
    unique_together: bool,
    constraints: bool,
}

fn abstract_meta(meta: &Class) -> bool {
    meta.attrs.get("abstract").and_then(Value::as_bool) == Some(true)
}

/// Whether `unique_together` is written out in full (field names only), so that it cannot
/// include the base's (`Base.Meta.unique_together + (...)` can).
fn lists_only_fields(value: &Value) -> bool {
    let Lit::Seq(items) = &value.lit else {
        return false;
    };
    items.iter().all(|item| match &item.lit {
        Lit::Str(_) => true,
        Lit::Seq(fields) => fields.iter().all(|f| f.as_str().is_some()),
        _ => false,
    })
}

/// Whether `constraints` is a list of constraint calls only, so that it cannot include the
/// base's (`[*Base.Meta.constraints, ...]` can).
fn lists_only_calls(value: &Value) -> bool {
    matches!(&value.lit, Lit::Seq(items) if items.iter().all(|item| item.call.is_some()))
}

/// A Django model class's own `class Meta`.
fn meta_of<'p>(project: &Project<'p>, class: &Class) -> Option<&'p Class> {
    let facts = project.facts_of_class(class)?;
    class
        .inner
        .iter()
        .filter_map(|&i| facts.classes.get(i))
        .find(|c| c.name == "Meta")
}

/// `unique_together = [("a", "b"), ("c", "d")]` or a single `("a", "b")`.
fn field_sets(value: &Value) -> Vec<Vec<String>> {
    let Lit::Seq(items) = &value.lit else {
        return Vec::new();
    };
    if items.iter().all(|i| i.as_str().is_some()) {
        return vec![strings(value)];
    }
    items
        .iter()
        .map(strings)
        .filter(|s| !s.is_empty())
        .collect()
}

/// What one body deletes ([`Models::deletions_in`]).
#[derive(Default)]
struct Deletions {
    /// Models whose rows it deletes.
    models: Vec<usize>,
    /// `self.<attribute>.objects...delete()`: the attributes.
    attributes: Vec<&'static str>,
    /// `<parameter>.objects...delete()`: the parameters' positions.
    parameters: Vec<usize>,
}

/// The fields of a functional `UniqueConstraint("customer", Lower("email"), name=...)`: a field
/// named by a string, or the field a function of it reads (unique `lower(email)` makes `email`
/// unique too). `None` when an expression names no field that way.
fn expression_fields(args: &[Value]) -> Option<Vec<String>> {
    if args.is_empty() {
        return None;
    }
    args.iter()
        .map(|arg| {
            arg.as_str()
                .or_else(|| arg.first_arg.as_deref()?.as_str())
                .map(str::to_string)
        })
        .collect()
}

fn strings(value: &Value) -> Vec<String> {
    match &value.lit {
        Lit::Seq(items) => items
            .iter()
            .filter_map(|i| i.as_str().map(str::to_string))
            .collect(),
        Lit::Str(s) => vec![s.to_string()],
        _ => Vec::new(),
    }
}

/// Django's default table: `<app_label>_<model name lower-case>`, the app label being the
/// package that holds `models` (or `Meta.app_label`).
fn default_table(module: &str, name: &str, class: &Class, project: &Project) -> String {
    let facts = project.facts_of_class(class);
    let explicit = class
        .inner
        .iter()
        .filter_map(|&i| facts.and_then(|f| f.classes.get(i)))
        .find(|c| c.name == "Meta")
        .and_then(|meta| meta.attrs.get("app_label"))
        .and_then(Value::as_str)
        .map(str::to_string);
    let parts: Vec<&str> = module.split('.').collect();
    let app = explicit.unwrap_or_else(|| match parts.iter().position(|p| *p == "models") {
        Some(at) if at > 0 => parts[at - 1].to_string(),
        _ => parts
            .iter()
            .rev()
            .nth(1)
            .copied()
            .unwrap_or(parts[0])
            .to_string(),
    });
    format!("{app}_{}", name.to_ascii_lowercase())
}
