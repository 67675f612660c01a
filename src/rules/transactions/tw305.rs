use ruff_text_size::TextRange;

use crate::facts::{CallSite, EventKind, Function, GuardTest, Lit, Value};
use crate::i18n::tr;
use crate::path::{Call, QPath};
use crate::project::{CallClass, FuncId};
use crate::rules::transactions::walk_helpers;
use crate::rules::{Checker, TaskView, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports, in a task and without a done-guard before it, a write that accumulates when it
    /// is repeated: `F("x") + n` in `update()` (also inside a database function:
    /// `Coalesce(F("x"), 0) + 1`; SQLAlchemy: `update(T).values(x=T.x + n)`) or in the
    /// `defaults` of `update_or_create`, `obj.x += n` (or `obj.x = obj.x + n`) followed by
    /// `save()` (or, on a row a SQLAlchemy session loaded, by the session's `commit()`/`flush()`
    /// or the end of `with session.begin():`), raw SQL that adds to a column (`UPDATE t SET n = n + 1`, and an upsert whose
    /// `DO UPDATE SET`/`ON DUPLICATE KEY UPDATE` does: the conflict clause makes its insert
    /// safe, not the increment it runs instead; not `n = EXCLUDED.n`),
    /// SQLAlchemy's legacy `query(T).filter(...).update({T.n: T.n + 1})` (or `{"n": ...}`),
    /// `Model.objects.create(...)` where no unique constraint covers the given fields,
    /// `bulk_create` without `ignore_conflicts`/`update_conflicts`, Redis
    /// `incr`/`hincrby`/`lpush`/`rpush`/`xadd`, `cache.incr`, a raw SQL `INSERT` without
    /// `ON CONFLICT` (a string or an f-string, after a `WITH` clause too, or wrapped as
    /// SQLAlchemy's `text(...)` or psycopg's `sql.SQL(...)`, or run by psycopg2's
    /// `execute_values`/`execute_batch`), and `open(..., "a")`. Not a total set before it is summed again
    /// (`order.total = 0`, then `+=` per line: an absolute value), nor an update that also
    /// moves the state its filter selects by (`filter(seq__lt=n).update(balance=F(...) + x,
    /// seq=n)` adds once per `n`; but a field the filter only bounds, moved by an increment
    /// within the bound, stays selected: `filter(stock__gte=q).update(stock=F("stock") - q)`
    /// takes again), nor inserts into a table the task deleted from on every path
    /// before them (`DELETE FROM rollup WHERE day = %s` then `INSERT INTO rollup ...`,
    /// `Rollup.objects.filter(day=day).delete()` then `bulk_create`): each run replaces the rows
    /// the last one wrote. Nor the marker an `except IntegrityError: return` (or psycopg's
    /// `UniqueViolation`) guards: a unique constraint makes its repeat raise, not add a row
    /// (TW303 is about when it commits).
    ///
    /// The accumulating writes (`F()`, `+=` then `save()`, SQL `SET n = n + 1`, counters,
    /// appends, inserts) of the project helpers a task calls without a done-guard, or hands to
    /// `transaction.on_commit(lambda: ...)`, are reported too, at the write in the helper: a
    /// `wallet.credit(amount)` runs again with the task. In a helper, a row it was handed (`wallet.balance -= amount`, a model method's
    /// `self.balance += amount`) counts when it is saved, and a manager's own
    /// `self.filter(...).update(balance=F("balance") + x)` counts. A helper's inserts are
    /// reported as the task's own are: the spec puts what a task reaches in the task, and a log
    /// or outbox row a helper adds is added again with it (a second `OutgoingMail` row is a
    /// second e-mail). Text appended (`notes += "\n" + line`) is not a count.
    ///
    /// ## Why it matters on a second run
    /// Each delivery adds again: the balance is credited twice, the stock drops twice, the
    /// ledger gets a second entry, the counter counts one sale as two.
    ///
    /// ## Example
    /// ```python
    /// @shared_task
    /// def credit(wallet_id, amount):
    ///     Wallet.objects.filter(pk=wallet_id).update(balance=F("balance") + amount)
    /// ```
    ///
    /// ## Use instead
    /// A done-guard in the same transaction, a natural unique key with
    /// `ignore_conflicts`/`ON CONFLICT DO NOTHING`, or absolute values instead of increments:
    /// ```python
    /// @shared_task
    /// def credit(wallet_id, amount, credit_id):
    ///     with transaction.atomic():
    ///         _, created = Credit.objects.get_or_create(credit_id=credit_id)  # unique
    ///         if not created:
    ///             return
    ///         Wallet.objects.filter(pk=wallet_id).update(balance=F("balance") + amount)
    /// ```
    pub const RULE = {
        code: "TW305",
        name: "non-idempotent-write",
        group: "transactions",
        severity: Warning,
        summary: "A write that accumulates when the task runs again",
        fixable: false,
    };
}

