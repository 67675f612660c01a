//! `--statistics`, `--show-files`, `--exit-zero`, `--quiet` and standard input (`-` with
//! `--stdin-filename`).

mod common;

use common::{MAILER, UNKEYED, project, stderr, stdout, twice, twice_stdin};

#[test]
fn statistics_count_per_rule_most_first() {
    let two_mailers = MAILER.replace("notify", "notify_again");
    let dir = project(&[
        ("pay.py", UNKEYED),
        ("mail.py", MAILER),
        ("mail2.py", &two_mailers),
    ]);
    let out = twice(dir.path(), &["check", "--statistics"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "   2  TW102  unguarded-effect", "{text}");
    assert_eq!(
        lines[1], "   1  TW101  effect-without-idempotency-key",
        "{text}"
    );
    assert!(
        lines[2].starts_with("Found 3 problems in 3 files"),
        "{text}"
    );
    assert!(!text.contains("-->"), "no diagnostics: {text}");

    let out = twice(dir.path(), &["check", "--statistics", "--quiet"]);
    assert_eq!(stdout(&out).lines().count(), 2, "{}", stdout(&out));

    let out = twice(
        dir.path(),
        &["check", "--statistics", "--output-format", "json"],
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        rows,
        serde_json::json!([
            { "code": "TW102", "name": "unguarded-effect", "count": 2, "fixable": 0 },
            { "code": "TW101", "name": "effect-without-idempotency-key", "count": 1, "fixable": 0 },
        ])
    );

    // Ties are sorted by code.
    let dir = project(&[("pay.py", UNKEYED), ("mail.py", MAILER)]);
    let out = twice(dir.path(), &["check", "--statistics", "--quiet"]);
    assert_eq!(
        stdout(&out),
        "   1  TW101  effect-without-idempotency-key\n   1  TW102  unguarded-effect\n"
    );
}

#[test]
fn statistics_mark_the_rules_fix_can_fix() {
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/shop");
    let out = twice(
        std::path::Path::new(example),
        &["check", "--statistics", "--quiet", "."],
    );
    let text = stdout(&out);
    let row = |code: &str| {
        text.lines()
            .find(|line| line.contains(code))
            .unwrap_or_default()
            .to_string()
    };
    // TW104's full save has a fix; the others are marked by blanks, so the names line up.
    assert!(
        row("TW104").ends_with("TW104  [*] full-save-after-effect"),
        "{text}"
    );
    assert!(
        row("TW101").ends_with("TW101      effect-without-idempotency-key"),
        "{text}"
    );
}

#[test]
fn show_files_lists_what_would_be_checked() {
    let dir = project(&[
        ("pay.py", UNKEYED),
        ("app/b.py", "x = 1\n"),
        ("app/a.py", "x = 1\n"),
        ("app/readme.txt", "not python\n"),
        ("legacy/old.py", "x = 1\n"),
        (".venv/lib/site.py", "x = 1\n"),
        ("build/gen.py", "x = 1\n"),
        ("pyproject.toml", "[tool.twice]\nexclude = [\"legacy\"]\n"),
    ]);
    let out = twice(dir.path(), &["check", "--show-files"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "app/a.py\napp/b.py\npay.py\n");
    let out = twice(dir.path(), &["check", "--show-files", "app"]);
    assert_eq!(stdout(&out), "app/a.py\napp/b.py\n");
    let out = twice(dir.path(), &["check", "--show-files", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("nope"));
}

#[test]
fn exit_zero_ignores_findings_but_not_errors() {
    let dir = project(&[("pay.py", UNKEYED)]);
    let out = twice(dir.path(), &["check", "--exit-zero"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("error[TW101]"), "{}", stdout(&out));
    let out = twice(dir.path(), &["check", "-e", "--output-format", "sarif"]);
    assert_eq!(out.status.code(), Some(0));
    let out = twice(dir.path(), &["check", "--exit-zero", "missing.py"]);
    assert_eq!(out.status.code(), Some(2));
    let out = twice(dir.path(), &["check", "--exit-zero", "--select", "TW999"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn quiet_prints_diagnostics_only() {
    let dir = project(&[("pay.py", UNKEYED)]);
    let out = twice(
        dir.path(),
        &["check", "--quiet", "--output-format", "concise"],
    );
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("pay.py:7:5: TW101 "), "{text}");
    let out = twice(dir.path(), &["check", "-q"]);
    assert!(stdout(&out).contains("error[TW101]"));
    assert!(!stdout(&out).contains("Found "), "{}", stdout(&out));

    let clean = project(&[("ok.py", "x = 1\n")]);
    let out = twice(clean.path(), &["check", "--quiet"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
}

#[test]
fn standard_input_is_checked_under_its_given_name() {
    let dir = project(&[]);
    let out = twice_stdin(
        dir.path(),
        &[
            "check",
            "-",
            "--stdin-filename",
            "orders/tasks.py",
            "--output-format",
            "concise",
        ],
        UNKEYED,
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.starts_with("orders/tasks.py:7:5: TW101 "), "{text}");

    // Without a name the file is `-`; `--stdin-filename` alone reads standard input too.
    let out = twice_stdin(
        dir.path(),
        &["check", "-", "--output-format", "concise"],
        UNKEYED,
    );
    assert!(
        stdout(&out).starts_with("-:7:5: TW101 "),
        "{}",
        stdout(&out)
    );
    let out = twice_stdin(
        dir.path(),
        &[
            "check",
            "--stdin-filename",
            "pay.py",
            "--output-format",
            "json",
        ],
        UNKEYED,
    );
    let items: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(items[0]["filename"], "pay.py");
    assert_eq!(items[0]["task"], "pay.charge");

    let out = twice_stdin(dir.path(), &["check", "-"], "x = 1\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn standard_input_uses_the_configuration_of_its_name() {
    let dir = project(&[
        (
            "pyproject.toml",
            "[tool.twice]\nper-file-ignores = { \"legacy/*\" = [\"TW1\"] }\n",
        ),
        ("legacy/.keep", ""),
    ]);
    let args = |name: &'static str| ["check", "-", "--stdin-filename", name, "--quiet"];
    let out = twice_stdin(dir.path(), &args("legacy/pay.py"), UNKEYED);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let out = twice_stdin(dir.path(), &args("pay.py"), UNKEYED);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn negated_per_file_ignores_apply_to_the_other_files() {
    let dir = project(&[
        (
            "pyproject.toml",
            "[tool.twice]\nper-file-ignores = { \"!billing/*\" = [\"TW1\"] }\n",
        ),
        ("billing/.keep", ""),
    ]);
    let args = |name: &'static str| ["check", "-", "--stdin-filename", name, "--quiet"];
    // Outside `billing/`: ignored.
    let out = twice_stdin(dir.path(), &args("scripts/pay.py"), UNKEYED);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    // Inside: reported.
    let out = twice_stdin(dir.path(), &args("billing/pay.py"), UNKEYED);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
}

#[test]
fn standard_input_replaces_the_file_on_disk() {
    let dir = project(&[("pay.py", "x = 1\n"), ("other.py", MAILER)]);
    let out = twice_stdin(
        dir.path(),
        &[
            "check",
            ".",
            "-",
            "--stdin-filename",
            "pay.py",
            "--output-format",
            "concise",
            "--quiet",
        ],
        UNKEYED,
    );
    let text = stdout(&out);
    assert_eq!(text.matches("pay.py:7:5: TW101").count(), 1, "{text}");
    assert!(text.contains("other.py:7:5: TW102"), "{text}");
}

#[test]
fn standard_input_cannot_be_fixed_or_misnamed() {
    let dir = project(&[("pay.py", UNKEYED)]);
    let out = twice_stdin(dir.path(), &["check", "-", "--fix"], UNKEYED);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--fix"), "{}", stderr(&out));
    let out = twice_stdin(
        dir.path(),
        &["check", "pay.py", "--stdin-filename", "x.py"],
        UNKEYED,
    );
    assert_eq!(out.status.code(), Some(2));
    let out = twice_stdin(dir.path(), &["check", "-"], "x = '\u{e9}'\n");
    assert_eq!(out.status.code(), Some(0));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_twice"))
        .args(["check", "-"])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().expect("stdin");
        stdin.write_all(b"x = '\xe9'\n").expect("write");
    }
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("UTF-8"), "{}", stderr(&out));
}

/// The codes a concise report lists, sorted.
fn reported_codes(out: &std::process::Output) -> Vec<String> {
    let mut codes: Vec<String> = stdout(out)
        .lines()
        .filter_map(|line| line.split_whitespace().nth(1).map(str::to_string))
        .filter(|code| code.starts_with("TW"))
        .collect();
    codes.sort();
    codes
}

#[test]
fn extend_select_adds_to_the_configured_selection() {
    let dir = project(&[
        ("pay.py", UNKEYED),
        ("mail.py", MAILER),
        ("twice.toml", "select = [\"TW102\"]\n"),
    ]);
    let codes = |args: &[&str]| reported_codes(&twice(dir.path(), args));
    let concise = ["check", "--output-format", "concise", "--quiet"];
    assert_eq!(codes(&concise), ["TW102"]);
    let extended = [&concise[..], &["--extend-select", "TW101"]].concat();
    assert_eq!(codes(&extended), ["TW101", "TW102"]);
    // On top of `--select` too, and `--ignore` still wins over a less specific selector.
    let both = [
        &concise[..],
        &["--select", "TW101", "--extend-select", "TW1"],
    ]
    .concat();
    assert_eq!(codes(&both), ["TW101", "TW102"]);
    let ignored = [&extended[..], &["--ignore", "TW101"]].concat();
    assert_eq!(codes(&ignored), ["TW102"]);

    let out = twice(dir.path(), &["check", "--extend-select", "TW9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown rule selector `TW9`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn extend_select_in_the_configuration_adds_to_its_select() {
    let codes = |config: &str| {
        let dir = project(&[
            ("pay.py", UNKEYED),
            ("mail.py", MAILER),
            ("twice.toml", config),
        ]);
        reported_codes(&twice(
            dir.path(),
            &["check", "--output-format", "concise", "--quiet"],
        ))
    };
    assert_eq!(
        codes("select = [\"TW102\"]\nextend-select = [\"TW101\"]\n"),
        ["TW101", "TW102"]
    );
    // The layer's `ignore` still wins over a less specific `extend-select`.
    assert_eq!(
        codes("select = [\"TW102\"]\nextend-select = [\"TW1\"]\nignore = [\"TW101\"]\n"),
        ["TW102"]
    );
    let dir = project(&[
        ("pay.py", UNKEYED),
        ("twice.toml", "extend-select = [\"TW9\"]\n"),
    ]);
    let out = twice(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("`extend-select`: unknown rule selector `TW9`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn output_file_takes_the_report_and_creates_its_folder() {
    let dir = project(&[("pay.py", UNKEYED)]);
    let out = twice(
        dir.path(),
        &[
            "check",
            "--output-format",
            "json",
            "-o",
            "reports/twice.json",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(stdout(&out), "", "nothing on standard output");
    let written =
        std::fs::read_to_string(dir.path().join("reports/twice.json")).expect("the report");
    let rows: serde_json::Value = serde_json::from_str(&written).expect("JSON");
    assert_eq!(rows[0]["code"], "TW101", "{written}");

    // Full output in a file has no colour codes unless asked for.
    let out = twice(dir.path(), &["check", "--output-file", "twice.txt"]);
    assert_eq!(out.status.code(), Some(1));
    let text = std::fs::read_to_string(dir.path().join("twice.txt")).expect("the report");
    assert!(text.contains("TW101") && !text.contains('\u{1b}'), "{text}");

    // Nothing to write there with these: a usage error, not a silently empty file.
    for other in ["--diff", "--show-files"] {
        let out = twice(dir.path(), &["check", "-o", "unused.txt", other]);
        assert_eq!(out.status.code(), Some(2), "{other}");
        assert!(!dir.path().join("unused.txt").exists());
    }

    // A path that cannot be a file: exit 2 and say why.
    let out = twice(dir.path(), &["check", "-o", "pay.py/report.json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot write pay.py/report.json"),
        "{}",
        stderr(&out)
    );
}
