//! One pass over a module's syntax tree that produces its [`ModuleFacts`].
//!
//! Names are resolved as they are met: imports to qualified names, local and module variables
//! to the path of what was assigned to them (`client = Client()` makes `client.messages.create`
//! `twilio.rest.Client().messages.create`), `self.x` to what `__init__` assigned. Values carry the
//! nondeterministic sources and delivery metadata they derive from.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use thin_vec::ThinVec;

use ruff_python_ast::comparable::ComparableExpr;
use ruff_python_ast::{
    self as ast, BoolOp, CmpOp, Expr, InterpolatedStringElement, Number, Operator, Stmt, UnaryOp,
};
use ruff_text_size::{Ranged, TextRange};

use super::{
    Arith, ArithOp, AttrAssign, Block, BlockKind, Body, CallArgs, CallMarks, CallSite, Class,
    Decorator, DictItem, Dropped, Ends, Event, EventKind, Exit, Function, FunctionBody, Guard,
    GuardTest, Lit, ModuleFacts, Param, ParamDefault, ParamKind, ParamShape, SmallMap, Taint,
    Value,
};
use crate::catalog::{Binder, CallRole, Catalog, HEADERS_KEYWORD, Orm};
use crate::path::{Call, QPath, Seg, Sym, dotted_join};

/// Builtins that test the items of an iterable (`any(n.sent for n in notices)`).
const ROW_TESTS: [&str; 2] = ["any", "all"];

/// `typing.TYPE_CHECKING`, false at run time ([`Walker::is_type_checking`]).
const TYPE_CHECKING: &str = "TYPE_CHECKING";

/// Taint lists are capped: a key depends on a handful of sources, not hundreds.
const MAX_TAINT: usize = 12;

/// Collection literals keep their first entries only: keys and settings are in small dicts,
/// and a module-level table of thousands of entries would only cost memory.
const MAX_ITEMS: usize = 64;

/// String literals are kept up to this length (SQL statements, URLs, setting values).
const MAX_STRING: usize = 2048;

/// Extracts the facts of one module. `module` is its dotted name.
pub fn extract(
    suite: &[Stmt],
    source: &str,
    module: &str,
    is_package: bool,
    catalog: &Catalog,
) -> ModuleFacts {
    let mut ex = Extractor {
        catalog,
        source,
        module: module.to_string(),
        is_package,
        imports: HashMap::default(),
        star_imports: Vec::new(),
        module_vars: HashMap::default(),
        top_level: HashSet::default(),
        classes: Vec::new(),
        self_attrs: HashMap::default(),
        captured: HashMap::default(),
        context_items: Vec::new(),
        functions: Vec::new(),
        deleted_tables: Vec::new(),
        deleted_models: Vec::new(),
        dotted_paths: HashMap::default(),
        module_paths: HashMap::default(),
        spare: FunctionBody::default(),
        spare_names: Default::default(),
    };
    ex.prescan(suite, false);
    ex.functions.push(new_function(
        Function::MODULE_BODY_NAME,
        module.to_string(),
        None,
        None,
        TextRange::default(),
    ));
    let mut pending = Vec::new();
    {
        let mut walker = Walker::new(&mut ex, 0, None, true);
        walker.suite(suite, 0, &mut pending);
        walker.finish();
    }
    // Function bodies are walked once every module-level binding is known.
    while let Some((index, source)) = pending.pop() {
        let class = ex.functions[index].class();
        let captured = ex.captured.remove(&index).unwrap_or_default();
        let mut walker = Walker::new(&mut ex, index, class, false);
        walker.captured = captured;
        match source {
            FunctionSource::Def(def) => {
                walker.params(&def.parameters, is_static_method(def));
                walker.suite(&def.body, 0, &mut pending);
            }
            FunctionSource::Lambda(lambda) => {
                if let Some(parameters) = &lambda.parameters {
                    walker.params(parameters, true);
                }
                let value = walker.expr(&lambda.body, 0);
                walker.returns.push(value);
            }
        }
        walker.finish();
    }
    let mut facts = ModuleFacts {
        module: ex.module,
        is_package,
        imports: super::Imports::new(ex.imports),
        star_imports: ex.star_imports,
        vars: super::Vars::new(ex.module_vars),
        classes: ex.classes,
        functions: ex.functions,
        deleted_tables: ex.deleted_tables,
        deleted_models: ex.deleted_models,
    };
    facts.drop_unread_arguments(catalog);
    facts
}

fn new_function(
    name: &str,
    qualname: String,
    class: Option<usize>,
    parent: Option<usize>,
    range: TextRange,
) -> Function {
    // The module body's qualname is the module's: its name is not part of it.
    let name_start = qualname
        .strip_suffix(name)
        .and_then(|head| u32::try_from(head.len()).ok())
        .unwrap_or(Function::MODULE_BODY);
    Function {
        name_start,
        qualname,
        class: class.and_then(|c| u32::try_from(c).ok()),
        parent: parent.and_then(|p| u32::try_from(p).ok()),
        range,
        name_range: range,
        is_async: false,
        params: Vec::new(),
        decorators: Vec::new(),
        body: Body::default(),
    }
}

struct Extractor<'c> {
    catalog: &'c Catalog,
    /// The module's text, for the few names facts keep as written.
    source: &'c str,
    module: String,
    is_package: bool,
    /// Bound name → what it imports, keyed by the interned name like the other name maps.
    imports: HashMap<Sym, String>,
    star_imports: Vec<String>,
    module_vars: HashMap<String, Value>,
    /// Names bound at module level (functions, classes, assignments).
    top_level: HashSet<Sym>,
    classes: Vec<Class>,
    /// Per class (by index), `self.x = ...` assignments in any method: types `self.x` while
    /// the module is read, and is dropped with the extractor.
    self_attrs: HashMap<usize, HashMap<String, Value>>,
    /// `ctx["http"] = httpx.AsyncClient()` in a function of the module (arq's `on_startup`):
    /// the first parameter's name, the key and the call, which type `ctx["http"]` in any
    /// function of the module whose first parameter has that name.
    context_items: Vec<(Sym, Sym, Expr)>,
    /// Per nested function (by index), the enclosing function's locals that carry a
    /// nondeterministic source or delivery metadata when it is defined: a closure reads them
    /// (`key = f"...{self.request.retries}"`, then `def _post(): ... headers={... key}`).
    captured: HashMap<usize, Vec<Captured>>,
    functions: Vec<Function>,
    deleted_tables: Vec<String>,
    deleted_models: Vec<QPath>,
    /// Paths of imported names by their dotted target, built once per module.
    dotted_paths: HashMap<String, QPath>,
    /// Paths of the module's own top-level names (`module.name`), built once per module.
    module_paths: HashMap<Sym, QPath>,
    /// The vectors of the last body stored, emptied: a walker starts with their capacity
    /// instead of growing new ones from nothing.
    spare: FunctionBody,
    /// The emptied local and parameter maps of the last walker, for the same reason.
    spare_names: (HashMap<Sym, Value>, HashMap<Sym, Value>),
}

impl Extractor<'_> {
    /// Records what a function puts into the dict its first parameter holds, at its top level
    /// (`ctx["http"] = httpx.AsyncClient(...)`).
    fn context_items_of(&mut self, def: &ast::StmtFunctionDef) {
        let Some(first) = def.parameters.args.first() else {
            return;
        };
        let context = first.parameter.name.as_str();
        for stmt in &def.body {
            if let Stmt::Assign(assign) = stmt
                && let [Expr::Subscript(target)] = &assign.targets[..]
                && let Expr::Name(holder) = &*target.value
                && holder.id.as_str() == context
                && let Expr::StringLiteral(key) = &*target.slice
                && matches!(&*assign.value, Expr::Call(_))
                && self.context_items.len() < MAX_ITEMS
            {
                self.context_items.push((
                    Sym::new(context),
                    Sym::new(key.value.to_str()),
                    (*assign.value).clone(),
                ));
            }
        }
    }

    /// The path of the module's own top-level `name`, remembered.
    fn module_path(&mut self, name: Sym) -> QPath {
        if let Some(path) = self.module_paths.get(&name) {
            return with_room(path);
        }
        let path = QPath::from_dotted(&qualify(&self.module, name.as_str()));
        let copy = with_room(&path);
        self.module_paths.insert(name, path);
        copy
    }

    /// Imports and top-level names, including those under `if`/`try` at module level
    /// (`nested`).
    fn prescan(&mut self, suite: &[Stmt], nested: bool) {
        for stmt in suite {
            match stmt {
                Stmt::Import(import) => {
                    for alias in &import.names {
                        let name = alias.name.as_str();
                        match &alias.asname {
                            Some(asname) => self
                                .imports
                                .insert(Sym::new(asname.as_str()), name.to_string()),
                            None => {
                                let head = name.split('.').next().unwrap_or(name);
                                self.imports.insert(Sym::new(head), head.to_string())
                            }
                        };
                    }
                }
                Stmt::ImportFrom(import) => {
                    let Some(base) = self.resolve_from(
                        import.module.as_ref().map(ast::Identifier::as_str),
                        import.level,
                    ) else {
                        continue;
                    };
                    for alias in &import.names {
                        let name = alias.name.as_str();
                        if name == "*" {
                            self.star_imports.push(base.clone());
                            continue;
                        }
                        let bound = alias.asname.as_ref().map_or(name, ast::Identifier::as_str);
                        let target = if base.is_empty() {
                            name.to_string()
                        } else {
                            dotted_join(&base, name)
                        };
                        self.imports.insert(Sym::new(bound), target);
                    }
                }
                Stmt::FunctionDef(def) => {
                    self.define(Sym::new(def.name.as_str()), nested);
                    self.context_items_of(def);
                }
                Stmt::ClassDef(def) => {
                    // `class Task(Task):` extends the class it replaces: its bases are read
                    // while the import still holds the name.
                    let extends_import = def.bases().iter().any(|base| {
                        matches!(base, Expr::Name(name) if name.id.as_str() == def.name.as_str())
                    });
                    self.define(Sym::new(def.name.as_str()), nested || extends_import);
                }
                Stmt::Assign(assign) => {
                    for target in &assign.targets {
                        if let Expr::Name(name) = target {
                            self.top_level.insert(Sym::new(name.id.as_str()));
                        }
                    }
                }
                Stmt::AnnAssign(assign) => {
                    if let Expr::Name(name) = &*assign.target {
                        self.top_level.insert(Sym::new(name.id.as_str()));
                    }
                }
                Stmt::If(stmt_if) => {
                    self.prescan(&stmt_if.body, true);
                    for clause in &stmt_if.elif_else_clauses {
                        self.prescan(&clause.body, true);
                    }
                }
                Stmt::Try(stmt_try) => {
                    self.prescan(&stmt_try.body, true);
                    for ast::ExceptHandler::ExceptHandler(handler) in &stmt_try.handlers {
                        // `except ImportError: shared_task = None`: a fallback for an optional
                        // import, not the module's own definition of the name.
                        if handler_catches_import_error(handler) {
                            let imported = self.imports.clone();
                            let defined = self.top_level.clone();
                            self.prescan(&handler.body, true);
                            self.top_level.retain(|name| {
                                defined.contains(name) || !imported.contains_key(name)
                            });
                            self.imports = imported;
                            continue;
                        }
                        self.prescan(&handler.body, true);
                    }
                    self.prescan(&stmt_try.orelse, true);
                    self.prescan(&stmt_try.finalbody, true);
                }
                _ => {}
            }
        }
    }

    /// A `def` or `class` of the module's own: one written after an import of the same name,
    /// unconditionally, rebinds it (`from .mail import send_receipt`, then `def send_receipt`:
    /// the module's callers get the `def`). One under an `if` or `try` may not run, and the
    /// import stays what the name is taken to be.
    fn define(&mut self, name: Sym, nested: bool) {
        self.top_level.insert(name);
        if !nested {
            self.imports.remove(&name);
        }
    }

    /// The absolute module of `from <module> import ...` with `level` leading dots.
    fn resolve_from(&self, module: Option<&str>, level: u32) -> Option<String> {
        if level == 0 {
            return Some(module.unwrap_or_default().to_string());
        }
        let mut parts: Vec<&str> = self.module.split('.').collect();
        // A module's level-1 base is its package; a package's is itself.
        let drop = level as usize - usize::from(self.is_package);
        if drop > parts.len() {
            return None;
        }
        parts.truncate(parts.len() - drop);
        if let Some(module) = module {
            parts.extend(module.split('.'));
        }
        Some(parts.join("."))
    }
}

/// Walks one function body (or the module body), producing its events.
struct Walker<'e, 'c> {
    ex: &'e mut Extractor<'c>,
    func: usize,
    class: Option<usize>,
    is_module: bool,
    /// Local and parameter bindings by interned name: a name is interned once when read and
    /// then hashed as a number.
    locals: HashMap<Sym, Value>,
    params: HashMap<Sym, Value>,
    self_name: Option<String>,
    order: u32,
    next_if: u32,
    events: Vec<Event>,
    blocks: Vec<Block>,
    returns: Vec<Value>,
    /// Locals holding a call's result handed to a call as an argument ([`FunctionBody::escaped`]).
    escaped: Vec<Sym>,
    /// The blocks holding a `yield` ([`FunctionBody::yields`]).
    yields: Vec<u32>,
    /// Whether calls become events (off while evaluating `self.x` assignments ahead of time).
    emit: bool,
    /// Evaluating a class body: calls keep their arguments (model fields, `Meta` constraints).
    class_body: bool,
    /// Walking a module-level `except ImportError:` handler, whose assignments are fallbacks
    /// for an optional import (`shared_task = None`): the imported name is the binding that
    /// matters.
    import_fallback: bool,
    /// Locals holding a row a query selected by a field's value (`row = Outbox.objects
    /// .filter(pk=pk, status="pending").first()`), with that field: `if row is None: return`
    /// then tests the field's state, as `if row.status != "pending": return` would.
    row_states: Vec<(Sym, GuardTest)>,
    /// Locals holding a comparison that is a done-check (`already = order.status == "sent"`):
    /// `if already: return` tests what the comparison does.
    local_tests: Vec<(Sym, GuardTest)>,
    /// Locals holding a queryset (`q = Flip.objects.filter(id=pk, processed=None)`), with
    /// the fields it selects by: `q.update(processed=now)` is then a claim, as the chained
    /// form is.
    querysets: Vec<(Sym, Vec<Sym>)>,
    /// The fields the stored values of accumulating expressions read (`F("balance") + x`:
    /// `balance`; `None` when the field is not a literal), in evaluation order: a keyword or
    /// an attribute assignment takes those of its value ([`Walker::accumulates_into`]).
    stored_reads: Vec<Option<Sym>>,
    /// Taint an attribute of a local was assigned (`order.payment_key = uuid4().hex`): read
    /// back by `order.payment_key`. (local, attribute, taint); few per function.
    attr_taints: Vec<(Sym, Sym, ThinVec<Taint>)>,
    /// Parameters changed in place (`kwargs["key"] = k`, `kwargs.setdefault(...)`): spreading
    /// one no longer passes on only what the caller gave ([`CallSite::spreads`]).
    changed_params: Vec<Sym>,
    /// Parameters changed in place (`ids.remove(done)`): read after, they are new values.
    mutated_params: Vec<Sym>,
    /// Locals a nested function rebinds (`nonlocal key`): what they hold depends on when it
    /// runs, so they hold nothing known.
    rebound: Vec<Sym>,
    /// Locals holding an HTTP client or session whose default headers carry a key header
    /// (`httpx.Client(headers={"Idempotency-Key": k})`, `session.headers.update({...})`):
    /// every request made through it sends them. (local, headers dict); few per function.
    client_headers: Vec<(Sym, Value)>,
    /// Loop variables over a written-out sequence of classes (`for model in (Processed,
    /// Sent):`), with the classes: a delete through the variable deletes rows of each.
    loop_classes: Vec<(Sym, Vec<QPath>)>,
    /// Values that hold the answer of an insert claiming a row (`INSERT ... ON CONFLICT DO
    /// NOTHING RETURNING id`), by the range of the call or local that made them, with the
    /// insert's call: the marker a test of the answer names. Few per function.
    insert_claims: Vec<(TextRange, TextRange)>,
    /// The function's `**kwargs` parameter: what a caller gives by keyword beyond the others.
    kwarg: Option<Sym>,
    /// The enclosing function's locals a nested one reads ([`Extractor::captured`]).
    captured: Vec<Captured>,
    /// Per `get_or_create` call (by its range), the literal values it gives the fields of a
    /// row it creates (`defaults={"status": "pending"}`): the state a marker row starts in.
    created_with: Vec<(TextRange, Vec<(Sym, Written)>)>,
    /// Locals holding a value with sources, by the block of the assignment that gave it: a
    /// later assignment in a branch that may not run (`else: key = f"order-{pk}"` after `if
    /// force: key = f"order-{pk}-{uuid4()}"`) leaves those sources possible. Few per function.
    tainted_at: Vec<(Sym, u32)>,
}

/// A local of an enclosing function as a nested one reads it: its name, what it holds (a
/// client made there, `client = Client()`, or a row it loaded) and the sources it carries.
type Captured = (Sym, Option<QPath>, ThinVec<Taint>);

type Pending<'a> = Vec<(usize, FunctionSource<'a>)>;