pub fn check(checker: &mut Checker, task: &TaskView) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let lang = checker.lang;
    // The task's own writes, then those of the project helpers it calls unguarded, reported
    // where the write is (as TW201 through a helper): the helper runs again with the task.
    walk_helpers(project, task.id, |id, function, pending| {
        for (range, what) in writes_in(checker, id, function, id == task.id, pending) {
            let message = tr!(lang, "tw305.message", what = what, task = task.name());
            let help = tr!(lang, "tw305.help");
            checker.report(&RULE, id.file, range, message, help);
        }
    });
}

/// The accumulating writes of `function` (`id`) that no done-guard precedes, with what makes
/// each one accumulate; increments of a row handed in as a parameter count only in a helper
/// (not `in_task`). The project functions it calls unguarded go to `callees`.
fn writes_in(
    checker: &Checker,
    id: FuncId,
    function: &Function,
    in_task: bool,
    callees: &mut Vec<FuncId>,
) -> Vec<(TextRange, String)> {
    let project = checker.project;
    let lang = checker.lang;
    let orm = &project.catalog.orm;
    let mut found: Vec<(TextRange, String)> = Vec::new();
    for (index, event) in function.events().iter().enumerate() {
        // A lambda the task builds (`transaction.on_commit(lambda: ...)`) runs again with it,
        // as for effects.
        if project.is_guarded(id, index) {
            continue;
        }
        if let Some(CallClass::Project(callee)) = project.call_class(id, index) {
            callees.push(*callee);
        }
        match &event.kind {
            EventKind::Call(call) => {
                if let Some(what) = accumulating_call(checker, call)
                    && !replaces_deleted(project, function, index, call)
                    && !is_integrity_marker(project, function, index, call)
                {
                    found.push((call.range, what));
                }
            }
            EventKind::AttrAssign(assign) => {
                // A row the function loaded, or one it was handed (a helper's `product`, a
                // model method's `self`): saved after the increment, either is stored.
                let loaded = assign.object.as_ref().is_some_and(|p| {
                    orm.through_manager(p)
                        || p.contains("get_object_or_404")
                        || project.own_manager_at(p).is_some()
                }) || (!in_task
                    && function.params.iter().any(|p| p.name() == &*assign.var));
                // Text appended (`invoice.notes += "\n" + line`) is not a count.
                let increment = (assign.augmented && assign.value.str_start().is_none())
                    || assign.value.flags & Value::ACCUMULATES != 0;
                // A row a SQLAlchemy session loaded (`account = session.get(Account, id)`),
                // whose commit writes it.
                let session_row = || {
                    assign
                        .object
                        .as_ref()
                        .is_some_and(|p| project.catalog.loads_session_row(p))
                };
                let by_session = !loaded && increment && session_row();
                if !(loaded || by_session) || !increment {
                    continue;
                }
                // `order.total = 0` or `= Decimal("0")` before (`+=` over the lines after it):
                // the task sums from a value it set, and a second run writes the same total.
                // Not `order.total = order.total + n`, which reads the stored value.
                let reset = function.events()[..index].iter().any(|e| {
                    matches!(&e.kind, EventKind::AttrAssign(earlier)
                        if earlier.var == assign.var
                            && earlier.attr == assign.attr
                            && earlier.key.is_none()
                            && !earlier.augmented
                            && earlier.value.flags & Value::ACCUMULATES == 0
                            && (earlier.value.path.is_some()
                                || !matches!(earlier.value.lit, Lit::Other)))
                });
                if reset {
                    continue;
                }
                // The write happens when the object is saved.
                let saved = match by_session {
                    // Committed by a later `session.commit()`, or by the end of the `with
                    // session.begin():` block around it.
                    true => {
                        project.session_write(function, index).is_some()
                            || function.events()[index + 1..].iter().any(|e| {
                                matches!(&e.kind, EventKind::Call(c)
                                    if !function.is_deferred(e.block)
                                        && c.path.as_ref().is_some_and(|path| {
                                            project
                                                .catalog
                                                .commits_session(&project.canonical(path), c)
                                        }))
                            })
                    }
                    false => function.events()[index + 1..].iter().any(|e| {
                        matches!(&e.kind, EventKind::Call(c) if orm.save_methods.has(c.method.as_str()) && c.receiver_var.map(crate::path::Sym::as_str) == Some(&*assign.var))
                    }),
                };
                if saved {
                    found.push((
                        assign.range,
                        tr!(
                            lang,
                            "tw305.increment",
                            var = assign.var,
                            attr = assign.attr
                        ),
                    ));
                }
            }
            EventKind::Guard(_) => {}
        }
    }
    found
}

