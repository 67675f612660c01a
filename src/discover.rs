//! Which files to check: walks the given paths with the `ignore` crate (honouring `.gitignore`),
//! skips virtualenvs, build output and the user's `exclude` globs, and names each file's module.

use std::path::{Path, PathBuf};

use globset::GlobSet;
use ignore::WalkBuilder;
use rayon::slice::ParallelSliceMut;

/// Directories that never hold the project's own code.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "node_modules",
    "build",
    "dist",
    "site-packages",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    ".eggs",
    "__pypackages__",
];

/// Files that make their folder a project of its own: its settings are its own
/// ([`project_scopes`]).
pub const PROJECT_MARKERS: &[&str] = &[
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "requirements.txt",
    "manage.py",
];

#[derive(Debug)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    /// Folders that hold a project's own metadata ([`PROJECT_MARKERS`]), sorted.
    pub project_dirs: Vec<PathBuf>,
    /// Paths that do not exist or cannot be walked: (path, reason).
    pub errors: Vec<(PathBuf, String)>,
}

/// Collects the `.py` files under `paths`. An explicitly named file is always checked.
pub fn discover(paths: &[PathBuf], exclude: &GlobSet, root: &Path) -> Discovered {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    let mut project_dirs = Vec::new();
    for path in paths {
        if !path.exists() && path.symlink_metadata().is_err() {
            errors.push((path.clone(), "no such file or directory".to_string()));
            continue;
        }
        if path.is_file() {
            files.push(path.clone());
            continue;
        }
        let walker = WalkBuilder::new(path)
            .hidden(false)
            .git_ignore(true)
            .git_global(false)
            .git_exclude(true)
            .require_git(false)
            .follow_links(false)
            .threads(rayon::current_num_threads())
            .filter_entry(|entry| {
                let name = entry.file_name().to_string_lossy();
                let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
                !(is_dir
                    && entry.depth() > 0
                    && (SKIPPED_DIRS.contains(&name.as_ref()) || is_virtualenv(entry.path())))
            })
            .build_parallel();
        // Walked in parallel (directories are independent); the results are sorted below, so
        // the order the threads find files in does not matter.
        let found = std::sync::Mutex::new((Vec::new(), Vec::new(), Vec::new()));
        walker.run(|| {
            let found = &found;
            Box::new(move |entry| {
                let mut found = found
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                match entry {
                    Ok(entry) => {
                        let is_file = entry.file_type().is_some_and(|t| t.is_file());
                        let p = entry.path();
                        if is_file
                            && PROJECT_MARKERS.iter().any(|m| entry.file_name() == *m)
                            && let Some(dir) = p.parent()
                        {
                            found.2.push(dir.to_path_buf());
                        }
                        if is_file
                            && p.extension().is_some_and(|e| e == "py")
                            && !is_excluded(p, exclude, root)
                        {
                            found.0.push(p.to_path_buf());
                        }
                    }
                    Err(error) => {
                        let at = error_path(&error).unwrap_or_else(|| path.clone());
                        found.1.push((at, error.to_string()));
                    }
                }
                ignore::WalkState::Continue
            })
        });
        let (found_files, found_errors, found_dirs) = found
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        files.extend(found_files);
        errors.extend(found_errors);
        project_dirs.extend(found_dirs);
    }
    errors.sort();
    project_dirs.sort();
    project_dirs.dedup();
    // Sorted on all cores: paths compare component by component, and on Django the sort took a
    // fifth of the walk's instructions, on one core after the walk's threads had finished.
    files.par_sort();
    files.dedup();
    // The same file named twice (`. tasks.py`, `tasks.py ./tasks.py`) is checked once, under
    // the first of its names. Only several roots can name a file twice.
    if paths.len() > 1 {
        let cwd = std::env::current_dir().unwrap_or_default();
        let mut seen = rustc_hash::FxHashSet::default();
        files.retain(|file| {
            let key: PathBuf = cwd
                .join(file)
                .components()
                .filter(|c| !matches!(c, std::path::Component::CurDir))
                .collect();
            seen.insert(key)
        });
    }
    Discovered {
        files,
        errors,
        project_dirs,
    }
}

