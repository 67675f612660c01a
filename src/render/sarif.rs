//! SARIF 2.1.0: one run, every rule in `tool.driver.rules`, a result per diagnostic with a
//! line-independent fingerprint and the trace as related locations.

use std::io::{self, Write};

use serde_json::{Value, json};

use crate::check::Report;
use crate::diagnostic::Severity;
use crate::i18n::Lang;
use crate::parse::SourceFile;
use crate::render::{HOMEPAGE, fingerprints, rule_url, span, write_json};
use crate::rules::ALL;

const SCHEMA: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The key of twice's fingerprint in `partialFingerprints`; the version changes when the way
/// it is computed does.
pub const FINGERPRINT_KEY: &str = "twice/v1";

pub fn render(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let log = sarif(report);
    write_json(out, &log)
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The first paragraph of a rule's Markdown documentation that is not a heading, on one line.
fn first_paragraph(markdown: &str) -> String {
    markdown
        .split("\n\n")
        .map(|paragraph| {
            paragraph
                .lines()
                .map(str::trim)
                .filter(|line| !line.starts_with('#') && !line.is_empty())
                .collect::<Vec<_>>()
                .join(" ")
        })
        .find(|paragraph| !paragraph.is_empty())
        .unwrap_or_default()
}

/// Every rule, described in the language of the report.
fn rules(lang: Lang) -> Vec<Value> {
    ALL.iter()
        .map(|rule| {
            let markdown = rule.markdown(lang).trim().to_string();
            json!({
                "id": rule.code,
                "name": rule.name,
                "shortDescription": { "text": rule.summary_in(lang) },
                "fullDescription": { "text": first_paragraph(&markdown) },
                "help": { "text": markdown, "markdown": markdown },
                "helpUri": rule_url(rule.code),
                "defaultConfiguration": { "level": level(rule.severity) },
                "properties": { "tags": [rule.group] },
            })
        })
        .collect()
}

/// A URI for a shown path: relative ones against `%SRCROOT%` (the folder twice ran in),
/// absolute ones as `file://` URIs.
fn artifact_location(file: &SourceFile) -> Value {
    let path = crate::baseline::slashes(&file.display);
    if std::path::Path::new(&file.display).is_absolute() {
        let path = if path.starts_with('/') {
            path
        } else {
            format!("/{path}")
        };
        json!({ "uri": format!("file://{}", encode_uri_path(&path)) })
    } else {
        json!({ "uri": encode_uri_path(&path), "uriBaseId": "%SRCROOT%" })
    }
}

/// Percent-encodes everything in a path but unreserved characters, `/` and a drive's `:`
/// (`/C:/src`). A `:` in the first segment of a relative path would read as a URI scheme
/// (`c:d/t.py`), so it is encoded there (RFC 3986, 4.2).
fn encode_uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let first_segment = path.find('/').unwrap_or(path.len());
    for (at, byte) in path.bytes().enumerate() {
        let colon_kept = byte == b':' && (path.starts_with('/') || at > first_segment);
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(char::from(byte));
            }
            b':' if colon_kept => out.push(':'),
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

fn physical_location(file: &SourceFile, start: (usize, usize), end: (usize, usize)) -> Value {
    json!({
        "artifactLocation": artifact_location(file),
        "region": {
            "startLine": start.0,
            "startColumn": start.1,
            "endLine": end.0,
            "endColumn": end.1,
        },
    })
}

fn sarif(report: &Report) -> Value {
    let fingerprints = fingerprints(report);
    let results: Vec<Value> = report
        .diagnostics
        .iter()
        .zip(&fingerprints)
        .map(|(d, fingerprint)| {
            let (start, end) = span(report, d);
            let file = &report.files[d.file as usize];
            let related: Vec<Value> = d
                .trace
                .iter()
                .filter(|hop| !(hop.file == d.file && hop.range == d.range))
                .enumerate()
                .map(|(id, hop)| {
                    let hop_file = &report.files[hop.file as usize];
                    json!({
                        "id": id,
                        "physicalLocation": physical_location(
                            hop_file,
                            hop_file.location(hop.range.start()),
                            hop_file.location(hop.range.end()),
                        ),
                        "message": { "text": format!("reached through `{}`", hop.label) },
                    })
                })
                .collect();
            let mut result = json!({
                "ruleId": d.code,
                "level": level(d.severity),
                "message": { "text": format!("{}\nhelp: {}", d.message, d.help) },
                "locations": [{ "physicalLocation": physical_location(file, start, end) }],
                "partialFingerprints": { FINGERPRINT_KEY: fingerprint },
            });
            if let Some(object) = result.as_object_mut() {
                if let Some(index) = ALL.iter().position(|rule| rule.code == d.code) {
                    object.insert("ruleIndex".into(), json!(index));
                }
                if !related.is_empty() {
                    object.insert("relatedLocations".into(), Value::Array(related));
                }
                if let Some(task) = &d.task {
                    object.insert("properties".into(), json!({ "task": task }));
                }
            }
            result
        })
        .collect();
    json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "twice",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": HOMEPAGE,
                    "rules": rules(report.lang),
                },
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_paragraph_skips_headings() {
        let doc =
            "## What it does\nReports a file that does not parse,\nat each error.\n\n## Why\nMore.";
        assert_eq!(
            first_paragraph(doc),
            "Reports a file that does not parse, at each error."
        );
    }

    #[test]
    fn uri_paths_are_percent_encoded() {
        assert_eq!(encode_uri_path("a b/c#d.py"), "a%20b/c%23d.py");
        assert_eq!(encode_uri_path("zaĸ.py"), "za%C4%B8.py");
        // Not a scheme: a colon in the first segment of a relative path is encoded.
        assert_eq!(encode_uri_path("c:d/t:u.py"), "c%3Ad/t:u.py");
        assert_eq!(encode_uri_path("/C:/src/t.py"), "/C:/src/t.py");
    }
}
