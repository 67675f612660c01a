//! Configuration: `[tool.twice]` in the nearest `pyproject.toml`, or a `twice.toml` (which wins in
//! the same folder), read into [`Options`] and resolved, with the command line, into [`Settings`].
//! Rules only ever see `Settings`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::Deserialize;

use crate::catalog::{Catalog, UserSink};
use crate::i18n::Lang;
use crate::registry::{selector_is_valid, selector_matches, specificity};
use crate::rules::{ALL, RuleMeta};

/// The keys of `[tool.twice]`: those RULES.md lists, and ruff's `extend-select`.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Options {
    /// Rules to enable: codes, prefixes (`TW1`), names, or `ALL`.
    pub select: Option<Vec<String>>,
    /// Rules to enable on top of `select` (or of the default, every rule), as in ruff.
    pub extend_select: Option<Vec<String>>,
    /// Rules to disable.
    pub ignore: Option<Vec<String>>,
    /// Globs of files to skip, on top of `.gitignore` and the built-in excludes.
    pub exclude: Option<Vec<String>>,
    /// Glob → rules to disable in the matching files.
    pub per_file_ignores: Option<BTreeMap<String, Vec<String>>>,
    /// Qualified names of the project's own task decorators.
    pub task_decorators: Option<Vec<String>>,
    /// Name-based heuristic effects.
    pub heuristics: Option<bool>,
    /// Sinks the catalog does not know, by qualified name.
    pub effects: Option<BTreeMap<String, UserSink>>,
    /// The language of messages, help lines and rule documentation: `en` or `ru`.
    pub lang: Option<String>,
}

#[derive(Debug)]
pub struct ConfigError {
    pub path: Option<PathBuf>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.path {
            Some(path) => write!(
                f,
                "invalid configuration in {}: {}",
                path.display(),
                self.message
            ),
            None => f.write_str(&self.message),
        }
    }
}

/// A configuration file and the options it holds.
#[derive(Debug)]
pub struct ConfigFile {
    pub path: PathBuf,
    pub options: Options,
}

/// Reads a `pyproject.toml` (its `[tool.twice]` table) or a `twice.toml`. `Ok(None)` for a
/// `pyproject.toml` without the table.
pub fn read_config(path: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    let error = |message: String| ConfigError {
        path: Some(path.to_path_buf()),
        message,
    };
    let text =
        std::fs::read_to_string(path).map_err(|e| error(format!("cannot read the file: {e}")))?;
    let is_pyproject = path.file_name().is_some_and(|n| n == "pyproject.toml");
    // Read from the text, not from a parsed table, so that an error has its place in the file.
    let options = if is_pyproject {
        let pyproject: Pyproject =
            toml::from_str(&text).map_err(|e| error(toml_error(&text, &e)))?;
        match pyproject.tool.and_then(|tool| tool.twice) {
            Some(options) => options,
            None => return Ok(None),
        }
    } else {
        toml::from_str(&text).map_err(|e| error(toml_error(&text, &e)))?
    };
    validate(&options).map_err(error)?;
    // Globs (`exclude`, `per-file-ignores`) are relative to the file's folder: keep it whole,
    // so that `--config pyproject.toml` has one.
    Ok(Some(ConfigFile {
        path: std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf()),
        options,
    }))
}

/// The part of `pyproject.toml` twice reads; other tools' tables are skipped unread.
#[derive(Deserialize)]
struct Pyproject {
    tool: Option<PyprojectTools>,
}

#[derive(Deserialize)]
struct PyprojectTools {
    twice: Option<Options>,
}

/// A TOML error as `line L, column C: message`, naming the key whose value is wrong
/// (`heuristics`: invalid type: string "yes", expected a boolean).
fn toml_error(text: &str, error: &toml::de::Error) -> String {
    let message = error
        .message()
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(": ");
    let Some(start) = error.span().map(|span| span.start.min(text.len())) else {
        return message;
    };
    let Some(before) = text.get(..start) else {
        return message;
    };
    let line_start = before.rfind('\n').map_or(0, |at| at + 1);
    let line = before.matches('\n').count() + 1;
    let column = before[line_start..].chars().count() + 1;
    // A value's error: the key is what stands before `=` on its line.
    let key = before[line_start..]
        .split_once('=')
        .map(|(key, _)| key.trim())
        .filter(|key| !key.is_empty())
        .map(|key| format!("`{key}`: "))
        .unwrap_or_default();
    format!("line {line}, column {column}: {key}{message}")
}