/// Which project each file belongs to, for settings ([`project_scopes`]).
#[derive(Debug, Default)]
pub struct Scopes {
    /// Per file: 0 for a file in no project folder below the checked root it is under, else
    /// 1 + the index in the project folders of the innermost one holding it.
    pub of_file: Vec<u32>,
    /// Per project (0 first): the project whose folder holds its folder, if any. A checked
    /// root with metadata of its own holds the projects below it as project 0.
    pub parent: Vec<Option<u32>>,
}

/// Groups the files by project folder. Several projects checked together (`twice check
/// services/`) each read their own Celery settings. The checked root's own metadata makes no
/// project of its own (files outside any folder below it are project 0 either way), so a
/// repository checked from its root groups files as its parent folder would.
pub fn project_scopes<T: Sync>(
    files: &[T],
    path: impl Fn(&T) -> &Path + Sync,
    roots: &[PathBuf],
    project_dirs: &[PathBuf],
) -> Scopes {
    use rayon::prelude::*;
    if project_dirs.is_empty() {
        return Scopes {
            of_file: vec![0; files.len()],
            parent: vec![None],
        };
    }
    let id = |dir: &Path| {
        project_dirs
            .binary_search_by(|probe| probe.as_path().cmp(dir))
            .ok()
            .and_then(|index| u32::try_from(index + 1).ok())
    };
    // The innermost project folder holding `start` (itself included), below the root.
    let innermost = |start: &Path| -> Option<Option<u32>> {
        let root = roots.iter().find(|root| start.starts_with(root))?;
        Some(
            start
                .ancestors()
                .take_while(|dir| *dir != root.as_path())
                .find_map(id),
        )
    };
    let of_file = files
        .par_iter()
        .map(|file| {
            let dir = path(file).parent().unwrap_or(Path::new(""));
            innermost(dir).flatten().unwrap_or(0)
        })
        .collect();
    let root_is_project = |dir: &Path| {
        roots
            .iter()
            .any(|root| dir.starts_with(root) && id(root).is_some())
    };
    let parent = std::iter::once(None)
        .chain(project_dirs.iter().map(|dir| {
            let above = dir.parent()?;
            match innermost(above)? {
                Some(parent) => Some(parent),
                None => root_is_project(dir).then_some(0),
            }
        }))
        .collect();
    Scopes { of_file, parent }
}

/// Whether `dir` holds a virtualenv (`pyvenv.cfg`). The path is built at its size: this runs
/// for every directory walked.
fn is_virtualenv(dir: &Path) -> bool {
    const MARKER: &str = "pyvenv.cfg";
    let mut path = PathBuf::with_capacity(dir.as_os_str().len() + 1 + MARKER.len());
    path.push(dir);
    path.push(MARKER);
    path.exists()
}

/// Whether the user's `exclude` globs match `path`, relative to the project root or as given.
fn is_excluded(path: &Path, exclude: &GlobSet, root: &Path) -> bool {
    if exclude.is_empty() {
        return false;
    }
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let relative = absolute.strip_prefix(root).unwrap_or(path);
    exclude.is_match(relative) || exclude.is_match(path)
}

fn error_path(error: &ignore::Error) -> Option<PathBuf> {
    match error {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        _ => None,
    }
}

/// The dotted module name of a file and whether it is a package's `__init__`: directories that
/// hold an `__init__.py` are packages; the first one without ends the name (`src/` layouts and
/// single files work the same way) — unless a package holds it: `shop/services/` without an
/// `__init__.py` inside the package `shop` is imported as `shop.services` (a namespace package,
/// looked for up to [`NAMESPACE_DEPTH`] folders up).
pub fn module_name(path: &Path) -> (String, bool) {
    module_name_with(path, &mut |dir| dir.join("__init__.py").is_file())
}

/// How many folders without an `__init__.py` a package may hold between it and a module.
const NAMESPACE_DEPTH: usize = 2;

/// [`module_name`] of many files, asking the file system once per directory whether it is a
/// package (files of one package share their parents).
pub fn module_names(paths: &[PathBuf]) -> Vec<(String, bool)> {
    let mut packages: rustc_hash::FxHashMap<PathBuf, bool> = rustc_hash::FxHashMap::default();
    paths
        .iter()
        .map(|path| {
            module_name_with(path, &mut |dir| {
                if let Some(&known) = packages.get(dir) {
                    return known;
                }
                let is_package = dir.join("__init__.py").is_file();
                packages.insert(dir.to_path_buf(), is_package);
                is_package
            })
        })
        .collect()
}

