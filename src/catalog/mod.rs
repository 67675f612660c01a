//! The library catalog: effect sinks and their idempotency keys, heuristics, nondeterministic
//! sources, delivery metadata and task frameworks. The built-in data is `catalog.toml`, embedded in
//! the binary; `[tool.twice.effects]` adds sinks to it.

use rustc_hash::FxHashMap as HashMap;
use std::fmt;

use serde::Deserialize;

use crate::facts::{CallSite, Dropped, Lit, Taint, Value};
use crate::i18n::{Lang, tr};
use crate::path::{Call, Pattern, QPath, Seg, Sym};

const BUILTIN: &str = include_str!("catalog.toml");

/// Catalog keys whose values no rule reads the arguments of: `option-prefix` (a prefix, not a
/// name: `_` would keep the arguments of every gettext `_()` call) and `chain-methods` (only
/// their names matter; `reverse` would keep those of every Django `reverse()` call).
const NAMES_ONLY: [&str; 2] = ["option-prefix", "chain-methods"];

/// The identifiers in the keys and string values of a catalog, except those of its `[pure]`
/// lists (calls that keep no event cannot have arguments a rule reads) and of [`NAMES_ONLY`].
/// Comments say nothing.
fn catalog_words(text: &str) -> Vec<String> {
    fn walk(value: &toml::Value, out: &mut Vec<String>) {
        match value {
            toml::Value::String(s) => out.extend(identifiers(s).map(str::to_string)),
            toml::Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            toml::Value::Table(table) => {
                for (key, value) in table {
                    if NAMES_ONLY.contains(&key.as_str()) {
                        continue;
                    }
                    out.extend(identifiers(key).map(str::to_string));
                    walk(value, out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Ok(table) = text.parse::<toml::Table>() {
        for (key, value) in &table {
            if key != "pure" {
                out.extend(identifiers(key).map(str::to_string));
                walk(value, &mut out);
            }
        }
    }
    out
}

/// The identifiers in a text (every `[A-Za-z_][A-Za-z0-9_]*` run).
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|word| word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EffectKind {
    Payment,
    Email,
    Message,
    Http,
    Publish,
}

impl EffectKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EffectKind::Payment => "payment",
            EffectKind::Email => "email",
            EffectKind::Message => "message",
            EffectKind::Http => "http",
            EffectKind::Publish => "publish",
        }
    }

    /// The i18n keys of the kind's phrases: the noun ("a payment"), the predicate ("is a
    /// payment"), what has happened once it ran, and what a second run does.
    fn phrase_keys(self) -> [&'static str; 4] {
        match self {
            EffectKind::Payment => [
                "effect.payment.noun",
                "effect.payment.is",
                "effect.payment.done",
                "effect.payment.repeat",
            ],
            EffectKind::Email => [
                "effect.email.noun",
                "effect.email.is",
                "effect.email.done",
                "effect.email.repeat",
            ],
            EffectKind::Message => [
                "effect.message.noun",
                "effect.message.is",
                "effect.message.done",
                "effect.message.repeat",
            ],
            EffectKind::Http => [
                "effect.http.noun",
                "effect.http.is",
                "effect.http.done",
                "effect.http.repeat",
            ],
            EffectKind::Publish => [
                "effect.publish.noun",
                "effect.publish.is",
                "effect.publish.done",
                "effect.publish.repeat",
            ],
        }
    }

    /// The kind as a noun, for messages: "a payment", "an HTTP request".
    pub fn noun(self, lang: Lang) -> &'static str {
        lang.text(self.phrase_keys()[0])
    }

    /// The kind as a predicate: "is a payment".
    pub fn is(self, lang: Lang) -> &'static str {
        lang.text(self.phrase_keys()[1])
    }

    /// That such an effect has happened: "the payment has already happened".
    pub fn done(self, lang: Lang) -> &'static str {
        lang.text(self.phrase_keys()[2])
    }

    /// What a second run of such an effect does, for messages.
    pub fn repeat(self, lang: Lang) -> &'static str {
        lang.text(self.phrase_keys()[3])
    }
}

impl fmt::Display for EffectKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Framework {
    Celery,
    Dramatiq,
    Rq,
    Huey,
    Arq,
    Taskiq,
    Procrastinate,
    Django,
    DjangoQ,
}

impl Framework {
    pub fn as_str(self) -> &'static str {
        match self {
            Framework::Celery => "celery",
            Framework::Dramatiq => "dramatiq",
            Framework::Rq => "rq",
            Framework::Huey => "huey",
            Framework::Arq => "arq",
            Framework::Taskiq => "taskiq",
            Framework::Procrastinate => "procrastinate",
            Framework::Django => "django",
            Framework::DjangoQ => "django-q",
        }
    }
}

/// Where a sink takes its idempotency key.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeySpec {
    /// A keyword argument.
    pub keyword: Option<String>,
    /// A positional argument (0-based).
    pub position: Option<usize>,
    /// A field of the `options=` dict.
    pub options: Option<String>,
    /// Header names (case-insensitive) in `headers=`.
    #[serde(default, deserialize_with = "one_or_many")]
    pub header: Vec<String>,
    /// A field of a dict or a keyword of a request object passed to the call (or of every
    /// item of a list of them).
    pub field: Option<String>,
    /// The keywords whose value holds `field` (`Entries=[...]`, `body={...}`); without them,
    /// any argument does. Positional arguments always do.
    #[serde(default, rename = "field-in", deserialize_with = "one_or_many")]
    pub field_in: Vec<String>,
    /// Any key-named header counts (`X-Idempotency-Key`, `Idempotence-Key`), not only those
    /// named: a raw HTTP call's server decides which it reads. Set for sinks of kind `http`;
    /// an SDK reads the one header it documents.
    #[serde(skip)]
    pub any_key_header: bool,
}

/// The keyword of the request options dict a sink reads `KeySpec::options` from.
pub const OPTIONS_KEYWORD: &str = "options";
/// The keyword of the headers dict a sink reads `KeySpec::header` from.
pub const HEADERS_KEYWORD: &str = "headers";

fn is_idempotency_header(name: &str) -> bool {
    name.to_ascii_lowercase().contains("idempoten")
}

fn one_or_many<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        One(String),
        Many(Vec<String>),
    }
    Ok(match OneOrMany::deserialize(deserializer)? {
        OneOrMany::One(s) => vec![s],
        OneOrMany::Many(v) => v,
    })
}

impl KeySpec {
    /// Whether `name` is a header that carries this sink's key: one the catalog names, or for
    /// a raw HTTP call any `*Idempotency*` header.
    pub fn is_key_header(&self, name: &str) -> bool {
        self.header.iter().any(|h| h.eq_ignore_ascii_case(name))
            || self.any_key_header && is_idempotency_header(name)
    }

    fn for_kind(mut self, kind: EffectKind) -> Self {
        self.any_key_header = kind == EffectKind::Http;
        self
    }

    /// How to pass the key, with an example value: for the `help:` line.
    /// `in_items`: the call passes the list whose items carry the key (`Entries=[...]`).
    pub fn example(&self, lang: Lang, key: &str, in_items: bool) -> String {
        if in_items
            && let Some(field) = &self.field
            && let Some(list) = self.field_in.first()
        {
            return tr!(lang, "key.field_in", field = field, list = list, key = key);
        }
        if let Some(keyword) = &self.keyword {
            return match self.position {
                Some(position) => tr!(
                    lang,
                    "key.position",
                    position = position + 1,
                    keyword = keyword,
                    key = key
                ),
                None => tr!(lang, "key.keyword", keyword = keyword, key = key),
            };
        }
        if let Some(option) = &self.options {
            return tr!(lang, "key.options", option = option, key = key);
        }
        if let Some(header) = self.header.first() {
            return tr!(lang, "key.header", header = header, key = key);
        }
        if let Some(field) = &self.field {
            return tr!(lang, "key.field", field = field, key = key);
        }
        tr!(lang, "key.other", key = key)
    }
}

/// For generic request functions: which argument holds the HTTP method.
#[derive(Clone, Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct MethodSpec {
    pub position: Option<usize>,
    pub keyword: Option<String>,
    pub writes: Vec<String>,
    /// The argument is a URL or a request object whose field of this name is the method
    /// (`urlopen(Request(url, method="POST"))`); with no method given, a body makes it a POST.
    pub request_field: Option<String>,
    /// The body: the call's argument, or the request object's field named by its `keyword`.
    pub body: Option<ArgSpec>,
}

#[derive(Debug)]
pub struct Sink {
    pub sdk: String,
    pub kind: EffectKind,
    pub key: Option<KeySpec>,
    pub random_default: bool,
    pub method: Option<MethodSpec>,
    /// Calls the sink's patterns take in that only read (`get_result_of_payment_session`).
    pub reads: Vec<Pattern>,
}

/// A set of patterns indexed by their literal last segment.
#[derive(Debug)]
pub struct PatternSet<T> {
    /// Keyed by the interned name, so that a lookup hashes a number, not the text.
    by_last: HashMap<Sym, Vec<(Pattern, T)>>,
    other: Vec<(Pattern, T)>,
}

impl<T> Default for PatternSet<T> {
    fn default() -> Self {
        Self {
            by_last: HashMap::default(),
            other: Vec::new(),
        }
    }
}

impl<T: Copy> PatternSet<T> {
    pub fn insert(&mut self, pattern: &str, value: T) {
        let pattern = Pattern::parse(pattern);
        match pattern.last_literal() {
            Some(last) => self
                .by_last
                .entry(Sym::new(last))
                .or_default()
                .push((pattern, value)),
            None => self.other.push((pattern, value)),
        }
    }

    pub fn find(&self, path: &QPath) -> Option<T> {
        let last = path.0.last()?.name;
        self.by_last
            .get(&last)
            .into_iter()
            .flatten()
            .chain(&self.other)
            .find(|(pattern, _)| pattern.matches(path))
            .map(|(_, value)| *value)
    }

    /// The last names of the paths the set can match, when every pattern ends in a literal.
    pub fn last_names(&self) -> Option<impl Iterator<Item = &str>> {
        self.other
            .is_empty()
            .then(|| self.by_last.keys().map(|name| name.as_str()))
    }

    /// Whether some pattern could match a path ending in `last`: a cheap test before `find`.
    pub fn may_match(&self, last: Sym) -> bool {
        !self.other.is_empty() || self.by_last.contains_key(&last)
    }

    pub fn is_empty(&self) -> bool {
        self.by_last.is_empty() && self.other.is_empty()
    }
}

#[derive(Debug)]
pub struct Heuristics {
    pub known_libraries: Vec<String>,
    /// Values a known library hands out that are the project's own objects, of any class
    /// (`settings.PAYMENT_GATEWAY`, `import_string(path)()`): unknown objects all the same.
    pub configured_objects: Vec<Pattern>,
    pub strong_verbs: Vec<String>,
    pub weak_verbs: Vec<String>,
    pub domain_words: Vec<String>,
    pub key_keywords: Vec<String>,
    pub key_keyword_contains: Vec<String>,
}

impl Heuristics {
    pub fn is_key_keyword(&self, name: &str) -> bool {
        let lower = name.to_ascii_lowercase();
        self.key_keywords.contains(&lower)
            || self
                .key_keyword_contains
                .iter()
                .any(|k| lower.contains(k.as_str()))
    }
}

#[derive(Debug)]
pub struct Metadata {
    pub what: String,
    pub changes_on_retry: bool,
}

