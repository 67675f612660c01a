//! Languages of the output. Every diagnostic message, `help:` line and report text is a template
//! with named placeholders (`{task}`), kept per language in `i18n/en.toml` and `i18n/ru.toml`
//! under the same stable keys (`tw101.message`, `effect.payment.repeat`). The Russian rule
//! documentation is in `i18n/docs_ru.toml`, and Russian names for the catalog's descriptive
//! texts (delivery metadata, framework delivery notes) in `i18n/catalog_ru.toml`.
//!
//! Templates are formatted with [`tr!`]: `{name}` is replaced by the argument of that name, and
//! `{{`/`}}` stand for literal braces.

use std::fmt::{self, Write as _};
use std::sync::LazyLock;

use clap::ValueEnum;
use rustc_hash::FxHashMap as HashMap;

const EN: &str = include_str!("i18n/en.toml");
const RU: &str = include_str!("i18n/ru.toml");
const DOCS_RU: &str = include_str!("i18n/docs_ru.toml");
const CATALOG_RU: &str = include_str!("i18n/catalog_ru.toml");

/// The language of messages, help lines, rule documentation and reviews.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, ValueEnum)]
pub enum Lang {
    /// English (the default).
    #[default]
    En,
    /// Russian.
    Ru,
}

impl Lang {
    /// Every language, for `lang` in the configuration and for tests.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Ru];

    /// The name used on the command line and in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Ru => "ru",
        }
    }

    /// The language of a name from the configuration (`"ru"`).
    pub fn from_name(name: &str) -> Option<Lang> {
        Lang::ALL.into_iter().find(|lang| lang.name() == name)
    }

    /// The template stored under `key`. A key missing in Russian falls back to English, a key
    /// missing everywhere to the key itself (tests keep both files complete).
    pub fn text(self, key: &'static str) -> &'static str {
        let own = match self {
            Lang::En => &*EN_TEXTS,
            Lang::Ru => &*RU_TEXTS,
        };
        own.get(key)
            .or_else(|| EN_TEXTS.get(key))
            .map_or(key, String::as_str)
    }

    /// The word for `n` things: `{key}.one`, `{key}.few` or `{key}.many` by the language's plural
    /// rules ("1 task", "2 tasks"; "1 задача", "2 задачи", "5 задач").
    pub fn plural(self, key: &'static str, n: usize) -> &'static str {
        let form = match self {
            Lang::En if n == 1 => "one",
            Lang::En => "many",
            Lang::Ru => match (n % 10, n % 100) {
                (1, 11) => "many",
                (1, _) => "one",
                (2..=4, 12..=14) => "many",
                (2..=4, _) => "few",
                _ => "many",
            },
        };
        let texts = match self {
            Lang::En => &*EN_TEXTS,
            Lang::Ru => &*RU_TEXTS,
        };
        texts
            .get(&format!("{key}.{form}"))
            .map_or(key, String::as_str)
    }

    /// A descriptive text of the catalog (written in English in `catalog.toml`) in this
    /// language; the text itself when there is no translation.
    pub fn catalog(self, english: &str) -> &str {
        match self {
            Lang::En => english,
            Lang::Ru => CATALOG_TEXTS.get(english).map_or(english, String::as_str),
        }
    }

    /// The Russian documentation of a rule: (summary, Markdown).
    pub fn rule_doc(self, code: &str) -> Option<(&'static str, &'static str)> {
        match self {
            Lang::En => None,
            Lang::Ru => RULE_DOCS
                .get(code)
                .map(|(summary, doc)| (summary.as_str(), doc.as_str())),
        }
    }
}

impl fmt::Display for Lang {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

static EN_TEXTS: LazyLock<HashMap<String, String>> = LazyLock::new(|| templates(EN));
static RU_TEXTS: LazyLock<HashMap<String, String>> = LazyLock::new(|| templates(RU));
static CATALOG_TEXTS: LazyLock<HashMap<String, String>> = LazyLock::new(|| templates(CATALOG_RU));
static RULE_DOCS: LazyLock<HashMap<String, (String, String)>> =
    LazyLock::new(|| rule_docs(DOCS_RU));

/// The templates of a file, keyed by their dotted path (`[tw101] message = ...` is
/// `tw101.message`). The files are part of the binary; tests check that they parse.
fn templates(text: &str) -> HashMap<String, String> {
    let mut found = HashMap::default();
    if let Ok(table) = toml::from_str::<toml::Table>(text) {
        flatten("", &table, &mut found);
    }
    found
}

fn flatten(prefix: &str, table: &toml::Table, found: &mut HashMap<String, String>) {
    for (name, value) in table {
        let key = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        match value {
            toml::Value::String(text) => {
                found.insert(key, text.clone());
            }
            toml::Value::Table(inner) => flatten(&key, inner, found),
            _ => {}
        }
    }
}

/// `[TW101] summary = "..." doc = """..."""`.
fn rule_docs(text: &str) -> HashMap<String, (String, String)> {
    let Ok(table) = toml::from_str::<toml::Table>(text) else {
        return HashMap::default();
    };
    table
        .iter()
        .filter_map(|(code, value)| {
            let summary = value.get("summary")?.as_str()?;
            let doc = value.get("doc")?.as_str()?;
            Some((code.clone(), (summary.to_string(), doc.to_string())))
        })
        .collect()
}

/// Fills a template: `{name}` becomes the argument `name`, `{{` and `}}` literal braces. A
/// placeholder without an argument is kept as written (and fails debug builds).
pub fn format(template: &str, args: &[(&str, &dyn fmt::Display)]) -> String {
    let mut out = String::with_capacity(template.len() + 64);
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            out.push_str(&tail[..1]);
            rest = &tail[2..];
            continue;
        }
        if let Some(name) = placeholder_at(tail) {
            match args.iter().find(|(n, _)| *n == name) {
                Some((_, value)) => {
                    let _ = write!(out, "{value}");
                }
                None => {
                    debug_assert!(false, "no argument `{name}` for the template {template:?}");
                    out.push_str(&tail[..name.len() + 2]);
                }
            }
            rest = &tail[name.len() + 2..];
            continue;
        }
        out.push_str(&tail[..1]);
        rest = &tail[1..];
    }
    out.push_str(rest);
    out
}

