//! A JSON array of diagnostics, one object each; the schema is documented in the README.

use std::io::{self, Write};

use serde::Serialize;

use crate::check::Report;
use crate::diagnostic::Severity;
use crate::render::{rule_url, span, write_json};

#[derive(Serialize)]
struct Location {
    row: usize,
    column: usize,
}

#[derive(Serialize)]
struct JsonEdit {
    content: String,
    location: Location,
    end_location: Location,
}

#[derive(Serialize)]
struct JsonFix {
    applicability: &'static str,
    message: String,
    edits: Vec<JsonEdit>,
}

#[derive(Serialize)]
struct JsonHop {
    name: String,
    filename: String,
    location: Location,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'a str,
    name: &'a str,
    severity: Severity,
    message: &'a str,
    help: &'a str,
    filename: &'a str,
    location: Location,
    end_location: Location,
    task: Option<&'a str>,
    /// `false` when the task makes calls twice could not follow (dynamic dispatch).
    complete: Option<bool>,
    trace: Vec<JsonHop>,
    fix: Option<JsonFix>,
    url: String,
}

pub fn render(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let items: Vec<JsonDiagnostic> = report
        .diagnostics
        .iter()
        .map(|d| {
            let ((row, column), (end_row, end_column)) = span(report, d);
            let file = &report.files[d.file as usize];
            JsonDiagnostic {
                code: d.code,
                name: d.name,
                severity: d.severity,
                message: &d.message,
                help: &d.help,
                filename: &file.display,
                location: Location { row, column },
                end_location: Location {
                    row: end_row,
                    column: end_column,
                },
                task: d.task.as_deref(),
                complete: d.complete,
                trace: d
                    .trace
                    .iter()
                    .map(|hop| {
                        let hop_file = &report.files[hop.file as usize];
                        let (row, column) = hop_file.location(hop.range.start());
                        JsonHop {
                            name: hop.label.clone(),
                            filename: hop_file.display.clone(),
                            location: Location { row, column },
                        }
                    })
                    .collect(),
                fix: d.fix.as_ref().map(|fix| JsonFix {
                    applicability: "safe",
                    message: fix.message.clone(),
                    edits: fix
                        .edits
                        .iter()
                        .map(|edit| {
                            let (row, column) = file.location(edit.range.start());
                            let (end_row, end_column) = file.location(edit.range.end());
                            JsonEdit {
                                content: edit.content.clone(),
                                location: Location { row, column },
                                end_location: Location {
                                    row: end_row,
                                    column: end_column,
                                },
                            }
                        })
                        .collect(),
                }),
                url: rule_url(d.code),
            }
        })
        .collect();
    write_json(out, &items)
}