/// What a function's body is read from: a `def`, or a lambda bound to a name
/// (`new_key = lambda: uuid4().hex`), which returns its expression.
#[derive(Clone, Copy)]
enum FunctionSource<'a> {
    Def(&'a ast::StmtFunctionDef),
    Lambda(&'a ast::ExprLambda),
}

impl<'e, 'c> Walker<'e, 'c> {
    fn new(ex: &'e mut Extractor<'c>, func: usize, class: Option<usize>, is_module: bool) -> Self {
        let FunctionBody {
            mut blocks, events, ..
        } = std::mem::take(&mut ex.spare);
        let (locals, params) = std::mem::take(&mut ex.spare_names);
        blocks.clear();
        blocks.push(Block {
            parent: None,
            kind: BlockKind::Body,
        });
        Walker {
            ex,
            func,
            class,
            is_module,
            locals,
            params,
            self_name: None,
            order: 0,
            next_if: 0,
            events,
            blocks,
            returns: Vec::new(),
            escaped: Vec::new(),
            yields: Vec::new(),
            emit: true,
            class_body: false,
            import_fallback: false,
            row_states: Vec::new(),
            local_tests: Vec::new(),
            querysets: Vec::new(),
            stored_reads: Vec::new(),
            attr_taints: Vec::new(),
            changed_params: Vec::new(),
            mutated_params: Vec::new(),
            rebound: Vec::new(),
            client_headers: Vec::new(),
            loop_classes: Vec::new(),
            insert_claims: Vec::new(),
            kwarg: None,
            captured: Vec::new(),
            created_with: Vec::new(),
            tainted_at: Vec::new(),
        }
    }

    /// Whether the accumulating expressions evaluated since `since` read `field` itself (or a
    /// field not known): `balance=F("balance") + x` adds on every run, while
    /// `gross=F("net") + F("vat")` computes the same value again. Forgets those reads.
    fn accumulates_into(&mut self, since: usize, field: &str) -> bool {
        let reads_it = self
            .stored_reads
            .get(since..)
            .unwrap_or_default()
            .iter()
            .any(|read| read.is_none_or(|read| read == field));
        self.stored_reads.truncate(since);
        reads_it
    }

    /// Puts the body together, drops the call arguments no rule reads and stores it encoded.
    fn finish(mut self) {
        self.recycle_names();
        let catalog = self.ex.catalog;
        resolve_state_guards(&mut self.events, &self.blocks, catalog);
        self.mark_other_key_releases();
        // A function calling itself by name keeps the arguments: calling a Huey task enqueues
        // it, and a retry that changes them is TW501's (`render(tile_id, attempt + 1)`).
        let own = (!self.is_module).then(|| self.ex.functions[self.func].name());
        for event in &mut self.events {
            if let EventKind::Call(call) = &mut event.kind {
                if own.is_some_and(|own| call.method.as_str() == own) {
                    continue;
                }
                let filter = catalog.argument_filter(call);
                // `purge(Model)`, `housekeeping.purge(Model)`: a function of a module, not a
                // method of a local or a parameter, keeps the classes given to it.
                let function = call.path.as_ref().is_some_and(|p| p.0.len() > 1)
                    && call.receiver_var.is_none_or(|var| {
                        !self.locals.contains_key(&var)
                            && !self.params.contains_key(&var)
                            && self.self_name.as_deref() != Some(var.as_str())
                    });
                call.filter_arguments(catalog, filter, function);
            }
        }
        // What is returned matters by its path and taint only (summaries, returned types): a
        // returned display (`return {"status": ...}`) is not kept whole, except the key
        // headers of a dict (a helper that builds a sink's `headers=`).
        let returns = self
            .returns
            .into_iter()
            .filter_map(|mut value| {
                // A caller's argument for a parameter among the parts is in its own call's
                // value ([`Taint::Param`]): nothing to keep for it here.
                value
                    .taint
                    .retain(|taint| !matches!(taint, Taint::Param { .. }));
                let headers = value.dict().map(|items| key_headers(items, catalog));
                let done_test = value.flags & (Value::DONE_TEST | Value::MARKER | Value::CREATED);
                // `return False` under a done-guard, `return True` after: a claim helper.
                let answer = matches!(value.lit, Lit::Bool(_) | Lit::None);
                // A client's key headers ([`Walker::client_headers`]), kept with it.
                let client = value.call.filter(|call| {
                    value.flags & Value::DONE_TEST == 0
                        && call.args.is_empty()
                        && call.keyword(HEADERS_KEYWORD).is_some()
                });
                (value.path.is_some()
                    || !value.taint.is_empty()
                    || headers.is_some()
                    || done_test != 0
                    || answer)
                    .then(|| Value {
                        range: value.range,
                        path: value.path,
                        taint: value.taint,
                        call: client.map(|mut call| {
                            for (_, headers) in &mut call.keywords {
                                if let Lit::Dict(items) = &headers.lit {
                                    headers.lit = Lit::Dict(key_headers(items, catalog));
                                }
                            }
                            call
                        }),
                        lit: match (headers, value.lit) {
                            (Some(headers), _) => Lit::Dict(headers),
                            (None, lit) if answer => lit,
                            // `return key, timezone.now()`: the sources of each item, by
                            // place (a caller unpacking it takes one).
                            (None, Lit::Seq(items))
                                if items.iter().any(|item| !item.taint.is_empty()) =>
                            {
                                Lit::Seq(
                                    items
                                        .into_iter()
                                        .map(|item| Value {
                                            taint: item.taint,
                                            ..Value::default()
                                        })
                                        .collect(),
                                )
                            }
                            (None, _) => Lit::Other,
                        },
                        flags: done_test,
                        name: value.name.filter(|_| done_test & Value::DONE_TEST != 0),
                        ..Value::default()
                    })
            })
            .collect();
        let mut body = FunctionBody {
            blocks: self.blocks,
            events: self.events,
            returns,
            escaped: std::mem::take(&mut self.escaped),
            yields: std::mem::take(&mut self.yields),
        };
        self.ex.functions[self.func].body = Body::new(&mut body);
        // The body is kept encoded: its vectors serve the next function.
        body.blocks.clear();
        body.events.clear();
        self.ex.spare = body;
    }

    /// Gives the emptied name maps back for the next walker.
    fn recycle_names(&mut self) {
        self.locals.clear();
        self.params.clear();
        self.ex.spare_names = (
            std::mem::take(&mut self.locals),
            std::mem::take(&mut self.params),
        );
    }

    fn params(&mut self, parameters: &ast::Parameters, is_static: bool) {
        let count = parameters.posonlyargs.len()
            + parameters.args.len()
            + parameters.kwonlyargs.len()
            + usize::from(parameters.vararg.is_some())
            + usize::from(parameters.kwarg.is_some());
        let mut params = Vec::with_capacity(count);
        self.params.reserve(count);
        let positional = parameters.posonlyargs.len() + parameters.args.len();
        let all = parameters
            .posonlyargs
            .iter()
            .chain(&parameters.args)
            .chain(&parameters.kwonlyargs);
        for (i, param) in all.enumerate() {
            let name = param.parameter.name.as_str();
            if i == 0 && self.class.is_some() && !is_static {
                self.self_name = Some(name.to_string());
            }
            let annotation = param
                .parameter
                .annotation
                .as_deref()
                .and_then(|a| self.annotation_path(a));
            let mut value = Value {
                flags: Value::PARAM,
                ..Value::default()
            };
            if let Some(path) = &annotation {
                value.path = Some(path.clone().instance());
            }
            // `key=uuid.uuid4().hex`: evaluated once, when the module is imported; each worker
            // process (and each restart) has its own.
            if let Some(default) = param.default.as_deref()
                && matches!(
                    default,
                    Expr::Call(_) | Expr::Attribute(_) | Expr::FString(_)
                )
            {
                let evaluated = self.pure(default);
                value.taint = evaluated.taint.into_iter().filter(is_source).collect();
            }
            let sym = Sym::new(name);
            self.params.insert(sym, value);
            params.push(Param {
                sym,
                annotation,
                kind: if i < positional {
                    ParamKind::Positional
                } else {
                    ParamKind::KeywordOnly
                },
                shape: param
                    .parameter
                    .annotation
                    .as_deref()
                    .map_or(ParamShape::Unknown, param_shape),
                default: match param.default.as_deref() {
                    None => ParamDefault::Required,
                    Some(Expr::NoneLiteral(_)) => ParamDefault::None,
                    Some(Expr::BooleanLiteral(literal)) if !literal.value => ParamDefault::False,
                    Some(Expr::NumberLiteral(ast::ExprNumberLiteral {
                        value: ast::Number::Int(int),
                        ..
                    })) => int.as_i32().map_or(ParamDefault::Other, ParamDefault::Int),
                    Some(_) => ParamDefault::Other,
                },
            });
        }
        self.kwarg = parameters
            .kwarg
            .as_ref()
            .map(|kwarg| Sym::new(kwarg.name.as_str()));
        for extra in [&parameters.vararg, &parameters.kwarg]
            .into_iter()
            .flatten()
        {
            let sym = Sym::new(extra.name.as_str());
            self.params.insert(
                sym,
                Value {
                    flags: Value::PARAM,
                    ..Value::default()
                },
            );
            params.push(Param {
                sym,
                annotation: None,
                kind: ParamKind::Variadic,
                default: ParamDefault::Other,
                shape: ParamShape::Unknown,
            });
        }
        self.ex.functions[self.func].params = params;
    }

    fn annotation_path(&mut self, annotation: &Expr) -> Option<QPath> {
        match annotation {
            // `Optional[X]`, `Annotated[X, ...]`: the class is what matters. A generic
            // (`dict[str, Any]`, `Repository[Order]`) is an instance of itself, not of its
            // parameters.
            Expr::Subscript(sub) => {
                let wrapper = match &*sub.value {
                    Expr::Name(name) => Some(name.id.as_str()),
                    Expr::Attribute(attr) => Some(attr.attr.as_str()),
                    _ => None,
                }
                .is_some_and(|name| TYPING_WRAPPERS.contains(&name));
                if wrapper {
                    self.annotation_path(&sub.slice)
                } else {
                    self.annotation_path(&sub.value)
                }
            }
            // A builtin (`ctx: dict`) says nothing a name would not: the parameter keeps its
            // name, which the catalog's metadata is written against (`ctx["job_try"]`).
            Expr::Name(name) if self.is_builtin_call(name.id.as_str()) => None,
            Expr::BinOp(bin) => self.annotation_path(&bin.left),
            // `Annotated[X, Depends(...)]`, `Union[X, None]`: the first class named.
            Expr::Tuple(tuple) => tuple
                .elts
                .iter()
                .find(|elt| !elt.is_none_literal_expr())
                .and_then(|elt| self.annotation_path(elt)),
            // A forward reference (`ledger: "Ledger"`) names what the name would: its head is
            // resolved as a name read here (an import, a class of the module).
            Expr::StringLiteral(s) => {
                let text = s.value.to_str().trim();
                let mut names = text.split('.');
                let head = names.next()?;
                if !text.split('.').all(crate::path::is_identifier) {
                    return None;
                }
                let mut path = self.name(head).path?;
                for name in names {
                    path.0.push(crate::path::Seg::name(name));
                }
                Some(path)
            }
            Expr::Name(_) | Expr::Attribute(_) => self.pure(annotation).path,
            _ => None,
        }
    }

    // ------------------------------------------------------------------ blocks and events

    fn push_block(&mut self, parent: u32, kind: BlockKind) -> u32 {
        let id = u32::try_from(self.blocks.len()).unwrap_or(u32::MAX);
        self.blocks.push(Block {
            parent: Some(parent),
            kind,
        });
        id
    }

    fn push_event(&mut self, block: u32, kind: EventKind) {
        if !self.emit {
            return;
        }
        self.order += 1;
        self.events.push(Event {
            order: self.order,
            block,
            kind,
        });
    }

    // ------------------------------------------------------------------ statements

    fn suite<'a>(&mut self, suite: &'a [Stmt], block: u32, pending: &mut Pending<'a>) {
        for stmt in suite {
            self.stmt(stmt, block, pending);
            // What follows a `return`, `raise`, `break` or `continue` in the same block never
            // runs (`return  # e-mails paused` above the send).
            if matches!(
                stmt,
                Stmt::Return(_) | Stmt::Raise(_) | Stmt::Break(_) | Stmt::Continue(_)
            ) {
                break;
            }
        }
    }

    fn stmt<'a>(&mut self, stmt: &'a Stmt, block: u32, pending: &mut Pending<'a>) {
        match stmt {
            // A bare string (a docstring) is not run: no calls in it, and SQL in it deletes
            // nothing.
            Stmt::Expr(expr) if expr.value.is_string_literal_expr() => {}
            Stmt::Expr(expr) => {
                self.expr(&expr.value, block);
                self.dict_update(&expr.value);
                self.request_add_header(&expr.value);
            }
            // A lambda bound to a name is a function of that name, as a `def` would be: its
            // effects happen where it is called, once for each call.
            Stmt::Assign(assign)
                if let [Expr::Name(target)] = &assign.targets[..]
                    && let Expr::Lambda(lambda) = &*assign.value =>
            {
                self.lambda_def(target, lambda, pending);
            }
            Stmt::Assign(assign) => {
                let since = self.stored_reads.len();
                let mut value = self.expr(&assign.value, block);
                value.set_label(assign.range.start());
                // `product.available = F("on_hand") - F("reserved")`: set from other fields.
                if value.flags & Value::ACCUMULATES != 0
                    && let [Expr::Attribute(target)] = &assign.targets[..]
                    && !self.accumulates_into(since, target.attr.as_str())
                {
                    value.flags &= !Value::ACCUMULATES;
                }
                if let [Expr::Name(target)] = &assign.targets[..]
                    && self.updates_parameter(target.id.as_str(), &assign.value)
                {
                    value.flags |= Value::UPDATED;
                }
                for target in &assign.targets {
                    self.bind(target, &value, block);
                }
                if let [Expr::Name(target)] = &assign.targets[..] {
                    self.note_client_headers(target.id.as_str(), &assign.value);
                }
                // `wallet.balance = wallet.balance + amount`: `+=` spelled out.
                if let [target @ Expr::Attribute(_)] = &assign.targets[..]
                    && is_spelled_out_increment(target, &assign.value)
                    && let Some(Event {
                        kind: EventKind::AttrAssign(written),
                        ..
                    }) = self.events.last_mut()
                    && written.range == target.range()
                {
                    written.augmented = true;
                }
                if !self.is_module
                    && let [Expr::Name(target)] = &assign.targets[..]
                    && let Expr::Call(call) = &*assign.value
                    && !self.ex.classes.is_empty()
                {
                    self.factory_fields(target.id.as_str(), call);
                }
                self.note_row_state(&assign.targets, &assign.value);
                self.note_local_test(&assign.targets, &assign.value);
                self.note_queryset(&assign.targets, &assign.value);
            }
            Stmt::AnnAssign(assign) => {
                if let Some(value) = &assign.value {
                    let mut value = self.expr(value, block);
                    value.set_label(assign.range.start());
                    // `client: httpx.AsyncClient = ctx["http"]`: what a value that is no call's
                    // result is, the annotation says (as for an annotated parameter).
                    if value.path.as_ref().is_none_or(|path| !path.is_call())
                        && !self.is_module
                        && let Some(class) = self.annotation_path(&assign.annotation)
                    {
                        value.path = Some(class.instance());
                    }
                    self.bind(&assign.target, &value, block);
                }
            }
            Stmt::AugAssign(assign) => {
                let value = self.expr(&assign.value, block);
                match &*assign.target {
                    Expr::Attribute(attr) => {
                        if let Some(var) = root_name(&attr.value) {
                            let object = self.pure(&attr.value).path;
                            self.push_event(
                                block,
                                EventKind::AttrAssign(Box::new(AttrAssign {
                                    range: assign.range,
                                    object,
                                    var: Sym::new(var),
                                    attr: Sym::new(attr.attr.as_str()),
                                    key: None,
                                    augmented: true,
                                    value,
                                })),
                            );
                        }
                    }
                    Expr::Name(name) => {
                        let previous = self.lookup_local(name.id.as_str());
                        let mut merged = previous.unwrap_or_default();
                        // `amount -= fee`: no longer the parameter as received.
                        if merged.flags & (Value::PARAM | Value::UPDATED) != 0 {
                            merged.flags = (merged.flags & !Value::PARAM) | Value::UPDATED;
                        }
                        merge_taint(&mut merged.taint, &value.taint);
                        // `n += 1` on a known integer stays an integer (else unknown).
                        merged.lit = match (&merged.lit, &value.lit) {
                            (Lit::Int(_), Lit::Int(_)) => arith_op(assign.op)
                                .and_then(|op| op.apply(&merged.lit, &value.lit))
                                .filter(|lit| matches!(lit, Lit::Int(_)))
                                .unwrap_or(Lit::Other),
                            _ => Lit::Other,
                        };
                        self.set_local(name.id.as_str(), merged);
                    }
                    other => {
                        self.expr(other, block);
                    }
                }
            }
            Stmt::Return(ret) => {
                let mut value =
                    ret.value
                        .as_deref()
                        .map(|v| self.expr(v, block))
                        .unwrap_or(Value {
                            range: ret.range,
                            lit: Lit::None,
                            ..Value::default()
                        });
                // `return (*parts, key)`: the items of an unknown sequence take one place
                // here, so places no longer say which item a source is in.
                if let Some(
                    Expr::Tuple(ast::ExprTuple { elts, .. })
                    | Expr::List(ast::ExprList { elts, .. }),
                ) = ret.value.as_deref()
                    && elts.iter().any(Expr::is_starred_expr)
                {
                    value.lit = Lit::Other;
                }
                // `return invoice.sent_at is not None`: a predicate a caller may leave on.
                // `return rows` / `return bool(rows)` after a claiming update: the count says
                // whether this run claimed the work.
                // `return bool(r.set(k, 1, nx=True))`: the answer, as a bool.
                if let Some(returned) = ret.value.as_deref()
                    && let bare = self.bare_test(returned)
                    && !std::ptr::eq(bare, returned)
                    && value.flags & (Value::MARKER | Value::CREATED) == 0
                {
                    let inner = self.pure(bare);
                    if inner.flags & (Value::MARKER | Value::CREATED) != 0 {
                        value.flags |= inner.flags & (Value::MARKER | Value::CREATED);
                        value.range = inner.range;
                    }
                }
                // A fetched row returned (`return qs.first()`) is data, not an answer.
                let fetched = value
                    .path
                    .as_ref()
                    .and_then(QPath::last_name)
                    .is_some_and(|m| self.ex.catalog.is_fetch(m));
                let mut tested = None;
                let done_test = !fetched
                    && ret.value.as_deref().is_some_and(|returned| {
                        let returned = self.bare_test(returned);
                        match self.guard_test(returned, &value) {
                            Some(GuardTest::DoneCheck { field, .. }) => {
                                tested = field;
                                true
                            }
                            Some(GuardTest::Claim) => true,
                            _ => self.pure(returned).flags & Value::CLAIM != 0,
                        }
                    });
                // The field a returned done-check tests (`return user.is_active`), by which a
                // caller's `if not helper(...)` is told from a state check ([`Value::name`]).
                value.name = tested.filter(|_| done_test);
                // `return cache.add(k, 1)`, `return created`: the answer of a set-if-absent
                // call or of `get_or_create`, this run's claim.
                value.flags = (value.flags & (Value::MARKER | Value::CREATED))
                    | if done_test { Value::DONE_TEST } else { 0 };
                // `return not r.set(k, 1, nx=True)`, `return not created`: whether the marker
                // was already there, a done-check that leaves the marker set.
                let mut answered = ret.value.as_deref();
                if value.flags & (Value::MARKER | Value::CREATED) == 0
                    && let Some(returned) = ret.value.as_deref()
                    && let Expr::UnaryOp(unary) = self.bare_test(returned)
                    && unary.op == UnaryOp::Not
                {
                    let operand = self.bare_test(&unary.operand);
                    let inner = self.pure(operand);
                    if inner.flags & (Value::MARKER | Value::CREATED) != 0 {
                        value.flags =
                            Value::DONE_TEST | (inner.flags & (Value::MARKER | Value::CREATED));
                        value.name = None;
                        value.range = inner.range;
                        answered = Some(operand);
                    }
                }
                // The answer named by a local is placed at the call that gave it.
                if value.flags & (Value::MARKER | Value::CREATED) != 0
                    && let Some(Expr::Name(name)) = answered
                    && let Some(local) = self.lookup_local(name.id.as_str())
                {
                    value.range = local.range;
                }
                // `return session` with key headers on it: a client every caller's requests
                // send them with (`session = keyed_session(k)`, then `session.post(...)`).
                let client = match ret.value.as_deref() {
                    Some(Expr::Name(returned)) => self
                        .client_headers
                        .iter()
                        .find(|(var, _)| *var == Sym::new(returned.id.as_str()))
                        .map(|(_, headers)| headers.clone()),
                    Some(returned) if !self.is_module => self.client_headers_of(returned),
                    _ => None,
                };
                if let Some(headers) = client {
                    value.call = Some(Box::new(CallArgs {
                        args: Vec::new(),
                        keywords: vec![(Sym::new(HEADERS_KEYWORD), headers)],
                    }));
                }
                self.returns.push(value);
            }
            Stmt::Raise(raise) => {
                if let Some(exc) = &raise.exc {
                    self.expr(exc, block);
                }
            }
            // `assert not invoice.reminder_sent`: raises when the test fails, as `if
            // invoice.reminder_sent: raise` does.
            Stmt::Assert(assert) => {
                self.expr(&assert.test, block);
                if let Some(msg) = &assert.msg {
                    self.expr(msg, block);
                }
                let failed = match &*assert.test {
                    Expr::UnaryOp(unary) if unary.op == UnaryOp::Not => (*unary.operand).clone(),
                    test => Expr::UnaryOp(ast::ExprUnaryOp {
                        node_index: ast::AtomicNodeIndex::default(),
                        range: test.range(),
                        op: UnaryOp::Not,
                        operand: Box::new(test.clone()),
                    }),
                };
                let value = self.pure(&failed);
                if let Some(test) = self.guard_test(&failed, &value) {
                    self.push_guard(block, assert.range, test, Exit::Raise);
                }
            }
            // `if TYPE_CHECKING:` never runs: what it defines (stubs, imports for annotations,
            // bound by the prescan) does nothing at run time. Its `else` does.
            Stmt::If(stmt_if) if self.is_type_checking(&stmt_if.test) => {
                for clause in &stmt_if.elif_else_clauses {
                    if clause.test.is_none() {
                        self.suite(&clause.body, block, pending);
                    }
                }
            }
            Stmt::If(stmt_if) => self.stmt_if(stmt_if, block, pending),
            Stmt::For(stmt_for) => {
                let iter = self.expr(&stmt_for.iter, block);
                // `for address in [settings.BILLING_EMAIL]:` makes one pass, as a body that
                // ends in `break` does.
                let ends = if single_item(&stmt_for.iter) {
                    Ends::Breaks
                } else {
                    ends(&stmt_for.body)
                };
                let body = self.push_block(block, BlockKind::Loop { ends });
                let item = Value {
                    taint: iter.taint.clone(),
                    path: iter
                        .path
                        .as_ref()
                        .and_then(|path| row_of_queryset(path, &self.ex.catalog.orm)),
                    ..Value::default()
                };
                // `for r in Reminder.objects.filter(sent=False):` with `r.sent = True` in the body:
                // each row is selected in the state the pass moves it on from, a guard of the
                // pass (decided in `finish`, as a row fetched that way is).
                if item.path.is_some()
                    && let Some(test) = self.loop_state_test(&stmt_for.iter)
                {
                    self.push_guard(body, stmt_for.iter.range(), test, Exit::Skip);
                }
                self.bind(&stmt_for.target, &item, body);
                if let Lit::Seq(items) = &iter.lit {
                    self.note_loop_classes(&stmt_for.target, items);
                }
                let mark = self.loop_mark();
                self.suite(&stmt_for.body, body, pending);
                self.carry_loop_updates(mark);
                self.loop_else(&stmt_for.body, &stmt_for.orelse, body, block, pending);
            }
            Stmt::While(stmt_while) => {
                let body = self.push_block(
                    block,
                    BlockKind::Loop {
                        ends: ends(&stmt_while.body),
                    },
                );
                let mark = self.loop_mark();
                self.expr(&stmt_while.test, body);
                self.suite(&stmt_while.body, body, pending);
                self.carry_loop_updates(mark);
                self.loop_else(&stmt_while.body, &stmt_while.orelse, body, block, pending);
            }
            Stmt::With(with) => {
                let mut items = Vec::new();
                for item in &with.items {
                    let value = self.expr(&item.context_expr, block);
                    if let Some(target) = &item.optional_vars {
                        if value.flags & Value::MARKER != 0 {
                            self.bind_held(target, &value, block);
                        } else {
                            self.bind(target, &value, block);
                        }
                        if let Expr::Name(target) = &**target {
                            self.note_client_headers(target.id.as_str(), &item.context_expr);
                        }
                    }
                    items.push(value);
                }
                let body = self.push_block(block, BlockKind::With { items });
                self.suite(&with.body, body, pending);
            }
            Stmt::Try(stmt_try) => self.stmt_try(stmt_try, block, pending),
            Stmt::Match(stmt_match) => {
                self.expr(&stmt_match.subject, block);
                self.next_if += 1;
                let if_id = self.next_if;
                let mut guarded = false;
                // `case _:` (or a bare capture) last, unguarded: one of the cases always runs,
                // as with an `if` that has an `else`.
                let exhaustive = stmt_match.cases.last().is_some_and(|case| {
                    case.guard.is_none()
                        && matches!(&case.pattern, ast::Pattern::MatchAs(m) if m.pattern.is_none())
                });
                for (index, case) in stmt_match.cases.iter().enumerate() {
                    let branch = self.push_block(
                        block,
                        BlockKind::Branch {
                            if_id,
                            index: u32::try_from(index).unwrap_or(u32::MAX),
                            leaves: leaves(&case.body),
                            exhaustive,
                            on_param: None,
                            ends: ends(&case.body),
                        },
                    );
                    // A case's guard is tested once its pattern matched: in the case's branch.
                    let guard_value = case.guard.as_ref().map(|guard| self.expr(guard, branch));
                    self.suite(&case.body, branch, pending);
                    // `case _ if invoice.reminder_level >= level: return` is `if
                    // invoice.reminder_level >= level: return`, when the pattern matches anything.
                    if !guarded
                        && let (Some(guard), Some(value)) = (&case.guard, &guard_value)
                        && matches!(&case.pattern, ast::Pattern::MatchAs(m) if m.pattern.is_none())
                        && let Some(exit) = exits(&case.body)
                        && let Some(test) = self.guard_test(guard, value)
                    {
                        guarded = true;
                        self.push_guard(block, case.range, test, exit);
                    }
                    // `match x.status: case "sent": return` is `if x.status == "sent": return`,
                    // and `match order: case Order(receipt_sent=True): return` is `if
                    // order.receipt_sent: return`: they guard what follows, the later cases
                    // included.
                    let subject = &*stmt_match.subject;
                    let done_field = match subject {
                        _ if case.guard.is_some() => None,
                        Expr::Attribute(_) | Expr::Call(_) | Expr::Subscript(_)
                            if is_value_pattern(&case.pattern) =>
                        {
                            Some(None)
                        }
                        Expr::Name(_) | Expr::Attribute(_) => {
                            done_class_pattern(&case.pattern).map(|field| Some(Sym::new(field)))
                        }
                        _ => None,
                    };
                    if !guarded
                        && let Some(field) = done_field
                        && let Some(exit) = exits(&case.body)
                    {
                        guarded = true;
                        self.push_guard(
                            block,
                            stmt_match.range,
                            GuardTest::DoneCheck {
                                field,
                                states: ThinVec::new(),
                            },
                            exit,
                        );
                    }
                    // `match created: case False: return`: `if not created: return`.
                    if !guarded
                        && case.guard.is_none()
                        && matches!(
                            &case.pattern,
                            ast::Pattern::MatchSingleton(single)
                                if matches!(single.value, ast::Singleton::False | ast::Singleton::None)
                        )
                        && let Expr::Name(_) = &*stmt_match.subject
                        && let Some(exit) = exits(&case.body)
                    {
                        let subject = self.pure(&stmt_match.subject);
                        if subject.flags & (Value::CREATED | Value::MARKER) != 0
                            && let Some(test) = self.marker_test(&stmt_match.subject, &subject)
                        {
                            guarded = true;
                            self.push_guard(block, stmt_match.range, test, exit);
                        }
                    }
                }
            }
            Stmt::FunctionDef(def) => self.function_def(def, pending),
            Stmt::ClassDef(def) if self.is_module && block == 0 => self.class_def(def, pending),
            // A task class a factory defines and registers (`class Notifier(app.Task)` in
            // `make_notifier(channel)`): a class of its own, named under the function. Only
            // task classes: the classes tests define in their functions are no project's.
            Stmt::ClassDef(def) if !self.is_module && self.derives_task_class(def) => {
                let (qualname, _) = self.defined_here(def.name.as_str());
                let index = self.class_facts(def, &qualname);
                self.class_members(index, def, pending);
            }
            // Imports inside functions bind like module imports.
            Stmt::Import(_) | Stmt::ImportFrom(_) if !self.is_module => {
                self.ex.prescan(std::slice::from_ref(stmt), true);
            }
            _ => {}
        }
    }

    /// Whether a test is `typing.TYPE_CHECKING` (false at run time), however it is imported.
    fn is_type_checking(&mut self, test: &Expr) -> bool {
        // The name first: this runs for every `if`.
        let named = match test {
            Expr::Name(name) => name.id.as_str() == TYPE_CHECKING,
            Expr::Attribute(attr) => attr.attr.as_str() == TYPE_CHECKING,
            _ => false,
        };
        named
            && self.pure(test).path.is_some_and(|path| {
                let names = path.segs().iter().map(|seg| (seg.name.as_str(), seg.call));
                names.eq([
                    ("typing", crate::path::Call::No),
                    (TYPE_CHECKING, crate::path::Call::No),
                ])
            })
    }

    fn stmt_if<'a>(&mut self, stmt_if: &'a ast::StmtIf, block: u32, pending: &mut Pending<'a>) {
        let test = self.expr(&stmt_if.test, block);
        self.next_if += 1;
        let if_id = self.next_if;
        let exhaustive = stmt_if
            .elif_else_clauses
            .last()
            .is_some_and(|clause| clause.test.is_none());
        // `if notify:` on a parameter as the function received it.
        let on_param = match &*stmt_if.test {
            Expr::Name(name) if test.flags & Value::PARAM != 0 => {
                test.name.filter(|held| held.as_str() == name.id.as_str())
            }
            _ => None,
        };
        let branch = self.push_block(
            block,
            BlockKind::Branch {
                if_id,
                index: 0,
                leaves: leaves(&stmt_if.body),
                exhaustive,
                on_param,
                ends: ends(&stmt_if.body),
            },
        );
        // `if not x.sent: send(...)`: the body runs only while the work is not done, as if the
        // test were `if x.sent: return` in front of it.
        if exits(&stmt_if.body).is_none()
            && let Some(test) = self.negated_guard_test(&stmt_if.test, &test)
        {
            self.push_guard(branch, stmt_if.range, test, Exit::Skip);
        }
        let events_before = self.events.len();
        self.suite(&stmt_if.body, branch, pending);
        // `if not key:` / `if key is None:` around making the key once.
        if let Some(target) = absent_test(&stmt_if.test)
            && let (Some(first), Some(last)) = (stmt_if.body.first(), stmt_if.body.last())
        {
            let body = TextRange::new(first.range().start(), last.range().end());
            self.forget_minted_once(target, body, events_before);
        }
        // `if x.sent: return` guards what follows, the `elif`/`else` branches included.
        if let Some(exit) = exits(&stmt_if.body)
            && let Some(test) = self.guard_test(&stmt_if.test, &test)
        {
            self.push_guard(block, stmt_if.range, test, exit);
        }
        for (i, clause) in stmt_if.elif_else_clauses.iter().enumerate() {
            let index = u32::try_from(i + 1).unwrap_or(u32::MAX);
            let branch = self.push_block(
                block,
                BlockKind::Branch {
                    if_id,
                    index,
                    leaves: leaves(&clause.body),
                    exhaustive,
                    on_param: None,
                    ends: ends(&clause.body),
                },
            );
            if let Some(clause_test) = &clause.test {
                let value = self.expr(clause_test, branch);
                // `elif x.status == "sending": return`: a guard of what follows the `if`, as
                // the `if`'s own test is (the runs it lets by passed both).
                if let Some(exit) = exits(&clause.body)
                    && let Some(test) = self.guard_test(clause_test, &value)
                {
                    self.push_guard(block, clause.range, test, exit);
                }
            }
            // `if x.sent: log(...)` / `else: send(...)`: the `else` runs only while the work is
            // not done, as if the `if` returned. A field's test there is a done flag only when
            // the `else` writes the field: `if b.prefers_sms: ... else: send_mail(...)` chooses.
            if i == 0
                && clause.test.is_none()
                && exits(&stmt_if.body).is_none()
                && let Some(test) = self.guard_test(&stmt_if.test, &test)
            {
                let test = match test {
                    GuardTest::DoneCheck {
                        field: Some(field), ..
                    } => GuardTest::StateNot {
                        field,
                        on_path: true,
                        also: ThinVec::new(),
                    },
                    other => other,
                };
                self.push_guard(branch, stmt_if.range, test, Exit::Skip);
            }
            self.suite(&clause.body, branch, pending);
        }
    }

    /// `str(key)` of a parameter `key`: the parameter as received, converted, which a key
    /// keyword passes on as it would `key` itself (`idempotency_key=str(key)`).
    /// `now` plus `delay` seconds, when `now` is the current time (or already a time ahead
    /// of it) and `delay` a duration.
    #[inline(never)]
    fn time_ahead(&self, now: &Value, delay: &Value) -> Option<Lit> {
        let ahead = match &now.lit {
            Lit::FromNow(seconds) => *seconds,
            _ if now.path.as_ref().is_some_and(|p| {
                p.is_call() && self.ex.catalog.call_role(p) == Some(CallRole::Now)
            }) =>
            {
                0.0
            }
            _ => return None,
        };
        Some(Lit::FromNow(ahead + delay.as_f64()?))
    }

    #[inline(never)]
    fn converted_param(
        &self,
        function: Sym,
        args: &[Value],
        keywords: &[(Sym, Value)],
        value: &mut Value,
    ) {
        if let [arg] = args
            && keywords.is_empty()
            && arg.flags & Value::PARAM != 0
            && arg.name.is_some()
            && self.ex.catalog.is_key_conversion(function.as_str())
        {
            value.name = arg.name;
            value.flags |= Value::PARAM;
        }
    }

    /// A loop's `else`. When the loop's body can `break`, the `else` gets a block of its own:
    /// it runs when no pass broke out (`for p in providers: p.send(...); break` / `else:
    /// send_mail(...)` mails only when no provider sent). Otherwise it always runs after the
    /// loop, as code after it does.
    fn loop_else<'a>(
        &mut self,
        body: &'a [Stmt],
        orelse: &'a [Stmt],
        body_block: u32,
        block: u32,
        pending: &mut Pending<'a>,
    ) {
        if orelse.is_empty() {
            return;
        }
        let target = if breaks_out(body) {
            self.push_block(block, BlockKind::LoopElse { of: body_block })
        } else {
            block
        };
        self.suite(orelse, target, pending);
    }

    fn stmt_try<'a>(&mut self, stmt_try: &'a ast::StmtTry, block: u32, pending: &mut Pending<'a>) {
        let body = self.push_block(
            block,
            BlockKind::Try {
                ends: ends(&stmt_try.body),
            },
        );
        let before = self.events.len();
        self.suite(&stmt_try.body, body, pending);
        let mut integrity_exit = None;
        let mut missing_exit = None;
        let body_events = self.events.len();
        for ast::ExceptHandler::ExceptHandler(handler) in &stmt_try.handlers {
            let catches: Vec<QPath> = match handler.type_.as_deref() {
                Some(Expr::Tuple(tuple)) => tuple
                    .elts
                    .iter()
                    .filter_map(|e| self.pure(e).path)
                    .collect(),
                Some(expr) => self.pure(expr).path.into_iter().collect(),
                None => Vec::new(),
            };
            let catches_integrity = catches.iter().any(|p| {
                p.last_name()
                    .is_some_and(|n| self.ex.catalog.is_integrity_error(n))
            });
            let catches_missing = catches.iter().any(|p| {
                p.last_name()
                    .is_some_and(|n| self.ex.catalog.is_missing_row_error(n))
            });
            let fallback = self.is_module && catches.iter().any(is_import_error);
            let handler_block = self.push_block(
                block,
                BlockKind::Handler {
                    catches,
                    ends: ends(&handler.body),
                },
            );
            if let Some(name) = &handler.name {
                self.set_local(name.as_str(), Value::default());
            }
            let outer_fallback = std::mem::replace(&mut self.import_fallback, fallback);
            self.suite(&handler.body, handler_block, pending);
            self.import_fallback = outer_fallback;
            if catches_integrity {
                // `return`, `continue` or `raise`: each leaves the work undone (RULES.md).
                integrity_exit = exits(&handler.body);
            }
            if catches_missing {
                missing_exit = exits(&handler.body);
            }
        }
        let finally = self.push_block(block, BlockKind::Finally);
        self.suite(&stmt_try.finalbody, finally, pending);
        if let Some(exit) = integrity_exit {
            let inserts = self.integrity_inserts(before, body_events, body);
            self.push_guard(
                block,
                stmt_try.range,
                GuardTest::Integrity { inserts },
                exit,
            );
        }
        if let Some(exit) = missing_exit
            && let Some(test) = self.missing_row_test(&stmt_try.body)
        {
            self.push_guard(block, stmt_try.range, test, exit);
        }
        // `else:` runs when the body raised nothing, and outside the handlers' reach: as code
        // after the statement (after the insert an `except IntegrityError` guards, say).
        self.suite(&stmt_try.orelse, block, pending);
    }

    /// Loop variables over a written-out sequence of classes (`for model in (A, B):`), or of
    /// tuples holding them (`for model, days in [(A, 30), (B, 7)]:`): a delete through the
    /// variable deletes rows of each. Out of line, off `stmt`'s recursive frame.
    #[inline(never)]
    fn note_loop_classes(&mut self, target: &Expr, items: &[Value]) {
        let classes_at = |place: Option<usize>| -> Option<Vec<QPath>> {
            items
                .iter()
                .map(|item| {
                    let item = match (place, &item.lit) {
                        (None, _) => item,
                        (Some(i), Lit::Seq(parts)) => parts.get(i)?,
                        (Some(_), _) => return None,
                    };
                    item.path.clone().filter(|path| !path.is_call())
                })
                .collect::<Option<Vec<QPath>>>()
                .filter(|classes| !classes.is_empty())
        };
        match target {
            Expr::Name(var) => {
                if let Some(classes) = classes_at(None) {
                    self.loop_classes.push((Sym::new(var.id.as_str()), classes));
                }
            }
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                for (i, elt) in elts.iter().enumerate() {
                    if let Expr::Name(var) = elt
                        && let Some(classes) = classes_at(Some(i))
                    {
                        self.loop_classes.push((Sym::new(var.id.as_str()), classes));
                    }
                }
            }
            _ => {}
        }
    }

    /// Marks the releases that give back none of the set-if-absent keys the function takes
    /// (`if not cache.add(marker, 1): return`): a `delete` of another key (a progress key), a
    /// lock object's `release()`. Keys are compared as written (`lock_key`, `f"feed:{pk}"`).
    fn mark_other_key_releases(&mut self) {
        let catalog = self.ex.catalog;
        let source = self.ex.source;
        let text = |value: &Value| {
            source
                .get(value.range.start().to_usize()..value.range.end().to_usize())
                .map(str::trim)
        };
        // The keys the guards test, as written; a lock object's `acquire(blocking=False)` names
        // none, and is told by the object it is called on.
        let markers: Vec<TextRange> = self
            .events
            .iter()
            .filter_map(|event| match &event.kind {
                EventKind::Guard(guard) => match guard.test {
                    GuardTest::NotMarker { marker } => Some(marker),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        // `if not try_lock(lock_key, 900): return`: a helper that may take a key, named by the
        // helper call's first argument.
        let helpers: Vec<(TextRange, &QPath)> = self
            .events
            .iter()
            .filter_map(|event| match &event.kind {
                EventKind::Guard(guard) => match &guard.test {
                    GuardTest::Helper { path, .. } => Some((guard.range, path)),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        if markers.is_empty() && helpers.is_empty() {
            return;
        }
        let mut keys: Vec<&str> = Vec::new();
        let mut objects: Vec<Option<Sym>> = Vec::new();
        for event in &self.events {
            match &event.kind {
                EventKind::Call(call)
                    if helpers.iter().any(|(range, path)| {
                        range.contains_range(call.range) && call.path.as_ref() == Some(*path)
                    }) =>
                {
                    keys.extend(call.args().first().and_then(text));
                }
                EventKind::Call(call) if markers.contains(&call.range) => {
                    // The key first, or by the keyword the APIs name it (`set(name=k, nx=True)`).
                    let key = call.args().first().or_else(|| {
                        catalog
                            .locks
                            .iter()
                            .filter(|lock| lock.name.position == Some(0))
                            .find_map(|lock| call.keyword(lock.name.keyword.as_deref()?))
                    });
                    match key {
                        Some(key) => keys.extend(text(key)),
                        None => objects.push(call.receiver_var),
                    }
                }
                _ => {}
            }
        }
        if keys.is_empty() && objects.is_empty() {
            return;
        }
        let release = &catalog.lock_release;
        for event in &mut self.events {
            let EventKind::Call(call) = &mut event.kind else {
                continue;
            };
            if call.star_args {
                continue;
            }
            let first = call.args().first().and_then(text);
            let by_catalog = release.releases(call);
            let other = if by_catalog && release.names_key(call) {
                match first {
                    // `cache.delete_many([lock_key, progress_key])`.
                    Some(released) if released.starts_with(['[', '(']) => {
                        !keys.iter().any(|key| released.contains(key))
                    }
                    Some(released) => !keys.contains(&released),
                    // A bare `release()` is a function of the project's, not a lock object's
                    // method: the project decides what it releases.
                    None => {
                        call.receiver.is_some()
                            && call.keywords().is_empty()
                            && !objects.contains(&call.receiver_var)
                    }
                }
            } else {
                // `release_lock(progress_key)`: a project helper that may delete what it is
                // given (the project decides), given another key. (A catalog release that
                // takes its key elsewhere, `r.eval(SCRIPT, 1, key)`, is not compared.)
                !by_catalog
                    && !keys.is_empty()
                    && first.is_some_and(|released| !keys.contains(&released))
            };
            if other {
                call.marks.set_releases_other_key();
            }
        }
    }

    /// `try: row = Model.objects.get(pk=pk, sent=False) except Model.DoesNotExist: return`: the
    /// row is found only in the state it was selected by, as `if row is None: return` after
    /// `.filter(...).first()` says. The test of that state, when the query selects by one.
    /// Out of line, off `stmt`'s recursive frame.
    #[inline(never)]
    fn missing_row_test(&self, body: &[Stmt]) -> Option<GuardTest> {
        let orm = &self.ex.catalog.orm;
        body.iter().find_map(|stmt| {
            let value = match stmt {
                Stmt::Assign(assign) => &*assign.value,
                Stmt::AnnAssign(assign) => assign.value.as_deref()?,
                _ => return None,
            };
            let value = match value {
                Expr::Await(awaited) => &*awaited.value,
                other => other,
            };
            let Expr::Call(call) = value else {
                return None;
            };
            let Expr::Attribute(attr) = &*call.func else {
                return None;
            };
            if !orm.row_methods.iter().any(|m| m == attr.attr.as_str()) {
                return None;
            }
            let mut fields = self.selected_fields(&attr.value);
            fields.extend(call.arguments.keywords.iter().filter_map(|k| {
                let lookup = k.arg.as_ref()?.as_str();
                lookup.split("__").next()
            }));
            state_test(fields, orm)
        })
    }

    /// The inserts an `except IntegrityError` handler may protect: the write calls in the
    /// `try` body (its events from `start` to `end`, in block `body`); or, when the body only
    /// commits, the rows staged since the last commit before it (`session.add(Marker(...))`,
    /// then `try: session.commit()`). Out of line, off `stmt`'s recursive frame.
    #[inline(never)]
    fn integrity_inserts(&self, start: usize, end: usize, body: u32) -> Vec<TextRange> {
        let catalog = self.ex.catalog;
        let in_body: Vec<&CallSite> = self.events[start..end]
            .iter()
            .filter_map(|event| match &event.kind {
                EventKind::Call(call) if self.blocks_within(event.block, body) => Some(&**call),
                _ => None,
            })
            .collect();
        let inserts: Vec<TextRange> = in_body
            .iter()
            .filter(|call| catalog.is_insert(call.method.as_str()))
            .map(|call| call.range)
            .collect();
        if !inserts.is_empty()
            || !in_body
                .iter()
                .any(|call| catalog.is_commit(call.method.as_str()))
        {
            return inserts;
        }
        let mut staged: Vec<TextRange> = self.events[..start]
            .iter()
            .rev()
            .filter_map(|event| match &event.kind {
                EventKind::Call(call) => Some(call),
                _ => None,
            })
            .take_while(|call| !catalog.is_commit(call.method.as_str()))
            .filter(|call| catalog.stages_insert(call.method.as_str()))
            .map(|call| call.range)
            .collect();
        staged.reverse();
        staged
    }

    fn function_def<'a>(&mut self, def: &'a ast::StmtFunctionDef, pending: &mut Pending<'a>) {
        let name = def.name.as_str();
        let (qualname, parent) = self.defined_here(name);
        let index = self.ex.functions.len();
        let mut function = new_function(name, qualname, None, parent, def.range);
        function.name_range = def.name.range;
        function.is_async = def.is_async;
        function.decorators = def
            .decorator_list
            .iter()
            .map(|d| self.decorator(&d.expression))
            .collect();
        // A nested function that rebinds locals of this one (`nonlocal key`) may change them
        // whenever it is called.
        if !self.is_module {
            for stmt in &def.body {
                if let Stmt::Nonlocal(nonlocal) = stmt {
                    for name in &nonlocal.names {
                        self.rebound.push(Sym::new(name.as_str()));
                        self.set_local(name.as_str(), Value::default());
                    }
                }
            }
        }
        self.bind_nested(name, &function.qualname, index);
        self.ex.functions.push(function);
        pending.push((index, FunctionSource::Def(def)));
    }

    /// The qualified name and the parent of a function `name` defined here: in the module, or
    /// nested in this function.
    fn defined_here(&self, name: &str) -> (String, Option<usize>) {
        if self.is_module {
            (qualify(&self.ex.module, name), None)
        } else {
            (
                dotted_join(&self.ex.functions[self.func].qualname, name),
                Some(self.func),
            )
        }
    }

    /// A nested function (`index`) is called by its name in the enclosing one: the name
    /// stands for it, and it reads the enclosing function's locals ([`Self::capture_sources`]).
    fn bind_nested(&mut self, name: &str, qualname: &str, index: usize) {
        if self.is_module {
            return;
        }
        let path = cached_path(&mut self.ex.dotted_paths, qualname);
        self.set_local(
            name,
            Value {
                path: Some(path),
                ..Value::default()
            },
        );
        self.capture_sources(index);
    }

    /// Hands the nested function `index` the locals of this one that carry a source or hold
    /// something known (`client = Client()`, then `def text(to): client.messages.create(...)`).
    #[inline(never)]
    fn capture_sources(&mut self, index: usize) {
        let captured: Vec<Captured> = self
            .locals
            .iter()
            .filter_map(|(name, value)| {
                let sources: ThinVec<Taint> = value
                    .taint
                    .iter()
                    .copied()
                    .filter(|t| matches!(t, Taint::Nondet { .. } | Taint::Meta { .. }))
                    .collect();
                // A parameter passed on under another name is the enclosing function's, not
                // one the nested function was given.
                let path = value
                    .path
                    .as_ref()
                    .filter(|_| value.flags & Value::PARAM == 0)
                    .map(with_room);
                (!sources.is_empty() || path.is_some()).then_some((*name, path, sources))
            })
            .collect();
        if !captured.is_empty() {
            self.ex.captured.insert(index, captured);
        }
    }

    /// `new_key = lambda: uuid4().hex`: a function of that name, which returns the lambda's
    /// expression, so that calls by the name are followed as a `def`'s are. In a function it
    /// is nested in that one, and reads its locals as a nested `def` does.
    fn lambda_def<'a>(
        &mut self,
        target: &ast::ExprName,
        lambda: &'a ast::ExprLambda,
        pending: &mut Pending<'a>,
    ) {
        let name = target.id.as_str();
        let index = self.ex.functions.len();
        let (qualname, parent) = self.defined_here(name);
        let mut function = new_function(name, qualname, None, parent, lambda.range);
        function.name_range = target.range;
        self.bind_nested(name, &function.qualname, index);
        self.ex.functions.push(function);
        pending.push((index, FunctionSource::Lambda(lambda)));
    }

    fn decorator(&mut self, expr: &Expr) -> Decorator {
        let range = expr.range();
        match expr {
            Expr::Call(call) => {
                let path = self.pure(&call.func).path;
                let args = call.arguments.args.iter().map(|a| self.pure(a)).collect();
                let keywords = call
                    .arguments
                    .keywords
                    .iter()
                    .filter_map(|k| {
                        let mut value = self.pure(&k.value);
                        value.set_label(k.range.start());
                        Some((k.arg.as_ref()?.as_str().to_string(), value))
                    })
                    .collect();
                Decorator {
                    range,
                    path,
                    called: true,
                    args,
                    keywords,
                }
            }
            _ => Decorator {
                range,
                path: self.pure(expr).path,
                called: false,
                args: Vec::new(),
                keywords: Vec::new(),
            },
        }
    }

    /// Whether a class names a framework's task class as a base, by its last name (`app.Task`,
    /// `celery.Task`, `AbortableTask`).
    fn derives_task_class(&self, def: &ast::StmtClassDef) -> bool {
        let Some(mut names) = self.ex.catalog.task_class_names() else {
            return false;
        };
        let last_names: Vec<&str> = def
            .bases()
            .iter()
            .filter_map(|base| match base {
                Expr::Name(name) => Some(name.id.as_str()),
                Expr::Attribute(attr) => Some(attr.attr.as_str()),
                _ => None,
            })
            .collect();
        !last_names.is_empty() && names.any(|name| last_names.contains(&name))
    }

    fn class_def<'a>(&mut self, def: &'a ast::StmtClassDef, pending: &mut Pending<'a>) {
        let index = self.class_facts(def, &qualify(&self.ex.module, def.name.as_str()));
        self.class_members(index, def, pending);
    }

    /// `@method_decorator(transaction.atomic, name="post")` on a class decorates its `post`
    /// as `@method_decorator(transaction.atomic)` on the method would; named for the request
    /// dispatcher (`name="dispatch"`), the request handlers the class defines as well, which
    /// the dispatcher runs inside it.
    fn class_method_decorators(&mut self, index: usize, def: &ast::StmtClassDef) {
        let transactions = &self.ex.catalog.transactions;
        for expr in def.decorator_list.iter().map(|d| &d.expression) {
            let Expr::Call(call) = expr else { continue };
            let Some(Expr::StringLiteral(name)) = call
                .arguments
                .find_keyword("name")
                .map(|keyword| &keyword.value)
            else {
                continue;
            };
            let name = name.value.to_str();
            if !self
                .pure(&call.func)
                .path
                .is_some_and(|path| transactions.is_decorator_wrapper(&path))
            {
                continue;
            }
            let dispatcher = transactions.dispatch_method.is_some_and(|d| d == name);
            let targets: Vec<usize> = self.ex.classes[index]
                .methods
                .iter()
                .filter(|(method, _)| {
                    *method == name
                        || dispatcher
                            && transactions
                                .handler_methods
                                .iter()
                                .any(|handler| handler == method)
                })
                .map(|(_, &fn_index)| fn_index)
                .collect();
            if targets.is_empty() {
                continue;
            }
            let decorator = self.decorator(expr);
            for fn_index in targets {
                if let Some(function) = self.ex.functions.get_mut(fn_index) {
                    function.decorators.push(decorator.clone());
                }
            }
        }
    }

    fn class_facts(&mut self, def: &ast::StmtClassDef, qualname: &str) -> usize {
        let (bases, keywords) = match &def.arguments {
            Some(arguments) => (
                arguments
                    .args
                    .iter()
                    .filter_map(|a| self.pure(a).path)
                    .collect(),
                arguments
                    .keywords
                    .iter()
                    .filter_map(|k| {
                        Some((k.arg.as_ref()?.as_str().to_string(), self.pure(&k.value)))
                    })
                    .collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        let index = self.ex.classes.len();
        self.ex.classes.push(Class {
            name: def.name.as_str().to_string(),
            qualname: qualname.to_string(),
            range: def.range,
            name_range: def.name.range,
            bases,
            keywords,
            attrs: SmallMap::default(),
            inner: Vec::new(),
            methods: SmallMap::default(),
        });
        index
    }

    fn class_members<'a>(
        &mut self,
        index: usize,
        def: &'a ast::StmtClassDef,
        pending: &mut Pending<'a>,
    ) {
        let qualname = self.ex.classes[index].qualname.clone();
        // A dataclass with a field's factory (`key: str = field(default_factory=uuid4)`) keeps
        // its fields without a default too, so that positional arguments are matched to the
        // fields in order ([`Walker::factory_fields`]).
        let factories = def.body.iter().any(|stmt| {
            let Stmt::AnnAssign(assign) = stmt else {
                return false;
            };
            assign
                .value
                .as_deref()
                .is_some_and(|value| self.has_factory_keyword(value))
        });
        let own_init = def
            .body
            .iter()
            .any(|stmt| matches!(stmt, Stmt::FunctionDef(f) if f.name.as_str() == "__init__"));
        for stmt in &def.body {
            match stmt {
                Stmt::Assign(assign) => {
                    let mut value = self.class_value(&assign.value);
                    value.set_label(assign.range.start());
                    for target in &assign.targets {
                        if let Expr::Name(name) = target {
                            self.ex.classes[index]
                                .attrs
                                .insert(name.id.as_str(), value.clone());
                        }
                    }
                }
                Stmt::AnnAssign(assign) => {
                    if let (Expr::Name(name), Some(value)) = (&*assign.target, &assign.value) {
                        let made_by_factory = self.has_factory_keyword(value);
                        let mut value = self.class_value(value);
                        value.set_label(assign.range.start());
                        // `client: Client = field(default_factory=Client)`: whatever the
                        // factory or the caller gives, the field holds what it is declared as.
                        if made_by_factory
                            && !own_init
                            && let Some(class) = self.annotation_path(&assign.annotation)
                        {
                            value.path = Some(class.instance());
                        }
                        self.ex.classes[index].attrs.insert(name.id.as_str(), value);
                    } else if let Expr::Name(name) = &*assign.target
                        && !own_init
                        && let Some(class) = self.annotation_path(&assign.annotation)
                    {
                        // `gateway: GatewayClient` in a dataclass (a class whose `__init__` is
                        // made for it): the field holds an instance of what it is declared as.
                        let value = Value {
                            path: Some(class.instance()),
                            ..Value::default()
                        };
                        self.ex.classes[index].attrs.insert(name.id.as_str(), value);
                    } else if let (Expr::Name(name), true) = (&*assign.target, factories) {
                        self.ex.classes[index]
                            .attrs
                            .insert(name.id.as_str(), Value::default());
                    }
                }
                Stmt::ClassDef(inner) => {
                    let inner_index =
                        self.class_facts(inner, &dotted_join(&qualname, inner.name.as_str()));
                    self.class_members(inner_index, inner, pending);
                    self.ex.classes[index].inner.push(inner_index);
                }
                Stmt::FunctionDef(method) => {
                    let name = method.name.as_str();
                    let fn_index = self.ex.functions.len();
                    let mut function = new_function(
                        name,
                        dotted_join(&qualname, name),
                        Some(index),
                        None,
                        method.range,
                    );
                    function.name_range = method.name.range;
                    function.is_async = method.is_async;
                    function.decorators = method
                        .decorator_list
                        .iter()
                        .map(|d| self.decorator(&d.expression))
                        .collect();
                    self.ex.functions.push(function);
                    self.ex.classes[index].methods.insert(name, fn_index);
                    pending.push((fn_index, FunctionSource::Def(method)));
                }
                _ => {}
            }
        }
        self.class_method_decorators(index, def);
        // `self.x = ...` anywhere in the methods, evaluated ahead of the method bodies.
        let methods: Vec<(usize, &ast::StmtFunctionDef)> = def
            .body
            .iter()
            .filter_map(|s| match s {
                Stmt::FunctionDef(m) => Some(m),
                _ => None,
            })
            .map(|m| {
                (
                    self.ex.classes[index]
                        .methods
                        .get(m.name.as_str())
                        .copied()
                        .unwrap_or(0),
                    m,
                )
            })
            .collect();
        for (fn_index, method) in methods {
            // Most methods assign no attribute of `self`: nothing to evaluate ahead for them.
            let Some(self_name) = self_parameter(method) else {
                continue;
            };
            if !assigns_self_attr(&method.body, self_name) {
                continue;
            }
            let mut walker = Walker::new(self.ex, fn_index, Some(index), false);
            walker.emit = false;
            walker.params(&method.parameters, is_static_method(method));
            let mut found = Vec::new();
            walker.collect_self_attrs(&method.body, self_name, &mut found);
            walker.recycle_names();
            for (name, value) in found {
                let attrs = self.ex.self_attrs.entry(index).or_default();
                // The first assignment with a known type wins (`__init__` comes first).
                if attrs.get(&name).is_none_or(|v: &Value| v.path.is_none()) {
                    attrs.insert(name, value);
                }
            }
        }
    }

    fn collect_self_attrs(
        &mut self,
        suite: &[Stmt],
        self_name: &str,
        found: &mut Vec<(String, Value)>,
    ) {
        for stmt in suite {
            match stmt {
                Stmt::Assign(assign) => {
                    let mut value = self.expr(&assign.value, 0);
                    // `self.client = httpx.Client(headers={"Idempotency-Key": k})`: the key
                    // headers go with the client, as for a local's.
                    if let Some(headers) = self.client_headers_of(&assign.value) {
                        value.call = Some(Box::new(CallArgs {
                            args: Vec::new(),
                            keywords: vec![(Sym::new(HEADERS_KEYWORD), headers)],
                        }));
                    }
                    for target in &assign.targets {
                        match target {
                            Expr::Attribute(attr) if matches!(&*attr.value, Expr::Name(n) if n.id.as_str() == self_name) =>
                            {
                                found.push((attr.attr.as_str().to_string(), value.clone()));
                            }
                            Expr::Name(name) => self.set_local(name.id.as_str(), value.clone()),
                            _ => {}
                        }
                    }
                }
                Stmt::If(stmt_if) => {
                    self.collect_self_attrs(&stmt_if.body, self_name, found);
                    for clause in &stmt_if.elif_else_clauses {
                        self.collect_self_attrs(&clause.body, self_name, found);
                    }
                }
                Stmt::Try(stmt_try) => self.collect_self_attrs(&stmt_try.body, self_name, found),
                Stmt::With(with) => self.collect_self_attrs(&with.body, self_name, found),
                // `self.session.headers.update({"Idempotency-Key": k})` after the client is made.
                Stmt::Expr(expr) => self.self_client_headers(&expr.value, self_name, found),
                _ => {}
            }
        }
    }

    /// `self.<client>.headers.update({...})`: the key headers join what `found` holds for the
    /// client.
    fn self_client_headers(&mut self, expr: &Expr, self_name: &str, found: &mut [(String, Value)]) {
        let Expr::Call(call) = expr else { return };
        let Expr::Attribute(method) = &*call.func else {
            return;
        };
        let (Expr::Attribute(headers), "update", [entries @ Expr::Dict(_)]) = (
            &*method.value,
            method.attr.as_str(),
            &call.arguments.args[..],
        ) else {
            return;
        };
        let Expr::Attribute(client) = &*headers.value else {
            return;
        };
        if headers.attr.as_str() != HEADERS_KEYWORD
            || !matches!(&*client.value, Expr::Name(n) if n.id.as_str() == self_name)
        {
            return;
        }
        let entries = self.pure(entries).dict().unwrap_or_default().to_vec();
        let catalog = self.ex.catalog;
        let Some((_, value)) = found
            .iter_mut()
            .rev()
            .find(|(name, _)| name == client.attr.as_str())
        else {
            return;
        };
        let keyword = Sym::new(HEADERS_KEYWORD);
        let held = value
            .call
            .as_deref_mut()
            .and_then(|args| args.keywords.iter_mut().find(|(k, _)| *k == keyword))
            .map(|(_, headers)| headers);
        if let Some(headers) = join_client_headers(held, entries, catalog) {
            value
                .call
                .get_or_insert_with(Box::default)
                .keywords
                .push((keyword, headers));
        }
    }

    /// `for model in (Processed, Sent): model.objects.filter(...).delete()`: each model's rows.
    /// Out of line: `call_of` recurses as deep as calls nest, and its frame is kept small.
    #[inline(never)]
    fn delete_through_loop(&mut self, path: &QPath, method: Sym) {
        if path.0.len() > 2
            && self.ex.catalog.orm.delete_methods.has(method.as_str())
            && self.ex.catalog.orm.manager_at(path) == Some(1)
            && let Some((_, classes)) = self
                .loop_classes
                .iter()
                .rev()
                .find(|(var, _)| *var == path.0[0].name)
        {
            self.ex.deleted_models.extend(classes.iter().cloned());
        }
    }

    // ------------------------------------------------------------------ bindings

    /// `with mutex.acquire() as acquired:`: the key is given back when the block ends, so `if
    /// not acquired: return` leaves a lock, not a marker. Out of line, off `stmt`'s frame.
    #[inline(never)]
    fn bind_held(&mut self, target: &Expr, value: &Value, block: u32) {
        let mut held = value.clone();
        held.flags &= !Value::MARKER;
        self.bind(target, &held, block);
    }

    fn bind(&mut self, target: &Expr, value: &Value, block: u32) {
        match target {
            Expr::Name(name) => self.bind_name(name.id.as_str(), value.clone(), block),
            Expr::Tuple(ast::ExprTuple { elts, .. }) | Expr::List(ast::ExprList { elts, .. }) => {
                let is_get_or_create = self.is_get_or_create(value);
                // `sent_at, phone = cur.fetchone()`: each item is a value of the fetched row,
                // tested as the fetch is (`if sent_at is not None: return`).
                let fetched = value
                    .path
                    .as_ref()
                    .filter(|path| {
                        path.last_name()
                            .is_some_and(|m| self.ex.catalog.is_fetch(m))
                    })
                    .cloned();
                for (i, elt) in elts.iter().enumerate() {
                    let mut item = match &value.lit {
                        Lit::Seq(items) => items.get(i).cloned().unwrap_or_default(),
                        _ => Value {
                            taint: value.taint.iter().map(|t| t.item(i)).collect(),
                            path: fetched.clone(),
                            ..Value::default()
                        },
                    };
                    if is_get_or_create {
                        get_or_create_item(value, i, &mut item);
                    }
                    self.bind(elt, &item, block);
                }
            }
            Expr::Attribute(attr) => {
                if let Expr::Name(local) = &*attr.value
                    && !self.is_module
                {
                    self.set_attr_taint(local.id.as_str(), attr.attr.as_str(), &value.taint);
                }
                if let Some(var) = root_name(&attr.value) {
                    let object = self.pure(&attr.value).path;
                    self.push_event(
                        block,
                        EventKind::AttrAssign(Box::new(AttrAssign {
                            range: target.range(),
                            object,
                            var: Sym::new(var),
                            attr: Sym::new(attr.attr.as_str()),
                            key: None,
                            augmented: false,
                            value: value.clone(),
                        })),
                    );
                }
            }
            Expr::Starred(starred) => self.bind(&starred.value, value, block),
            // `headers["Idempotency-Key"] = key`: an entry of a dict the function built.
            Expr::Subscript(sub) => {
                // `kwargs.setdefault("headers", {})["Idempotency-Key"] = key`: the call runs
                // (and changes `kwargs`) before the entry is set.
                if let Expr::Call(call) = &*sub.value {
                    self.expr(&sub.value, block);
                    // The entry is set in what `kwargs.setdefault(...)` returned: in `kwargs`.
                    if let Expr::Attribute(attr) = &*call.func
                        && let Expr::Name(receiver) = &*attr.value
                    {
                        self.param_changed(receiver.id.as_str());
                    }
                    return;
                }
                let Expr::StringLiteral(key) = &*sub.slice else {
                    // `headers[KEY_HEADER] = key`: an entry under a name not known here.
                    if let Expr::Name(local) = &*sub.value {
                        let slice = self.pure(&sub.slice);
                        match slice.as_int() {
                            // `retry_args[1] = [...]`: an item of a list.
                            Some(index) => self.set_item(local.id.as_str(), index, value),
                            None => {
                                let key = slice.as_str().map(Sym::new);
                                self.set_entry(local.id.as_str(), key, value);
                            }
                        }
                        self.param_changed(local.id.as_str());
                    }
                    return;
                };
                // `session.headers["Idempotency-Key"] = key`: a client's default header.
                if let Expr::Attribute(attr) = &*sub.value
                    && attr.attr.as_str() == HEADERS_KEYWORD
                    && let Expr::Name(client) = &*attr.value
                    && !self.is_module
                {
                    let entry = (Some(Sym::new(key.value.to_str())), value.clone());
                    self.add_client_headers(client.id.as_str(), vec![entry]);
                    return;
                }
                // A setting written on a Celery app's `conf` (only there, so that no other
                // object's writes change): `app.conf["task_acks_late"] = True`, an item of the
                // settings mapping, which is the attribute; `app.conf.broker_transport_options
                // ["visibility_timeout"] = 7200`, an entry of one setting.
                let item = key.value.to_str();
                let written = match &*sub.value {
                    Expr::Attribute(conf) if conf.attr.as_str() == crate::settings::CELERY_CONF => {
                        Some((&*sub.value, Sym::new(item), None))
                    }
                    Expr::Attribute(attr) => Some((
                        &*attr.value,
                        Sym::new(attr.attr.as_str()),
                        Some(Sym::new(item)),
                    )),
                    _ => None,
                };
                if let Some((conf, attr, key)) = written
                    && let Some(var) = root_name(conf)
                    && let Some(object) = self.pure(conf).path
                    && object
                        .last_name()
                        .is_some_and(|last| last == crate::settings::CELERY_CONF)
                {
                    self.push_event(
                        block,
                        EventKind::AttrAssign(Box::new(AttrAssign {
                            range: target.range(),
                            object: Some(object),
                            var: Sym::new(var),
                            attr,
                            key,
                            augmented: false,
                            value: value.clone(),
                        })),
                    );
                    return;
                }
                if let Expr::Name(name) = &*sub.value {
                    let entry = key.value.to_str();
                    self.star_imported_dict(name.id.as_str());
                    self.set_entry(name.id.as_str(), Some(Sym::new(entry)), value);
                    if self.ex.catalog.may_carry_key(entry) {
                        self.param_changed(name.id.as_str());
                    }
                }
            }
            _ => {}
        }
    }

    /// `kwargs.pop("headers", {})`, `kwargs.get("idempotency_key")` on the function's
    /// `**kwargs`: what the caller gives by that keyword ([`Lit::CallerKeyword`]), when the
    /// default adds nothing (none, `None` or an empty dict).
    fn caller_keyword(&self, call: &ast::ExprCall) -> Option<Lit> {
        let kwarg = self.kwarg?;
        let Expr::Attribute(attr) = &*call.func else {
            return None;
        };
        let Expr::Name(receiver) = &*attr.value else {
            return None;
        };
        if !matches!(attr.attr.as_str(), "pop" | "get")
            || receiver.id.as_str() != kwarg.as_str()
            || self.locals.contains_key(&kwarg)
            || !call.arguments.keywords.is_empty()
        {
            return None;
        }
        let (keyword, default) = match &call.arguments.args[..] {
            [Expr::StringLiteral(keyword)] => (keyword, None),
            [Expr::StringLiteral(keyword), default] => (keyword, Some(default)),
            _ => return None,
        };
        let adds_nothing = match default {
            None | Some(Expr::NoneLiteral(_)) => true,
            Some(Expr::Dict(dict)) => dict.items.is_empty(),
            Some(_) => false,
        };
        adds_nothing.then(|| Lit::CallerKeyword(kwarg, Sym::new(keyword.value.to_str())))
    }

    /// `headers.update({"Idempotency-Key": key})`, `headers.update(other)`,
    /// `headers.setdefault("Idempotency-Key", key)`: the entries join a dict the function holds
    /// (Python's `dict.update`, `dict.setdefault`).
    fn dict_update(&mut self, expr: &Expr) {
        let Expr::Call(call) = expr else { return };
        let Expr::Attribute(attr) = &*call.func else {
            return;
        };
        if self.is_module {
            // `CELERY_BROKER_TRANSPORT_OPTIONS.update({...})` in a settings module: entries of
            // a module dict, or of one a star import gave it.
            if attr.attr.as_str() == "update"
                && let Expr::Name(name) = &*attr.value
                && let ([] | [Expr::Dict(_)], false) = (
                    &call.arguments.args[..],
                    call.arguments.keywords.iter().any(|k| k.arg.is_none()),
                )
            {
                let mut entries: Vec<DictItem> = match call.arguments.args.first() {
                    Some(other) => self.pure(other).dict().unwrap_or_default().to_vec(),
                    None => Vec::new(),
                };
                for keyword in &call.arguments.keywords {
                    let key = keyword.arg.as_ref().map(|arg| Sym::new(arg.as_str()));
                    entries.push((key, self.pure(&keyword.value)));
                }
                self.star_imported_dict(name.id.as_str());
                for (key, value) in entries {
                    self.set_entry(name.id.as_str(), key, &value);
                }
            }
            return;
        }
        // `session.headers.update({"Idempotency-Key": key})`: a client's default headers.
        if let Expr::Attribute(headers) = &*attr.value
            && headers.attr.as_str() == HEADERS_KEYWORD
            && let Expr::Name(client) = &*headers.value
        {
            let entries: Vec<DictItem> = match (attr.attr.as_str(), &call.arguments.args[..]) {
                ("update", [other @ Expr::Dict(_)]) => {
                    self.pure(other).dict().unwrap_or_default().to_vec()
                }
                ("setdefault", [Expr::StringLiteral(name), value]) => {
                    vec![(Some(Sym::new(name.value.to_str())), self.pure(value))]
                }
                _ => return,
            };
            self.add_client_headers(client.id.as_str(), entries);
            return;
        }
        let Expr::Name(local) = &*attr.value else {
            return;
        };
        // `headers.setdefault("Idempotency-Key", key)`: the entry, unless the dict has it.
        if attr.attr.as_str() == "setdefault" {
            if let [Expr::StringLiteral(name), value] = &call.arguments.args[..] {
                let key = Sym::new(name.value.to_str());
                let held = self.locals.get(&Sym::new(local.id.as_str()));
                if held.is_some_and(|held| held.dict_get(key.as_str()).is_none()) {
                    let value = self.pure(value);
                    self.set_entry(local.id.as_str(), Some(key), &value);
                }
            }
            return;
        }
        if attr.attr.as_str() != "update" {
            return;
        }
        // Read again only for a dict held, or a display that may set a key header on
        // another local (`headers = auth_headers(); headers.update({...})`).
        let holds_dict = self
            .locals
            .get(&Sym::new(local.id.as_str()))
            .is_some_and(|held| held.dict().is_some());
        let mut entries: Vec<DictItem> = match &call.arguments.args[..] {
            [] => Vec::new(),
            [other @ Expr::Dict(_)] => self.pure(other).dict().unwrap_or_default().to_vec(),
            [_] if holds_dict => vec![(None, Value::default())],
            _ => return,
        };
        if holds_dict {
            for keyword in &call.arguments.keywords {
                let key = keyword.arg.as_ref().map(|arg| Sym::new(arg.as_str()));
                let value = self.pure(&keyword.value);
                entries.push((key, value));
            }
        }
        for (key, value) in entries {
            self.set_entry(local.id.as_str(), key, &value);
        }
    }

    /// `client = httpx.Client(headers={"Idempotency-Key": key})`, also as `with ... as client`:
    /// the headers every request through `client` sends, when they carry a key header.
    fn note_client_headers(&mut self, local: &str, value: &Expr) {
        if self.is_module {
            return;
        }
        if let Some(Value {
            lit: Lit::Dict(entries),
            ..
        }) = self.client_headers_of(value)
        {
            self.add_client_headers(local, entries);
        }
    }

    /// The `headers=` dict a call makes a client with (`httpx.Client(headers={...})`), when
    /// it carries a key header.
    fn client_headers_of(&mut self, value: &Expr) -> Option<Value> {
        let value = match value {
            Expr::Await(awaited) => &*awaited.value,
            other => other,
        };
        let Expr::Call(call) = value else {
            return None;
        };
        let headers = call.arguments.keywords.iter().find(|k| {
            k.arg
                .as_ref()
                .is_some_and(|a| a.as_str() == HEADERS_KEYWORD)
        })?;
        let headers = self.pure(&headers.value);
        let catalog = self.ex.catalog;
        headers
            .dict()?
            .iter()
            .any(|(k, _)| k.is_some_and(|k| catalog.is_key_header(&k)))
            .then_some(headers)
    }

    /// Adds entries to the default headers of the client in `local`, kept while one of them
    /// is a key header.
    fn add_client_headers(&mut self, local: &str, entries: Vec<DictItem>) {
        let sym = Sym::new(local);
        let held = self
            .client_headers
            .iter_mut()
            .find(|(var, _)| *var == sym)
            .map(|(_, headers)| headers);
        if let Some(headers) = join_client_headers(held, entries, self.ex.catalog) {
            self.client_headers.push((sym, headers));
        }
    }

    /// `req.add_header("Idempotency-Key", key)` on a request object (`urllib.request.Request`):
    /// the header joins the request's `headers`.
    fn request_add_header(&mut self, expr: &Expr) {
        let Expr::Call(call) = expr else { return };
        let Expr::Attribute(attr) = &*call.func else {
            return;
        };
        let Expr::Name(local) = &*attr.value else {
            return;
        };
        if self.is_module || !self.ex.catalog.is_request_header_method(attr.attr.as_str()) {
            return;
        }
        let [Expr::StringLiteral(name), value] = &call.arguments.args[..] else {
            return;
        };
        let entry = (Some(Sym::new(name.value.to_str())), self.pure(value));
        let Some(held) = self.locals.get_mut(&Sym::new(local.id.as_str())) else {
            return;
        };
        if held.flags & Value::REQUEST == 0 {
            return;
        }
        let Some(request) = held.call.as_deref_mut() else {
            return;
        };
        let headers = Sym::new(HEADERS_KEYWORD);
        match request.keywords.iter_mut().find(|(k, _)| *k == headers) {
            Some((
                _,
                Value {
                    lit: Lit::Dict(items),
                    ..
                },
            )) => items.push(entry),
            Some(_) => {}
            None => request.keywords.push((
                headers,
                Value {
                    lit: Lit::Dict(vec![entry]),
                    ..Value::default()
                },
            )),
        }
    }

    /// `local[key] = value` on a dict the function holds (`key` is `None` when computed). A
    /// key header set on any other local (the headers a helper returned) makes it a dict of
    /// that entry and others not known.
    /// Before a module sets entries of `name` that it neither defines nor imports by name
    /// (`from .base import *`, then `CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] =
    /// 43200`): a dict of the entries it sets after a spread of the star-imported one
    /// ([`DictItem`] without a name), which settings merge into the base's.
    fn star_imported_dict(&mut self, name: &str) {
        if self.is_module
            && !self.ex.star_imports.is_empty()
            && !self.ex.module_vars.contains_key(name)
            && !self.ex.imports.contains_key(&Sym::new(name))
        {
            let spread = Value {
                lit: Lit::Dict(vec![(None, Value::default())]),
                ..Value::default()
            };
            self.ex.module_vars.insert(name.to_string(), spread);
        }
    }

    /// `items[index] = value` on a local list: the item replaced when the list is known, else
    /// the list marked as changed from what it was made from (`args = list(self.request.args)`
    /// then `args[1] = ...` is no longer the task's arguments).
    fn set_item(&mut self, local: &str, index: i64, value: &Value) {
        if self.is_module {
            return;
        }
        let Some(held) = self.locals.get_mut(&Sym::new(local)) else {
            return;
        };
        match &mut held.lit {
            Lit::Seq(items) => {
                let at = usize::try_from(index).ok().or_else(|| {
                    items
                        .len()
                        .checked_sub(usize::try_from(index.unsigned_abs()).ok()?)
                });
                match at.and_then(|at| items.get_mut(at)) {
                    Some(item) => {
                        *item = value.clone();
                        item.name = None;
                    }
                    None => held.flags |= Value::UPDATED,
                }
            }
            Lit::Dict(_) => {}
            _ => held.flags |= Value::UPDATED,
        }
    }

    fn set_entry(&mut self, local: &str, key: Option<Sym>, value: &Value) {
        let catalog = self.ex.catalog;
        let held = if self.is_module {
            self.ex.module_vars.get_mut(local)
        } else {
            self.locals.get_mut(&Sym::new(local))
        };
        let Some(held) = held else {
            return;
        };
        // A parameter keeps its name (`headers["Idempotency-Key"] = idempotency_key`), so that
        // a key followed back through a helper's callers finds the argument given for it.
        let mut value = value.clone();
        if value.flags & Value::PARAM == 0 {
            value.name = None;
        }
        match &mut held.lit {
            Lit::Dict(items) => put_entry(items, key, value),
            lit if key.is_some_and(|k| catalog.is_key_header(&k)) => {
                *lit = Lit::Dict(vec![(key, value), (None, Value::default())]);
            }
            // `headers = kwargs.pop("headers", {})`, then `headers["Authorization"] = ...`: the
            // caller's headers and this entry.
            lit if matches!(lit, Lit::CallerKeyword(..)) => {
                let caller = Value {
                    lit: std::mem::take(lit),
                    ..Value::default()
                };
                *lit = Lit::Dict(vec![(None, caller), (key, value)]);
            }
            _ => {}
        }
    }

    /// Whether `name = value` computes a parameter (or a value already updated from one) from
    /// itself: arithmetic on it (`amount - fee`) or a slice of it (`items[1:]`).
    fn updates_parameter(&self, name: &str, value: &Expr) -> bool {
        let reads_itself = |expr: &Expr| matches!(expr, Expr::Name(n) if n.id.as_str() == name);
        let derived = match value {
            Expr::BinOp(bin) => reads_itself(&bin.left) || reads_itself(&bin.right),
            Expr::Subscript(sub) => sub.slice.is_slice_expr() && reads_itself(&sub.value),
            _ => false,
        };
        derived
            && self
                .local_ref(name, Sym::new(name))
                .is_some_and(|v| v.flags & (Value::PARAM | Value::UPDATED) != 0)
    }

    /// A nondeterministic source at `range`, named as messages show it: `uuid.uuid4` for
    /// `uuid.uuid4()` or for the function itself.
    fn nondet_taint(&self, range: TextRange) -> Taint {
        let text = super::display_source(
            self.ex
                .source
                .get(range.start().to_usize()..range.end().to_usize())
                .unwrap_or_default(),
        );
        Taint::Nondet {
            range,
            name: Sym::new(text.split('(').next().unwrap_or(&text)),
        }
    }

    /// `default_factory=lambda: str(uuid4())`, `default_factory=uuid.uuid4`: the function is
    /// called for every new object, so the keyword holds the taint of what it returns.
    fn factory_taint(&mut self, factory: &Expr, value: &mut Value) {
        match factory {
            Expr::Lambda(lambda) => {
                let made = self.pure(&lambda.body);
                merge_taint(&mut value.taint, &made.taint);
            }
            _ if value
                .path
                .as_ref()
                .is_some_and(|path| self.ex.catalog.is_nondeterministic(path)) =>
            {
                value.taint.push(self.nondet_taint(factory.range()));
            }
            _ => {}
        }
    }

    /// `req = ChargeRequest(amount=a)`, a class of this module with a field
    /// `key: str = field(default_factory=lambda: uuid4().hex)` the call does not pass: `req.key`
    /// holds the factory's taint. Fields are matched to positional arguments in order.
    /// Whether `value` is a call given a default's factory (`field(default_factory=uuid4)`,
    /// attrs' `field(factory=list)`).
    fn has_factory_keyword(&self, value: &Expr) -> bool {
        matches!(value, Expr::Call(call)
        if call.arguments.keywords.iter().any(|k| k.arg.as_ref().is_some_and(|arg| {
            self.ex.catalog.is_factory_keyword(Sym::new(arg.as_str()))
        })))
    }

    fn factory_fields(&mut self, target: &str, call: &ast::ExprCall) {
        let Expr::Name(class_name) = &*call.func else {
            return;
        };
        // Compared by name first: this runs for every `x = f(...)` in a module with classes.
        let name = class_name.id.as_str();
        let Some(class) = self.ex.classes.iter().find(|c| {
            c.name == name
                && c.attrs.values().any(|value| !value.taint.is_empty())
                && c.qualname == qualify(&self.ex.module, name)
        }) else {
            return;
        };
        let passed = |name: &str| {
            call.arguments
                .keywords
                .iter()
                .any(|k| k.arg.as_ref().is_none_or(|arg| arg.as_str() == name))
        };
        let tainted: Vec<(&'static str, ThinVec<Taint>)> = class
            .attrs
            .iter()
            .enumerate()
            .filter(|(position, (name, value))| {
                !value.taint.is_empty() && *position >= call.arguments.args.len() && !passed(name)
            })
            .map(|(_, (name, value))| (name, value.taint.clone()))
            .collect();
        for (name, taint) in tainted {
            self.set_attr_taint(target, name, &taint);
        }
    }

    /// Whether `dict.<method>(arguments)` may change an entry that carries a key: one named by
    /// a literal (`setdefault("timeout", 10)`, `pop("retries")`, `update(timeout=10)`) only
    /// when a sink takes its key under that name; anything else may.
    fn may_change_key(&self, method: &str, arguments: &ast::Arguments) -> bool {
        let catalog = self.ex.catalog;
        match method {
            // `setdefault("headers", {"Authorization": ...})`: a default with no key in it
            // leaves the key to the caller's headers too.
            "setdefault" if let Some(Expr::Dict(default)) = arguments.args.get(1) => {
                matches!(arguments.args.first(), Some(Expr::StringLiteral(name))
                    if catalog.may_carry_key(name.value.to_str()))
                    && default.items.iter().any(|item| match &item.key {
                        Some(Expr::StringLiteral(key)) => catalog.is_key_header(key.value.to_str()),
                        _ => true,
                    })
            }
            "setdefault" | "pop" => match arguments.args.first() {
                Some(Expr::StringLiteral(name)) => catalog.may_carry_key(name.value.to_str()),
                _ => true,
            },
            "update" => {
                !arguments.args.is_empty()
                    || arguments.keywords.iter().any(|keyword| {
                        keyword
                            .arg
                            .as_ref()
                            .is_none_or(|name| catalog.may_carry_key(name.as_str()))
                    })
            }
            _ => true,
        }
    }

    /// Records a guard in `block`: what follows it there runs only when `test` lets the work
    /// through, and `exit` says how it leaves otherwise.
    fn push_guard(&mut self, block: u32, range: TextRange, test: GuardTest, exit: Exit) {
        self.push_event(
            block,
            EventKind::Guard(Box::new(Guard { range, test, exit })),
        );
    }

    /// Notes that a parameter's object is changed in place ([`Walker::changed_params`]).
    fn param_changed(&mut self, name: &str) {
        let sym = Sym::new(name);
        if self.params.contains_key(&sym) && !self.changed_params.contains(&sym) {
            self.changed_params.push(sym);
        }
    }

    /// A parameter changed in place: as received, it is now updated from itself.
    fn param_mutated(&mut self, name: &str) {
        let sym = Sym::new(name);
        if self
            .local_ref(name, sym)
            .is_some_and(|v| v.flags & Value::PARAM != 0)
            && !self.mutated_params.contains(&sym)
        {
            self.mutated_params.push(sym);
        }
    }

    /// The parameters updated from themselves so far, and where the events stand: taken
    /// before a loop's body, for [`Walker::carry_loop_updates`].
    fn loop_mark(&self) -> Option<(usize, Vec<Sym>)> {
        if self.params.is_empty() {
            return None;
        }
        let updated = self
            .params
            .keys()
            .filter(|p| self.param_updated(**p))
            .copied()
            .collect();
        Some((self.events.len(), updated))
    }

    fn param_updated(&self, param: Sym) -> bool {
        self.mutated_params.contains(&param)
            || self
                .locals
                .get(&param)
                .is_some_and(|v| v.flags & Value::UPDATED != 0)
    }

    /// A parameter updated from itself late in a loop's body (`contact_ids.remove(done)` after
    /// the `self.retry(args=[contact_ids])` in a `try`) is updated, on the next pass, at the
    /// calls before it: they pass it as a new value.
    fn carry_loop_updates(&mut self, mark: Option<(usize, Vec<Sym>)>) {
        let Some((start, before)) = mark else { return };
        let updated: Vec<Sym> = self
            .params
            .keys()
            .filter(|p| !before.contains(p) && self.param_updated(**p))
            .copied()
            .collect();
        if updated.is_empty() {
            return;
        }
        for event in self.events.iter_mut().skip(start) {
            if let EventKind::Call(call) = &mut event.kind
                && let Some(arguments) = call.arguments.as_deref_mut()
            {
                let values = arguments
                    .args
                    .iter_mut()
                    .chain(arguments.keywords.iter_mut().map(|(_, v)| v));
                for value in values {
                    mark_updated(value, &updated);
                }
            }
        }
    }

    /// `name = value` in `block`: the value, plus the sources of the value it replaces when
    /// this assignment may not run after that one (another branch of an `if` or `match`, an
    /// `except` handler, a branch the earlier value was made before).
    fn bind_name(&mut self, name: &str, mut value: Value, block: u32) {
        if self.is_module || self.tainted_at.is_empty() && value.taint.is_empty() {
            self.set_local(name, value);
            return;
        }
        let sym = Sym::new(name);
        let earlier = self.tainted_at.iter().position(|(var, _)| *var == sym);
        if let Some(at) = earlier {
            let (_, old_block) = self.tainted_at.swap_remove(at);
            if !self.replaces(old_block, block)
                && let Some(old) = self.locals.get(&sym)
            {
                let old = old.taint.clone();
                merge_taint(&mut value.taint, &old);
            }
        }
        if !value.taint.is_empty() {
            self.tainted_at.push((sym, block));
        }
        self.set_local(name, value);
    }

    /// Whether an assignment in block `new` runs on every path through an earlier one in
    /// block `old`: `new` is `old` or a block around it, entered through `with` and `try`
    /// bodies only.
    fn replaces(&self, old: u32, new: u32) -> bool {
        let encloses_old = |b: u32| {
            std::iter::successors(Some(old), |x| {
                self.blocks.get(*x as usize).and_then(|blk| blk.parent)
            })
            .any(|x| x == b)
        };
        let mut at = new;
        loop {
            if encloses_old(at) {
                return true;
            }
            let Some(blk) = self.blocks.get(at as usize) else {
                return false;
            };
            match (&blk.kind, blk.parent) {
                (BlockKind::With { .. } | BlockKind::Try { .. }, Some(parent)) => at = parent,
                _ => return false,
            }
        }
    }

    fn set_local(&mut self, name: &str, mut value: Value) {
        // A parameter as received keeps its name under another (`member = member_id`): it is
        // still what the caller passed for it.
        if value.flags & Value::PARAM == 0 {
            value.name = None;
        }
        if !self.rebound.is_empty() && self.rebound.contains(&Sym::new(name)) {
            value = Value::default();
        }
        if self.import_fallback && self.ex.imports.contains_key(&Sym::new(name)) {
            return;
        }
        if !self.attr_taints.is_empty() {
            let sym = Sym::new(name);
            self.attr_taints.retain(|(var, _, _)| *var != sym);
        }
        if !self.client_headers.is_empty() {
            let sym = Sym::new(name);
            self.client_headers.retain(|(var, _)| *var != sym);
        }
        if self.is_module {
            self.ex.module_vars.insert(name.to_string(), value);
        } else {
            self.locals.insert(Sym::new(name), value);
        }
    }

    fn lookup_local(&self, name: &str) -> Option<Value> {
        self.local_ref(name, Sym::new(name)).cloned()
    }

    /// The value bound to a local, parameter or (at module level) module name, with the name
    /// already interned.
    fn local_ref(&self, name: &str, sym: Sym) -> Option<&Value> {
        if self.is_module {
            self.ex.module_vars.get(name)
        } else {
            self.locals.get(&sym).or_else(|| self.params.get(&sym))
        }
    }

    /// Whether `expr` is a name bound only by an import (`settings`, a module, a class), not
    /// by anything the function or its module assigns.
    fn is_imported(&self, expr: &Expr) -> bool {
        let Expr::Name(name) = expr else {
            return false;
        };
        let id = name.id.as_str();
        let sym = Sym::new(id);
        self.local_ref(id, sym).is_none()
            && self.self_name.as_deref() != Some(id)
            && !self.captured.iter().any(|(name, _, _)| *name == sym)
            && !self.ex.module_vars.contains_key(id)
            && !self.ex.top_level.contains(&sym)
            && self.ex.imports.contains_key(&sym)
    }

    // ------------------------------------------------------------------ guards

    fn guard_test(&mut self, test: &Expr, value: &Value) -> Option<GuardTest> {
        match self.bare_test(test) {
            Expr::UnaryOp(unary) if unary.op == UnaryOp::Not => {
                let operand = self.bare_test(&unary.operand);
                let inner = self.pure(operand);
                if let Some(test) = self.marker_test(operand, &inner) {
                    return Some(test);
                }
                // `if not claimed: return`: another run changed the rows first.
                if inner.flags & Value::CLAIM != 0 {
                    return Some(GuardTest::Claim);
                }
                // `if not result.rowcount: return`: the conditional update changed nothing.
                if let Expr::Attribute(attr) = operand
                    && self.ex.catalog.is_count_attribute(attr.attr.as_str())
                {
                    return Some(GuardTest::Claim);
                }
                // `if not x.receipt_pending: return`: a state check, like `!=`.
                match operand {
                    Expr::Attribute(attr) => Some(GuardTest::StateNot {
                        field: Sym::new(attr.attr.as_str()),
                        on_path: true,
                        also: ThinVec::new(),
                    }),
                    Expr::Name(name) => self
                        .row_state(name.id.as_str())
                        .or_else(|| self.helper_test(operand, &inner, true)),
                    // `if not getattr(x, "receipt_pending", False): return`, as `x.receipt_pending`.
                    Expr::Call(call) if let Some(field) = self.getattr_field(call) => {
                        Some(GuardTest::StateNot {
                            field,
                            on_path: true,
                            also: ThinVec::new(),
                        })
                    }
                    // `if not Outbox.objects.filter(pk=pk, status="pending").exists(): return`.
                    Expr::Call(call) => match &*call.func {
                        Expr::Attribute(attr)
                            if self.ex.catalog.orm.exists_methods.has(attr.attr.as_str()) =>
                        {
                            state_test(self.selected_fields(&attr.value), &self.ex.catalog.orm)
                        }
                        // `if not claim_receipt(order_id): return`: a helper that says whether
                        // this run may do the work.
                        _ => self.helper_test(operand, &inner, true),
                    },
                    _ => None,
                }
            }
            Expr::BoolOp(bool_op) if bool_op.op == BoolOp::And => {
                // `if not created and ...:`, `if x.sent and y:`: the first done-check decides.
                bool_op.values.iter().enumerate().find_map(|(at, v)| {
                    let inner = self.pure(v);
                    self.guard_test(v, &inner).map(|test| match test {
                        // `if not created and obj.status == "sent"` checks the row's state
                        // (pending → done); `if not created and not force` still leaves
                        // whenever the row was there, on every run that is not forced.
                        // A test that holds for the state the marker row starts in (`and
                        // obj.status == "pending"`, `!= "sent"`) leaves a retry there too.
                        GuardTest::NotCreated { marker, .. } => GuardTest::NotCreated {
                            marker,
                            compound: bool_op.values.iter().enumerate().any(|(other, v)| {
                                other != at
                                    && !self.is_option_test(v)
                                    && !self.holds_when_created(marker, v)
                            }),
                        },
                        other => other,
                    })
                })
            }
            // `if row is None or row.sent: return`: the first done-check decides; a test of a
            // state the function may not write (`not period.closed`, `status != "ready"`)
            // only when nothing else is one, and a test that may be a helper's answer (`row is
            // None`) only when neither is.
            Expr::BoolOp(bool_op) if bool_op.op == BoolOp::Or => {
                let mut state = None;
                let mut helper = None;
                for v in &bool_op.values {
                    let inner = self.pure(v);
                    match self.guard_test(v, &inner) {
                        Some(test @ GuardTest::Helper { .. }) => {
                            helper.get_or_insert(test);
                        }
                        Some(test @ GuardTest::StateNot { .. }) => {
                            state.get_or_insert(test);
                        }
                        Some(test) => return Some(test),
                        None => {}
                    }
                }
                state.or(helper)
            }
            // Not a setting or a module's constant (`if settings.NOTIFICATIONS_PAUSED:`): the
            // attribute of an imported name says how the code is configured, not whether this
            // work was done.
            Expr::Attribute(attr) if self.is_imported(&attr.value) => None,
            Expr::Attribute(attr) => Some(GuardTest::DoneCheck {
                field: Some(Sym::new(attr.attr.as_str())),
                states: ThinVec::new(),
            }),
            // `if getattr(order, "receipt_sent", False): return`, as `order.receipt_sent`.
            Expr::Call(call) if let Some(field) = self.getattr_field(call) => {
                Some(GuardTest::DoneCheck {
                    field: Some(field),
                    states: ThinVec::new(),
                })
            }
            // `if row["welcome_sent"]: return` on a row a raw cursor fetched as a dict.
            Expr::Subscript(sub) => match &*sub.slice {
                Expr::StringLiteral(key) => Some(GuardTest::DoneCheck {
                    field: Some(Sym::new(key.value.to_str())),
                    states: ThinVec::new(),
                }),
                _ => None,
            },
            // `if r.set(k, 1, nx=True) is None: return`, `if created is False: return`.
            Expr::Compare(compare)
                if let Some((operand, truthy)) = truth_comparison(compare)
                    && let inner = self.pure(operand)
                    && inner.flags & (Value::CREATED | Value::MARKER) != 0 =>
            {
                if truthy {
                    None
                } else {
                    self.marker_test(operand, &inner)
                }
            }
            Expr::Compare(compare) => {
                let positive = compare.ops.iter().all(|op| {
                    matches!(
                        op,
                        CmpOp::Eq | CmpOp::In | CmpOp::Is | CmpOp::IsNot | CmpOp::GtE | CmpOp::Gt
                    )
                });
                let is_none_check = compare.ops.iter().any(|op| matches!(op, CmpOp::Is))
                    && compare
                        .comparators
                        .iter()
                        .any(|c| matches!(c, Expr::NoneLiteral(_)));
                let left = unwalrus(&compare.left);
                // `if result.rowcount != 1: return` (`== 0`, `< 1`): no row changed, another
                // run claimed it first.
                if let Expr::Attribute(attr) = left
                    && self.ex.catalog.is_count_attribute(attr.attr.as_str())
                    && counts_none(compare)
                {
                    return Some(GuardTest::Claim);
                }
                // `if Order.objects.filter(pk=pk, sent=False).update(sent=True) == 0: return`.
                if matches!(left, Expr::Call(_) | Expr::Await(_))
                    && self.pure(left).flags & Value::CLAIM != 0
                {
                    return Some(GuardTest::Claim);
                }
                if let Expr::Name(name) = left {
                    // `row = session.get(Entry, pk)`, then `if row is not None: return`;
                    // `status, phone = cur.fetchone()`, then `if status == "sent": return`.
                    let catalog = self.ex.catalog;
                    let made_by = self
                        .lookup_local(name.id.as_str())
                        .and_then(|local| local.path)
                        .and_then(|path| path.last_name());
                    if let Some(method) = made_by
                        && (matches!(truth_comparison(compare), Some((_, true)))
                            && catalog.is_done_check(method)
                            || positive && !is_none_check && catalog.is_fetch(method))
                    {
                        return Some(GuardTest::DoneCheck {
                            field: None,
                            states: ThinVec::new(),
                        });
                    }
                    // `if claimed == 0: return`.
                    if self
                        .lookup_local(name.id.as_str())
                        .is_some_and(|local| local.flags & Value::CLAIM != 0)
                    {
                        return Some(GuardTest::Claim);
                    }
                    // `if row is None: return` after a query by state; `if loan is None:
                    // return` after `loan = claim_reminder(...)`, a helper's answer.
                    if is_none_check {
                        return self.row_state(name.id.as_str()).or_else(|| {
                            let inner = self.pure(left);
                            self.helper_test(left, &inner, true)
                        });
                    }
                }
                // Not a builtin's answer (`if len(recipients) == 0: return`, `if abs(diff) >
                // 0.005: raise`): nothing to do, or invalid input, not work already done.
                // `getattr(x, "status", None)` reads the field as `x.status` does.
                let read = match left {
                    Expr::Call(call) => self.getattr_field(call),
                    _ => None,
                };
                let builtin = read.is_none()
                    && matches!(left, Expr::Call(call)
                        if matches!(&*call.func, Expr::Name(name) if self.is_builtin_call(name.id.as_str())));
                // `status = reminder.status`, then `if status == Status.SENT: return`: the field.
                let alias = match left {
                    Expr::Name(name) => self.aliased_field(name.id.as_str()),
                    _ => None,
                };
                // `if device.user_id in muted_by: continue`, with `muted_by` a collection the
                // function computed: a filter of the items, not a state that says done. (A
                // literal or constant collection of states, `in DONE_STATES`, is one.)
                let filter = compare.ops.iter().any(|op| matches!(op, CmpOp::In))
                    && compare.comparators.iter().any(|c| {
                        matches!(c, Expr::Name(name)
                            if self.locals.contains_key(&Sym::new(name.id.as_str()))
                                && !matches!(self.pure(c).lit, Lit::Seq(_)))
                    });
                let on_attribute = !builtin
                    && !filter
                    && (alias.is_some()
                        || matches!(
                            left,
                            Expr::Attribute(_) | Expr::Call(_) | Expr::Subscript(_)
                        ));
                // `if x.priority > 1: return`, `if x.refunded >= x.total: return`: an ordering
                // of a field is a done-check only when the function later writes that field,
                // as `!=` below; otherwise it tests a precondition.
                let ordering = compare
                    .ops
                    .iter()
                    .all(|op| matches!(op, CmpOp::Gt | CmpOp::GtE | CmpOp::Lt | CmpOp::LtE));
                let field = match left {
                    Expr::Attribute(attr) => Some(Sym::new(attr.attr.as_str())),
                    _ => read.or(alias),
                };
                if ordering && let Some(field) = field {
                    return Some(GuardTest::StateNot {
                        field,
                        on_path: false,
                        also: ThinVec::new(),
                    });
                }
                if positive && !is_none_check && on_attribute {
                    return Some(GuardTest::DoneCheck {
                        field,
                        states: tested_states(compare),
                    });
                }
                // `if x.status != "pending": return`: a state machine when the function later
                // writes `status`, decided in `finish` once the rest of the body is known.
                let negative = compare
                    .ops
                    .iter()
                    .all(|op| matches!(op, CmpOp::NotEq | CmpOp::NotIn));
                match field {
                    Some(field) if negative => Some(GuardTest::StateNot {
                        field,
                        on_path: false,
                        also: ThinVec::new(),
                    }),
                    _ => None,
                }
            }
            Expr::Call(call) => {
                let method = match &*call.func {
                    Expr::Attribute(attr) => attr.attr.as_str(),
                    Expr::Name(name) => name.id.as_str(),
                    _ => return None,
                };
                // `if any(n.kind == "overdue" for n in invoice.notices.all()): return`: a test
                // of the rows loaded, as `.filter(kind="overdue").exists()` is of the table's.
                if ROW_TESTS.contains(&method)
                    && matches!(&*call.func, Expr::Name(_))
                    && self.is_builtin_call(method)
                {
                    let elt = match &call.arguments.args[..] {
                        [Expr::Generator(generator)] if call.arguments.keywords.is_empty() => {
                            &generator.elt
                        }
                        [Expr::ListComp(list)] if call.arguments.keywords.is_empty() => &list.elt,
                        _ => return None,
                    };
                    let inner = self.pure(elt);
                    return match self.guard_test(elt, &inner)? {
                        GuardTest::DoneCheck { .. } => Some(GuardTest::DoneCheck {
                            field: None,
                            states: ThinVec::new(),
                        }),
                        _ => None,
                    };
                }
                if self.ex.catalog.is_done_check(method) {
                    return Some(GuardTest::DoneCheck {
                        field: None,
                        states: ThinVec::new(),
                    });
                }
                // `if await already_sent(...)`: the call itself.
                self.helper_test(self.bare_test(test), value, false)
            }
            Expr::Name(name) => {
                // `already = order.status == "sent"`, then `if already: return`.
                if !self.local_tests.is_empty() {
                    let sym = Sym::new(name.id.as_str());
                    if let Some((_, test)) = self.local_tests.iter().find(|(l, _)| *l == sym) {
                        return Some(test.clone());
                    }
                }
                let local = self.lookup_local(name.id.as_str())?;
                // `if created: return` leaves when the work is new, not when it is done.
                if local.flags & (Value::CREATED | Value::MARKER) != 0 {
                    return None;
                }
                let method = local.path.as_ref()?.last_name()?;
                if self.ex.catalog.is_done_check(method) {
                    Some(GuardTest::DoneCheck {
                        field: None,
                        states: ThinVec::new(),
                    })
                } else if let Some(field) = self.aliased_field(name.id.as_str()) {
                    // `sent = order.receipt_sent`, then `if sent: return`, as
                    // `if order.receipt_sent: return`.
                    Some(GuardTest::DoneCheck {
                        field: Some(field),
                        states: ThinVec::new(),
                    })
                } else {
                    self.helper_test(unwalrus(test), value, false)
                }
            }
            _ => None,
        }
    }

    /// A test of what a function called returned (`helper(...)`, or a local holding it): a
    /// done-guard if the project's helper says so ([`GuardTest::Helper`]). Not a builtin's
    /// (`isinstance(...)`), nor a local that holds anything else.
    fn helper_test(&mut self, test: &Expr, value: &Value, negated: bool) -> Option<GuardTest> {
        let path = match test {
            Expr::Call(call) => {
                if let Expr::Name(name) = &*call.func
                    && self.is_builtin_call(name.id.as_str())
                {
                    return None;
                }
                value.path.clone()?
            }
            Expr::Name(name) => {
                let local = self.lookup_local(name.id.as_str())?;
                if local.flags & (Value::CREATED | Value::MARKER | Value::CLAIM) != 0 {
                    return None;
                }
                local.path.filter(QPath::is_call)?
            }
            _ => return None,
        };
        Some(GuardTest::Helper { path, negated })
    }

    /// The field a local holds a copy of (`status = reminder.status`): a test of the local is
    /// a test of that field.
    fn aliased_field(&self, name: &str) -> Option<Sym> {
        let local = self.lookup_local(name)?;
        if local.flags & (Value::CREATED | Value::MARKER | Value::CLAIM | Value::PARAM) != 0 {
            return None;
        }
        let segs = local.path.as_ref()?.segs();
        let last = segs.last()?;
        (segs.len() >= 2 && last.call == Call::No).then_some(last.name)
    }

    /// The state a row held in `name` was selected by, as a guard on that field: decided like
    /// `if row.status != "pending": return` once the rest of the body is known.
    /// Whether `expr` tests only the function's parameters against constants (`not force`,
    /// `mode == "full"`): an option of the call, not the state of anything.
    fn is_option_test(&self, expr: &Expr) -> bool {
        let is_param = |expr: &Expr| matches!(expr, Expr::Name(name) if self.params.contains_key(&Sym::new(name.id.as_str())));
        match expr {
            Expr::UnaryOp(unary) if unary.op == ast::UnaryOp::Not => {
                self.is_option_test(&unary.operand)
            }
            Expr::Compare(compare) => {
                is_param(&compare.left) && compare.comparators.iter().all(Expr::is_literal_expr)
            }
            other => is_param(other),
        }
    }

    /// Whether `test` is true of a row as the `get_or_create` at `marker` creates it: a field
    /// compared with the value the call gives it (`status == "pending"`, `status != "sent"`
    /// when it starts `"pending"`), or a flag it sets (`obj.queued` after `queued=True`).
    fn holds_when_created(&self, marker: TextRange, test: &Expr) -> bool {
        let Some((_, fields)) = self.created_with.iter().find(|(at, _)| *at == marker) else {
            return false;
        };
        let initial = |attr: &ast::ExprAttribute| {
            let field = Sym::new(attr.attr.as_str());
            fields
                .iter()
                .find(|(name, _)| *name == field)
                .map(|(_, lit)| lit)
        };
        let (negated, test) = match test {
            Expr::UnaryOp(unary) if unary.op == UnaryOp::Not => (true, &*unary.operand),
            other => (false, other),
        };
        match test {
            Expr::Attribute(attr) => {
                matches!(initial(attr), Some(Written::Bool(set)) if *set != negated)
            }
            Expr::Compare(compare) if !negated => {
                let (Expr::Attribute(attr), [op], [right]) =
                    (&*compare.left, &compare.ops[..], &compare.comparators[..])
                else {
                    return false;
                };
                let Some(start) = initial(attr) else {
                    return false;
                };
                let values: Vec<Written> = match right {
                    Expr::Tuple(ast::ExprTuple { elts, .. })
                    | Expr::List(ast::ExprList { elts, .. })
                    | Expr::Set(ast::ExprSet { elts, .. })
                        if matches!(op, CmpOp::In | CmpOp::NotIn) =>
                    {
                        elts.iter().map(Written::of).collect()
                    }
                    _ if matches!(op, CmpOp::Eq | CmpOp::NotEq) => vec![Written::of(right)],
                    _ => return false,
                };
                if values.iter().any(|v| matches!(v, Written::Unknown)) {
                    return false;
                }
                let found = values.contains(start);
                match op {
                    CmpOp::Eq | CmpOp::In => found,
                    _ => !found,
                }
            }
            _ => false,
        }
    }

    /// Records the literal field values a `get_or_create` call at `at` gives a row it creates:
    /// its lookup keywords and the entries of its `defaults`.
    #[inline(never)]
    fn note_created_with(&mut self, at: TextRange, keywords: &[(Sym, Value)]) {
        let mut fields: Vec<(Sym, Written)> = Vec::new();
        for (name, value) in keywords {
            if name.as_str() == "defaults" {
                if let Lit::Dict(items) = &value.lit {
                    fields.extend(items.iter().filter_map(|(key, item)| {
                        let written = Written::from_value(item);
                        key.filter(|_| written != Written::Unknown)
                            .map(|key| (key, written))
                    }));
                }
            } else {
                let written = Written::from_value(value);
                if written != Written::Unknown {
                    fields.push((*name, written));
                }
            }
        }
        if !fields.is_empty() && self.created_with.len() < MAX_ITEMS {
            self.created_with.push((at, fields));
        }
    }

    fn row_state(&self, name: &str) -> Option<GuardTest> {
        let name = Sym::new(name);
        self.row_states
            .iter()
            .rev()
            .find(|(local, _)| *local == name)
            .map(|(_, test)| test.clone())
    }

    /// Records, for `row = <queryset>.first()` and the like, the fields the query selects the
    /// row's state by: the keywords of its `filter`s that are not keys (`pk`, `id`, `*_id`),
    /// as the test of a row found. Any other assignment to the name forgets it.
    fn note_row_state(&mut self, targets: &[Expr], value: &Expr) {
        let test = match unwalrus(value) {
            Expr::Call(call) => match &*call.func {
                Expr::Attribute(attr)
                    if self
                        .ex
                        .catalog
                        .orm
                        .row_methods
                        .iter()
                        .any(|m| m == attr.attr.as_str()) =>
                {
                    state_test(self.selected_fields(&attr.value), &self.ex.catalog.orm)
                }
                _ => None,
            },
            _ => None,
        };
        self.put_row_state(targets, test);
    }

    /// Records, for `already = order.status == "sent"`, the done-check the comparison is; any
    /// other assignment to the name forgets it.
    fn note_local_test(&mut self, targets: &[Expr], value: &Expr) {
        let test = match value {
            Expr::Compare(_) if !self.is_module => {
                let inner = self.pure(value);
                self.guard_test(value, &inner)
                    .filter(|test| matches!(test, GuardTest::DoneCheck { .. }))
            }
            _ => None,
        };
        rebind_tests(&mut self.local_tests, targets, test);
    }

    /// Binds `targets` to a row selected as `test` says, or forgets their row state.
    fn put_row_state(&mut self, targets: &[Expr], test: Option<GuardTest>) {
        rebind_tests(&mut self.row_states, targets, test);
    }

    /// Records, for `q = <manager>.filter(...)` (a queryset method last), the fields the
    /// queryset selects by, those of a queryset it refines (`q = q.filter(...)`) among them.
    /// Any other assignment to the name forgets it.
    fn note_queryset(&mut self, targets: &[Expr], value: &Expr) {
        let orm = &self.ex.catalog.orm;
        let fields: Option<Vec<Sym>> = match unwalrus(value) {
            Expr::Call(call) => match &*call.func {
                Expr::Attribute(attr) if orm.queryset_methods.has(attr.attr.as_str()) => Some(
                    self.selected_fields(unwalrus(value))
                        .into_iter()
                        .map(Sym::new)
                        .collect(),
                ),
                _ => None,
            },
            _ => None,
        };
        let fields = fields.filter(|f| !f.is_empty());
        if fields.is_none() && self.querysets.is_empty() {
            return;
        }
        for target in targets {
            let Expr::Name(name) = target else { continue };
            let sym = Sym::new(name.id.as_str());
            self.querysets.retain(|(local, _)| *local != sym);
            if let Some(fields) = &fields {
                self.querysets.push((sym, fields.clone()));
            }
        }
    }

    /// The fields a queryset expression selects by (`Model.objects.filter(pk=pk,
    /// sent=False)`: `pk`, `sent`), with those of the queryset a local holds when the chain
    /// starts from one (`q.filter(...)`, `q`).
    /// The state a loop's queryset selects its rows by, as the guard of each pass.
    #[inline(never)]
    fn loop_state_test(&self, iter: &Expr) -> Option<GuardTest> {
        state_test(self.selected_fields(iter), &self.ex.catalog.orm)
    }

    fn selected_fields<'a>(&self, expr: &'a Expr) -> Vec<&'a str> {
        let mut fields = queryset_fields(expr, &self.ex.catalog.orm);
        if self.querysets.is_empty() {
            return fields;
        }
        let mut root = expr;
        loop {
            root = match root {
                Expr::Call(call) => &call.func,
                Expr::Attribute(attr) => &attr.value,
                _ => break,
            };
        }
        if let Expr::Name(name) = root {
            let sym = Sym::new(name.id.as_str());
            if let Some((_, held)) = self.querysets.iter().rev().find(|(local, _)| *local == sym) {
                fields.extend(held.iter().map(|f| f.as_str()));
            }
        }
        fields
    }

    /// Where a marker tested by `expr` was made: the call itself (at `range`), or the call a
    /// name was bound to.
    /// The test a `created` flag or a set-if-absent result (`value`, read from `expr`) makes
    /// when it is false: this run did not create the row or take the key.
    fn marker_test(&self, expr: &Expr, value: &Value) -> Option<GuardTest> {
        let marker = self.marker_range(expr, value.range);
        // `row = cur.fetchone()` after `cur.execute("INSERT ... RETURNING id")`: the insert.
        let marker = self
            .insert_claims
            .iter()
            .find(|(at, _)| *at == marker)
            .map_or(marker, |(_, insert)| *insert);
        if value.flags & Value::CREATED != 0 {
            Some(GuardTest::NotCreated {
                marker,
                compound: false,
            })
        } else if value.flags & Value::MARKER != 0 {
            Some(GuardTest::NotMarker { marker })
        } else {
            None
        }
    }

    fn marker_range(&self, expr: &Expr, range: TextRange) -> TextRange {
        match expr {
            Expr::Name(name) => self
                .lookup_local(name.id.as_str())
                .map_or(range, |v| v.range),
            _ => range,
        }
    }

    /// Whether a bare call of `name` is a builtin's: not bound in the module or the function.
    /// A test with what does not change its truth taken off: `(ok := x)`, `await x` (the
    /// answer awaited) and the builtin `bool(x)` are tested as `x` is.
    fn bare_test<'x>(&self, mut expr: &'x Expr) -> &'x Expr {
        loop {
            expr = match expr {
                Expr::Named(named) => &named.value,
                Expr::Await(awaited) => &awaited.value,
                Expr::Call(call)
                    if let Expr::Name(name) = &*call.func
                        && name.id.as_str() == "bool"
                        && let [arg] = &call.arguments.args[..]
                        && call.arguments.keywords.is_empty()
                        && self.is_builtin_call("bool") =>
                {
                    arg
                }
                _ => return expr,
            };
        }
    }

    /// The field `getattr(x, "field")` or `getattr(x, "field", default)` reads, when
    /// `getattr` is the builtin.
    fn getattr_field(&self, call: &ast::ExprCall) -> Option<Sym> {
        let Expr::Name(name) = &*call.func else {
            return None;
        };
        if name.id.as_str() != "getattr" || !call.arguments.keywords.is_empty() {
            return None;
        }
        match &call.arguments.args[..] {
            [_, Expr::StringLiteral(field)] | [_, Expr::StringLiteral(field), _]
                if self.is_builtin_call("getattr") =>
            {
                Some(Sym::new(field.value.to_str()))
            }
            _ => None,
        }
    }

    fn is_builtin_call(&self, name: &str) -> bool {
        let sym = Sym::new(name);
        !self.locals.contains_key(&sym)
            && !self.ex.top_level.contains(&sym)
            && !self.ex.imports.contains_key(&sym)
            && self.ex.catalog.is_pure_call(true, sym)
    }

    /// The guard an `if` forms around its body when its test is a done-check's negation:
    /// `if not x.sent:`, `if created:`, `if redis.set(k, v, nx=True):`, `if x.status ==
    /// "pending":` (a state check, decided like `if x.status != "pending": return`).
    fn negated_guard_test(&mut self, test: &Expr, value: &Value) -> Option<GuardTest> {
        match self.bare_test(test) {
            Expr::UnaryOp(unary) if unary.op == UnaryOp::Not => {
                let operand = self.bare_test(&unary.operand);
                let inner = self.pure(operand);
                if inner.flags & (Value::CREATED | Value::MARKER) != 0 {
                    return None;
                }
                match operand {
                    // `if not x.notified: send(...); x.notified = True`: a done flag when the
                    // guarded code writes it.
                    Expr::Attribute(attr) => Some(GuardTest::StateNot {
                        field: Sym::new(attr.attr.as_str()),
                        on_path: true,
                        also: ThinVec::new(),
                    }),
                    // `if not Model.objects.filter(...).exists():`; a `get` is too often a
                    // dict's to stand for `cache.get` here. `if not is_sent(order):` is the
                    // helper's test.
                    Expr::Call(call) if matches!(&*call.func, Expr::Attribute(a) if a.attr.as_str() != "get") => {
                        self.guard_test(&unary.operand, &inner).filter(|test| {
                            matches!(test, GuardTest::DoneCheck { .. } | GuardTest::Helper { .. })
                        })
                    }
                    Expr::Call(_) => self.helper_test(operand, &inner, false),
                    _ => None,
                }
            }
            Expr::BoolOp(bool_op) if bool_op.op == BoolOp::And => {
                bool_op.values.iter().find_map(|v| {
                    let inner = self.pure(v);
                    self.negated_guard_test(v, &inner)
                })
            }
            // `if r.set(k, 1, nx=True) is not None:`, `if created is True:`.
            Expr::Compare(compare)
                if let Some((operand, truthy)) = truth_comparison(compare)
                    && let inner = self.pure(operand)
                    && inner.flags & (Value::CREATED | Value::MARKER) != 0 =>
            {
                if truthy {
                    self.marker_test(operand, &inner)
                } else {
                    None
                }
            }
            // `if claimed > 0:`, `if Trip.objects.filter(pk=pk, mailed=False).update(...) == 1:`:
            // the body runs only in the run that claimed the work.
            Expr::Compare(compare)
                if claimed_count(compare)
                    && self.pure(unwalrus(&compare.left)).flags & Value::CLAIM != 0 =>
            {
                Some(GuardTest::Claim)
            }
            Expr::Compare(compare)
                if compare
                    .ops
                    .iter()
                    .all(|op| matches!(op, CmpOp::Eq | CmpOp::In)) =>
            {
                match &*compare.left {
                    Expr::Attribute(attr) => Some(GuardTest::StateNot {
                        field: Sym::new(attr.attr.as_str()),
                        on_path: true,
                        also: ThinVec::new(),
                    }),
                    _ => None,
                }
            }
            Expr::Attribute(attr) => Some(GuardTest::StateNot {
                field: Sym::new(attr.attr.as_str()),
                on_path: true,
                also: ThinVec::new(),
            }),
            // `if Trip.objects.filter(pk=pk, mailed=False).update(mailed=True):`, `if claimed:`.
            _ if value.flags & Value::CLAIM != 0 => Some(GuardTest::Claim),
            _ => self
                .marker_test(test, value)
                // `if claim_receipt(order_id): send(...)`.
                .or_else(|| self.helper_test(test, value, true)),
        }
    }

    // ------------------------------------------------------------------ expressions

    /// Evaluates without producing events (decorators, class attributes, guard tests).
    fn pure(&mut self, expr: &Expr) -> Value {
        let emit = std::mem::replace(&mut self.emit, false);
        let value = self.expr(expr, 0);
        self.emit = emit;
        value
    }

    fn pure_in(&mut self, expr: &Expr, block: u32) -> Value {
        let emit = std::mem::replace(&mut self.emit, false);
        let value = self.expr(expr, block);
        self.emit = emit;
        value
    }

    /// Evaluates a class-level value, keeping the arguments of its calls.
    fn class_value(&mut self, expr: &Expr) -> Value {
        let class_body = std::mem::replace(&mut self.class_body, true);
        let value = self.pure_in(expr, 0);
        self.class_body = class_body;
        value
    }

    /// Whether `block` is `ancestor` or inside it, in the blocks built so far.
    fn blocks_within(&self, block: u32, ancestor: u32) -> bool {
        let mut current = Some(block);
        while let Some(b) = current {
            if b == ancestor {
                return true;
            }
            current = self.blocks.get(b as usize).and_then(|blk| blk.parent);
        }
        false
    }

    /// Evaluates an expression: records the calls in it as events (in evaluation order) and
    /// returns what the analysis knows of its value.
    fn expr(&mut self, expr: &Expr, block: u32) -> Value {
        let range = expr.range();
        let mut value = match expr {
            Expr::StringLiteral(s) => {
                let text = s.value.to_str();
                if let Some(table) = deleted_table(text) {
                    self.ex.deleted_tables.push(table);
                }
                let text = text.get(..MAX_STRING).unwrap_or(text);
                Value {
                    lit: Lit::Str(text.into()),
                    ..Value::default()
                }
            }
            Expr::NumberLiteral(n) => Value {
                lit: match &n.value {
                    Number::Int(i) => i.as_i64().map_or(Lit::Other, Lit::Int),
                    Number::Float(f) => Lit::Float(*f),
                    Number::Complex { .. } => Lit::Other,
                },
                ..Value::default()
            },
            Expr::BooleanLiteral(b) => Value {
                lit: Lit::Bool(b.value),
                ..Value::default()
            },
            Expr::NoneLiteral(_) => Value {
                lit: Lit::None,
                ..Value::default()
            },
            Expr::Name(name) => self.name(name.id.as_str()),
            Expr::Attribute(attr) => self.attribute(attr, block),
            Expr::Call(call) => {
                let mut value = self.call(call, block);
                if let Some(lit) = self.caller_keyword(call) {
                    value.lit = lit;
                }
                value
            }
            Expr::FString(fstring) => {
                // A text: the literal text before the first interpolation when it names a URL's
                // scheme (`f"redis://{host}"`), the one thing read from it; otherwise none.
                let mut value = Value {
                    lit: Lit::Prefix("".into()),
                    ..Value::default()
                };
                if let Some(InterpolatedStringElement::Literal(start)) =
                    fstring.value.elements().next()
                    && is_url_start(start)
                {
                    value.lit = Lit::Prefix((&**start).into());
                } else if let Some(sql) = statement_template(fstring) {
                    value.lit = Lit::Prefix(sql);
                }
                let mut before = String::new();
                // `f"settle-{ref}"` of one parameter: made from what the caller gives for it.
                let mut param: Option<Option<Sym>> = None;
                let elements: Vec<&InterpolatedStringElement> = fstring.value.elements().collect();
                for (i, element) in elements.iter().enumerate() {
                    if let InterpolatedStringElement::Literal(text) = element {
                        if before.len() < MAX_STRING {
                            before.push_str(text);
                        }
                    } else if let InterpolatedStringElement::Interpolation(interp) = element {
                        let inner = self.expr(&interp.expression, block);
                        // `f"DELETE FROM {Model._meta.db_table} ..."`: the model's rows; not
                        // `{...db_table}_archive`, another table.
                        let after = match elements.get(i + 1) {
                            Some(InterpolatedStringElement::Literal(text)) => text.chars().next(),
                            _ => None,
                        };
                        if ends_with_delete_from(&before)
                            && after.is_none_or(|c| !is_identifier_char(c))
                            && let Some(model) = inner
                                .path
                                .as_ref()
                                .and_then(|p| self.ex.catalog.table_owner(p))
                        {
                            self.ex.deleted_models.push(model);
                        }
                        before.clear();
                        param = match param {
                            None if inner.flags & Value::PARAM != 0 => Some(inner.name),
                            _ => Some(None),
                        };
                        add_param_part(&mut value, &inner);
                        // `f"{REDIS_URL}/0"` with the module's constant URL: its start.
                        if i == 0
                            && let Lit::Str(start) | Lit::Prefix(start) = &inner.lit
                            && is_url_start(start)
                        {
                            value.lit = Lit::Prefix(start.clone());
                        }
                        merge_taint(&mut value.taint, &inner.taint);
                    }
                }
                if let Some(Some(name)) = param {
                    value.name = Some(name);
                    value.flags |= Value::PARAM;
                }
                drop_alone_param(&mut value);
                value
            }
            Expr::BinOp(bin) => {
                let left = self.expr(&bin.left, block);
                let right = self.expr(&bin.right, block);
                let mut value = Value::default();
                let numbers = left.as_f64().is_some() && right.as_f64().is_some();
                if numbers {
                    // Python's arithmetic: `3600 / 2` is a float, `2 ** 10` an integer.
                    if let Some(lit) =
                        arith_op(bin.op).and_then(|op| op.apply(&left.lit, &right.lit))
                    {
                        value.lit = lit;
                    }
                } else if let (Lit::Str(a), Lit::Str(b), Operator::Add) =
                    (&left.lit, &right.lit, bin.op)
                {
                    value.lit = Lit::Str(format!("{a}{b}").into());
                } else if let (Lit::Seq(a), Lit::Seq(b), Operator::Add, true) = (
                    &left.lit,
                    &right.lit,
                    bin.op,
                    self.is_module || self.class_body,
                ) {
                    // `COMMON_FUNCTIONS + [email_statement]`: both lists' items (in a module or
                    // class body, where registries are; in functions, lists built this way are
                    // commands and batches, whose copies would only cost memory).
                    let mut items: Vec<Value> =
                        a.iter().chain(b).take(MAX_ITEMS).cloned().collect();
                    items.shrink_to_fit();
                    value.lit = Lit::Seq(items);
                } else if let (Lit::Str(a) | Lit::Prefix(a), Operator::Add | Operator::Mod) =
                    (&left.lit, bin.op)
                {
                    // `"redis://" + host`: only the start is known, and kept for a URL's
                    // scheme; `"\n" + line`, `"%s" % x`: a text.
                    // `"DELETE FROM %s" % Model._meta.db_table`: the model's rows.
                    if bin.op == Operator::Mod
                        && ends_with_delete_from(a.split("%s").next().unwrap_or_default())
                        && let Some(model) = right
                            .path
                            .as_ref()
                            .and_then(|p| self.ex.catalog.table_owner(p))
                    {
                        self.ex.deleted_models.push(model);
                    }
                    let start = if bin.op == Operator::Add && is_url_start(a) {
                        a.clone()
                    } else {
                        "".into()
                    };
                    value.lit = Lit::Prefix(start);
                } else if let Some(op) = arith_op(bin.op)
                    && is_arith_operand(&left)
                    && is_arith_operand(&right)
                {
                    // `3 * HOUR` with `HOUR` imported: kept for the project to evaluate.
                    value.lit = Lit::Arith(Box::new(Arith {
                        op,
                        left: arith_operand(&left),
                        right: arith_operand(&right),
                    }));
                }
                // `timezone.now() + timedelta(hours=3)`: a time 3 hours ahead.
                if bin.op == Operator::Add
                    && let Some(lit) = self
                        .time_ahead(&left, &right)
                        .or_else(|| self.time_ahead(&right, &left))
                {
                    value.lit = lit;
                }
                // `"settle-" + ref`, `"settle-%s" % ref`: a text made from the parameter.
                if matches!(bin.op, Operator::Add | Operator::Mod) {
                    let written = |v: &Value| {
                        v.flags & Value::PARAM == 0 && matches!(v.lit, Lit::Str(_) | Lit::Prefix(_))
                    };
                    text_of_param(&mut value, &left, written(&right));
                    text_of_param(&mut value, &right, written(&left));
                    // `"settle-%s" % (ref,)`.
                    if let (Operator::Mod, Lit::Seq(items)) = (bin.op, &right.lit)
                        && let [item] = &items[..]
                    {
                        text_of_param(&mut value, item, written(&left));
                    }
                    // `"refund-%s-%s" % (order_id, attempt)`, `prefix + attempt`: texts made
                    // of several parts, parameters among them.
                    if written(&left) || written(&right) || value.is_text() {
                        add_param_part(&mut value, &left);
                        add_param_part(&mut value, &right);
                        if let (Operator::Mod, Lit::Seq(items)) = (bin.op, &right.lit) {
                            for item in items {
                                add_param_part(&mut value, item);
                            }
                        }
                        drop_alone_param(&mut value);
                    }
                }
                merge_taint(&mut value.taint, &left.taint);
                merge_taint(&mut value.taint, &right.taint);
                let catalog = self.ex.catalog;
                // `a.si(x) | b.si(x)`: a chain, sent as its first task is when it is started
                // (`(a.si(x) | b.si(x)).delay()` enqueues `a`).
                if bin.op == Operator::BitOr {
                    let signature = |v: &Value| {
                        v.path.as_ref().is_some_and(|p| {
                            p.is_call()
                                && p.last_name()
                                    .is_some_and(|m| catalog.is_signature_method(m))
                        })
                    };
                    if signature(&left) {
                        value.path = left.path.clone();
                    } else if signature(&right) {
                        value.path = right.path.clone();
                    } else if left.dict().is_some() || right.dict().is_some() {
                        // `auth_headers() | {"Idempotency-Key": key}`: `{**left, **right}`.
                        let mut items: Vec<DictItem> = Vec::new();
                        for side in [&left, &right] {
                            match side.dict() {
                                Some(entries) => {
                                    for (key, entry) in entries {
                                        put_entry(&mut items, *key, entry.clone());
                                    }
                                }
                                None => items.push((None, side.clone())),
                            }
                        }
                        value.lit = Lit::Dict(items);
                    }
                }
                let is_stored =
                    |v: &Value| v.path.as_ref().is_some_and(|p| catalog.is_stored_value(p));
                if matches!(bin.op, Operator::Add | Operator::Sub) {
                    for operand in [&left, &right] {
                        if is_stored(operand) {
                            value.flags |= Value::ACCUMULATES;
                            let field = operand.path.as_ref().and_then(|p| match p.0.last() {
                                Some(Seg {
                                    call: Call::Str(field),
                                    ..
                                }) => Some(*field),
                                _ => None,
                            });
                            self.stored_reads.push(field);
                        }
                    }
                }
                value
            }
            Expr::UnaryOp(unary) => {
                let operand = self.expr(&unary.operand, block);
                let lit = match (unary.op, &operand.lit) {
                    (UnaryOp::USub, Lit::Int(i)) => i.checked_neg().map_or(Lit::Other, Lit::Int),
                    (UnaryOp::USub, Lit::Float(f)) => Lit::Float(-f),
                    (UnaryOp::Not, Lit::Bool(b)) => Lit::Bool(!b),
                    _ => Lit::Other,
                };
                Value {
                    lit,
                    taint: operand.taint,
                    ..Value::default()
                }
            }
            Expr::Dict(dict) => {
                let mut items = Vec::new();
                let mut taint = ThinVec::new();
                for item in &dict.items {
                    let mut value = self.expr(&item.value, block);
                    merge_taint(&mut taint, &value.taint);
                    match &item.key {
                        Some(key) => {
                            value.set_label(key.range().start());
                            let key_value = self.expr(key, block);
                            if items.len() < MAX_ITEMS {
                                items.push((key_value.as_str().map(Sym::new), value));
                            }
                        }
                        // `{**base, ...}`: the entries of a known dict are part of this one.
                        None => match value.lit {
                            Lit::Dict(inner) => items.extend(inner),
                            _ => items.push((None, value)),
                        },
                    }
                }
                Value {
                    lit: Lit::Dict(items),
                    taint,
                    ..Value::default()
                }
            }
            Expr::List(ast::ExprList { elts, .. })
            | Expr::Tuple(ast::ExprTuple { elts, .. })
            | Expr::Set(ast::ExprSet { elts, .. }) => {
                let mut items: Vec<Value> = Vec::with_capacity(elts.len());
                for elt in elts {
                    let item = self.expr(elt, block);
                    // `[*SHARED, ping]`: the items of a known sequence, in its place.
                    match (elt, item.lit) {
                        (Expr::Starred(_), Lit::Seq(inner)) => items.extend(inner),
                        (_, lit) => items.push(Value { lit, ..item }),
                    }
                }
                let mut taint = ThinVec::new();
                for item in &items {
                    merge_taint(&mut taint, &item.taint);
                }
                items.truncate(MAX_ITEMS);
                Value {
                    lit: Lit::Seq(items),
                    taint,
                    ..Value::default()
                }
            }
            // The awaited call's value, with its range: a marker is known by its call's range.
            Expr::Await(await_expr) => return self.expr(&await_expr.value, block),
            Expr::Named(named) => {
                let value = self.expr(&named.value, block);
                self.bind(&named.target, &value, block);
                value
            }
            Expr::Subscript(sub) => {
                let base = self.expr(&sub.value, block);
                let index = self.expr(&sub.slice, block);
                let mut value = match (&base.lit, index.as_str(), index.as_int()) {
                    (Lit::Dict(_), Some(key), _) => base.dict_get(key).cloned().unwrap_or_default(),
                    (Lit::Seq(items), _, Some(i)) => usize::try_from(i)
                        .ok()
                        .and_then(|i| items.get(i))
                        .cloned()
                        .unwrap_or_default(),
                    // `entries[start:start + 10]`, an SQS batch cut to its limit: items of the
                    // same kind (each with its `MessageDeduplicationId`).
                    (Lit::Seq(_), _, _) if sub.slice.is_slice_expr() => Value {
                        lit: base.lit.clone(),
                        path: base.path.clone(),
                        ..Value::default()
                    },
                    // An item of a registry of clients (`caches["default"]`) is reached
                    // through it: the path stays the registry's. An item of a queryset is a
                    // row, as in a loop; a slice of it is a queryset.
                    _ => Value {
                        path: match &*sub.slice {
                            Expr::Slice(_) => base.path.clone(),
                            _ => base.path.as_ref().and_then(|path| {
                                row_of_queryset(path, &self.ex.catalog.orm)
                                    .or_else(|| Some(path.clone()))
                            }),
                        },
                        ..Value::default()
                    },
                };
                // `ctx["http"]` where a function of the module put a client there.
                if let Expr::Name(holder) = &*sub.value
                    && let Some(key) = index.as_str()
                    && base.flags & Value::PARAM != 0
                    && !self.ex.context_items.is_empty()
                    && let Some((_, _, made)) = self
                        .ex
                        .context_items
                        .iter()
                        .find(|(c, k, _)| c.as_str() == holder.id.as_str() && k.as_str() == key)
                {
                    // Read without the items: `ctx["x"] = wrap(ctx["x"])` names itself.
                    let made = made.clone();
                    let items = std::mem::take(&mut self.ex.context_items);
                    value.path = self.pure(&made).path;
                    self.ex.context_items = items;
                }
                // `Model.objects.get_or_create(...)[1]`: the `created` flag, as unpacked.
                if let Some(i) = index.as_int().and_then(|i| usize::try_from(i).ok())
                    && self.is_get_or_create(&base)
                {
                    get_or_create_item(&base, i, &mut value);
                }
                merge_item_taint(&mut value.taint, &base, &index);
                merge_taint(&mut value.taint, &index.taint);
                // Delivery metadata read by key: arq's `ctx["job_try"]`, Dramatiq's
                // `message.options["retries"]` (the catalog writes them `__getitem__(key)`).
                if let (Some(key), Some(path)) = (index.as_str(), &base.path)
                    && self.ex.catalog.is_metadata_key(key)
                {
                    let mut item = path.clone();
                    item.0.push(Seg {
                        name: Sym::new("__getitem__"),
                        call: Call::Str(Sym::new(key)),
                    });
                    if let Some(index) = self.ex.catalog.metadata_index(&item) {
                        value.taint.push(Taint::Meta {
                            range: sub.range,
                            index: u32::try_from(index).unwrap_or(u32::MAX),
                        });
                        value.taint.truncate(MAX_TAINT);
                    }
                }
                value
            }
            Expr::BoolOp(bool_op) => {
                let mut value = Value::default();
                let mut parameter = None;
                // Whether the path so far only names an untyped parameter (`repository`).
                let mut untyped = false;
                for (i, v) in bool_op.values.iter().enumerate() {
                    let inner = self.expr(v, block);
                    merge_taint(&mut value.taint, &inner.taint);
                    // `repository or WalletRepository()`: what the default is, when the
                    // parameter's type is not known.
                    if value.path.is_none() || untyped && inner.path.is_some() {
                        untyped = inner.flags & Value::PARAM != 0
                            && matches!(v, Expr::Name(_))
                            && inner.path.as_ref().is_some_and(|p| p.0.len() == 1);
                        value.path = inner.path;
                    }
                    // `kwargs.get("headers") or {}`: the caller's headers, or none.
                    if i == 0 && matches!(inner.lit, Lit::CallerKeyword(..)) {
                        value.lit = inner.lit;
                    }
                    if i == 0 && inner.flags & Value::PARAM != 0 && inner.taint.is_empty() {
                        parameter = inner.name;
                    }
                }
                let adds_nothing = |v: &Expr| match v {
                    Expr::Dict(dict) => dict.items.is_empty(),
                    Expr::NoneLiteral(_) => true,
                    _ => false,
                };
                if bool_op.op != BoolOp::Or || !bool_op.values.iter().skip(1).all(adds_nothing) {
                    value.lit = Lit::Other;
                } else if let Some(name) = parameter {
                    // `headers or {}`: the parameter as the caller gave it, or nothing.
                    value.flags |= Value::PARAM;
                    value.name = Some(name);
                }
                value
            }
            Expr::If(if_expr) => {
                let test = self.expr(&if_expr.test, block);
                // `sms(...) if user.prefers_sms else mail(...)`: one branch runs, as with an
                // `if` statement. Only calls need branches of their own; a value of either
                // branch stays in `block`.
                let called = |e: &Expr| match e {
                    Expr::Call(_) => true,
                    Expr::Await(awaited) => matches!(&*awaited.value, Expr::Call(_)),
                    _ => false,
                };
                let branches = called(&if_expr.body) || called(&if_expr.orelse);
                let if_id = if branches {
                    self.next_if += 1;
                    self.next_if
                } else {
                    0
                };
                let branch = |walker: &mut Self, index| {
                    if !branches {
                        return block;
                    }
                    walker.push_block(
                        block,
                        BlockKind::Branch {
                            if_id,
                            index,
                            leaves: false,
                            exhaustive: true,
                            on_param: None,
                            ends: Ends::Falls,
                        },
                    )
                };
                let body_block = branch(self, 0);
                let body = self.expr(&if_expr.body, body_block);
                let orelse_block = branch(self, 1);
                let orelse = self.expr(&if_expr.orelse, orelse_block);
                // `smtplib.SMTP_SSL(host) if ssl else smtplib.SMTP(host)`, `Email(self) if ...
                // else Slack(self)`, `Client() if key else None`: an object either branch
                // makes; calls on it are followed into the first branch's class (one of the
                // runs does what it does).
                let made = |value: &Value| value.path.as_ref().is_some_and(QPath::is_call);
                let path = match (made(&body), made(&orelse)) {
                    (true, true) => body.path.clone(),
                    (true, false) if matches!(orelse.lit, Lit::None) => body.path.clone(),
                    (false, true) if matches!(body.lit, Lit::None) => orelse.path.clone(),
                    _ => None,
                };
                // `{"Accept-Language": locale} if locale else None`: what the dict holds is all
                // either branch can hold (`None` holds nothing), so its keys are the value's.
                let lit = match (&body.lit, &orelse.lit) {
                    (Lit::Dict(_), Lit::None) => body.lit,
                    (Lit::None, Lit::Dict(_)) => orelse.lit,
                    (Lit::None, Lit::None) => Lit::None,
                    _ => Lit::Other,
                };
                let mut value = Value {
                    taint: body.taint,
                    lit,
                    path,
                    ..Value::default()
                };
                merge_taint(&mut value.taint, &orelse.taint);
                // `f"order-{order_id}" if self.request.retries == 0 else None`: which branch a
                // run gets depends on the delivery (or on chance), so the value does too.
                let chosen_by: ThinVec<Taint> = test
                    .taint
                    .iter()
                    .filter(|t| matches!(t, Taint::Meta { .. } | Taint::Nondet { .. }))
                    .copied()
                    .collect();
                merge_taint(&mut value.taint, &chosen_by);
                value
            }
            Expr::Lambda(lambda) => {
                let deferred = self.push_block(block, BlockKind::Deferred);
                let body = self.expr(&lambda.body, deferred);
                // `new_key = lambda card: f"fuel-{card}-{uuid4()}"`: what calling it returns
                // holds the sources its body reads.
                Value {
                    taint: body.taint.into_iter().filter(is_source).collect(),
                    ..Value::default()
                }
            }
            Expr::ListComp(ast::ExprListComp {
                elt, generators, ..
            })
            | Expr::SetComp(ast::ExprSetComp {
                elt, generators, ..
            })
            | Expr::Generator(ast::ExprGenerator {
                elt, generators, ..
            }) => {
                // A sequence of items shaped like `elt`: one stands for all (an SQS batch's
                // entries, each with its `MessageDeduplicationId`).
                let body = self.comprehension(generators, block);
                let mut item = self.expr(elt, body);
                // A task's signature keeps its path (`[task.si(i) for i in ids]`, a canvas's
                // steps): it names the task.
                let catalog = self.ex.catalog;
                if !item.path.as_ref().is_some_and(|path| {
                    path.segs().iter().any(|seg| {
                        seg.call != Call::No && catalog.is_signature_method(seg.name.as_str())
                    })
                }) {
                    item.path = None;
                }
                Value {
                    taint: item.taint.clone(),
                    lit: Lit::Seq(vec![item]),
                    ..Value::default()
                }
            }
            Expr::DictComp(comp) => {
                let body = self.comprehension(&comp.generators, block);
                if let Some(key) = &comp.key {
                    self.expr(key, body);
                }
                // `{line.id: str(uuid4()) for line in lines}`: an item read by any key holds
                // what the values hold.
                let item = self.expr(&comp.value, body);
                Value {
                    taint: item.taint,
                    ..Value::default()
                }
            }
            Expr::Starred(starred) => self.expr(&starred.value, block),
            // A generator's steps run as its caller iterates it (`list(send_each(...))`).
            Expr::Yield(_) | Expr::YieldFrom(_) => {
                if self.yields.last() != Some(&block) {
                    self.yields.push(block);
                }
                let yielded = match expr {
                    Expr::Yield(ast::ExprYield { value, .. }) => value.as_deref(),
                    Expr::YieldFrom(ast::ExprYieldFrom { value, .. }) => Some(&**value),
                    _ => None,
                };
                if let Some(value) = yielded {
                    self.expr(value, block);
                }
                Value::default()
            }
            Expr::Compare(compare) => {
                let mut value = self.expr(&compare.left, block);
                value.path = None;
                value.lit = Lit::Other;
                for c in &compare.comparators {
                    let inner = self.expr(c, block);
                    merge_taint(&mut value.taint, &inner.taint);
                }
                value
            }
            _ => Value::default(),
        };
        // The `created` flag taken by index (`get_or_create(...)[1]`) stays placed at the
        // call, as unpacked: guards name the call that wrote the marker by its range.
        if !(value.flags & Value::CREATED != 0 && expr.is_subscript_expr()) {
            value.range = range;
        }
        value
    }

    fn comprehension(&mut self, generators: &[ast::Comprehension], block: u32) -> u32 {
        let body = self.push_block(block, BlockKind::Loop { ends: Ends::Falls });
        for generator in generators {
            let iter = self.expr(&generator.iter, block);
            let item = Value {
                taint: iter.taint,
                ..Value::default()
            };
            self.bind(&generator.target, &item, body);
            for cond in &generator.ifs {
                self.expr(cond, body);
            }
        }
        body
    }

    fn name(&mut self, id: &str) -> Value {
        self.name_sym(id, Sym::new(id))
    }

    /// [`Walker::name`] with the name already interned.
    fn name_sym(&mut self, id: &str, sym: Sym) -> Value {
        let bare = || {
            let mut segs = Vec::with_capacity(1 + PATH_ROOM);
            segs.push(Seg {
                name: sym,
                call: Call::No,
            });
            Some(QPath(segs))
        };
        // Read names are copied with room in their paths: most are read to have an attribute
        // or a call added (`client.messages.create`).
        let mut value = if let Some(local) = self.local_ref(id, sym) {
            let mut local = copy_with_room(local);
            if !self.mutated_params.is_empty()
                && local.flags & Value::PARAM != 0
                && self.mutated_params.contains(&sym)
            {
                local.flags |= Value::UPDATED;
            }
            if local.path.is_none() {
                // The instance or class parameter, whatever its name (`cls`, `this`), is `self`.
                local.path = if self.self_name.as_deref() == Some(id) {
                    Some(QPath(vec![Seg::name("self")]))
                } else {
                    bare()
                };
            }
            local
        } else if self.self_name.as_deref() == Some(id) {
            Value {
                path: Some(QPath(vec![Seg::name("self")])),
                ..Value::default()
            }
        } else if let Some((_, path, sources)) =
            self.captured.iter().find(|(name, _, _)| *name == sym)
        {
            // A local of the enclosing function, read by this nested one.
            Value {
                path: path.as_ref().map(with_room).or_else(bare),
                taint: sources.clone(),
                ..Value::default()
            }
        } else if let Some(var) = self.ex.module_vars.get(id).filter(|_| !self.is_module) {
            let mut var = copy_with_room(var);
            var.taint.retain(|t| !matches!(t, Taint::Call { .. }));
            if var.path.is_none() {
                var.path = Some(self.ex.module_path(sym));
            }
            var
        } else if self.ex.top_level.contains(&sym) {
            Value {
                path: Some(self.ex.module_path(sym)),
                ..Value::default()
            }
        } else if let Some(target) = self.ex.imports.get(&sym) {
            Value {
                path: Some(cached_path(&mut self.ex.dotted_paths, target)),
                ..Value::default()
            }
        } else if !self.ex.star_imports.is_empty() && !self.ex.catalog.is_pure_call(true, sym) {
            // Maybe bound by `from m import *`: the project resolves `module.name` through it.
            Value {
                path: Some(self.ex.module_path(sym)),
                ..Value::default()
            }
        } else {
            Value {
                path: bare(),
                ..Value::default()
            }
        };
        if value.flags & Value::PARAM == 0 || value.name.is_none() {
            value.name = Some(sym);
        }
        value
    }

    fn attribute(&mut self, attr: &ast::ExprAttribute, block: u32) -> Value {
        self.attribute_named(attr, block, Sym::new(attr.attr.as_str()))
            .0
    }

    /// [`Walker::attribute`] with the attribute's name (`name`) already interned. Also gives
    /// the symbol of the object when it is a plain name (`gateway` in `gateway.charge`), as
    /// its value was read with it.
    fn attribute_named(
        &mut self,
        attr: &ast::ExprAttribute,
        block: u32,
        name: Sym,
    ) -> (Value, Option<Sym>) {
        // `self.gateway` where a method assigned `self.gateway = Gateway(...)`.
        let sources: ThinVec<Taint> = match self.self_attr(attr) {
            Some(assigned) if assigned.path.is_some() => {
                let mut value = assigned.clone();
                value.taint.retain(is_source);
                return (value, None);
            }
            Some(assigned) => assigned.taint.iter().copied().filter(is_source).collect(),
            None => ThinVec::new(),
        };
        let mut base = self.expr(&attr.value, block);
        let object = base.name.filter(|_| attr.value.is_name_expr());
        let mut value = Value {
            taint: std::mem::take(&mut base.taint),
            ..Value::default()
        };
        // A string's methods keep the string's taint but are not a path anyone resolves.
        if let Some(mut path) = base.path {
            path.0.push(Seg {
                name,
                call: Call::No,
            });
            let index = self.ex.catalog.metadata_index(&path).or_else(|| {
                // A helper's parameter read as the task instance is (`task.request.retries`).
                let index = self.ex.catalog.task_param_metadata_index(&path)?;
                let head = path.0[0].name;
                (!self.is_module
                    && self.params.contains_key(&head)
                    && !self.locals.contains_key(&head))
                .then_some(index)
            });
            if let Some(index) = index {
                value.taint.push(Taint::Meta {
                    range: attr.range,
                    index: u32::try_from(index).unwrap_or(u32::MAX),
                });
            }
            value.path = Some(path);
        }
        merge_taint(&mut value.taint, &sources);
        if !self.attr_taints.is_empty()
            && let Expr::Name(local) = &*attr.value
        {
            let var = Sym::new(local.id.as_str());
            if let Some((_, _, taint)) = self
                .attr_taints
                .iter()
                .find(|(v, a, _)| *v == var && *a == name)
            {
                merge_taint(&mut value.taint, taint);
            }
        }
        (value, object)
    }

    /// Whether `value` is what a `get_or_create`-like call returns: `(obj, created)`.
    fn is_get_or_create(&self, value: &Value) -> bool {
        value
            .path
            .as_ref()
            .and_then(QPath::last_name)
            .is_some_and(|m| self.ex.catalog.orm.get_or_create_methods.has(m))
    }

    /// What a method assigned to `self.<attr>` when `attr` reads it in a method of the same
    /// class (`self.gateway = Gateway(...)` in `__init__`).
    fn self_attr(&self, attr: &ast::ExprAttribute) -> Option<&Value> {
        let Expr::Name(base) = &*attr.value else {
            return None;
        };
        if self.self_name.as_deref() != Some(base.id.as_str()) {
            return None;
        }
        self.ex
            .self_attrs
            .get(&self.class?)
            .and_then(|attrs| attrs.get(attr.attr.as_str()))
    }

    /// Records what `local.attr = value` put in the attribute: its taint, or nothing.
    fn set_attr_taint(&mut self, local: &str, attr: &str, taint: &[Taint]) {
        let (var, attr) = (Sym::new(local), Sym::new(attr));
        self.attr_taints
            .retain(|(v, a, _)| !(*v == var && *a == attr));
        // A parameter is the writing function's: not one of a method that reads the attribute.
        let taint: ThinVec<Taint> = taint
            .iter()
            .copied()
            .filter(|t| !matches!(t, Taint::Param { .. }))
            .collect();
        if !taint.is_empty() {
            self.attr_taints.push((var, attr, taint));
        }
    }

    /// `if not order.payment_key: order.payment_key = uuid4().hex; order.save(...)`: a key
    /// made once, only when none is stored, and stored before anything uses it, is the same on
    /// every later run. Its sources made in the branch are dropped from what `target` holds
    /// after the `if`, when the branch wrote rows after making it.
    fn forget_minted_once(&mut self, target: &Expr, body: TextRange, events_before: usize) {
        let catalog = self.ex.catalog;
        let stored = self.events[events_before..].iter().any(|event| {
            matches!(&event.kind, EventKind::Call(call)
                if call.path.as_ref().is_some_and(|path| catalog.orm.is_write(call.method.as_str(), path)))
        });
        if !stored {
            return;
        }
        let made_here = |taint: &Taint| matches!(taint, Taint::Nondet { range, .. } if body.contains_range(*range));
        match target {
            Expr::Name(name) => {
                if let Some(value) = self.locals.get_mut(&Sym::new(name.id.as_str())) {
                    value.taint.retain(|taint| !made_here(taint));
                }
            }
            Expr::Attribute(attr) => {
                let Expr::Name(local) = &*attr.value else {
                    return;
                };
                let (var, name) = (Sym::new(local.id.as_str()), Sym::new(attr.attr.as_str()));
                for (v, a, taint) in &mut self.attr_taints {
                    if *v == var && *a == name {
                        taint.retain(|taint| !made_here(taint));
                    }
                }
                self.attr_taints.retain(|(_, _, taint)| !taint.is_empty());
            }
            _ => {}
        }
    }

    fn call(&mut self, call: &ast::ExprCall, block: u32) -> Value {
        // `getattr(self, "_charge")` with a written-out name: the attribute, as `self._charge`.
        if let Some(attr) = self.getattr_attribute(call) {
            let value = self.attribute(&attr, block);
            // The default is evaluated whether or not it is used.
            if let Some(default) = call.arguments.args.get(2) {
                self.expr(default, block);
            }
            return value;
        }
        // `HANDLERS[kind](user)` on a dict (or list) of functions: a call of one of them, each
        // in a branch of its own, as an `if` choosing between them would be; so is
        // `PAYOUTS[kind].pay(earning)` on a dict of instances, a call of one's method.
        let (subscript, method) = match &*call.func {
            Expr::Subscript(subscript) => (Some(subscript), None),
            Expr::Attribute(attr) => match &*attr.value {
                Expr::Subscript(subscript) => (Some(subscript), Some(attr.attr.as_str())),
                _ => (None, None),
            },
            _ => (None, None),
        };
        if let Some(subscript) = subscript
            && let Some(handlers) = self.handlers(&subscript.value, &subscript.slice, method)
        {
            // The key's own calls, once (`HANDLERS[kind_of(user)]`).
            self.expr(&subscript.slice, block);
            self.next_if += 1;
            let if_id = self.next_if;
            let mut result = Value::default();
            for (index, handler) in handlers.into_iter().enumerate() {
                let branch = self.push_block(
                    block,
                    BlockKind::Branch {
                        if_id,
                        index: u32::try_from(index).unwrap_or(u32::MAX),
                        leaves: false,
                        exhaustive: true,
                        on_param: None,
                        ends: Ends::Falls,
                    },
                );
                result = self.call_of(call, branch, Some(handler));
            }
            return result;
        }
        self.call_of(call, block, None)
    }

    /// `getattr(obj, "name")` (or with a default) as the attribute `obj.name`, when `obj` is a
    /// name or an attribute of one and `getattr` is the builtin.
    fn getattr_attribute(&self, call: &ast::ExprCall) -> Option<ast::ExprAttribute> {
        let Expr::Name(func) = &*call.func else {
            return None;
        };
        if func.id.as_str() != "getattr" || !call.arguments.keywords.is_empty() {
            return None;
        }
        let (object, Expr::StringLiteral(name)) =
            (call.arguments.args.first()?, call.arguments.args.get(1)?)
        else {
            return None;
        };
        let name = name.value.to_str();
        if call.arguments.args.len() > 3
            || !matches!(object, Expr::Name(_) | Expr::Attribute(_))
            || !is_identifier(name)
            || !self.is_builtin_call("getattr")
        {
            return None;
        }
        Some(ast::ExprAttribute {
            node_index: ast::AtomicNodeIndex::NONE,
            range: call.range(),
            value: Box::new(object.clone()),
            attr: ast::Identifier::new(name, call.range()),
            ctx: ast::ExprContext::Load,
        })
    }

    /// The functions a dict or sequence display bound to a name holds (`HANDLERS = {"email":
    /// send_email, "sms": send_sms}`), when it holds nothing else: at most [`MAX_HANDLERS`],
    /// each once; the one a string key written in the subscript picks (`HANDLERS["db"]`). Read
    /// in place, without evaluating anything: it is asked of every `x[k](...)` and
    /// `x[k].m(...)`.
    fn handlers(&self, container: &Expr, slice: &Expr, method: Option<&str>) -> Option<Vec<Value>> {
        let Expr::Name(name) = container else {
            return None;
        };
        let id = name.id.as_str();
        let value = self.local_ref(id, Sym::new(id)).or_else(|| {
            (!self.is_module)
                .then(|| self.ex.module_vars.get(id))
                .flatten()
        })?;
        let key = match slice {
            Expr::StringLiteral(key) => Some(key.value.to_str()),
            _ => None,
        };
        let items: Vec<&Value> = match (&value.lit, key) {
            (Lit::Dict(items), Some(key)) => {
                let (_, picked) = items
                    .iter()
                    .find(|(k, _)| k.map(Sym::as_str) == Some(key))?;
                vec![picked]
            }
            (Lit::Dict(items), None) => items.iter().map(|(_, v)| v).collect(),
            (Lit::Seq(items), _) => items.iter().collect(),
            _ => return None,
        };
        if items.is_empty() || items.len() > MAX_HANDLERS {
            return None;
        }
        let mut handlers: Vec<Value> = Vec::new();
        for item in items {
            // Functions, or for a method, instances (`StripePayout()`): its path on them.
            let path = item
                .path
                .as_ref()
                .filter(|p| p.is_call() == method.is_some())?;
            let path = match method {
                Some(method) => path.join(&[Seg {
                    name: Sym::new(method),
                    call: Call::No,
                }]),
                None => path.clone(),
            };
            if !handlers.iter().any(|h| h.path.as_ref() == Some(&path)) {
                handlers.push(Value {
                    path: Some(path),
                    ..item.clone()
                });
            }
        }
        Some(handlers)
    }

    /// A call, with the function it calls when that is known otherwise (a handler).
    fn call_of(&mut self, call: &ast::ExprCall, block: u32, handler: Option<Value>) -> Value {
        // The callee's names are interned once, for its value and for the call site.
        let (mut func, method, object) = match &*call.func {
            _ if let Some(handler) = handler.clone() => {
                let method = (handler.path.as_ref())
                    .and_then(|p| p.0.last())
                    .map_or_else(|| Sym::new(""), |seg| seg.name);
                (handler, method, None)
            }
            Expr::Attribute(attr) => {
                let method = Sym::new(attr.attr.as_str());
                let (value, object) = self.attribute_named(attr, block, method);
                // A parameter changed in place by a list, set or dict method.
                if let Expr::Name(receiver) = &*attr.value
                    && !self.params.is_empty()
                    && matches!(
                        method.as_str(),
                        "append"
                            | "extend"
                            | "insert"
                            | "remove"
                            | "pop"
                            | "clear"
                            | "add"
                            | "discard"
                            | "update"
                            | "popitem"
                            | "setdefault"
                    )
                {
                    let name = receiver.id.as_str();
                    // `contact_ids.remove(contact_id)`: a new value under its old name (as
                    // `contact_ids = contact_ids[1:]` is).
                    self.param_mutated(name);
                    // `kwargs.setdefault("idempotency_key", k)`: a dict's methods that change
                    // it. Entries that carry no key (`kwargs.setdefault("timeout", 10)`) leave
                    // the key to what the caller gives.
                    if matches!(
                        method.as_str(),
                        "setdefault" | "update" | "pop" | "popitem" | "clear"
                    ) && self.may_change_key(method.as_str(), &call.arguments)
                    {
                        self.param_changed(name);
                    }
                }
                (value, method, object)
            }
            Expr::Name(name) => {
                let sym = Sym::new(name.id.as_str());
                (self.name_sym(name.id.as_str(), sym), sym, None)
            }
            _ => (self.expr(&call.func, block), Sym::new(""), None),
        };
        func.range = call.func.range();
        // One catalog lookup for what the call does with functions or durations.
        let role = func
            .path
            .as_ref()
            .and_then(|path| self.ex.catalog.call_role(path));
        let runs_now = match role {
            Some(CallRole::Runner(runner)) if !runner.later => Some(runner),
            _ => None,
        };
        let mut args = Vec::with_capacity(call.arguments.args.len());
        let mut star_args = false;
        for (index, arg) in call.arguments.args.iter().enumerate() {
            if matches!(arg, Expr::Starred(_)) {
                star_args = true;
            }
            // `pool.map(lambda u: send_mail(..., [u.email]), users)`: the lambda runs now, once
            // per item, as a loop's body would; not later, as a lambda kept for a callback.
            if let Some(runner) = runs_now
                && index == runner.function
                && let Expr::Lambda(lambda) = arg
            {
                let body = match runner.repeats {
                    true => self.push_block(block, BlockKind::Loop { ends: Ends::Falls }),
                    false => block,
                };
                let made = self.expr(&lambda.body, body);
                args.push(Value {
                    taint: made.taint.into_iter().filter(is_source).collect(),
                    ..Value::default()
                });
                continue;
            }
            args.push(self.expr(arg, block));
        }
        let mut keywords: Vec<(Sym, Value)> = Vec::with_capacity(call.arguments.keywords.len());
        let mut star_kwargs = false;
        let mut spreads = None;
        let mut spread_count = 0;
        for keyword in &call.arguments.keywords {
            let since = self.stored_reads.len();
            let mut value = self.expr(&keyword.value, block);
            match &keyword.arg {
                Some(arg) => {
                    value.set_label(keyword.range.start());
                    if value.flags & Value::ACCUMULATES != 0
                        && !self.accumulates_into(since, arg.as_str())
                    {
                        value.flags &= !Value::ACCUMULATES;
                    }
                    // `values(stock=Product.stock + qty)`: the column read back into itself.
                    if self.ex.catalog.writes.is_column_update(method)
                        && adds_to_column(&keyword.value, arg.as_str())
                    {
                        value.flags |= Value::ACCUMULATES;
                    }
                    let arg = Sym::new(arg.as_str());
                    if self.ex.catalog.is_factory_keyword(arg) {
                        self.factory_taint(&keyword.value, &mut value);
                    }
                    keywords.push((arg, value));
                }
                None => {
                    // `**{"idempotency_key": k}`, `**lookup` with `lookup = {"email": e}`
                    // spread known keys; only a dict whose keys are all known gives nothing else.
                    let mut known = false;
                    if value.flags & Value::PARAM != 0
                        && let Some(name) = value.name
                        && !self.changed_params.contains(&name)
                    {
                        spreads = Some(name);
                    }
                    spread_count += 1;
                    if let Lit::Dict(items) = value.lit {
                        known = true;
                        for (key, value) in items {
                            match key {
                                Some(key) => keywords.push((key, value)),
                                None => known = false,
                            }
                        }
                    }
                    star_kwargs |= !known;
                }
            }
        }
        if spread_count != 1 {
            spreads = None;
        }
        // SQLAlchemy's legacy `query(Topic).filter_by(...).update({Topic.replies: Topic.replies
        // + 1})` (or `{"replies": ...}`): the dict's entries are the columns set, as keywords.
        // Only on a call's result, so a local dict's own `update({...})` is left alone.
        if self.ex.catalog.orm.update_methods.has(method.as_str())
            && let Expr::Attribute(attr) = &*call.func
            && attr.value.is_call_expr()
            && let Some(Expr::Dict(dict)) = call.arguments.args.first()
        {
            for item in &dict.items {
                let field = match &item.key {
                    Some(Expr::StringLiteral(key)) => key.value.to_str(),
                    Some(Expr::Attribute(column)) => column.attr.as_str(),
                    _ => continue,
                };
                let field = Sym::new(field);
                if keywords.iter().any(|(k, _)| *k == field) {
                    continue;
                }
                // Read again without events; what it reads of stored columns is not kept.
                let since = self.stored_reads.len();
                let mut value = self.pure_in(&item.value, block);
                self.stored_reads.truncate(since);
                if adds_to_column(&item.value, field.as_str()) {
                    value.flags |= Value::ACCUMULATES;
                }
                keywords.push((field, value));
            }
        }
        // `client.post(...)` on a client made with key headers: they go with the request,
        // under the headers the call gives (which win). `self.client.post(...)` too, for the
        // client a method of the class made so.
        let self_client = match &*call.func {
            Expr::Attribute(attr) => match &*attr.value {
                Expr::Attribute(member) => self
                    .self_attr(member)
                    .and_then(|value| value.call.as_deref()?.keyword(HEADERS_KEYWORD))
                    .cloned(),
                _ => None,
            },
            _ => None,
        };
        if let Some(defaults) = self_client.as_ref().or_else(|| {
            if self.client_headers.is_empty() {
                return None;
            }
            let Expr::Attribute(attr) = &*call.func else {
                return None;
            };
            let Expr::Name(receiver) = &*attr.value else {
                return None;
            };
            self.client_headers
                .iter()
                .find(|(var, _)| *var == Sym::new(receiver.id.as_str()))
                .map(|(_, headers)| headers)
        }) {
            let headers = Sym::new(HEADERS_KEYWORD);
            match keywords.iter_mut().find(|(k, _)| *k == headers) {
                None if !star_kwargs => keywords.push((headers, defaults.clone())),
                Some((_, given)) if given.dict().is_some() => {
                    let mut merged = defaults.clone();
                    if let (Lit::Dict(items), Some(own)) = (&mut merged.lit, given.dict()) {
                        for (key, value) in own {
                            put_entry(items, *key, value.clone());
                        }
                    }
                    merge_taint(&mut merged.taint, &given.taint);
                    *given = merged;
                }
                _ => {}
            }
        }

        // `entries = []`, then `entries.append({...})` (in a loop): the list holds what was
        // appended, each item an entry of the batch it is sent as. A list fed more than a few
        // items is no longer followed.
        if method.as_str() == "append"
            && args.len() == 1
            && let Expr::Attribute(attr) = &*call.func
            && let Expr::Name(receiver) = &*attr.value
            && !self.is_module
            && let Some(local) = self.locals.get_mut(&Sym::new(receiver.id.as_str()))
            && let Lit::Seq(items) = &mut local.lit
        {
            if items.len() < 8 {
                items.push(args[0].clone());
            } else {
                local.lit = Lit::Other;
            }
        }
        // `h.update(str(time.time()).encode())`: the local now holds what it was fed.
        if let Expr::Attribute(attr) = &*call.func
            && let Expr::Name(receiver) = &*attr.value
            && !self.is_module
            && args.iter().any(|arg| !arg.taint.is_empty())
            && self.ex.catalog.folds_into_receiver(method)
            && let Some(local) = self.locals.get_mut(&Sym::new(receiver.id.as_str()))
        {
            for arg in &args {
                merge_taint(&mut local.taint, &arg.taint);
            }
        }
        // A local holding a call's result (a loaded row) handed to another call: that call may
        // change it (`mark_paid(order)`, `setattr(order, "status", ...)`); a manager's call
        // (`Log.objects.create(order=order)`) only points at it.
        for value in args.iter().chain(keywords.iter().map(|(_, v)| v)) {
            if let Some(name) = value.name
                && value.path.as_ref().is_some_and(QPath::is_call)
                && !self.escaped.contains(&name)
                && self.locals.contains_key(&name)
                && !func.path.as_ref().is_some_and(|path| {
                    let managers = &self.ex.catalog.orm.managers;
                    path.0
                        .iter()
                        .any(|seg| managers.iter().any(|m| *m == *seg.name))
                })
            {
                self.escaped.push(name);
            }
        }
        // Calling what `partial(f, a, k=v)` returned calls `f` with the bound arguments first.
        let bound = func.flags & Value::BOUND != 0;
        if bound && let Some(bound) = func.call.take() {
            args.splice(0..0, bound.args);
            keywords.extend(bound.keywords);
        }
        // `asyncio.to_thread(f, a, k=v)` calls `f(a, k=v)` now: the call is `f`'s; `map(f, xs)`
        // calls it once per item, as a loop would.
        let mut run = None;
        let mut repeats = false;
        if let Some(CallRole::Runner(runner)) = role
            && !runner.later
            && let Some(target) = args.get(runner.function)
            && let Some(target_path) = target.path.clone().filter(|p| !p.is_call())
        {
            let mut target = args.remove(runner.function);
            let mut own: Vec<Value> = args.drain(runner.function..).collect();
            args.clear();
            if !runner.keywords {
                keywords.clear();
            }
            if target.flags & Value::BOUND != 0
                && let Some(bound) = target.call.take()
            {
                own.splice(0..0, bound.args);
                keywords.extend(bound.keywords);
            }
            args = own;
            run = Some(target_path.0.last().map_or(method, |seg| seg.name));
            repeats = runner.repeats;
            func.path = Some(target_path);
        }
        let method = run.unwrap_or(method);

        let receiver = match &*call.func {
            _ if run.is_some() => None,
            Expr::Attribute(attr) => {
                object.or_else(|| receiver_name(&attr.value).map(|name| Sym::new(&name)))
            }
            _ => None,
        };
        // Builtins and pure methods: no event, no helper to follow.
        let pure = match &*call.func {
            Expr::Name(_) => self.is_builtin_call(method.as_str()),
            Expr::Attribute(attr) => {
                !matches!(&*attr.value, Expr::Name(n) if Some(n.id.as_str()) == self.self_name.as_deref())
                    && self.ex.catalog.is_pure_call(false, method)
                    // `YooKassaReversal(shop).reverse(payment)`: a method of a class's instance
                    // (named `Class()` by its path), not of a list or a string.
                    && !func.path.as_ref().is_some_and(on_instance)
                    // A dict's `values()` is pure; a statement's `values(n=T.n + 1)` is not.
                    && !keywords.iter().any(|(_, v)| v.flags & Value::ACCUMULATES != 0)
            }
            _ => false,
        };
        let catalog = self.ex.catalog;
        let first_str = match args.first() {
            Some(first) => first.as_str(),
            // `boto3.client(service_name="ses")`.
            None => keywords
                .iter()
                .find(|(k, _)| catalog.is_name_keyword(k))
                .and_then(|(_, v)| v.as_str()),
        }
        .filter(|s| s.len() <= 64)
        .map(crate::path::Sym::new);
        // `apps.get_model("billing", "Invoice")`: the model's label, as one string.
        let first_str = match (first_str, args.get(1).and_then(Value::as_str)) {
            (Some(app), Some(model))
                if args.len() == 2 && catalog.orm.is_model_lookup_method(method.as_str()) =>
            {
                Some(crate::path::Sym::new(&format!("{app}.{model}")))
            }
            (first, _) => first,
        };
        // `super(Mailer, self)`: the class the look-up starts after, by name.
        let first_str = match (first_str, &*call.func, args.as_slice()) {
            (None, Expr::Name(name), [class, _]) if name.id.as_str() == "super" => class
                .path
                .as_ref()
                .filter(|path| path.segs().iter().all(|s| s.call == Call::No))
                .and_then(QPath::last_name)
                .map(crate::path::Sym::new),
            (first, ..) => first,
        };
        let called = match first_str {
            Some(s) => Call::Str(s),
            None => Call::Any,
        };
        // A Django manager made from a queryset class has the queryset's methods: it is named
        // as an instance of that class (`EntryQuerySet.as_manager()`,
        // `Manager.from_queryset(EntryQuerySet)`), so that `Entry.objects.publish()` is found.
        let mut makes_class = false;
        let orm = &self.ex.catalog.orm;
        if orm.as_manager_methods.has(method.as_str()) && args.is_empty() {
            if let Some(path) = &mut func.path
                && path.0.len() > 1
                && path.0.iter().all(|seg| seg.call == Call::No)
            {
                path.0.pop();
            }
        } else if orm.from_queryset_methods.has(method.as_str())
            && let Some(queryset) = args.first().and_then(|a| a.path.as_ref())
            && !queryset.is_call()
        {
            // It makes the class (`EntryManager = Manager.from_queryset(...)`), called where
            // the model names its manager.
            func.path = Some(queryset.clone());
            makes_class = true;
        }
        let path = func.path.take().map(|mut path| {
            match path.0.last_mut() {
                // `send_invoice = SendInvoiceEmail(...)`, then `send_invoice(invoice)`: the
                // instance's `__call__`, not the class made again.
                Some(last)
                    if last.call != Call::No
                        && run.is_none()
                        && matches!(&*call.func, Expr::Name(_)) =>
                {
                    path.0.push(Seg {
                        name: Sym::new("__call__"),
                        call: called,
                    });
                }
                Some(last) if makes_class => last.call = Call::No,
                Some(last) => last.call = called,
                None => {}
            }
            path
        });

        // A class body's calls keep their arguments, as does a registry item in a module's
        // constant (`FUNCTIONS = [func(deliver, max_tries=10)]`, listed by `WorkerSettings`).
        let keep_args = self.class_body
            || (self.is_module
                && path
                    .as_ref()
                    .is_some_and(|p| self.ex.catalog.registry.wrappers.find(p).is_some()));
        let mut value = Value {
            path: path.clone(),
            first_arg: if keep_args {
                args.first().map(|a| Box::new(literal_only(a)))
            } else {
                None
            },
            call: keep_args.then(|| {
                Box::new(CallArgs {
                    args: args.iter().map(literal_only).collect(),
                    keywords: keywords
                        .iter()
                        .map(|(k, v)| (*k, literal_only(v)))
                        .collect(),
                })
            }),
            ..Value::default()
        };
        // `dict(a=1, b=x)` is the display `{"a": 1, "b": x}`; `dict(other, b=x)` is
        // `{**other, "b": x}`, a copy that later entries change (`d["region"] = ...`).
        if args.len() <= 1
            && !star_args
            && !star_kwargs
            && let Expr::Name(name) = &*call.func
            && name.id.as_str() == "dict"
            && self.is_builtin_call("dict")
        {
            let mut items: Vec<DictItem> = match args.first() {
                Some(Value {
                    lit: Lit::Dict(copied),
                    ..
                }) => copied.clone(),
                Some(other) => vec![(None, other.clone())],
                None => Vec::new(),
            };
            items.extend(keywords.iter().map(|(k, v)| (Some(*k), v.clone())));
            value.lit = Lit::Dict(items);
        }
        // `headers.copy()`: the same entries, in a dict of its own.
        if method.as_str() == "copy"
            && args.is_empty()
            && keywords.is_empty()
            && let Expr::Attribute(attr) = &*call.func
            && let Expr::Name(receiver) = &*attr.value
            && let Some(items) = self
                .local_ref(receiver.id.as_str(), Sym::new(receiver.id.as_str()))
                .and_then(Value::dict)
        {
            value.lit = Lit::Dict(items.to_vec());
        }
        // `timedelta(minutes=2).total_seconds()`: the duration's seconds; `int(...)` and
        // `float(...)` of a number: that number (`LOCK_TTL = int(ttl.total_seconds())`).
        if method.as_str() == "total_seconds"
            && args.is_empty()
            && let Expr::Attribute(attr) = &*call.func
            && let Lit::Float(seconds) = self.pure(&attr.value).lit
        {
            value.lit = Lit::Float(seconds);
        }
        if let [number] = &args[..]
            && keywords.is_empty()
            && let Expr::Name(name) = &*call.func
            && matches!(name.id.as_str(), "int" | "float")
            && let Some(n) = number.as_f64()
            && self.is_builtin_call(name.id.as_str())
        {
            value.lit = if name.id.as_str() == "int" {
                // Python's `int()` truncates toward zero.
                Lit::Int(n.trunc() as i64)
            } else {
                Lit::Float(n)
            };
        }
        if !self.loop_classes.is_empty()
            && let Some(path) = &path
        {
            self.delete_through_loop(path, method);
        }
        // `"DELETE FROM {}".format(Model._meta.db_table)`: the model's rows.
        if method.as_str() == "format"
            && let Expr::Attribute(attr) = &*call.func
            && let Expr::StringLiteral(template) = &*attr.value
            && let Some(model) =
                format_deleted_model(self.ex.catalog, template.value.to_str(), &args)
        {
            self.ex.deleted_models.push(model);
        }
        // `get_or_create(pk=pk, defaults={"status": "pending"})`: the state a row it creates
        // starts in, for the guard that tests it.
        if catalog.orm.get_or_create_methods.has(method.as_str())
            && path
                .as_ref()
                .is_some_and(|path| catalog.orm.through_manager(path))
        {
            self.note_created_with(call.range(), &keywords);
        }
        // `text("INSERT ...")`: the statement, as `execute` will run it.
        if let (Some(path), Some(Lit::Str(sql))) = (&path, args.first().map(|a| &a.lit))
            && catalog.writes.is_sql_text(path)
        {
            value.lit = Lit::Str(sql.clone());
        }
        // `sql.SQL("INSERT INTO {} ...").format(sql.Identifier(table))`: the same statement,
        // names filled in.
        if let Expr::Attribute(attr) = &*call.func
            && let Expr::Call(inner) = &*attr.value
            && let Some(Expr::StringLiteral(template)) = inner.arguments.args.first()
            && path
                .as_ref()
                .is_some_and(|path| catalog.writes.fills_sql_text(path))
        {
            value.lit = Lit::Str(template.value.to_str().into());
        }
        merge_taint(&mut value.taint, &func.taint);
        // Rows a query selects (`Invoice.objects.filter(due_at__lt=timezone.now())`) hold
        // what is stored, not the criteria: `inv.pk` is no value of the clock. Rows a call
        // creates hold what it is given.
        let tainted_arguments = args.iter().any(|arg| !arg.taint.is_empty())
            || keywords.iter().any(|(_, kw)| !kw.taint.is_empty());
        let orm = &catalog.orm;
        let selects_rows = || {
            path.as_ref().is_some_and(|p| orm.through_manager(p))
                && !orm.create_methods.has(method.as_str())
                && !orm.get_or_create_methods.has(method.as_str())
        };
        if tainted_arguments && !selects_rows() {
            for arg in &args {
                merge_taint(&mut value.taint, &arg.taint);
            }
            // `get_or_create(..., defaults={"key": uuid4().hex})`: the defaults are stored
            // once, by the run that creates the row; every later run reads them back.
            let creation_only = path
                .as_ref()
                .filter(|p| orm.through_manager(p))
                .and_then(|_| orm.creation_only_keywords.get(method.as_str()));
            for (name, kw) in &keywords {
                if creation_only.is_some_and(|only| name.as_str() == only) {
                    continue;
                }
                merge_taint(&mut value.taint, &kw.taint);
            }
        }
        if let Some(path) = &path {
            if catalog.is_nondeterministic(path) {
                value.taint.push(self.nondet_taint(call.range()));
            } else if let Some(index) = catalog.metadata_index(path) {
                value.taint.push(Taint::Meta {
                    range: call.range(),
                    index: u32::try_from(index).unwrap_or(u32::MAX),
                });
            } else if self.emit
                && !pure
                && (path.0.len() > 1
                    || self.ex.top_level.contains(&path.0[0].name)
                    || self.locals.contains_key(&path.0[0].name))
            {
                // This call's event comes next: its index is the number of events so far.
                value.taint.push(Taint::Call {
                    event: u32::try_from(self.events.len()).unwrap_or(u32::MAX),
                    element: 0,
                });
            }
            let set_if_absent = &catalog.set_if_absent;
            if path
                .0
                .last()
                .is_some_and(|seg| set_if_absent.is_method(seg.name))
                || keywords
                    .iter()
                    .any(|(k, v)| set_if_absent.is_keyword(*k) && v.as_bool() == Some(true))
            {
                value.flags |= Value::MARKER;
            }
        }
        value.taint.truncate(MAX_TAINT);
        // `Order.objects.filter(pk=pk, sent=False).update(sent=True)`: a claim.
        let mut claims = false;
        if let Expr::Attribute(attr) = &*call.func
            && self.ex.catalog.orm.update_methods.has(attr.attr.as_str())
        {
            let selected = self.selected_fields(&attr.value);
            // `update(sent=True)`, or SQLAlchemy's `update({"sent": True})`.
            let set = keywords
                .iter()
                .map(|(name, value)| (Some(*name), value))
                .chain(
                    args.first()
                        .and_then(Value::dict)
                        .unwrap_or_default()
                        .iter()
                        .map(|(key, value)| (*key, value)),
                );
            // `filter(stock__gte=qty).update(stock=F("stock") - qty)` moves the field it selects
            // by, but within the bound: the row stays selected and a second run takes again.
            // (`filter(version=v).update(version=F("version") + 1)` does claim it.)
            let claimed = |name: Sym, value: &Value| {
                selected.contains(&name.as_str())
                    && !(value.flags & Value::ACCUMULATES != 0
                        && only_bounded(&attr.value, name.as_str(), &self.ex.catalog.orm))
            };
            if set
                .into_iter()
                .any(|(name, value)| name.is_some_and(|name| claimed(name, value)))
            {
                value.flags |= Value::CLAIM;
                claims = true;
            }
        }
        // `Coalesce(F("x"), 0) + 1`, `Greatest(F("x") - n, 0)`: a database function of the
        // stored value reads it, and carries an increment of it on.
        if let Some(path) = &path
            && catalog.is_stored_function(path)
        {
            if let Some(stored) = args.iter().find_map(|arg| {
                arg.path
                    .as_ref()
                    .filter(|p| catalog.is_stored_value(p))
                    .cloned()
            }) {
                value.path = Some(stored);
            }
            if args.iter().any(|arg| arg.flags & Value::ACCUMULATES != 0) {
                value.flags |= Value::ACCUMULATES;
            }
        }
        if role == Some(CallRole::Duration)
            && let Some(seconds) = timedelta_seconds(&args, &keywords)
        {
            value.lit = Lit::Float(seconds);
        }
        // A request object keeps its arguments, positional ones under their parameter's name,
        // for the sink it is passed to; not when they are spread (`Request(**spec)`).
        if let Some(CallRole::Request(index)) = role
            && !star_args
            && !star_kwargs
        {
            let params = self.ex.catalog.request_params(index);
            let mut kept = CallArgs {
                args: Vec::new(),
                keywords: keywords.clone(),
            };
            for (i, arg) in args.iter().enumerate() {
                match params.get(i) {
                    Some(param) => kept.keywords.push((*param, arg.clone())),
                    None => kept.args.push(arg.clone()),
                }
            }
            value.call = Some(Box::new(kept));
            value.flags |= Value::REQUEST;
        }
        // `partial(f, ...)` stands for `f`: calling the result calls `f`, with the arguments
        // bound here first; so does `sync_to_async(f)`, binding nothing.
        if let Some(CallRole::Binder(binder)) = role
            && run.is_none()
            && let Some(function) = args
                .first()
                .filter(|a| a.path.as_ref().is_some_and(|p| !p.is_call()))
        {
            value.path = function.path.clone();
            value.flags |= Value::BOUND;
            value.call = match binder {
                Binder::Arguments if args.len() > 1 || !keywords.is_empty() => {
                    Some(Box::new(CallArgs {
                        args: args[1..].to_vec(),
                        keywords: keywords.clone(),
                    }))
                }
                _ => None,
            };
        }
        self.insert_claim(call, method, &args, &mut value);

        let receiver_var = match &*call.func {
            _ if run.is_some() => None,
            Expr::Attribute(attr) => object.or_else(|| root_name(&attr.value).map(Sym::new)),
            _ => None,
        };
        if pure {
            match &*call.func {
                Expr::Name(_) => self.converted_param(method, &args, &keywords, &mut value),
                // `"settle-{}".format(ref)`: a text made from the parameter.
                Expr::Attribute(attr)
                    if method.as_str() == "format"
                        && keywords.is_empty()
                        && let [arg] = &args[..]
                        && matches!(&*attr.value, Expr::StringLiteral(_)) =>
                {
                    text_of_param(&mut value, arg, true);
                }
                // `"refund-{}-{}".format(order_id, attempt)`.
                Expr::Attribute(attr)
                    if method.as_str() == "format"
                        && matches!(&*attr.value, Expr::StringLiteral(_)) =>
                {
                    for part in args.iter().chain(keywords.iter().map(|(_, kw)| kw)) {
                        add_param_part(&mut value, part);
                    }
                }
                _ => {}
            }
            return value;
        }
        let dynamic = match &*call.func {
            _ if run.is_some() => false,
            Expr::Call(_) => !bound,
            Expr::Subscript(_) => handler.is_none(),
            Expr::Lambda(_) => true,
            Expr::Name(_) => {
                self.params.contains_key(&method) && !self.locals.contains_key(&method)
            }
            _ => false,
        };
        // `transaction.on_commit(notify)` calls `notify` later in the run: a call of its own,
        // at the argument, in a deferred block (as a lambda's calls are).
        let later = match role {
            Some(CallRole::Runner(runner)) if runner.later => {
                let given = match call.arguments.args.get(runner.function) {
                    Some(expr) => args.get(runner.function).map(|target| (expr, target)),
                    None => runner.keyword.and_then(|name| {
                        let expr = call
                            .arguments
                            .keywords
                            .iter()
                            .find(|k| k.arg.as_ref().is_some_and(|a| a.as_str() == &*name))?;
                        let target = keywords.iter().find(|(k, _)| *k == name)?;
                        Some((&expr.value, &target.1))
                    }),
                };
                given
                    .filter(|(_, target)| target.path.as_ref().is_some_and(|p| !p.is_call()))
                    .map(|(expr, target)| (expr.range(), target.clone()))
            }
            _ => None,
        };
        let block = match repeats {
            true => self.push_block(block, BlockKind::Loop { ends: Ends::Falls }),
            false => block,
        };
        self.push_event(
            block,
            EventKind::Call(Box::new(CallSite {
                range: call.range(),
                func_range: call.func.range(),
                args_range: call.arguments.range,
                path,
                method,
                receiver,
                receiver_var,
                arguments: (!args.is_empty() || !keywords.is_empty())
                    .then(|| Box::new(CallArgs { args, keywords })),
                star_args,
                star_kwargs,
                spreads,
                dynamic,
                marks: if claims {
                    CallMarks::claiming()
                } else {
                    CallMarks::default()
                },
                dropped: Dropped::default(),
            })),
        );
        if let Some((range, target)) = later {
            self.later_call(block, range, target);
        }
        value
    }

    /// Marks the answer of an insert that claims a row: `INSERT ... ON CONFLICT DO NOTHING
    /// RETURNING id` run by `execute`/`fetchrow` (or SQLAlchemy's
    /// `insert(M).values(...).on_conflict_do_nothing().returning(M.id)`), and what a fetch
    /// reads from it (`.scalar_one_or_none()`, `cur.fetchone()`), is empty when an earlier run
    /// inserted the row first: a `created` flag, whose marker is the insert. Out of line, off
    /// `call_of`'s recursive frame.
    #[inline(never)]
    fn insert_claim(
        &mut self,
        call: &ast::ExprCall,
        method: Sym,
        args: &[Value],
        value: &mut Value,
    ) {
        let catalog = self.ex.catalog;
        if !catalog.runs_or_fetches(method) {
            return;
        }
        let fetch = catalog.is_fetch(method.as_str());
        let runs = catalog.writes.is_sql_method(method.as_str());
        let claims = |arg: &Value| match &arg.lit {
            Lit::Str(sql) => catalog.claims_insert_sql(sql),
            _ => arg
                .path
                .as_ref()
                .is_some_and(|path| catalog.claims_insert_statement(path)),
        };
        let receiver = match &*call.func {
            Expr::Attribute(attr) => Some(match &*attr.value {
                Expr::Await(awaited) => &*awaited.value,
                other => other,
            }),
            _ => None,
        };
        let marker = if args.first().is_some_and(claims) {
            // `cur.execute("INSERT ... RETURNING id")`, then `cur.fetchone()`: the cursor
            // holds the answer.
            if runs
                && let Some(Expr::Name(cursor)) = receiver
                && let Some(local) = self.locals.get_mut(&Sym::new(cursor.id.as_str()))
                && !local.range.is_empty()
            {
                local.flags |= Value::CREATED;
                let at = local.range;
                self.insert_claims.push((at, call.range()));
            }
            Some(call.range())
        } else if fetch {
            let at = match receiver {
                Some(Expr::Call(inner)) => Some(inner.range()),
                Some(Expr::Name(name)) => self
                    .local_ref(name.id.as_str(), Sym::new(name.id.as_str()))
                    .filter(|local| local.flags & Value::CREATED != 0)
                    .map(|local| local.range),
                _ => None,
            };
            at.and_then(|at| {
                self.insert_claims
                    .iter()
                    .find(|(claim, _)| *claim == at)
                    .map(|(_, insert)| *insert)
            })
        } else {
            None
        };
        if let Some(insert) = marker {
            value.flags |= Value::CREATED;
            if !self.insert_claims.iter().any(|(at, _)| *at == call.range()) {
                self.insert_claims.push((call.range(), insert));
            }
        }
    }

    /// The call a runner makes later of the function it is given (`on_commit(notify)`,
    /// `on_commit(partial(notify, pk))`), in a deferred block of its own.
    fn later_call(&mut self, block: u32, range: TextRange, mut target: Value) {
        let Some(path) = target.path.take() else {
            return;
        };
        let Some(method) = path.0.last().map(|seg| seg.name) else {
            return;
        };
        let path = path.instance();
        let receiver = path.0.len().checked_sub(2).map(|i| path.0[i].name);
        let arguments = (target.flags & Value::BOUND != 0)
            .then(|| target.call.take())
            .flatten();
        let deferred = self.push_block(block, BlockKind::Deferred);
        self.push_event(
            deferred,
            EventKind::Call(Box::new(CallSite {
                range,
                func_range: range,
                args_range: TextRange::empty(range.end()),
                path: Some(path),
                method,
                receiver,
                receiver_var: None,
                arguments,
                star_args: false,
                star_kwargs: false,
                spreads: None,
                dynamic: false,
                marks: CallMarks::default(),
                dropped: Dropped::default(),
            })),
        );
    }
}

