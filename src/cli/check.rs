//! `twice check`.

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::check::{Report, check};
use crate::cli::{CheckArgs, ExitStatus};
use crate::config::{Overrides, Settings, find_config, read_config};
use crate::diagnostic::Edit;
use crate::render::{render, render_fix_diff};

pub fn run(args: &CheckArgs) -> io::Result<ExitStatus> {
    let cwd = std::env::current_dir()?;
    let paths: Vec<PathBuf> = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let config = if args.isolated {
        Ok(None)
    } else if let Some(path) = &args.config {
        match read_config(path) {
            Ok(Some(config)) => Ok(Some(config)),
            Ok(None) => Err(format!("{} has no [tool.twice] table", path.display())),
            Err(error) => Err(error.to_string()),
        }
    } else {
        find_config(&paths[0]).map_err(|e| e.to_string())
    };
    let overrides = Overrides {
        select: args.select.clone(),
        ignore: args.ignore.clone(),
    };
    let settings = match config
        .and_then(|c| Settings::resolve(c, &overrides, &cwd).map_err(|e| e.to_string()))
    {
        Ok(settings) => settings,
        Err(message) => {
            writeln!(io::stderr(), "twice: error: {message}")?;
            return Ok(ExitStatus::Error);
        }
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let mut report = check(&paths, &settings, &cwd, threads);
    let mut stderr = io::stderr().lock();
    for (path, reason) in &report.errors {
        writeln!(stderr, "twice: error: {}: {reason}", path.display())?;
    }
    let io_error = !report.errors.is_empty();

    if args.diff {
        let diffs = fixed_texts(&report);
        let mut out = io::stdout().lock();
        for (display, before, after) in &diffs {
            write!(out, "{}", render_fix_diff(display, before, after))?;
        }
        let fixes: usize = report
            .diagnostics
            .iter()
            .filter(|d| d.fix.is_some())
            .count();
        writeln!(
            stderr,
            "Would fix {fixes} {}.",
            if fixes == 1 { "error" } else { "errors" }
        )?;
        return Ok(if io_error {
            ExitStatus::Error
        } else if diffs.is_empty() {
            ExitStatus::Success
        } else {
            ExitStatus::Failure
        });
    }
    if args.fix {
        let fixed = apply_fixes(&report)?;
        if fixed > 0 {
            report = check(&paths, &settings, &cwd, threads);
            writeln!(
                stderr,
                "Fixed {fixed} {}.",
                if fixed == 1 { "error" } else { "errors" }
            )?;
        }
    }
    drop(stderr);
    let mut out = io::stdout().lock();
    render(&mut out, &report, args.output_format, args.color.enabled())?;
    out.flush()?;
    Ok(if io_error {
        ExitStatus::Error
    } else if report.diagnostics.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    })
}

/// Per file with fixes: (display path, text before, text after).
fn fixed_texts(report: &Report) -> Vec<(String, String, String)> {
    let mut edits: BTreeMap<u32, Vec<&Edit>> = BTreeMap::new();
    for diagnostic in &report.diagnostics {
        if let Some(fix) = &diagnostic.fix {
            edits.entry(diagnostic.file).or_default().extend(&fix.edits);
        }
    }
    edits
        .into_iter()
        .filter_map(|(file, mut edits)| {
            let source = &report.files[file as usize];
            edits.sort_by_key(|e| (e.range.start(), e.range.end()));
            let mut after = String::with_capacity(source.text.len() + 64);
            let mut last = 0usize;
            for edit in edits {
                let (start, end) = (edit.range.start().to_usize(), edit.range.end().to_usize());
                // Overlapping edits: keep the first, the next run fixes the rest.
                if start < last || end > source.text.len() {
                    continue;
                }
                after.push_str(source.text.get(last..start)?);
                after.push_str(&edit.content);
                last = end;
            }
            after.push_str(source.text.get(last..)?);
            Some((source.display.clone(), source.text.clone(), after))
        })
        .collect()
}

/// Writes the fixed files (each through a temporary file renamed over it); returns how many
/// diagnostics were fixed.
fn apply_fixes(report: &Report) -> io::Result<usize> {
    let fixed_files = fixed_texts(report);
    for (display, _, after) in &fixed_files {
        let Some(file) = report.files.iter().find(|f| &f.display == display) else {
            continue;
        };
        write_atomically(&file.path, after)?;
    }
    Ok(report
        .diagnostics
        .iter()
        .filter(|d| d.fix.is_some())
        .count())
}

fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = dir.join(format!(".{name}.twice-fix"));
    std::fs::write(&temp, text)?;
    if let Ok(metadata) = std::fs::metadata(path) {
        std::fs::set_permissions(&temp, metadata.permissions())?;
    }
    std::fs::rename(&temp, path)
}
