//! `path:row: [CODE] message`: pylint's parseable format, as ruff writes it; editors and CI
//! tools that read pylint read this.

use std::io::{self, Write};

use crate::check::Report;
use crate::render::{file_path, span};

pub fn render(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    for d in &report.diagnostics {
        let ((row, _), _) = span(report, d);
        writeln!(
            out,
            "{}:{row}: [{}] {}",
            file_path(report, d),
            d.code,
            d.message
        )?;
    }
    Ok(())
}
