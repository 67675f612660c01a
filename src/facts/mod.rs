//! Per-module facts: imports, module variables, classes, functions and, inside each function, the
//! ordered events that matter on a second run (calls, done-guards, attribute writes) with the
//! blocks (branches, loops, `try`, `with`, deferred callbacks) that contain them.
//!
//! Facts are extracted in one pass over the syntax tree; the tree is dropped afterwards. Function
//! bodies are then kept encoded and decoded when a pass reads them ([`Function::body`]).

mod extract;

use std::sync::OnceLock;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};
use thin_vec::ThinVec;

use ruff_text_size::{TextRange, TextSize};

use crate::catalog::{ArgumentFilter, Catalog};
use crate::path::{Call, QPath, Sym};

pub use extract::extract;

/// A value as far as the analysis follows it inside one function.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Value {
    pub range: TextRange,
    /// Where the name the value is given under starts, plus one (zero: none), for a keyword
    /// argument, a dict entry with a string key or an assignment (`acks_late=` in
    /// `acks_late=(\n True)`): a setting is reported at its name ([`Value::setting_range`]).
    pub label: u32,
    pub lit: Lit,
    /// The resolved path of a name, attribute or call chain.
    pub path: Option<QPath>,
    /// The local name the value was read from, when it was a plain name. On a returned
    /// done-check ([`Value::DONE_TEST`]) the field it tests (`return user.is_active`), if any.
    pub name: Option<Sym>,
    /// Nondeterministic sources, delivery metadata, helper results and parameters it derives from.
    pub taint: ThinVec<Taint>,
    pub flags: u8,
    /// For a call: its first positional argument (`func(book_pickup, ...)`).
    pub first_arg: Option<Box<Value>>,
    /// For a call in a class body (model fields, `Meta` constraints): its arguments; for a
    /// function bound by `partial`, the arguments bound to it.
    pub call: Option<Box<CallArgs>>,
}

/// The arguments of a call kept with its value.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CallArgs {
    pub args: Vec<Value>,
    pub keywords: Vec<(Sym, Value)>,
}

impl CallArgs {
    pub fn keyword(&self, name: &str) -> Option<&Value> {
        self.keywords
            .iter()
            .find(|(k, _)| k.as_str() == name)
            .map(|(_, v)| v)
    }
}

impl Value {
    /// Records where the name the value is given under starts (`acks_late=`, `"key":`).
    pub fn set_label(&mut self, start: TextSize) {
        self.label = u32::from(start).saturating_add(1);
    }

    /// Where a setting or option given by this value is: from its name, when the value is
    /// given under one, to the value's end.
    pub fn setting_range(&self) -> TextRange {
        match self.label.checked_sub(1).map(TextSize::new) {
            Some(start) if start < self.range.start() => TextRange::new(start, self.range.end()),
            _ => self.range,
        }
    }

    /// Bound from the second element of `get_or_create`/`update_or_create`.
    pub const CREATED: u8 = 1;
    /// The result of a set-if-absent call (`set(nx=True)`, `cache.add`).
    pub const MARKER: u8 = 2;
    /// An increment of a stored value: `F("x") + n`.
    pub const ACCUMULATES: u8 = 4;
    /// A function returned by a binder (`partial(f, a)`, `sync_to_async(f)`): its path is
    /// `f`'s, and `call` holds the arguments bound to it.
    pub const BOUND: u8 = 8;
    /// A request object (`Request(url, data, method="POST")`): `call` holds its arguments,
    /// positional ones under their parameter's name.
    pub const REQUEST: u8 = 16;
    /// A parameter as the function received it (read by its name, not assigned since).
    pub const PARAM: u8 = 32;
    /// The count of a conditional update that claims its rows (`filter(sent=False)
    /// .update(sent=True)`): nonzero only in the run that changed them.
    pub const CLAIM: u8 = 64;
    /// On a returned value only, where no other flag is kept: the returned expression is a
    /// done-check (`invoice.sent_at is not None`, `.exists()`, a claim's count), so that
    /// `if helper(...): return` in a caller is a done-guard, as the test written there is.
    pub const DONE_TEST: u8 = 64;
    /// A parameter updated from its own value since the function received it (`amount =
    /// amount - fee`, `attempt += 1`, `items = items[1:]`): each run that does it moves the
    /// value on again, unlike a default filled in (`currency = currency or "EUR"`).
    pub const UPDATED: u8 = 128;

    /// The arguments of a request object.
    pub fn request(&self) -> Option<&CallArgs> {
        if self.flags & Self::REQUEST == 0 {
            return None;
        }
        self.call.as_deref()
    }

    pub fn is_none(&self) -> bool {
        matches!(self.lit, Lit::None)
    }

    /// Whether it is a text made from other values (an f-string: `f"settle-{ref}"`), not one
    /// of them: a parameter it is made from is then another value than the text.
    pub fn is_text(&self) -> bool {
        matches!(self.lit, Lit::Prefix(_))
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.lit {
            Lit::Str(s) => Some(s),
            _ => None,
        }
    }

    /// How the string starts: all of it when it is a literal, or the written start of an
    /// f-string or concatenation ([`Lit::Prefix`]).
    pub fn str_start(&self) -> Option<&str> {
        match &self.lit {
            Lit::Str(s) | Lit::Prefix(s) => Some(s),
            _ => None,
        }
    }

    /// The value as a whole number: an integer, or a float rounded down (durations are
    /// written `1.5 * 3600` as often as `5400`).
    pub fn as_int(&self) -> Option<i64> {
        match self.lit {
            Lit::Int(i) => Some(i),
            // The cast saturates; the range check keeps it exact where it matters.
            Lit::Float(f) if f.is_finite() && f.abs() < 1e15 => Some(f.floor() as i64),
            _ => None,
        }
    }

    /// The value as a number, integer or float.
    pub fn as_f64(&self) -> Option<f64> {
        match self.lit {
            Lit::Int(i) => Some(i as f64),
            Lit::Float(f) => Some(f),
            _ => None,
        }
    }

