//! JUnit XML: one test suite; a failing test case per diagnostic (named by its code and
//! position, its class the file's path) and a passing one per file without diagnostics, so
//! that the counts add up and each case holds at most one `<failure>`. CI systems show these
//! next to the test results.

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::baseline::slashes;
use crate::check::Report;
use crate::diagnostic::Diagnostic;
use crate::i18n::tr;
use crate::render::span;

pub fn render(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let mut by_file: BTreeMap<u32, Vec<&Diagnostic>> = BTreeMap::new();
    for d in &report.diagnostics {
        by_file.entry(d.file).or_default().push(d);
    }
    let failures = report.diagnostics.len();
    let clean = (0..report.files.len())
        .filter(|&i| u32::try_from(i).map_or(true, |i| !by_file.contains_key(&i)))
        .count();
    let tests = failures + clean;
    writeln!(out, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        out,
        r#"<testsuites name="twice" tests="{tests}" failures="{failures}" errors="0">"#
    )?;
    writeln!(
        out,
        r#"  <testsuite name="twice" tests="{tests}" failures="{failures}" errors="0" skipped="0">"#
    )?;
    let mut order: Vec<usize> = (0..report.files.len()).collect();
    order.sort_by(|&a, &b| report.files[a].display.cmp(&report.files[b].display));
    for index in order {
        let path = escape(&slashes(&report.files[index].display));
        let diagnostics = u32::try_from(index)
            .ok()
            .and_then(|i| by_file.get(&i))
            .map(Vec::as_slice)
            .unwrap_or_default();
        if diagnostics.is_empty() {
            writeln!(out, r#"    <testcase name="{path}" classname="{path}"/>"#)?;
            continue;
        }
        for d in diagnostics {
            let ((row, column), _) = span(report, d);
            writeln!(
                out,
                r#"    <testcase name="{} {row}:{column}" classname="{path}">"#,
                d.code
            )?;
            let mut body = format!(
                "{}:{row}:{column}: {} {}",
                escape_text(&slashes(&report.files[index].display)),
                d.code,
                escape_text(&d.message)
            );
            if let Some(task) = &d.task {
                body.push('\n');
                body.push_str(&tr!(
                    report.lang,
                    "render.in_task",
                    task = escape_text(task)
                ));
            }
            body.push_str(&format!("\nhelp: {}", escape_text(&d.help)));
            writeln!(
                out,
                r#"      <failure message="{}" type="{}">{body}</failure>"#,
                escape(&d.message),
                d.code
            )?;
            writeln!(out, "    </testcase>")?;
        }
    }
    writeln!(out, "  </testsuite>")?;
    writeln!(out, "</testsuites>")
}

/// Escapes text for element content: markup characters only; characters XML 1.0 cannot hold
/// become U+FFFD.
pub fn escape_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' | '\t' => out.push(c),
            c if is_invalid_xml(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

fn is_invalid_xml(c: char) -> bool {
    (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}'
}

/// Escapes text for attribute values (quotes and line breaks too); characters XML 1.0 cannot
/// hold become U+FFFD.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if is_invalid_xml(c) => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>\n\u{1}"),
            "a&lt;b &amp; &quot;c&quot; &apos;d&apos;&gt;&#10;\u{fffd}"
        );
        assert_eq!(
            escape_text("a<b & \"c\"\n\u{1}"),
            "a&lt;b &amp; \"c\"\n\u{fffd}"
        );
    }
}
