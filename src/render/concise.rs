//! `path:row:col: CODE message`, one line per diagnostic.

use std::io::{self, Write};

use crate::check::Report;
use crate::render::span;

pub fn render(out: &mut dyn Write, report: &Report, color: bool) -> io::Result<()> {
    for diagnostic in &report.diagnostics {
        let ((row, column), _) = span(report, diagnostic);
        let file = &report.files[diagnostic.file as usize].display;
        let fix = if diagnostic.fix.is_some() { "[*] " } else { "" };
        if color {
            writeln!(
                out,
                "\x1b[1m{file}\x1b[0m\x1b[36m:\x1b[0m{row}\x1b[36m:\x1b[0m{column}\x1b[36m:\x1b[0m \x1b[1;31m{}\x1b[0m {fix}{}",
                diagnostic.code, diagnostic.message
            )?;
        } else {
            writeln!(
                out,
                "{file}:{row}:{column}: {} {fix}{}",
                diagnostic.code, diagnostic.message
            )?;
        }
    }
    Ok(())
}
