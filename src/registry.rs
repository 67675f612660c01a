//! The rule table: codes, names, groups, severities; selection by code, prefix and name.

use crate::rules::{ALL, RuleMeta, declare_rule};

declare_rule! {
    /// ## What it does
    /// Reports a file that does not parse, at each error the recovering parser finds. Like
    /// ruff's syntax errors it is always reported: no selector, `noqa` or `per-file-ignores`
    /// hides it; `exclude` leaves a deliberately broken file out.
    ///
    /// ## Why it matters on a second run
    /// twice cannot say what a task does on a second run when it cannot read the task. The rest
    /// of the file is still analysed as far as the parser recovered.
    pub const INVALID_SYNTAX = {
        code: "TW001",
        name: "invalid-syntax",
        group: "files",
        severity: Error,
        summary: "The file does not parse",
        fixable: false,
    };
}

declare_rule! {
    /// ## What it does
    /// Reports a file that cannot be read or is not UTF-8. It is always reported: no selector,
    /// `noqa` or `per-file-ignores` hides it; `exclude` leaves the file out.
    ///
    /// ## Why it matters on a second run
    /// The tasks in it are not checked. Other files are.
    pub const UNREADABLE_FILE = {
        code: "TW002",
        name: "unreadable-file",
        group: "files",
        severity: Error,
        summary: "The file cannot be read or is not UTF-8",
        fixable: false,
    };
}

/// The rule with this code or name.
pub fn find(code_or_name: &str) -> Option<&'static RuleMeta> {
    ALL.iter()
        .copied()
        .find(|rule| rule.code.eq_ignore_ascii_case(code_or_name) || rule.name == code_or_name)
}

/// Whether a selector (`ALL`, a code, a prefix such as `TW1`, a name) names any rule.
pub fn selector_is_valid(selector: &str) -> bool {
    ALL.iter().any(|rule| selector_matches(selector, rule))
}

/// Whether `selector` selects `rule`; the second value is its specificity (longer wins).
pub fn selector_matches(selector: &str, rule: &RuleMeta) -> bool {
    // An empty selector names nothing (`--select ''` is a mistake, not `ALL`).
    if selector.is_empty() {
        return false;
    }
    selector.eq_ignore_ascii_case("ALL")
        || rule.name == selector
        || rule
            .code
            .to_ascii_uppercase()
            .starts_with(&selector.to_ascii_uppercase())
}

/// How specific a selector is: ruff's rule that a more specific selector wins.
pub fn specificity(selector: &str) -> usize {
    if selector.eq_ignore_ascii_case("ALL") {
        0
    } else if selector.starts_with("TW") || selector.starts_with("tw") {
        selector.len()
    } else {
        100
    }
}