    /// Whether both are the same written literal: a number (`60` and `60.0`), a string, a
    /// boolean or `None`. Anything else is not known to be the same.
    pub fn same_literal(&self, other: &Value) -> bool {
        match (&self.lit, &other.lit) {
            (Lit::Str(a), Lit::Str(b)) => a == b,
            (Lit::Bool(a), Lit::Bool(b)) => a == b,
            (Lit::None, Lit::None) => true,
            _ => self.as_f64().is_some_and(|a| other.as_f64() == Some(a)),
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.lit {
            Lit::Bool(b) => Some(b),
            Lit::Int(i) => Some(i != 0),
            _ => None,
        }
    }

    /// Entries of a dict display (after following a local name to its assignment).
    /// The items of a list, tuple or set display.
    pub fn items(&self) -> Option<&[Value]> {
        match &self.lit {
            Lit::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub fn dict(&self) -> Option<&[DictItem]> {
        match &self.lit {
            Lit::Dict(items) => Some(items),
            _ => None,
        }
    }

    pub fn dict_get(&self, key: &str) -> Option<&Value> {
        self.dict()?
            .iter()
            .find(|(k, _)| k.map(Sym::as_str) == Some(key))
            .map(|(_, v)| v)
    }
}

/// A dict entry: its key when it is a string literal, and its value.
pub type DictItem = (Option<Sym>, Value);

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub enum Lit {
    #[default]
    Other,
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(Box<str>),
    /// A dict display; `None` keys are `**splat` entries or non-literal keys.
    Dict(Vec<DictItem>),
    /// A list, tuple or set display.
    Seq(Vec<Value>),
    /// Arithmetic on module constants the module imports (`3 * HOUR`): evaluated by the
    /// project, which sees the other modules ([`crate::project::Project::constant`]).
    Arith(Box<Arith>),
    /// A string of which only the start is written: `f"redis://{host}:6379/0"`,
    /// `"redis://" + host`. Enough for a URL's scheme.
    Prefix(Box<str>),
    /// What the function's caller gives by a keyword, taken out of its `**kwargs`
    /// (`kwargs.pop("headers", {})`): the `**kwargs` parameter and the keyword.
    CallerKeyword(Sym, Sym),
    /// A time this many seconds after the current one: `timezone.now() + timedelta(hours=3)`.
    FromNow(f64),
}

/// `left op right`, where a side is a number, a constant's name or another such operation.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Arith {
    pub op: ArithOp,
    pub left: Value,
    pub right: Value,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    /// Kept for integers only, as durations use them (`2 ** 10`, `7200 % 3600`).
    Pow,
    Mod,
}

impl ArithOp {
    /// The operation on two numbers as Python computes it: integers stay integers except for
    /// `/` (and on overflow, as floats); `None` on division by zero, and for `**` and `%` of
    /// floats.
    pub fn apply(self, a: &Lit, b: &Lit) -> Option<Lit> {
        if let (Lit::Int(a), Lit::Int(b)) = (a, b) {
            let (a, b) = (*a, *b);
            let int = match self {
                ArithOp::Add => a.checked_add(b),
                ArithOp::Sub => a.checked_sub(b),
                ArithOp::Mul => a.checked_mul(b),
                ArithOp::FloorDiv => a.checked_div_euclid(b),
                ArithOp::Pow => u32::try_from(b).ok().and_then(|b| a.checked_pow(b)),
                ArithOp::Mod => a.checked_rem_euclid(b),
                ArithOp::Div => None,
            };
            if let Some(int) = int {
                return Some(Lit::Int(int));
            }
        }
        let number = |lit: &Lit| match *lit {
            Lit::Int(i) => Some(i as f64),
            Lit::Float(f) => Some(f),
            _ => None,
        };
        let (a, b) = (number(a)?, number(b)?);
        let result = match self {
            ArithOp::Add => a + b,
            ArithOp::Sub => a - b,
            ArithOp::Mul => a * b,
            ArithOp::Div if b != 0.0 => a / b,
            ArithOp::FloorDiv if b != 0.0 => (a / b).floor(),
            ArithOp::Div | ArithOp::FloorDiv | ArithOp::Pow | ArithOp::Mod => return None,
        };
        result.is_finite().then_some(Lit::Float(result))
    }
}

/// Where a value comes from, as far as keys care. Small and `Copy`: values carry several.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Taint {
    /// A nondeterministic source call (`uuid.uuid4()`), and how the source text names it (the
    /// text before its first parenthesis), kept so that nothing reads the file again for it.
    Nondet { range: TextRange, name: Sym },
    /// Delivery metadata (`self.request.retries`), with its index in the catalog's metadata.
    Meta { range: TextRange, index: u32 },
    /// The result of the call at this event index of the same function (maybe a helper): all
    /// of it (`element` 0), or its `element`-th item, 1-based (`key, at = helper()`).
    Call { event: u32, element: u8 },
    /// A parameter of the function the value is written in, as one part of a text made of
    /// several (`f"refund-{order_id}-{attempt}"`): a caller's argument for it is part of the
    /// value. A text made of one parameter alone is that parameter ([`Value::name`]).
    Param { name: Sym },
}

impl Taint {
    /// The taint of the `index`-th item (0-based) of a value with this taint that is not a
    /// display: a call's result stands for its item (`key, at = helper()`, `pair[0]`); a
    /// source or an item already taken stays as it is.
    pub fn item(self, index: usize) -> Taint {
        match self {
            Taint::Call { event, element: 0 } => Taint::Call {
                event,
                element: u8::try_from(index + 1).unwrap_or(0),
            },
            other => other,
        }
    }
}

/// Source text as messages show it: white space collapsed, no space inside brackets, at most
/// 80 characters.
pub fn display_source(text: &str) -> String {
    let collapsed = text.split_whitespace().collect::<Vec<_>>().join(" ");
    // Line breaks inside brackets leave a space after the opening one: drop it.
    let collapsed = collapsed
        .replace("( ", "(")
        .replace("[ ", "[")
        .replace("{ ", "{")
        .replace(" )", ")")
        .replace(" ]", "]")
        .replace(" }", "}");
    collapsed.chars().take(80).collect()
}

/// The same for the calls kept with class-body values (`models.CharField(max_length=20)`),
/// and those inside displays (`constraints = [UniqueConstraint(...)]`).
fn drop_unread_class_arguments(value: &mut Value, catalog: &Catalog) {
    match &mut value.lit {
        Lit::Dict(items) => items
            .iter_mut()
            .for_each(|(_, item)| drop_unread_class_arguments(item, catalog)),
        Lit::Seq(items) => items
            .iter_mut()
            .for_each(|item| drop_unread_class_arguments(item, catalog)),
        _ => {}
    }
    let Some(call) = &mut value.call else { return };
    let filter = catalog.class_call_filter(value.path.as_ref());
    // A class-body call keeps no record of what it dropped: only model fields and `Meta`
    // options are read from these, by their catalog names.
    let _ = catalog.filter_arguments(filter, &mut call.args, &mut call.keywords, false);
    call.args
        .iter_mut()
        .chain(call.keywords.iter_mut().map(|(_, v)| v))
        .for_each(|item| drop_unread_class_arguments(item, catalog));
}

impl ModuleFacts {
    /// Drops the argument values no rule reads from the calls kept with class attributes
    /// (function bodies are filtered as they are stored: [`Body::new`]).
    pub(crate) fn drop_unread_arguments(&mut self, catalog: &Catalog) {
        for class in &mut self.classes {
            for value in class.attrs.values_mut() {
                drop_unread_class_arguments(value, catalog);
            }
        }
    }
}

#[derive(Clone, Debug)]
pub struct ModuleFacts {
    pub module: String,
    pub is_package: bool,
    /// Local binding → qualified name it imports.
    pub imports: Imports,
    pub star_imports: Vec<String>,
    /// Module-level assignments (last one wins).
    pub vars: Vars,
    pub classes: Vec<Class>,
    /// Functions and methods; index 0 is the module body.
    pub functions: Vec<Function>,
    /// Tables named by `DELETE FROM <table>` in the module's string literals, lower-case.
    pub deleted_tables: Vec<String>,
    /// Models whose table a `DELETE FROM` names through the model (`Model._meta.db_table`).
    pub deleted_models: Vec<QPath>,
}

/// A module's imports: local binding → qualified name, both interned, sorted by binding. Modules
/// import the same names over and over (`models`, `django.db.models`): a hash map of strings
/// per module cost about seven times as much.
#[derive(Clone, Debug, Default)]
pub struct Imports(Box<[(Sym, Sym)]>);

impl Imports {
    pub(crate) fn new(map: HashMap<Sym, String>) -> Imports {
        let mut entries: Vec<(Sym, Sym)> = map
            .iter()
            .map(|(local, target)| (*local, Sym::new(target)))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        Imports(entries.into_boxed_slice())
    }

