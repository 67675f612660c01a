//! `twice review`.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::check::analyse;
use crate::cli::{ExitStatus, ReviewArgs};
use crate::config::{Overrides, Settings, find_config, read_config};
use crate::render::review::{render_review_in, summary_line_in};
use crate::review::{review_in, summarize};

pub fn run(args: &ReviewArgs) -> io::Result<ExitStatus> {
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
        lang: args.lang,
        ..Overrides::default()
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
    let changed = match &args.changed_since {
        Some(revision) => match changed_files(&cwd, revision) {
            Ok(files) => Some(files),
            Err(message) => {
                writeln!(io::stderr(), "twice: error: {message}")?;
                return Ok(ExitStatus::Error);
            }
        },
        None => None,
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
        .max(1);
    let lang = settings.lang;
    let (report, mut reviews) = analyse(&paths, None, &settings, &cwd, threads, |p, d| {
        review_in(p, d, lang)
    });
    for (path, reason) in &report.errors {
        writeln!(io::stderr(), "twice: error: {}: {reason}", path.display())?;
    }
    // Nothing could be read: the error says so, and "0 tasks" would not be true (as `check`).
    if !report.errors.is_empty() && report.files.is_empty() {
        return Ok(ExitStatus::Error);
    }
    if let Some(changed) = &changed {
        reviews.retain(|r| {
            r.files
                .iter()
                .any(|f| std::path::absolute(f).is_ok_and(|f| changed.contains(&f)))
        });
    }
    let mut out = io::BufWriter::new(io::stdout().lock());
    render_review_in(&mut out, &reviews, args.format, args.color.enabled(), lang)?;
    out.flush()?;
    if args.format == crate::render::review::ReviewFormat::Markdown {
        writeln!(
            io::stderr(),
            "{}",
            summary_line_in(&summarize(&reviews), lang)
        )?;
    }
    Ok(if !report.errors.is_empty() {
        ExitStatus::Error
    } else if reviews
        .iter()
        .any(|r| r.verdict != crate::review::Verdict::Safe)
    {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// Absolute paths of the files changed since `revision`, committed or not (and new files).
fn changed_files(cwd: &Path, revision: &str) -> Result<BTreeSet<PathBuf>, String> {
    let git = |args: &[&str]| -> Result<String, String> {
        let output = Command::new("git")
            .args(args)
            .current_dir(cwd)
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !output.status.success() {
            return Err(format!(
                "git {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    };
    let top = PathBuf::from(git(&["rev-parse", "--show-toplevel"])?.trim());
    let mut files = BTreeSet::new();
    for list in [
        git(&["diff", "--name-only", revision, "--"])?,
        git(&["ls-files", "--others", "--exclude-standard"])?,
    ] {
        for line in list.lines().filter(|l| !l.is_empty()) {
            let path = top.join(line);
            files.insert(std::path::absolute(&path).unwrap_or(path));
        }
    }
    Ok(files)
}
