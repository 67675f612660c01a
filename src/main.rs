use std::process::ExitCode;

use clap::Parser;
use twice::cli::{Cli, run};

// jemalloc: the analysis allocates many small facts from two threads; measured faster than the
// system allocator on the benchmark corpus (see the README's performance section).
#[cfg(not(target_env = "msvc"))]
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() -> ExitCode {
    run(Cli::parse()).into()
}
