//! GitHub Actions workflow commands: `::error file=...,line=...::message`, one per diagnostic,
//! which GitHub shows as annotations on the pull request.

use std::io::{self, Write};

use crate::check::Report;
use crate::diagnostic::Severity;
use crate::i18n::tr;
use crate::render::{file_path, span};

pub fn render(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    for d in &report.diagnostics {
        let ((row, column), (end_row, end_column)) = span(report, d);
        let command = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let title = format!("{} ({})", d.code, d.name);
        let mut message = d.message.clone();
        if let Some(task) = &d.task {
            message.push('\n');
            message.push_str(&tr!(report.lang, "render.in_task", task = task));
        }
        message.push_str(&format!("\nhelp: {}", d.help));
        writeln!(
            out,
            "::{command} file={},line={row},col={column},endLine={end_row},endColumn={end_column},title={}::{}",
            escape_property(&file_path(report, d)),
            escape_property(&title),
            escape_data(&message),
        )?;
    }
    Ok(())
}

/// A command's message: `%`, `\r` and `\n` are percent-encoded.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A command's property value: as data, and `:` and `,` too.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_follow_github() {
        assert_eq!(
            escape_data("50% off\r\nnow: a,b"),
            "50%25 off%0D%0Anow: a,b"
        );
        assert_eq!(escape_property("a:b,c%\n"), "a%3Ab%2Cc%25%0A");
    }
}
