//! GitLab Code Quality: a JSON array of issues that GitLab shows in merge requests.

use std::io::{self, Write};

use serde::Serialize;

use crate::check::Report;
use crate::diagnostic::Severity;
use crate::render::{file_path, fingerprints, span, write_json};

#[derive(Serialize)]
struct Lines {
    begin: usize,
    end: usize,
}

#[derive(Serialize)]
struct Location {
    path: String,
    lines: Lines,
}

#[derive(Serialize)]
struct Issue<'a> {
    description: String,
    check_name: &'a str,
    fingerprint: String,
    severity: &'static str,
    location: Location,
}

pub fn render(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let issues: Vec<Issue> = report
        .diagnostics
        .iter()
        .zip(fingerprints(report))
        .map(|(d, fingerprint)| {
            let ((row, _), (end_row, _)) = span(report, d);
            Issue {
                description: format!("{}\nhelp: {}", d.message, d.help),
                check_name: d.code,
                fingerprint: format!("{:016x}", crate::baseline::stable_hash(&[&fingerprint])),
                severity: match d.severity {
                    Severity::Error => "critical",
                    Severity::Warning => "major",
                },
                location: Location {
                    path: file_path(report, d),
                    lines: Lines {
                        begin: row,
                        end: end_row,
                    },
                },
            }
        })
        .collect();
    write_json(out, &issues)
}