#[derive(Debug)]
pub struct FrameworkSpec {
    pub framework: Framework,
    /// How the framework delivers (for `twice review`), from CATALOG.md.
    pub delivery: Option<String>,
    /// Its retries by default.
    pub retries: Option<String>,
    /// The framework's application class and the methods that only it has.
    pub app: Option<AppSpec>,
    pub enqueue_methods: Vec<String>,
    /// Enqueue methods no other library has: they enqueue on a task the project does not
    /// define.
    pub unresolved_enqueue_methods: Vec<String>,
    /// Methods of a task that run its body in the caller's process (`task.run(...)`).
    pub run_methods: Vec<String>,
    /// Enqueue methods that take the task's arguments as `args=`/`kwargs=` beside options.
    pub options_methods: Vec<String>,
    /// Methods that build a call of the task from its arguments (`task.s(...)`).
    pub signature_methods: Vec<String>,
    /// Methods that build a call of the task from `args`/`kwargs` (or the first two positional
    /// arguments) beside options (`self.signature((id,), {"engine": e}, countdown=30)`).
    pub options_signature_methods: Vec<String>,
    /// Methods of a task that return it with other options, enqueued by the enqueue method
    /// called on the result with the task's own arguments (`task.configure(lock=k).defer(id)`).
    pub builder_methods: Vec<String>,
    pub call_enqueues: bool,
    /// What turns an enqueue method into its twin that waits for the commit (Celery's
    /// `delay` → `delay_on_commit`): named by TW302's fix.
    pub on_commit_suffix: Option<String>,
    pub time_limits: Vec<TimeLimitSpec>,
    /// The framework's own bound on a run, in seconds, when the task sets none.
    pub default_time_limit: Option<i64>,
    /// Calls that bound every task of the framework that sets no limit of its own (Dramatiq's
    /// `TimeLimit(time_limit=...)` middleware).
    pub global_time_limits: Vec<CallTimeLimit>,
    /// Queue constructors whose keyword bounds the jobs enqueued on the queue without a limit
    /// of their own (RQ's `Queue(..., default_timeout=...)`).
    pub queue_time_limits: Vec<CallTimeLimit>,
    /// The task option naming the queue a decorated task is enqueued on (RQ's `@job(queue)`),
    /// whose `queue_time_limits` apply to it.
    pub queue_option: Option<String>,
    /// The method a task calls to retry itself (`self.retry(...)`).
    pub retry_method: Option<String>,
    /// The task's first parameter is the run's context (arq's `ctx`), not an argument the
    /// enqueue passes.
    pub context_first: bool,
    /// The method a class deriving from one of the framework's task classes runs (`run` of a
    /// Celery `Task`, `perform` of a Dramatiq `GenericActor`).
    pub task_class_method: String,
    /// The nested class that holds a task class's options (Dramatiq's `class Meta:`), when they
    /// are not the class's own attributes.
    pub task_class_options: Option<String>,
    /// The task decorator's positional parameters, by name (RQ's `job(queue, connection,
    /// timeout)`): a task option given by position.
    pub decorator_parameters: Vec<String>,
}

#[derive(Debug)]
pub struct Catalog {
    pub sinks: Vec<Sink>,
    /// Every header a sink takes its key in.
    key_headers: Vec<String>,
    /// Every keyword a sink takes its key in ([`Catalog::may_carry_key`]).
    key_carriers: Vec<Sym>,
    effects: PatternSet<usize>,
    pub heuristics: Heuristics,
    nondeterministic: PatternSet<()>,
    /// Methods whose arguments' taint goes into their receiver ([`Catalog::folds_into_receiver`]).
    into_receiver: Vec<Sym>,
    /// Keywords that name a function called to make a default value
    /// ([`Catalog::is_factory_keyword`]).
    factory_keywords: Vec<Sym>,
    pub metadata: Vec<Metadata>,
    metadata_patterns: PatternSet<usize>,
    /// The members of the task instance that metadata is read through (`request` in
    /// `self.request.retries`): a helper's parameter read the same way was handed the task.
    task_members: Vec<Sym>,
    /// The keys metadata is read by (`ctx["job_try"]`): a subscript with another key is not
    /// looked up.
    metadata_keys: Vec<String>,
    pub frameworks: Vec<FrameworkSpec>,
    /// The methods of the frameworks' app classes ([`Catalog::type_by_api`]), as symbols.
    api_methods: rustc_hash::FxHashSet<Sym>,
    decorators: PatternSet<Framework>,
    /// Task decorators whose task, called, enqueues at the commit (`on_commit_task`).
    on_commit_decorators: PatternSet<()>,
    task_classes: PatternSet<Framework>,
    enqueue_functions: PatternSet<()>,
    /// Calls whose result enqueues when called (`chord(header)(callback)`).
    enqueue_called: PatternSet<()>,
    rq_methods: Vec<RqMethod>,
    rq_options: Vec<String>,
    /// Enqueue calls that name the task by its registered name ([`Catalog::by_name`]).
    by_name_calls: PatternSet<usize>,
    by_name: Vec<ByName>,
    pub registry: Registry,
    pub locks: Vec<LockApi>,
    pub lock_release: LockRelease,
    pub set_if_absent: SetIfAbsent,
    pub lock_extension: LockExtension,
    /// Decorators that make a generator a context manager (`contextlib.contextmanager`).
    context_managers: PatternSet<()>,
    pub state_writes: StateWrites,
    /// [`StateWrites::session_writes`] and [`StateWrites::write_statements`], compiled.
    session_writes: PatternSet<()>,
    write_statements: PatternSet<()>,
    pub writes: Writes,
    pub transactions: Transactions,
    pub models: Models,
    pub celery_settings: CelerySettingsSpec,
    pure: PureNames,
    /// Binders, runners, durations and request objects: one lookup for every call.
    roles: PatternSet<CallRole>,
    /// The positional parameters of each request object's constructor, by name.
    request_params: Vec<Vec<Sym>>,
    /// Methods that add a header to a request object (`req.add_header(name, value)`).
    request_header_methods: Vec<Sym>,
    pub orm: Orm,
    /// `fetch-methods` and `writes.sql-methods`, as symbols: looked up for every call.
    statement_methods: Box<[Sym]>,
    guards: Guards,
    vocabulary: Vocabulary,
    /// Every identifier the catalog (with the user's additions) mentions, and the methods the
    /// rules read arguments of. Only calls and keywords named here keep their argument values
    /// in the facts; see [`Catalog::argument_filter`].
    argument_names: rustc_hash::FxHashSet<Sym>,
    /// A sink pattern ends in a wildcard: any call may be one, so every call keeps its arguments.
    every_argument: bool,
    /// The literal segments of sink patterns that end in a wildcard.
    wildcard_names: rustc_hash::FxHashSet<Sym>,
}

/// What a call keeps of its arguments in the facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgumentFilter {
    /// Everything: the call may be anything the catalog or a rule knows.
    All,
    /// Only the keywords the catalog names (a key, `auto_renewal=`...); positional arguments
    /// and other keywords are dropped.
    NamedKeywords,
}

/// A sink declared by the user in `[tool.twice.effects]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a table such as `{ kind = \"payment\", key = \"idempotency_key\" }`"
)]
pub struct UserSink {
    pub kind: EffectKind,
    #[serde(default)]
    pub key: Option<UserKey>,
}

/// Where a user's sink takes its key: a keyword's name, or a [`KeySpec`] table.
#[derive(Clone, Debug)]
pub enum UserKey {
    Keyword(String),
    Spec(KeySpec),
}

/// By hand rather than `untagged`, so that a misspelt field of the table is named
/// (`unknown field `heder``) instead of "did not match any variant".
impl<'de> Deserialize<'de> for UserKey {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<UserKey, D::Error> {
        struct KeyVisitor;
        impl<'de> serde::de::Visitor<'de> for KeyVisitor {
            type Value = UserKey;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(
                    "a keyword name (`\"idempotency_key\"`) or a table of `keyword`, `position`, \
                     `options`, `header`, `field` or `field-in`",
                )
            }

            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<UserKey, E> {
                Ok(UserKey::Keyword(value.to_string()))
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<UserKey, A::Error> {
                KeySpec::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(UserKey::Spec)
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawCatalog {
    effect: Vec<RawEffect>,
    heuristics: RawHeuristics,
    nondeterministic: RawNondeterministic,
    metadata: Vec<RawMetadata>,
    framework: Vec<RawFramework>,
    enqueue: RawEnqueue,
    registry: RawRegistry,
    lock: Vec<LockApi>,
    lock_release: LockRelease,
    set_if_absent: RawSetIfAbsent,
    lock_extension: LockExtension,
    lock_helpers: RawLockHelpers,
    state_writes: StateWrites,
    writes: RawWrites,
    transactions: RawTransactions,
    models: Models,
    celery_settings: CelerySettingsSpec,
    pure: Pure,
    binders: RawBinders,
    runner: Vec<RawRunner>,
    durations: RawDurations,
    request_object: Vec<RawRequestObject>,
    pub orm: Orm,
    guards: Guards,
    vocabulary: Vocabulary,
    arguments: RawArguments,
}

/// Names whose calls keep their arguments beyond those the catalog mentions elsewhere.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawArguments {
    read_by_rules: Vec<String>,
}

/// Whether a value derives from a nondeterministic source or delivery metadata.
fn is_key_material(value: &Value) -> bool {
    value
        .taint
        .iter()
        .any(|taint| matches!(taint, Taint::Nondet { .. } | Taint::Meta { .. }))
}

/// Whether a value names a class of a module by its path (`Receipt`, `models.Receipt`), by
/// the CapWords convention: not a call, not a constant (`TIMEOUT`).
fn names_class(value: &Value) -> bool {
    matches!(value.lit, Lit::Other)
        && value.path.as_ref().is_some_and(|path| {
            !path.is_call()
                && path.0.len() > 1
                && path.0.last().is_some_and(|seg| {
                    let name = seg.name.as_str();
                    name.starts_with(|c: char| c.is_ascii_uppercase())
                        && name.bytes().any(|b| b.is_ascii_lowercase())
                })
        })
}

/// Whether a value is a parameter of the function, read by its name as received.
fn passes_param(value: &Value) -> bool {
    value.name.is_some() && value.flags & Value::PARAM != 0
}

/// A parameter passed on, as [`Catalog::filter_arguments`] keeps it: its name alone.
fn param_only(value: &Value) -> Value {
    Value {
        name: value.name,
        flags: value.flags,
        ..Value::default()
    }
}

/// A list of names from the catalog, asked whether it holds one.
#[derive(Debug, Default, Deserialize)]
#[serde(transparent)]
pub struct Names(Vec<String>);

impl Names {
    pub fn has(&self, name: &str) -> bool {
        self.0.iter().any(|n| n == name)
    }
}

/// The ORM's vocabulary: managers, row-returning and loading methods, and the methods that
/// save, create, delete and test rows.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Orm {
    pub managers: Vec<String>,
    /// How a model's class attribute names a manager of its own (`active = ActiveManager()`,
    /// `live = LiveQuerySet.as_manager()`): a call of a class whose name ends in one of
    /// `manager-suffixes`, or of one of `manager-factories`.
    #[serde(default)]
    pub manager_suffixes: Vec<String>,
    #[serde(default)]
    pub manager_factories: Vec<String>,
    pub row_methods: Vec<String>,
    pub loaders: Vec<String>,
    pub save_methods: Names,
    pub refresh_methods: Names,
    pub create_methods: Names,
    pub get_or_create_methods: Names,
    /// Per get-or-create method, the keyword it writes only when it creates the row.
    pub creation_only_keywords: HashMap<String, String>,
    pub update_methods: Names,
    /// Per update-or-create method, the keyword whose values update an existing row.
    #[serde(default)]
    pub update_keywords: HashMap<String, String>,
    pub bulk_create_methods: Names,
    pub insert_methods: Names,
    pub delete_methods: Names,
    pub exists_methods: Names,
    pub key_fields: Names,
    pub write_methods: Names,
    pub queryset_methods: Names,
    /// The queryset methods whose keywords select rows (`filter(status="queued")`), unlike the
    /// options of `select_for_update(skip_locked=True)`.
    #[serde(default)]
    pub lookup_methods: Names,
    pub chain_methods: Names,
    pub as_manager_methods: Names,
    pub from_queryset_methods: Names,
    pub related_manager_writes: Names,
    /// Calls that return a model class by its app label and name
    /// (`apps.get_model("billing", "Invoice")`, `apps.get_model("billing.Invoice")`).
    #[serde(default)]
    pub model_lookups: Vec<String>,
    /// Calls that return the user model the settings name (`get_user_model()`), and the setting.
    #[serde(default)]
    pub user_model_calls: Vec<String>,
    #[serde(default)]
    pub user_model_setting: Option<String>,
}

impl Orm {
    /// Whether a method's name is the last name of a model lookup (`get_model`): its two string
    /// arguments are kept as one label (`"billing.Invoice"`).
    pub fn is_model_lookup_method(&self, method: &str) -> bool {
        self.model_lookups
            .iter()
            .any(|lookup| lookup.rsplit('.').next() == Some(method))
    }
}

impl Orm {
    /// Whether a field names a row rather than its state: a key field, or a relation by one
    /// (`order_id`).
    pub fn is_key_field(&self, field: &str) -> bool {
        self.key_fields.0.iter().any(|key| {
            field == key
                || field
                    .strip_suffix(key.as_str())
                    .is_some_and(|rest| rest.ends_with('_'))
        })
    }

    /// Whether `path` goes through a model's manager (`Order.objects...`).
    pub fn through_manager(&self, path: &QPath) -> bool {
        self.managers.iter().any(|m| path.contains(m))
    }

