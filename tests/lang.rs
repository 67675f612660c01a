//! Russian output: every rule is documented in both languages; the diagnostics and reviews of
//! every fixture come out in Russian, at the same places as in English; and `--lang` and
//! `lang = "ru"` choose the language on the command line.

mod common;

use std::collections::BTreeSet;
use std::path::Path;

use common::{example_and_fixtures, places, project, root, stderr, stdout, twice};
use twice::check::{Report, analyse, check};
use twice::config::{Overrides, Settings};
use twice::i18n::Lang;
use twice::review::{TaskReview, review_in};
use twice::rules::ALL;

fn settings(lang: Lang) -> Settings {
    let overrides = Overrides {
        select: Some(vec!["ALL".to_string()]),
        lang: Some(lang),
        ..Overrides::default()
    };
    Settings::resolve(None, &overrides, &root()).expect("settings")
}

fn check_in(path: &Path, lang: Lang) -> Report {
    check(&[path.to_path_buf()], &settings(lang), &root(), 2)
}

fn review_of(path: &Path, lang: Lang) -> Vec<TaskReview> {
    analyse(
        &[path.to_path_buf()],
        None,
        &settings(lang),
        &root(),
        2,
        |p, d| review_in(p, d, lang),
    )
    .1
}

/// Common English words that no Russian text should hold outside `code` spans.
const ENGLISH: &[&str] = &[
    "the",
    "a",
    "an",
    "task",
    "tasks",
    "run",
    "runs",
    "second",
    "again",
    "which",
    "without",
    "with",
    "and",
    "or",
    "after",
    "before",
    "every",
    "is",
    "are",
    "key",
    "call",
    "effect",
    "reaches",
    "when",
    "not",
    "of",
    "to",
    "in",
    "on",
    "at",
    "it",
    "its",
    "by",
    "for",
    "from",
    "pass",
    "send",
    "add",
    "use",
    "line",
    "none",
    "unknown",
    "yes",
    "no",
    "safe",
    "unsafe",
    "redelivery",
    "crash",
    "checks",
    "writes",
    "takes",
    "expires",
    "default",
];