    /// The qualified name `local` imports.
    pub fn get(&self, local: &str) -> Option<&'static str> {
        self.0
            .binary_search_by(|(key, _)| key.as_str().cmp(local))
            .ok()
            .map(|i| self.0[i].1.as_str())
    }

    pub fn contains_key(&self, local: &str) -> bool {
        self.get(local).is_some()
    }

    /// (binding, qualified name) pairs, by binding.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &'static str)> + '_ {
        self.0
            .iter()
            .map(|(local, target)| (local.as_str(), target.as_str()))
    }

    pub fn values(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|(_, target)| target.as_str())
    }
}

/// A module's variables (module-level assignments, the last one wins): name → value, sorted
/// by name. A hash map of strings took a string and a bucket's slack for each of them: on the
/// benchmark corpus the peak is 3.6 MB lower this way.
#[derive(Clone, Debug, Default)]
pub struct Vars(Box<[(Sym, Value)]>);

impl Vars {
    pub(crate) fn new(map: HashMap<String, Value>) -> Vars {
        let mut entries: Vec<(Sym, Value)> = map
            .into_iter()
            .map(|(name, value)| (Sym::new(&name), value))
            .collect();
        entries.sort_unstable_by(|a, b| a.0.as_str().cmp(b.0.as_str()));
        Vars(entries.into_boxed_slice())
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0
            .binary_search_by(|(key, _)| key.as_str().cmp(name))
            .ok()
            .map(|i| &self.0[i].1)
    }

    pub fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// (name, value) pairs, by name.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &Value)> {
        self.0.iter().map(|(name, value)| (name.as_str(), value))
    }
}

impl<'m> IntoIterator for &'m Vars {
    type Item = (&'static str, &'m Value);
    type IntoIter = std::iter::Map<
        std::slice::Iter<'m, (Sym, Value)>,
        fn(&(Sym, Value)) -> (&'static str, &Value),
    >;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(name, value)| (name.as_str(), value))
    }
}

/// A small map kept as a vector in first-insertion order: a class has a handful of attributes
/// and methods, for which a hash table's buckets cost several times the entries. Keys are
/// interned: an attribute or method name is 4 bytes here, not a string of its own.
#[derive(Debug, Clone)]
pub struct SmallMap<V>(Vec<(Sym, V)>);

impl<V> Default for SmallMap<V> {
    fn default() -> Self {
        SmallMap(Vec::new())
    }
}

impl<V> SmallMap<V> {
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0
            .iter()
            .find(|(k, _)| k.as_str() == key)
            .map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// Sets `key` to `value`, where it was if it was there; returns the value it replaces.
    pub fn insert(&mut self, key: &str, value: V) -> Option<V> {
        match self.0.iter_mut().find(|(k, _)| k.as_str() == key) {
            Some((_, old)) => Some(std::mem::replace(old, value)),
            None => {
                self.0.push((Sym::new(key), value));
                None
            }
        }
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static str, &V)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &'static str> {
        self.0.iter().map(|(k, _)| k.as_str())
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.0.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.0.iter_mut().map(|(_, v)| v)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn shrink_to_fit(&mut self) {
        self.0.shrink_to_fit();
    }
}

impl<'m, V> IntoIterator for &'m SmallMap<V> {
    type Item = (&'static str, &'m V);
    type IntoIter =
        std::iter::Map<std::slice::Iter<'m, (Sym, V)>, fn(&(Sym, V)) -> (&'static str, &V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|(k, v)| (k.as_str(), v))
    }
}

#[derive(Clone, Debug)]
pub struct Class {
    pub name: String,
    pub qualname: String,
    pub range: TextRange,
    pub name_range: TextRange,
    pub bases: Vec<QPath>,
    pub keywords: Vec<(String, Value)>,
    /// Class-level assignments.
    pub attrs: SmallMap<Value>,
    /// Nested class bodies (`class Meta:`) by name.
    pub inner: Vec<usize>,
    /// Methods by name → index into `functions`.
    pub methods: SmallMap<usize>,
}

#[derive(Clone, Debug)]
pub struct Param {
    /// The name, interned: 4 bytes in each of the project's parameters.
    sym: crate::intern::Sym,
    pub annotation: Option<QPath>,
    pub kind: ParamKind,
    pub default: ParamDefault,
    pub shape: ParamShape,
}

/// What a parameter's annotation says its value is, where it names no class to resolve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamShape {
    Unknown,
    /// `dict`, `Mapping[str, Any]`, `TypedDict`: a payload, identified by an item.
    Mapping,
    /// `list`, `Sequence[int]`, `tuple`, `set`, `bytes`: no identifier at all.
    Collection,
}

impl Param {
    pub fn name(&self) -> &'static str {
        self.sym.as_str()
    }
}

/// How a parameter can be given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamKind {
    /// By position (or, unless positional-only, by name).
    Positional,
    /// After `*` or `*args`: by name only.
    KeywordOnly,
    /// `*args` or `**kwargs`.
    Variadic,
}

/// A parameter's default value, as far as the rules need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamDefault {
    /// No default: every call passes it.
    Required,
    /// `= None`.
    None,
    /// `= False`.
    False,
    /// An integer literal (`timeout=30`): the expiry a lock helper uses when not given one.
    Int(i32),
    Other,
}

#[derive(Clone, Debug)]
pub struct Decorator {
    pub range: TextRange,
    pub path: Option<QPath>,
    /// `@x(...)` rather than `@x`.
    pub called: bool,
    pub args: Vec<Value>,
    pub keywords: Vec<(String, Value)>,
}

impl Decorator {
    pub fn keyword(&self, name: &str) -> Option<&Value> {
        self.keywords
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }
}

#[derive(Clone, Debug)]
pub struct Function {
    /// Where the name starts in `qualname`, which ends with it: one string for both
    /// ([`Function::MODULE_BODY`] for the module body, whose qualname is the module's).
    name_start: u32,
    pub qualname: String,
    class: Option<u32>,
    /// The function this one is nested in.
    parent: Option<u32>,
    pub range: TextRange,
    pub name_range: TextRange,
    pub is_async: bool,
    pub params: Vec<Param>,
    pub decorators: Vec<Decorator>,
    pub(crate) body: Body,
}

/// What a function does, in order: its blocks, its events and what it returns.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FunctionBody {
    pub blocks: Vec<Block>,
    pub events: Vec<Event>,
    /// Returned values, with their path and taint only (those with neither are not kept).
    pub returns: Vec<Value>,
    /// Locals holding a call's result (a loaded row, say) that are handed to a call as an
    /// argument (`mark(order)`, `setattr(order, ...)`): what the callee does to them is not
    /// in this body.
    pub escaped: Vec<Sym>,
    /// The blocks holding a `yield` of this function (a generator; a context manager's
    /// caller runs its `with` body there).
    pub yields: Vec<u32>,
}