/// A `case` pattern that compares with values: `case "sent":`, `case True:`, `case "a" | "b":`.
fn is_value_pattern(pattern: &ast::Pattern) -> bool {
    match pattern {
        ast::Pattern::MatchValue(_) | ast::Pattern::MatchSingleton(_) => true,
        ast::Pattern::MatchOr(or) => or.patterns.iter().all(is_value_pattern),
        _ => false,
    }
}

/// The field a class pattern tests for a done value, `receipt_sent` in `case
/// Order(receipt_sent=True):` or `case Order(status="sent" | "refunded"):`: one keyword, no
/// positional patterns, compared with values other than `False` and `None`.
fn done_class_pattern(pattern: &ast::Pattern) -> Option<&str> {
    let ast::Pattern::MatchClass(class) = pattern else {
        return None;
    };
    let [keyword] = &*class.arguments.keywords else {
        return None;
    };
    let truthy = |p: &ast::Pattern| match p {
        ast::Pattern::MatchSingleton(single) => single.value == ast::Singleton::True,
        other => is_value_pattern(other),
    };
    let values_truthy = match &keyword.pattern {
        ast::Pattern::MatchOr(or) => or.patterns.iter().all(truthy),
        other => truthy(other),
    };
    (class.arguments.patterns.is_empty() && values_truthy).then_some(keyword.attr.as_str())
}

