//! Command-line interface (clap derive). `runner --config FILE` and
//! `runner run --config FILE` are the same run.
//!
//! The doc comments on the flags below are their `--help` text, written for
//! a terminal: "[output] dir" names a config table there, not a rustdoc link,
//! and "<name>" a placeholder, not an HTML tag.
#![allow(rustdoc::broken_intra_doc_links, rustdoc::invalid_html_tags)]

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "runner",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("RUNNER_GIT_COMMIT"), ")"),
    about = "Checks theorems about games at scale: solves every position by exact search and by the theorem's closed form, asserts they agree, and writes statistics to CSV.",
    after_help = "Exit codes: 0 success, 1 a check failed (minimax and formula disagree), 2 bad config, flags or shards, 3 runtime error (I/O), 4 interrupted by SIGINT/SIGTERM (checkpointed; rerun with --resume).\n\nExample: runner --config configs/deal8.toml",
    args_conflicts_with_subcommands = true
)]
/// The command line.
pub struct Cli {
    /// A subcommand; without one, the flags below run a config.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The flags of a run, for `runner --config FILE` without `run`.
    #[command(flatten)]
    pub run: RunArgs,
}

/// What `runner` does.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run an experiment from a config file (same as `runner --config FILE`).
    Run(RunArgs),
    /// Solve one Tanhinmin position by minimax and by the μ formula.
    Solve(SolveArgs),
    /// Merge the shard directories of one sharded run into the full results.
    Merge(MergeArgs),
    /// Write SLURM batch scripts that run a config as an array job, then merge.
    Slurm(SlurmArgs),
    /// Redraw the SVG pictures of a results directory from its CSV tables.
    Plot(PlotArgs),
    /// Write DIR/report.html: one self-contained page with every table, the pictures inline, and the provenance.
    Report(ReportArgs),
    /// Print a table of a results directory (stats.csv unless --table) as Markdown or LaTeX, to paste into a paper or a README; which run wrote it goes in a comment above it.
    Table(TableArgs),
    /// Check that results directory CANDIDATE is consistent with BASELINE: exact tables equal, sampled rates by a two-proportion test. Exit 0 consistent, 1 not.
    Diff(DiffArgs),
    /// Draw the first-player rate against hand size of several runs in one picture (for example the plain game beside its variants), with a CSV of the points.
    Compare(CompareArgs),
    /// Print a shell completion script on stdout (for example: runner completions bash > /etc/bash_completion.d/runner).
    Completions(CompletionsArgs),
    /// Print the man page (roff) on stdout (for example: runner man > runner.1; man ./runner.1).
    Man,
    /// Show what a config will do before running it: cells, chunks, memory, a timed estimate, and a cluster recipe.
    Plan(PlanArgs),
    /// Write the tables of the chunks a stopped or running run has finished so far (from its checkpoint, read only) to a directory of their own, and print its summary: the rates so far, for runs of days.
    Interim(InterimArgs),
}

/// Flags of `runner interim`.
#[derive(Args, Debug, Clone)]
pub struct InterimArgs {
    /// The run's experiment config (TOML).
    #[arg(short, long, value_name = "FILE")]
    pub config: PathBuf,
    /// The run's output directory, where its checkpoint is [default: [output] dir from the config]. For a sharded run, the shards' directories (`--out DIR/shard-*`): a stopped or running shard's checkpoint and a finished shard's partial.json both count.
    #[arg(short, long, value_name = "DIR", num_args = 1..)]
    pub out: Vec<PathBuf>,
    /// Where to write the interim tables, pictures and manifest: a directory of their own, never the run's.
    #[arg(long, value_name = "DIR")]
    pub to: PathBuf,
}

/// Flags of `runner diff`.
#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// The reference results directory (for example the committed results/deal8).
    #[arg(value_name = "BASELINE")]
    pub baseline: PathBuf,
    /// The results directory to check against it.
    #[arg(value_name = "CANDIDATE")]
    pub candidate: PathBuf,
    /// Significance level: a sampled cell whose two-proportion p-value is below it is inconsistent.
    #[arg(long, default_value_t = 0.001, value_parser = parse_alpha)]
    pub alpha: f64,
}

fn parse_alpha(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(a) if a > 0.0 && a < 1.0 => Ok(a),
        _ => Err(format!(
            "{s:?} is not a probability strictly between 0 and 1"
        )),
    }
}