impl FunctionBody {
    /// The kinds of `block` and the blocks holding it, innermost first.
    pub fn block_kinds(&self, block: u32) -> impl Iterator<Item = &BlockKind> + '_ {
        std::iter::successors(Some(block), |b| {
            self.blocks.get(*b as usize).and_then(|blk| blk.parent)
        })
        .filter_map(|b| self.blocks.get(b as usize))
        .map(|blk| &blk.kind)
    }
}

impl Default for FunctionBody {
    fn default() -> Self {
        FunctionBody {
            blocks: vec![Block {
                parent: None,
                kind: BlockKind::Body,
            }],
            events: Vec::new(),
            returns: Vec::new(),
            escaped: Vec::new(),
            yields: Vec::new(),
        }
    }
}

/// A function body kept encoded ([`postcard`], a few bytes a call) and decoded the first time a
/// pass reads it. Rules start from tasks and from functions that open a transaction, and
/// follow calls from there: most bodies of a large project are never read again after the
/// project-wide scans, which decode them for a moment ([`Function::peek`]) or skip them by
/// [`Function::calls_named`]. Kept as structures, they were half the memory of a run.
#[derive(Clone)]
pub(crate) struct Body {
    encoded: Box<[u8]>,
    decoded: OnceLock<Box<FunctionBody>>,
    /// The method names and last path names of the calls, sorted and distinct.
    call_names: Box<[Sym]>,
    has_with: bool,
    /// [`Body::ATTR_ASSIGN`] and [`Body::ATTR_ASSIGN_MAY_CONF`].
    attr_assigns: u8,
}

impl Body {
    /// The body assigns an attribute (`x.attr = value`).
    const ATTR_ASSIGN: u8 = 1;
    /// The body assigns an attribute of an object that may be a Celery app's `conf`
    /// ([`may_name_conf`]).
    const ATTR_ASSIGN_MAY_CONF: u8 = 2;

    /// Encodes `body`. Its vectors are left to the caller to reuse, except on the path that
    /// cannot happen (an encoding error), which keeps the body itself.
    pub(crate) fn new(body: &mut FunctionBody) -> Body {
        let mut call_names = Vec::with_capacity(2 * body.events.len());
        let mut attr_assigns = 0;
        for event in &body.events {
            match &event.kind {
                EventKind::Call(call) => {
                    call_names.push(call.method);
                    call_names.extend(call.path.as_ref().and_then(|p| p.0.last()).map(|s| s.name));
                }
                EventKind::AttrAssign(assign) => {
                    attr_assigns |= Self::ATTR_ASSIGN;
                    if assign.object.as_ref().is_some_and(may_name_conf) {
                        attr_assigns |= Self::ATTR_ASSIGN_MAY_CONF;
                    }
                }
                EventKind::Guard(_) => {}
            }
        }
        call_names.sort_unstable();
        call_names.dedup();
        let has_with = body
            .blocks
            .iter()
            .any(|block| matches!(block.kind, BlockKind::With { .. }));
        // Written into a fixed buffer (a bounds check a byte, where growing a vector cost a call
        // a field); the rare body that does not fit is encoded into a vector of its own.
        let encoded = ENCODE_BUFFER
            .with_borrow_mut(|buffer| {
                if buffer.is_empty() {
                    // Kept for the thread's next bodies, past the tree being read.
                    crate::arena::outside(|| buffer.resize(ENCODE_BUFFER_SIZE, 0));
                }
                let len =
                    postcard::serialize_with_flavor(&*body, Encoder { buffer, len: 0 }).ok()?;
                buffer.get(..len).map(Box::<[u8]>::from)
            })
            .or_else(|| {
                postcard::to_allocvec(&*body)
                    .ok()
                    .map(Vec::into_boxed_slice)
            });
        let decoded = OnceLock::new();
        let encoded = match encoded {
            Some(encoded) => encoded,
            // Encoding into memory fails only on a bug; the body is kept as it is.
            None => {
                debug_assert!(false, "a function body could not be encoded");
                let _ = decoded.set(Box::new(std::mem::take(body)));
                Box::default()
            }
        };
        Body {
            encoded,
            decoded,
            call_names: call_names.into_boxed_slice(),
            has_with,
            attr_assigns,
        }
    }

    fn decode(&self) -> FunctionBody {
        if self.encoded.is_empty() {
            return FunctionBody::default();
        }
        postcard::from_bytes(&self.encoded).unwrap_or_else(|_| {
            debug_assert!(false, "a function body could not be decoded");
            FunctionBody::default()
        })
    }
}

/// The body of a function not read yet: one block, nothing in it. Stored as no bytes at all,
/// so making one costs nothing.
impl Default for Body {
    fn default() -> Self {
        Body {
            encoded: Box::default(),
            decoded: OnceLock::new(),
            call_names: Box::default(),
            has_with: false,
            attr_assigns: 0,
        }
    }
}

impl std::fmt::Debug for Body {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.decoded.get() {
            Some(body) => body.fmt(f),
            None => self.decode().fmt(f),
        }
    }
}

/// Whether an assigned object's path, as the module wrote it, may name a Celery app's `conf`
/// once the project resolves it ([`Function::may_assign_app_conf`]). Resolution replaces
/// a path's last name only when the names before it are plain (`mod.CONF`, `mod.get()`), and
/// starts from a project module, which `self` is not (the caller checks that).
fn may_name_conf(object: &QPath) -> bool {
    let Some((last, before)) = object.0.split_last() else {
        return false;
    };
    last.name == crate::settings::CELERY_CONF
        || (!before.is_empty()
            && before[0].name != "self"
            && before.iter().all(|seg| seg.call == Call::No))
}

thread_local! {
    /// Where bodies are encoded before they are copied out at their exact size.
    static ENCODE_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Large enough for all but the largest function bodies (a few hundred bytes is typical).
const ENCODE_BUFFER_SIZE: usize = 64 * 1024;

/// Writes an encoding into a fixed buffer, as `postcard`'s `Slice`, but copies short runs
/// byte by byte: nearly every run is a number's one to five bytes, for which a call to
/// `memcpy` cost more than the copy (1.5% of a check's time).
struct Encoder<'a> {
    buffer: &'a mut [u8],
    len: usize,
}

impl postcard::ser_flavors::Flavor for Encoder<'_> {
    /// The length of the encoding.
    type Output = usize;

    #[inline(always)]
    fn try_push(&mut self, byte: u8) -> postcard::Result<()> {
        let slot = self
            .buffer
            .get_mut(self.len)
            .ok_or(postcard::Error::SerializeBufferFull)?;
        *slot = byte;
        self.len += 1;
        Ok(())
    }

    #[inline(always)]
    fn try_extend(&mut self, bytes: &[u8]) -> postcard::Result<()> {
        if bytes.len() <= 8 {
            return bytes.iter().try_for_each(|&byte| self.try_push(byte));
        }
        let end = self.len + bytes.len();
        self.buffer
            .get_mut(self.len..end)
            .ok_or(postcard::Error::SerializeBufferFull)?
            .copy_from_slice(bytes);
        self.len = end;
        Ok(())
    }

    fn finalize(self) -> postcard::Result<usize> {
        Ok(self.len)
    }
}

