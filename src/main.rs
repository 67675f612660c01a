use std::process::ExitCode;

use clap::Parser;
use twice::cli::{Cli, run};

fn main() -> ExitCode {
    run(Cli::parse()).into()
}
