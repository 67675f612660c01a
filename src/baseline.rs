//! Baselines: today's diagnostics, saved so that a later check reports only new ones.
//!
//! An entry identifies a diagnostic by its file (relative to the baseline's folder), its code,
//! its task and a fingerprint of the reported line's text, never by line numbers: code added
//! above a finding moves it without resurrecting it. N identical entries absorb N diagnostics.

use std::collections::HashMap;
use std::io;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::check::Report;
use crate::diagnostic::Diagnostic;

/// The format version written to and expected in a baseline file.
pub const VERSION: u32 = 1;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    pub version: u32,
    pub entries: Vec<Entry>,
}

/// One accepted diagnostic.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub code: String,
    /// Relative to the baseline file's folder, with forward slashes.
    pub file: String,
    #[serde(default)]
    pub task: Option<String>,
    /// [`line_fingerprint`] of the reported line.
    pub fingerprint: String,
    /// For readers of the file; not used for matching.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// What matching a baseline against a report left over.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Diagnostics the baseline absorbed.
    pub matched: usize,
    /// Entries that matched no diagnostic.
    pub unmatched: Vec<Entry>,
}

impl Baseline {
    /// Every diagnostic of `report`, with paths relative to `dir` (the baseline's folder).
    pub fn from_report(report: &Report, dir: &Path) -> Baseline {
        let entries = report
            .diagnostics
            .iter()
            .map(|d| {
                let (file, code, task, fingerprint) = key(report, d, dir);
                Entry {
                    code,
                    file,
                    task,
                    fingerprint,
                    message: Some(d.message.clone()),
                }
            })
            .collect();
        Baseline {
            version: VERSION,
            entries,
        }
    }

    pub fn read(path: &Path) -> Result<Baseline, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the baseline {}: {e}", path.display()))?;
        let baseline: Baseline = serde_json::from_str(&text)
            .map_err(|e| format!("invalid baseline {}: {e}", path.display()))?;
        if baseline.version != VERSION {
            return Err(format!(
                "baseline {} has version {}, this twice reads version {VERSION}; write it again with `--write-baseline`",
                path.display(),
                baseline.version
            ));
        }
        Ok(baseline)
    }

    pub fn write(&self, path: &Path) -> io::Result<()> {
        let mut text = serde_json::to_string_pretty(self).map_err(io::Error::other)?;
        text.push('\n');
        std::fs::write(path, text)
    }

    /// Removes from `report` the diagnostics the baseline holds, each entry absorbing one.
    pub fn apply(&self, report: &mut Report, dir: &Path) -> Outcome {
        type Key = (String, String, Option<String>, String);
        let mut counts: HashMap<Key, Vec<&Entry>> = HashMap::new();
        for entry in &self.entries {
            counts
                .entry((
                    entry.file.clone(),
                    entry.code.clone(),
                    entry.task.clone(),
                    entry.fingerprint.clone(),
                ))
                .or_default()
                .push(entry);
        }
        let keep: Vec<bool> = report
            .diagnostics
            .iter()
            .map(|d| {
                let key = key(report, d, dir);
                match counts.get_mut(&key) {
                    Some(entries) if !entries.is_empty() => {
                        entries.pop();
                        false
                    }
                    _ => true,
                }
            })
            .collect();
        let before = report.diagnostics.len();
        let mut keep = keep.into_iter();
        report.diagnostics.retain(|_| keep.next().unwrap_or(true));
        let mut unmatched: Vec<Entry> = counts
            .into_values()
            .flatten()
            .map(|entry| (*entry).clone())
            .collect();
        unmatched.sort_by(|a, b| (&a.file, &a.code, &a.task).cmp(&(&b.file, &b.code, &b.task)));
        Outcome {
            matched: before - report.diagnostics.len(),
            unmatched,
        }
    }
}

/// The folder a baseline's paths are relative to: the baseline file's own folder.
pub fn baseline_dir(baseline: &Path, cwd: &Path) -> PathBuf {
    let parent = baseline
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    normalize(&cwd.join(parent))
}

/// (file, code, task, line fingerprint) of a diagnostic, as a baseline matches it.
fn key(report: &Report, d: &Diagnostic, dir: &Path) -> (String, String, Option<String>, String) {
    let file = &report.files[d.file as usize];
    let (row, _) = file.location(d.range.start());
    (
        relative_path(&file.path, dir),
        d.code.to_string(),
        d.task.clone(),
        line_fingerprint(file.line_text(row)),
    )
}

/// A line's text with surrounding whitespace trimmed and inner runs collapsed to one space.
pub fn normalized_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The fingerprint of a line: a hash of its normalized text, as 16 hex digits.
pub fn line_fingerprint(text: &str) -> String {
    format!("{:016x}", stable_hash(&[&normalized_line(text)]))
}

/// FNV-1a (64 bits) over the parts, each followed by a byte that UTF-8 never contains: stable
/// across runs, platforms and compiler versions, unlike `std`'s hasher.
pub fn stable_hash(parts: &[&str]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut hash = OFFSET;
    for part in parts {
        for byte in part.bytes().chain(std::iter::once(0xff)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(PRIME);
        }
    }
    hash
}

/// `path` relative to `dir`, both made absolute and normalized (`..` where `path` is outside
/// `dir`), with forward slashes.
pub fn relative_path(path: &Path, dir: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let path = normalize(&cwd.join(path));
    let dir = normalize(&cwd.join(dir));
    let path_parts: Vec<Component> = path.components().collect();
    let dir_parts: Vec<Component> = dir.components().collect();
    let common = path_parts
        .iter()
        .zip(&dir_parts)
        .take_while(|(a, b)| a == b)
        .count();
    // Different roots (another drive on Windows): keep the absolute path.
    if common == 0 {
        return slashes(&path.to_string_lossy());
    }
    let mut parts: Vec<String> = dir_parts[common..].iter().map(|_| "..".into()).collect();
    parts.extend(
        path_parts[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// Removes `.` and resolves `..` lexically (without touching the file system).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A path with the platform's separator replaced by `/`.
pub fn slashes(path: &str) -> String {
    if std::path::MAIN_SEPARATOR == '\\' {
        path.replace('\\', "/")
    } else {
        path.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_fingerprints_ignore_indentation_and_spacing() {
        assert_eq!(
            line_fingerprint("    stripe.Charge.create(amount=1)\n"),
            line_fingerprint("stripe.Charge.create(amount=1)")
        );
        assert_eq!(line_fingerprint("a  =\tb"), line_fingerprint("  a = b  "));
        assert_ne!(line_fingerprint("a = b"), line_fingerprint("a = c"));
    }

    #[test]
    fn hash_parts_are_separated() {
        assert_ne!(stable_hash(&["ab", "c"]), stable_hash(&["a", "bc"]));
        // Fingerprints in baselines and reports must not change between versions.
        assert_eq!(stable_hash(&["twice"]), 0x73d7_13ab_8fc8_4624);
    }

    #[test]
    fn relative_paths_use_forward_slashes_and_dotdot() {
        let dir = Path::new("/repo/project");
        assert_eq!(
            relative_path(Path::new("/repo/project/orders/tasks.py"), dir),
            "orders/tasks.py"
        );
        assert_eq!(
            relative_path(Path::new("/repo/other/x.py"), dir),
            "../other/x.py"
        );
        assert_eq!(
            relative_path(Path::new("/repo/project/./a/../b.py"), dir),
            "b.py"
        );
    }
}
