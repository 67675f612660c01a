//! `twice rule TW101` and `twice rule --all`.

use std::io::{self, Write};

use crate::cli::{ExitStatus, RuleArgs};
use crate::registry::find;
use crate::rules::ALL;

pub fn run(args: &RuleArgs) -> io::Result<ExitStatus> {
    let mut out = io::stdout().lock();
    if args.all {
        writeln!(
            out,
            "{:<7} {:<42} {:<8} summary",
            "code", "name", "severity"
        )?;
        for rule in ALL {
            writeln!(
                out,
                "{:<7} {:<42} {:<8} {}",
                rule.code, rule.name, rule.severity, rule.summary
            )?;
        }
        return Ok(ExitStatus::Success);
    }
    let query = args.rule.as_deref().unwrap_or_default();
    let Some(rule) = find(query) else {
        writeln!(
            io::stderr(),
            "twice: error: unknown rule `{query}`; `twice rule --all` lists them"
        )?;
        return Ok(ExitStatus::Error);
    };
    writeln!(out, "# {} ({})\n", rule.name, rule.code)?;
    writeln!(
        out,
        "Group: {}. Default severity: {}.{}\n",
        rule.group,
        rule.severity,
        if rule.fixable {
            " Fix: safe, applied by `--fix`."
        } else {
            ""
        }
    )?;
    write!(
        out,
        "{}",
        rule.doc
            .lines()
            .map(|line| line.strip_prefix(' ').unwrap_or(line))
            .collect::<Vec<_>>()
            .join("\n")
    )?;
    writeln!(out)?;
    Ok(ExitStatus::Success)
}