/// `Order.objects.filter(...)` iterated: each item is `Order.objects.filter(...).__iter__()`,
/// a row loaded from the database if the catalog lists `__iter__` among the ORM's row methods
/// and loaders; the project then types it as an instance, `Order()`.
fn row_of_queryset(path: &QPath, orm: &Orm) -> Option<QPath> {
    let at = path
        .0
        .iter()
        .position(|s| orm.managers.iter().any(|m| *m == *s.name))?;
    if at == 0 {
        return None;
    }
    let mut row = path.clone();
    row.0.push(Seg {
        name: Sym::new("__iter__"),
        call: Call::Any,
    });
    Some(row)
}

/// A value kept only for its literal (model field options, constraint fields): calls and
/// names inside it are dropped, since nothing reads them there.
fn literal_only(value: &Value) -> Value {
    let lit = match &value.lit {
        Lit::Seq(items) => Lit::Seq(items.iter().map(literal_only).collect()),
        Lit::Dict(_) | Lit::Other => Lit::Other,
        other => other.clone(),
    };
    // A plain name (`func(book_pickup)`) keeps its path: registries name functions that way.
    let path = value.path.as_ref().filter(|p| !p.is_call()).cloned();
    Value {
        range: value.range,
        lit,
        path,
        name: value.name,
        // `Lower("email")` in a class body: the field a functional constraint reads.
        first_arg: value
            .first_arg
            .as_ref()
            .filter(|arg| matches!(arg.lit, Lit::Str(_)))
            .cloned(),
        ..Value::default()
    }
}

