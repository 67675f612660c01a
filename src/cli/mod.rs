//! The command line: arguments, commands and exit status. The only place that prints.

mod check;
mod review;
mod rule;

pub use rule::rules_document;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::i18n::Lang;
use crate::render::OutputFormat;

/// twice: what happens when this task runs twice?
///
/// A static analyzer for Python background tasks (Celery, Dramatiq, RQ, Huey, arq, Taskiq,
/// Procrastinate, Django tasks): payments and e-mails without idempotency keys, keys from
/// uuid4() or the clock, crash windows, lost progress on retries.
#[derive(Debug, Parser)]
#[command(name = "twice", version, about, long_about = None, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check Python files for tasks that are unsafe to run twice.
    Check(CheckArgs),
    /// For every task, what happens when it runs twice: its replay story and a verdict.
    Review(ReviewArgs),
    /// Print a rule's documentation, or list every rule.
    Rule(RuleArgs),
}

#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// Files or folders to review [default: .]
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = crate::render::review::ReviewFormat::Terminal)]
    pub format: crate::render::review::ReviewFormat,
    /// Only tasks whose code, or the code of a helper they reach, changed since this git revision.
    #[arg(long, value_name = "REF")]
    pub changed_since: Option<String>,
    /// When to use colours.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Use this configuration file (a pyproject.toml with [tool.twice], or a twice.toml).
    #[arg(long, value_name = "PATH", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Ignore all configuration files.
    #[arg(long)]
    pub isolated: bool,
    /// Worker threads [default: the number of cores].
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
    /// Language of messages, help lines and rule documentation [default: `lang` from the
    /// configuration, else en].
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<Lang>,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Files or folders to check [default: .]; `-` reads Python source from standard input.
    pub paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Full)]
    pub output_format: OutputFormat,
    /// Write the diagnostics (or `--statistics`) to this file instead of standard output.
    #[arg(
        long,
        short = 'o',
        value_name = "PATH",
        conflicts_with_all = ["diff", "show_files", "write_baseline"]
    )]
    pub output_file: Option<PathBuf>,
    /// When to use colours.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Rules to enable: codes (TW101), prefixes (TW1), names or ALL. Replaces the selection of
    /// the configuration, its `ignore` included, as ruff's `--select` does.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub select: Option<Vec<String>>,
    /// Rules to enable on top of `--select`, or of `select` from the configuration.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub extend_select: Vec<String>,
    /// Rules to disable, on top of `ignore` from the configuration.
    #[arg(long, value_delimiter = ',', value_name = "RULE")]
    pub ignore: Vec<String>,
    /// Use this configuration file (a pyproject.toml with [tool.twice], or a twice.toml).
    #[arg(long, value_name = "PATH", conflicts_with = "isolated")]
    pub config: Option<PathBuf>,
    /// Ignore all configuration files.
    #[arg(long)]
    pub isolated: bool,
    /// Apply the safe fixes (TW104's `update_fields`) to the files.
    #[arg(long, conflicts_with = "diff")]
    pub fix: bool,
    /// Show the fixes as a diff instead of applying them; exit 1 when there are any.
    #[arg(long)]
    pub diff: bool,
    /// Worker threads [default: the number of cores].
    #[arg(long, short = 'j', value_name = "N")]
    pub threads: Option<usize>,
    /// Report only the diagnostics that this baseline file (from `--write-baseline`) does not
    /// hold.
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    pub baseline: Option<PathBuf>,
    /// Write every current diagnostic to this baseline file and exit 0.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fix", "diff"])]
    pub write_baseline: Option<PathBuf>,
    /// Print how many diagnostics each rule produced instead of the diagnostics.
    #[arg(long, conflicts_with = "diff")]
    pub statistics: bool,
    /// Print the files that would be checked, one per line, and exit.
    #[arg(long, conflicts_with_all = ["fix", "diff", "statistics", "write_baseline"])]
    pub show_files: bool,
    /// Exit 0 even when there are diagnostics (errors still exit 2).
    #[arg(long, short = 'e')]
    pub exit_zero: bool,
    /// Print the diagnostics only: no summary line and no notes on standard error.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// The path of the source read from standard input (`-`): shown in the output and used to
    /// find the configuration, per-file ignores and the module name.
    #[arg(long, value_name = "PATH")]
    pub stdin_filename: Option<PathBuf>,
    /// Language of messages, help lines and rule documentation [default: `lang` from the
    /// configuration, else en].
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<Lang>,
}

#[derive(Debug, Args)]
pub struct RuleArgs {
    /// A rule code or name, e.g. TW101 or effect-without-idempotency-key.
    #[arg(required_unless_present = "all")]
    pub rule: Option<String>,
    /// List every rule: code, name, severity and summary.
    #[arg(long, conflicts_with = "rule")]
    pub all: bool,
    /// Language of the documentation [default: `lang` from the configuration of the current
    /// folder, else en].
    #[arg(long, value_enum, value_name = "LANG")]
    pub lang: Option<Lang>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    pub fn enabled(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none() && io::stdout().is_terminal()
            }
        }
    }
}

/// ruff's convention: 0 nothing found, 1 diagnostics, 2 usage, configuration or I/O error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    Success,
    Failure,
    Error,
}

impl From<ExitStatus> for ExitCode {
    fn from(status: ExitStatus) -> ExitCode {
        match status {
            ExitStatus::Success => ExitCode::from(0),
            ExitStatus::Failure => ExitCode::from(1),
            ExitStatus::Error => ExitCode::from(2),
        }
    }
}

pub fn run(cli: Cli) -> ExitStatus {
    let result = match cli.command {
        Command::Check(args) => check::run(&args),
        Command::Review(args) => review::run(&args),
        Command::Rule(args) => rule::run(&args),
    };
    match result {
        Ok(status) => status,
        // A closed pipe (`twice check | head`) is not an error.
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => ExitStatus::Success,
        Err(error) => {
            let _ = writeln!(io::stderr(), "twice: error: {error}");
            ExitStatus::Error
        }
    }
}
