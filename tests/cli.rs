//! The `twice` binary: exit codes, output formats, configuration errors, noqa, selection and
//! the `rule` command.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn twice(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twice"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run twice")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

const UNKEYED: &str = "import stripe\nfrom celery import shared_task\n\n\n@shared_task\ndef charge(order_id):\n    stripe.PaymentIntent.create(amount=100, currency=\"eur\")\n";

const MAILER: &str = "from celery import shared_task\nfrom django.core.mail import send_mail\n\n\n@shared_task\ndef notify(user_id):\n    send_mail(\"Hi\", \"body\", None, [\"a@example.com\"])\n";

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    dir
}

#[test]
fn exit_status_follows_ruff() {
    let clean = project(&[("ok.py", "def f():\n    return 1\n")]);
    let out = twice(clean.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("All checks passed!"));

    let dirty = project(&[("tasks.py", UNKEYED)]);
    let out = twice(dirty.path(), &["check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("Found 1 problem in 1 file (1 task checked)"),
        "{}",
        stdout(&out)
    );

    let out = twice(dirty.path(), &["check", "does-not-exist"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("does-not-exist"), "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("All checks passed"),
        "{}",
        stdout(&out)
    );

    let out = twice(dirty.path(), &["check", "--output-format", "yaml"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn concise_and_json_formats() {
    let dir = project(&[("tasks.py", UNKEYED)]);
    let out = twice(dir.path(), &["check", "--output-format", "concise"]);
    assert!(
        stdout(&out).starts_with("tasks.py:7:5: TW101 "),
        "{}",
        stdout(&out)
    );

    let out = twice(dir.path(), &["check", "--output-format", "json"]);
    let items: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let item = &items[0];
    assert_eq!(item["code"], "TW101");
    assert_eq!(item["name"], "effect-without-idempotency-key");
    assert_eq!(item["severity"], "error");
    assert_eq!(item["filename"], "tasks.py");
    assert_eq!(item["location"]["row"], 7);
    assert_eq!(item["location"]["column"], 5);
    assert_eq!(item["end_location"]["row"], 7);
    assert_eq!(item["task"], "tasks.charge");
    assert!(item["trace"].as_array().is_some_and(Vec::is_empty));
    assert!(item["fix"].is_null());
    assert!(
        item["help"]
            .as_str()
            .is_some_and(|h| h.contains("idempotency_key"))
    );
}

#[test]
fn full_format_has_a_frame_and_help() {
    let dir = project(&[("tasks.py", UNKEYED)]);
    let out = twice(dir.path(), &["check"]);
    let text = stdout(&out);
    assert!(text.contains("error[TW101]"), "{text}");
    assert!(text.contains("--> tasks.py:7:5"), "{text}");
    assert!(text.contains("^^^^"), "{text}");
    assert!(text.contains("help: pass `idempotency_key="), "{text}");
    assert!(
        !text.contains('\u{1b}'),
        "no colours with --color auto off a terminal"
    );
    let out = twice(dir.path(), &["check", "--color", "always"]);
    assert!(stdout(&out).contains('\u{1b}'));
}

#[test]
fn noqa_silences_the_reported_line() {
    let coded = UNKEYED.replace("currency=\"eur\")", "currency=\"eur\")  # noqa: TW101");
    let bare = UNKEYED.replace("currency=\"eur\")", "currency=\"eur\")  # noqa");
    let other = UNKEYED.replace("currency=\"eur\")", "currency=\"eur\")  # noqa: TW102");
    let dir = project(&[
        ("coded.py", &coded),
        ("bare.py", &bare),
        ("other.py", &other),
    ]);
    let out = twice(dir.path(), &["check", "--output-format", "concise"]);
    let text = stdout(&out);
    assert!(!text.contains("coded.py"), "{text}");
    assert!(!text.contains("bare.py"), "{text}");
    assert!(text.contains("other.py:7:5: TW101"), "{text}");
}

#[test]
fn noqa_at_the_end_of_a_continued_line_silences_its_start() {
    // A backslash line cannot hold a comment: the `noqa` goes where the statement ends.
    let continued = UNKEYED.replace(
        "amount=100, currency=\"eur\")",
        "amount=100, \\\n        currency=\"eur\")  # noqa: TW101",
    );
    // So does one of a string across lines.
    let string = MAILER.replace(
        "send_mail(\"Hi\", \"body\", None, [\"a@example.com\"])",
        "send_mail(\"\"\"Hi\nthere\"\"\", \"body\", None, [\"a@example.com\"])  # noqa: TW102",
    );
    let fstring = MAILER.replace(
        "send_mail(\"Hi\", \"body\", None, [\"a@example.com\"])",
        "send_mail(f\"\"\"Hi {user_id}\nthere\"\"\", \"body\", None, [\"a@example.com\"])  # noqa: TW102",
    );
    // Another code at the end silences nothing, and a string after the call ends is not its.
    let other = continued.replace("# noqa: TW101", "# noqa: TW102");
    let after = MAILER.replace(
        "[\"a@example.com\"])\n",
        "[\"a@example.com\"])\n    note = \"\"\"sent\nonce\"\"\"  # noqa: TW102\n",
    );
    let dir = project(&[
        ("continued.py", &continued),
        ("string.py", &string),
        ("fstring.py", &fstring),
        ("other.py", &other),
        ("after.py", &after),
    ]);
    let out = twice(dir.path(), &["check", "--output-format", "concise"]);
    let text = stdout(&out);
    assert!(!text.contains("continued.py"), "{text}");
    assert!(!text.contains("string.py:"), "{text}");
    assert!(!text.contains("fstring.py"), "{text}");
    assert!(text.contains("other.py:7:5: TW101"), "{text}");
    assert!(text.contains("after.py:7:5: TW102"), "{text}");
}

#[test]
fn broken_noqa_comments_silence_nothing_and_are_warned_about() {
    let empty = UNKEYED.replace("currency=\"eur\")", "currency=\"eur\")  # noqa:");
    let suffix = UNKEYED.replace("currency=\"eur\")", "currency=\"eur\")  # noqanope");
    let named = UNKEYED.replace(
        "currency=\"eur\")",
        "currency=\"eur\")  # noqa: effect-without-idempotency-key",
    );
    let unknown = UNKEYED.replace(
        "currency=\"eur\")",
        "currency=\"eur\")  # noqa: TW999, E501",
    );
    let dir = project(&[
        ("empty.py", &empty),
        ("suffix.py", &suffix),
        ("named.py", &named),
        ("unknown.py", &unknown),
    ]);
    let out = twice(dir.path(), &["check", "--output-format", "concise"]);
    let text = stdout(&out);
    assert!(text.contains("empty.py:7:5: TW101"), "{text}");
    assert!(text.contains("suffix.py:7:5: TW101"), "{text}");
    assert!(!text.contains("named.py"), "{text}");
    let warnings = stderr(&out);
    assert!(
        warnings.contains("twice: warning: empty.py:7: not a `noqa` directive"),
        "{warnings}"
    );
    assert!(warnings.contains("suffix.py:7:"), "{warnings}");
    // A code of twice's form that no rule has; another tool's code (`E501`) is not ours.
    assert!(
        warnings.contains("unknown.py:7: `noqa` names `TW999`, which is no twice rule"),
        "{warnings}"
    );
    assert!(text.contains("unknown.py:7:5: TW101"), "{text}");
    assert_eq!(warnings.lines().count(), 3, "{warnings}");
    // `--quiet` prints the problems only.
    let out = twice(dir.path(), &["check", "--quiet"]);
    assert_eq!(stderr(&out), "");
}

#[test]
fn twice_noqa_comment_silences_the_whole_file() {
    let all = format!("# twice: noqa\n{UNKEYED}");
    let coded = format!("{UNKEYED}# twice: noqa: TW101\n");
    let other = format!("# twice: noqa: TW102\n{UNKEYED}");
    let dir = project(&[("all.py", &all), ("coded.py", &coded), ("other.py", &other)]);
    let out = twice(dir.path(), &["check", "--output-format", "concise"]);
    let text = stdout(&out);
    assert!(!text.contains("all.py"), "{text}");
    assert!(!text.contains("coded.py"), "{text}");
    assert!(text.contains("other.py:8:5: TW101"), "{text}");
}

/// The codes `twice check --output-format json ARGS` reports in `dir`, sorted.
fn reported_codes(dir: &Path, args: &[&str]) -> Vec<String> {
    let mut all = vec!["check", "--output-format", "json"];
    all.extend_from_slice(args);
    let out = twice(dir, &all);
    let items: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let mut codes: Vec<String> = items
        .as_array()
        .expect("array")
        .iter()
        .map(|i| i["code"].as_str().unwrap_or_default().to_string())
        .collect();
    codes.sort();
    codes
}

#[test]
fn select_and_ignore_take_codes_prefixes_and_names() {
    let dir = project(&[("pay.py", UNKEYED), ("mail.py", MAILER)]);
    let codes = |args: &[&str]| reported_codes(dir.path(), args);
    assert_eq!(codes(&[]), ["TW101", "TW102"]);
    assert_eq!(codes(&["--select", "TW101"]), ["TW101"]);
    assert_eq!(codes(&["--select", "unguarded-effect"]), ["TW102"]);
    assert_eq!(
        codes(&["--select", "ALL", "--ignore", "TW10"]),
        Vec::<String>::new()
    );
    assert_eq!(codes(&["--select", "TW101", "--ignore", "TW1"]), ["TW101"]);
    let out = twice(dir.path(), &["check", "--select", "TW999"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("TW999"));
}

#[test]
fn command_line_selection_layers_over_the_configuration_as_in_ruff() {
    let dir = project(&[
        ("pay.py", UNKEYED),
        ("mail.py", MAILER),
        (
            "pyproject.toml",
            "[tool.twice]\nselect = [\"TW1\"]\nignore = [\"TW101\"]\n",
        ),
    ]);
    let codes = |args: &[&str]| reported_codes(dir.path(), args);
    assert_eq!(codes(&[]), ["TW102"]);
    // `--select` starts again: the configured `ignore` no longer applies.
    assert_eq!(codes(&["--select", "TW101"]), ["TW101"]);
    assert_eq!(codes(&["--select", "ALL"]), ["TW101", "TW102"]);
    // `--extend-select` and `--ignore` adjust the configured set.
    assert_eq!(codes(&["--extend-select", "TW101"]), ["TW101", "TW102"]);
    assert_eq!(codes(&["--ignore", "TW102"]), Vec::<String>::new());
    assert_eq!(
        codes(&["--extend-select", "TW1", "--ignore", "TW102"]),
        ["TW101"]
    );
}

#[test]
fn configuration_is_read_and_validated() {
    let dir = project(&[
        ("tasks.py", UNKEYED),
        ("pyproject.toml", "[tool.twice]\nignore = [\"TW101\"]\n"),
    ]);
    let out = twice(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let out = twice(dir.path(), &["check", "--isolated"]);
    assert_eq!(out.status.code(), Some(1));

    // twice.toml wins over pyproject.toml in the same folder.
    std::fs::write(dir.path().join("twice.toml"), "select = [\"TW1\"]\n").expect("write");
    let out = twice(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(1));

    let bad = project(&[
        ("tasks.py", UNKEYED),
        ("pyproject.toml", "[tool.twice]\nselct = [\"TW1\"]\n"),
    ]);
    let out = twice(bad.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("pyproject.toml") && err.contains("selct"),
        "{err}"
    );

    let wrong_type = project(&[("pyproject.toml", "[tool.twice]\nheuristics = \"yes\"\n")]);
    let out = twice(wrong_type.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 2, column 14: `heuristics`: invalid type"),
        "{}",
        stderr(&out)
    );

    // A misspelt field of an effect's key table is named, not "no variant matched".
    let misspelt_key = project(&[(
        "pyproject.toml",
        "[tool.twice.effects]\n\"a.b\" = { kind = \"payment\", key = { heder = \"X\" } }\n",
    )]);
    let out = twice(misspelt_key.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("unknown field `heder`") && !stderr(&out).contains("variant"),
        "{}",
        stderr(&out)
    );

    // Entries that could never match are errors, not silently ignored.
    for (config, expected) in [
        (
            "[tool.twice.effects]\n\"dispatch\" = { kind = \"message\" }\n",
            "`dispatch` is not a qualified name",
        ),
        (
            "[tool.twice.effects]\n\"pushkit.Client.dispatch\" = { kind = \"message\", key = {} }\n",
            "names no place",
        ),
        (
            "[tool.twice.effects]\n\"pushkit.Client.dispatch\" = { kind = \"message\", key = \"\" }\n",
            "not a keyword argument's name",
        ),
        (
            "[tool.twice]\ntask-decorators = [\"instrumented_task\"]\n",
            "`instrumented_task` is not a qualified name",
        ),
    ] {
        let dir = project(&[("tasks.py", UNKEYED), ("pyproject.toml", config)]);
        let out = twice(dir.path(), &["check"]);
        assert_eq!(out.status.code(), Some(2), "{config}");
        assert!(stderr(&out).contains(expected), "{}", stderr(&out));
    }
    // Patterns as the catalog writes them are qualified names.
    let patterns = project(&[
        ("tasks.py", UNKEYED),
        (
            "pyproject.toml",
            "[tool.twice.effects]\n\"boto3.**.client(sqs).send_message\" = { kind = \"publish\" }\n",
        ),
    ]);
    let out = twice(patterns.path(), &["check"]);
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));

    // A syntax error says where; other tools' tables are not read.
    let broken = project(&[(
        "pyproject.toml",
        "[tool.black]\nline-length = \"long\"\n[tool.twice]\nselect = [\"TW1\"\nignore = []\n",
    )]);
    let out = twice(broken.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("line 5, column 1: "),
        "{}",
        stderr(&out)
    );
    let other_tools = project(&[
        ("tasks.py", UNKEYED),
        (
            "pyproject.toml",
            "[tool.black]\nline-length = \"long\"\n[tool.twice]\nignore = [\"TW101\"]\n",
        ),
    ]);
    let out = twice(other_tools.path(), &["check"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let custom = project(&[
        ("tasks.py", UNKEYED),
        ("conf/strict.toml", "ignore = [\"TW1\"]\n"),
    ]);
    let out = twice(custom.path(), &["check", "--config", "conf/strict.toml"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn user_effects_and_per_file_ignores_from_config() {
    let code = "from celery import shared_task\nfrom ledgerkit import Ledger\n\nledger = Ledger()\n\n\n@shared_task\ndef post(entry_id):\n    ledger.post_transfer(amount=1)\n";
    let config = "[tool.twice]\nper-file-ignores = { \"legacy/*\" = [\"TW1\"] }\n\n[tool.twice.effects]\n\"ledgerkit.Ledger.post_transfer\" = { kind = \"payment\", key = \"external_ref\" }\n";
    let dir = project(&[
        ("tasks.py", code),
        ("legacy/old.py", code),
        ("pyproject.toml", config),
    ]);
    let out = twice(dir.path(), &["check", "--output-format", "concise"]);
    let text = stdout(&out);
    assert!(text.contains("tasks.py:9:5: TW101"), "{text}");
    assert!(!text.contains("legacy"), "{text}");
    assert!(
        text.contains("`external_ref=")
            || stdout(&twice(dir.path(), &["check"])).contains("external_ref")
    );
}

#[test]
fn syntax_errors_and_unreadable_files_do_not_stop_the_check() {
    let dir = project(&[("broken.py", "def f(:\n    pass\n"), ("tasks.py", UNKEYED)]);
    std::fs::write(dir.path().join("latin1.py"), b"x = '\xe9'\n").expect("write");
    let out = twice(dir.path(), &["check", "--output-format", "concise"]);
    let text = stdout(&out);
    assert!(text.contains("broken.py:1:7: TW001 syntax error"), "{text}");
    assert!(text.contains("latin1.py:1:1: TW002"), "{text}");
    assert!(text.contains("tasks.py:7:5: TW101"), "{text}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn fix_and_diff_apply_update_fields() {
    let code = "import requests\nfrom celery import shared_task\nfrom shop.models import Order\n\n\n@shared_task\ndef push(order_id):\n    order = Order.objects.get(pk=order_id)\n    requests.post(\"https://x\", headers={\"Idempotency-Key\": f\"o-{order_id}\"})\n    order.pushed = True\n    order.save()\n";
    let dir = project(&[("tasks.py", code)]);
    let out = twice(dir.path(), &["check", "--diff"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("+    order.save(update_fields=[\"pushed\"])"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("tasks.py")).expect("read"),
        code,
        "--diff changes nothing"
    );

    let out = twice(dir.path(), &["check", "--fix"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stderr(&out).contains("Fixed 1 error."));
    let fixed = std::fs::read_to_string(dir.path().join("tasks.py")).expect("read");
    assert!(
        fixed.contains("order.save(update_fields=[\"pushed\"])"),
        "{fixed}"
    );
}

#[test]
fn fix_keeps_a_multi_line_call_multi_line() {
    let head = "import requests\nfrom celery import shared_task\nfrom shop.models import Order\n\n\n@shared_task\ndef push(order_id):\n    order = Order.objects.get(pk=order_id)\n    requests.post(\"https://x\", headers={\"Idempotency-Key\": f\"o-{order_id}\"})\n    order.pushed = True\n";
    for (save, fixed) in [
        (
            "    order.save(\n        using=\"default\",\n    )\n",
            "    order.save(\n        using=\"default\",\n        update_fields=[\"pushed\"],\n    )\n",
        ),
        (
            "    order.save(\n        using=\"default\"\n    )\n",
            "    order.save(\n        using=\"default\",\n        update_fields=[\"pushed\"],\n    )\n",
        ),
    ] {
        let dir = project(&[("tasks.py", &format!("{head}{save}"))]);
        let out = twice(dir.path(), &["check", "--fix"]);
        assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
        let text = std::fs::read_to_string(dir.path().join("tasks.py")).expect("read");
        assert_eq!(text, format!("{head}{fixed}"));
    }
}

#[test]
fn rule_command_prints_documentation() {
    let dir = project(&[]);
    let out = twice(dir.path(), &["rule", "TW101"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.contains("# effect-without-idempotency-key (TW101)"),
        "{text}"
    );
    assert!(text.contains("## Why it matters on a second run"));
    let out = twice(dir.path(), &["rule", "unguarded-effect"]);
    assert!(stdout(&out).contains("(TW102)"));
    let out = twice(dir.path(), &["rule", "--all"]);
    assert!(stdout(&out).lines().any(|l| l.starts_with("TW502")));
    // The summaries line up: each starts in the same column, whatever the severity.
    let columns: std::collections::BTreeSet<usize> = stdout(&out)
        .lines()
        .skip(1)
        .filter_map(|l| {
            let summary = l.split("error ").nth(1).or(l.split("warning ").nth(1))?;
            Some(l.len() - summary.trim_start().len())
        })
        .collect();
    assert_eq!(columns.len(), 1, "{}", stdout(&out));
    let out = twice(dir.path(), &["rule", "TW999"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn broken_pipe_exits_quietly() {
    let many: String = (0..400).map(|i| format!("\n@shared_task\ndef charge_{i}(order_id):\n    stripe.PaymentIntent.create(amount=100)\n")).collect();
    let code = format!("import stripe\nfrom celery import shared_task\n{many}");
    let dir = project(&[("tasks.py", &code)]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_twice"))
        .args(["check"])
        .current_dir(dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    // Close the read end at once: twice's writes fail with EPIPE.
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn json_marks_tasks_with_calls_twice_cannot_follow() {
    let code = "import stripe\nfrom celery import shared_task\n\nHANDLERS = {}\n\n\n@shared_task\ndef dynamic(kind, order_id):\n    HANDLERS[kind](order_id)\n    stripe.Charge.create(amount=1)\n\n\n@shared_task\ndef plain(order_id):\n    stripe.Charge.create(amount=1)\n";
    let dir = project(&[("tasks.py", code)]);
    let out = twice(dir.path(), &["check", "--output-format", "json"]);
    let items: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let complete = |task: &str| {
        items
            .as_array()
            .expect("array")
            .iter()
            .find(|i| i["task"] == task)
            .map(|i| i["complete"].clone())
    };
    assert_eq!(
        complete("tasks.dynamic"),
        Some(serde_json::Value::Bool(false))
    );
    assert_eq!(complete("tasks.plain"), Some(serde_json::Value::Bool(true)));
}

#[test]
fn relative_config_paths_and_bare_file_names_find_the_configuration() {
    let config = "[tool.twice]\nexclude = [\"legacy/**\"]\nper-file-ignores = { \"scripts/*\" = [\"TW1\"] }\nignore = [\"TW502\"]\n";
    let dir = project(&[
        ("pyproject.toml", config),
        ("app/tasks.py", UNKEYED),
        ("legacy/old.py", UNKEYED),
        ("scripts/run.py", UNKEYED),
    ]);
    // `--config` given relative to the current folder keeps its globs.
    let out = twice(
        dir.path(),
        &[
            "check",
            "--config",
            "pyproject.toml",
            "--output-format",
            "concise",
        ],
    );
    let text = stdout(&out);
    assert!(text.contains("app/tasks.py:7:5: TW101"), "{text}");
    assert!(!text.contains("legacy"), "{text}");
    assert!(!text.contains("scripts"), "{text}");
    // A bare file name in a subfolder finds the configuration above it.
    let ignoring = project(&[
        ("pyproject.toml", "[tool.twice]\nignore = [\"TW101\"]\n"),
        ("app/tasks.py", UNKEYED),
    ]);
    let out = twice(&ignoring.path().join("app"), &["check", "tasks.py"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
}

#[test]
fn a_file_named_twice_is_checked_once() {
    let dir = project(&[("tasks.py", UNKEYED)]);
    let out = twice(
        dir.path(),
        &[
            "check",
            ".",
            "tasks.py",
            "./tasks.py",
            "--output-format",
            "concise",
        ],
    );
    let text = stdout(&out);
    assert_eq!(text.matches("TW101").count(), 1, "{text}");
}

#[test]
fn syntax_errors_cannot_be_silenced() {
    let dir = project(&[
        ("broken.py", "def f(:  # noqa\n    pass\n"),
        (
            "pyproject.toml",
            "[tool.twice]\nignore = [\"TW001\"]\nper-file-ignores = { \"broken.py\" = [\"TW001\"] }\n",
        ),
    ]);
    let out = twice(dir.path(), &["check", "--output-format", "concise"]);
    assert!(
        stdout(&out).contains("broken.py:1:7: TW001"),
        "{}",
        stdout(&out)
    );
    assert_eq!(out.status.code(), Some(1));
    let empty = twice(dir.path(), &["check", "--select", ""]);
    assert_eq!(empty.status.code(), Some(2), "{}", stderr(&empty));
}

#[test]
fn junit_counts_add_up_and_sarif_separates_the_help() {
    let dir = project(&[("tasks.py", UNKEYED), ("clean.py", "x = 1\n")]);
    let junit = stdout(&twice(dir.path(), &["check", "--output-format", "junit"]));
    // One failing case per diagnostic (TW101 here), one passing case for the clean file.
    assert!(junit.contains(r#"tests="2" failures="1""#), "{junit}");
    assert_eq!(junit.matches("<testcase").count(), 2, "{junit}");
    let sarif = stdout(&twice(dir.path(), &["check", "--output-format", "sarif"]));
    let json: serde_json::Value = serde_json::from_str(&sarif).expect("sarif json");
    let text = json["runs"][0]["results"][0]["message"]["text"]
        .as_str()
        .expect("message text");
    assert!(text.contains("\nhelp: "), "{text}");
}

#[test]
fn a_checked_namespace_package_is_named_from_its_parent() {
    // `billing/` has no `__init__.py`: `from billing.notify import ...` works when the folder
    // above it is on `sys.path`, and so does checking `billing` alone from there.
    let notify = "from django.core.mail import send_mail\n\n\ndef notify(email):\n    send_mail(\"Due\", \"body\", None, [email])\n";
    let tasks = "from celery import shared_task\n\nfrom billing.notify import notify\n\n\n@shared_task\ndef remind(email):\n    notify(email)\n";
    let dir = project(&[("billing/notify.py", notify), ("billing/tasks.py", tasks)]);
    for root in ["billing", "."] {
        let out = twice(dir.path(), &["check", "--output-format", "concise", root]);
        let text = stdout(&out);
        assert!(text.contains("tasks.py:8:5: TW102"), "{root}: {text}");
    }
}