/// What makes a call an accumulating write, for the message. Inserts of rows (`create`,
/// `bulk_create`, a raw `INSERT`) count as increments do.
fn accumulating_call(checker: &Checker, call: &CallSite) -> Option<String> {
    let project = checker.project;
    let lang = checker.lang;
    let writes = &project.catalog.writes;
    let path = call.path.as_ref()?;
    let method = call.method.as_str();
    let vocabulary = &project.catalog.orm;
    let orm = vocabulary.through_manager(path);
    match method {
        // `filter(pk=pk, seq__lt=n).update(balance=F("balance") + x, seq=n)`: its own guard.
        // An `F()` sum says the receiver is a queryset, through a manager or not (a manager's
        // own method: `self.filter(pk=pk).update(...)`).
        // `update(Product).where(...).values(stock=Product.stock + qty)`.
        _ if writes.is_column_update(call.method) && built_on_update(path, vocabulary) => {
            let (field, _) = call
                .keywords()
                .iter()
                .find(|(_, v)| v.flags & Value::ACCUMULATES != 0)?;
            Some(tr!(lang, "tw305.column", field = field))
        }
        // `update_or_create(day=d, defaults={"count": F("count") + 1})`: the update of the
        // row that exists.
        _ if let Some(keyword) = vocabulary.update_keywords.get(method) => {
            let field = call
                .keyword(keyword)?
                .dict()?
                .iter()
                .find(|(_, v)| v.flags & Value::ACCUMULATES != 0)?
                .0?;
            Some(tr!(
                lang,
                "tw305.update_defaults",
                method = method,
                keyword = keyword,
                field = field
            ))
        }
        _ if vocabulary.update_methods.has(method) && !call.marks.claims() => {
            let (field, _) = call
                .keywords()
                .iter()
                .find(|(_, v)| v.flags & Value::ACCUMULATES != 0)?;
            Some(tr!(lang, "tw305.update", field = field))
        }
        _ if vocabulary.create_methods.has(method)
            && !call.star_kwargs
            && (orm || project.models.manager_target(project, path).is_some()) =>
        {
            let target = project.models.manager_target(project, path)?;
            let model = &project.models.list[target.model];
            let mut fields: Vec<String> =
                call.keywords().iter().map(|(k, _)| k.to_string()).collect();
            fields.extend(target.implicit.map(str::to_string));
            (!model.lookup_is_unique(&fields))
                .then(|| tr!(lang, "tw305.create", model = model.name, method = method))
        }
        _ if orm && vocabulary.bulk_create_methods.has(method) => {
            let idempotent = writes
                .bulk_idempotent
                .iter()
                .any(|k| call.keyword(k).and_then(Value::as_bool) == Some(true));
            (!idempotent).then(|| tr!(lang, "tw305.bulk_create"))
        }
        _ if writes.is_counter(&project.canonical(path), call) => Some(tr!(
            lang,
            "tw305.counter",
            call = crate::project::call_label(call)
        )),
        _ if let Some(statement) = writes.statement(&project.canonical(path), call) => {
            // A literal, or an f-string's text (`{}` for what it interpolates).
            let sql = statement.str_start()?.trim_start().to_ascii_lowercase();
            // `UPDATE t SET n = n + 1`, an upsert's `DO UPDATE SET n = t.n + 1`: an increment,
            // in a helper too.
            if let Some(column) = sql_increment(&sql) {
                return Some(tr!(lang, "tw305.sql_increment", column = column));
            }
            // `WITH src AS (SELECT ...) INSERT INTO t ...` inserts as well.
            let is_insert = sql.starts_with("insert")
                || (sql.starts_with("with") && sql.contains("insert into"));
            let idempotent = writes
                .idempotent_insert
                .iter()
                .any(|clause| sql.contains(clause.as_str()));
            (is_insert && !idempotent).then(|| tr!(lang, "tw305.insert"))
        }
        _ if let Some(position) = writes.open_mode_position(&project.canonical(path)) => {
            let mode = call.arg(position, "mode")?.as_str()?;
            mode.contains('a')
                .then(|| tr!(lang, "tw305.append", mode = mode))
        }
        _ => None,
    }
}

