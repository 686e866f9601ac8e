//! Command-line interface (clap derive). `runner --config FILE` and
//! `runner run --config FILE` are the same run.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "runner",
    version,
    about = "Checks theorems about games at scale: solves every position by exact search and by the theorem's closed form, asserts they agree, and writes statistics to CSV.",
    after_help = "Exit codes: 0 success, 1 a check failed (minimax and formula disagree), 2 bad config or flags, 3 runtime error (I/O).\n\nExample: runner --config configs/deal8.toml",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run an experiment from a config file (same as `runner --config FILE`).
    Run(RunArgs),
    /// Solve one Tanhinmin position by minimax and by the μ formula.
    Solve(SolveArgs),
}

#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Experiment config (TOML); see configs/README.md for every key.
    #[arg(short, long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Output directory; overrides [output] dir from the config.
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Worker threads [default: all cores]. Results are identical for any count.
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Print no progress.
    #[arg(short, long)]
    pub quiet: bool,
    /// Seconds between plain progress lines when stderr is not a terminal.
    #[arg(long, value_name = "SECS", default_value_t = 5)]
    pub progress_secs: u64,
    /// Replace the study's claim with a deliberately wrong one, to prove the check fires.
    #[arg(long, hide = true)]
    pub inject_fault: bool,
}

#[derive(Args, Debug, Clone)]
pub struct SolveArgs {
    /// Hand of the player to move, as comma-separated strengths >= 1, e.g. 1,1,3,4.
    #[arg(long, value_name = "CARDS", value_delimiter = ',', required = true, num_args = 1..)]
    pub first: Vec<u32>,
    /// Hand of the other player, e.g. 1,2,3,5.
    #[arg(long, value_name = "CARDS", value_delimiter = ',', required = true, num_args = 1..)]
    pub second: Vec<u32>,
    /// Strength of the card on the field; 0 is an empty field.
    #[arg(long, value_name = "R", default_value_t = 0)]
    pub field: u32,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
