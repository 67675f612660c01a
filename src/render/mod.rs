//! Output formats. Renderers take a finished [`Report`] and write it; nothing else prints
//! diagnostics.

mod concise;
mod full;
mod github;
mod gitlab;
mod json;
mod junit;
mod pylint;
pub mod review;
mod sarif;
mod statistics;

use std::collections::HashMap;
use std::io::{self, Write};

use clap::ValueEnum;

use crate::baseline::{normalized_line, slashes, stable_hash};
use crate::check::Report;
use crate::diagnostic::Diagnostic;
use crate::i18n::tr;

pub use full::render_fix_diff;
pub use statistics::render_statistics;

/// Where twice's source and documentation live.
pub const HOMEPAGE: &str = "https://github.com/twice-lint/twice";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Code frames with the reported span, the message and a help line.
    Full,
    /// One line per diagnostic: `path:row:col: CODE message`.
    Concise,
    /// A JSON array of diagnostics.
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands: annotations on the pull request.
    Github,
    /// GitLab Code Quality report (JSON).
    Gitlab,
    /// JUnit XML: a failing test case per problem, a passing one per clean file.
    Junit,
    /// `path:row: [CODE] message`, as pylint's parseable format.
    Pylint,
}

impl OutputFormat {
    /// Whether the format is for people, and ends with a summary line.
    pub fn is_text(self) -> bool {
        matches!(self, OutputFormat::Full | OutputFormat::Concise)
    }
}

/// How to render a report.
#[derive(Clone, Copy, Debug)]
pub struct RenderOptions {
    pub color: bool,
    /// End text formats with the summary line (`Found 3 problems ...`).
    pub summary: bool,
}

/// Row and column (one-based, columns in characters) of a diagnostic's start and end.
pub fn span(report: &Report, diagnostic: &Diagnostic) -> ((usize, usize), (usize, usize)) {
    let file = &report.files[diagnostic.file as usize];
    (
        file.location(diagnostic.range.start()),
        file.location(diagnostic.range.end()),
    )
}

/// The documentation of a rule.
pub fn rule_url(code: &str) -> String {
    format!(
        "{HOMEPAGE}/blob/main/docs/rules.md#{}",
        code.to_ascii_lowercase()
    )
}

/// A diagnostic's file as shown, with forward slashes.
pub(crate) fn file_path(report: &Report, diagnostic: &Diagnostic) -> String {
    slashes(&report.files[diagnostic.file as usize].display)
}

/// A stable identity per diagnostic, for SARIF's `partialFingerprints` and GitLab's
/// `fingerprint`: a hash of the code, the file, the reported line's text (trimmed, whitespace
/// collapsed) and the task, never the line number, so that it survives code moving; then `:n`
/// for the n-th diagnostic with the same hash.
pub(crate) fn fingerprints(report: &Report) -> Vec<String> {
    let mut seen: HashMap<u64, usize> = HashMap::new();
    report
        .diagnostics
        .iter()
        .map(|d| {
            let file = &report.files[d.file as usize];
            let (row, _) = file.location(d.range.start());
            let hash = stable_hash(&[
                d.code,
                &slashes(&file.display),
                &normalized_line(file.line_text(row)),
                d.task.as_deref().unwrap_or_default(),
            ]);
            let n = seen.entry(hash).or_default();
            *n += 1;
            format!("{hash:016x}:{n}")
        })
        .collect()
}

/// Pretty JSON and a newline. A closed pipe stays a `BrokenPipe` error (serde_json's I/O
/// errors convert back to the original), which the command line treats as a quiet end.
pub(crate) fn write_json<T: serde::Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    writeln!(out)
}

/// Renders with colours as given and the summary line.
pub fn render(
    out: &mut dyn Write,
    report: &Report,
    format: OutputFormat,
    color: bool,
) -> io::Result<()> {
    render_with(
        out,
        report,
        format,
        RenderOptions {
            color,
            summary: true,
        },
    )
}

pub fn render_with(
    out: &mut dyn Write,
    report: &Report,
    format: OutputFormat,
    options: RenderOptions,
) -> io::Result<()> {
    match format {
        OutputFormat::Full => full::render(out, report, options.color)?,
        OutputFormat::Concise => concise::render(out, report, options.color)?,
        OutputFormat::Json => json::render(out, report)?,
        OutputFormat::Sarif => sarif::render(out, report)?,
        OutputFormat::Github => github::render(out, report)?,
        OutputFormat::Gitlab => gitlab::render(out, report)?,
        OutputFormat::Junit => junit::render(out, report)?,
        OutputFormat::Pylint => pylint::render(out, report)?,
    }
    if format.is_text() && options.summary {
        summary(out, report)?;
    }
    Ok(())
}

pub fn summary(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let lang = report.lang;
    let files: std::collections::BTreeSet<u32> =
        report.diagnostics.iter().map(|d| d.file).collect();
    let tasks = report.tasks;
    let task_word = lang.plural("plural.task", tasks);
    if report.diagnostics.is_empty() {
        writeln!(
            out,
            "{}",
            tr!(
                lang,
                "render.passed",
                tasks = tasks,
                task_word = task_word,
                files = report.files.len(),
                file_word = lang.plural("plural.file", report.files.len())
            )
        )
    } else {
        let n = report.diagnostics.len();
        let fixable = report
            .diagnostics
            .iter()
            .filter(|d| d.fix.is_some())
            .count();
        writeln!(
            out,
            "{}",
            tr!(
                lang,
                "render.found",
                count = n,
                problems = lang.plural("plural.problem", n),
                files = files.len(),
                file_word = lang.plural("plural.file", files.len()),
                tasks = tasks,
                task_word = task_word
            )
        )?;
        if fixable > 0 {
            writeln!(out, "{}", tr!(lang, "render.fixable", count = fixable))?;
        }
        Ok(())
    }
}