/// Whether the insert `call` (event `index`) is the marker of an `except IntegrityError:
/// return` after it (`try: cur.execute("INSERT ...") except UniqueViolation: return`): a
/// unique constraint makes its repeat raise, not add a row.
fn is_integrity_marker(
    project: &crate::project::Project,
    function: &Function,
    index: usize,
    call: &CallSite,
) -> bool {
    function.events()[index + 1..].iter().any(|event| {
        matches!(&event.kind, EventKind::Guard(guard)
            if matches!(&guard.test, GuardTest::Integrity { inserts }
                if project.integrity_marker(function, inserts) == Some(call.range)))
    })
}

/// The rows an insert or a delete writes: a table named in raw SQL, a model of the project, or
/// a model defined elsewhere, by its canonical name.
enum Rows<'a> {
    Table(&'a str),
    Model(usize),
    Outside(String),
}

impl PartialEq for Rows<'_> {
    /// Unquoted SQL names ignore case.
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Rows::Table(a), Rows::Table(b)) => a.eq_ignore_ascii_case(b),
            (Rows::Model(a), Rows::Model(b)) => a == b,
            (Rows::Outside(a), Rows::Outside(b)) => a == b,
            _ => false,
        }
    }
}

/// Whether the insert `call` (event `index`) follows a delete of the same rows' table on every
/// path to it (not in a branch), outside any deferred callback: the task replaces what an
/// earlier run inserted.
fn replaces_deleted(
    project: &crate::project::Project,
    function: &Function,
    index: usize,
    call: &CallSite,
) -> bool {
    let events = function.events();
    let Some(block) = events.get(index).map(|e| e.block) else {
        return false;
    };
    let Some(inserted) = written_rows(project, call, Verb::Insert) else {
        return false;
    };
    events[..index].iter().any(|event| {
        matches!(&event.kind, EventKind::Call(earlier)
            if crate::project::guard_covers(function, event.block, block)
                && !function.is_deferred(event.block)
                && written_rows(project, earlier, Verb::Delete).is_some_and(|rows| rows == inserted))
    })
}

/// What a statement does to the rows of its table.
#[derive(Clone, Copy)]
enum Verb {
    Insert,
    Delete,
}

