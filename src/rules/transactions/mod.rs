//! Transactions and de-duplication: TW301–TW305.
pub mod tw301;
pub mod tw302;
pub mod tw303;
pub mod tw304;
pub mod tw305;

use crate::i18n::{Lang, tr};
use crate::project::{FUNCTION_TRANSACTION, FuncId, Project};

/// Where the transaction around a block starts, for messages: "the `with` block on line 12",
/// "`@transaction.atomic` on `cancel_order`".
pub fn describe_transaction(project: &Project, id: FuncId, tx: u32, lang: Lang) -> String {
    let Some(function) = project.function(id) else {
        return tr!(lang, "transaction.unknown");
    };
    if tx == FUNCTION_TRANSACTION {
        return tr!(lang, "transaction.decorator", function = function.name);
    }
    // The first event inside the block tells the line; the block itself has no range.
    let line = function
        .events()
        .iter()
        .find(|e| function.block_within(e.block, tx))
        .map(|e| match &e.kind {
            crate::facts::EventKind::Call(call) => call.range.start(),
            crate::facts::EventKind::Guard(guard) => guard.range.start(),
            crate::facts::EventKind::AttrAssign(assign) => assign.range.start(),
        })
        .map(|offset| project.files[id.file as usize].location(offset).0);
    match line {
        Some(line) => tr!(lang, "transaction.block", line = line),
        None => tr!(lang, "transaction.unknown_block"),
    }
}
