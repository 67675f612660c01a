//! Property test: mutations of every fixture (a fixed seed, so CI sees the same inputs) never
//! make twice panic, and every run renders. Mutations cut, duplicate, swap and insert bytes and
//! lines, including bytes that break UTF-8 and brackets that break the syntax. The test runs
//! under twice's own allocator, so that the mutants' syntax trees go through the scratch arena
//! as they do in the binary.

use std::path::{Path, PathBuf};

use twice::check::{StdinSource, check_with_stdin};
use twice::config::{Overrides, Settings};
use twice::render::{OutputFormat, render};

#[global_allocator]
static GLOBAL: twice::arena::Allocator = twice::arena::Allocator;

/// xorshift64*: a small deterministic generator, enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::try_from(self.next() % n as u64).unwrap_or(0)
        }
    }
}

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

const SNIPPETS: &[&[u8]] = &[
    b"(",
    b")",
    b"[",
    b"]]",
    b"\"\"\"",
    b"'",
    b":\n",
    b"\n    ",
    b"\t",
    b"\xff\xfe",
    b"\x00",
    b"@shared_task\n",
    b"with transaction.atomic():\n",
    b"lambda: ",
    b"**",
    b"await ",
    b"\r",
    b"#",
    b"\\\n",
    b"f\"{",
    b"}",
    b"if not created:\n    return\n",
];

fn mutate(rng: &mut Rng, source: &[u8]) -> Vec<u8> {
    let mut bytes = source.to_vec();
    for _ in 0..=rng.below(3) {
        let len = bytes.len().max(1);
        let at = rng.below(len);
        let span = rng.below(64).min(bytes.len().saturating_sub(at));
        match rng.below(6) {
            0 => {
                bytes.drain(at..at + span);
            }
            1 => {
                let copy = bytes[at..at + span].to_vec();
                bytes.splice(at..at, copy);
            }
            2 => {
                let snippet = SNIPPETS[rng.below(SNIPPETS.len())];
                bytes.splice(
                    at.min(bytes.len())..at.min(bytes.len()),
                    snippet.iter().copied(),
                );
            }
            3 => bytes.truncate(at),
            4 => {
                // Swap two lines.
                let mut lines: Vec<Vec<u8>> =
                    bytes.split(|b| *b == b'\n').map(<[u8]>::to_vec).collect();
                let (a, b) = (rng.below(lines.len()), rng.below(lines.len()));
                lines.swap(a, b);
                bytes = lines.join(&b'\n');
            }
            _ => {
                if let Some(byte) = bytes.get_mut(at) {
                    *byte = u8::try_from(rng.next() & 0xff).unwrap_or(0);
                }
            }
        }
    }
    bytes
}

#[test]
fn mutated_fixtures_never_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    python_files(&root.join("resources/test/fixtures"), &mut files);
    python_files(&root.join("examples"), &mut files);
    files.sort();
    assert!(files.len() > 30, "fixtures found: {}", files.len());
    let settings = Settings::resolve(None, &Overrides::default(), root).expect("settings");
    if cfg!(unix) {
        // SAFETY: the box is the only allocation and is not kept; a `bool` is kept.
        let in_arena = unsafe {
            twice::arena::scratch(|| Box::new(0u8), |b| twice::arena::contains(&**b), |b| *b)
        };
        assert!(in_arena, "trees should be built in the scratch arena here");
    }
    let mut rng = Rng(0x7769_6365_5f74_7769);
    let per_file = 100;
    let mut runs = 0;
    for file in &files {
        let source = std::fs::read(file).expect("fixture");
        for _ in 0..per_file {
            let mutated = mutate(&mut rng, &source);
            // Text the way standard input would deliver it; invalid UTF-8 is replaced.
            let text = String::from_utf8_lossy(&mutated).into_owned();
            let stdin = StdinSource {
                path: PathBuf::from("mutant.py"),
                text,
            };
            let report = check_with_stdin(&[], Some(&stdin), &settings, root, 1);
            let mut out = Vec::new();
            render(&mut out, &report, OutputFormat::Full, false).expect("render full");
            render(&mut out, &report, OutputFormat::Json, false).expect("render json");
            runs += 1;
        }
    }
    assert!(runs >= 5000, "ran {runs} mutations");
}

