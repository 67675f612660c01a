//! `twice review`: verdicts agree with the diagnostics twice reports for each task, the example's
//! Markdown report is a reviewed snapshot, and `--changed-since` limits the report.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};

use common::{example_and_fixtures, root};
use twice::check::analyse;
use twice::config::{Overrides, Settings};
use twice::render::review::{ReviewFormat, render_review};
use twice::review::{TaskReview, Verdict, review, verdict_of};

fn reviews_of(path: &Path) -> Vec<TaskReview> {
    let settings = Settings::resolve(None, &Overrides::default(), &root()).expect("settings");
    analyse(&[path.to_path_buf()], None, &settings, &root(), 2, review).1
}

#[test]
fn verdicts_agree_with_the_diagnostics() {
    let mut seen = [0usize; 4];
    for fixture in example_and_fixtures() {
        for task in reviews_of(&fixture) {
            let codes: Vec<&str> = task.findings.iter().map(|f| f.code).collect();
            assert_eq!(
                task.verdict,
                verdict_of(&codes, task.complete),
                "{}: {codes:?}",
                task.task
            );
            if task.findings.is_empty() {
                assert!(
                    matches!(task.verdict, Verdict::Safe | Verdict::Unknown),
                    "{}",
                    task.task
                );
            } else {
                assert!(
                    matches!(task.verdict, Verdict::Unsafe | Verdict::AtRisk),
                    "{}",
                    task.task
                );
            }
            seen[task.verdict as usize] += 1;
        }
    }
    assert!(
        seen[Verdict::Unsafe as usize] > 10
            && seen[Verdict::AtRisk as usize] > 5
            && seen[Verdict::Safe as usize] > 10,
        "{seen:?}"
    );
}

#[test]
fn example_review_orders_money_first_and_tells_the_story() {
    let reviews = reviews_of(&root().join("examples/shop"));
    let by_name = |name: &str| {
        reviews
            .iter()
            .find(|r| r.task.ends_with(name))
            .unwrap_or_else(|| panic!("{name}"))
    };
    let charge = by_name("charge_order_task");
    assert_eq!(charge.verdict, Verdict::Unsafe);
    assert_eq!(charge.exposure, twice::review::Exposure::Money);
    assert!(
        charge.steps.iter().any(
            |s| s.kind == "effect" && s.crash.as_deref().is_some_and(|c| c.contains("charges"))
        )
    );
    let refund = by_name("refund_order_task");
    assert_eq!(refund.verdict, Verdict::Safe);
    assert!(refund.steps.iter().any(|s| {
        s.crash
            .as_deref()
            .is_some_and(|c| c.starts_with("safe: the provider de-duplicates"))
    }));
    assert_eq!(by_name("send_invoice").verdict, Verdict::AtRisk);
    // Money before messages before HTTP; unsafe before at risk within each.
    let order: Vec<_> = reviews.iter().map(|r| (r.exposure, r.verdict)).collect();
    let mut sorted = order.clone();
    sorted.sort();
    assert_eq!(order, sorted);
}

#[test]
fn example_markdown_is_a_reviewed_snapshot() {
    let reviews = reviews_of(&root().join("examples/shop"));
    let mut out = Vec::new();
    render_review(&mut out, &reviews, ReviewFormat::Markdown, false).expect("render");
    let text = String::from_utf8(out).expect("utf-8");
    insta::with_settings!({ snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("review_example_markdown", text);
    });
}

fn twice(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_twice"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run twice")
}