/// One card of a hand given to `runner solve`. A hand copied from a
/// results table (`formula_failures.csv` writes "9 10") and quoted is one
/// argument with a space in it: say how to write it, not just that a digit
/// is wrong. (Strengths past the deck are refused later, with the hand.)
fn parse_card(s: &str) -> Result<u32, String> {
    s.trim().parse::<u32>().map_err(|_| {
        "not a card strength (an integer >= 1); write a hand as 9,10 or as 9 10, unquoted".into()
    })
}

/// Flags of `runner completions`.
#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// Flags of `runner plan`.
#[derive(Args, Debug, Clone)]
pub struct PlanArgs {
    /// Experiment config (TOML).
    #[arg(short, long, value_name = "FILE")]
    pub config: PathBuf,
    /// Output directory the run will use, where a stopped run's checkpoint is; overrides [output] dir from the config.
    #[arg(short, long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Worker threads the run will use [default: all cores].
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
    /// Seconds to spend timing a sample of the run on this machine (beside a stopped run's checkpoint, of the chunks it has left, for the time left); 0 skips the estimate.
    #[arg(long, value_name = "SECS", default_value_t = 4, value_parser = clap::value_parser!(u64).range(0..=600))]
    pub calibrate_secs: u64,
}

/// Flags of `runner plot`.
#[derive(Args, Debug, Clone)]
pub struct PlotArgs {
    /// Results directory holding stats.csv, rates.csv and/or mu.csv.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Flags of `runner compare`.
#[derive(Args, Debug, Clone)]
pub struct CompareArgs {
    /// Series to draw, each NAME=DIR[,DIR...]: the legend's name and the results directories whose n x n cells on an empty field make its line (stats.csv or rates.csv).
    #[arg(required = true, value_name = "NAME=DIRS")]
    pub series: Vec<String>,
    /// The picture to write (SVG); the CSV of its points goes beside it, with the extension .csv.
    #[arg(short, long, value_name = "FILE")]
    pub out: PathBuf,
    /// The picture's title.
    #[arg(long, default_value = "First-player win rate by hand size")]
    pub title: String,
    /// Draw only hands of at least this many cards (1x1, always won by the first player, squeezes the scale).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub min_cards: u32,
    /// Draw only hands of at most this many cards.
    #[arg(long, value_name = "N", default_value_t = u32::MAX)]
    pub max_cards: u32,
    /// Also draw the tables of runs not finished (written by `runner interim`), marked as interim in the legend, under the title and in a last CSV column `interim`. Without it such a directory is refused, so that no picture passes a run's chunks so far off as its result.
    #[arg(long)]
    pub interim: bool,
}

/// Flags of `runner report`.
#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// Results directory of a run or a merge.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
}

/// Flags of `runner table`.
#[derive(Args, Debug, Clone)]
pub struct TableArgs {
    /// Results directory of a run or a merge.
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// Which CSV table of DIR to print.
    #[arg(long, value_name = "FILE", default_value = "stats.csv")]
    pub table: String,
    /// The text format.
    #[arg(long, value_enum, default_value_t = TableFormat::Markdown)]
    pub format: TableFormat,
    /// The columns to print, in this order, comma-separated (for example n_first,n_second,first_win_rate,ci95_low,ci95_high) [default: all].
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub columns: Vec<String>,
    /// Cut every decimal to N digits after the point, on its text (no float in between): rates to the nearest, interval bounds (ci95_low, ci95_high) outward so that the printed interval still holds the one computed. Integers and exact fractions stay as written [default: as the run wrote them].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u8).range(0..=30))]
    pub digits: Option<u8>,
    /// Also print the tables of a run not finished (written by `runner interim`), marked as interim in the comment above the table. Without it they are refused, so that no paper quotes a run's chunks so far as its result.
    #[arg(long)]
    pub interim: bool,
}

/// The formats of `runner table`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    /// A GitHub-flavoured Markdown pipe table.
    Markdown,
    /// A LaTeX tabular with booktabs rules.
    Latex,
}

/// Flags of `runner merge`.
#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// Shard output directories (each holds a partial.json), all shards of one run.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where to write the merged tables.
    #[arg(short, long, value_name = "DIR")]
    pub out: PathBuf,
    /// First solve N chunks again, picked at random among all the shards' chunks, from the records each finished shard keeps (chunks.jsonl beside its partial.json), and refuse the merge (exit 2) if a shard's records do not add up to its partial.json or a chunk comes out differently: catches a shard result forged with its checksum recomputed.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub recheck: Option<u64>,
    /// With --recheck: worker threads [default: all cores].
    #[arg(short = 'j', long, value_name = "N", requires = "recheck", value_parser = clap::value_parser!(u16).range(1..))]
    pub threads: Option<u16>,
}