/// The rows `call` inserts or deletes (`verb`): the table of a raw SQL statement, or the model
/// of an ORM call through its manager.
fn written_rows<'c>(
    project: &crate::project::Project,
    call: &'c CallSite,
    verb: Verb,
) -> Option<Rows<'c>> {
    let orm = &project.catalog.orm;
    let method = call.method.as_str();
    let writes = &project.catalog.writes;
    if writes.is_sql_method(method) {
        return sql_table(call.args().first()?.str_start()?, verb).map(Rows::Table);
    }
    if let Some(path) = &call.path
        && let Some(statement) = writes.statement(&project.canonical(path), call)
    {
        return sql_table(statement.str_start()?, verb).map(Rows::Table);
    }
    let orm_verb = match verb {
        Verb::Insert => orm.create_methods.has(method) || orm.bulk_create_methods.has(method),
        Verb::Delete => orm.delete_methods.has(method),
    };
    if !orm_verb {
        return None;
    }
    let path = call.path.as_ref()?;
    if let Some(target) = project.models.manager_target(project, path) {
        return Some(Rows::Model(target.model));
    }
    // A model the project does not define (`Rollup.objects.filter(...).delete()` with `Rollup`
    // imported from a package): its manager's queryset calls only, no relation.
    let segs = path.segs();
    let at = orm.manager_at(path).filter(|&at| at > 0)?;
    if segs[at + 1..]
        .iter()
        .any(|s| s.call == crate::path::Call::No)
    {
        return None;
    }
    let model = crate::path::QPath(segs[..at].to_vec());
    Some(Rows::Outside(project.canonical(&model).dotted()))
}

/// The table of `INSERT INTO t ...` ([`Verb::Insert`]), or of `DELETE FROM t ...` and
/// `TRUNCATE t` ([`Verb::Delete`]), without quotes; case is kept, SQL compares it without.
fn sql_table(sql: &str, verb: Verb) -> Option<&str> {
    let mut words = sql.split_ascii_whitespace();
    let first = words.next()?;
    let leads: &[&str] = match verb {
        Verb::Insert => &["insert"],
        Verb::Delete => &["delete", "truncate"],
    };
    if !leads.iter().any(|lead| first.eq_ignore_ascii_case(lead)) {
        return None;
    }
    let mut table = words.next()?;
    if ["into", "from", "table"]
        .iter()
        .any(|w| table.eq_ignore_ascii_case(w))
    {
        table = words.next()?;
    }
    let table = table
        .split('(')
        .next()
        .unwrap_or_default()
        .trim_matches(|c| matches!(c, '"' | '`' | '[' | ']' | ';'));
    (!table.is_empty()).then_some(table)
}

/// A token of an SQL statement, as [`sql_increment`] reads it.
#[derive(Debug, PartialEq)]
enum Token {
    /// A name, qualified or not, without quotes (`t.n` for `"t"."n"`).
    Name(String),
    /// A word of punctuation or an operator: `,`, `(`, `)`, `=`, `+`, `-`, `;`.
    Punct(char),
    /// Anything else: numbers, string literals, placeholders.
    Other,
}

/// Splits lowercase SQL into names, punctuation and other tokens. String literals are one
/// token, so a `-` in a date does not read as a minus.
fn sql_tokens(sql: &str) -> Vec<Token> {
    let bytes = sql.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\'' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'\'' {
                    i += 1;
                }
                i = (i + 1).min(bytes.len());
                tokens.push(Token::Other);
            }
            b'-' if bytes.get(i + 1) == Some(&b'-') => {
                // A comment, to the end of the line.
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b',' | b'(' | b')' | b'=' | b'+' | b'-' | b';' => {
                tokens.push(Token::Punct(char::from(c)));
                i += 1;
            }
            _ if c.is_ascii_whitespace() => i += 1,
            _ if c.is_ascii_alphabetic() || matches!(c, b'_' | b'"' | b'`' | b'[') => {
                // A name, with its qualifiers: `counters.n`, `"t"."n"`, `[dbo].[t]`.
                let mut name = String::new();
                loop {
                    match bytes.get(i) {
                        Some(&quote @ (b'"' | b'`' | b'[')) => {
                            let close = if quote == b'[' { b']' } else { quote };
                            let from = i + 1;
                            i = from;
                            while i < bytes.len() && bytes[i] != close {
                                i += 1;
                            }
                            name.push_str(&sql[from..i]);
                            i = (i + 1).min(bytes.len());
                        }
                        Some(b) if b.is_ascii_alphanumeric() || *b == b'_' => {
                            let from = i;
                            while i < bytes.len()
                                && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_')
                            {
                                i += 1;
                            }
                            name.push_str(&sql[from..i]);
                        }
                        _ => break,
                    }
                    if bytes.get(i) == Some(&b'.') {
                        name.push('.');
                        i += 1;
                    } else {
                        break;
                    }
                }
                tokens.push(Token::Name(name));
            }
            _ => {
                i += 1;
                while i < bytes.len()
                    && !bytes[i].is_ascii_whitespace()
                    && !matches!(
                        bytes[i],
                        b',' | b'(' | b')' | b'=' | b'+' | b'-' | b';' | b'\''
                    )
                {
                    i += 1;
                }
                tokens.push(Token::Other);
            }
        }
    }
    tokens
}