fn validate(options: &Options) -> Result<(), String> {
    if let Some(lang) = &options.lang
        && Lang::from_name(lang).is_none()
    {
        return Err(format!(
            "`lang`: unknown language `{lang}`, expected {}",
            Lang::ALL.map(|l| format!("`{}`", l.name())).join(" or ")
        ));
    }
    let selectors = options
        .select
        .iter()
        .flatten()
        .map(|s| ("select", s))
        .chain(
            options
                .extend_select
                .iter()
                .flatten()
                .map(|s| ("extend-select", s)),
        )
        .chain(options.ignore.iter().flatten().map(|s| ("ignore", s)))
        .chain(
            options
                .per_file_ignores
                .iter()
                .flat_map(|m| m.values().flatten().map(|s| ("per-file-ignores", s))),
        );
    for (key, selector) in selectors {
        if !selector_is_valid(selector) {
            return Err(format!(
                "`{key}`: unknown rule selector `{selector}`, expected a code (`TW101`), a prefix (`TW1`), a rule name or `ALL`"
            ));
        }
    }
    for glob in options.exclude.iter().flatten().map(String::as_str).chain(
        options
            .per_file_ignores
            .iter()
            .flat_map(|m| m.keys())
            .map(|k| k.strip_prefix('!').unwrap_or(k)),
    ) {
        Glob::new(glob).map_err(|e| format!("invalid glob `{glob}`: {e}"))?;
    }
    // Names are matched as the analysis resolves calls: a module and what it defines. A bare
    // name (`dispatch`) would match nothing, silently.
    for (name, sink) in options.effects.iter().flatten() {
        if !is_qualified(name) {
            return Err(format!(
                "`effects`: `{name}` is not a qualified name: write the module it is imported from and the call (`pushkit.Client.dispatch`)"
            ));
        }
        if let Some(crate::catalog::UserKey::Spec(key)) = &sink.key
            && key.keyword.is_none()
            && key.position.is_none()
            && key.options.is_none()
            && key.header.is_empty()
            && key.field.is_none()
        {
            return Err(format!(
                "`effects`: the key of `{name}` names no place: give `keyword`, `position`, `options`, `header` or `field` (or leave `key` out for a call that takes none)"
            ));
        }
        if let Some(crate::catalog::UserKey::Keyword(keyword)) = &sink.key
            && !crate::path::is_identifier(keyword)
        {
            return Err(format!(
                "`effects`: the key of `{name}` is `{keyword:?}`, not a keyword argument's name"
            ));
        }
    }
    for decorator in options.task_decorators.iter().flatten() {
        if !is_qualified(decorator) {
            return Err(format!(
                "`task-decorators`: `{decorator}` is not a qualified name: write the module it is imported from (`myproject.tasks.instrumented_task`)"
            ));
        }
    }
    Ok(())
}

/// `module.name`: dotted identifiers, at least two, as catalog patterns write them (`*`/`**`
/// wildcards and `name(arg)` calls allowed).
fn is_qualified(name: &str) -> bool {
    let mut parts = 0;
    for part in name.split('.') {
        parts += 1;
        // `client(sqs)`: a call with its first argument.
        let part = part.split_once('(').map_or(part, |(called, _)| called);
        let wildcard = part == "**" || (!part.is_empty() && part.contains('*'));
        if !wildcard && !crate::path::is_identifier(part) {
            return false;
        }
    }
    parts >= 2
}