    /// The position of the first manager in `path` (`Order.objects.filter(...)`: 1).
    pub fn manager_at(&self, path: &QPath) -> Option<usize> {
        path.segs()
            .iter()
            .position(|s| self.managers.iter().any(|m| m == s.name.as_str()))
    }

    /// Whether a call of `method` on `path` writes rows: a save, or a write method on a
    /// manager or a queryset.
    pub fn is_write(&self, method: &str, path: &QPath) -> bool {
        if self.save_methods.has(method) {
            return true;
        }
        self.write_methods.has(method)
            && (self.through_manager(path)
                || path.0.iter().any(|seg| {
                    seg.call != crate::path::Call::No && self.queryset_methods.has(&seg.name)
                }))
    }
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct Guards {
    done_check_methods: Vec<String>,
    /// Methods that fetch a row or a value: tested where they are called, done-checks; returned
    /// by a helper, data rather than an answer.
    #[serde(default)]
    fetch_methods: Vec<String>,
    /// Attributes holding how many rows a statement changed (`result.rowcount`).
    #[serde(default)]
    count_attributes: Vec<String>,
    integrity_errors: Vec<String>,
    /// Exceptions (their last name) a query raises when no row matches (`DoesNotExist`).
    #[serde(default)]
    missing_row_errors: Vec<String>,
    insert_methods: Vec<String>,
    /// What makes an insert skip a row already there (`ON CONFLICT DO NOTHING`, SQLAlchemy's
    /// `on_conflict_do_nothing()`), and return what it inserted (`RETURNING`): its answer is
    /// empty when an earlier run claimed the row.
    #[serde(default)]
    claim_insert_skips: Vec<String>,
    #[serde(default)]
    claim_insert_returning: Vec<String>,
    /// Session methods that stage a row for the next commit (`session.add(...)`), and the
    /// methods that commit it: the commit raises the staged insert's `IntegrityError`.
    #[serde(default)]
    staged_insert_methods: Vec<String>,
    #[serde(default)]
    commit_methods: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct Vocabulary {
    enqueue_on_commit: Vec<String>,
    #[serde(default)]
    local_pools: Vec<String>,
    #[serde(default)]
    key_conversions: Vec<String>,
    property_decorators: Vec<String>,
    interface_bases: Vec<String>,
    abstract_decorators: Vec<String>,
    name_keywords: Vec<String>,
    logging_methods: Vec<String>,
    #[serde(default)]
    dry_run_keywords: Vec<String>,
    kind_words: HashMap<EffectKind, Vec<String>>,
}

/// Calls that never matter to a rule: no event is kept for them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pure {
    functions: rustc_hash::FxHashSet<String>,
    methods: rustc_hash::FxHashSet<String>,
}

/// [`Pure`] interned: looked up for nearly every call of the checked code, by the symbol the
/// call's name already has.
#[derive(Debug)]
struct PureNames {
    functions: rustc_hash::FxHashSet<Sym>,
    methods: rustc_hash::FxHashSet<Sym>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawWrites {
    stored_values: Vec<String>,
    #[serde(default)]
    stored_functions: Vec<String>,
    counter_clients: Vec<String>,
    counter_methods: Vec<String>,
    counter_receiver_words: Vec<String>,
    open_functions: Vec<String>,
    open_methods: Vec<String>,
    sql_methods: Vec<String>,
    #[serde(default)]
    sql_functions: Vec<String>,
    sql_text: Vec<String>,
    sql_text_filled: Vec<String>,
    idempotent_insert: Vec<String>,
    column_updates: Vec<String>,
    bulk_idempotent: Vec<String>,
}

/// Writes that accumulate when repeated (TW305).
#[derive(Debug)]
pub struct Writes {
    stored_values: PatternSet<()>,
    stored_functions: PatternSet<()>,
    counters: PatternSet<()>,
    pub counter_methods: Vec<String>,
    pub counter_receiver_words: Vec<String>,
    open_functions: PatternSet<()>,
    open_methods: PatternSet<()>,
    sql_methods: Vec<String>,
    sql_functions: PatternSet<()>,
    sql_text: PatternSet<()>,
    sql_text_filled: PatternSet<()>,
    pub idempotent_insert: Vec<String>,
    column_updates: Vec<Sym>,
    pub bulk_idempotent: Vec<String>,
}

impl Writes {
    /// Whether `method` sets the columns of an SQL `UPDATE` statement
    /// (`update(Product).values(...)`): the column names are its keywords.
    pub fn is_column_update(&self, method: Sym) -> bool {
        self.column_updates.contains(&method)
    }

    pub fn is_counter(&self, path: &QPath, call: &CallSite) -> bool {
        if self.counters.find(path).is_some() {
            return true;
        }
        let receiver = call.receiver_lowercase();
        self.counter_methods
            .iter()
            .any(|m| **m == *call.method.as_str())
            && self
                .counter_receiver_words
                .iter()
                .any(|w| receiver.contains(w.as_str()))
    }

    /// Where a call that opens a file takes its mode: `open(path, mode)` second,
    /// `Path(path).open(mode)` first. `None` when the call opens no file.
    pub fn open_mode_position(&self, path: &QPath) -> Option<usize> {
        if self.open_functions.find(path).is_some() {
            Some(1)
        } else if self.open_methods.find(path).is_some() {
            Some(0)
        } else {
            None
        }
    }

    /// Whether `method` runs the statement given as its first argument (`execute`).
    pub fn is_sql_method(&self, method: &str) -> bool {
        self.sql_methods.iter().any(|m| m == method)
    }

    /// The statement a call runs: the first argument of a method that runs one
    /// (`cur.execute("INSERT ...")`), the second of a function given the cursor first
    /// (`execute_values(cur, "INSERT ...", rows)`; `path` is the call's canonical path).
    pub fn statement<'c>(&self, path: &QPath, call: &'c CallSite) -> Option<&'c Value> {
        if self.is_sql_method(call.method.as_str()) {
            call.args().first()
        } else if self.sql_functions.find(path).is_some() {
            call.args().get(1)
        } else {
            None
        }
    }

    /// Whether a call of `path` is its first argument as a statement (`text("INSERT ...")`).
    pub fn is_sql_text(&self, path: &QPath) -> bool {
        self.sql_text.find(path).is_some()
    }

    /// Whether a call of `path` keeps the statement of the wrapper it is called on, names
    /// filled in (`sql.SQL("INSERT INTO {} ...").format(...)`).
    pub fn fills_sql_text(&self, path: &QPath) -> bool {
        self.sql_text_filled.find(path).is_some()
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawTransactions {
    contexts: Vec<String>,
    decorators: Vec<String>,
    decorator_wrappers: Vec<String>,
    methods: Vec<String>,
    receiver_words: Vec<String>,
    on_commit: Vec<String>,
    on_commit_contexts: Vec<String>,
    #[serde(default)]
    unit_of_work_methods: Vec<String>,
    #[serde(default)]
    connection_methods: Vec<String>,
    #[serde(default)]
    database_keyword: Option<String>,
    #[serde(default)]
    dispatch_method: Option<String>,
    #[serde(default)]
    handler_methods: Vec<String>,
}

/// Database transactions: context managers, decorators, and what runs after the commit.
#[derive(Debug)]
pub struct Transactions {
    contexts: PatternSet<()>,
    decorators: PatternSet<()>,
    decorator_wrappers: PatternSet<()>,
    pub methods: Vec<String>,
    pub receiver_words: Vec<String>,
    on_commit: PatternSet<()>,
    on_commit_contexts: PatternSet<()>,
    /// Methods opening a transaction whose commit writes the changed attributes of the rows
    /// loaded in it (SQLAlchemy's `session.begin()`: `row.sent = True` is written at the end).
    pub unit_of_work_methods: Vec<String>,
    /// Methods whose result is a connection (`async with pool.acquire() as conn:`): the
    /// `methods` on it open a transaction, as on a receiver named like one.
    pub connection_methods: Vec<String>,
    /// The keyword (also the first positional argument) naming the database a transaction is
    /// opened on: Django's `atomic(using="events")`. Blocks on different databases are
    /// separate transactions, however they nest.
    pub database_keyword: Option<Sym>,
    /// A class's request dispatcher (Django's `View.dispatch`): a decorator wrapper on the
    /// class named for it (`name="dispatch"`) applies to the [`Transactions::handler_methods`]
    /// too.
    pub dispatch_method: Option<Sym>,
    /// The request handlers the dispatcher calls (`get`, `post`, ...).
    pub handler_methods: Vec<Sym>,
}

impl Transactions {
    /// Whether a `with` item (a resolved path, and the receiver name as written) opens one.
    pub fn is_context(&self, path: &QPath, receiver: Option<&str>) -> bool {
        if self.contexts.find(path).is_some() {
            return true;
        }
        let Some(method) = path.last_name() else {
            return false;
        };
        let receiver = receiver.unwrap_or_default();
        let lowercase = receiver.to_ascii_lowercase();
        path.is_call()
            && self.methods.iter().any(|m| m == method)
            && (self
                .receiver_words
                .iter()
                .any(|w| lowercase.contains(w.as_str()))
                || self.connection_methods.iter().any(|m| m == receiver))
    }

    /// Whether a decorator applies the decorator given as its first argument
    /// (`@method_decorator(transaction.atomic)`).
    pub fn is_decorator_wrapper(&self, path: &QPath) -> bool {
        self.decorator_wrappers.find(path).is_some()
    }

    pub fn is_decorator(&self, path: &QPath) -> bool {
        self.decorators.find(path).is_some()
    }

    pub fn is_on_commit(&self, path: &QPath) -> bool {
        self.on_commit.find(path).is_some()
    }

    /// Whether a `with` item opens a transaction that `on_commit` calls apply to (Django's).
    pub fn has_on_commit(&self, path: &QPath) -> bool {
        self.on_commit_contexts.find(path).is_some()
    }
}

/// What makes a class a model and its fields unique.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Models {
    pub django_bases: Vec<String>,
    pub unique_fields: Vec<String>,
    pub relation_fields: Vec<String>,
    pub unique_constraints: Vec<String>,
    pub sqlalchemy_bases: Vec<String>,
    pub sqlalchemy_columns: Vec<String>,
    pub sqlalchemy_unique: Vec<String>,
    pub dedup_name_parts: Vec<String>,
    /// Attribute paths on a model class that give its table's name (`_meta.db_table`).
    pub table_name_attributes: Vec<String>,
    /// Suffixes of the classes whose instances, set on a model, are its managers.
    pub manager_class_suffixes: Vec<String>,
    /// Unique fields that a model base outside the project declares (`AbstractUser.username`).
    #[serde(default)]
    pub base_unique_fields: HashMap<String, Vec<String>>,
    /// The class attribute that names a model's login field, which Django requires unique
    /// (`USERNAME_FIELD = "email"`).
    #[serde(default)]
    pub username_field: Option<String>,
}

/// How Celery settings are named and what brokers redeliver.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct CelerySettingsSpec {
    pub old_names: HashMap<String, String>,
    pub conf_update_methods: Vec<String>,
    pub visibility_timeouts: HashMap<String, i64>,
    /// Task options that keep a message unacknowledged, in seconds: the run, or the wait
    /// before a retry.
    pub unacked_options: Vec<String>,
    /// The task option that holds the keywords of the retries `autoretry_for` makes.
    pub retry_options: String,
    /// The keyword of a delay before a message runs (`apply_async`, `retry`).
    pub countdown: String,
    /// The keyword of the time a message runs at (`apply_async(eta=now() + timedelta(...))`).
    pub eta: String,
    /// Classes whose attributes the environment sets when an instance is made (pydantic's
    /// `BaseSettings`): a configuration class deriving from one holds run-time values.
    pub environment_classes: Vec<String>,
}

/// Cache and Redis writes that record a done state.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct StateWrites {
    pub cache_methods: Vec<String>,
    pub receiver_words: Vec<String>,
    session_writes: Vec<String>,
    session_methods: Vec<String>,
    session_receiver_words: Vec<String>,
    /// The last method of a call that loads a row through a session, whose changed attributes
    /// the session's commit writes ([`Catalog::loads_session_row`]).
    #[serde(default)]
    session_load_methods: Vec<String>,
    /// Class attributes that query through a session (Flask-SQLAlchemy's `Model.query`).
    #[serde(default)]
    session_query_attributes: Vec<String>,
    write_statements: Vec<String>,
    write_sql_verbs: Vec<String>,
}

/// An argument position and/or keyword.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArgSpec {
    pub position: Option<usize>,
    pub keyword: Option<String>,
}

