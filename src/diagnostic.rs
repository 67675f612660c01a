//! Diagnostics as rules emit them, and the fixes they carry.

use std::fmt;

use ruff_text_size::TextRange;
use serde::Serialize;

use crate::project::TraceHop;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: TextRange,
    pub content: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub message: String,
    pub edits: Vec<Edit>,
}

#[derive(Clone, Debug)]
pub struct Diagnostic {
    pub code: &'static str,
    pub name: &'static str,
    pub severity: Severity,
    pub message: String,
    pub help: String,
    /// Index of the file in the checked set.
    pub file: u32,
    pub range: TextRange,
    /// The task's qualified name, when the diagnostic concerns one.
    pub task: Option<String>,
    /// For a task's diagnostic: whether twice could follow every call the task makes
    /// (`false` when it met dynamic dispatch, so other hazards may hide there).
    pub complete: Option<bool>,
    pub trace: Vec<TraceHop>,
    pub fix: Option<Fix>,
}
