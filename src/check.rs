//! One run of `twice check`: discover, parse in parallel, build the project, run the rules,
//! apply selection and suppressions, sort.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use ruff_text_size::TextRange;
use rustc_hash::FxHashSet as HashSet;

use crate::config::Settings;
use crate::diagnostic::Diagnostic;
use crate::discover::{discover, module_name, module_names, path_module_name, project_scopes};
use crate::i18n::{Lang, tr};
use crate::parse::{SourceFile, load, parse_text};
use crate::project::Project;
use crate::registry::{INVALID_SYNTAX, UNREADABLE_FILE};
use crate::rules::{Checker, check_all};

/// The outcome of a check.
pub struct Report {
    pub files: Vec<SourceFile>,
    pub diagnostics: Vec<Diagnostic>,
    pub tasks: usize,
    /// Paths that could not be walked, with the reason.
    pub errors: Vec<(PathBuf, String)>,
    /// The language the messages are in, for the renderers' own texts.
    pub lang: Lang,
}

/// The stack each worker thread gets: parsing and fact extraction recurse with the nesting of
/// the code, and real code can nest deeply. Reserved, not committed: only the pages a deep
/// file touches count. A debug build spends about 27 KB of it per level of nested calls
/// (`f(f(...))`, 10 000 deep in the robustness tests), a release build a tenth of that.
const STACK_SIZE: usize = 512 * 1024 * 1024;

/// Source text read from standard input, checked as the file at `path` (`-` when unnamed).
#[derive(Clone, Debug)]
pub struct StdinSource {
    pub path: PathBuf,
    pub text: String,
}

pub fn check(paths: &[PathBuf], settings: &Settings, cwd: &Path, threads: usize) -> Report {
    check_with_stdin(paths, None, settings, cwd, threads)
}

/// Checks `paths` and, when given, the text from standard input; the text replaces the file
/// of the same path if `paths` contain it.
pub fn check_with_stdin(
    paths: &[PathBuf],
    stdin: Option<&StdinSource>,
    settings: &Settings,
    cwd: &Path,
    threads: usize,
) -> Report {
    analyse(paths, stdin, settings, cwd, threads, |_, _| ()).0
}

/// The diagnostics of a run as [`analyse`]'s `inspect` sees them.
pub struct Findings<'a> {
    /// What the run reports, sorted by file, position and code.
    pub reported: &'a [Diagnostic],
    /// What a `# noqa` comment silenced (selected rules only), in the same order.
    pub suppressed: &'a [Diagnostic],
}

/// Runs a check and lets `inspect` look at the project model and the final diagnostics before
/// the model is dropped (for `twice review`).
pub fn analyse<R: Send>(
    paths: &[PathBuf],
    stdin: Option<&StdinSource>,
    settings: &Settings,
    cwd: &Path,
    threads: usize,
    inspect: impl FnOnce(&Project, &Findings) -> R + Send,
) -> (Report, R) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size(STACK_SIZE)
        .build();
    match pool {
        Ok(pool) => pool.install(|| check_in_pool(paths, stdin, settings, cwd, inspect)),
        Err(_) => check_in_pool(paths, stdin, settings, cwd, inspect),
    }
}

/// Prints how long a phase took when `TWICE_TIMINGS` is set (a developer aid, on stderr).
pub(crate) struct Timer {
    enabled: bool,
    start: std::time::Instant,
}

impl Timer {
    pub(crate) fn new() -> Timer {
        Timer {
            enabled: std::env::var_os("TWICE_TIMINGS").is_some(),
            start: std::time::Instant::now(),
        }
    }

    pub(crate) fn lap(&mut self, phase: &str) {
        if self.enabled {
            let rss = std::fs::read_to_string("/proc/self/statm")
                .ok()
                .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
                .map_or(0, |pages| pages * 4096 / (1024 * 1024));
            eprintln!(
                "timing: {phase:<22} {:>8.3} s {rss:>6} MiB",
                self.start.elapsed().as_secs_f64()
            );
            self.start = std::time::Instant::now();
        }
    }
}