impl Function {
    /// `name_start` of the module body.
    pub(crate) const MODULE_BODY: u32 = u32::MAX;
    /// The name of the module body, function 0 of every module.
    pub const MODULE_BODY_NAME: &str = "<module>";

    /// The name as defined (`charge` for `billing.tasks.charge`).
    pub fn name(&self) -> &str {
        if self.name_start == Self::MODULE_BODY {
            return Self::MODULE_BODY_NAME;
        }
        self.qualname
            .get(self.name_start as usize..)
            .unwrap_or_default()
    }

    /// The index of the class this method is defined in, in its module's classes.
    pub fn class(&self) -> Option<usize> {
        self.class.map(|c| c as usize)
    }

    /// The index of the function this one is nested in, in its module's functions.
    pub fn parent(&self) -> Option<usize> {
        self.parent.map(|p| p as usize)
    }

    /// The body, decoded on first use and kept: for what rules and summaries read again.
    pub fn body(&self) -> &FunctionBody {
        self.body
            .decoded
            .get_or_init(|| Box::new(self.body.decode()))
    }

    /// Reads the body without keeping it decoded (unless it already is): for the scans over
    /// every function of the project.
    pub fn peek<R>(&self, read: impl FnOnce(&FunctionBody) -> R) -> R {
        match self.body.decoded.get() {
            Some(body) => read(body),
            None => read(&self.body.decode()),
        }
    }

    pub fn blocks(&self) -> &[Block] {
        &self.body().blocks
    }

    pub fn events(&self) -> &[Event] {
        &self.body().events
    }

    pub fn returns(&self) -> &[Value] {
        &self.body().returns
    }

    pub fn escaped(&self) -> &[Sym] {
        &self.body().escaped
    }

    /// Whether a call's method name or the last name of its path passes `test`: scans for
    /// some calls skip, without decoding it, a body that makes none.
    pub fn calls_named(&self, test: impl FnMut(Sym) -> bool) -> bool {
        self.body.call_names.iter().copied().any(test)
    }

    /// Whether the body has a `with` block.
    pub fn has_with(&self) -> bool {
        self.body.has_with
    }

    /// Whether the body assigns an attribute (`x.attr = value`).
    pub fn has_attr_assign(&self) -> bool {
        self.body.attr_assigns & Body::ATTR_ASSIGN != 0
    }

    /// Whether the body assigns an attribute of an object that may be a Celery app's `conf`
    /// (`app.conf.x = ...`, `CONF.x = ...`; not `self.x = ...` nor `order.x = ...` for a local
    /// `order` read from the database), unless a project module is called `self`: the settings
    /// scan skips the other bodies without decoding them.
    pub fn may_assign_app_conf(&self) -> bool {
        self.body.attr_assigns & Body::ATTR_ASSIGN_MAY_CONF != 0
    }

    /// Whether `ancestor` is `block` or one of the blocks that contain it.
    pub fn block_within(&self, block: u32, ancestor: u32) -> bool {
        self.ancestors(block).any(|b| b == ancestor)
    }

    /// Whether event `after`, a later one than `event`, runs only when the `try` body that ends
    /// with `event` raised: it is in an `except` handler of that `try`, and nothing of the body
    /// runs after `event`. `try: sms(...)` / `except TwilioError: mail(...)` sends the mail
    /// when the SMS failed, not after it was sent.
    pub fn only_if_failed(&self, event: usize, after: usize) -> bool {
        let events = self.events();
        let (Some(first), Some(second)) = (events.get(event), events.get(after)) else {
            return false;
        };
        let blocks = self.blocks();
        self.ancestors(second.block).any(|handler| {
            let Some(Block {
                parent: Some(parent),
                kind: BlockKind::Handler { .. },
            }) = blocks.get(handler as usize)
            else {
                return false;
            };
            // The handler's `try` body: the last `try` before it in the same block (the blocks
            // between are the body's own, or the `try`'s other handlers).
            let is_body = |b: &u32| {
                blocks.get(*b as usize).is_some_and(|blk| {
                    blk.parent == Some(*parent) && matches!(blk.kind, BlockKind::Try { .. })
                })
            };
            let Some(body) = (0..handler).rev().find(is_body) else {
                return false;
            };
            self.block_within(first.block, body)
                && !events[event + 1..]
                    .iter()
                    .any(|e| self.block_within(e.block, body))
        })
    }

    /// The `finally` block of the `try` statement whose body is `try_body` (every `try` has
    /// one, empty when the statement has none): the first `finally` after it beside it.
    pub fn finally_of(&self, try_body: u32) -> Option<u32> {
        let blocks = self.blocks();
        let parent = blocks.get(try_body as usize)?.parent;
        let after = try_body as usize + 1;
        blocks
            .get(after..)?
            .iter()
            .position(|blk| blk.parent == parent && matches!(blk.kind, BlockKind::Finally))
            .and_then(|offset| u32::try_from(after + offset).ok())
    }

