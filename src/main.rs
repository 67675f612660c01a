use std::process::ExitCode;

use clap::Parser;
use twice::cli::{Cli, run};

// jemalloc, with a scratch arena for syntax trees (`twice::arena`): the analysis allocates many
// small facts from every thread, and each file's tree is built, read once and thrown away;
// both measured faster on the benchmark corpus (see the README's performance section).
#[global_allocator]
static GLOBAL: twice::arena::Allocator = twice::arena::Allocator;

fn main() -> ExitCode {
    run(Cli::parse()).into()
}