fn check_in_pool<R>(
    paths: &[PathBuf],
    stdin: Option<&StdinSource>,
    settings: &Settings,
    cwd: &Path,
    inspect: impl FnOnce(&Project, &Findings) -> R,
) -> (Report, R) {
    let mut timer = Timer::new();
    let mut discovered = discover(paths, &settings.exclude, &settings.root);
    timer.lap("discover");
    if let Some(stdin) = stdin {
        let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        let replaced = absolute(&stdin.path);
        discovered.files.retain(|file| absolute(file) != replaced);
    }
    let names = module_names(&discovered.files);
    timer.lap("module names");
    let mut files: Vec<SourceFile> = discovered
        .files
        .par_iter()
        .zip(names.par_iter())
        .map(|(path, (module, is_package))| {
            load(
                path,
                display_path(path, cwd),
                module,
                *is_package,
                &settings.catalog,
            )
        })
        .collect();
    if let Some(stdin) = stdin {
        let (module, is_package) = if stdin.path == Path::new("-") {
            ("stdin".to_string(), false)
        } else {
            module_name(&stdin.path)
        };
        files.push(parse_text(
            stdin.path.clone(),
            display_path(&stdin.path, cwd),
            stdin.text.clone(),
            &module,
            is_package,
            &settings.catalog,
            true,
        ));
        files.sort_by(|a, b| a.path.cmp(&b.path));
    }
    timer.lap("parse + facts");
    let roots: Vec<PathBuf> = paths
        .iter()
        .chain(stdin.map(|s| &s.path).filter(|p| *p != Path::new("-")))
        .map(|p| {
            if p.is_file() || stdin.is_some_and(|s| &s.path == p) {
                p.parent().map(Path::to_path_buf).unwrap_or_default()
            } else {
                p.clone()
            }
        })
        .collect();
    // A checked folder of modules without an `__init__.py` (`twice check billing`) is a
    // namespace package when its parent is on `sys.path`: its modules are named from the
    // parent. (A folder of projects holds no module of its own.)
    let holds_modules = |dir: &Path| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|entry| entry.path().extension().is_some_and(|e| e == "py"))
        })
    };
    let name_root = |root: &'_ PathBuf| -> PathBuf {
        match (root.file_name().and_then(|n| n.to_str()), root.parent()) {
            (Some(name), Some(parent))
                if crate::path::is_identifier(name)
                    && name != "src"
                    && root.is_dir()
                    && !root.join("__init__.py").is_file()
                    && holds_modules(root) =>
            {
                parent.to_path_buf()
            }
            _ => root.clone(),
        }
    };
    let name_roots: Vec<PathBuf> = roots.iter().map(name_root).collect();
    let path_names: Vec<Option<String>> = files
        .par_iter()
        .map(|file| {
            roots
                .iter()
                .zip(&name_roots)
                .find_map(|(root, named_from)| {
                    file.path
                        .starts_with(root)
                        .then(|| path_module_name(&file.path, named_from))
                        .flatten()
                })
        })
        .collect();
    let scopes = project_scopes(&files, |file| &file.path, &roots, &discovered.project_dirs);
    // No more trees are built: the arena's kept pages go back before the project is built.
    crate::arena::trim();
    timer.lap("path names");
    let project = Project::new(
        &files,
        &settings.catalog,
        settings.heuristics,
        &path_names,
        &scopes,
    );
    timer.lap("project");
    let enabled = |code: &str| settings.is_enabled(code);
    let lang = settings.lang;
    let mut checker = Checker::new(&project, &enabled, lang);
    check_all(&mut checker);
    let mut diagnostics = checker.diagnostics;
    for (index, file) in files.iter().enumerate() {
        let file_id = u32::try_from(index).unwrap_or(u32::MAX);
        if let Some(reason) = &file.unreadable {
            diagnostics.push(file_diagnostic(
                &UNREADABLE_FILE,
                file_id,
                TextRange::default(),
                reason.clone(),
                tr!(lang, "tw002.help"),
            ));
        }
        for (range, message) in &file.syntax_errors {
            diagnostics.push(file_diagnostic(
                &INVALID_SYNTAX,
                file_id,
                *range,
                tr!(lang, "tw001.message", error = message),
                tr!(lang, "tw001.help"),
            ));
        }
    }
    timer.lap("rules");
    let tasks = project.tasks.len();
    // A file twice could not read is always said, as ruff says syntax errors: no selector,
    // `noqa` or `per-file-ignores` hides it (`exclude` leaves the file out instead).
    let always = |d: &Diagnostic| d.code == INVALID_SYNTAX.code || d.code == UNREADABLE_FILE.code;
    diagnostics.retain(|d| {
        always(d)
            || (settings.is_enabled(d.code)
                && !settings.ignored_in(&files[d.file as usize].path, d.code))
    });
    // What `noqa` silences is kept aside: `twice review` says a task's findings were silenced.
    let mut suppressed: Vec<Diagnostic> = diagnostics
        .extract_if(.., |d| {
            let file = &files[d.file as usize];
            !always(d) && file.noqa_silences(file.line(d.range.start()), d.code)
        })
        .collect();
    let by_position = |a: &Diagnostic, b: &Diagnostic| {
        (a.file, a.range.start(), a.code, a.range.end()).cmp(&(
            b.file,
            b.range.start(),
            b.code,
            b.range.end(),
        ))
    };
    // One diagnostic of a rule per line, the first: two effects of one line (`sms(...) if c
    // else mail(...)`) are one finding, whichever other rules report between them.
    let first_on_line = |diagnostics: &mut Vec<Diagnostic>| {
        let mut seen = HashSet::default();
        diagnostics.retain(|d| {
            let file = &files[d.file as usize];
            seen.insert((d.file, file.line(d.range.start()), d.code))
        });
    };
    diagnostics.sort_by(by_position);
    first_on_line(&mut diagnostics);
    suppressed.sort_by(by_position);
    first_on_line(&mut suppressed);
    let inspected = inspect(
        &project,
        &Findings {
            reported: &diagnostics,
            suppressed: &suppressed,
        },
    );
    timer.lap("filter + sort");
    drop(project);
    timer.lap("drop project");
    (
        Report {
            files,
            diagnostics,
            tasks,
            errors: discovered.errors,
            lang,
        },
        inspected,
    )
}

fn file_diagnostic(
    rule: &crate::rules::RuleMeta,
    file: u32,
    range: TextRange,
    message: String,
    help: String,
) -> Diagnostic {
    Diagnostic {
        code: rule.code,
        name: rule.name,
        severity: rule.severity,
        message,
        help,
        file,
        range,
        task: None,
        complete: None,
        trace: Vec::new(),
        fix: None,
    }
}

/// A path as shown to the user: relative to the working directory when it is below it.
pub fn display_path(path: &Path, cwd: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let shown = absolute.strip_prefix(cwd).map_or(path, |relative| relative);
    shown.to_string_lossy().into_owned()
}