fn module_name_with(path: &Path, is_package_dir: &mut impl FnMut(&Path) -> bool) -> (String, bool) {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let is_package = stem == "__init__";
    let mut parts = Vec::new();
    if !is_package {
        parts.push(stem);
    }
    let mut dir = path.parent();
    while let Some(d) = dir {
        if !is_package_dir(d) && !in_package(d, is_package_dir) {
            break;
        }
        match d.file_name() {
            Some(name) => parts.push(name.to_string_lossy().into_owned()),
            None => break,
        }
        dir = d.parent();
    }
    parts.reverse();
    (parts.join("."), is_package)
}

/// Whether a folder without an `__init__.py` is a namespace package inside a package: its name
/// is an identifier and a package holds it, at most [`NAMESPACE_DEPTH`] such folders up.
fn in_package(dir: &Path, is_package_dir: &mut impl FnMut(&Path) -> bool) -> bool {
    let mut current = dir;
    for _ in 0..NAMESPACE_DEPTH {
        let is_identifier = current
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(crate::path::is_identifier);
        let Some(parent) = current.parent().filter(|_| is_identifier) else {
            return false;
        };
        if is_package_dir(parent) {
            return true;
        }
        current = parent;
    }
    false
}

/// The module name from the path relative to a root, ignoring `__init__.py` files: how a
/// namespace package (no `__init__.py`) is imported when the root is on `sys.path`.
pub fn path_module_name(path: &Path, root: &Path) -> Option<String> {
    let relative = path.strip_prefix(root).ok()?;
    let mut parts: Vec<String> = relative
        .parent()?
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .filter(|c| c != "." && c != "src")
        .collect();
    let stem = relative.file_stem()?.to_string_lossy().into_owned();
    if stem != "__init__" {
        parts.push(stem);
    }
    Some(parts.join("."))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The module name of `path` when exactly the folders in `packages` hold an `__init__.py`.
    fn name(path: &str, packages: &[&str]) -> String {
        module_name_with(Path::new(path), &mut |dir| {
            packages.iter().any(|p| Path::new(p) == dir)
        })
        .0
    }

    #[test]
    fn files_belong_to_the_innermost_project_folder_below_the_root() {
        let files: Vec<PathBuf> = [
            "/srv/billing/billing/tasks.py",
            "/srv/billing/plugins/pay/pay/tasks.py",
            "/srv/reports/reports/tasks.py",
            "/srv/scripts/run.py",
            "/other/x.py",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let mut dirs: Vec<PathBuf> = ["/srv/billing", "/srv/billing/plugins/pay", "/srv/reports"]
            .iter()
            .map(PathBuf::from)
            .collect();
        dirs.sort();
        let roots = [PathBuf::from("/srv")];
        let scopes = project_scopes(&files, PathBuf::as_path, &roots, &dirs);
        // A subproject inside a project folder is a project of its own, held by it; a file in
        // none is in 0.
        assert_eq!(scopes.of_file, vec![1, 2, 3, 0, 0]);
        assert_eq!(scopes.parent, vec![None, None, Some(1), None]);
        // The checked root's own metadata makes no project, but holds the ones below it.
        dirs.push(PathBuf::from("/srv"));
        dirs.sort();
        let scopes = project_scopes(&files[..3], PathBuf::as_path, &roots, &dirs);
        assert_eq!(scopes.of_file, vec![2, 3, 4]);
        assert_eq!(scopes.parent, vec![None, None, Some(0), Some(2), Some(0)]);
    }

    #[test]
    fn packages_end_at_the_first_folder_without_an_init() {
        assert_eq!(name("/repo/shop/tasks.py", &["/repo/shop"]), "shop.tasks");
        assert_eq!(name("/repo/scripts/run.py", &["/repo/shop"]), "run");
    }

    #[test]
    fn a_folder_without_an_init_inside_a_package_is_a_namespace_package() {
        let packages = ["/repo/shop"];
        assert_eq!(
            name("/repo/shop/services/mailer.py", &packages),
            "shop.services.mailer"
        );
        assert_eq!(
            name("/repo/shop/services/email/smtp.py", &packages),
            "shop.services.email.smtp"
        );
        // Three folders down is too far to be taken for one package.
        assert_eq!(name("/repo/shop/a/b/c/m.py", &packages), "m");
        // A folder whose name is no identifier cannot be imported.
        assert_eq!(name("/repo/shop/static-files/m.py", &packages), "m");
    }
}
