//! Runs every fixture under `resources/test/fixtures/<group>/` (a `.py` file, or a folder
//! analysed as one project) and checks that the diagnostics found are exactly the ones marked
//! with `# error: TW101[, TW102]` on their lines, for every rule twice implements. A snapshot of
//! the rendered output is kept per fixture.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use twice::check::{Report, check};
use twice::config::{Overrides, Settings};
use twice::render::{OutputFormat, render};
use twice::rules::ALL;

/// The fixtures are checked under twice's own allocator, as the binary checks code: syntax
/// trees and the reading of their facts go through the scratch arena, which debug builds
/// overwrite after each file, so a fact that escaped it would change these results.
#[global_allocator]
static GLOBAL: twice::arena::Allocator = twice::arena::Allocator;

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("resources/test/fixtures")
}

fn fixtures() -> Vec<PathBuf> {
    let mut found = Vec::new();
    for group in std::fs::read_dir(fixtures_root()).expect("fixtures folder") {
        let group = group.expect("entry").path();
        if !group.is_dir() {
            continue;
        }
        for entry in std::fs::read_dir(&group).expect("group folder") {
            let path = entry.expect("entry").path();
            if path.is_dir() || path.extension().is_some_and(|e| e == "py") {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn python_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files = Vec::new();
    let mut stack = vec![path.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir") {
            let p = entry.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "py") {
                files.push(p);
            }
        }
    }
    files.sort();
    files
}

/// (file relative to the fixtures root, line, code) for every marker of an implemented rule.
fn expected(path: &Path) -> BTreeSet<(String, usize, String)> {
    let implemented: Vec<&str> = ALL.iter().map(|r| r.code).collect();
    let mut want = BTreeSet::new();
    for file in python_files(path) {
        let text = std::fs::read_to_string(&file).expect("fixture text");
        let rel = relative(&file);
        for (i, line) in text.lines().enumerate() {
            let Some(at) = line.find("# error:") else {
                continue;
            };
            for code in line[at + "# error:".len()..].split(',') {
                let code = code.split_whitespace().next().unwrap_or_default();
                if implemented.contains(&code) {
                    want.insert((rel.clone(), i + 1, code.to_string()));
                }
            }
        }
    }
    want
}

fn relative(path: &Path) -> String {
    path.strip_prefix(fixtures_root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

pub fn run_fixture(path: &Path) -> Report {
    let overrides = Overrides {
        select: Some(vec!["ALL".to_string()]),
        ..Overrides::default()
    };
    let settings = Settings::resolve(None, &overrides, &fixtures_root()).expect("settings");
    check(&[path.to_path_buf()], &settings, &fixtures_root(), 2)
}

fn found(report: &Report) -> BTreeSet<(String, usize, String)> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            let file = &report.files[d.file as usize];
            (
                relative(&file.path),
                file.location(d.range.start()).0,
                d.code.to_string(),
            )
        })
        .collect()
}

#[test]
fn fixtures_report_exactly_their_markers() {
    let mut failures = Vec::new();
    let all = fixtures();
    assert!(
        all.len() >= 10,
        "expected the rule fixtures, found {}",
        all.len()
    );
    for fixture in all {
        let report = run_fixture(&fixture);
        let want = expected(&fixture);
        let got = found(&report);
        for missing in want.difference(&got) {
            failures.push(format!(
                "missing {} at {}:{}",
                missing.2, missing.0, missing.1
            ));
        }
        for extra in got.difference(&want) {
            failures.push(format!("unexpected {} at {}:{}", extra.2, extra.0, extra.1));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn fixtures_render_as_snapshotted() {
    for fixture in fixtures() {
        let report = run_fixture(&fixture);
        let mut out = Vec::new();
        render(&mut out, &report, OutputFormat::Full, false).expect("render");
        let text = String::from_utf8(out).expect("utf-8");
        let name = relative(&fixture).replace(['/', '.'], "_");
        insta::with_settings!({ snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(name, text);
        });
    }
}
