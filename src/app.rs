//! Dispatch from parsed flags to a run, with exit codes in one place.

use crate::cli::{Cli, Command, RunArgs};
use crate::config::Config;
use crate::engine::progress;
use crate::studies::{self, RunContext};
use clap::{CommandFactory, Parser};

pub const EXIT_OK: i32 = 0;
pub const EXIT_CHECK_FAILED: i32 = 1;
pub const EXIT_USAGE: i32 = 2;
pub const EXIT_RUNTIME: i32 = 3;

pub fn main() -> i32 {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::Run(args)) => run(&args),
        Some(Command::Solve(args)) => crate::solve::main(&args),
        None if cli.run.config.is_some() => run(&cli.run),
        None => {
            let _ = Cli::command().print_help();
            eprintln!("\nerror: no config given; try `runner --config configs/quick.toml`");
            EXIT_USAGE
        }
    }
}

fn run(args: &RunArgs) -> i32 {
    let Some(path) = &args.config else {
        eprintln!("error: `runner run` needs --config FILE");
        return EXIT_USAGE;
    };
    let config = match Config::load(path) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_USAGE;
        }
    };
    let threads = args
        .threads
        .map(usize::from)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let ctx = RunContext {
        config_path: path.clone(),
        out_dir: args.out.clone().unwrap_or_else(|| config.output_dir()),
        threads,
        progress: if args.quiet {
            progress::Mode::Quiet
        } else {
            progress::Mode::Auto {
                secs: args.progress_secs,
            }
        },
        inject_fault: args.inject_fault,
    };
    match studies::run(&config, &ctx) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            EXIT_RUNTIME
        }
    }
}