/// Flags of `runner slurm`.
#[derive(Args, Debug, Clone)]
pub struct SlurmArgs {
    /// Experiment config to run.
    #[arg(short, long, value_name = "FILE")]
    pub config: PathBuf,
    /// Number of shards (array tasks).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_SHARDS))]
    pub shards: u64,
    /// Where to write the scripts [default: scripts/slurm/<name>].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Wall-time limit per array task, as SLURM's --time.
    #[arg(long, default_value = "04:00:00")]
    pub time: String,
    /// CPUs per array task.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..))]
    pub cpus: u16,
    /// Memory per array task, as SLURM's --mem.
    #[arg(long, default_value = "8G")]
    pub mem: String,
    /// Path of the runner binary as the compute nodes see it [default: this binary].
    #[arg(long, value_name = "PATH")]
    pub runner: Option<PathBuf>,
    /// Extra sbatch options for both jobs, e.g. "--partition=short".
    #[arg(
        long,
        value_name = "OPTS",
        default_value = "",
        allow_hyphen_values = true
    )]
    pub sbatch_options: String,
    /// Run the tasks with --keep-memo, and have SLURM signal each 5 minutes before its time limit (--signal=B:TERM@300) so that it can write its memo: for variant deals longer than one task's time.
    #[arg(long)]
    pub keep_memo: bool,
    /// Run the tasks with --recheck N: a task that resumes a checkpoint first solves N of its chunks again and stops (exit 2) if one differs from its record.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub recheck: Option<u64>,
    /// Have the merge job run `runner merge --recheck N`: before it writes anything, it solves N of the shards' chunks again (one from each shard first) and fails if one differs from the shard's records, which catches a shard written by another build or edited. The merge job then asks for an array task's --cpus, --mem and --time, since it solves chunks as a task does.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub merge_recheck: Option<u64>,
}

/// Most shards a run may be cut into: far more than any cluster runs as
/// one array, few enough that a merge can list them.
pub const MAX_SHARDS: u64 = 100_000;

/// Flags of `runner run`.
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
    /// Run only shard I of N (see --shard-index); chunks are dealt round robin. A finished shard keeps its chunks' records (chunks.jsonl) for `runner merge --recheck`.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=MAX_SHARDS))]
    pub shards: Option<u64>,
    /// Which shard to run, 0-based [default: $SLURM_ARRAY_TASK_ID].
    #[arg(long, value_name = "I", requires = "shards")]
    pub shard_index: Option<u64>,
    /// Continue from the checkpoint in the output directory, if there is one.
    #[arg(long, conflicts_with = "fresh")]
    pub resume: bool,
    /// Start over, discarding the checkpoint of an unfinished run in the output directory.
    #[arg(long)]
    pub fresh: bool,
    /// On a stop, also write the solver's memo (up to [solver] memo_mb) beside the checkpoint, so that --resume carries on the deals under way instead of starting them over: for deals longer than a sitting. Variant studies only.
    #[arg(long)]
    pub keep_memo: bool,
    /// With --resume: first solve N of the checkpoint's chunks again, picked at random, and refuse the checkpoint (exit 2) if any comes out differently: catches a record edited with its checksum recomputed, or one written by a build whose results differ.
    #[arg(long, value_name = "N", requires = "resume", value_parser = clap::value_parser!(u64).range(1..))]
    pub recheck: Option<u64>,
    /// Print the end of the run as one JSON object on stdout (study, check, outputs, summary).
    #[arg(long)]
    pub json: bool,
    /// Show the plan (as `runner plan` does) and exit without running.
    #[arg(long)]
    pub dry_run: bool,
    /// Replace the study's claim with a deliberately wrong one, to prove the check fires.
    #[arg(long, hide = true)]
    pub inject_fault: bool,
}