/// The configuration file that applies to `start`: the nearest folder, going up, with a
/// `twice.toml` or a `pyproject.toml` holding `[tool.twice]`.
pub fn find_config(start: &Path) -> Result<Option<ConfigFile>, ConfigError> {
    // Absolute first: the parent of a bare `tasks.py` is the current folder, and its
    // ancestors are searched too.
    let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    let start = if start.is_file() {
        start.parent().unwrap_or(&start).to_path_buf()
    } else {
        start
    };
    for dir in start.ancestors() {
        let twice = dir.join("twice.toml");
        if twice.is_file() {
            return read_config(&twice);
        }
        let pyproject = dir.join("pyproject.toml");
        if pyproject.is_file()
            && let Some(config) = read_config(&pyproject)?
        {
            return Ok(Some(config));
        }
    }
    Ok(None)
}

/// Command-line settings that override or extend the configuration file.
#[derive(Debug, Default)]
pub struct Overrides {
    pub select: Option<Vec<String>>,
    /// `--extend-select`: enabled on top of `--select`, or of `select` from the configuration.
    pub extend_select: Vec<String>,
    pub ignore: Vec<String>,
    /// `--lang`, which wins over `lang` from the configuration.
    pub lang: Option<Lang>,
}

/// What the checker and the rules use.
pub struct Settings {
    pub root: PathBuf,
    pub config_path: Option<PathBuf>,
    enabled: Vec<&'static str>,
    /// (files, negated, selectors): a `!pattern` applies to the files it does not match.
    per_file_ignores: Vec<(GlobSet, bool, Vec<String>)>,
    pub exclude: GlobSet,
    pub heuristics: bool,
    pub catalog: Catalog,
    /// The language of messages and help lines.
    pub lang: Lang,
}

impl Settings {
    pub fn resolve(
        config: Option<ConfigFile>,
        overrides: &Overrides,
        cwd: &Path,
    ) -> Result<Settings, ConfigError> {
        for selector in overrides
            .select
            .iter()
            .flatten()
            .chain(&overrides.extend_select)
            .chain(&overrides.ignore)
        {
            if !selector_is_valid(selector) {
                return Err(ConfigError {
                    path: None,
                    message: format!(
                        "unknown rule selector `{selector}`, expected a code (`TW101`), a prefix (`TW1`), a rule name or `ALL`"
                    ),
                });
            }
        }
        let (root, config_path, options) = match config {
            Some(config) => (
                config
                    .path
                    .parent()
                    .map_or_else(|| cwd.to_path_buf(), Path::to_path_buf),
                Some(config.path),
                config.options,
            ),
            None => (cwd.to_path_buf(), None, Options::default()),
        };
        // Ruff's layers: the default, then the configuration, then the command line. A
        // layer with `select` starts the set again (its own `ignore` applies, earlier ones do
        // not); a layer without one adds its `extend-select` and removes its `ignore`.
        let all = vec!["ALL".to_string()];
        let layers = [
            Selection {
                select: Some(&all),
                extend_select: &[],
                ignore: &[],
            },
            Selection {
                select: options.select.as_deref(),
                extend_select: options.extend_select.as_deref().unwrap_or_default(),
                ignore: options.ignore.as_deref().unwrap_or_default(),
            },
            Selection {
                select: overrides.select.as_deref(),
                extend_select: &overrides.extend_select,
                ignore: &overrides.ignore,
            },
        ];
        let enabled = ALL
            .iter()
            .filter(|rule| {
                layers
                    .iter()
                    .fold(false, |enabled, layer| layer.decide(rule, enabled))
            })
            .map(|rule| rule.code)
            .collect();
        let glob_error = |e: globset::Error| ConfigError {
            path: config_path.clone(),
            message: e.to_string(),
        };
        let mut exclude = GlobSetBuilder::new();
        for pattern in options.exclude.iter().flatten() {
            for glob in expand_glob(pattern) {
                exclude.add(Glob::new(&glob).map_err(glob_error)?);
            }
        }
        let exclude = exclude.build().map_err(glob_error)?;
        let mut per_file_ignores = Vec::new();
        for (pattern, selectors) in options.per_file_ignores.into_iter().flatten() {
            // `"!tests/*" = [...]`: every file but those, as in ruff.
            let (negated, pattern) = match pattern.strip_prefix('!') {
                Some(rest) => (true, rest.to_string()),
                None => (false, pattern),
            };
            let mut set = GlobSetBuilder::new();
            for glob in expand_glob(&pattern) {
                set.add(Glob::new(&glob).map_err(glob_error)?);
            }
            per_file_ignores.push((set.build().map_err(glob_error)?, negated, selectors));
        }
        let lang = overrides
            .lang
            .or_else(|| options.lang.as_deref().and_then(Lang::from_name))
            .unwrap_or_default();
        let effects: Vec<(String, UserSink)> = options.effects.into_iter().flatten().collect();
        let catalog = Catalog::new(
            &effects,
            options.task_decorators.as_deref().unwrap_or_default(),
        );
        Ok(Settings {
            root,
            config_path,
            enabled,
            per_file_ignores,
            exclude,
            heuristics: options.heuristics.unwrap_or(true),
            catalog,
            lang,
        })
    }

