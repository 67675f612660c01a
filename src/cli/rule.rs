//! `twice rule TW101` and `twice rule --all`.

use std::io::{self, Write};

use crate::cli::{ExitStatus, RuleArgs};
use crate::config::find_config;
use crate::i18n::{Lang, tr};
use crate::registry::find;
use crate::rules::{ALL, RuleMeta};

pub fn run(args: &RuleArgs) -> io::Result<ExitStatus> {
    let lang = match args.lang {
        Some(lang) => lang,
        None => match config_lang() {
            Ok(lang) => lang,
            Err(message) => {
                writeln!(io::stderr(), "twice: error: {message}")?;
                return Ok(ExitStatus::Error);
            }
        },
    };
    let mut out = io::stdout().lock();
    if args.all {
        writeln!(
            out,
            "{:<7} {:<42} {:<8} {}",
            lang.text("rule.col_code"),
            lang.text("rule.col_name"),
            lang.text("rule.col_severity"),
            lang.text("rule.col_summary")
        )?;
        for rule in ALL {
            writeln!(
                out,
                "{:<7} {:<42} {:<8} {}",
                rule.code,
                rule.name,
                // As text: the severity's `Display` ignores the width.
                rule.severity.to_string(),
                rule.summary_in(lang)
            )?;
        }
        return Ok(ExitStatus::Success);
    }
    let query = args.rule.as_deref().unwrap_or_default();
    let Some(rule) = find(query) else {
        writeln!(
            io::stderr(),
            "twice: error: {}",
            tr!(lang, "rule.unknown", rule = query)
        )?;
        return Ok(ExitStatus::Error);
    };
    write!(out, "{}", rule_page(rule, lang, 1))?;
    Ok(ExitStatus::Success)
}

/// A rule's documentation as `twice rule` prints it, its title at heading `level` and its
/// sections one level below.
fn rule_page(rule: &RuleMeta, lang: Lang, level: usize) -> String {
    let title = tr!(lang, "rule.header", name = rule.name, code = rule.code);
    let meta = tr!(
        lang,
        "rule.meta",
        group = rule.group,
        severity = rule.severity,
        fix = if rule.fixable {
            lang.text("rule.fix")
        } else {
            ""
        }
    );
    let mut page = format!("{} {title}\n\n{meta}\n\n", "#".repeat(level));
    // The sections are written at level 2; a `#` inside a code block is Python.
    let mut in_code = false;
    for line in rule.markdown(lang).lines() {
        if line.starts_with("```") {
            in_code = !in_code;
        }
        if !in_code && line.starts_with("## ") {
            page.push_str(&"#".repeat(level - 1));
        }
        page.push_str(line);
        page.push('\n');
    }
    page
}

/// `docs/rules.md`: every rule's documentation in one page, each under an anchor named by its
/// lower-case code, where the SARIF and GitLab reports' rule links point
/// ([`crate::render::rule_url`]). A test keeps the file equal to this text.
pub fn rules_document(lang: Lang) -> String {
    let mut doc = String::from(
        "<!-- Generated from the rules' documentation (`twice rule`); do not edit. \
         Regenerate with `TWICE_UPDATE_DOCS=1 cargo test --test docs`. -->\n\n# Rules\n\n",
    );
    doc.push_str(&format!(
        "| {} | {} | {} | {} |\n|---|---|---|---|\n",
        lang.text("rule.col_code"),
        lang.text("rule.col_name"),
        lang.text("rule.col_severity"),
        lang.text("rule.col_summary")
    ));
    for rule in ALL {
        let anchor = rule.code.to_ascii_lowercase();
        doc.push_str(&format!(
            "| [{}](#{anchor}) | `{}` | {} | {} |\n",
            rule.code,
            rule.name,
            rule.severity,
            rule.summary_in(lang)
        ));
    }
    for rule in ALL {
        let anchor = rule.code.to_ascii_lowercase();
        doc.push_str(&format!("\n<a id=\"{anchor}\"></a>\n\n"));
        doc.push_str(&rule_page(rule, lang, 2));
    }
    doc
}

/// `lang` from the configuration that applies to the current folder (English without one).
fn config_lang() -> Result<Lang, String> {
    let config = find_config(std::path::Path::new(".")).map_err(|e| e.to_string())?;
    Ok(config
        .and_then(|c| c.options.lang)
        .and_then(|name| Lang::from_name(&name))
        .unwrap_or_default())
}
