//! `twice check`.

use std::collections::{BTreeMap, HashSet};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::baseline::{Baseline, Outcome, baseline_dir, relative_path};
use crate::check::{Report, StdinSource, check_with_stdin, display_path};
use crate::cli::{CheckArgs, ExitStatus};
use crate::config::{Overrides, Settings, find_config, read_config};
use crate::diagnostic::Edit;
use crate::discover::discover;
use crate::registry::{INVALID_SYNTAX, UNREADABLE_FILE};
use crate::render::{RenderOptions, render_fix_diff, render_statistics, render_with};

pub fn run(args: &CheckArgs) -> io::Result<ExitStatus> {
    let cwd = std::env::current_dir()?;
    let stdin_marker = Path::new("-");
    // `--stdin-filename` without paths reads standard input, as in ruff.
    let reads_stdin = args.paths.iter().any(|p| p == stdin_marker)
        || (args.paths.is_empty() && args.stdin_filename.is_some());
    let paths: Vec<PathBuf> = if args.paths.is_empty() && !reads_stdin {
        vec![PathBuf::from(".")]
    } else {
        args.paths
            .iter()
            .filter(|p| p.as_path() != stdin_marker)
            .cloned()
            .collect()
    };
    if reads_stdin && (args.fix || args.diff) {
        return usage_error("`--fix` and `--diff` cannot change standard input; pass a file path");
    }
    if args.stdin_filename.is_some() && !reads_stdin {
        return usage_error(
            "`--stdin-filename` names the source read from `-`; pass `-` as a path",
        );
    }
    let config_start = match (&args.stdin_filename, paths.first()) {
        (Some(name), _) if reads_stdin => name.clone(),
        (_, Some(first)) => first.clone(),
        _ => PathBuf::from("."),
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
        find_config(&config_start).map_err(|e| e.to_string())
    };
    let overrides = Overrides {
        select: args.select.clone(),
        ignore: args.ignore.clone(),
        lang: args.lang,
    };
    let settings = match config
        .and_then(|c| Settings::resolve(c, &overrides, &cwd).map_err(|e| e.to_string()))
    {
        Ok(settings) => settings,
        Err(message) => return usage_error(&message),
    };
    let stdin_path = || {
        args.stdin_filename
            .clone()
            .unwrap_or_else(|| stdin_marker.to_path_buf())
    };
    if args.show_files {
        return show_files(&paths, reads_stdin.then(stdin_path), &settings, &cwd);
    }
    let stdin = if reads_stdin {
        let mut bytes = Vec::new();
        io::stdin().lock().read_to_end(&mut bytes)?;
        match String::from_utf8(bytes) {
            Ok(text) => Some(StdinSource {
                path: stdin_path(),
                text,
            }),
            Err(error) => {
                let at = error.utf8_error().valid_up_to();
                return usage_error(&format!(
                    "standard input is not valid UTF-8 (invalid byte at offset {at})"
                ));
            }
        }
    } else {
        None
    };
    let baseline = match &args.baseline {
        Some(path) => match Baseline::read(path) {
            Ok(baseline) => Some((baseline, baseline_dir(path, &cwd))),
            Err(message) => return usage_error(&message),
        },
        None => None,
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let run_check = || check_with_stdin(&paths, stdin.as_ref(), &settings, &cwd, threads);
    let mut report = run_check();
    let mut stderr = io::stderr().lock();
    for (path, reason) in &report.errors {
        writeln!(stderr, "twice: error: {}: {reason}", path.display())?;
    }
    let io_error = !report.errors.is_empty();
    // Nothing could be checked: the error says so, and "All checks passed!" would not be true.
    if io_error && report.files.is_empty() {
        return Ok(ExitStatus::Error);
    }
    let status = |failed: bool| {
        if io_error {
            ExitStatus::Error
        } else if failed && !args.exit_zero {
            ExitStatus::Failure
        } else {
            ExitStatus::Success
        }
    };

    if let Some(path) = &args.write_baseline {
        let written = Baseline::from_report(&report, &baseline_dir(path, &cwd));
        if let Err(error) = written.write(path) {
            writeln!(
                stderr,
                "twice: error: cannot write the baseline {}: {error}",
                path.display()
            )?;
            return Ok(ExitStatus::Error);
        }
        if !args.quiet {
            let n = written.entries.len();
            writeln!(
                stderr,
                "Wrote {n} baseline {} to {}.",
                if n == 1 { "entry" } else { "entries" },
                path.display()
            )?;
        }
        return Ok(status(false));
    }
    // The baseline filters before fixing: `--fix` fixes only what is reported.
    let apply_baseline = |report: &mut Report| {
        baseline
            .as_ref()
            .map(|(baseline, dir)| {
                fixed_entries(baseline.apply(report, dir), report, dir, &settings)
            })
            .unwrap_or(0)
    };
    let mut fixed_entries_count = apply_baseline(&mut report);

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
        if !args.quiet {
            writeln!(
                stderr,
                "Would fix {fixes} {}.",
                if fixes == 1 { "error" } else { "errors" }
            )?;
        }
        return Ok(status(!diffs.is_empty()));
    }
    if args.fix {
        let fixed = apply_fixes(&report)?;
        if fixed > 0 {
            report = run_check();
            fixed_entries_count = apply_baseline(&mut report);
            if !args.quiet {
                writeln!(
                    stderr,
                    "Fixed {fixed} {}.",
                    if fixed == 1 { "error" } else { "errors" }
                )?;
            }
        }
    }
    if fixed_entries_count > 0 && !args.quiet {
        writeln!(
            stderr,
            "{fixed_entries_count} baseline {} no longer {} (fixed).",
            if fixed_entries_count == 1 {
                "entry"
            } else {
                "entries"
            },
            if fixed_entries_count == 1 {
                "matches"
            } else {
                "match"
            }
        )?;
    }
    drop(stderr);
    let mut out = io::stdout().lock();
    let options = RenderOptions {
        color: args.color.enabled(),
        summary: !args.quiet,
    };
    if args.statistics {
        render_statistics(&mut out, &report, args.output_format, options)?;
    } else {
        render_with(&mut out, &report, args.output_format, options)?;
    }
    out.flush()?;
    let failed = !report.diagnostics.is_empty();
    // The process ends right after this: freeing every file's facts one by one would only add
    // time, so the memory goes back to the system with the process instead.
    std::mem::forget(report);
    Ok(status(failed))
}

