//! `twice check`.

use std::collections::{BTreeMap, HashSet};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::baseline::{Baseline, Outcome, baseline_dir, relative_path};
use crate::check::{Report, StdinSource, check_with_stdin, display_path};
use crate::cli::{CheckArgs, ColorChoice, ExitStatus};
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
        extend_select: args.extend_select.clone(),
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
        let fixed = fixed_texts(&report);
        let mut out = io::BufWriter::new(io::stdout().lock());
        for (display, before, after) in &fixed.files {
            write!(out, "{}", render_fix_diff(display, before, after))?;
        }
        out.flush()?;
        warn_changed(&mut stderr, &fixed.changed)?;
        if !args.quiet {
            let fixes = fixed.applied;
            writeln!(
                stderr,
                "Would fix {fixes} {}.",
                if fixes == 1 { "error" } else { "errors" }
            )?;
        }
        return Ok(status(!fixed.files.is_empty()));
    }
    if args.fix {
        let outcome = apply_fixes(&report)?;
        warn_changed(&mut stderr, &outcome.changed)?;
        let fixed = outcome.applied;
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
    if !args.quiet {
        warn_invalid_noqa(&mut stderr, &report)?;
    }
    let (mut out, color): (Box<dyn Write>, bool) = match &args.output_file {
        Some(path) => match create_output_file(path) {
            Ok(file) => (
                Box::new(io::BufWriter::new(file)),
                args.color == ColorChoice::Always,
            ),
            Err(error) => {
                writeln!(
                    stderr,
                    "twice: error: cannot write {}: {error}",
                    path.display()
                )?;
                return Ok(ExitStatus::Error);
            }
        },
        // Standard output flushes at every line break: the report is written at once, so
        // it is buffered whole (the JSON of the corpus run was 2,647 writes).
        None => (
            Box::new(io::BufWriter::new(io::stdout().lock())),
            args.color.enabled(),
        ),
    };
    drop(stderr);
    let options = RenderOptions {
        color,
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

/// `--output-file`: created with its folders, as in ruff.
fn create_output_file(path: &Path) -> io::Result<std::fs::File> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::File::create(path)
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
    let mut out = io::BufWriter::new(io::stdout().lock());
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

/// The fixes of a run, applied to the texts that were analysed.
#[derive(Debug, Default)]
struct FixedTexts {
    /// Per file with fixes: (display path, text before, text after).
    files: Vec<(String, String, String)>,
    /// How many diagnostics had every edit of their fix applied.
    applied: usize,
    /// Files with fixes that changed since they were analysed: the fixes were computed for the
    /// parsed text, so these are left alone.
    changed: Vec<String>,
}

/// Applies each diagnostic's fix whole or not at all: a fix whose edits overlap an earlier fix's
/// is left for the next run, as in ruff.
fn fixed_texts(report: &Report) -> FixedTexts {
    let mut by_file: BTreeMap<u32, Vec<&[Edit]>> = BTreeMap::new();
    for diagnostic in &report.diagnostics {
        if let Some(fix) = &diagnostic.fix {
            by_file.entry(diagnostic.file).or_default().push(&fix.edits);
        }
    }
    let mut fixed = FixedTexts::default();
    for (file, mut fixes) in by_file {
        let Some(source) = report.files.get(file as usize) else {
            continue;
        };
        if !source.is_unchanged_on_disk() || !source.text_is_current() {
            fixed.changed.push(source.display.clone());
            continue;
        }
        let text = source.text();
        fixes.sort_by_key(|edits| edits.iter().map(|e| (e.range.start(), e.range.end())).min());
        let mut applied: Vec<&Edit> = Vec::new();
        let mut last: Option<usize> = None;
        for edits in fixes {
            // The same fix reached by two diagnostics fixes both; it is applied once.
            if !edits.is_empty() && edits.iter().all(|edit| applied.contains(&edit)) {
                fixed.applied += 1;
                continue;
            }
            let mut own: Vec<&Edit> = edits.iter().collect();
            own.sort_by_key(|e| (e.range.start(), e.range.end()));
            let mut end = last;
            let fits = !own.is_empty()
                && own.iter().enumerate().all(|(i, edit)| {
                    let (start, stop) =
                        (edit.range.start().to_usize(), edit.range.end().to_usize());
                    // A fix that starts where an earlier fix ended may still clash with it (two
                    // insertions at one place): it is left for the next run, as in ruff.
                    let clear = match end {
                        Some(end) if i == 0 => start > end,
                        Some(end) => start >= end,
                        None => true,
                    };
                    end = Some(stop);
                    clear && text.is_char_boundary(start) && text.is_char_boundary(stop)
                });
            if fits {
                last = end;
                applied.extend(own);
                fixed.applied += 1;
            }
        }
        if applied.is_empty() {
            continue;
        }
        let mut after = String::with_capacity(text.len() + 64);
        let mut last = 0usize;
        for edit in applied {
            let (start, end) = (edit.range.start().to_usize(), edit.range.end().to_usize());
            after.push_str(&text[last..start]);
            after.push_str(&edit.content);
            last = end;
        }
        after.push_str(&text[last..]);
        fixed
            .files
            .push((source.display.clone(), text.to_string(), after));
    }
    fixed
}

/// Writes the fixed files (each through a temporary file renamed over it); returns how many
/// diagnostics were fixed and the files left alone because they changed.
fn apply_fixes(report: &Report) -> io::Result<FixedTexts> {
    let fixed = fixed_texts(report);
    for (display, _, after) in &fixed.files {
        let Some(file) = report.files.iter().find(|f| &f.display == display) else {
            continue;
        };
        write_atomically(&file.path, after)?;
    }
    Ok(fixed)
}

/// A comment that looks like a `noqa` directive but is not one silences nothing: said, as ruff
/// says it, so that nobody relies on it.
fn warn_invalid_noqa(stderr: &mut impl Write, report: &Report) -> io::Result<()> {
    for file in &report.files {
        for (line, error) in file.invalid_noqa() {
            writeln!(
                stderr,
                "twice: warning: {}:{line}: not a `noqa` directive, it silences nothing: {error}",
                file.display
            )?;
        }
        for (line, code) in file.unknown_noqa_codes() {
            let line = if line == crate::parse::FILE_NOQA_LINE {
                String::new()
            } else {
                format!("{line}:")
            };
            writeln!(
                stderr,
                "twice: warning: {}:{line} `noqa` names `{code}`, which is no twice rule: it \
                 silences nothing (`twice rule --all` lists the codes)",
                file.display
            )?;
        }
    }
    Ok(())
}

fn warn_changed(stderr: &mut impl Write, changed: &[String]) -> io::Result<()> {
    for display in changed {
        writeln!(
            stderr,
            "twice: warning: {display}: changed while it was being checked; not fixed (run again)"
        )?;
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Overrides, Settings};

    /// A task whose `save()` TW104 fixes by adding `update_fields`.
    const SAVES: &str = "import requests\nfrom celery import shared_task\nfrom shop.models import Order\n\n\n@shared_task\ndef push(order_id):\n    order = Order.objects.get(pk=order_id)\n    requests.post(\"https://x\", headers={\"Idempotency-Key\": f\"o-{order_id}\"})\n    order.pushed = True\n    order.save()\n";

    fn checked(code: &str) -> (tempfile::TempDir, Report) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("tasks.py"), code).expect("write");
        let settings =
            Settings::resolve(None, &Overrides::default(), dir.path()).expect("settings");
        let report = crate::check::check(&[dir.path().to_path_buf()], &settings, dir.path(), 1);
        assert_eq!(
            report
                .diagnostics
                .iter()
                .filter(|d| d.fix.is_some())
                .count(),
            1,
            "{:?}",
            report.diagnostics
        );
        (dir, report)
    }

    #[test]
    fn a_file_changed_after_the_check_is_named_and_not_counted_as_fixed() {
        let (dir, report) = checked(SAVES);
        std::fs::write(dir.path().join("tasks.py"), "x = 1\n").expect("write");
        let fixed = fixed_texts(&report);
        assert!(fixed.files.is_empty());
        assert_eq!(fixed.applied, 0);
        assert_eq!(fixed.changed.len(), 1);
        assert!(
            fixed.changed[0].ends_with("tasks.py"),
            "{:?}",
            fixed.changed
        );
    }

    #[test]
    fn the_same_fix_twice_is_applied_once_and_an_overlapping_one_not_at_all() {
        let (_dir, mut report) = checked(SAVES);
        let fix = |report: &Report| {
            report
                .diagnostics
                .iter()
                .find(|d| d.fix.is_some())
                .cloned()
                .expect("a fix")
        };
        let twin = fix(&report);
        report.diagnostics.push(twin);
        let fixed = fixed_texts(&report);
        assert!(fixed.changed.is_empty());
        assert_eq!(fixed.applied, 2, "one edit fixes both");
        let (_, before, after) = &fixed.files[0];
        assert_eq!(after.matches("update_fields").count(), 1, "{after}");
        assert_eq!(
            after.len() - before.len(),
            "update_fields=[\"pushed\"]".len()
        );

        let mut rival = fix(&report);
        if let Some(fix) = &mut rival.fix {
            fix.edits[0].content = "update_fields=[\"other\"]".to_string();
        }
        report.diagnostics.push(rival);
        let fixed = fixed_texts(&report);
        assert_eq!(fixed.applied, 2, "the rival edit is left for the next run");
        let (_, _, after) = &fixed.files[0];
        assert!(!after.contains("other"), "{after}");
    }
}
