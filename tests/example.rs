//! The bundled example project (`examples/shop`) reports exactly the lines its `# expect:`
//! comments name, for every rule twice implements: the README's first command shows real
//! findings and stays silent on the correct tasks.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use twice::check::check;
use twice::config::{Overrides, Settings, find_config};
use twice::rules::ALL;

fn python_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            python_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "py") {
            out.push(path);
        }
    }
}

#[test]
fn example_reports_its_expected_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shop");
    let implemented: Vec<&str> = ALL.iter().map(|r| r.code).collect();
    let mut files = Vec::new();
    python_files(&root, &mut files);
    let mut want = BTreeSet::new();
    for file in &files {
        let text = std::fs::read_to_string(file).expect("text");
        for (i, line) in text.lines().enumerate() {
            let Some(at) = line.find("# expect:") else {
                continue;
            };
            for code in line[at + "# expect:".len()..].split(',') {
                let code = code.split_whitespace().next().unwrap_or_default();
                if implemented.contains(&code) {
                    want.insert((file.clone(), i + 1, code.to_string()));
                }
            }
        }
    }
    let config = find_config(&root).expect("example config");
    assert!(
        config.is_some(),
        "examples/shop/pyproject.toml has [tool.twice]"
    );
    let settings = Settings::resolve(config, &Overrides::default(), &root).expect("settings");
    let report = check(std::slice::from_ref(&root), &settings, &root, 2);
    let got: BTreeSet<_> = report
        .diagnostics
        .iter()
        .map(|d| {
            let file = &report.files[d.file as usize];
            (
                file.path.clone(),
                file.location(d.range.start()).0,
                d.code.to_string(),
            )
        })
        .collect();
    assert!(
        report.tasks >= 10,
        "the example defines many tasks, found {}",
        report.tasks
    );
    assert_eq!(got, want);
}
