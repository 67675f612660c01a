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
