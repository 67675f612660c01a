//! No input makes twice panic, hang or exhaust memory: each case of issue 5 has a test. Cases
//! run through the library (as `twice check` does) or the binary where exit codes matter, under
//! twice's own allocator, so that syntax trees go through its scratch arena as in the binary.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::places;
use twice::check::{Report, check};
use twice::config::{Overrides, Settings};
use twice::render::{OutputFormat, render};

#[global_allocator]
static GLOBAL: twice::arena::Allocator = twice::arena::Allocator;

fn run(paths: &[PathBuf], cwd: &Path, threads: usize) -> Report {
    let settings = Settings::resolve(None, &Overrides::default(), cwd).expect("settings");
    check(paths, &settings, cwd, threads)
}

const TASK: &str = "import stripe\nfrom celery import shared_task\n\n\n@shared_task\ndef charge(order_id):\n    stripe.Charge.create(amount=1)\n";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

#[test]
fn deep_nesting_is_reported_not_a_crash() {
    let dir = tempfile::tempdir().expect("tmp");
    let n = 1_000_000;
    write(
        dir.path(),
        "lists.py",
        format!("x = {}{}\n", "[".repeat(n), "]".repeat(n)).as_bytes(),
    );
    write(
        dir.path(),
        "unary.py",
        format!("x = {}1\n", "-".repeat(n)).as_bytes(),
    );
    write(
        dir.path(),
        "attrs.py",
        format!("x = a{}\n", ".b".repeat(n)).as_bytes(),
    );
    // 10 000-deep nesting that CPython's limits forbid but twice still analyses.
    write(
        dir.path(),
        "calls.py",
        format!("x = {}1{}\n", "f(".repeat(10_000), ")".repeat(10_000)).as_bytes(),
    );
    let blocks: String = (0..2_000)
        .map(|i| format!("{}if x:\n", " ".repeat(i)))
        .collect::<String>()
        + &" ".repeat(2_000)
        + "pass\n";
    write(dir.path(), "blocks.py", blocks.as_bytes());
    write(dir.path(), "tasks.py", TASK.as_bytes());
    let report = run(&[dir.path().to_path_buf()], dir.path(), 2);
    let found = places(&report);
    for name in ["lists.py", "unary.py", "attrs.py"] {
        assert!(
            found.iter().any(|(f, _, c)| f == name && *c == "TW001"),
            "{name}: {found:?}"
        );
    }
    assert!(
        !found
            .iter()
            .any(|(f, _, _)| f == "calls.py" || f == "blocks.py"),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(f, line, c)| f == "tasks.py" && *line == 7 && *c == "TW101"),
        "other files are still checked: {found:?}"
    );
}

#[test]
fn encodings_line_endings_and_odd_files() {
    let dir = tempfile::tempdir().expect("tmp");
    write(
        dir.path(),
        "bom.py",
        &[b"\xef\xbb\xbf".as_slice(), TASK.as_bytes()].concat(),
    );
    write(dir.path(), "crlf.py", TASK.replace('\n', "\r\n").as_bytes());
    write(dir.path(), "cr.py", TASK.replace('\n', "\r").as_bytes());
    write(dir.path(), "tabs.py", TASK.replace("    ", "\t").as_bytes());
    write(dir.path(), "formfeed.py", format!("\x0c{TASK}").as_bytes());
    write(dir.path(), "empty.py", b"");
    write(dir.path(), "latin1.py", b"x = '\xe9t\xe9'\n");
    let binary: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    write(dir.path(), "binary.py", &binary);
    let report = run(&[dir.path().to_path_buf()], dir.path(), 2);
    let found = places(&report);
    for name in ["bom.py", "crlf.py", "cr.py", "tabs.py", "formfeed.py"] {
        assert!(
            found.contains(&(name.to_string(), 7, "TW101")),
            "{name} reports on line 7: {found:?}"
        );
    }
    assert!(!found.iter().any(|(f, _, _)| f == "empty.py"), "{found:?}");
    assert!(
        found.contains(&("latin1.py".to_string(), 1, "TW002")),
        "{found:?}"
    );
    assert!(
        found.contains(&("binary.py".to_string(), 1, "TW002")),
        "{found:?}"
    );
    // Every diagnostic renders (code frames on odd line endings included).
    let mut out = Vec::new();
    render(&mut out, &report, OutputFormat::Full, false).expect("render");
    assert!(
        String::from_utf8(out)
            .expect("utf-8")
            .contains("crlf.py:7:5")
    );
}

#[test]
fn a_fifty_megabyte_file() {
    let dir = tempfile::tempdir().expect("tmp");
    // Mostly one large data literal, so that the test stays quick in debug builds.
    let mut text = String::from(TASK);
    text.push_str("DATA = \"\"\"\n");
    let line = "x".repeat(99) + "\n";
    while text.len() < 50_000_000 {
        text.push_str(&line);
    }
    text.push_str("\"\"\"\n");
    write(dir.path(), "big.py", text.as_bytes());
    let report = run(&[dir.path().join("big.py")], dir.path(), 2);
    assert_eq!(places(&report), vec![("big.py".to_string(), 7, "TW101")]);
}

#[cfg(unix)]
#[test]
fn symlink_loops_and_dangling_links_terminate() {
    let dir = tempfile::tempdir().expect("tmp");
    let pkg = dir.path().join("pkg");
    std::fs::create_dir(&pkg).expect("mkdir");
    write(&pkg, "tasks.py", TASK.as_bytes());
    std::os::unix::fs::symlink(&pkg, pkg.join("loop")).expect("symlink loop");
    std::os::unix::fs::symlink(dir.path().join("missing.py"), pkg.join("dangling.py"))
        .expect("dangling symlink");
    let report = run(&[dir.path().to_path_buf()], dir.path(), 2);
    let found = places(&report);
    assert_eq!(
        found.iter().filter(|(_, _, c)| *c == "TW101").count(),
        1,
        "symlinks are not followed: {found:?}"
    );
}