/// The table of a `DELETE FROM <table>` statement in a string literal, lower-case.
fn deleted_table(text: &str) -> Option<String> {
    // Almost no string literal says `delete`: look for it before making a lower-case copy.
    let head = &text.as_bytes()[..text.len().min(4096)];
    let says_delete = memchr::memchr2_iter(b'd', b'D', head).any(|at| {
        head.get(at..at + 6)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"delete"))
    });
    if !says_delete {
        return None;
    }
    let lower = text.get(..text.len().min(4096))?.to_ascii_lowercase();
    let at = lower.find("delete")?;
    let rest = lower[at + "delete".len()..]
        .trim_start()
        .strip_prefix("from")?;
    let table: String = rest
        .trim_start()
        .trim_start_matches(['"', '`', '['])
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.'))
        .collect();
    let table = table.rsplit('.').next().unwrap_or_default().to_string();
    (!table.is_empty()).then_some(table)
}

/// Whether SQL text ends `DELETE FROM` (and an opening quote), so that what follows names the
/// table.
fn ends_with_delete_from(text: &str) -> bool {
    let text = text.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '`' | '['));
    let Some(start) = text.len().checked_sub("from".len()) else {
        return false;
    };
    if !text
        .get(start..)
        .is_some_and(|w| w.eq_ignore_ascii_case("from"))
    {
        return false;
    }
    let text = text[..start].trim_end();
    let Some(start) = text.len().checked_sub("delete".len()) else {
        return false;
    };
    text.get(start..)
        .is_some_and(|w| w.eq_ignore_ascii_case("delete"))
        && !text[..start]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// Sets `key` in a dict's entries, as `d[key] = value` does; an entry whose key is not known is