/// The text outside `code` spans.
fn prose(text: &str) -> String {
    text.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// English words in the prose of a text.
fn english_words(text: &str) -> Vec<String> {
    prose(text)
        .split(|c: char| !c.is_ascii_alphabetic())
        .filter(|word| ENGLISH.contains(&word.to_ascii_lowercase().as_str()))
        .map(str::to_string)
        .collect()
}

fn has_cyrillic(text: &str) -> bool {
    text.chars()
        .any(|c| ('а'..='я').contains(&c.to_lowercase().next().unwrap_or(c)))
}

/// Asserts that a text is Russian: non-empty, with Cyrillic letters and no English words
/// outside code spans.
fn assert_russian(text: &str, what: &str) {
    assert!(!text.trim().is_empty(), "{what}: empty");
    assert!(has_cyrillic(text), "{what}: no Russian in {text:?}");
    let english = english_words(text);
    assert!(
        english.is_empty(),
        "{what}: English {english:?} in {text:?}"
    );
}

#[test]
fn every_rule_has_both_languages() {
    for rule in ALL {
        assert_eq!(rule.summary_in(Lang::En), rule.summary, "{}", rule.code);
        let summary = rule.summary_in(Lang::Ru);
        assert_ne!(
            summary, rule.summary,
            "{} has no Russian summary",
            rule.code
        );
        assert_russian(summary, &format!("{} summary", rule.code));

        let english = rule.markdown(Lang::En);
        let russian = rule.markdown(Lang::Ru);
        assert!(english.starts_with("## What it does"), "{}", rule.code);
        let mut sections = vec!["## Что делает", "## Почему это важно при повторном запуске"];
        if english.contains("## Example") {
            sections.push("## Пример");
        }
        if english.contains("## Use instead") {
            sections.push("## Как правильно");
        }
        let headings: Vec<&str> = russian.lines().filter(|l| l.starts_with('#')).collect();
        assert_eq!(headings, sections, "{} headings", rule.code);
        assert_eq!(
            english.lines().filter(|l| l.starts_with('#')).count(),
            sections.len(),
            "{}",
            rule.code
        );
        // The code examples are kept as they are.
        let code = |doc: &str| -> Vec<String> {
            doc.split("```")
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        };
        assert_eq!(code(&russian), code(&english), "{} examples", rule.code);
        let paragraphs: String = russian.split("```").step_by(2).collect();
        assert_russian(&paragraphs, &format!("{} documentation", rule.code));
    }
}

#[test]
fn diagnostics_of_every_fixture_are_in_russian_at_the_same_places() {
    let mut codes = BTreeSet::new();
    for fixture in example_and_fixtures() {
        let english = check_in(&fixture, Lang::En);
        let russian = check_in(&fixture, Lang::Ru);
        assert_eq!(
            places(&english).into_iter().collect::<BTreeSet<_>>(),
            places(&russian).into_iter().collect::<BTreeSet<_>>(),
            "{}",
            fixture.display()
        );
        for (en, ru) in english.diagnostics.iter().zip(&russian.diagnostics) {
            let at = format!("{} {}", fixture.display(), ru.code);
            assert!(
                !has_cyrillic(&en.message) && !has_cyrillic(&en.help),
                "{at}"
            );
            assert_russian(&ru.message, &format!("{at} message"));
            assert_russian(&ru.help, &format!("{at} help"));
            assert_eq!(en.fix.is_some(), ru.fix.is_some(), "{at}");
            if let Some(fix) = &ru.fix {
                assert_russian(&fix.message, &format!("{at} fix"));
            }
            codes.insert(ru.code);
        }
    }
    let missing: Vec<&str> = ALL
        .iter()
        .map(|r| r.code)
        .filter(|c| !c.starts_with("TW0") && !codes.contains(c))
        .collect();
    assert!(missing.is_empty(), "no fixture reports {missing:?}");
}

#[test]
fn reviews_are_in_russian() {
    let mut steps = 0;
    for fixture in example_and_fixtures() {
        let english = review_of(&fixture, Lang::En);
        let russian = review_of(&fixture, Lang::Ru);
        assert_eq!(english.len(), russian.len(), "{}", fixture.display());
        for (en, ru) in english.iter().zip(&russian) {
            assert_eq!((&en.task, en.verdict), (&ru.task, ru.verdict));
            let at = format!("{} {}", fixture.display(), ru.task);
            assert_russian(ru.verdict.label(Lang::Ru), &at);
            assert_russian(ru.exposure.label(Lang::Ru), &at);
            let d = &ru.delivery;
            for (field, text) in [
                ("acks", &d.acks),
                ("reject", &d.reject_on_worker_lost),
                ("time limit", &d.time_limit),
                ("broker", &d.broker),
            ] {
                // Values read from the code (a scheme, option names) stay as written.
                assert!(english_words(text).is_empty(), "{at} {field}: {text}");
            }
            assert_eq!(en.steps.len(), ru.steps.len(), "{at}");
            for step in &ru.steps {
                assert_russian(&step.text, &format!("{at} step"));
                if let Some(crash) = &step.crash {
                    assert_russian(crash, &format!("{at} crash"));
                }
                steps += 1;
            }
        }
    }
    assert!(steps > 50, "{steps} steps");
}

const UNKEYED: &str = "import stripe\nfrom celery import shared_task\n\n\n@shared_task\ndef charge(order_id):\n    stripe.PaymentIntent.create(amount=100, currency=\"eur\")\n";

#[test]
fn lang_flag_prints_russian_and_english_stays_the_default() {
    let dir = project(&[("tasks.py", UNKEYED)]);
    let english = twice(dir.path(), &["check"]);
    assert_eq!(english.status.code(), Some(1));
    let text = stdout(&english);
    assert!(
        text.contains("without an idempotency key") && !has_cyrillic(&text),
        "{text}"
    );

    let russian = twice(dir.path(), &["check", "--lang", "ru"]);
    assert_eq!(russian.status.code(), Some(1));
    let text = stdout(&russian);
    assert!(text.contains("error[TW101]: вызов `stripe.PaymentIntent.create` проводит платёж без ключа идемпотентности: повторный запуск `charge` снова списывает или выплачивает деньги"), "{text}");
    assert!(text.contains("help: передайте `idempotency_key="), "{text}");
    assert!(
        text.contains("Найдено: 1 проблема в 1 файле (проверка: 1 задача)"),
        "{text}"
    );

    let concise = twice(
        dir.path(),
        &["check", "--lang=ru", "--output-format", "concise"],
    );
    assert!(
        stdout(&concise).contains("TW101 вызов"),
        "{}",
        stdout(&concise)
    );

    let bad = twice(dir.path(), &["check", "--lang", "de"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("--lang"), "{}", stderr(&bad));
}

#[test]
fn lang_in_the_configuration_and_the_flag_overriding_it() {
    let dir = project(&[
        ("tasks.py", UNKEYED),
        ("pyproject.toml", "[tool.twice]\nlang = \"ru\"\n"),
    ]);
    let out = twice(dir.path(), &["check"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("проводит платёж без ключа идемпотентности"),
        "{}",
        stdout(&out)
    );
    let out = twice(dir.path(), &["check", "--lang", "en"]);
    let text = stdout(&out);
    assert!(text.contains("is a payment without an idempotency key") && !has_cyrillic(&text));
    let out = twice(dir.path(), &["check", "--isolated"]);
    assert!(!has_cyrillic(&stdout(&out)));

    // twice.toml takes the same key.
    let toml = project(&[("tasks.py", UNKEYED), ("twice.toml", "lang = \"ru\"\n")]);
    let out = twice(toml.path(), &["check", "--output-format", "concise"]);
    assert!(stdout(&out).contains("TW101 вызов"), "{}", stdout(&out));

    let bad = project(&[
        ("tasks.py", UNKEYED),
        ("pyproject.toml", "[tool.twice]\nlang = \"fr\"\n"),
    ]);
    for args in [&["check"][..], &["review"], &["rule", "TW101"]] {
        let out = twice(bad.path(), args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = stderr(&out);
        assert!(
            err.contains("pyproject.toml") && err.contains("`lang`") && err.contains("`fr`"),
            "{args:?}: {err}"
        );
    }
    let wrong_type = project(&[("pyproject.toml", "[tool.twice]\nlang = 1\n")]);
    let out = twice(wrong_type.path(), &["check"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn rule_documentation_in_russian() {
    let dir = project(&[]);
    let out = twice(dir.path(), &["rule", "TW101", "--lang", "ru"]);
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(
        text.starts_with("# effect-without-idempotency-key (TW101)\n\nГруппа: effects. Уровень по умолчанию: error.\n\n## Что делает\n"),
        "{text}"
    );
    assert!(text.contains("## Почему это важно при повторном запуске"));
    assert!(text.contains("idempotency_key=f\"charge-order-{order_id}\","));
    assert!(!text.contains("## What it does"));

    let fixable = stdout(&twice(dir.path(), &["rule", "TW104", "--lang", "ru"]));
    assert!(fixable.contains("Исправление: безопасное"), "{fixable}");

    let all = stdout(&twice(dir.path(), &["rule", "--all", "--lang", "ru"]));
    assert!(all.starts_with("код"), "{all}");
    assert!(
        all.lines()
            .any(|l| l.starts_with("TW101") && l.contains("ключ идемпотентности")),
        "{all}"
    );
    assert_eq!(all.lines().count(), ALL.len() + 1);

    let unknown = twice(dir.path(), &["rule", "TW999", "--lang", "ru"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr(&unknown).contains("неизвестное правило"));

    // `lang` from the configuration of the current folder; `--lang` wins.
    let configured = project(&[("pyproject.toml", "[tool.twice]\nlang = \"ru\"\n")]);
    let text = stdout(&twice(configured.path(), &["rule", "TW402"]));
    assert!(text.contains("## Что делает"), "{text}");
    let text = stdout(&twice(
        configured.path(),
        &["rule", "TW402", "--lang", "en"],
    ));
    assert!(text.contains("## What it does"), "{text}");
}

#[test]
fn review_in_russian() {
    let dir = project(&[("tasks.py", UNKEYED)]);
    let out = twice(dir.path(), &["review", "--lang", "ru"]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.starts_with("ОПАСНО  tasks.charge  (celery, tasks.py:6) · деньги\n"),
        "{text}"
    );
    assert!(text.contains("платёж через `stripe.PaymentIntent.create` без ключа идемпотентности"));
    assert!(text.contains("падение после этого шага: повторная доставка снова списывает"));
    assert!(
        text.ends_with("1 задача: безопасно — 0, под риском — 0, опасно — 1, неизвестно — 0\n")
    );

    let out = twice(
        dir.path(),
        &["review", "--lang", "ru", "--format", "markdown"],
    );
    let text = stdout(&out);
    assert!(
        text.starts_with("## twice review: что произойдёт"),
        "{text}"
    );
    assert!(text.contains("| опасно | `tasks.charge`"), "{text}");
    assert!(stderr(&out).contains("1 задача:"), "{}", stderr(&out));

    // JSON keeps its ids; the texts are Russian.
    let out = twice(dir.path(), &["review", "--lang", "ru", "--format", "json"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(json["tasks"][0]["verdict"], "unsafe");
    assert_eq!(json["tasks"][0]["exposure"], "money");
    let step = json["tasks"][0]["steps"][0]["text"].as_str().expect("text");
    assert_russian(step, "json step");
}

#[test]
fn syntax_errors_keep_the_parser_message_behind_a_russian_prefix() {
    let dir = project(&[("broken.py", "def f(:\n    pass\n")]);
    let out = twice(
        dir.path(),
        &["check", "--lang", "ru", "--output-format", "concise"],
    );
    let text = stdout(&out);
    assert!(text.contains("TW001 синтаксическая ошибка: "), "{text}");
}
