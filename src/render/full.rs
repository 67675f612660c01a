//! Code frames: the reported span underlined, the message, the path a reached effect takes and
//! a `help:` line with the fix.

use std::io::{self, Write};

use annotate_snippets::{AnnotationKind, Group, Level, Renderer, Snippet};
use ruff_text_size::TextRange;

use crate::check::Report;
use crate::diagnostic::{Diagnostic, Severity};
use crate::i18n::tr;
use crate::parse::SourceFile;

pub fn render(out: &mut dyn Write, report: &Report, color: bool) -> io::Result<()> {
    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    for diagnostic in &report.diagnostics {
        // The frame renderer is a dependency: should it fail on some input, that diagnostic is
        // printed in one line and the others still get their frames.
        let framed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            render_one(report, diagnostic, &renderer)
        }));
        let text = framed.unwrap_or_else(|_| {
            let file = &report.files[diagnostic.file as usize];
            let (row, column) = file.location(diagnostic.range.start());
            format!(
                "{}[{}]: {} {}\n  --> {}:{row}:{column}\nhelp: {}",
                diagnostic.severity,
                diagnostic.code,
                diagnostic.message,
                report.lang.text("render.no_frame"),
                file.display,
                diagnostic.help
            )
        });
        writeln!(out, "{text}\n")?;
    }
    Ok(())
}

/// The lines around `range` and the range made relative to them.
fn window(file: &SourceFile, range: TextRange) -> (usize, &str, std::ops::Range<usize>) {
    let (start_row, _) = file.location(range.start());
    let (end_row, _) = file.location(range.end());
    let end_row = end_row.min(start_row + 6);
    let line_start = file.line_index().line_start(
        ruff_source_file::OneIndexed::new(start_row).unwrap_or(ruff_source_file::OneIndexed::MIN),
        file.text(),
    );
    let line_end = file.line_index().line_end(
        ruff_source_file::OneIndexed::new(end_row).unwrap_or(ruff_source_file::OneIndexed::MIN),
        file.text(),
    );
    let text = file
        .text()
        .get(line_start.to_usize()..line_end.to_usize())
        .unwrap_or("");
    let start = range
        .start()
        .to_usize()
        .saturating_sub(line_start.to_usize())
        .min(text.len());
    let end = range
        .end()
        .to_usize()
        .saturating_sub(line_start.to_usize())
        .clamp(start, text.len());
    // An empty span (a file-level problem) still shows one character: a whole one, since the
    // renderer slices the line at these offsets.
    let start = text.floor_char_boundary(start);
    let end = if end == start { start + 1 } else { end };
    let end = text.ceil_char_boundary(end.min(text.len())).max(start);
    (start_row, text, start..end)
}

fn render_one(report: &Report, diagnostic: &Diagnostic, renderer: &Renderer) -> String {
    let file = &report.files[diagnostic.file as usize];
    let level = match diagnostic.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
    };
    let mut groups: Vec<Group> = Vec::new();
    let title = level
        .primary_title(diagnostic.message.as_str())
        .id(diagnostic.code);
    let group = if file.text().is_empty() {
        Group::with_title(title).element(Level::NOTE.message(tr!(
            report.lang,
            "render.in_file",
            file = file.display
        )))
    } else {
        let (line, text, span) = window(file, diagnostic.range);
        title.element(
            Snippet::source(text)
                .line_start(line)
                .path(file.display.as_str())
                .annotation(AnnotationKind::Primary.span(span)),
        )
    };
    let mut group = group;
    if let Some(task) = &diagnostic.task {
        group = group.element(Level::NOTE.message(tr!(report.lang, "render.in_task", task = task)));
    }
    groups.push(group);
    for hop in diagnostic.trace.iter().skip(1) {
        let hop_file = &report.files[hop.file as usize];
        let (line, text, span) = window(hop_file, hop.range);
        groups.push(
            Group::with_title(Level::NOTE.secondary_title(tr!(
                report.lang,
                "render.reached_through",
                label = hop.label
            )))
            .element(
                Snippet::source(text)
                    .line_start(line)
                    .path(hop_file.display.as_str())
                    .annotation(AnnotationKind::Context.span(span)),
            ),
        );
    }
    groups.push(Group::with_title(
        Level::HELP.secondary_title(diagnostic.help.as_str()),
    ));
    renderer.render(&groups)
}

/// A unified diff of what the fixes would change in one file.
pub fn render_fix_diff(display: &str, before: &str, after: &str) -> String {
    let diff = similar::TextDiff::from_lines(before, after);
    diff.unified_diff()
        .context_radius(3)
        .header(&format!("a/{display}"), &format!("b/{display}"))
        .to_string()
}