/// added beside the others.
fn put_entry(items: &mut Vec<DictItem>, key: Option<Sym>, value: Value) {
    match items.iter_mut().find(|(k, _)| key.is_some() && *k == key) {
        Some(entry) => entry.1 = value,
        None => items.push((key, value)),
    }
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// `"DELETE FROM {} WHERE ...".format(Model._meta.db_table)`: the model whose rows the
/// statement deletes, when the first placeholder follows `DELETE FROM` and ends the name.
/// What an annotation says a parameter holds (`dict[str, Any]`, `Optional[list[int]]`), by the
/// name of the type written.
fn param_shape(annotation: &Expr) -> ParamShape {
    let name = match annotation {
        Expr::Name(name) => name.id.as_str(),
        Expr::Attribute(attr) => attr.attr.as_str(),
        Expr::Subscript(sub) => {
            let outer = param_shape(&sub.value);
            if outer != ParamShape::Unknown {
                return outer;
            }
            // `Optional[dict]`, `Annotated[dict, ...]`: the first type inside.
            return match &*sub.slice {
                Expr::Tuple(tuple) => tuple.elts.first().map_or(ParamShape::Unknown, param_shape),
                inner => param_shape(inner),
            };
        }
        // `dict | None`.
        Expr::BinOp(bin) => return param_shape(&bin.left),
        _ => return ParamShape::Unknown,
    };
    match name {
        "dict" | "Dict" | "Mapping" | "MutableMapping" | "TypedDict" => ParamShape::Mapping,
        "list" | "List" | "Sequence" | "MutableSequence" | "Iterable" | "Iterator" | "set"
        | "Set" | "frozenset" | "FrozenSet" | "tuple" | "Tuple" | "bytes" | "Collection" => {
            ParamShape::Collection
        }
        _ => ParamShape::Unknown,
    }
}

/// A text made from one parameter and written text (`"settle-" + ref`, `"settle-%s" % ref`,
/// `"settle-{}".format(ref)`; `written` says the rest is written text): made from what the
/// caller gives for the parameter, as `f"settle-{ref}"` is, so it keeps the name.
#[inline(never)]
fn text_of_param(value: &mut Value, param: &Value, written: bool) {
    if written && param.flags & Value::PARAM != 0 && param.name.is_some() && param.taint.is_empty()
    {
        value.name = param.name;
        value.flags |= Value::PARAM;
        if !value.is_text() {
            value.lit = Lit::Prefix("".into());
        }
    }
}

/// Records that a text made of several parts has a parameter among them, as it was given
/// (`attempt` in `f"refund-{order_id}-{attempt}"`): see [`Taint::Param`].
fn add_param_part(value: &mut Value, part: &Value) {
    if part.flags & Value::PARAM != 0
        && part.taint.is_empty()
        && let Some(name) = part.name
    {
        merge_taint(&mut value.taint, &[Taint::Param { name }]);
    }
}

/// A text made of one parameter alone is that parameter ([`text_of_param`]), not a text with
/// it among its parts.
fn drop_alone_param(value: &mut Value) {
    if value.flags & Value::PARAM != 0
        && let Some(name) = value.name
    {
        value.taint.retain(|t| *t != Taint::Param { name });
    }
}

fn format_deleted_model(catalog: &Catalog, template: &str, args: &[Value]) -> Option<QPath> {
    let (before, rest) = template
        .split_once("{}")
        .or_else(|| template.split_once("{0}"))?;
    if !ends_with_delete_from(before) || rest.chars().next().is_some_and(is_identifier_char) {
        return None;
    }
    args.first()?
        .path
        .as_ref()
        .and_then(|path| catalog.table_owner(path))
}

/// Whether a method is decorated `@staticmethod`: it has no `self`.
fn is_static_method(def: &ast::StmtFunctionDef) -> bool {
    def.decorator_list
        .iter()
        .any(|d| matches!(&d.expression, Expr::Name(n) if n.id.as_str() == "staticmethod"))
}

/// The name a method calls its instance by: its first parameter, unless it is static
/// (as [`Walker::params`] reads it for a method).
fn self_parameter(def: &ast::StmtFunctionDef) -> Option<&str> {
    if is_static_method(def) {
        return None;
    }
    let parameters = &def.parameters;
    parameters
        .posonlyargs
        .iter()
        .chain(&parameters.args)
        .chain(&parameters.kwonlyargs)
        .next()
        .map(|param| param.parameter.name.as_str())
}

/// Adds `entries` to a client's default headers: into those `held`, or, when it holds none,
/// as new ones if a key header is among them (returned, for the caller to keep).
fn join_client_headers(
    held: Option<&mut Value>,
    entries: Vec<DictItem>,
    catalog: &Catalog,
) -> Option<Value> {
    match held {
        Some(Value {
            lit: Lit::Dict(items),
            ..
        }) => {
            for (key, value) in entries {
                put_entry(items, key, value);
            }
            None
        }
        Some(_) => None,
        None => entries
            .iter()
            .any(|(k, _)| k.is_some_and(|k| catalog.is_key_header(&k)))
            .then(|| Value {
                lit: Lit::Dict(entries),
                ..Value::default()
            }),
    }
}

/// Whether a method body assigns `self.x` where [`Walker::collect_self_attrs`] looks (the body
/// and the bodies of its `if`, `try` and `with` statements).
fn assigns_self_attr(suite: &[Stmt], self_name: &str) -> bool {
    suite.iter().any(|stmt| match stmt {
        Stmt::Assign(assign) => assign.targets.iter().any(|target| {
            matches!(target, Expr::Attribute(attr)
                if matches!(&*attr.value, Expr::Name(n) if n.id.as_str() == self_name))
        }),
        Stmt::If(stmt_if) => {
            assigns_self_attr(&stmt_if.body, self_name)
                || stmt_if
                    .elif_else_clauses
                    .iter()
                    .any(|clause| assigns_self_attr(&clause.body, self_name))
        }
        Stmt::Try(stmt_try) => assigns_self_attr(&stmt_try.body, self_name),
        Stmt::With(with) => assigns_self_attr(&with.body, self_name),
        _ => false,
    })
}

/// `QPath::from_dotted(dotted)`, remembered in `cache`: a module names the same imports over
/// and over.
fn cached_path(cache: &mut HashMap<String, QPath>, dotted: &str) -> QPath {
    if let Some(path) = cache.get(dotted) {
        return with_room(path);
    }
    let path = QPath::from_dotted(dotted);
    let copy = with_room(&path);
    cache.insert(dotted.to_string(), path);
    copy
}

/// Segments an attribute chain may add to a path in place: a path built for a name usually
/// grows by an attribute or two (`self.request.id`, `models.Order.objects`).
const PATH_ROOM: usize = 3;

/// Whether a method's path names it on an instance of a class: the receiver is a call of a
/// capitalised name (`billing.YooKassaReversal().reverse`).
fn on_instance(path: &QPath) -> bool {
    let segs = path.segs();
    segs.len() >= 2
        && segs[segs.len() - 2].call != Call::No
        && segs[segs.len() - 2]
            .name
            .as_str()
            .starts_with(|c: char| c.is_ascii_uppercase())
}

/// The most functions a dict of handlers is read as calling ([`Walker::handlers`]).
const MAX_HANDLERS: usize = 8;

/// A copy of `path` with room for [`PATH_ROOM`] more segments.
fn with_room(path: &QPath) -> QPath {
    let mut segs = Vec::with_capacity(path.0.len() + PATH_ROOM);
    segs.extend_from_slice(&path.0);
    QPath(segs)
}

/// A copy of `value` whose path has room for [`PATH_ROOM`] more segments.
fn copy_with_room(value: &Value) -> Value {
    Value {
        range: value.range,
        label: value.label,
        lit: value.lit.clone(),
        path: value.path.as_ref().map(with_room),
        name: value.name,
        taint: value.taint.clone(),
        flags: value.flags,
        first_arg: value.first_arg.clone(),
        call: value.call.clone(),
    }
}

fn qualify(module: &str, name: &str) -> String {
    if module.is_empty() {
        name.to_string()
    } else {
        dotted_join(module, name)
    }
}

/// Whether a suite ends by leaving the function (`return`, `raise`).
fn leaves(suite: &[Stmt]) -> bool {
    matches!(exits(suite), Some(Exit::Return | Exit::Raise))
}

/// `Product.stock + qty`, `qty + Product.stock`, `Event.seats - 1`: a sum or difference with
/// the column `column` of a table or model.
fn adds_to_column(value: &Expr, column: &str) -> bool {
    let Expr::BinOp(bin) = value else {
        return false;
    };
    let is_column =
        |operand: &Expr| matches!(operand, Expr::Attribute(attr) if attr.attr.as_str() == column);
    matches!(bin.op, Operator::Add | Operator::Sub)
        && (is_column(&bin.left) || bin.op == Operator::Add && is_column(&bin.right))
}

/// `count > 0`, `count >= 1`, `count == 1`, `count != 0`: true when a conditional update
/// changed a row.
fn claimed_count(compare: &ast::ExprCompare) -> bool {
    let ([op], [Expr::NumberLiteral(number)]) = (&*compare.ops, &*compare.comparators) else {
        return false;
    };
    let ast::Number::Int(int) = &number.value else {
        return false;
    };
    matches!(
        (op, int.as_u8()),
        (CmpOp::Gt | CmpOp::NotEq, Some(0)) | (CmpOp::GtE | CmpOp::Eq, Some(1))
    )
}

/// How a suite's statements end, for the loop around them.
fn ends(suite: &[Stmt]) -> Ends {
    match suite.last() {
        Some(Stmt::Return(_) | Stmt::Raise(_)) => Ends::Leaves,
        Some(Stmt::Break(_)) => Ends::Breaks,
        Some(Stmt::Continue(_)) => Ends::Continues,
        _ => Ends::Falls,
    }
}

/// Whether `name` is a Python identifier: [`is_identifier_char`]s, not starting with a digit.
fn is_identifier(name: &str) -> bool {
    name.chars().next().is_some_and(|c| !c.is_numeric()) && name.chars().all(is_identifier_char)
}

/// The states `field == "sent"` or `field in ("sent", Status.FAILED)` compares with, as
/// written (a string's text, a constant's last name); none when a side is anything else.
fn tested_states(compare: &ast::ExprCompare) -> ThinVec<Sym> {
    if !matches!(&*compare.left, Expr::Attribute(_))
        || !compare
            .ops
            .iter()
            .all(|op| matches!(op, CmpOp::Eq | CmpOp::In))
    {
        return ThinVec::new();
    }
    let mut states = ThinVec::new();
    let mut push = |expr: &Expr| {
        let state = state_name(expr)?;
        if states.len() < MAX_STATES && !states.contains(&state) {
            states.push(state);
        }
        Some(())
    };
    for comparator in &compare.comparators {
        let known = match comparator {
            Expr::Tuple(ast::ExprTuple { elts, .. })
            | Expr::List(ast::ExprList { elts, .. })
            | Expr::Set(ast::ExprSet { elts, .. }) => elts.iter().all(|e| push(e).is_some()),
            other => push(other).is_some(),
        };
        if !known {
            return ThinVec::new();
        }
    }
    states
}

/// How many states a guard keeps ([`tested_states`]), and how long one may be.
const MAX_STATES: usize = 8;
const MAX_STATE_LEN: usize = 64;

/// A state as written: a string's text, or the last name of a constant (`Status.SENT`).
fn state_name(expr: &Expr) -> Option<Sym> {
    match expr {
        Expr::StringLiteral(s) => {
            let text = s.value.to_str();
            (text.len() <= MAX_STATE_LEN).then(|| Sym::new(text))
        }
        Expr::Attribute(attr) => Some(Sym::new(attr.attr.as_str())),
        _ => None,
    }
}

/// Whether a loop body holds a `break` of its own loop (not of a loop inside it).
fn breaks_out(suite: &[Stmt]) -> bool {
    suite.iter().any(|stmt| match stmt {
        Stmt::Break(_) => true,
        Stmt::If(stmt_if) => {
            breaks_out(&stmt_if.body)
                || stmt_if
                    .elif_else_clauses
                    .iter()
                    .any(|clause| breaks_out(&clause.body))
        }
        Stmt::With(with) => breaks_out(&with.body),
        Stmt::Try(stmt_try) => {
            breaks_out(&stmt_try.body)
                || stmt_try
                    .handlers
                    .iter()
                    .any(|ast::ExceptHandler::ExceptHandler(h)| breaks_out(&h.body))
                || breaks_out(&stmt_try.orelse)
                || breaks_out(&stmt_try.finalbody)
        }
        Stmt::Match(stmt_match) => stmt_match.cases.iter().any(|case| breaks_out(&case.body)),
        // A loop's own `else` belongs to the outer loop's pass.
        Stmt::For(inner) => breaks_out(&inner.orelse),
        Stmt::While(inner) => breaks_out(&inner.orelse),
        _ => false,
    })
}

/// How a suite leaves: its last statement returns, raises or continues.
fn exits(suite: &[Stmt]) -> Option<Exit> {
    match suite.last()? {
        Stmt::Return(_) => Some(Exit::Return),
        Stmt::Raise(_) => Some(Exit::Raise),
        Stmt::Continue(_) => Some(Exit::Continue),
        _ => None,
    }
}

/// What a returned dict keeps: its key-header entries (a helper that builds a sink's
/// `headers=`), and one entry without a name when others were not known (`**base`).
fn key_headers(items: &[DictItem], catalog: &Catalog) -> Vec<DictItem> {
    let mut kept: Vec<DictItem> = items
        .iter()
        .filter(|(name, _)| name.is_some_and(|n| catalog.is_key_header(&n)))
        .cloned()
        .collect();
    if items.iter().any(|(name, _)| name.is_none()) {
        kept.push((None, Value::default()));
    }
    kept
}

/// `obj.x = obj.x + n` (or `obj.x - n`, `n + obj.x`): the stored value read and written back,
/// as `obj.x += n` does; not text (`obj.notes = obj.notes + "\n" + line`).
fn is_spelled_out_increment(target: &Expr, value: &Expr) -> bool {
    let Expr::BinOp(top) = value else {
        return false;
    };
    let target = ComparableExpr::from(target);
    let is_text = |e: &Expr| matches!(e, Expr::StringLiteral(_) | Expr::FString(_));
    if top.op == Operator::Add && ComparableExpr::from(&*top.right) == target {
        return !is_text(&top.left);
    }
    let mut operand = value;
    while let Expr::BinOp(bin) = operand {
        if !matches!(bin.op, Operator::Add | Operator::Sub) || is_text(&bin.right) {
            return false;
        }
        operand = &bin.left;
    }
    ComparableExpr::from(operand) == target
}

/// The local name an attribute chain starts from: `order` in `order.customer.email`.
fn root_name(expr: &Expr) -> Option<&str> {
    match expr {
        Expr::Name(name) => Some(name.id.as_str()),
        Expr::Attribute(attr) => root_name(&attr.value),
        Expr::Call(call) => root_name(&call.func),
        Expr::Subscript(sub) => root_name(&sub.value),
        _ => None,
    }
}

/// `typing`'s forms that wrap the class an annotation names (`Optional[Ledger]`).
const TYPING_WRAPPERS: &[&str] = &[
    "Optional",
    "Union",
    "Annotated",
    "Final",
    "ClassVar",
    "Required",
    "NotRequired",
    "ReadOnly",
];

/// The identifier right before a method: `payment_gateway` in `payment_gateway.capture`,
/// `messages` in `client.messages.create`, `api` in `get_api().refund`; with the entry of a
/// mapping, whose key names what it holds: `ctx["redis"]` in arq's `ctx["redis"].rpush`.
fn receiver_name(expr: &Expr) -> Option<std::borrow::Cow<'_, str>> {
    match expr {
        Expr::Name(name) => Some(name.id.as_str().into()),
        Expr::Attribute(attr) => Some(attr.attr.as_str().into()),
        Expr::Call(call) => receiver_name(&call.func),
        Expr::Subscript(sub) => {
            let mapping = receiver_name(&sub.value);
            match (&*sub.slice, mapping) {
                (Expr::StringLiteral(key), Some(mapping)) => {
                    Some(format!("{mapping}[\"{}\"]", key.value.to_str()).into())
                }
                (_, mapping) => mapping,
            }
        }
        _ => None,
    }
}

