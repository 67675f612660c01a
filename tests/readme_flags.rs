//! Every option `twice check --help` lists is documented in the README, and every output
//! format has its line in the README's table.

use std::collections::BTreeSet;
use std::process::Command;

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README")
}

/// Every `--flag` in a text, and every `-x` short flag at the start of a help line.
fn flags(help: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for word in help.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-')) {
        if let Some(name) = word.strip_prefix("--")
            && name.starts_with(|c: char| c.is_ascii_lowercase())
        {
            found.insert(format!("--{}", name.trim_end_matches('-')));
        }
    }
    for line in help.lines() {
        let line = line.trim_start();
        if let Some(short) = line.split(',').next()
            && short.len() == 2
            && short.starts_with('-')
            && short
                .chars()
                .nth(1)
                .is_some_and(|c| c.is_ascii_alphabetic())
        {
            found.insert(short.to_string());
        }
    }
    found
}

#[test]
fn every_check_option_is_in_the_readme() {
    let out = Command::new(env!("CARGO_BIN_EXE_twice"))
        .args(["check", "--help"])
        .output()
        .expect("run twice check --help");
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    let flags = flags(&help);
    for expected in [
        "--output-format",
        "--baseline",
        "--stdin-filename",
        "-q",
        "-j",
    ] {
        assert!(
            flags.contains(expected),
            "{expected} not found in {flags:?}"
        );
    }
    let readme = readme();
    let missing: Vec<&String> = flags
        .iter()
        .filter(|flag| !readme.contains(&format!("`{flag}")))
        .collect();
    assert!(
        missing.is_empty(),
        "README.md does not document {missing:?} (as `{{flag}}`...)"
    );
}

#[test]
fn every_output_format_is_in_the_readme() {
    use clap::ValueEnum;
    let readme = readme();
    for format in twice::render::OutputFormat::value_variants() {
        let name = format
            .to_possible_value()
            .expect("a visible format")
            .get_name()
            .to_string();
        assert!(
            readme.contains(&format!("| `{name}` |")),
            "README.md's output format table lacks `{name}`"
        );
    }
}
