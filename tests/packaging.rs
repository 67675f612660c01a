//! The Python packaging: the root pyproject.toml builds the `twice` binary with maturin and
//! holds no `[tool.twice]` (twice would read it as configuration), and the pre-commit hook
//! runs `twice check` on the staged Python files.

use std::path::Path;

fn read(name: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name)).expect(name)
}

#[test]
fn pyproject_builds_the_binary_with_maturin() {
    let pyproject: toml::Table = toml::from_str(&read("pyproject.toml")).expect("valid TOML");
    assert_eq!(
        pyproject["build-system"]["build-backend"].as_str(),
        Some("maturin")
    );
    let project = &pyproject["project"];
    assert_eq!(project["name"].as_str(), Some("twice-lint"));
    assert_eq!(project["requires-python"].as_str(), Some(">=3.9"));
    let version_is_dynamic = project
        .get("dynamic")
        .and_then(|d| d.as_array())
        .is_some_and(|d| d.iter().any(|v| v.as_str() == Some("version")));
    let version_matches =
        project.get("version").and_then(|v| v.as_str()) == Some(env!("CARGO_PKG_VERSION"));
    assert!(
        version_is_dynamic || version_matches,
        "version: dynamic or Cargo's"
    );
    assert_eq!(
        pyproject["tool"]["maturin"]["bindings"].as_str(),
        Some("bin")
    );
}

#[test]
fn pyproject_does_not_configure_twice() {
    let pyproject: toml::Table = toml::from_str(&read("pyproject.toml")).expect("valid TOML");
    assert!(
        pyproject.get("tool").and_then(|t| t.get("twice")).is_none(),
        "the root pyproject.toml must not have [tool.twice]"
    );
    // And twice agrees: no configuration found at the root.
    let found = twice::config::find_config(Path::new(env!("CARGO_MANIFEST_DIR")))
        .expect("readable configuration");
    assert!(
        found
            .as_ref()
            .is_none_or(|c| !c.path.starts_with(env!("CARGO_MANIFEST_DIR"))),
        "{:?}",
        found.map(|c| c.path)
    );
}

#[test]
fn pre_commit_hook_checks_python_files() {
    let hooks = read(".pre-commit-hooks.yaml");
    for line in [
        "- id: twice",
        "entry: twice check",
        "language: python",
        "types: [python]",
        "pass_filenames: true",
        "require_serial: true",
    ] {
        assert!(
            hooks.lines().any(|l| l.trim() == line),
            "{line} missing from .pre-commit-hooks.yaml"
        );
    }
    assert!(hooks.contains("name: "));
}

#[test]
fn wheel_script_builds_installs_and_runs() {
    let script = read("scripts/test-wheel.sh");
    assert!(script.contains("maturin build --release"));
    assert!(script.contains("--version"));
    assert!(script.contains("check examples/shop"));
}