/// What `if not x:` / `if x is None:` tests the absence of, when it is a name or an attribute
/// of a name.
fn absent_test(test: &Expr) -> Option<&Expr> {
    let tested = match test {
        Expr::UnaryOp(unary) if unary.op == UnaryOp::Not => &*unary.operand,
        Expr::Compare(compare)
            if matches!(compare.ops.as_ref(), [ast::CmpOp::Is | ast::CmpOp::Eq])
                && matches!(compare.comparators.as_ref(), [Expr::NoneLiteral(_)]) =>
        {
            &*compare.left
        }
        _ => return None,
    };
    match tested {
        Expr::Name(_) => Some(tested),
        Expr::Attribute(attr) if attr.value.is_name_expr() => Some(tested),
        _ => None,
    }
}

/// A value written to a field, as far as a guard's comparison needs it: a literal, or a
/// constant by its last name (`Status.PENDING`, `Dispatch.Status.PENDING`).
#[derive(Clone, PartialEq)]
enum Written {
    Str(Box<str>),
    Int(i64),
    Bool(bool),
    None,
    Constant(Sym),
    Unknown,
}

impl Written {
    fn of(expr: &Expr) -> Written {
        match expr {
            Expr::StringLiteral(s) => Written::Str(s.value.to_str().into()),
            Expr::NumberLiteral(ast::ExprNumberLiteral {
                value: ast::Number::Int(n),
                ..
            }) => n.as_i64().map_or(Written::Unknown, Written::Int),
            Expr::BooleanLiteral(b) => Written::Bool(b.value),
            Expr::NoneLiteral(_) => Written::None,
            Expr::Attribute(attr) => Written::Constant(Sym::new(attr.attr.as_str())),
            _ => Written::Unknown,
        }
    }