#[test]
fn a_missing_path_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = Command::new(env!("CARGO_BIN_EXE_twice"))
        .args(["check", "no/such/dir"])
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/dir"));
}

#[test]
fn many_tiny_files() {
    let dir = tempfile::tempdir().expect("tmp");
    let count = if cfg!(debug_assertions) {
        20_000
    } else {
        100_000
    };
    for i in 0..count {
        let sub = dir.path().join(format!("d{}", i / 1000));
        if i % 1000 == 0 {
            std::fs::create_dir(&sub).expect("mkdir");
        }
        std::fs::write(sub.join(format!("m{i}.py")), "x = 1\n").expect("write");
    }
    write(dir.path(), "tasks.py", TASK.as_bytes());
    let report = run(&[dir.path().to_path_buf()], dir.path(), 2);
    assert_eq!(report.files.len(), count + 1);
    assert_eq!(places(&report).len(), 1);
}

#[test]
fn output_is_identical_across_runs_and_thread_counts() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let paths = [root.join("examples"), root.join("resources/test/fixtures")];
    let render_json = |threads| {
        let report = run(&paths, root, threads);
        let mut out = Vec::new();
        render(&mut out, &report, OutputFormat::Json, false).expect("render");
        out
    };
    let one = render_json(1);
    assert!(one.len() > 1000, "the fixtures produce diagnostics");
    assert_eq!(one, render_json(2));
    assert_eq!(one, render_json(2));
}

#[test]
fn a_syntax_error_before_a_multibyte_character_renders() {
    // Found by the property test: the code frame widened an empty span by one byte, into the
    // middle of a character, and the renderer panicked on the slice.
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("resources/test/inputs/syntax_error_before_multibyte.py");
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::copy(&input, dir.path().join("mutant.py")).expect("copy");
    let report = run(&[dir.path().to_path_buf()], dir.path(), 1);
    assert!(places(&report).iter().any(|(_, _, c)| *c == "TW001"));
    let mut out = Vec::new();
    render(&mut out, &report, OutputFormat::Full, false).expect("render");
    let text = String::from_utf8(out).expect("utf-8");
    assert!(
        text.contains("error[TW001]") && !text.contains("could not be drawn"),
        "{text}"
    );
}

/// Definitions that refer to themselves (classes deriving from each other, names bound to
/// themselves, methods returning chains of their own calls) end in bounded time, and the rest
/// of the task is still checked. Methods returning `self.m().m()` once made path following
/// exponential, with paths growing until memory ran out.
#[test]
fn self_referential_definitions_end_quickly() {
    let dir = tempfile::tempdir().expect("tmp");
    let mut text = String::from(
        "import stripe\nfrom celery import Celery, shared_task\napp = Celery('x')\n\
         a = b\nb = a\nc = c.d\nclient = client()\nclient = client.with_options(client)\n\
         class A(B): pass\nclass B(A): pass\nclass C(C): pass\n\
         def f(): return g().h()\ndef g(): return f().h()\n\
         class D:\n    def m(self): return self.m().m()\n    @property\n    def p(self): return self.p\n",
    );
    // Methods of several classes returning chains of each other's calls.
    let mut seed = 7u32;
    let mut next = |n: u32| {
        seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (seed >> 16) % n
    };
    for class in 0..3 {
        text.push_str(&format!("class E{class}:\n"));
        for method in 0..30 {
            let chain: Vec<String> = (0..4).map(|_| format!("m{}()", next(30))).collect();
            text.push_str(&format!(
                "    def m{method}(self):\n        return E{}().{}\n",
                next(3),
                chain.join(".")
            ));
        }
    }
    text.push_str("@shared_task\ndef t():\n    D().m().p.send()\n    f().charge_card()\n");
    for method in 0..30 {
        text.push_str(&format!(
            "    E0().m{method}().m{}().send()\n",
            (method + 1) % 30
        ));
    }
    text.push_str("    stripe.Charge.create(amount=1)\n");
    let line = text.lines().count();
    write(dir.path(), "cycles.py", text.as_bytes());
    let (sender, receiver) = std::sync::mpsc::channel();
    let root = dir.path().to_path_buf();
    std::thread::spawn(move || {
        let report = run(&[root.join("cycles.py")], &root, 2);
        let _ = sender.send(places(&report));
    });
    let found = receiver
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("the check ends within a minute");
    assert!(
        found.contains(&("cycles.py".to_string(), line, "TW101")),
        "{found:?}"
    );
}

/// A class whose base is bound by unpacking a call on the class itself, a manager that is an
/// instance of its own class: expanding the base's name came back to the class, recursing
/// until the stack overflowed (found by generated projects).
#[test]
fn bases_that_name_their_own_class_end() {
    let dir = tempfile::tempdir().expect("tmp");
    std::fs::create_dir(dir.path().join("pkg")).expect("mkdir");
    write(&dir.path().join("pkg"), "__init__.py", b"");
    write(
        dir.path(),
        "models.py",
        b"from pkg import *\nclass y(E):\n    objects = y()\nE, created = y.objects.get_or_create(client=y)\n",
    );
    write(dir.path(), "tasks.py", TASK.as_bytes());
    let report = run(&[dir.path().to_path_buf()], dir.path(), 2);
    assert_eq!(places(&report), vec![("tasks.py".to_string(), 7, "TW101")]);
}