/// Names a generated project's definitions draw from: few, so that they refer to each other.
const NAMES: &[&str] = &[
    "x", "y", "z", "app", "client", "D", "E", "F", "f", "g", "h", "conf", "OPTIONS", "Base",
    "objects",
];
const MODULES: &[&str] = &["a", "b", "pkg.c", "pkg.d", "pkg"];
const METHODS: &[&str] = &[
    "delay",
    "apply_async",
    "send",
    "charge",
    "create",
    "lock",
    "set",
    "add",
    "get_or_create",
    "save",
    "update",
    "s",
    "si",
];
const KEYWORDS: &[&str] = &[
    "nx=True",
    "timeout=5",
    "ex=3",
    "idempotency_key=x",
    "countdown=1",
];

/// Random modules of aliases, imports (star ones too), classes deriving from each other and
/// calls whose results are called again: definitions that name each other in cycles, as no
/// hand-written fixture does.
struct Generator(Rng);

impl Generator {
    fn pick<'n>(&mut self, from: &[&'n str]) -> &'n str {
        from[self.0.below(from.len())]
    }

    fn name(&mut self) -> &'static str {
        self.pick(NAMES)
    }

    fn expr(&mut self, depth: u32) -> String {
        let kinds = if depth < 3 { 11 } else { 4 };
        match self.0.below(kinds) {
            0 => self.name().to_string(),
            1 => format!("{}.{}", self.name(), self.name()),
            2 => format!("{}()", self.name()),
            3 => self.0.below(100).to_string(),
            4 => format!(
                "{}.{}({})",
                self.expr(depth + 1),
                self.name(),
                self.expr(depth + 1)
            ),
            5 => format!("{}({}={})", self.name(), self.name(), self.expr(depth + 1)),
            6 => format!(
                "{} if {} else {}",
                self.expr(depth + 1),
                self.name(),
                self.expr(depth + 1)
            ),
            7 => format!("{}[{:?}]", self.name(), self.name()),
            8 => format!("Celery({:?})", self.name()),
            9 => format!(
                "{}.{}({}, {})",
                self.name(),
                self.pick(METHODS),
                self.expr(depth + 1),
                self.pick(KEYWORDS)
            ),
            _ => format!("chain({}, {})", self.expr(depth + 1), self.expr(depth + 1)),
        }
    }

    fn stmt(&mut self, indent: usize, depth: u32, out: &mut Vec<String>) {
        let pad = "    ".repeat(indent);
        let kinds = if depth < 2 { 12 } else { 6 };
        match self.0.below(kinds) {
            0 => out.push(format!("{pad}{} = {}", self.name(), self.expr(0))),
            1 => out.push(format!(
                "{pad}{}.{} = {}",
                self.name(),
                self.name(),
                self.expr(0)
            )),
            2 => out.push(format!("{pad}return {}", self.expr(0))),
            3 => out.push(format!("{pad}{}", self.expr(0))),
            4 => out.push(format!(
                "{pad}{}[{:?}] = {}",
                self.name(),
                self.name(),
                self.expr(0)
            )),
            5 => out.push(format!("{pad}{} += {}", self.name(), self.expr(0))),
            6 => {
                out.push(format!("{pad}if {}:", self.expr(0)));
                self.block(indent + 1, depth + 1, out);
            }
            7 => {
                let manager = match self.0.below(3) {
                    0 => "transaction.atomic()".to_string(),
                    1 => format!("{}.lock({:?}, timeout=10)", self.name(), self.name()),
                    _ => self.expr(0),
                };
                out.push(format!("{pad}with {manager} as {}:", self.name()));
                self.block(indent + 1, depth + 1, out);
            }
            8 => {
                out.push(format!("{pad}for {} in {}:", self.name(), self.expr(0)));
                self.block(indent + 1, depth + 1, out);
            }
            9 => {
                out.push(format!("{pad}try:"));
                self.block(indent + 1, depth + 1, out);
                out.push(format!("{pad}except IntegrityError:"));
                self.block(indent + 1, depth + 1, out);
            }
            10 => {
                out.push(format!("{pad}if not {}:", self.expr(0)));
                out.push(format!("{pad}    return"));
            }
            _ => out.push(format!(
                "{pad}{}, created = {}.objects.get_or_create({}={})",
                self.name(),
                self.name(),
                self.name(),
                self.name()
            )),
        }
    }

    fn block(&mut self, indent: usize, depth: u32, out: &mut Vec<String>) {
        for _ in 0..=self.0.below(3) {
            self.stmt(indent, depth, out);
        }
    }

    fn function(&mut self, indent: usize, name: &str, out: &mut Vec<String>) {
        let pad = "    ".repeat(indent);
        let decorator = match self.0.below(7) {
            0 => String::new(),
            1 => "@shared_task".to_string(),
            2 => format!(
                "@{}.task(bind=True, acks_late=True, time_limit=5, base={})",
                self.name(),
                self.name()
            ),
            3 => "@property".to_string(),
            4 => "@transaction.atomic".to_string(),
            5 => "@dramatiq.actor(time_limit=100)".to_string(),
            _ => format!("@{}", self.name()),
        };
        if !decorator.is_empty() {
            out.push(format!("{pad}{decorator}"));
        }
        let params = self.pick(&["self", "self, x", "x", "ctx, x", "*a, **k"]);
        out.push(format!("{pad}def {name}({params}):"));
        self.block(indent + 1, 0, out);
    }

    fn module(&mut self) -> String {
        let mut out = vec![
            "from celery import Celery, shared_task, chain, Task".to_string(),
            "from django.db import transaction, models, IntegrityError".to_string(),
            "import dramatiq, stripe".to_string(),
        ];
        for _ in 0..self.0.below(4) {
            let module = self.pick(MODULES);
            out.push(match self.0.below(4) {
                0 => format!("from {module} import {}", self.name()),
                1 => format!("from {module} import *"),
                2 => format!("from {module} import {} as {}", self.name(), self.name()),
                _ => format!("import {module}"),
            });
        }
        for _ in 0..3 + self.0.below(9) {
            match self.0.below(5) {
                0 => self.stmt(0, 0, &mut out),
                1 | 2 => {
                    let name = self.name();
                    self.function(0, name, &mut out);
                }
                _ => {
                    let bases: Vec<&str> = (0..self.0.below(3)).map(|_| self.name()).collect();
                    out.push(format!("class {}({}):", self.name(), bases.join(", ")));
                    out.push(format!("    {} = {}", self.name(), self.expr(0)));
                    for _ in 0..=self.0.below(3) {
                        let name = self.pick(&["x", "run", "__init__", "__enter__", "f", "D"]);
                        self.function(1, name, &mut out);
                    }
                }
            }
        }
        out.join("\n") + "\n"
    }
}

