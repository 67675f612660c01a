//! Helpers shared by the integration tests: run the binary, make a project in a temporary
//! folder, list the example and the fixtures, and say where diagnostics landed.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use twice::check::Report;

pub fn twice(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_twice"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run twice")
}

/// Runs twice with `input` on standard input.
pub fn twice_stdin(dir: &Path, args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_twice"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn twice");
    let mut stdin = child.stdin.take().expect("stdin");
    // twice may exit before reading (a usage error): a closed pipe is fine.
    if let Err(error) = stdin.write_all(input.as_bytes()) {
        assert_eq!(error.kind(), std::io::ErrorKind::BrokenPipe, "{error}");
    }
    drop(stdin);
    child.wait_with_output().expect("wait for twice")
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

pub fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, text) in files {
        write(dir.path(), name, text);
    }
    dir
}

pub fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(path, text).expect("write");
}

pub fn example_shop() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/shop")
}

/// A task that charges without an idempotency key (TW101 on line 7).
pub const UNKEYED: &str = "import stripe\nfrom celery import shared_task\n\n\n@shared_task\ndef charge(order_id):\n    stripe.PaymentIntent.create(amount=100, currency=\"eur\")\n";

/// A task that sends an e-mail without a guard (TW102 on line 7).
pub const MAILER: &str = "from celery import shared_task\nfrom django.core.mail import send_mail\n\n\n@shared_task\ndef notify(user_id):\n    send_mail(\"Hi\", \"body\", None, [\"a@example.com\"])\n";

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The example project and every rule fixture.
pub fn example_and_fixtures() -> Vec<PathBuf> {
    let mut all = vec![root().join("examples/shop")];
    for group in std::fs::read_dir(root().join("resources/test/fixtures")).expect("fixtures") {
        let group = group.expect("entry").path();
        if group.is_dir() {
            for entry in std::fs::read_dir(&group).expect("group") {
                all.push(entry.expect("entry").path());
            }
        }
    }
    all.sort();
    all
}

/// (file as displayed, line, code) of every diagnostic, in report order.
pub fn places(report: &Report) -> Vec<(String, usize, &'static str)> {
    report
        .diagnostics
        .iter()
        .map(|d| {
            let file = &report.files[d.file as usize];
            (
                file.display.clone(),
                file.location(d.range.start()).0,
                d.code,
            )
        })
        .collect()
}