fn usage_error(message: &str) -> io::Result<ExitStatus> {
    writeln!(io::stderr(), "twice: error: {message}")?;
    Ok(ExitStatus::Error)
}

/// `--show-files`: the files a check would read, sorted, one per line.
fn show_files(
    paths: &[PathBuf],
    stdin: Option<PathBuf>,
    settings: &Settings,
    cwd: &Path,
) -> io::Result<ExitStatus> {
    let discovered = discover(paths, &settings.exclude, &settings.root);
    let mut shown: Vec<String> = discovered
        .files
        .iter()
        .chain(stdin.as_ref())
        .map(|path| display_path(path, cwd))
        .collect();
    shown.sort();
    shown.dedup();
    let mut out = io::stdout().lock();
    for file in &shown {
        writeln!(out, "{file}")?;
    }
    out.flush()?;
    let mut stderr = io::stderr().lock();
    for (path, reason) in &discovered.errors {
        writeln!(stderr, "twice: error: {}: {reason}", path.display())?;
    }
    Ok(if discovered.errors.is_empty() {
        ExitStatus::Success
    } else {
        ExitStatus::Error
    })
}

/// How many unmatched baseline entries count as fixed: not those of rules this run does not
/// check, nor those of files that exist but were not checked (a run on part of the project).
fn fixed_entries(outcome: Outcome, report: &Report, dir: &Path, settings: &Settings) -> usize {
    let checked: HashSet<String> = report
        .files
        .iter()
        .map(|file| relative_path(&file.path, dir))
        .collect();
    outcome
        .unmatched
        .iter()
        .filter(|entry| {
            let always = entry.code == INVALID_SYNTAX.code || entry.code == UNREADABLE_FILE.code;
            let enabled = always || settings.is_enabled(&entry.code);
            let file_checked = checked.contains(&entry.file) || !dir.join(&entry.file).exists();
            enabled && file_checked
        })
        .count()
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
            // A file changed since it was analysed is not edited: the fixes were computed
            // for the text that was parsed.
            if !source.text_is_current() {
                return None;
            }
            let text = source.text();
            edits.sort_by_key(|e| (e.range.start(), e.range.end()));
            let mut after = String::with_capacity(text.len() + 64);
            let mut last = 0usize;
            for edit in edits {
                let (start, end) = (edit.range.start().to_usize(), edit.range.end().to_usize());
                // Overlapping edits: keep the first, the next run fixes the rest.
                if start < last || end > text.len() {
                    continue;
                }
                after.push_str(text.get(last..start)?);
                after.push_str(&edit.content);
                last = end;
            }
            after.push_str(text.get(last..)?);
            Some((source.display.clone(), text.to_string(), after))
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