/// The name of the placeholder `{name}` at the start of `text`.
fn placeholder_at(text: &str) -> Option<&str> {
    let inner = text.strip_prefix('{')?;
    let end = inner.find('}')?;
    let name = &inner[..end];
    let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some(name)
}

/// The placeholder names of a template, in order, with repeats.
pub fn placeholders(template: &str) -> Vec<&str> {
    let mut found = Vec::new();
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        let tail = &rest[at..];
        if tail.starts_with("{{") || tail.starts_with("}}") {
            rest = &tail[2..];
        } else if let Some(name) = placeholder_at(tail) {
            found.push(name);
            rest = &tail[name.len() + 2..];
        } else {
            rest = &tail[1..];
        }
    }
    found
}

/// Fills the template `key` of a language with named arguments:
/// `tr!(lang, "tw101.message", subject = clause, task = name)`.
macro_rules! tr {
    ($lang:expr, $key:expr $(, $name:ident = $value:expr)* $(,)?) => {
        $crate::i18n::format(
            $crate::i18n::Lang::text($lang, $key),
            &[$((stringify!($name), &$value as &dyn ::std::fmt::Display)),*],
        )
    };
}
pub(crate) use tr;

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::*;

    fn parsed(text: &str, name: &str) -> BTreeMap<String, String> {
        let table: toml::Table = toml::from_str(text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut found = HashMap::default();
        flatten("", &table, &mut found);
        found.into_iter().collect()
    }

    #[test]
    fn both_languages_have_the_same_keys_and_placeholders() {
        let en = parsed(EN, "en.toml");
        let ru = parsed(RU, "ru.toml");
        assert!(en.len() > 100, "{} templates", en.len());
        let en_keys: BTreeSet<&String> = en.keys().collect();
        let ru_keys: BTreeSet<&String> = ru.keys().collect();
        assert_eq!(
            en_keys.difference(&ru_keys).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "keys missing in ru.toml"
        );
        assert_eq!(
            ru_keys.difference(&en_keys).collect::<Vec<_>>(),
            Vec::<&&String>::new(),
            "keys missing in en.toml"
        );
        for (key, english) in &en {
            let russian = &ru[key];
            let en_names: BTreeSet<&str> = placeholders(english).into_iter().collect();
            let ru_names: BTreeSet<&str> = placeholders(russian).into_iter().collect();
            assert_eq!(en_names, ru_names, "placeholders of `{key}`");
            assert!(!russian.trim().is_empty(), "`{key}` is empty in ru.toml");
        }
    }

    #[test]
    fn every_template_has_only_well_formed_braces() {
        for (name, text) in [("en.toml", EN), ("ru.toml", RU)] {
            for (key, template) in parsed(text, name) {
                let mut rest = template.as_str();
                while let Some(at) = rest.find(['{', '}']) {
                    let tail = &rest[at..];
                    if tail.starts_with("{{") || tail.starts_with("}}") {
                        rest = &tail[2..];
                    } else if let Some(p) = placeholder_at(tail) {
                        rest = &tail[p.len() + 2..];
                    } else {
                        panic!("{name}: `{key}` has a stray brace: {template:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn formatting_fills_placeholders_and_escapes() {
        let out = format(
            "pass `options={{\"{option}\": {key}}}` ({n})",
            &[("option", &"idem"), ("key", &"f\"a-{id}\""), ("n", &3)],
        );
        assert_eq!(out, "pass `options={\"idem\": f\"a-{id}\"}` (3)");
        assert_eq!(placeholders("{a} {{b}} {c}{a}"), vec!["a", "c", "a"]);
        assert_eq!(format("a } b { c", &[]), "a } b { c");
    }

    #[test]
    fn russian_plurals() {
        let forms: Vec<&str> = [1, 2, 5, 11, 12, 21, 22, 25, 111]
            .iter()
            .map(|&n| Lang::Ru.plural("plural.task", n))
            .collect();
        assert_eq!(
            forms,
            [
                "задача",
                "задачи",
                "задач",
                "задач",
                "задач",
                "задача",
                "задачи",
                "задач",
                "задач"
            ]
        );
        assert_eq!(Lang::En.plural("plural.task", 1), "task");
        assert_eq!(Lang::En.plural("plural.task", 0), "tasks");
    }

    #[test]
    fn the_data_files_parse() {
        parsed(CATALOG_RU, "catalog_ru.toml");
        let docs: toml::Table = toml::from_str(DOCS_RU).expect("docs_ru.toml");
        assert_eq!(
            rule_docs(DOCS_RU).len(),
            docs.len(),
            "every entry has both fields"
        );
    }

    #[test]
    fn every_rule_and_no_other_has_russian_documentation() {
        let codes: BTreeSet<&str> = crate::rules::ALL.iter().map(|r| r.code).collect();
        let documented: BTreeSet<&str> = RULE_DOCS.keys().map(String::as_str).collect();
        assert_eq!(codes, documented);
    }

    #[test]
    fn every_descriptive_catalog_text_and_no_other_has_a_russian_name() {
        let catalog = crate::catalog::Catalog::new(&[], &[]);
        let mut texts: BTreeSet<&str> = catalog.metadata.iter().map(|m| m.what.as_str()).collect();
        for framework in &catalog.frameworks {
            texts.extend(framework.delivery.as_deref());
            texts.extend(framework.retries.as_deref());
        }
        let translated: BTreeSet<&str> = CATALOG_TEXTS.keys().map(String::as_str).collect();
        assert_eq!(texts, translated);
    }

    #[test]
    fn names_round_trip() {
        for lang in Lang::ALL {
            assert_eq!(Lang::from_name(lang.name()), Some(lang));
            let value = lang.to_possible_value().expect("visible");
            assert_eq!(value.get_name(), lang.name());
        }
        assert_eq!(Lang::from_name("de"), None);
    }
}