#[test]
fn generated_projects_of_self_referring_definitions_end() {
    let mut generator = Generator(Rng(0x6379_636c_6573_2121));
    let projects: usize = std::env::var("GEN_PROJECTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    for project in 0..projects {
        let dir = tempfile::tempdir().expect("tmp");
        for module in MODULES {
            let path = if *module == "pkg" {
                dir.path().join("pkg/__init__.py")
            } else {
                dir.path().join(module.replace('.', "/") + ".py")
            };
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, generator.module()).expect("write");
        }
        let (sender, receiver) = std::sync::mpsc::channel();
        let cwd = dir.path().to_path_buf();
        std::thread::spawn(move || {
            let settings = Settings::resolve(None, &Overrides::default(), &cwd).expect("settings");
            let report = twice::check::check(std::slice::from_ref(&cwd), &settings, &cwd, 1);
            let mut out = Vec::new();
            render(&mut out, &report, OutputFormat::Json, false).expect("render json");
            let _ = sender.send(());
        });
        if receiver
            .recv_timeout(std::time::Duration::from_secs(60))
            .is_err()
        {
            // Keep the project to look at: the test fails with its path.
            let kept = dir.keep();
            panic!(
                "project {project} did not end within a minute: {}",
                kept.display()
            );
        }
    }
}