/// The column a statement adds to or takes from its stored value: `UPDATE t SET n = n + 1`,
/// the update of an upsert (`ON CONFLICT (k) DO UPDATE SET n = counters.n + 1`,
/// `ON DUPLICATE KEY UPDATE n = n + 1`). Not the new row's value (`n = excluded.n + 1`), and
/// not a statement that also moves a column its `WHERE` selects by to a value it sets
/// (`SET n = n + 1, seq = %s WHERE seq < %s`: each `seq` adds once). `sql` is lowercase.
fn sql_increment(sql: &str) -> Option<String> {
    let tokens = sql_tokens(sql);
    let is = |at: usize, word: &str| matches!(tokens.get(at), Some(Token::Name(n)) if n == word);
    let mut increment: Option<String> = None;
    let mut absolute: Vec<String> = Vec::new();
    let mut selected: Vec<&str> = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        // `UPDATE t SET`, `DO UPDATE SET`, `ON DUPLICATE KEY UPDATE`: a list of assignments.
        let list = if is(at, "set") {
            Some(at + 1)
        } else if is(at, "duplicate") && is(at + 1, "key") && is(at + 2, "update") {
            Some(at + 3)
        } else {
            None
        };
        if is(at, "where") {
            let mut depth = 0usize;
            at += 1;
            while let Some(token) = tokens.get(at) {
                match token {
                    Token::Punct('(') => depth += 1,
                    Token::Punct(')') if depth == 0 => break,
                    Token::Punct(')') => depth -= 1,
                    Token::Punct(';') => break,
                    Token::Name(name) => selected.push(last_part(name)),
                    _ => {}
                }
                at += 1;
            }
            continue;
        }
        let Some(start) = list else {
            at += 1;
            continue;
        };
        at = start;
        // `column = expression`, up to a comma or the end of the list.
        while let Some(Token::Name(column)) = tokens.get(at) {
            if tokens.get(at + 1) != Some(&Token::Punct('=')) {
                break;
            }
            let column = last_part(column);
            at += 2;
            let mut depth = 0usize;
            let mut summed = false;
            let mut reads_itself = false;
            while let Some(token) = tokens.get(at) {
                match token {
                    Token::Punct('(') => depth += 1,
                    Token::Punct(')') if depth == 0 => break,
                    Token::Punct(')') => depth -= 1,
                    Token::Punct(',' | ';') if depth == 0 => break,
                    Token::Punct('+' | '-') => summed = true,
                    Token::Name(name) if depth == 0 && END_OF_LIST.contains(&name.as_str()) => {
                        break;
                    }
                    // The stored column, also inside `coalesce(n, 0)`; not the row an upsert
                    // would have inserted (`excluded.n`, MySQL's `new.n`).
                    Token::Name(name)
                        if last_part(name) == column
                            && !name.starts_with("excluded.")
                            && !name.starts_with("new.") =>
                    {
                        reads_itself = true;
                    }
                    _ => {}
                }
                at += 1;
            }
            if summed && reads_itself {
                increment.get_or_insert_with(|| column.to_string());
            } else {
                absolute.push(column.to_string());
            }
            if tokens.get(at) == Some(&Token::Punct(',')) {
                at += 1;
            } else {
                break;
            }
        }
    }
    let claimed = absolute
        .iter()
        .any(|column| selected.contains(&column.as_str()));
    increment.filter(|_| !claimed)
}

