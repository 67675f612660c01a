//! Output formats. Renderers take a finished [`Report`] and write it; nothing else prints
//! diagnostics.

mod concise;
mod full;
mod json;
pub mod review;

use std::io::{self, Write};

use clap::ValueEnum;

use crate::check::Report;
use crate::diagnostic::Diagnostic;

pub use full::render_fix_diff;

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Code frames with the reported span, the message and a help line.
    Full,
    /// One line per diagnostic: `path:row:col: CODE message`.
    Concise,
    /// A JSON array of diagnostics.
    Json,
}

/// Row and column (one-based, columns in characters) of a diagnostic's start and end.
pub fn span(report: &Report, diagnostic: &Diagnostic) -> ((usize, usize), (usize, usize)) {
    let file = &report.files[diagnostic.file as usize];
    (
        file.location(diagnostic.range.start()),
        file.location(diagnostic.range.end()),
    )
}

pub fn render(
    out: &mut dyn Write,
    report: &Report,
    format: OutputFormat,
    color: bool,
) -> io::Result<()> {
    match format {
        OutputFormat::Full => full::render(out, report, color)?,
        OutputFormat::Concise => concise::render(out, report, color)?,
        OutputFormat::Json => return json::render(out, report),
    }
    summary(out, report)
}

fn summary(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let files: std::collections::BTreeSet<u32> =
        report.diagnostics.iter().map(|d| d.file).collect();
    let tasks = report.tasks;
    let task_word = if tasks == 1 { "task" } else { "tasks" };
    if report.diagnostics.is_empty() {
        writeln!(
            out,
            "All checks passed! ({tasks} {task_word} checked in {} files)",
            report.files.len()
        )
    } else {
        let n = report.diagnostics.len();
        let problems = if n == 1 { "problem" } else { "problems" };
        let file_word = if files.len() == 1 { "file" } else { "files" };
        let fixable = report
            .diagnostics
            .iter()
            .filter(|d| d.fix.is_some())
            .count();
        writeln!(
            out,
            "Found {n} {problems} in {} {file_word} ({tasks} {task_word} checked)",
            files.len()
        )?;
        if fixable > 0 {
            writeln!(out, "[*] {fixable} fixable with the `--fix` option.")?;
        }
        Ok(())
    }
}
