//! `--write-baseline` and `--baseline`: findings are matched by file, code, task and the text
//! of the reported line, not by line numbers, and each entry absorbs one finding.

mod common;

use common::{MAILER, UNKEYED, project, stderr, stdout, twice, write};

fn concise(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String, String) {
    let mut all = vec!["check", "--output-format", "concise"];
    all.extend_from_slice(args);
    let out = twice(dir, &all);
    (out.status.code(), stdout(&out), stderr(&out))
}

#[test]
fn write_baseline_records_every_finding_and_exits_zero() {
    let dir = project(&[("pay.py", UNKEYED), ("mail.py", MAILER)]);
    let out = twice(
        dir.path(),
        &["check", "--write-baseline", "twice-baseline.json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stderr(&out).contains("Wrote 2 baseline entries to twice-baseline.json."));
    assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    let text = std::fs::read_to_string(dir.path().join("twice-baseline.json")).expect("baseline");
    let baseline: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(baseline["version"], 1);
    let entries = baseline["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 2);
    let pay = entries
        .iter()
        .find(|e| e["code"] == "TW101")
        .expect("the TW101 entry");
    assert_eq!(pay["file"], "pay.py");
    assert_eq!(pay["task"], "pay.charge");
    assert!(pay["fingerprint"].as_str().is_some_and(|f| f.len() == 16));
    assert!(pay["message"].is_string());
    assert!(!text.contains("\"line\""), "no line numbers: {text}");

    // Nothing new: exit 0.
    let (code, out, err) = concise(dir.path(), &["--baseline", "twice-baseline.json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("All checks passed!"), "{out}");
}

#[test]
fn edits_above_a_finding_do_not_resurrect_it() {
    let dir = project(&[("pay.py", UNKEYED)]);
    twice(dir.path(), &["check", "--write-baseline", "b.json"]);
    let moved = UNKEYED.replace(
        "from celery import shared_task\n",
        "from celery import shared_task\n\nCURRENCY = \"eur\"\n\n\ndef helper():\n    return 1\n",
    );
    // Nor does spacing inside the reported line.
    let moved = moved.replace("amount=100, currency", "amount=100,   currency");
    write(dir.path(), "pay.py", &moved);
    let (code, out, _) = concise(dir.path(), &[]);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("pay.py:13:5: TW101"),
        "the finding moved: {out}"
    );
    let (code, out, err) = concise(dir.path(), &["--baseline", "b.json"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(!out.contains("TW101"), "{out}");
    assert!(!err.contains("no longer match"), "{err}");
}

#[test]
fn a_new_finding_is_reported() {
    let dir = project(&[("pay.py", UNKEYED)]);
    twice(dir.path(), &["check", "--write-baseline", "b.json"]);
    write(dir.path(), "mail.py", MAILER);
    let (code, out, _) = concise(dir.path(), &["--baseline", "b.json"]);
    assert_eq!(code, Some(1));
    assert!(out.contains("mail.py:7:5: TW102"), "{out}");
    assert!(!out.contains("pay.py"), "{out}");
    assert!(out.contains("Found 1 problem in 1 file"), "{out}");
    // The same line in another task is a new finding too.
    let two_tasks = format!(
        "{UNKEYED}\n\n@shared_task\ndef charge_again(order_id):\n    stripe.PaymentIntent.create(amount=100, currency=\"eur\")\n"
    );
    write(dir.path(), "pay.py", &two_tasks);
    let (_, out, _) = concise(dir.path(), &["--baseline", "b.json", "--select", "TW101"]);
    assert!(out.contains("pay.py:12:5: TW101"), "{out}");
    assert!(!out.contains("pay.py:7:5"), "{out}");
}

#[test]
fn a_fixed_finding_is_counted() {
    let dir = project(&[("pay.py", UNKEYED), ("mail.py", MAILER)]);
    twice(dir.path(), &["check", "--write-baseline", "b.json"]);
    let keyed = UNKEYED.replace(
        "currency=\"eur\")",
        "currency=\"eur\", idempotency_key=f\"charge-{order_id}\")",
    );
    write(dir.path(), "pay.py", &keyed);
    let (code, out, err) = concise(dir.path(), &["--baseline", "b.json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        err.contains("1 baseline entry no longer matches (fixed)."),
        "{err}"
    );
    // A deleted file's entries are fixed too.
    std::fs::remove_file(dir.path().join("mail.py")).expect("remove");
    let (_, _, err) = concise(dir.path(), &["--baseline", "b.json"]);
    assert!(
        err.contains("2 baseline entries no longer match (fixed)."),
        "{err}"
    );
    // --quiet keeps standard error for errors.
    let (_, _, err) = concise(dir.path(), &["--baseline", "b.json", "--quiet"]);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn unchecked_files_and_rules_are_not_fixed() {
    let dir = project(&[("pay.py", UNKEYED), ("mail.py", MAILER)]);
    twice(dir.path(), &["check", "--write-baseline", "b.json"]);
    let (code, _, err) = concise(dir.path(), &["pay.py", "--baseline", "b.json"]);
    assert_eq!(code, Some(0));
    assert!(
        !err.contains("no longer match"),
        "mail.py was not checked: {err}"
    );
    let (_, _, err) = concise(dir.path(), &["--select", "TW101", "--baseline", "b.json"]);
    assert!(
        !err.contains("no longer match"),
        "TW102 was not checked: {err}"
    );
}

#[test]
fn identical_entries_absorb_as_many_findings() {
    // Several unkeyed payments in one task are also TW502: look at TW101 alone.
    let line = "    stripe.PaymentIntent.create(amount=100, currency=\"eur\")\n";
    let twice_over = format!("{UNKEYED}{line}");
    let dir = project(&[("pay.py", &twice_over)]);
    let (_, out, _) = concise(dir.path(), &["--select", "TW101"]);
    assert_eq!(out.matches("TW101").count(), 2, "{out}");
    twice(
        dir.path(),
        &["check", "--select", "TW101", "--write-baseline", "b.json"],
    );
    let (code, _, _) = concise(dir.path(), &["--select", "TW101", "--baseline", "b.json"]);
    assert_eq!(code, Some(0));
    write(dir.path(), "pay.py", &format!("{twice_over}{line}"));
    let (code, out, _) = concise(dir.path(), &["--select", "TW101", "--baseline", "b.json"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        out.matches("TW101").count(),
        1,
        "the third one is new: {out}"
    );
    write(dir.path(), "pay.py", UNKEYED);
    let (code, _, err) = concise(dir.path(), &["--select", "TW101", "--baseline", "b.json"]);
    assert_eq!(code, Some(0));
    assert!(err.contains("1 baseline entry no longer matches"), "{err}");
}

#[test]
fn paths_are_relative_to_the_baseline_file() {
    let dir = project(&[("app/pay.py", UNKEYED)]);
    let out = twice(
        dir.path(),
        &["check", "--write-baseline", "ci/baseline.json"],
    );
    assert_eq!(out.status.code(), Some(2), "the folder must exist");
    std::fs::create_dir(dir.path().join("ci")).expect("mkdir");
    let out = twice(
        dir.path(),
        &["check", "--write-baseline", "ci/baseline.json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(dir.path().join("ci/baseline.json")).expect("baseline");
    assert!(text.contains("\"file\": \"../app/pay.py\""), "{text}");
    // From another folder, the same baseline still matches.
    let (code, out, err) = concise(
        &dir.path().join("app"),
        &["--baseline", "../ci/baseline.json"],
    );
    assert_eq!(code, Some(0), "{out}{err}");
}

#[test]
fn a_broken_baseline_is_an_error() {
    let dir = project(&[
        ("pay.py", UNKEYED),
        ("bad.json", "{\"entries\": ["),
        ("old.json", "{\"version\": 99, \"entries\": []}"),
    ]);
    for (file, needle) in [
        ("bad.json", "invalid baseline"),
        ("old.json", "version 99"),
        ("missing.json", "cannot read the baseline"),
    ] {
        let out = twice(dir.path(), &["check", "--baseline", file]);
        assert_eq!(out.status.code(), Some(2), "{file}");
        assert!(stderr(&out).contains(needle), "{}", stderr(&out));
        assert!(stderr(&out).contains(file), "{}", stderr(&out));
    }
    let out = twice(
        dir.path(),
        &[
            "check",
            "--baseline",
            "b.json",
            "--write-baseline",
            "b.json",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "the two flags conflict");
}