/// The words that end a `SET` list.
const END_OF_LIST: &[&str] = &[
    "where",
    "returning",
    "from",
    "on",
    "output",
    "limit",
    "order",
];

/// The last part of a qualified name: `n` of `counters.n`.
fn last_part(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

/// Whether a statement method is called on what an `update` call built
/// (`update(Product).where(...)`, `table.update()`).
fn built_on_update(path: &QPath, orm: &crate::catalog::Orm) -> bool {
    path.segs().split_last().is_some_and(|(_, before)| {
        before
            .iter()
            .any(|seg| seg.call != Call::No && orm.update_methods.has(seg.name.as_str()))
    })
}

#[cfg(test)]
mod tests {
    use super::{Verb, sql_increment, sql_table};

    #[test]
    fn statements_that_add_to_a_stored_column() {
        let cases = [
            ("update stats set n = n + 1 where day = %s", Some("n")),
            ("update stats set seen = now(), n = stats.n - %s", Some("n")),
            ("update \"stats\" set \"n\" = \"n\" + 1", Some("n")),
            (
                "update stats set n = coalesce(n, 0) + 1 where id = 1",
                Some("n"),
            ),
            ("update stats set n = 1 + n", Some("n")),
            (
                "insert into counters (day, n) values (%s, 1) on conflict (day) do update set n = counters.n + 1",
                Some("n"),
            ),
            (
                "insert into counters (day, n) values (%s, 1) on duplicate key update n = n + 1",
                Some("n"),
            ),
            // Absolute values, the inserted row's values, other columns.
            ("update stats set n = %s where day = %s", None),
            ("update stats set n = m + 1", None),
            ("update stats set updated = '2024-01-01' where n = n", None),
            (
                "insert into counters (day, n) values (%s, 1) on conflict (day) do update set n = excluded.n + 1",
                None,
            ),
            (
                "insert into counters (day, n) values (%s, 1) on conflict do nothing",
                None,
            ),
            ("select n + 1 from stats", None),
            // A claim: the statement moves the column it selects by.
            (
                "update accounts set balance = balance + %s, seq = %s where id = %s and seq < %s",
                None,
            ),
            ("", None),
            ("update", None),
            ("update t set", None),
            ("update t set n = ", None),
        ];
        for (sql, column) in cases {
            assert_eq!(sql_increment(sql).as_deref(), column, "{sql:?}");
        }
    }

    #[test]
    fn statements_name_their_table() {
        let cases = [
            (
                "INSERT INTO usage_rollup (a, b) VALUES (%s, %s)",
                Verb::Insert,
                Some("usage_rollup"),
            ),
            (
                "  insert into \"Rollup\"(a) select 1",
                Verb::Insert,
                Some("Rollup"),
            ),
            ("INSERT `stats` VALUES (1)", Verb::Insert, Some("stats")),
            (
                "DELETE FROM usage_rollup WHERE day = %s",
                Verb::Delete,
                Some("usage_rollup"),
            ),
            (
                "delete usage_rollup where 1",
                Verb::Delete,
                Some("usage_rollup"),
            ),
            (
                "TRUNCATE TABLE usage_rollup;",
                Verb::Delete,
                Some("usage_rollup"),
            ),
            ("TRUNCATE usage_rollup", Verb::Delete, Some("usage_rollup")),
            // The other verb, or none.
            ("DELETE FROM usage_rollup", Verb::Insert, None),
            ("INSERT INTO usage_rollup VALUES (1)", Verb::Delete, None),
            ("UPDATE usage_rollup SET n = 0", Verb::Delete, None),
            ("INSERT INTO", Verb::Insert, None),
            ("", Verb::Insert, None),
        ];
        for (sql, verb, table) in cases {
            assert_eq!(sql_table(sql, verb), table, "{sql:?}");
        }
    }
}
