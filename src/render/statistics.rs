//! `--statistics`: how many diagnostics each rule produced, most first, as ruff prints them.

use std::collections::HashMap;
use std::io::{self, Write};

use serde::Serialize;

use crate::check::Report;
use crate::render::{OutputFormat, RenderOptions, summary, write_json};

#[derive(Serialize)]
struct Statistic<'a> {
    code: &'a str,
    name: &'a str,
    count: usize,
    fixable: usize,
}

fn statistics(report: &Report) -> Vec<Statistic<'_>> {
    let mut by_code: HashMap<&str, Statistic> = HashMap::new();
    for d in &report.diagnostics {
        let entry = by_code.entry(d.code).or_insert(Statistic {
            code: d.code,
            name: d.name,
            count: 0,
            fixable: 0,
        });
        entry.count += 1;
        entry.fixable += usize::from(d.fix.is_some());
    }
    let mut rows: Vec<Statistic> = by_code.into_values().collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.code.cmp(b.code)));
    rows
}

/// A table (`  12  TW302      enqueue-inside-transaction`, `[*]` before the fixable rules) and,
/// for text formats, the summary; a JSON array for `--output-format json`.
pub fn render_statistics(
    out: &mut dyn Write,
    report: &Report,
    format: OutputFormat,
    options: RenderOptions,
) -> io::Result<()> {
    let rows = statistics(report);
    if format == OutputFormat::Json {
        return write_json(out, &rows);
    }
    let count_width = rows
        .iter()
        .map(|row| row.count.to_string().len())
        .max()
        .unwrap_or(0)
        .max(4);
    let code_width = rows.iter().map(|row| row.code.len()).max().unwrap_or(0);
    // Ruff's marks: `[*]` when `--fix` fixes every one, `[-]` when it fixes some; a column of
    // blanks for the others when any is fixable.
    let any_fixable = rows.iter().any(|row| row.fixable > 0);
    for row in &rows {
        let mark = match (row.fixable, any_fixable) {
            (0, false) => "",
            (0, true) => "    ",
            (fixable, _) if fixable == row.count => "[*] ",
            _ => "[-] ",
        };
        writeln!(
            out,
            "{:>count_width$}  {:<code_width$}  {mark}{}",
            row.count, row.code, row.name
        )?;
    }
    if options.summary {
        summary(out, report)?;
    }
    Ok(())
}