    /// The `except` handlers of the `try` statement whose body is `try_body`: the blocks
    /// beside it, up to its `finally`.
    pub fn handlers_of(&self, try_body: u32) -> impl Iterator<Item = &Block> + '_ {
        let blocks = self.blocks();
        let parent = blocks.get(try_body as usize).and_then(|blk| blk.parent);
        blocks
            .get(try_body as usize + 1..)
            .unwrap_or_default()
            .iter()
            .filter(move |other| parent.is_some() && other.parent == parent)
            .take_while(|other| !matches!(other.kind, BlockKind::Finally))
    }

    /// `block` and the blocks that contain it, innermost first.
    pub fn ancestors(&self, block: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors(Some(block), |b| {
            self.blocks().get(*b as usize).and_then(|blk| blk.parent)
        })
    }

    pub fn block_kinds(&self, block: u32) -> impl Iterator<Item = &BlockKind> + '_ {
        self.body().block_kinds(block)
    }

    pub fn in_loop(&self, block: u32) -> Option<u32> {
        self.ancestors(block).find(|b| {
            matches!(
                self.blocks().get(*b as usize).map(|blk| &blk.kind),
                Some(BlockKind::Loop { .. })
            )
        })
    }

    /// The loop that can run the code in `block` again: the innermost loop holding it, unless
    /// the blocks from the code out to that loop end by leaving it (`send(...); break` in a
    /// branch, a `try` body or an `except` handler, a loop body ending in `return`); then the
    /// loop around that one, and none when the function returns right after. What the blocks
    /// hold after the code, before their end, is not known here: a `continue` there goes
    /// unseen.
    pub fn repeating_loop(&self, block: u32) -> Option<u32> {
        // A `break` or `continue` met on the way out, for the next loop out.
        let mut pending: Option<Ends> = None;
        for b in self.ancestors(block) {
            match self.blocks().get(b as usize).map(|blk| &blk.kind) {
                Some(
                    BlockKind::Branch { ends, .. }
                    | BlockKind::Try { ends }
                    | BlockKind::Handler { ends, .. },
                ) if pending.is_none() => match ends {
                    Ends::Leaves => return None,
                    Ends::Breaks | Ends::Continues => pending = Some(*ends),
                    Ends::Falls => {}
                },
                Some(BlockKind::Loop { ends }) => match pending.take().unwrap_or(*ends) {
                    Ends::Breaks => {}
                    Ends::Leaves => return None,
                    Ends::Falls | Ends::Continues => return Some(b),
                },
                _ => {}
            }
        }
        None
    }

    pub fn is_deferred(&self, block: u32) -> bool {
        self.block_kinds(block)
            .any(|k| matches!(k, BlockKind::Deferred))
    }

    pub fn in_handler(&self, block: u32) -> bool {
        self.block_kinds(block)
            .any(|k| matches!(k, BlockKind::Handler { .. }))
    }

    /// Whether no run passes through block `a` and then through block `b`, a later one: they
    /// lie in different branches of one `if`, or `a` is in a branch or an `except` handler that
    /// returns or raises and `b` is after it (`else: send(...); return`, then code the other
    /// branch falls into). A `finally` runs after the return and an `except` after the raise,
    /// so `b` in one is not excluded that way.
    pub fn exclusive(&self, a: u32, b: u32) -> bool {
        let branches = |block| {
            self.block_kinds(block).filter_map(|k| match k {
                BlockKind::Branch { if_id, index, .. } => Some((*if_id, *index)),
                _ => None,
            })
        };
        if branches(a)
            .any(|(if_a, idx_a)| branches(b).any(|(if_b, idx_b)| if_a == if_b && idx_a != idx_b))
        {
            return true;
        }
        if self.breaks_before_else(a, b) {
            return true;
        }
        let after_leaving = self
            .block_kinds(b)
            .any(|k| matches!(k, BlockKind::Finally | BlockKind::Handler { .. }));
        // A branch, or an `except` handler, that returns or raises: nothing after it runs
        // after it (`except Exception: mark_failed(); return`, then the next step).
        !after_leaving
            && self.ancestors(a).any(|block| {
                matches!(
                    self.blocks().get(block as usize).map(|blk| &blk.kind),
                    Some(
                        BlockKind::Branch { leaves: true, .. }
                            | BlockKind::Handler {
                                ends: Ends::Leaves,
                                ..
                            }
                    )
                ) && !self.block_within(b, block)
            })
    }

    /// Whether `b` is in the `else` of a loop and every pass through `a`, in that loop's body,
    /// breaks out of it: `p.send(...); break` in a branch, a `try` body or an `except` handler
    /// of the loop's own (not of a loop inside it), so the `else` never runs after `a`.
    fn breaks_before_else(&self, a: u32, b: u32) -> bool {
        let Some(of) = self.block_kinds(b).find_map(|k| match k {
            BlockKind::LoopElse { of } => Some(*of),
            _ => None,
        }) else {
            return false;
        };
        // How the innermost block around `a` that does not fall through ends.
        let mut exit: Option<Ends> = None;
        for block in self.ancestors(a) {
            if block == of {
                return exit == Some(Ends::Breaks);
            }
            match self.blocks().get(block as usize).map(|blk| &blk.kind) {
                Some(
                    BlockKind::Branch { ends, .. }
                    | BlockKind::Try { ends }
                    | BlockKind::Handler { ends, .. },
                ) if *ends != Ends::Falls => {
                    exit.get_or_insert(*ends);
                }
                // A `break` or `continue` inside an inner loop ends that loop's pass only.
                Some(BlockKind::Loop { .. }) => exit = None,
                _ => {}
            }
        }
        false
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Block {
    pub parent: Option<u32>,
    pub kind: BlockKind,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum BlockKind {
    Body,
    Branch {
        if_id: u32,
        index: u32,
        /// The branch ends in `return` or `raise`: nothing after the `if` runs after it.
        leaves: bool,
        /// The `if` has an `else`: one of its branches runs.
        exhaustive: bool,
        /// `if notify:` on a parameter, as received: the branch runs only when the caller
        /// passes it a true value ([`crate::project::Project::skips_branch`]).
        on_param: Option<Sym>,
        /// How the branch ends, for the loop around it ([`Function::repeating_loop`]).
        ends: Ends,
    },
    Loop {
        /// How the loop's body ends ([`Function::repeating_loop`]).
        ends: Ends,
    },
    /// A `try` body.
    Try {
        /// How the body's own statements end (`send(...); break` tries the next provider
        /// only when the send raised).
        ends: Ends,
    },
    Handler {
        catches: Vec<QPath>,
        /// How the handler's own statements end (`except AlreadySent: continue`).
        ends: Ends,
    },
    Finally,
    /// A `with` block, with its context managers.
    With {
        items: Vec<Value>,
    },
    /// Code that does not run here: a lambda's body.
    Deferred,
    /// The `else` of a `for` or `while` loop whose body can `break`: it runs when the loop
    /// ran out, not after a pass that broke out of it.
    LoopElse {
        /// The loop's body block.
        of: u32,
    },
}

/// How a block's own statements end: what runs after the last thing in it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Ends {
    /// With what follows the block.
    #[default]
    Falls,
    /// `return` or `raise`: the function ends.
    Leaves,
    /// `break`: the loop around it ends.
    Breaks,
    /// `continue`: the loop around it goes on with the next item.
    Continues,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Event {
    pub order: u32,
    pub block: u32,
    pub kind: EventKind,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum EventKind {
    Call(Box<CallSite>),
    Guard(Box<Guard>),
    /// `x.attr = value` or `x.attr += value`.
    AttrAssign(Box<AttrAssign>),
}

impl EventKind {
    /// Whether it may write the field `field`: `x.status = ...`, or a call given it as a
    /// keyword (`.update(status="sent")`).
    pub fn writes_field(&self, field: Sym) -> bool {
        match self {
            EventKind::AttrAssign(assign) => assign.attr == field,
            EventKind::Call(call) => call.keywords().iter().any(|(name, _)| *name == field),
            EventKind::Guard(_) => false,
        }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CallSite {
    pub range: TextRange,
    pub func_range: TextRange,
    pub args_range: TextRange,
    /// The resolved path of the callee, ending in the called segment.
    pub path: Option<QPath>,
    /// The method or function name as written.
    pub method: Sym,
    /// The identifier right before the method (`payment_gateway` in `payment_gateway.capture`).
    pub receiver: Option<Sym>,
    /// The local variable the receiver chain starts from, when there is one.
    pub receiver_var: Option<Sym>,
    /// Positional and keyword arguments, boxed: most calls keep none ([`CallSite::args`]).
    pub arguments: Option<Box<CallArgs>>,
    pub star_args: bool,
    pub star_kwargs: bool,
    /// The parameter `**name` spreads, when the call spreads only it and it is the parameter as
    /// the function received it: a wrapper (`def charge(**kwargs): stripe...create(**kwargs)`)
    /// passes on whatever its caller gives.
    pub spreads: Option<Sym>,
    /// The callee is computed (`handlers[kind](...)`, `getattr(o, name)(...)`, a parameter
    /// called): nothing says which function runs.
    pub dynamic: bool,
    /// What the call is beyond its callee: a claiming update, a release of another key.
    pub marks: CallMarks,
    /// What the catalog's argument filter dropped: the callee did not look like anything whose
    /// arguments a rule reads, under the name this module calls it by. A project module can
    /// re-export a sink under another name, so an argument missing here may have been passed.
    pub dropped: Dropped,
}

/// What a call is, beyond its callee, as one byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallMarks(u8);

impl CallMarks {
    const CLAIMS: u8 = 1;
    const OTHER_KEY: u8 = 2;

    pub fn claiming() -> CallMarks {
        CallMarks(Self::CLAIMS)
    }

    /// An update that sets a field its filter selects by (`filter(pk=pk, seq__lt=n)
    /// .update(seq=n, ...)`): it changes the rows once, and matches none when repeated.
    pub fn claims(self) -> bool {
        self.0 & Self::CLAIMS != 0
    }

    /// A release (`delete`, `release()`) of something other than every set-if-absent key its
    /// function takes: a progress key, a lock object (`render_lock.release()`). It does not
    /// turn those keys into locks.
    pub fn releases_other_key(self) -> bool {
        self.0 & Self::OTHER_KEY != 0
    }

    pub fn set_releases_other_key(&mut self) {
        self.0 |= Self::OTHER_KEY;
    }
}

/// The arguments a call's filter dropped: how many positional ones (up to 127), and whether
/// any keyword. One byte, in every call of the facts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dropped(u8);

impl Dropped {
    const KEYWORDS: u8 = 0x80;

    pub fn new(positional: usize, keywords: bool) -> Dropped {
        let count = u8::try_from(positional.min(usize::from(!Self::KEYWORDS))).unwrap_or(0);
        Dropped(count | if keywords { Self::KEYWORDS } else { 0 })
    }

    /// How many positional arguments were dropped (127 stands for 127 or more).
    pub fn positional(self) -> usize {
        usize::from(self.0 & !Self::KEYWORDS)
    }

    pub fn any(self) -> bool {
        self.0 != 0
    }

    /// Whether any keyword was dropped.
    pub fn keywords(self) -> bool {
        self.0 & Self::KEYWORDS != 0
    }
}

impl CallSite {
    pub fn args(&self) -> &[Value] {
        self.arguments.as_ref().map_or(&[], |a| &a.args)
    }

    pub fn keywords(&self) -> &[(Sym, Value)] {
        self.arguments.as_ref().map_or(&[], |a| &a.keywords)
    }

    /// Applies the catalog's argument filter, and drops the box when nothing is left.
    /// `function`: the callee is a function of a module ([`Catalog::filter_arguments`]).
    pub(crate) fn filter_arguments(
        &mut self,
        catalog: &Catalog,
        filter: ArgumentFilter,
        function: bool,
    ) {
        if let Some(arguments) = &mut self.arguments {
            self.dropped = catalog.filter_arguments(
                filter,
                &mut arguments.args,
                &mut arguments.keywords,
                function,
            );
            if arguments.args.is_empty() && arguments.keywords.is_empty() {
                self.arguments = None;
            }
        }
    }

    /// The receiver's name in lower case (empty when there is none), for matching by words.
    pub fn receiver_lowercase(&self) -> String {
        self.receiver
            .map(Sym::as_str)
            .unwrap_or_default()
            .to_ascii_lowercase()
    }

    pub fn keyword(&self, name: &str) -> Option<&Value> {
        self.keywords()
            .iter()
            .find(|(k, _)| k.as_str() == name)
            .map(|(_, v)| v)
    }

    /// The argument at `position`, or the keyword `name`.
    pub fn arg(&self, position: usize, name: &str) -> Option<&Value> {
        self.keyword(name).or_else(|| self.args().get(position))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Guard {
    pub range: TextRange,
    pub test: GuardTest,
    pub exit: Exit,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum GuardTest {
    /// `if x.flag:`, `if x.status == "sent":`, `.exists()`, `cache.get(k)`; `field` is the
    /// attribute tested, when the test reads one (`flag`, `status`).
    DoneCheck {
        field: Option<Sym>,
        /// The states the test leaves on, when it compares the field with written-out ones:
        /// `"sent"` in `if doc.delivery == "sent": return`, `SENT` in `in (Status.SENT, ...)`.
        /// Empty when not known.
        states: ThinVec<Sym>,
    },
    /// `if not created:` after `get_or_create`; `marker` is that call. `compound` when the test
    /// also checks something else (`if not created and obj.status == "sent"`: pending → done).
    NotCreated { marker: TextRange, compound: bool },
    /// `if not redis.set(k, v, nx=True):`, `if not cache.add(...)`; `marker` is that call.
    NotMarker { marker: TextRange },
    /// `try: ...create(...) except IntegrityError: return`; `inserts` are the insert calls in
    /// the `try`, in order: which one is the marker depends on the models
    /// ([`crate::project::Project::integrity_marker`]).
    Integrity { inserts: Vec<TextRange> },
    /// `if not claimed: return` (or `== 0`) after a conditional update that sets a field its
    /// filter selects by (`filter(pk=pk, status="queued").update(status="sending")`): a
    /// done-check that wrote its own state, atomically, before anything it guards.
    Claim,
    /// `if helper(...):`, a done-check when the helper's summary says so; `negated` for
    /// `if not helper(...):`, a claim's (`if not claim_receipt(order): return`).
    Helper { path: QPath, negated: bool },
    /// `if x.status != "pending": return` when the function never writes `status` afterwards:
    /// a precondition, not a done-check (with a later write, the same test is a `DoneCheck`).
    Precondition,
    /// `if x.field != value:` (or `not in`) while the body is being read; `finish` turns it into
    /// `DoneCheck` or `Precondition`, so no later pass sees it.
    ///
    /// `on_path` when the test is a flag's (`if not x.pending: return`, `if x.pending:` around
    /// the effect): then only a write the guarded code always runs through makes it a
    /// done-check, as `x.enabled = False` in a branch does not turn `if not x.enabled: return`
    /// into one.
    ///
    /// `also` holds the other state fields a query selected the row by (`filter(pk=pk,
    /// status="paid", sms_sent=False).first()`): a write of any of them makes the test a
    /// done-check.
    StateNot {
        field: Sym,
        on_path: bool,
        also: ThinVec<Sym>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Exit {
    Return,
    Raise,
    Continue,
    /// The guarded code is the `if`'s body: `if not x.sent: send(...)`.
    Skip,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AttrAssign {
    pub range: TextRange,
    /// The resolved path of the object written to (`celery.Celery().conf` for `app.conf.x = 1`).
    pub object: Option<QPath>,
    pub var: Sym,
    pub attr: Sym,
    /// `app.conf.broker_transport_options["visibility_timeout"] = 7200`: the entry written
    /// in the attribute's dict, not the attribute itself.
    pub key: Option<Sym>,
    pub augmented: bool,
    pub value: Value,
}

#[cfg(test)]
mod tests {
    use super::{Dropped, EventKind, SmallMap};
    use crate::catalog::Catalog;
    use crate::parse::parse_module;

    #[test]
    fn names_are_read_from_the_qualname_and_the_module_body_has_its_own() {
        let code = "class Order:\n    def save(self):\n        def inner():\n            pass\n";
        let catalog = Catalog::new(&[], &[]);
        let file = parse_module("shop.models", code, &catalog);
        let facts = file.facts.as_ref().expect("facts");
        let names: Vec<(&str, &str)> = facts
            .functions
            .iter()
            .map(|f| (f.name(), f.qualname.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("<module>", "shop.models"),
                ("save", "shop.models.Order.save"),
                ("inner", "shop.models.Order.save.inner"),
            ]
        );
        assert_eq!(facts.functions[1].class(), Some(0));
        assert_eq!(facts.functions[2].parent(), Some(1));
    }

    #[test]
    fn dropped_arguments_keep_their_count_and_whether_a_keyword_went() {
        assert!(!Dropped::default().any());
        let two = Dropped::new(2, false);
        assert_eq!((two.positional(), two.any()), (2, true));
        let keyword = Dropped::new(0, true);
        assert_eq!((keyword.positional(), keyword.any()), (0, true));
        // Past 127 the count saturates and never runs into the keyword bit.
        assert_eq!(Dropped::new(500, false).positional(), 127);
        assert_eq!(Dropped::new(500, true).positional(), 127);
    }

    #[test]
    fn bodies_are_stored_encoded_and_read_back_whole() {
        let code = "\
from redis import Redis
from shop.queue import async_task as later
from proj.celery import CONF

def f(order, key):
    with transaction.atomic():
        order.state = \"sent\"
        later(\"shop.tasks.send\", order.id)
    if order.sent:
        return
    return helper(key)

def g():
    print(1)

class Job:
    def __init__(self, order):
        self.order = order
        self.state = \"new\"

def configure():
    app.conf.task_acks_late = True

def configure_imported():
    CONF.task_acks_late = True
";
        let catalog = Catalog::new(&[], &[]);
        let file = parse_module("tasks", code, &catalog);
        let facts = file.facts.as_ref().expect("facts");
        let f = facts.functions.iter().find(|f| f.name() == "f").expect("f");
        let g = facts.functions.iter().find(|f| f.name() == "g").expect("g");
        let init = facts
            .functions
            .iter()
            .find(|f| f.name() == "__init__")
            .expect("__init__");

        // Scans read a body without keeping it decoded.
        let calls = f.peek(|body| body.events.len());
        assert!(f.body.decoded.get().is_none());
        // A call is named by its method (`later`) and by the last name of its path
        // (`async_task`, through the renaming import).
        assert!(f.calls_named(|name| name == "later"));
        assert!(f.calls_named(|name| name == "async_task"));
        assert!(f.calls_named(|name| name == "helper"));
        assert!(!f.calls_named(|name| name == "print"));
        assert!(f.has_with() && f.has_attr_assign());
        assert!(!g.has_with() && !g.has_attr_assign());
        // Attributes of a parameter or of `self` cannot be the Celery app's `conf`; those of
        // `app.conf` or of an imported name can.
        assert!(!f.may_assign_app_conf());
        assert!(init.has_attr_assign() && !init.may_assign_app_conf());
        for name in ["configure", "configure_imported"] {
            let function = facts
                .functions
                .iter()
                .find(|f| f.name() == name)
                .expect(name);
            assert!(function.may_assign_app_conf(), "{name}");
        }

        // Read whole: blocks, events with their arguments, guards and returns.
        let body = f.body();
        assert!(f.body.decoded.get().is_some());
        assert_eq!(body.events.len(), calls);
        assert!(
            matches!(body.blocks[1].kind, super::BlockKind::With { ref items } if items.len() == 1)
        );
        let handed = body
            .events
            .iter()
            .find_map(|e| match &e.kind {
                EventKind::Call(call) if call.method == "later" => Some(call),
                _ => None,
            })
            .expect("the call of later");
        assert_eq!(
            handed.path.as_ref().and_then(|p| p.last_name()),
            Some("async_task")
        );
        assert_eq!(
            handed.args().first().and_then(super::Value::as_str),
            Some("shop.tasks.send")
        );
        assert!(body.events.iter().any(|e| matches!(&e.kind,
            EventKind::AttrAssign(a) if a.var == "order" && a.attr == "state" && a.value.as_str() == Some("sent"))));
        assert!(
            body.events
                .iter()
                .any(|e| matches!(e.kind, EventKind::Guard(_)))
        );
        // The bare `return` under the guard is kept (an answer: claim helpers return `False`
        // there), and so is `helper(key)`.
        assert_eq!(body.returns.len(), 2);
        assert!(matches!(body.returns[0].lit, super::Lit::None));
        assert_eq!(
            body.returns[1].path.as_ref().and_then(|p| p.last_name()),
            Some("helper")
        );
        assert_eq!(format!("{:?}", f.body), format!("{body:?}"));
    }

    #[test]
    fn a_body_larger_than_the_encoding_buffer_is_kept_whole_and_the_next_starts_empty() {
        // Each call encodes to a few dozen bytes: 4000 of them are well past the fixed buffer.
        let calls = 4000;
        // Bodies are walked from the last function up: `first` comes after `big`.
        let mut code = String::from("def first():\n    notify()\n\ndef big(client):\n");
        for i in 0..calls {
            code.push_str(&format!(
                "    client.send_{i}(\"payload {i}\", retries={i})\n"
            ));
        }
        code.push_str("\ndef last():\n    notify()\n");
        let catalog = Catalog::new(&[], &[]);
        let file = parse_module("tasks", &code, &catalog);
        let facts = file.facts.as_ref().expect("facts");
        let big = facts
            .functions
            .iter()
            .find(|f| f.name() == "big")
            .expect("big");
        assert!(big.body.encoded.len() > super::ENCODE_BUFFER_SIZE);
        let events = big.events();
        assert_eq!(events.len(), calls);
        assert!(
            matches!(&events[calls - 1].kind, EventKind::Call(call) if call.method == "send_3999")
        );
        assert!(big.calls_named(|name| name == "send_0"));
        // The vectors the big body grew are reused emptied: nothing of it leaks into the next.
        for name in ["first", "last"] {
            let small = facts
                .functions
                .iter()
                .find(|f| f.name() == name)
                .expect(name);
            assert_eq!(small.blocks().len(), 1);
            assert_eq!(small.events().len(), 1);
            assert!(!small.calls_named(|name| name == "send_0"));
        }
    }

    #[test]
    fn a_body_not_read_yet_is_one_empty_block_and_no_bytes() {
        let body = super::Body::default();
        assert!(body.encoded.is_empty() && body.call_names.is_empty());
        let decoded = body.decode();
        assert_eq!(decoded.blocks.len(), 1);
        assert!(matches!(decoded.blocks[0].kind, super::BlockKind::Body));
        assert!(decoded.events.is_empty() && decoded.returns.is_empty());
    }

    #[test]
    fn small_map_replaces_in_place_and_keeps_first_insertion_order() {
        let mut map = SmallMap::default();
        assert!(map.is_empty());
        assert_eq!(map.insert("max_retries", 3), None);
        assert_eq!(map.insert("acks_late", 1), None);
        assert_eq!(map.insert("max_retries", 5), Some(3));
        assert_eq!(map.len(), 2);
        assert_eq!(map.get("max_retries"), Some(&5));
        assert!(map.contains_key("acks_late"));
        assert!(!map.contains_key("bind"));
        let keys: Vec<&str> = map.keys().collect();
        assert_eq!(keys, ["max_retries", "acks_late"]);
        map.values_mut().for_each(|v| *v += 1);
        assert_eq!((&map).into_iter().map(|(_, v)| *v).sum::<i32>(), 8);
    }
}
