//! `twice rule TW101` and `twice rule --all`.

use std::io::{self, Write};

use crate::cli::{ExitStatus, RuleArgs};
use crate::config::find_config;
use crate::i18n::{Lang, tr};
use crate::registry::find;
use crate::rules::ALL;

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
                rule.severity,
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
    writeln!(
        out,
        "# {}\n",
        tr!(lang, "rule.header", name = rule.name, code = rule.code)
    )?;
    writeln!(
        out,
        "{}\n",
        tr!(
            lang,
            "rule.meta",
            group = rule.group,
            severity = rule.severity,
            fix = if rule.fixable {
                lang.text("rule.fix")
            } else {
                ""
            }
        )
    )?;
    writeln!(out, "{}", rule.markdown(lang))?;
    Ok(ExitStatus::Success)
}

/// `lang` from the configuration that applies to the current folder (English without one).
fn config_lang() -> Result<Lang, String> {
    let config = find_config(std::path::Path::new(".")).map_err(|e| e.to_string())?;
    Ok(config
        .and_then(|c| c.options.lang)
        .and_then(|name| Lang::from_name(&name))
        .unwrap_or_default())
}
