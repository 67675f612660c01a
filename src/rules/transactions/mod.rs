//! Transactions and de-duplication: TW301–TW305.
pub mod tw301;
pub mod tw302;
pub mod tw303;
pub mod tw304;
pub mod tw305;

use ruff_text_size::TextRange;

use crate::facts::{BlockKind, EventKind};
use crate::i18n::{Lang, tr};
use crate::project::{FUNCTION_TRANSACTION, FuncId, Project};

/// Functions a task's helpers are followed into, at most (TW304, TW305): a bound on
/// pathological call graphs.
const MAX_HELPERS: usize = 256;

/// Visits the task (`start`) and the project functions `visit` asks to follow, each once and
/// at most [`MAX_HELPERS`]: `visit` gets each function and pushes the callees to follow.
pub(crate) fn walk_helpers<'p>(
    project: &'p Project,
    start: FuncId,
    mut visit: impl FnMut(FuncId, &'p crate::facts::Function, &mut Vec<FuncId>),
) {
    let mut seen: rustc_hash::FxHashSet<FuncId> = Default::default();
    let mut pending = vec![start];
    while let Some(id) = pending.pop() {
        if seen.len() >= MAX_HELPERS || !seen.insert(id) {
            continue;
        }
        if let Some(function) = project.function(id) {
            visit(id, function, &mut pending);
        }
    }
}

/// Where the transaction around a block starts, for messages: "the `with` block on line 12",
/// "`@transaction.atomic` on `cancel_order`".
pub fn describe_transaction(project: &Project, id: FuncId, tx: u32, lang: Lang) -> String {
    let Some(function) = project.function(id) else {
        return tr!(lang, "transaction.unknown");
    };
    if tx == FUNCTION_TRANSACTION {
        let decorator = project
            .transaction_decorator_text(id)
            .unwrap_or_else(|| "@transaction.atomic".to_string());
        return tr!(
            lang,
            "transaction.decorator",
            decorator = decorator,
            function = function.name()
        );
    }
    // A `with` block's line is its context manager's; another block (a session's `begin`
    // found otherwise) is placed by the first event inside it.
    let opened_by = match function.block_kinds(tx).next() {
        Some(BlockKind::With { items }) => items
            .iter()
            .map(|item| item.range)
            .find(|range| !range.is_empty())
            .map(TextRange::start),
        _ => None,
    };
    let offset = opened_by.or_else(|| {
        function
            .events()
            .iter()
            .find(|e| function.block_within(e.block, tx))
            .map(|e| match &e.kind {
                EventKind::Call(call) => call.range.start(),
                EventKind::Guard(guard) => guard.range.start(),
                EventKind::AttrAssign(assign) => assign.range.start(),
            })
    });
    let line = offset.map(|offset| project.files[id.file as usize].location(offset).0);
    match (line, opened_by) {
        (Some(line), Some(_)) => tr!(lang, "transaction.with_block", line = line),
        (Some(line), None) => tr!(lang, "transaction.block", line = line),
        (None, _) => tr!(lang, "transaction.unknown_block"),
    }
}