impl ArgSpec {
    pub fn find<'c>(&self, call: &'c CallSite) -> Option<&'c Value> {
        self.keyword
            .as_deref()
            .and_then(|k| call.keyword(k))
            .or_else(|| self.position.and_then(|p| call.args().get(p)))
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TtlSpec {
    pub position: Option<usize>,
    pub keyword: Option<String>,
    pub unit: TimeUnit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
pub enum TimeUnit {
    #[serde(rename = "s")]
    Seconds,
    #[serde(rename = "ms")]
    Milliseconds,
    /// A point in time (`exat=`, `pxat=`): the key expires, when is only known at run time.
    #[serde(rename = "at")]
    At,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MissingTtl {
    /// No expiry: held until released.
    Forever,
    /// The library's own default applies.
    Default,
}

/// A lock or set-if-absent API.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LockApi {
    pub api: String,
    pub kind: LockKind,
    calls: Vec<String>,
    #[serde(skip)]
    patterns: Vec<Pattern>,
    pub requires: Option<String>,
    pub name: ArgSpec,
    pub ttl: Vec<TtlSpec>,
    pub missing_ttl: MissingTtl,
    /// What a TTL of 0 means, where it is not a 0-second expiry: redis-py's lock reads a
    /// false timeout as none (`if self.timeout:`).
    #[serde(default)]
    zero_ttl: Option<MissingTtl>,
    #[serde(default)]
    receiver_words: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LockKind {
    /// Always a lock.
    Lock,
    /// A lock when released, a de-duplication marker when not.
    SetIfAbsent,
}

/// An application class and methods distinctive enough to type an object they are called on.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AppSpec {
    pub class: String,
    pub methods: Vec<String>,
}

/// A task option that bounds a run.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeLimitSpec {
    pub keyword: String,
    pub unit: TimeUnit,
    /// The value that turns the limit off (RQ's `timeout=-1`).
    #[serde(default)]
    pub unbounded: Option<i64>,
    /// Whether a string with a unit suffix is read as a duration (RQ's `timeout="10m"`: `s`,
    /// `m`, `h`, `d`).
    #[serde(default)]
    pub suffixed: bool,
    /// For a limit set outside the task: the calls that take `keyword` (Dramatiq's
    /// `TimeLimit` middleware, RQ's `Queue`).
    #[serde(default)]
    pub calls: Vec<String>,
}

/// A time limit a call sets for tasks other than by their options: the calls, and the keyword.
#[derive(Debug)]
pub struct CallTimeLimit {
    pub calls: PatternSet<()>,
    pub limit: TimeLimitSpec,
}

impl CallTimeLimit {
    fn new(limit: TimeLimitSpec) -> CallTimeLimit {
        let mut calls = PatternSet::default();
        for pattern in &limit.calls {
            calls.insert(pattern, ());
        }
        CallTimeLimit { calls, limit }
    }
}

impl TimeLimitSpec {
    /// The value in this option's unit: a number, or a suffixed string where the framework
    /// reads one (`"10m"` is 600 s; a bare number in a string is in the option's unit).
    pub fn value_of(&self, value: &crate::facts::Value) -> Option<i64> {
        if let Some(number) = value.as_int() {
            return Some(number);
        }
        let text = value.as_str().filter(|_| self.suffixed)?.trim();
        if let Ok(number) = text.parse::<i64>() {
            return Some(number);
        }
        // The last character, whatever its width (`"2é"` must not split inside it).
        let (at, _) = text.char_indices().next_back()?;
        let (digits, suffix) = text.split_at(at);
        let scale = match suffix.to_ascii_lowercase().as_str() {
            "s" => 1,
            "m" => 60,
            "h" => 3600,
            "d" => 86_400,
            _ => return None,
        };
        digits.parse::<i64>().ok()?.checked_mul(scale)
    }
}