    fn from_value(value: &Value) -> Written {
        match &value.lit {
            Lit::Str(s) => Written::Str(s.clone()),
            Lit::Int(n) => Written::Int(*n),
            Lit::Bool(b) => Written::Bool(*b),
            Lit::None => Written::None,
            _ => match value.path.as_ref() {
                Some(path) if path.0.len() >= 2 && path.0.iter().all(|s| s.call == Call::No) => {
                    path.0
                        .last()
                        .map_or(Written::Unknown, |s| Written::Constant(s.name))
                }
                _ => Written::Unknown,
            },
        }
    }
}

/// Makes `item` item `i` of `(obj, created)`, the result `value` of a `get_or_create`-like
/// call: the object (typed by the call's path) or the `created` flag, both placed at the call.
fn get_or_create_item(value: &Value, i: usize, item: &mut Value) {
    item.range = value.range;
    if i == 0 {
        item.path = value.path.clone();
    } else if i == 1 {
        item.flags |= Value::CREATED;
    }
}

/// `x is None`, `x is False`, `x == False` test that `x` is false (`Some((x, false))`); `x is
/// not None`, `x is True`, `x is not False` that it is true (`Some((x, true))`): how the result
/// of a set-if-absent call (`None` from redis-py when the key exists) or a `created` flag is
/// often tested instead of `not x`.
/// Merges the taint of `base[index]` into `into`: `pair[0]` of a helper's result is its first
/// item. Out of line, off `expr`'s recursive frame.
#[inline(never)]
fn merge_item_taint(into: &mut ThinVec<Taint>, base: &Value, index: &Value) {
    match index.as_int().and_then(|i| usize::try_from(i).ok()) {
        Some(i) if !matches!(base.lit, Lit::Seq(_)) => {
            let items: Vec<Taint> = base.taint.iter().map(|t| t.item(i)).collect();
            merge_taint(into, &items);
        }
        _ => merge_taint(into, &base.taint),
    }
}

/// Whether a comparison of a changed-rows count says no row changed: `== 0`, `!= 1`, `< 1`,
/// `<= 0`.
fn counts_none(compare: &ast::ExprCompare) -> bool {
    let ([op], [Expr::NumberLiteral(number)]) = (&*compare.ops, &*compare.comparators) else {
        return false;
    };
    let ast::Number::Int(n) = &number.value else {
        return false;
    };
    matches!(
        (op, n.as_u8()),
        (CmpOp::Eq | CmpOp::LtE, Some(0)) | (CmpOp::NotEq | CmpOp::Lt, Some(1))
    )
}

fn truth_comparison(compare: &ast::ExprCompare) -> Option<(&Expr, bool)> {
    let ([op], [right]) = (&*compare.ops, &*compare.comparators) else {
        return None;
    };
    let against_false = match right {
        Expr::NoneLiteral(_) => true,
        Expr::BooleanLiteral(literal) => !literal.value,
        // `r.hsetnx(k, f, 1) == 0`: a count or a flag as an integer.
        Expr::NumberLiteral(ast::ExprNumberLiteral {
            value: ast::Number::Int(n),
            ..
        }) if n.as_u8() == Some(0) => true,
        _ => return None,
    };
    let equal = match op {
        CmpOp::Is | CmpOp::Eq => true,
        CmpOp::IsNot | CmpOp::NotEq => false,
        _ => return None,
    };
    Some((unwalrus(&compare.left), equal != against_false))
}

/// Whether `taint` is a nondeterministic source (`uuid4()`): the one kind of taint that means
/// the same outside the function it was made in. Every instance that assigns
/// `self.key = str(uuid4())`, so every run that builds one, has a new key.
fn is_source(taint: &Taint) -> bool {
    matches!(taint, Taint::Nondet { .. })
}

fn merge_taint(into: &mut ThinVec<Taint>, from: &[Taint]) {
    for taint in from {
        if into.len() >= MAX_TAINT {
            return;
        }
        if !into.contains(taint) {
            into.push(*taint);
        }
    }
}

/// The seconds of `timedelta(days, seconds, microseconds, milliseconds, minutes, hours, weeks)`
/// when every argument is a number.
fn timedelta_seconds(args: &[Value], keywords: &[(Sym, Value)]) -> Option<f64> {
    const UNITS: [(&str, f64); 7] = [
        ("days", 86_400.0),
        ("seconds", 1.0),
        ("microseconds", 1e-6),
        ("milliseconds", 1e-3),
        ("minutes", 60.0),
        ("hours", 3_600.0),
        ("weeks", 604_800.0),
    ];
    if args.len() > UNITS.len() {
        return None;
    }
    let mut total = 0.0;
    for (value, (_, unit)) in args.iter().zip(UNITS) {
        total += value.as_f64()? * unit;
    }
    for (name, value) in keywords {
        let (_, unit) = UNITS.iter().find(|(n, _)| *n == name.as_str())?;
        total += value.as_f64()? * unit;
    }
    total.is_finite().then_some(total)
}

fn arith_op(op: Operator) -> Option<ArithOp> {
    Some(match op {
        Operator::Add => ArithOp::Add,
        Operator::Sub => ArithOp::Sub,
        Operator::Mult => ArithOp::Mul,
        Operator::Div => ArithOp::Div,
        Operator::FloorDiv => ArithOp::FloorDiv,
        Operator::Pow => ArithOp::Pow,
        Operator::Mod => ArithOp::Mod,
        _ => return None,
    })
}

/// A side of an arithmetic kept for later: a number, another kept operation, or a name that
/// reads as a constant (`HOUR`, `settings.LOCK_TTL`; upper case by convention).
fn is_arith_operand(value: &Value) -> bool {
    match &value.lit {
        Lit::Int(_) | Lit::Float(_) | Lit::Arith(_) => true,
        Lit::Other => value.path.as_ref().is_some_and(|path| {
            !path.is_call()
                && path.last_name().is_some_and(|name| {
                    name.bytes().any(|b| b.is_ascii_uppercase())
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                })
        }),
        _ => false,
    }
}

/// The operand as kept: its literal, or its path alone.
fn arith_operand(value: &Value) -> Value {
    Value {
        lit: value.lit.clone(),
        path: if matches!(value.lit, Lit::Other) {
            value.path.clone()
        } else {
            None
        },
        ..Value::default()
    }
}

/// A `StateNot { field }` guard (`if x.status != "pending": return`) is a done-check when a later
/// event writes that field (`x.status = "sent"`, `.update(status="sent")`), and a precondition
/// otherwise. A flag's guard (`on_path`) needs a write on the guarded path: in the guard's block
/// or in blocks that block always runs through (`with`, `try`). A catalog effect's keyword
/// writes no field of the row: `if ticket.channel == "slack": slack.chat_postMessage(channel=
/// "#support")` chooses where to post.
fn resolve_state_guards(events: &mut [Event], blocks: &[Block], catalog: &Catalog) {
    for index in 0..events.len() {
        let EventKind::Guard(guard) = &events[index].kind else {
            continue;
        };
        let GuardTest::StateNot {
            field,
            on_path,
            ref also,
        } = guard.test
        else {
            continue;
        };
        // The path the guard leaves from goes on past the `with` and `try` statements around
        // it: `with atomic(): row = ...first(); if not row: return`, then `row.status = "sent"`
        // after the block.
        let guarded = run_through_from(blocks, events[index].block);
        let written = |field: Sym| {
            events[index + 1..].iter().any(|event| {
                event.kind.writes_field(field)
                    && !matches!(&event.kind, EventKind::Call(call)
                        if call.path.as_ref().is_some_and(|path| catalog.sink(path).is_some()))
                    && (!on_path || always_runs_through(blocks, event.block, guarded))
            })
        };
        // The field written names the done-check (`sms_sent`, not the `status` selected with it).
        let done = std::iter::once(field)
            .chain(also.iter().copied())
            .find(|&field| written(field));
        if let EventKind::Guard(guard) = &mut events[index].kind {
            guard.test = match done {
                Some(field) => GuardTest::DoneCheck {
                    field: Some(field),
                    states: ThinVec::new(),
                },
                None => GuardTest::Precondition,
            };
        }
    }
}

/// Whether `expr` is a list, tuple or set display of one item, not unpacked (`[x]`, `(x,)`).
fn single_item(expr: &Expr) -> bool {
    let items = match expr {
        Expr::List(list) => &list.elts,
        Expr::Tuple(tuple) => &tuple.elts,
        Expr::Set(set) => &set.elts,
        _ => return false,
    };
    matches!(&items[..], [item] if !item.is_starred_expr())
}

/// The outermost block that `block` is reached from through `with`, `try` and `finally` blocks
/// only: the code of each runs on into the next.
fn run_through_from(blocks: &[Block], mut block: u32) -> u32 {
    while let Some(info) = blocks.get(block as usize)
        && let (BlockKind::With { .. } | BlockKind::Try { .. } | BlockKind::Finally, Some(parent)) =
            (&info.kind, info.parent)
    {
        block = parent;
    }
    block
}

/// Whether code in `ancestor` that reaches the end of `block`'s enclosing statements always runs
/// `block`: only `with`, `try` and `finally` blocks lie between them.
fn always_runs_through(blocks: &[Block], mut block: u32, ancestor: u32) -> bool {
    while block != ancestor {
        let Some(info) = blocks.get(block as usize) else {
            return false;
        };
        match (&info.kind, info.parent) {
            (BlockKind::With { .. } | BlockKind::Try { .. } | BlockKind::Finally, Some(parent)) => {
                block = parent;
            }
            _ => return false,
        }
    }
    true
}

/// The fields a queryset chain selects rows by: the keywords of its `filter(...)`,
/// `exclude(...)` calls, without their lookups (`status__in` is `status`).
fn queryset_fields<'a>(expr: &'a Expr, orm: &crate::catalog::Orm) -> Vec<&'a str> {
    queryset_lookups(expr, orm)
        .map(|lookup| lookup.split("__").next().unwrap_or(lookup))
        .collect()
}

/// The keywords of a query's filters (`pk`, `stock__gte`), from the outermost call in.
fn queryset_lookups<'a>(
    mut expr: &'a Expr,
    orm: &crate::catalog::Orm,
) -> impl Iterator<Item = &'a str> {
    std::iter::from_fn(move || {
        while let Expr::Call(call) = expr {
            let Expr::Attribute(attr) = &*call.func else {
                return None;
            };
            expr = &attr.value;
            while let Expr::Attribute(inner) = expr {
                expr = &inner.value;
            }
            if orm.lookup_methods.has(attr.attr.as_str()) {
                return Some(&call.arguments.keywords);
            }
        }
        None
    })
    .flatten()
    .filter_map(|keyword| keyword.arg.as_ref().map(ast::Identifier::as_str))
}

/// Whether every lookup of `field` in a query's filters bounds it (`stock__gte=qty`), none
/// matching it exactly: moving the field within the bound keeps the row selected.
fn only_bounded(expr: &Expr, field: &str, orm: &crate::catalog::Orm) -> bool {
    const BOUNDS: [&str; 4] = ["gt", "gte", "lt", "lte"];
    let mut lookups = queryset_lookups(expr, orm)
        .filter_map(|lookup| {
            let mut parts = lookup.split("__");
            (parts.next() == Some(field)).then(|| parts.next())
        })
        .peekable();
    lookups.peek().is_some()
        && lookups.all(|lookup| lookup.is_some_and(|lookup| BOUNDS.contains(&lookup)))
}

/// Binds the names among `targets` to `test` in `tests` (locals and what testing them tests),
/// or forgets what they held. Most assignments bind no test, and most functions hold none to
/// forget: names are interned only when one is.
fn rebind_tests(tests: &mut Vec<(Sym, GuardTest)>, targets: &[Expr], test: Option<GuardTest>) {
    if test.is_none() && tests.is_empty() {
        return;
    }
    for target in targets {
        let Expr::Name(name) = target else { continue };
        let sym = Sym::new(name.id.as_str());
        tests.retain(|(local, _)| *local != sym);
        if let Some(test) = &test {
            tests.push((sym, test.clone()));
        }
    }
}

/// The first of a query's fields that is not a key (`pk`, `id`, `order_id`): the state it
/// selects rows by.
/// The test of a row a query selected by `fields` (`filter(pk=pk, status="paid",
/// sms_sent=False)`): its state fields, those that are not keys, of which a later write of any
/// makes the test a done-check. `None` when it selects by keys only.
fn state_test(fields: Vec<&str>, orm: &crate::catalog::Orm) -> Option<GuardTest> {
    let mut state = fields.into_iter().filter(|field| !orm.is_key_field(field));
    let field = Sym::new(state.next()?);
    let mut also = ThinVec::new();
    for other in state {
        let other = Sym::new(other);
        if other != field && !also.contains(&other) {
            also.push(other);
        }
    }
    Some(GuardTest::StateNot {
        field,
        on_path: true,
        also,
    })
}

/// An f-string that is an SQL `INSERT` (`f"INSERT INTO archive_{shard} ..."`, or one after a
/// `WITH` clause), `DELETE` or `TRUNCATE`, as its literal text with `{}` for each
/// interpolation: what TW305 reads of a raw statement (the verb, the table, an `ON
/// CONFLICT`). Other f-strings keep no text.
#[inline(never)]
fn statement_template(fstring: &ast::ExprFString) -> Option<Box<str>> {
    let mut elements = fstring.value.elements();
    let Some(InterpolatedStringElement::Literal(first)) = elements.next() else {
        return None;
    };
    let start = first.trim_start().get(..6)?.to_ascii_lowercase();
    let verb = ["insert", "delete", "trunca"].contains(&start.as_str());
    if !verb && !start.starts_with("with") {
        return None;
    }
    let mut text = String::from(&**first);
    for element in elements {
        if text.len() >= MAX_STRING {
            break;
        }
        match element {
            InterpolatedStringElement::Literal(literal) => text.push_str(literal),
            InterpolatedStringElement::Interpolation(_) => text.push_str("{}"),
        }
    }
    (verb || text.to_ascii_lowercase().contains("insert into")).then(|| text.into())
}

/// Whether the written start of a string is kept as [`Lit::Prefix`]: it names a URL's scheme
/// (`redis://`), and is short. Other f-strings (log lines, keys) keep nothing: their starts
/// would only cost memory.
fn is_url_start(text: &str) -> bool {
    text.len() <= 64 && text.contains("://")
}

/// The exceptions an optional import raises (Python's own).
const IMPORT_ERRORS: [&str; 2] = ["ImportError", "ModuleNotFoundError"];

fn is_import_error(path: &QPath) -> bool {
    path.last_name()
        .is_some_and(|name| IMPORT_ERRORS.contains(&name))
}

/// `except ImportError:`, `except (ImportError, AttributeError):`, as written.
fn handler_catches_import_error(handler: &ast::ExceptHandlerExceptHandler) -> bool {
    let named =
        |expr: &Expr| matches!(expr, Expr::Name(name) if IMPORT_ERRORS.contains(&name.id.as_str()));
    match handler.type_.as_deref() {
        Some(Expr::Tuple(tuple)) => tuple.elts.iter().any(named),
        Some(expr) => named(expr),
        None => false,
    }
}

/// The value tested through an assignment expression: `cache.add(...)` in
/// `if not (fresh := cache.add(...)):`.
fn unwalrus(mut expr: &Expr) -> &Expr {
    while let Expr::Named(named) = expr {
        expr = &named.value;
    }
    expr
}

/// Marks the parameters among a value's parts (`[contact_ids]`, `{"ids": contact_ids}`) as
/// updated from themselves.
fn mark_updated(value: &mut Value, params: &[Sym]) {
    if value.flags & Value::PARAM != 0 && value.name.is_some_and(|n| params.contains(&n)) {
        value.flags |= Value::UPDATED;
    }
    match &mut value.lit {
        Lit::Seq(items) => {
            for item in items {
                mark_updated(item, params);
            }
        }
        Lit::Dict(items) => {
            for (_, item) in items {
                mark_updated(item, params);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{deleted_table, ends_with_delete_from, format_deleted_model};
    use crate::catalog::Catalog;
    use crate::facts::Value;
    use crate::path::QPath;

    #[test]
    fn delete_from_is_read_before_an_interpolated_table() {
        assert!(ends_with_delete_from("DELETE FROM "));
        assert!(ends_with_delete_from("  delete\n from \""));
        assert!(ends_with_delete_from("DeLeTe FrOm ["));
        assert!(!ends_with_delete_from("SELECT * FROM "));
        assert!(!ends_with_delete_from("undelete from "));
        assert!(!ends_with_delete_from("from "));
        assert!(!ends_with_delete_from(""));
    }

    #[test]
    fn format_templates_name_the_deleted_model() {
        let model = Value {
            path: Some(QPath::from_dotted("shop.Order._meta.db_table")),
            ..Value::default()
        };
        let catalog = Catalog::new(&[], &[]);
        let deleted = |template: &str| {
            format_deleted_model(&catalog, template, std::slice::from_ref(&model))
                .map(|p| p.dotted())
        };
        assert_eq!(
            deleted("DELETE FROM {} WHERE id = %s").as_deref(),
            Some("shop.Order")
        );
        assert_eq!(
            deleted("delete from \"{0}\"").as_deref(),
            Some("shop.Order")
        );
        assert_eq!(deleted("DELETE FROM {}_archive"), None);
        assert_eq!(deleted("SELECT * FROM {}"), None);
        assert_eq!(format_deleted_model(&catalog, "DELETE FROM {}", &[]), None);
    }

    #[test]
    fn tables_named_through_a_model_give_the_model() {
        let catalog = Catalog::new(&[], &[]);
        let owner = |dotted: &str| {
            catalog
                .table_owner(&QPath::from_dotted(dotted))
                .map(|p| p.dotted())
        };
        assert_eq!(
            owner("shop.models.Order._meta.db_table").as_deref(),
            Some("shop.models.Order")
        );
        assert_eq!(owner("db.Event.__tablename__").as_deref(), Some("db.Event"));
        assert_eq!(
            owner("db.Event.__table__.name").as_deref(),
            Some("db.Event")
        );
        assert_eq!(owner("shop.models.Order._meta.verbose_name"), None);
        assert_eq!(owner("_meta.db_table"), None);
        assert_eq!(owner("shop.Order.db_table"), None);
    }

    #[test]
    fn deleted_tables_are_read_from_sql_in_any_case() {
        assert_eq!(
            deleted_table("DELETE FROM \"shop_order\" WHERE id = %s").as_deref(),
            Some("shop_order")
        );
        assert_eq!(
            deleted_table("  delete\n   from public.orders").as_deref(),
            Some("orders")
        );
        assert_eq!(
            deleted_table("DeLeTe FrOm [audit]").as_deref(),
            Some("audit")
        );
        // A later `delete` is found past a `d` that starts another word.
        assert_eq!(
            deleted_table("do this, then DELETE FROM carts").as_deref(),
            Some("carts")
        );
        assert_eq!(deleted_table("Delete the order?"), None);
        assert_eq!(deleted_table("SELECT * FROM orders"), None);
        assert_eq!(deleted_table("delet"), None);
        assert_eq!(deleted_table(""), None);
        // Only the first 4096 bytes are read.
        let late = format!("{}DELETE FROM orders", " ".repeat(4096));
        assert_eq!(deleted_table(&late), None);
    }
}
