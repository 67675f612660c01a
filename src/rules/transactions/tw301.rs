use crate::facts::EventKind;
use crate::i18n::tr;
use crate::rules::transactions::describe_transaction;
use crate::rules::{Checker, declare_rule, effect_clause};

declare_rule! {
    /// ## What it does
    /// Reports an effect — a payment, an e-mail, a message, an HTTP write — called inside a
    /// database transaction: `with transaction.atomic():`, a function decorated
    /// `@transaction.atomic` (also through `@method_decorator(transaction.atomic)`, or on its
    /// class with `name="post"`; `name="dispatch"` covers the class's request handlers),
    /// SQLAlchemy `session.begin()`/`engine.begin()`, psycopg and asyncpg `conn.transaction()`
    /// (also on a connection a pool hands out, `async with pool.acquire() as c:`), psycopg2's
    /// connection used as a context manager (`with conn:`, which commits when it ends), Peewee
    /// `db.atomic()`, Tortoise ORM `in_transaction()` and `@atomic()`, or a project generator
    /// made a context manager that opens one around its `yield` (`with unit_of_work():`; not
    /// one that commits its own block and then yields, where the caller's block runs after
    /// the commit), or a decorator the project writes around one (`def in_transaction(func):`
    /// whose wrapper calls `func` inside `with transaction.atomic():`, or that returns
    /// `transaction.atomic(func)`).
    /// Anywhere in the project, not only in tasks; effects reached through project helpers are
    /// reported at the call in the transaction.
    ///
    /// ## Why it matters on a second run
    /// The network call holds the transaction, its row locks and its connection open for as
    /// long as the provider takes. And if the transaction rolls back afterwards — a constraint,
    /// a deadlock, a worker killed before the commit — the effect has already happened: the
    /// retry charges again for an order the database never recorded as paid.
    ///
    /// ## Example
    /// ```python
    /// with transaction.atomic():
    ///     order = Order.objects.select_for_update().get(pk=order_id)
    ///     send_mail("Paid", "...", None, [order.email])
    ///     order.status = "paid"
    ///     order.save(update_fields=["status"])
    /// ```
    ///
    /// ## Use instead
    /// ```python
    /// with transaction.atomic():
    ///     order = Order.objects.select_for_update().get(pk=order_id)
    ///     order.status = "paid"
    ///     order.save(update_fields=["status"])
    ///     transaction.on_commit(lambda: send_mail("Paid", "...", None, [order.email]))
    /// ```
    pub const RULE = {
        code: "TW301",
        name: "effect-inside-transaction",
        group: "transactions",
        severity: Warning,
        summary: "An effect runs inside a database transaction",
        fixable: false,
    };
}

pub fn check_project(checker: &mut Checker) {
    if !checker.enabled(&RULE) {
        return;
    }
    let project = checker.project;
    let lang = checker.lang;
    for (id, function) in project.functions_with_transactions() {
        for (index, event) in function.events().iter().enumerate() {
            if !matches!(event.kind, EventKind::Call(_)) || function.is_deferred(event.block) {
                continue;
            }
            let Some(&tx) = project.transactions_around(id, event.block).last() else {
                continue;
            };
            let Some(reached) = project.effects_at(id, index).into_iter().next() else {
                continue;
            };
            let effect = project.effect(&reached);
            let trace = project.trace_hops(&reached);
            let range = trace.first().map(|hop| hop.range).unwrap_or_default();
            let message = tr!(
                lang,
                "tw301.message",
                subject = effect_clause(lang, &trace, effect.kind.is(lang)),
                transaction = describe_transaction(project, id, tx, lang),
                done = effect.kind.done(lang)
            );
            let help = if project.transaction_has_on_commit(id, tx) {
                tr!(lang, "tw301.help")
            } else {
                tr!(lang, "tw301.help_after_block")
            };
            let diagnostic = checker.report(&RULE, id.file, range, message, help);
            if trace.len() > 1 {
                diagnostic.trace = trace;
            }
        }
    }
}