impl TimeUnit {
    /// Whole seconds of a value in this unit.
    pub fn seconds(self, value: i64) -> i64 {
        match self {
            TimeUnit::Seconds => value,
            TimeUnit::Milliseconds => value / 1000,
            // Not a duration: [`LockApi::ttl`] gives these as `Ttl::At`.
            TimeUnit::At => value,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LockRelease {
    pub methods: Vec<String>,
    /// Calls that make a script; calling the script releases (`release = r.register_script(..)`).
    pub scripts: Vec<String>,
    /// Of `methods`, those that name the key released as their first argument
    /// (`cache.delete(key)`); called with none, a lock object's (`render_lock.release()`).
    #[serde(default, rename = "key-first")]
    pub key_first: Vec<String>,
}

impl LockRelease {
    /// Whether a call releases a set-if-absent key: by its method, or as a script's call. Not
    /// a release of another key than those its function takes ([`CallMarks`]).
    ///
    /// [`CallMarks`]: crate::facts::CallMarks
    pub fn releases(&self, call: &CallSite) -> bool {
        if call.marks.releases_other_key() {
            return false;
        }
        let is_script = |name: &str| self.scripts.iter().any(|s| s == name);
        self.methods.iter().any(|m| m == call.method.as_str())
            || (!is_script(call.method.as_str())
                && call
                    .path
                    .as_ref()
                    .is_some_and(|path| path.segs().iter().any(|seg| is_script(seg.name.as_str()))))
    }
}

impl LockRelease {
    /// Whether a release call names its key as its first argument, or releases a lock object
    /// (no argument): then what it releases can be told from the set-if-absent keys its
    /// function takes. A script's release names it elsewhere.
    pub fn names_key(&self, call: &CallSite) -> bool {
        self.key_first.iter().any(|m| m == call.method.as_str())
    }
}

/// Calls whose result tells whether this run took a key first: by method, or by a keyword set
/// to true. Looked up for every call, so held as symbols.
#[derive(Debug)]
pub struct SetIfAbsent {
    methods: Box<[Sym]>,
    keywords: Box<[Sym]>,
}

impl SetIfAbsent {
    pub fn is_method(&self, name: Sym) -> bool {
        self.methods.contains(&name)
    }

    pub fn is_keyword(&self, name: Sym) -> bool {
        self.keywords.contains(&name)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSetIfAbsent {
    methods: Vec<String>,
    keywords: Vec<String>,
}

/// What a lock call says of its expiry.
#[derive(Clone, Debug)]
pub enum Ttl<'c> {
    /// Passed: the value and its unit.
    Given(&'c Value, TimeUnit),
    /// Passed as `None`, or left out where that means no expiry.
    Forever,
    /// Left out where the library applies a default.
    LibraryDefault,
    /// An expiry at a point in time (`exat=`): it expires, when is known at run time.
    At(&'c Value),
}

impl LockApi {
    pub fn name<'c>(&self, call: &'c CallSite) -> Option<&'c Value> {
        self.name.find(call)
    }

    pub fn ttl<'c>(&self, call: &'c CallSite) -> Ttl<'c> {
        for spec in &self.ttl {
            let value = spec
                .keyword
                .as_deref()
                .and_then(|k| call.keyword(k))
                .or_else(|| spec.position.and_then(|p| call.args().get(p)));
            if let Some(value) = value {
                return if value.is_none() {
                    Ttl::Forever
                } else if let Some(zero) = self.zero_ttl.filter(|_| value.as_f64() == Some(0.0)) {
                    zero.ttl()
                } else if spec.unit == TimeUnit::At {
                    Ttl::At(value)
                } else {
                    Ttl::Given(value, spec.unit)
                };
            }
        }
        self.missing_ttl.ttl()
    }

    /// What the TTL means when it is given as 0, if not an expiry after 0 seconds.
    pub fn zero_ttl<'c>(&self) -> Option<Ttl<'c>> {
        self.zero_ttl.map(MissingTtl::ttl)
    }
}

impl MissingTtl {
    fn ttl<'c>(self) -> Ttl<'c> {
        match self {
            MissingTtl::Forever => Ttl::Forever,
            MissingTtl::Default => Ttl::LibraryDefault,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawLockHelpers {
    context_managers: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct LockExtension {
    pub methods: Vec<String>,
    pub keywords: Vec<String>,
    /// An extension on a receiver of unknown type counts when a word of its name ends with one
    /// of these (`lock`, `report_lock`, `reportLock`, `redlock`)...
    pub receiver_words: Vec<String>,
    /// ...unless the word is one of these (`block`, `clock`): ordinary words ending the same.
    #[serde(default)]
    pub receiver_not_words: Vec<String>,
}

impl LockExtension {
    /// Whether a name is a lock's by its words (`lock`, `report_lock`, `LOCK`, `fileLock`),
    /// not by letters inside another word (`block`, `clock_skew`).
    pub fn names_lock(&self, name: &str) -> bool {
        crate::path::identifier_words(name).any(|word| {
            self.receiver_words.iter().any(|w| {
                word.len() >= w.len()
                    && word.as_bytes()[word.len() - w.len()..].eq_ignore_ascii_case(w.as_bytes())
            }) && !self
                .receiver_not_words
                .iter()
                .any(|not| not.eq_ignore_ascii_case(word))
        })
    }
}
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawRegistry {
    class_attributes: Vec<String>,
    class_names: Vec<String>,
    wrappers: Vec<String>,
    requires_import: String,
    class_options: std::collections::BTreeMap<String, String>,
    #[serde(default)]
    constructors: Vec<String>,
    #[serde(default)]
    function_keywords: Vec<String>,
}

/// Registries of task functions: class attributes listing them, and the wrappers of their items.
#[derive(Debug)]
pub struct Registry {
    pub class_attributes: Vec<String>,
    pub class_names: Vec<String>,
    pub wrappers: PatternSet<()>,
    pub requires_import: String,
    /// Class attributes that set a task option of every listed function: (attribute, option).
    pub class_options: Vec<(String, String)>,
    /// Classes whose constructor takes the lists as keywords (`Worker(functions=[...])`).
    pub constructors: PatternSet<()>,
    /// The keyword a wrapper takes the function by, when not given first
    /// (`func(coroutine=job)`): not a task option.
    pub function_keywords: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawEffect {
    sdk: String,
    kind: EffectKind,
    calls: Vec<String>,
    key: Option<KeySpec>,
    #[serde(default)]
    random_default: bool,
    method: Option<MethodSpec>,
    #[serde(default)]
    reads: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawHeuristics {
    known_libraries: Vec<String>,
    #[serde(default)]
    configured_objects: Vec<String>,
    strong_verbs: Vec<String>,
    weak_verbs: Vec<String>,
    domain_words: Vec<String>,
    key_keywords: Vec<String>,
    key_keyword_contains: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawDurations {
    calls: Vec<String>,
    /// Calls that return the current time, to which a duration added is a time that far ahead.
    #[serde(default)]
    now: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawNondeterministic {
    calls: Vec<String>,
    into_receiver: Vec<String>,
    factory_keywords: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawBinders {
    calls: Vec<String>,
    wrappers: Vec<String>,
}

/// A class whose instances carry a request to a sink: `urllib.request.Request(url, data)`.
#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawRequestObject {
    calls: Vec<String>,
    #[serde(default)]
    params: Vec<String>,
    /// Methods that add a header to the request (`req.add_header(name, value)`).
    #[serde(default)]
    header_methods: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawRunner {
    calls: Vec<String>,
    function: usize,
    keywords: bool,
    #[serde(default)]
    later: bool,
    #[serde(default)]
    repeats: bool,
    /// The name of the function's parameter, for a runner that is given it by keyword.
    #[serde(default)]
    keyword: Option<String>,
}

/// A call that calls the function it is given at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Runner {
    /// The position of the function among the call's arguments; the positional arguments after
    /// it are the function's.
    pub function: usize,
    /// Whether the call's keyword arguments are the function's too.
    pub keywords: bool,
    /// The function runs later in the task, not at once (`transaction.on_commit(notify)` runs
    /// `notify` after the commit): it is reached, but it is no step in the task's order and
    /// not inside the transaction the call is made in.
    pub later: bool,
    /// The function is called once per item (`map(send, users)`, `pool.map(...)`): a loop.
    pub repeats: bool,
    /// The function's parameter by name (`on_commit(func=notify)`), when it can be given so.
    pub keyword: Option<Sym>,
}

/// What the catalog says a call does beyond being called ([`Catalog::call_role`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallRole {
    /// Returns the function given first (`partial(f, ...)`, `sync_to_async(f)`).
    Binder(Binder),
    /// Calls a function it is given, now (`asyncio.to_thread(f, ...)`) or later
    /// (`transaction.on_commit(f)`).
    Runner(Runner),
    /// Makes a duration, read as seconds (`timedelta(minutes=5)`).
    Duration,
    /// Returns the current time (`timezone.now()`): plus a duration, a time that far ahead.
    Now,
    /// Makes a request object, whose arguments a sink reads (`Request(url, method="POST")`);
    /// the index into [`Catalog::request_params`].
    Request(u16),
}

/// What a call that returns a function binds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binder {
    /// `partial(f, a, k=v)`: the arguments after the function are bound to it.
    Arguments,
    /// `sync_to_async(f, thread_sensitive=True)`: the arguments configure the wrapper.
    Wrapper,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawMetadata {
    access: String,
    what: String,
    #[serde(default)]
    changes_on_retry: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawFramework {
    name: Framework,
    decorators: Vec<String>,
    #[serde(default)]
    task_classes: Vec<String>,
    #[serde(default = "default_task_class_method")]
    task_class_method: String,
    task_class_options: Option<String>,
    #[serde(default)]
    decorator_parameters: Vec<String>,
    #[serde(default)]
    enqueue_methods: Vec<String>,
    #[serde(default)]
    unresolved_enqueue_methods: Vec<String>,
    #[serde(default)]
    run_methods: Vec<String>,
    #[serde(default)]
    options_methods: Vec<String>,
    #[serde(default)]
    signature_methods: Vec<String>,
    #[serde(default)]
    options_signature_methods: Vec<String>,
    #[serde(default)]
    builder_methods: Vec<String>,
    #[serde(default)]
    call_enqueues: bool,
    on_commit_suffix: Option<String>,
    #[serde(default)]
    time_limits: Vec<TimeLimitSpec>,
    default_time_limit: Option<i64>,
    #[serde(default)]
    global_time_limits: Vec<TimeLimitSpec>,
    #[serde(default)]
    queue_time_limits: Vec<TimeLimitSpec>,
    queue_option: Option<String>,
    app: Option<AppSpec>,
    delivery: Option<String>,
    retries: Option<String>,
    retry_method: Option<String>,
    #[serde(default)]
    context_first: bool,
    /// Decorators (among `decorators`) whose task, called, enqueues only when the transaction
    /// commits (djhuey's `on_commit_task`).
    #[serde(default)]
    on_commit_decorators: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawEnqueue {
    functions: Vec<String>,
    /// Calls whose result, called, enqueues: Celery's `chord(header)(callback)`.
    #[serde(default)]
    called: Vec<String>,
    rq_methods: Vec<RqMethod>,
    #[serde(default)]
    rq_options: Vec<String>,
    #[serde(default)]
    by_name: Vec<RawByName>,
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
struct RawByName {
    calls: Vec<String>,
    #[serde(flatten)]
    spec: ByName,
}

/// Calls that enqueue a task by its registered name (Celery's `send_task("app.tasks.crawl",
/// args=[...])`, arq's `enqueue_job("crawl", url)`): where the name is, and how the task's
/// own arguments are passed.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub struct ByName {
    pub name: ArgSpec,
    pub arguments: ByNameArguments,
    /// Keywords with this prefix are the queue's options, not the task's (arq's `_job_id`).
    #[serde(default)]
    pub option_prefix: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ByNameArguments {
    /// The positional arguments after the name, and the keywords.
    Rest,
    /// `args=` and `kwargs=`.
    ArgsKwargs,
}

/// A method of RQ's `Queue` that enqueues a function, and where it takes the function.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct RqMethod {
    pub method: String,
    pub function: ArgSpec,
    /// Whether keywords other than the queue's options ([`Catalog::is_rq_option`]) are the
    /// function's.
    #[serde(default)]
    pub passes_keywords: bool,
}

impl Catalog {
    /// The built-in catalog extended with the user's sinks and task decorators.
    pub fn new(user_effects: &[(String, UserSink)], task_decorators: &[String]) -> Catalog {
        // The built-in data is part of the binary and covered by tests: failing to parse it is a
        // bug in twice, not in the user's input.
        let raw: RawCatalog = toml::from_str(BUILTIN).expect("the built-in catalog.toml is valid");
        let mut sinks = Vec::new();
        let mut effects = PatternSet::default();
        for effect in raw.effect {
            let index = sinks.len();
            for call in &effect.calls {
                effects.insert(call, index);
            }
            sinks.push(Sink {
                sdk: effect.sdk,
                kind: effect.kind,
                key: effect.key.map(|key| key.for_kind(effect.kind)),
                random_default: effect.random_default,
                method: effect.method,
                reads: effect.reads.iter().map(|r| Pattern::parse(r)).collect(),
            });
        }
        for (name, user) in user_effects {
            let index = sinks.len();
            effects.insert(name, index);
            sinks.push(Sink {
                sdk: name.clone(),
                kind: user.kind,
                key: user.key.clone().map(|key| match key {
                    UserKey::Keyword(keyword) => KeySpec {
                        keyword: Some(keyword),
                        ..KeySpec::default()
                    },
                    UserKey::Spec(spec) => spec.for_kind(user.kind),
                }),
                random_default: false,
                method: None,
                reads: Vec::new(),
            });
        }
        // User sinks are checked first: they may refine a built-in pattern.
        let mut nondeterministic = PatternSet::default();
        for call in &raw.nondeterministic.calls {
            nondeterministic.insert(call, ());
        }
        let mut metadata = Vec::new();
        let mut metadata_patterns = PatternSet::default();
        let mut metadata_keys: Vec<String> = Vec::new();
        let mut task_members: Vec<Sym> = Vec::new();
        for meta in raw.metadata {
            metadata_patterns.insert(&meta.access, metadata.len());
            if let Some(rest) = meta.access.strip_prefix("self.")
                && let Some((member, _)) = rest.split_once('.')
                && !task_members.iter().any(|m| m.as_str() == member)
            {
                task_members.push(Sym::new(member));
            }
            if let Some((_, key)) = meta.access.split_once("__getitem__(")
                && let Some(key) = key.strip_suffix(')')
                && !metadata_keys.iter().any(|k| k == key)
            {
                metadata_keys.push(key.to_string());
            }
            metadata.push(Metadata {
                what: meta.what,
                changes_on_retry: meta.changes_on_retry,
            });
        }
        let mut decorators = PatternSet::default();
        let mut task_classes = PatternSet::default();
        let mut on_commit_decorators = PatternSet::default();
        let mut frameworks = Vec::new();
        for fw in raw.framework {
            for pattern in &fw.decorators {
                decorators.insert(pattern, fw.name);
            }
            for pattern in &fw.task_classes {
                task_classes.insert(pattern, fw.name);
            }
            for pattern in &fw.on_commit_decorators {
                on_commit_decorators.insert(pattern, ());
            }
            frameworks.push(FrameworkSpec {
                framework: fw.name,
                enqueue_methods: fw.enqueue_methods,
                unresolved_enqueue_methods: fw.unresolved_enqueue_methods,
                run_methods: fw.run_methods,
                options_methods: fw.options_methods,
                signature_methods: fw.signature_methods,
                options_signature_methods: fw.options_signature_methods,
                builder_methods: fw.builder_methods,
                call_enqueues: fw.call_enqueues,
                on_commit_suffix: fw.on_commit_suffix,
                time_limits: fw.time_limits,
                default_time_limit: fw.default_time_limit,
                global_time_limits: fw
                    .global_time_limits
                    .into_iter()
                    .map(CallTimeLimit::new)
                    .collect(),
                queue_time_limits: fw
                    .queue_time_limits
                    .into_iter()
                    .map(CallTimeLimit::new)
                    .collect(),
                queue_option: fw.queue_option,
                retry_method: fw.retry_method,
                task_class_method: fw.task_class_method,
                task_class_options: fw.task_class_options,
                decorator_parameters: fw.decorator_parameters,
                context_first: fw.context_first,
                app: fw.app,
                delivery: fw.delivery,
                retries: fw.retries,
            });
        }
        for pattern in task_decorators {
            decorators.insert(pattern, Framework::Celery);
        }
        let mut enqueue_functions = PatternSet::default();
        for pattern in &raw.enqueue.functions {
            enqueue_functions.insert(pattern, ());
        }
        let mut by_name_calls = PatternSet::default();
        let mut by_name = Vec::new();
        for (index, entry) in raw.enqueue.by_name.into_iter().enumerate() {
            for pattern in &entry.calls {
                enqueue_functions.insert(pattern, ());
                by_name_calls.insert(pattern, index);
            }
            by_name.push(entry.spec);
        }
        let mut enqueue_called = PatternSet::default();
        for pattern in &raw.enqueue.called {
            enqueue_called.insert(pattern, ());
        }
        let mut wrappers = PatternSet::default();
        for pattern in &raw.registry.wrappers {
            wrappers.insert(pattern, ());
        }
        let mut constructors = PatternSet::default();
        for pattern in &raw.registry.constructors {
            constructors.insert(pattern, ());
        }
        let registry = Registry {
            constructors,
            class_attributes: raw.registry.class_attributes,
            class_names: raw.registry.class_names,
            wrappers,
            requires_import: raw.registry.requires_import,
            class_options: raw.registry.class_options.into_iter().collect(),
            function_keywords: raw.registry.function_keywords,
        };
        let h = raw.heuristics;
        // Sinks whose pattern ends in a wildcard (`Adyen.checkout.*_api.*`): a call keeps its
        // arguments when its path names one of the pattern's literal segments.
        let mut wildcard_names = rustc_hash::FxHashSet::default();
        let mut every_argument = false;
        for (pattern, _) in &effects.other {
            let literal: Vec<Sym> = pattern.literal_names().map(Sym::new).collect();
            every_argument |= literal.is_empty();
            wildcard_names.extend(literal);
        }
        let mut key_headers: Vec<String> = sinks
            .iter()
            .filter_map(|sink| sink.key.as_ref())
            .flat_map(|key| key.header.iter().map(|h| h.to_ascii_lowercase()))
            .collect();
        key_headers.sort_unstable();
        key_headers.dedup();
        // The keywords a sink's key is passed in: its own keyword, `options=` and `headers=`
        // when it reads the key there, and the request fields it is a field of.
        let mut key_carriers: Vec<Sym> = sinks
            .iter()
            .filter_map(|sink| sink.key.as_ref())
            .flat_map(|key| {
                let options = key.options.as_ref().map(|_| OPTIONS_KEYWORD);
                let headers = (!key.header.is_empty()).then_some(HEADERS_KEYWORD);
                key.keyword
                    .as_deref()
                    .into_iter()
                    .chain(key.field.as_deref())
                    .chain(options)
                    .chain(headers)
                    .map(Sym::new)
                    .collect::<Vec<_>>()
            })
            .collect();
        key_carriers.sort_unstable();
        key_carriers.dedup();
        Catalog {
            sinks,
            key_headers,
            key_carriers,
            effects,
            heuristics: Heuristics {
                known_libraries: h.known_libraries,
                configured_objects: h
                    .configured_objects
                    .iter()
                    .map(|p| Pattern::parse(p))
                    .collect(),
                strong_verbs: h.strong_verbs,
                weak_verbs: h.weak_verbs,
                domain_words: h.domain_words,
                key_keywords: h.key_keywords,
                key_keyword_contains: h.key_keyword_contains,
            },
            nondeterministic,
            into_receiver: raw
                .nondeterministic
                .into_receiver
                .iter()
                .map(|name| Sym::new(name))
                .collect(),
            factory_keywords: raw
                .nondeterministic
                .factory_keywords
                .iter()
                .map(|name| Sym::new(name))
                .collect(),
            metadata,
            metadata_patterns,
            task_members,
            metadata_keys,
            api_methods: frameworks
                .iter()
                .filter_map(|spec| spec.app.as_ref())
                .flat_map(|app| app.methods.iter().map(|m| Sym::new(m)))
                .collect(),
            frameworks,
            decorators,
            on_commit_decorators,
            task_classes,
            enqueue_functions,
            enqueue_called,
            rq_methods: raw.enqueue.rq_methods,
            rq_options: raw.enqueue.rq_options,
            by_name_calls,
            by_name,
            registry,
            locks: raw
                .lock
                .into_iter()
                .map(|mut lock| {
                    lock.patterns = lock.calls.iter().map(|c| Pattern::parse(c)).collect();
                    lock
                })
                .collect(),
            lock_release: raw.lock_release,
            set_if_absent: SetIfAbsent {
                methods: raw
                    .set_if_absent
                    .methods
                    .iter()
                    .map(|n| Sym::new(n))
                    .collect(),
                keywords: raw
                    .set_if_absent
                    .keywords
                    .iter()
                    .map(|n| Sym::new(n))
                    .collect(),
            },
            lock_extension: raw.lock_extension,
            context_managers: pattern_set(&raw.lock_helpers.context_managers),
            session_writes: pattern_set(&raw.state_writes.session_writes),
            write_statements: pattern_set(&raw.state_writes.write_statements),
            state_writes: raw.state_writes,
            writes: Writes {
                stored_values: pattern_set(&raw.writes.stored_values),
                stored_functions: pattern_set(&raw.writes.stored_functions),
                counters: pattern_set(
                    &raw.writes
                        .counter_clients
                        .iter()
                        .flat_map(|client| {
                            raw.writes
                                .counter_methods
                                .iter()
                                .map(move |method| format!("{client}.**.{method}"))
                        })
                        .collect::<Vec<_>>(),
                ),
                counter_methods: raw.writes.counter_methods,
                counter_receiver_words: raw.writes.counter_receiver_words,
                open_functions: pattern_set(&raw.writes.open_functions),
                open_methods: pattern_set(&raw.writes.open_methods),
                sql_methods: raw.writes.sql_methods.clone(),
                sql_functions: pattern_set(&raw.writes.sql_functions),
                sql_text: pattern_set(&raw.writes.sql_text),
                sql_text_filled: pattern_set(&raw.writes.sql_text_filled),
                idempotent_insert: raw.writes.idempotent_insert,
                column_updates: raw
                    .writes
                    .column_updates
                    .iter()
                    .map(|m| Sym::new(m))
                    .collect(),
                bulk_idempotent: raw.writes.bulk_idempotent,
            },
            transactions: Transactions {
                contexts: pattern_set(&raw.transactions.contexts),
                decorators: pattern_set(&raw.transactions.decorators),
                decorator_wrappers: pattern_set(&raw.transactions.decorator_wrappers),
                methods: raw.transactions.methods,
                receiver_words: raw.transactions.receiver_words,
                on_commit: pattern_set(&raw.transactions.on_commit),
                on_commit_contexts: pattern_set(&raw.transactions.on_commit_contexts),
                unit_of_work_methods: raw.transactions.unit_of_work_methods,
                connection_methods: raw.transactions.connection_methods,
                database_keyword: raw.transactions.database_keyword.as_deref().map(Sym::new),
                dispatch_method: raw.transactions.dispatch_method.as_deref().map(Sym::new),
                handler_methods: raw
                    .transactions
                    .handler_methods
                    .iter()
                    .map(|m| Sym::new(m))
                    .collect(),
            },
            models: raw.models,
            celery_settings: raw.celery_settings,
            pure: PureNames {
                functions: raw.pure.functions.iter().map(|n| Sym::new(n)).collect(),
                methods: raw.pure.methods.iter().map(|n| Sym::new(n)).collect(),
            },
            roles: {
                let mut set = PatternSet::default();
                for pattern in &raw.binders.calls {
                    set.insert(pattern, CallRole::Binder(Binder::Arguments));
                }
                for pattern in &raw.binders.wrappers {
                    set.insert(pattern, CallRole::Binder(Binder::Wrapper));
                }
                for runner in &raw.runner {
                    for pattern in &runner.calls {
                        let role = Runner {
                            function: runner.function,
                            keywords: runner.keywords,
                            later: runner.later,
                            repeats: runner.repeats,
                            keyword: runner.keyword.as_deref().map(Sym::new),
                        };
                        set.insert(pattern, CallRole::Runner(role));
                    }
                }
                for pattern in &raw.durations.calls {
                    set.insert(pattern, CallRole::Duration);
                }
                for pattern in &raw.durations.now {
                    set.insert(pattern, CallRole::Now);
                }
                for (index, request) in raw.request_object.iter().enumerate() {
                    let index = u16::try_from(index).unwrap_or(u16::MAX);
                    for pattern in &request.calls {
                        set.insert(pattern, CallRole::Request(index));
                    }
                }
                set
            },
            request_params: raw
                .request_object
                .iter()
                .map(|r| r.params.iter().map(|p| Sym::new(p)).collect())
                .collect(),
            request_header_methods: raw
                .request_object
                .iter()
                .flat_map(|r| r.header_methods.iter().map(|m| Sym::new(m)))
                .collect(),
            orm: raw.orm,
            statement_methods: raw
                .guards
                .fetch_methods
                .iter()
                .chain(&raw.writes.sql_methods)
                .map(|m| Sym::new(m))
                .collect(),
            guards: raw.guards,
            vocabulary: raw.vocabulary,
            every_argument,
            wildcard_names,
            argument_names: catalog_words(BUILTIN)
                .iter()
                .map(String::as_str)
                .chain(user_effects.iter().flat_map(|(name, user)| {
                    let key = match &user.key {
                        Some(UserKey::Keyword(keyword)) => Some(keyword.as_str()),
                        Some(UserKey::Spec(spec)) => spec.keyword.as_deref(),
                        None => None,
                    };
                    identifiers(name).chain(key.into_iter().flat_map(identifiers))
                }))
                .chain(task_decorators.iter().flat_map(|d| identifiers(d)))
                .chain(raw.arguments.read_by_rules.iter().map(String::as_str))
                .map(Sym::new)
                .collect(),
        }
    }

    /// What the facts keep of a call's arguments. Most calls of a project are neither sinks nor
    /// anything else the rules read arguments of, and their argument values were the largest
    /// part of the facts; a call keeps them all when its method, or the last name of its
    /// resolved path, is a name the catalog or a rule mentions (heuristic verbs included: they
    /// are catalog text too).
    ///
    /// The path is the one resolved through the module's own imports: a sink that another
    /// project module re-exports under a different function name (`from requests import post
    /// as http_post` there, `mymod.http_post(...)` here) is only recognised as a sink in the
    /// project phase, and its call keeps only the catalog's keywords (`headers` and `options`
    /// among them) and the count of its positional arguments ([`Dropped`]): enough to tell
    /// whether a key was passed, not always what it was made of.
    pub fn argument_filter(&self, call: &CallSite) -> ArgumentFilter {
        let in_wildcard_sink = || {
            call.path.as_ref().is_some_and(|path| {
                path.segs()
                    .iter()
                    .any(|seg| self.wildcard_names.contains(&seg.name))
            })
        };
        if self.argument_names.contains(&call.method)
            || in_wildcard_sink()
            || self.names_lock_helper(call.method)
        {
            ArgumentFilter::All
        } else {
            self.class_call_filter(call.path.as_ref())
        }
    }

    /// Whether a call's name says it takes or gives a lock (`try_lock(key, 60)`,
    /// `acquire_lock(name, ttl)`; a word ending as [`LockExtension::names_lock`]'s): the project
    /// helper may set its key with a TTL of its arguments. Tested for every call, so the
    /// common case is one substring search.
    fn names_lock_helper(&self, method: Sym) -> bool {
        let name = method.as_str();
        let bytes = name.as_bytes();
        // A `k` first, one comparison a byte; then the three bytes before it.
        (3..bytes.len())
            .any(|i| bytes[i] | 0x20 == b'k' && bytes[i - 3..i].eq_ignore_ascii_case(b"loc"))
            && self.lock_extension.names_lock(name)
    }

    /// [`Catalog::argument_filter`] for a call in a class body (a model field, a constraint),
    /// which has no call site: by the last name of its path.
    pub fn class_call_filter(&self, path: Option<&QPath>) -> ArgumentFilter {
        let named = |seg: &crate::path::Seg| self.argument_names.contains(&seg.name);
        if self.every_argument || path.and_then(|path| path.0.last()).is_some_and(named) {
            ArgumentFilter::All
        } else {
            ArgumentFilter::NamedKeywords
        }
    }

    /// Applies a filter to a call's arguments: [`ArgumentFilter::NamedKeywords`] drops the
    /// positional ones and every keyword the catalog does not name. Returns what it dropped.
    /// `classes`: the callee is a function named by its import or definition, which keeps
    /// the classes given to it (`purge_older_than(Receipt, 7)`: a generic helper may delete
    /// that model's rows).
    pub fn filter_arguments(
        &self,
        filter: ArgumentFilter,
        args: &mut Vec<Value>,
        keywords: &mut Vec<(Sym, Value)>,
        classes: bool,
    ) -> Dropped {
        if filter != ArgumentFilter::NamedKeywords {
            return Dropped::default();
        }
        // A value made from a nondeterministic source or delivery metadata stays, in its
        // place: a helper may use that parameter as a key (`charge(order, str(uuid4()))`), as
        // does a `None`, which may be the key it is given (`charge(order, None)`). The others
        // give their place to an empty value. A keyword that passes a parameter on as it came
        // (`refund_charge(..., idem=key)` in `def refund_order(order, key)`) keeps its name:
        // it may be the key the function's own caller gives. (Parameters passed by position
        // are not kept: in every call that passes one, the other positional arguments would
        // have to keep their places, 1.2 MB more over the corpus.)
        // So does a lock handed to a helper (`keep_alive(lock)`), which may extend it.
        let lock = |arg: &Value| {
            arg.name
                .is_some_and(|name| self.lock_extension.names_lock(name.as_str()))
        };
        let class = |arg: &Value| classes && names_class(arg);
        // A parameter named as a key (`key`, `refund_key`, `idem_key`) passed on by position
        // (`_post(pi, key)` in `def issue_refund(pi, key)`), by its name alone: the key its
        // own caller gives, through as many helpers as pass it.
        let key_name = |name: &str| name.ends_with("key") || self.heuristics.is_key_keyword(name);
        let key_named = |arg: &Value| arg.name.is_some_and(|name| key_name(name.as_str()));
        let key_param = |arg: &Value| passes_param(arg) && key_named(arg);
        // A helper's result that is a key (`idem = keys.refund_key(id)` then `issue_refund(req,
        // idem)`, or `send_digest(sub, html, digest_key(sub.id))`), with what it derives from:
        // the helper may make it from `uuid4()`.
        let key_local = |arg: &Value| {
            !passes_param(arg)
                && arg.taint.iter().any(|t| matches!(t, Taint::Call { .. }))
                && (key_named(arg)
                    || arg.path.as_ref().is_some_and(|path| {
                        path.is_call() && path.last_name().is_some_and(key_name)
                    }))
        };
        let kept = |arg: &Value| {
            is_key_material(arg)
                || arg.is_none()
                || lock(arg)
                || class(arg)
                || key_param(arg)
                || key_local(arg)
        };
        let mut positional = args.len();
        if args.iter().any(kept) {
            positional = 0;
            for arg in args.iter_mut() {
                if !kept(arg) {
                    *arg = Value::default();
                    positional += 1;
                } else if key_param(arg) && !is_key_material(arg) {
                    *arg = param_only(arg);
                }
            }
        } else {
            *args = Vec::new();
        }
        let before = keywords.len();
        keywords.retain_mut(|(name, value)| {
            if self.keeps_keyword(*name) || is_key_material(value) || lock(value) || class(value) {
                true
            } else if passes_param(value) {
                *value = param_only(value);
                true
            } else {
                false
            }
        });
        Dropped::new(positional, keywords.len() < before)
    }

    /// Whether a keyword keeps its value on a call filtered by [`ArgumentFilter::NamedKeywords`].
    fn keeps_keyword(&self, keyword: Sym) -> bool {
        self.argument_names.contains(&keyword) || self.heuristics.is_key_keyword(&keyword)
    }

    /// The sink a resolved call path names. User sinks win over built-in ones.
    pub fn sink(&self, path: &QPath) -> Option<(usize, &Sink)> {
        let index = self.effects.find_last_inserted(path)?;
        let sink = &self.sinks[index];
        if sink.reads.iter().any(|read| read.matches(path)) {
            return None;
        }
        Some((index, sink))
    }

    /// Whether [`Catalog::type_by_api`] knows a method of this name.
    pub fn is_api_method(&self, method: Sym) -> bool {
        self.api_methods.contains(&method)
    }

    /// The type an object of unknown type has when this method is called on it
    /// (`config_from_object` → a Celery app).
    pub fn type_by_api(&self, method: &str) -> Option<QPath> {
        self.frameworks.iter().find_map(|spec| {
            let app = spec.app.as_ref()?;
            app.methods.iter().any(|m| m == method).then(|| {
                let mut path = QPath::from_dotted(&app.class);
                if let Some(last) = path.0.last_mut() {
                    last.call = crate::path::Call::Any;
                }
                path
            })
        })
    }

    /// The RQ queue method named `method`.
    pub fn rq_method(&self, method: &str) -> Option<&RqMethod> {
        self.rq_methods.iter().find(|m| m.method == method)
    }

    /// Whether RQ keeps the keyword `name` of an enqueue for the job itself (`job_timeout=`).
    pub fn is_rq_option(&self, name: &str) -> bool {
        self.rq_options.iter().any(|o| o == name)
    }

    /// Whether a method's result, tested by a guard, is a done-check.
    pub fn is_done_check(&self, method: &str) -> bool {
        self.guards.done_check_methods.iter().any(|m| m == method) || self.is_fetch(method)
    }

    /// Whether a method fetches a row or a value (`first`, `one_or_none`): a done-check when
    /// tested, not when returned ([`Catalog::is_done_check`]).
    pub fn is_fetch(&self, method: &str) -> bool {
        self.guards.fetch_methods.iter().any(|m| m == method)
    }

    /// Whether an attribute holds the number of rows a statement changed (`rowcount`).
    pub fn is_count_attribute(&self, attribute: &str) -> bool {
        self.guards.count_attributes.iter().any(|a| a == attribute)
    }

    /// Whether an exception class (its last name) is a unique constraint's violation.
    pub fn is_integrity_error(&self, name: &str) -> bool {
        self.guards.integrity_errors.iter().any(|e| e == name)
    }

    /// Whether a method runs a statement or fetches what one answered (`execute`, `fetchone`).
    pub fn runs_or_fetches(&self, method: Sym) -> bool {
        self.statement_methods.contains(&method)
    }

    /// Whether SQL text inserts a row unless it is there and returns what it inserted
    /// (`INSERT ... ON CONFLICT DO NOTHING RETURNING id`): a claim whose empty answer says an
    /// earlier run made the row.
    pub fn claims_insert_sql(&self, sql: &str) -> bool {
        let sql = sql.split_whitespace().collect::<Vec<_>>().join(" ");
        let sql = sql.to_ascii_lowercase();
        let guards = &self.guards;
        sql.contains("insert")
            && guards
                .claim_insert_skips
                .iter()
                .any(|s| sql.contains(s.as_str()))
            && guards
                .claim_insert_returning
                .iter()
                .any(|r| sql.contains(r.as_str()))
    }

    /// Whether a statement built by calls is such a claim: SQLAlchemy's
    /// `insert(M).values(...).on_conflict_do_nothing().returning(M.id)`.
    pub fn claims_insert_statement(&self, path: &QPath) -> bool {
        let guards = &self.guards;
        let calls = |names: &[String]| {
            path.0
                .iter()
                .any(|seg| seg.call != Call::No && names.iter().any(|n| n == seg.name.as_str()))
        };
        calls(&guards.claim_insert_skips) && calls(&guards.claim_insert_returning)
    }

    /// Whether a method stages a row for the next commit (`session.add(...)`).
    pub fn stages_insert(&self, method: &str) -> bool {
        self.guards
            .staged_insert_methods
            .iter()
            .any(|m| m == method)
    }

    /// Whether a method commits what a session staged (`session.commit()`, `flush()`).
    pub fn is_commit(&self, method: &str) -> bool {
        self.guards.commit_methods.iter().any(|m| m == method)
    }

    /// Whether an exception class (its last name) says no row matched a query
    /// (`Model.DoesNotExist`).
    pub fn is_missing_row_error(&self, name: &str) -> bool {
        self.guards.missing_row_errors.iter().any(|e| e == name)
    }

    /// Whether a method inserts rows, for the insert an `except IntegrityError` protects.
    pub fn is_insert(&self, method: &str) -> bool {
        self.guards.insert_methods.iter().any(|m| m == method)
    }

    /// Whether an enqueue method waits for the commit itself (`delay_on_commit`).
    pub fn enqueues_on_commit(&self, method: &str) -> bool {
        self.vocabulary
            .enqueue_on_commit
            .iter()
            .any(|m| m == method)
    }

    /// Whether a builtin converts a key without changing it (`str(key)`).
    pub fn is_key_conversion(&self, function: &str) -> bool {
        self.vocabulary
            .key_conversions
            .iter()
            .any(|f| f == function)
    }

    /// Whether a receiver (its canonical path) is an object of a library that runs work in a
    /// local pool (`multiprocessing.pool.ThreadPool()`): its `apply_async` enqueues nothing.
    pub fn runs_locally(&self, receiver: &QPath) -> bool {
        receiver.0.first().is_some_and(|head| {
            self.vocabulary
                .local_pools
                .iter()
                .any(|pool| head.name == pool.as_str())
        })
    }

    /// Whether a decorator (its canonical path) makes a method an attribute (`@property`,
    /// `@cached_property`).
    pub fn is_property_decorator(&self, path: &QPath) -> bool {
        self.vocabulary.property_decorators.contains(&path.dotted())
    }

    /// Whether a base (its canonical path) makes a class an interface (`typing.Protocol`,
    /// `abc.ABC`).
    pub fn is_interface_base(&self, path: &QPath) -> bool {
        self.vocabulary.interface_bases.contains(&path.dotted())
    }

    /// Whether a decorator (its canonical path) makes a method abstract.
    pub fn is_abstract_decorator(&self, path: &QPath) -> bool {
        self.vocabulary.abstract_decorators.contains(&path.dotted())
    }

    /// The last names of the interface bases and abstract decorators: a cheap test first.
    pub fn may_be_interface(&self, last: &str) -> bool {
        let named = |paths: &[String]| paths.iter().any(|p| p.rsplit('.').next() == Some(last));
        named(&self.vocabulary.interface_bases) || named(&self.vocabulary.abstract_decorators)
    }

    /// Whether a sink's call only checks what it would do (`messaging.send(msg, dry_run=True)`):
    /// nothing is delivered, so it is no effect.
    pub fn is_dry_run(&self, call: &crate::facts::CallSite) -> bool {
        self.vocabulary
            .dry_run_keywords
            .iter()
            .any(|k| call.keyword(k).and_then(crate::facts::Value::as_bool) == Some(true))
    }

    pub fn is_logging(&self, method: &str) -> bool {
        self.vocabulary.logging_methods.iter().any(|m| m == method)
    }

    /// The kind of a heuristic effect from the words of its receiver and method.
    pub fn heuristic_kind(&self, receiver: &str, method: &str) -> EffectKind {
        let text = format!("{receiver}.{method}");
        [
            EffectKind::Email,
            EffectKind::Message,
            EffectKind::Http,
            EffectKind::Publish,
        ]
        .into_iter()
        .find(|kind| {
            self.vocabulary
                .kind_words
                .get(kind)
                .is_some_and(|words| words.iter().any(|w| text.contains(w.as_str())))
        })
        .unwrap_or(EffectKind::Payment)
    }

    /// What a call of `path` does with functions or durations, if anything: binds a function
    /// (`partial`), calls one it is given (`asyncio.to_thread`), or makes a duration.
    pub fn call_role(&self, path: &QPath) -> Option<CallRole> {
        self.roles.find(path)
    }

    /// The positional parameters of a request object's constructor, in order.
    pub fn request_params(&self, index: u16) -> &[Sym] {
        self.request_params
            .get(usize::from(index))
            .map_or(&[], Vec::as_slice)
    }

    /// Whether `method` adds a header to a request object (`req.add_header(name, value)`).
    pub fn is_request_header_method(&self, method: &str) -> bool {
        self.request_header_methods
            .iter()
            .any(|m| m.as_str() == method)
    }

    /// The model whose table an attribute path names (`shop.Order._meta.db_table` gives
    /// `shop.Order`), by the catalog's `models.table-name-attributes`.
    pub fn table_owner(&self, path: &QPath) -> Option<QPath> {
        let segs = path.segs();
        self.models
            .table_name_attributes
            .iter()
            .find_map(|attribute| {
                let names: Vec<&str> = attribute.split('.').collect();
                let owner = segs.len().checked_sub(names.len()).filter(|&n| n > 0)?;
                let tail = &segs[owner..];
                let matches = tail
                    .iter()
                    .zip(&names)
                    .all(|(seg, name)| seg.call == Call::No && seg.name.as_str() == *name);
                (matches && segs[..owner].iter().all(|seg| seg.call == Call::No))
                    .then(|| QPath(segs[..owner].to_vec()))
            })
    }

    /// Whether a class of this name makes a model's manager (`LiveManager`, `EntryQuerySet`).
    pub fn is_manager_class(&self, class: &str) -> bool {
        self.models
            .manager_class_suffixes
            .iter()
            .any(|suffix| class.ends_with(suffix.as_str()))
    }

    /// Whether a call of `name` can be left out of the facts: when `bare`, a builtin called by
    /// its bare name (`len(x)`), else a method that neither reaches effects nor writes state
    /// (`x.strip()`).
    pub fn is_pure_call(&self, bare: bool, name: Sym) -> bool {
        if bare {
            self.pure.functions.contains(&name)
        } else {
            self.pure.methods.contains(&name)
        }
    }

    /// `F("x")`: an expression that reads the stored value.
    pub fn is_stored_value(&self, path: &QPath) -> bool {
        self.writes.stored_values.find(path).is_some()
    }

    /// Whether `path` is a database function whose value follows its arguments
    /// (`Coalesce(F("x"), 0)`): of a stored value, it reads that value.
    pub fn is_stored_function(&self, path: &QPath) -> bool {
        self.writes.stored_functions.find(path).is_some()
    }

    /// Whether a keyword argument named `name` may carry an idempotency key to some sink:
    /// a sink's key keyword, `headers`, `options`, or a name the heuristics take for a key.
    pub fn may_carry_key(&self, name: &str) -> bool {
        self.key_carriers.contains(&Sym::new(name)) || self.heuristics.is_key_keyword(name)
    }

    /// Whether `name` is a header some sink takes its key in (a helper that returns headers
    /// keeps those entries).
    pub fn is_key_header(&self, name: &str) -> bool {
        self.key_headers
            .iter()
            .any(|h| h.eq_ignore_ascii_case(name))
            || is_idempotency_header(name)
    }

    /// Whether a keyword gives what `name(arg)` patterns match when it is passed by name
    /// (`boto3.client(service_name="ses")` is `boto3.client(ses)`).
    pub fn is_name_keyword(&self, keyword: &str) -> bool {
        self.vocabulary.name_keywords.iter().any(|k| k == keyword)
    }

    /// Whether `receiver.method(value)` folds `value` into the receiver (`h.update(...)`).
    pub fn folds_into_receiver(&self, method: Sym) -> bool {
        self.into_receiver.contains(&method)
    }

    /// Whether `keyword=f` passes a function called for each new object's default
    /// (`field(default_factory=uuid4)`): what `f` returns is the field's value.
    pub fn is_factory_keyword(&self, keyword: Sym) -> bool {
        self.factory_keywords.contains(&keyword)
    }

    pub fn is_nondeterministic(&self, path: &QPath) -> bool {
        self.nondeterministic.find(path).is_some()
    }

    pub fn metadata(&self, path: &QPath) -> Option<&Metadata> {
        self.metadata_index(path).map(|i| &self.metadata[i])
    }

    /// The position in [`Catalog::metadata`] of the delivery metadata a path reads.
    /// Whether delivery metadata is read by this key (`ctx["job_try"]`).
    pub fn is_metadata_key(&self, key: &str) -> bool {
        self.metadata_keys.iter().any(|k| k == key)
    }

    pub fn metadata_index(&self, path: &QPath) -> Option<usize> {
        self.metadata_patterns.find(path)
    }

    /// The metadata a path reads when its first name is a parameter that was handed the task
    /// instance (`def attempt_key(task, ...)`: `task.request.retries` is
    /// `self.request.retries`).
    pub fn task_param_metadata_index(&self, path: &QPath) -> Option<usize> {
        let member = path.0.get(1)?;
        if path.0[0].call != Call::No || !self.task_members.contains(&member.name) {
            return None;
        }
        let mut as_self = path.clone();
        as_self.0[0] = Seg::name("self");
        self.metadata_patterns.find(&as_self)
    }

    /// Whether a call of this name could be a task decorator (before resolving its path).
    pub fn may_be_task_decorator(&self, name: Sym) -> bool {
        self.decorators.may_match(name)
    }

    pub fn task_decorator(&self, path: &QPath) -> Option<Framework> {
        self.decorators.find(path)
    }

    /// Whether a task decorator makes a task that a call enqueues only when the transaction
    /// commits (djhuey's `on_commit_task`).
    pub fn is_on_commit_decorator(&self, path: &QPath) -> bool {
        self.on_commit_decorators.find(path).is_some()
    }

    pub fn task_class(&self, path: &QPath) -> Option<Framework> {
        self.task_classes.find(path)
    }

    /// The last names of the enqueue functions, when all are literal (see [`PatternSet::last_names`]).
    /// The last names of the frameworks' task classes, when all are literal.
    pub fn task_class_names(&self) -> Option<impl Iterator<Item = &str>> {
        self.task_classes.last_names()
    }

    pub fn enqueue_function_names(&self) -> Option<impl Iterator<Item = &str>> {
        self.enqueue_functions.last_names()
    }

    /// How the enqueue call `path` names its task and passes the task's arguments, if it
    /// names the task by its registered name.
    pub fn by_name(&self, path: &QPath) -> Option<&ByName> {
        self.by_name.get(self.by_name_calls.find(path)?)
    }

    pub fn is_enqueue_function(&self, path: &QPath) -> bool {
        self.enqueue_functions.find(path).is_some()
    }

    /// Whether calling the result of a call of `path` enqueues (`chord(header)(callback)`).
    pub fn enqueues_when_called(&self, path: &QPath) -> bool {
        self.enqueue_called.find(path).is_some()
    }

    /// Whether `path` is a lock API's call by its patterns alone (`redis.Redis().lock()`):
    /// the receiver of `lock.extend()`.
    pub fn is_lock_path(&self, path: &QPath) -> bool {
        self.locks
            .iter()
            .any(|lock| lock.patterns.iter().any(|p| p.matches(path)))
    }

    /// Whether a decorator makes a generator a context manager (`contextlib.contextmanager`).
    pub fn is_context_manager(&self, decorator: &QPath) -> bool {
        self.context_managers.find(decorator).is_some()
    }

    /// The lock API a call uses, if it takes a lock or a set-if-absent marker.
    /// Whether a call named `method` (its last name) may be a lock API's: a cheap test before
    /// [`Catalog::lock`] over a body's call names.
    pub fn may_name_lock(&self, method: &str) -> bool {
        self.locks.iter().any(|lock| {
            lock.patterns
                .iter()
                .any(|p| p.last_literal() == Some(method))
        })
    }

    pub fn lock(&self, path: &QPath, call: &CallSite) -> Option<&LockApi> {
        let method = path.last_name()?;
        let receiver = call.receiver_lowercase();
        self.locks.iter().find(|lock| {
            let by_pattern = lock.patterns.iter().any(|p| p.matches(path));
            let by_receiver = !by_pattern
                && call.path.as_ref().is_some_and(|p| p.0.len() > 1)
                && lock
                    .patterns
                    .iter()
                    .any(|p| p.last_literal() == Some(method))
                && lock
                    .receiver_words
                    .iter()
                    .any(|w| receiver.contains(w.as_str()));
            (by_pattern || by_receiver)
                && lock
                    .requires
                    .as_deref()
                    .is_none_or(|k| call.keyword(k).and_then(Value::as_bool) == Some(true))
        })
    }

    pub fn framework(&self, framework: Framework) -> Option<&FrameworkSpec> {
        self.frameworks
            .iter()
            .find(|spec| spec.framework == framework)
    }

    /// Whether `path`, a local's value, is a row loaded through a SQLAlchemy-style session
    /// (`session.get(Account, id)`, `SessionLocal().scalars(...).one()`,
    /// `db.session.query(...).first()`, `Account.query.get(id)`): a load method called on a
    /// path through a session or a query attribute. Its changed attributes are written by the
    /// session's `commit`.
    pub fn loads_session_row(&self, path: &QPath) -> bool {
        let writes = &self.state_writes;
        let Some((last, through)) = path.segs().split_last() else {
            return false;
        };
        last.call != Call::No
            && writes.session_load_methods.iter().any(|m| *m == *last.name)
            && through.iter().any(|seg| {
                let name = seg.name.as_str();
                writes.session_query_attributes.iter().any(|a| a == name)
                    || writes.session_receiver_words.iter().any(|word| {
                        name.as_bytes()
                            .windows(word.len())
                            .any(|w| w.eq_ignore_ascii_case(word.as_bytes()))
                    })
            })
    }

    /// Whether a call commits a session's changes: a `session-methods` call (`commit`,
    /// `flush`) that writes rows ([`Catalog::writes_rows`]).
    pub fn commits_session(&self, canonical: &QPath, call: &CallSite) -> bool {
        let method = call.method.as_str();
        self.state_writes
            .session_methods
            .iter()
            .any(|m| m == method)
            && self.writes_rows(canonical, call)
    }

    /// Whether a call writes rows outside Django's ORM (`canonical` is its path): a
    /// SQLAlchemy session's `commit`/`flush`/`add`, or an SQL method running a statement that
    /// writes (`session.execute(update(Alert)...)`, `cursor.execute("UPDATE ...")`).
    pub fn writes_rows(&self, canonical: &QPath, call: &CallSite) -> bool {
        let writes = &self.state_writes;
        let method = call.method.as_str();
        if self.session_writes.find(canonical).is_some() {
            return true;
        }
        if writes.session_methods.iter().any(|m| m == method) {
            let receiver = call.receiver_lowercase();
            if writes
                .session_receiver_words
                .iter()
                .any(|w| receiver.contains(w.as_str()))
            {
                return true;
            }
        }
        if !self.writes.is_sql_method(method) {
            return false;
        }
        let Some(statement) = call.args().first() else {
            return false;
        };
        if let Some(sql) = statement.as_str() {
            let verb = sql
                .trim_start()
                .split(|c: char| !c.is_ascii_alphabetic())
                .next()
                .unwrap_or_default();
            return writes
                .write_sql_verbs
                .iter()
                .any(|v| v.eq_ignore_ascii_case(verb));
        }
        // `update(Alert).where(...).values(...)`: the builder is the chain's first call.
        statement.path.as_ref().is_some_and(|path| {
            path.0
                .iter()
                .position(|seg| seg.call != Call::No)
                .is_some_and(|first| {
                    let mut builder = path.0[..=first].to_vec();
                    builder[first].call = Call::No;
                    self.write_statements.find(&QPath(builder)).is_some()
                })
        })
    }

    pub fn frameworks(&self) -> impl Iterator<Item = &FrameworkSpec> {
        self.frameworks.iter()
    }

    /// Whether a framework's tasks have a method of this name that returns the task with other
    /// options (Procrastinate's `configure`, Django's `using`).
    pub fn is_builder_method(&self, method: &str) -> bool {
        self.frameworks
            .iter()
            .any(|spec| spec.builder_methods.iter().any(|m| m == method))
    }

    /// The task a receiver names under its builder calls: `task.configure(...)` → `task`,
    /// `task.kicker().with_labels(...)` → `task`.
    pub fn strip_builders(&self, receiver: &mut QPath) {
        while receiver.0.len() > 1
            && receiver.is_call()
            && receiver
                .last_name()
                .is_some_and(|m| self.is_builder_method(m))
        {
            receiver.0.pop();
        }
    }

    /// Whether a framework's tasks have a method of this name that builds a call of the task
    /// (Celery's `s`, `si`).
    pub fn is_signature_method(&self, method: &str) -> bool {
        self.frameworks
            .iter()
            .any(|spec| spec.signature_methods.iter().any(|m| m == method))
    }
}

fn default_task_class_method() -> String {
    "run".to_string()
}

fn pattern_set(patterns: &[String]) -> PatternSet<()> {
    let mut set = PatternSet::default();
    for pattern in patterns {
        set.insert(pattern, ());
    }
    set
}

impl PatternSet<usize> {
    /// Like `find`, preferring the highest value (the last inserted: user sinks).
    fn find_last_inserted(&self, path: &QPath) -> Option<usize> {
        let last = path.0.last()?.name;
        self.by_last
            .get(&last)
            .into_iter()
            .flatten()
            .chain(&self.other)
            .filter(|(pattern, _)| pattern.matches(path))
            .map(|(_, value)| *value)
            .max()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argument_names_come_from_catalog_data_not_comments_or_pure_calls() {
        let words = catalog_words(
            "# send_receipt in a comment\n[effects]\ncalls = [\"stripe.*.create\"]\n\
             [pure]\nfunctions = [\"_\", \"create\"]\nmethods = [\"reverse\"]\n\
             [enqueue]\nby-name = [{ calls = [\"q.put\"], option-prefix = \"_\" }]\n",
        );
        assert!(words.iter().any(|w| w == "stripe"));
        assert!(words.iter().any(|w| w == "create"));
        assert!(words.iter().any(|w| w == "effects"));
        assert!(words.iter().any(|w| w == "put"));
        assert!(!words.iter().any(|w| w == "send_receipt"));
        assert!(
            !words
                .iter()
                .any(|w| w == "reverse" || w == "_" || w == "pure")
        );
        let catalog = Catalog::new(&[], &[]);
        for (named, kept) in [
            ("create", true),
            ("retry", true),
            ("reverse", false),
            ("_", false),
        ] {
            assert_eq!(
                catalog.class_call_filter(Some(&QPath::from_dotted(named))) == ArgumentFilter::All,
                kept,
                "{named}"
            );
        }
    }

    #[test]
    fn builtin_catalog_loads_and_matches() {
        let catalog = Catalog::new(&[], &[]);
        let (_, sink) = catalog
            .sink(&QPath::from_dotted("stripe.Refund.create"))
            .expect("stripe sink");
        assert_eq!(sink.kind, EffectKind::Payment);
        assert!(sink.random_default);
        let (_, mail) = catalog
            .sink(&QPath::from_dotted("django.core.mail.send_mail"))
            .expect("mail sink");
        assert!(mail.key.is_none());
        assert!(catalog.sink(&QPath::from_dotted("requests.get")).is_none());
        assert!(catalog.is_nondeterministic(&QPath::from_dotted("uuid.uuid4")));
        assert!(!catalog.is_nondeterministic(&QPath::from_dotted("uuid.uuid5")));
        assert_eq!(
            catalog.task_decorator(&QPath::from_dotted("celery.shared_task")),
            Some(Framework::Celery)
        );
    }

    #[test]
    fn user_sinks_extend_and_override() {
        let user = UserSink {
            kind: EffectKind::Payment,
            key: Some(UserKey::Keyword("external_ref".into())),
        };
        let catalog = Catalog::new(&[("ledgerkit.Ledger.post_transfer".into(), user)], &[]);
        let (_, sink) = catalog
            .sink(&QPath::from_dotted("ledgerkit.Ledger.post_transfer"))
            .expect("user sink");
        assert_eq!(
            sink.key.as_ref().and_then(|k| k.keyword.as_deref()),
            Some("external_ref")
        );
    }

    #[test]
    fn suffixed_durations_end_in_any_character() {
        let spec = TimeLimitSpec {
            keyword: "timeout".into(),
            unit: TimeUnit::Seconds,
            unbounded: None,
            suffixed: true,
            calls: Vec::new(),
        };
        let text = |s: &str| Value {
            lit: crate::facts::Lit::Str(s.into()),
            ..Value::default()
        };
        assert_eq!(spec.value_of(&text("10m")), Some(600));
        assert_eq!(spec.value_of(&text("2h")), Some(7200));
        assert_eq!(spec.value_of(&text("90")), Some(90));
        assert_eq!(spec.value_of(&text("2\u{e9}")), None);
        assert_eq!(spec.value_of(&text("\u{1f600}")), None);
        assert_eq!(spec.value_of(&text("")), None);
    }

    #[test]
    fn options_methods_are_enqueue_methods() {
        // TW501 reads `args=`/`kwargs=` of an options method only where the project classes
        // the call as an enqueue, which it does by `enqueue-methods`.
        let catalog = Catalog::new(&[], &[]);
        let mut options = 0;
        for spec in &catalog.frameworks {
            for method in &spec.options_methods {
                options += 1;
                assert!(
                    spec.enqueue_methods.contains(method),
                    "{:?}: {method}",
                    spec.framework
                );
            }
        }
        assert!(
            options >= 2,
            "Celery's apply_async, Dramatiq's send_with_options"
        );
    }

    #[test]
    fn rq_durations_read_as_rq_reads_them() {
        use crate::facts::{Lit, Value};
        let spec = TimeLimitSpec {
            keyword: "timeout".into(),
            unit: TimeUnit::Seconds,
            unbounded: Some(-1),
            suffixed: true,
            calls: Vec::new(),
        };
        let text = |s: &str| Value {
            lit: Lit::Str(s.into()),
            ..Value::default()
        };
        for (written, seconds) in [
            ("10m", Some(600)),
            ("2H", Some(7200)),
            ("45s", Some(45)),
            ("1d", Some(86_400)),
            ("180", Some(180)),
            ("10 minutes", None),
            ("m", None),
            ("", None),
        ] {
            assert_eq!(spec.value_of(&text(written)), seconds, "{written:?}");
        }
        let plain = TimeLimitSpec {
            suffixed: false,
            ..spec
        };
        assert_eq!(plain.value_of(&text("10m")), None);
    }
}