/// Flags of `runner solve`.
#[derive(Args, Debug, Clone)]
pub struct SolveArgs {
    /// Hand of the player to move, as comma-separated strengths >= 1, e.g. 1,1,3,4.
    #[arg(long, value_name = "CARDS", value_delimiter = ',', required_unless_present = "batch", num_args = 1..,
          value_parser = parse_card)]
    pub first: Vec<u32>,
    /// Hand of the other player, e.g. 1,2,3,5.
    #[arg(long, value_name = "CARDS", value_delimiter = ',', required_unless_present = "batch", num_args = 1..,
          value_parser = parse_card)]
    pub second: Vec<u32>,
    /// Strength of the card on the field; 0 is an empty field.
    #[arg(long, value_name = "R", default_value_t = 0)]
    pub field: u32,
    /// Play the 8-cut rule with this rank (e.g. 6, the 8 in a 3-to-2 deck): it clears the field and its player moves again. The μ test is then only a predictor, and minimax decides.
    #[arg(long, value_name = "R")]
    pub cut: Option<u32>,
    /// Play the 11-back rule with this rank (e.g. 9, the Jack in a 3-to-2 deck): it reverses the order for the rest of the trick. Variant positions of 40 cards or more can take minutes or hours (Ctrl-C stops).
    #[arg(long, value_name = "R")]
    pub back: Option<u32>,
    /// The order is reversed (an 11-back trick under way): only cards weaker than the field card may be played. Needs --back and a field card.
    #[arg(long)]
    pub reversed: bool,
    /// Also give the card-count value (the cards left in the loser's hand, positive when the player to move wins) by search, beside conjecture C1's; exit 1 if they differ. Plain rules only.
    #[arg(long, conflicts_with_all = ["cut", "back", "reversed"])]
    pub score: bool,
    /// Also show a line of best play to the end of the game: the winner ends it in the fewest moves it can force, the loser holds out for the most. Positions of at most 16 cards.
    #[arg(long, conflicts_with = "score")]
    pub line: bool,
    /// Under --cut or --back, let the variant's plain recursion check positions of any size, settling at most N positions (about 128 bytes each) before it gives up. Without it, it checks positions of up to 18 cards within 4000000 positions; a 13x13 deal takes up to about 30000000 (a few GB, a minute or two).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub check_positions: Option<u64>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Solve every position of a CSV file instead: a header naming the columns first and second (hands as strengths separated by spaces, e.g. "1 1 3 4"), and optionally field and reversed (true or false), then one position a row. Writes one CSV row a position, in order, with the verdicts and checks; exit 1 if any check fails. Columns the runner's tables record (variant_winner, minimax_first_wins, score, ...) are solved again and compared, exit 1 if any differs: a committed table is a regression check as it stands. --cut, --back and --score apply to every row.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["first", "second", "field", "reversed", "line", "json"])]
    pub batch: Option<PathBuf>,
    /// With --batch: write the CSV to FILE (whole, by a rename) instead of stdout, journalling each finished row in FILE.checkpoint.jsonl until then, so that a stopped batch (Ctrl-C, SIGTERM) keeps them for --resume.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// With --batch: worker threads [default: all cores]. The rows are the same for any count.
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<u16>,
    /// Solve the position's verdict only, not each of its moves (no winning moves are listed, and under the plain rules the proof's move is not checked against them). Several times faster on large positions, where every move is a search as long as the verdict's: for a 26x26 variant deal, or for re-checking a table's recorded winners with --batch.
    #[arg(long)]
    pub verdicts_only: bool,
    /// With --batch and --out: carry on from the rows a stopped batch finished, kept in FILE.checkpoint.jsonl beside --out, and solve only the rest; the table is the one an unstopped batch writes. Without it, a batch refuses to start over such a checkpoint.
    #[arg(long)]
    pub resume: bool,
    /// With --batch, --out and --cut or --back: on a stop (Ctrl-C, SIGTERM), stop the rows under way too and write the solvers' tables to FILE.memo.bin, so that --resume carries those rows on instead of starting them over: for rows longer than a sitting (some 26x26 rows under both rules take hours). Without it the rows under way finish first.
    #[arg(long)]
    pub keep_memo: bool,
    /// Tests only: stop (exit 4) once this many rows are in the checkpoint, as a Ctrl-C would, to show that --resume carries on.
    #[arg(long, value_name = "N", hide = true)]
    pub stop_after_rows: Option<u64>,
    /// With --batch: print no progress. Otherwise a bar on a terminal, or a line every 5 seconds naming the rows under way longest, as runs do: a 26x26 row under 11-back can take an hour.
    #[arg(short, long)]
    pub quiet: bool,
}