#[test]
fn json_format_and_changed_since() {
    let dir = tempfile::tempdir().expect("tmp");
    let git = |args: &[&str]| {
        let ok = Command::new("git")
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .expect("git")
            .success();
        assert!(ok, "git {args:?}");
    };
    let task = |name: &str| {
        format!(
            "import stripe\nfrom celery import shared_task\n\n\n@shared_task\ndef {name}(order_id):\n    stripe.Charge.create(amount=1)\n"
        )
    };
    std::fs::write(dir.path().join("old.py"), task("old_charge")).expect("write");
    git(&["init", "-q"]);
    git(&[
        "-c",
        "user.email=t@example.com",
        "-c",
        "user.name=t",
        "add",
        ".",
    ]);
    git(&[
        "-c",
        "user.email=t@example.com",
        "-c",
        "user.name=t",
        "commit",
        "-q",
        "-m",
        "base",
    ]);
    std::fs::write(dir.path().join("new.py"), task("new_charge")).expect("write");

    let out = twice(dir.path(), &["review", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["summary"]["tasks"], 2);
    assert_eq!(json["summary"]["unsafe"], 2);
    assert_eq!(json["tasks"][0]["verdict"], "unsafe");
    assert_eq!(json["tasks"][0]["exposure"], "money");

    let out = twice(
        dir.path(),
        &["review", "--format", "json", "--changed-since", "HEAD"],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["summary"]["tasks"], 1, "{json}");
    assert_eq!(json["tasks"][0]["task"], "new.new_charge");

    let out = twice(
        dir.path(),
        &["review", "--changed-since", "no-such-revision"],
    );
    assert_eq!(out.status.code(), Some(2));

    // A path that does not exist: the error alone, no "0 tasks" summary.
    let out = twice(dir.path(), &["review", "no-such-dir"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-dir"));
}

#[test]
fn findings_silenced_by_noqa_are_shown_but_do_not_count() {
    let dir = common::project(&[(
        "tasks.py",
        "import stripe\nfrom celery import shared_task\n\n\n@shared_task\ndef charge(order_id):\n    stripe.Charge.create(amount=1)  # noqa: TW101\n\n\n@shared_task\ndef refund(order_id):\n    stripe.Refund.create(charge=order_id)\n",
    )]);
    let reviews = reviews_of(dir.path());
    let by_name = |name: &str| {
        reviews
            .iter()
            .find(|r| r.task.ends_with(name))
            .unwrap_or_else(|| panic!("{name}"))
    };
    let charge = by_name("charge");
    assert_eq!(charge.verdict, Verdict::Safe);
    assert!(charge.findings.is_empty());
    let silenced: Vec<_> = charge.suppressed.iter().map(|f| (f.code, f.line)).collect();
    assert_eq!(silenced, [("TW101", 7)]);
    let refund = by_name("refund");
    assert_eq!(refund.verdict, Verdict::Unsafe);
    assert!(refund.suppressed.is_empty());

    let mut out = Vec::new();
    render_review(&mut out, &reviews, ReviewFormat::Markdown, false).expect("render");
    let markdown = String::from_utf8(out).expect("utf-8");
    assert!(
        markdown.contains("tasks.py:6) | money | — (silenced: TW101) |"),
        "{markdown}"
    );
    let mut out = Vec::new();
    render_review(&mut out, &reviews, ReviewFormat::Terminal, false).expect("render");
    let text = String::from_utf8(out).expect("utf-8");
    assert!(
        text.contains("  TW101 line 7: silenced with `# noqa`"),
        "{text}"
    );
    let output = twice(dir.path(), &["review", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let charge = json["tasks"]
        .as_array()
        .and_then(|tasks| tasks.iter().find(|t| t["task"] == "tasks.charge"))
        .expect("charge in JSON");
    assert_eq!(charge["suppressed"][0]["code"], "TW101", "{json}");
}

#[test]
fn a_key_released_in_finally_is_shown_as_a_lock_and_a_kept_one_as_a_marker() {
    let reviews = reviews_of(&root().join("resources/test/fixtures/locks/setnx_lock.py"));
    let kinds = |name: &str| -> Vec<&'static str> {
        reviews
            .iter()
            .find(|r| r.task.ends_with(name))
            .unwrap_or_else(|| panic!("no task {name}"))
            .steps
            .iter()
            .map(|s| s.kind)
            .collect()
    };
    let released = kinds(".crunch_with_expiry");
    assert!(released.contains(&"lock"), "{released:?}");
    assert!(!released.contains(&"marker"), "{released:?}");
    let kept = kinds(".crunch_once");
    assert!(kept.contains(&"marker"), "{kept:?}");
}
