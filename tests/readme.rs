//! The README's rule table lists exactly the rules of the registry, and every rule's
//! documentation has the sections `twice rule` promises.

use twice::rules::ALL;

#[test]
fn readme_rule_table_matches_the_registry() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let rows: Vec<(String, String, String)> = readme
        .lines()
        .filter(|line| line.starts_with("| TW"))
        .map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            (
                cells[1].to_string(),
                cells[2].to_string(),
                cells[3].to_string(),
            )
        })
        .collect();
    let registry: Vec<(String, String, String)> = ALL
        .iter()
        .map(|r| {
            (
                r.code.to_string(),
                r.name.to_string(),
                r.severity.to_string(),
            )
        })
        .collect();
    assert_eq!(rows, registry);
}

#[test]
fn every_rule_is_documented() {
    for rule in ALL {
        assert!(
            rule.doc.contains("## What it does"),
            "{} lacks 'What it does'",
            rule.code
        );
        assert!(
            rule.doc.contains("## Why it matters on a second run"),
            "{} lacks 'Why it matters'",
            rule.code
        );
        if !rule.code.starts_with("TW0") {
            assert!(
                rule.doc.contains("## Example"),
                "{} lacks an example",
                rule.code
            );
            assert!(
                rule.doc.contains("## Use instead"),
                "{} lacks 'Use instead'",
                rule.code
            );
        }
    }
}