    pub fn is_enabled(&self, code: &str) -> bool {
        self.enabled.contains(&code)
    }

    /// Whether `per-file-ignores` disables `code` in `path`.
    pub fn ignored_in(&self, path: &Path, code: &str) -> bool {
        let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        let relative = absolute.strip_prefix(&self.root).unwrap_or(path);
        let Some(rule) = ALL.iter().find(|r| r.code == code) else {
            return false;
        };
        self.per_file_ignores
            .iter()
            .any(|(set, negated, selectors)| {
                (set.is_match(relative) || set.is_match(path)) != *negated
                    && selectors.iter().any(|s| selector_matches(s, rule))
            })
    }
}

/// One source's rule selection: the defaults, the configuration file or the command line.
struct Selection<'a> {
    select: Option<&'a [String]>,
    extend_select: &'a [String],
    ignore: &'a [String],
}

impl Selection<'_> {
    /// Whether `rule` is enabled after this layer, given whether it was before. Within a
    /// layer the most specific matching selector decides, and `ignore` wins a tie.
    fn decide(&self, rule: &RuleMeta, before: bool) -> bool {
        let best = |selectors: &mut dyn Iterator<Item = &String>| {
            selectors
                .filter(|s| selector_matches(s, rule))
                .map(|s| specificity(s))
                .max()
        };
        let selected = best(
            &mut self
                .select
                .unwrap_or_default()
                .iter()
                .chain(self.extend_select),
        );
        let ignored = best(&mut self.ignore.iter());
        match (selected, ignored) {
            (Some(s), Some(i)) => s > i,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => before && self.select.is_none(),
        }
    }
}

/// `select`/`ignore` of one layer alone, as in ruff ([`Selection::decide`]).
#[cfg(test)]
fn is_selected(rule: &RuleMeta, select: &[String], ignore: &[String]) -> bool {
    Selection {
        select: Some(select),
        extend_select: &[],
        ignore,
    }
    .decide(rule, false)
}

/// A user glob matches a path anywhere below the root and everything under a matching folder.
fn expand_glob(pattern: &str) -> Vec<String> {
    let pattern = pattern.trim_start_matches("./").trim_end_matches('/');
    let mut globs = vec![pattern.to_string(), format!("{pattern}/**")];
    if !pattern.contains('/') {
        globs.push(format!("**/{pattern}"));
        globs.push(format!("**/{pattern}/**"));
    }
    globs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_prefers_the_most_specific_selector() {
        let rule = ALL.iter().find(|r| r.code == "TW101").expect("TW101");
        assert!(is_selected(rule, &["ALL".into()], &[]));
        assert!(!is_selected(rule, &["ALL".into()], &["TW1".into()]));
        assert!(is_selected(rule, &["TW101".into()], &["TW1".into()]));
        assert!(!is_selected(rule, &["TW2".into()], &[]));
        assert!(!is_selected(
            rule,
            &["ALL".into()],
            &["effect-without-idempotency-key".into()]
        ));
    }
}
