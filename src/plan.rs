//! `runner plan`: what a config will do before it runs. The cells, their
//! instances and chunks, and the memory come from the study's outline
//! (cheap, from the config alone); the time comes from running a few evenly
//! spaced chunks on this machine; the cluster recipe follows from both.

use crate::cli::PlanArgs;
use crate::config::Config;
use crate::driver::{
    CHECKPOINT_FILE, Calibration, Deadline, MEMO_FILE, RunContext, ToTime, checkpoint_progress,
};
use crate::engine;
use crate::exit;
use crate::export::{duration_text, grouped, manifest, size_text, threads_text};
use crate::studies::{self, load_config};
use crate::study::{EstimateBias, Outline};
use std::path::Path;
use std::time::Duration;

/// The program, thread stacks and per-chunk counts, beyond the outline's
/// memory (measured: a quick run peaks near 20 MB).
const OVERHEAD_BYTES: u64 = 64 << 20;
/// The least time a plan's sample gets before the plan gives up on it:
/// room for a first round that only warms the memo up (see
/// `driver::timing`'s `WarmUp`) and a timed one after it. (The default
/// budget of 4 s gives the same 40 s.)
const GIVE_UP_AFTER_AT_LEAST: Duration = Duration::from_secs(40);
/// What one shard of a suggested cluster run should take, at most.
const SHARD_TARGET_SECS: f64 = 3600.0;

/// `runner plan`: prints the plan on stdout; returns the exit status.
pub fn main(args: &PlanArgs) -> i32 {
    let Some(config) = exit::or_say(load_config(&args.config)) else {
        return exit::USAGE;
    };
    let Some(threads) = exit::or_say(crate::engine::worker_threads(args.threads)) else {
        return exit::USAGE;
    };
    let entry = studies::find(&config.experiment.study).expect("checked by load_config");
    let outline = (entry.outline)(&config, threads);
    for note in &outline.notes {
        crate::error::say(note);
    }
    let e = &config.experiment;
    println!(
        "plan for {}: study {}, {}, {}",
        args.config.display(),
        e.study,
        e.mode,
        threads_text(threads)
    );
    print_cells(&outline);
    let memory = outline.memory + OVERHEAD_BYTES;
    println!(
        "memory: about {} ({} for tables and memo, which {} caps at {}; plus {} for the program)",
        size_text(memory),
        size_text(outline.memory),
        outline.budget_key,
        size_text(outline.budget),
        size_text(OVERHEAD_BYTES)
    );
    let out = args.out.clone().unwrap_or_else(|| config.output_dir());
    let stopped_run = print_checkpoint(&config, &args.config, &outline, &out);
    if args.calibrate_secs == 0 {
        return exit::OK;
    }
    let ctx = RunContext::quiet(args.config.clone(), Default::default(), threads);
    let give_up = give_up_on_a_chunk_that_runs_too_long(
        args.calibrate_secs,
        EstimateBias::errs_short(outline.estimate_bias),
    );
    // Beside a checkpoint, what matters is the time its run has left, and
    // the chunks left are not like the run's: an exhaustive run does its
    // small cells first. So the sample is of those chunks alone.
    let to_time = stopped_run.clone().unwrap_or_else(ToTime::whole_run);
    let budget = Duration::from_secs(args.calibrate_secs);
    let calibration = match (entry.calibrate)(&config, &ctx, budget, &to_time) {
        Ok(c) => c,
        Err(e) => {
            exit::say_error(format_args!("calibration failed: {e:#}"));
            return exit::RUNTIME;
        }
    };
    drop(give_up);
    print_estimate(&calibration, threads, stopped_run.is_some());
    // A sample of every chunk is the run itself, memo and all.
    let sampled = calibration.chunks_run < calibration.chunks_total;
    let bias = outline.estimate_bias.filter(|_| sampled);
    if let Some(bias) = &bias {
        println!("{}", bias.note());
    }
    if stopped_run.is_some() {
        if kept_memo_bytes(&out).is_some() {
            // The sample cannot read the kept memo without the run's
            // memory and the minutes a large one takes to read.
            println!(
                "note: the time left is timed on a fresh memo; the kept memo carries the deals under way on, so for those it errs long"
            );
        }
        let planned = EstimateBias::at_worst(bias, calibration.estimate());
        println!(
            "cluster: a task that continues this checkpoint (with --resume) wants --time {} or more, twice the time left; plan an empty --out for a fresh run's recipe",
            slurm_time(time_limit_mins(planned))
        );
        return exit::OK;
    }
    println!(
        "{}",
        cluster_recipe(
            &args.config,
            calibration.estimate(),
            calibration.chunks_total,
            memory,
            threads,
            bias
        )
    );
    println!(
        "  (add --merge-recheck N to have the merge job solve N chunks again and compare them with the shards' records; it then asks for a task's CPUs, memory and time)"
    );
    exit::OK
}

/// The sample runs whole chunks, and one chunk can take hours (a 26x26
/// deal under 11-back took over one), so a plan could hang far past its
/// budget. Past ten times the budget (at least [`GIVE_UP_AFTER_AT_LEAST`])
/// the plan says what it knows and ends: it has written nothing, so ending
/// it mid-chunk loses nothing. Where single chunks are known to run long
/// (`keep_memo`), the cluster's tasks are told to keep their memo.
fn give_up_on_a_chunk_that_runs_too_long(calibrate_secs: u64, keep_memo: bool) -> Deadline {
    let limit = Duration::from_secs(10 * calibrate_secs).max(GIVE_UP_AFTER_AT_LEAST);
    let how = if keep_memo {
        "`runner slurm --keep-memo`, with --resume, so that a task stopped at its limit carries its deals under way on when resubmitted"
    } else {
        "`runner slurm`, with --resume"
    };
    Deadline::start(limit, move || {
        println!(
            "estimate: unknown: the timed sample was still running after {}, so its chunks are slow; this is a run for a cluster ({how})",
            duration_text(limit.as_secs_f64())
        );
        std::process::exit(exit::OK);
    })
}

/// A run that was stopped leaves its checkpoint in the output directory
/// (a long one may be committed, to be continued in another session), and
/// a run there without `--resume` is refused: say what it holds, and
/// return the chunks its run has left to do.
fn print_checkpoint(
    config: &Config,
    config_path: &Path,
    outline: &Outline,
    out: &Path,
) -> Option<ToTime> {
    let sizes: Vec<u64> = outline.cells.iter().map(|c| c.chunk_size).collect();
    let total: u64 = outline
        .cells
        .iter()
        .map(|c| c.items.div_ceil(c.chunk_size.max(1)))
        .sum();
    let mut left = None;
    match checkpoint_progress(config, &sizes, out) {
        Ok(None) => {}
        Ok(Some(found)) => {
            let (shards, index) = found.shard;
            let shard = engine::Shard {
                count: shards,
                index,
            };
            let (_, of_shard) = shard.first_and_count(0..total);
            let (whose, flags) = if shards == 1 {
                (String::new(), String::new())
            } else {
                (
                    format!(" of shard {index} of {shards}"),
                    format!(" --shards {shards} --shard-index {index}"),
                )
            };
            println!(
                "checkpoint: {} of {} chunks{whose} done in {}; add{flags} --resume to continue the run (without it the run is refused)",
                grouped(found.done.len() as u64),
                grouped(of_shard),
                out.join(CHECKPOINT_FILE).display()
            );
            println!("{}", manifest::rechecks_line(&found.rechecks));
            println!(
                "interim: `runner interim --config {} --out {} --to DIR` writes the tables of the chunks done so far",
                crate::error::path_word(config_path),
                crate::error::path_word(out)
            );
            left = Some(ToTime {
                shard,
                done: found.done,
            });
        }
        Err(e) => println!("checkpoint: a run with --resume would refuse it: {e}"),
    }
    if let Some(bytes) = kept_memo_bytes(out) {
        println!(
            "kept memo: {} in {}, which --resume reads back (the deals under way carry on)",
            size_text(bytes),
            out.join(MEMO_FILE).display()
        );
    }
    left
}

/// The size of the memo a stopped run kept in `out`, if it kept one.
fn kept_memo_bytes(out: &Path) -> Option<u64> {
    std::fs::metadata(out.join(MEMO_FILE))
        .ok()
        .filter(|meta| meta.is_file())
        .map(|meta| meta.len())
}

fn print_cells(outline: &Outline) {
    let width = outline
        .cells
        .iter()
        .map(|c| c.label.len())
        .max()
        .unwrap_or(0)
        .max(5);
    println!("{:<width$}  {:>26}  {:>14}", "cell", "instances", "chunks");
    let (mut items, mut chunks) = (0u128, 0u128);
    for c in &outline.cells {
        let n = c.items.div_ceil(c.chunk_size.max(1));
        items += u128::from(c.items);
        chunks += u128::from(n);
        println!(
            "{:<width$}  {:>26}  {:>14}",
            c.label,
            grouped(c.items),
            grouped(n)
        );
    }
    if outline.cells.len() > 1 {
        println!(
            "{:<width$}  {:>26}  {:>14}",
            "total",
            grouped(items),
            grouped(chunks)
        );
    }
}

/// The estimate, and what it rests on: how many chunks were timed, and
/// how alike they were (a typical chunk's time beside the slowest's). Of a
/// stopped run's chunks `left`, the time left.
fn print_estimate(c: &Calibration, threads: usize, left: bool) {
    let times = &c.chunk_times;
    let spread = if times.count() > 1 {
        format!(
            ", a chunk {} typically and {} at the slowest",
            chunk_secs_text(times.typical_secs()),
            chunk_secs_text(times.slowest_secs())
        )
    } else {
        String::new()
    };
    let (what, chunks) = if left {
        ("time left", "chunks left")
    } else {
        ("time", "chunks")
    };
    println!(
        "{what}: about {} on {} here (timed {} of {} {chunks} in {:.2} s{spread}; build {:.2} s); the VM varies by 25% or more",
        duration_text(c.estimate()),
        threads_text(threads),
        grouped(c.chunks_run),
        grouped(c.chunks_total),
        c.seconds,
        c.build_seconds
    );
}

/// A chunk's time: milliseconds below a second, tenths of a second below
/// a minute.
fn chunk_secs_text(secs: f64) -> String {
    if secs < 0.0005 {
        "under 1 ms".into()
    } else if secs < 1.0 {
        format!("{:.0} ms", secs * 1000.0)
    } else if secs < 60.0 {
        format!("{secs:.1} s")
    } else {
        duration_text(secs)
    }
}

/// A SLURM recipe: shards of at most an hour each on this machine's speed,
/// twice that as the time limit, and the memory with headroom. A run whose
/// estimate errs short is planned on its worst measured overrun, and its
/// tasks keep their memo when stopped at the limit, so that a resubmitted
/// task carries its deals under way on rather than starting them again.
fn cluster_recipe(
    config: &Path,
    estimate_secs: f64,
    chunks_total: u64,
    memory: u64,
    threads: usize,
    bias: Option<EstimateBias>,
) -> String {
    let total = EstimateBias::at_worst(bias, estimate_secs);
    // No more shards than chunks, nor than `runner slurm` takes.
    let most = chunks_total.clamp(1, crate::cli::MAX_SHARDS);
    let shards = ((total / SHARD_TARGET_SECS).ceil() as u64).clamp(1, most);
    let per_shard = total / shards as f64;
    let mem_gib = (memory as f64 * 1.25 / f64::from(1u32 << 30))
        .ceil()
        .max(1.0) as u64;
    format!(
        "cluster: runner slurm --config {} --shards {shards} --cpus {threads} --mem {mem_gib}G --time {}{}",
        crate::error::path_word(config),
        slurm_time(time_limit_mins(per_shard)),
        if EstimateBias::errs_short(bias) {
            " --keep-memo"
        } else {
            ""
        }
    )
}

/// A task's time limit for work planned at `secs`: twice that, in whole
/// tens of minutes, at least ten.
fn time_limit_mins(secs: f64) -> u64 {
    ((2.0 * secs / 60.0 / 10.0).ceil() as u64 * 10).max(10)
}

/// Minutes as sbatch's `--time` takes them.
fn slurm_time(mins: u64) -> String {
    format!("{:02}:{:02}:00", mins / 60, mins % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: u64 = 1 << 30;

    #[test]
    fn a_recipe_plans_on_the_measured_overrun_of_an_estimate_that_errs_short() {
        let recipe = |bias| cluster_recipe(Path::new("c.toml"), 1200.0, 1000, 2 * GIB, 2, bias);
        // 20 minutes: one shard, twice that as its limit.
        let usual =
            "cluster: runner slurm --config c.toml --shards 1 --cpus 2 --mem 3G --time 00:40:00";
        assert_eq!(recipe(None), usual);
        assert_eq!(recipe(Some(EstimateBias::ErrsLong("n"))), usual);
        // 4.4 times 20 minutes is 88: two shards of 44, limits of 90
        // minutes, and the memo kept by a task stopped at its limit.
        let short = EstimateBias::ErrsShort {
            note: "n",
            measured: 4.4,
        };
        let line = recipe(Some(short));
        assert_eq!(
            line,
            "cluster: runner slurm --config c.toml --shards 2 --cpus 2 --mem 3G --time 01:30:00 --keep-memo"
        );
        // As printed, it is a command line `runner slurm` takes.
        use clap::Parser;
        let words = line.strip_prefix("cluster: ").unwrap().split(' ');
        let parsed = crate::cli::Cli::try_parse_from(words).unwrap();
        let Some(crate::cli::Command::Slurm(slurm)) = parsed.command else {
            panic!("not a slurm command: {line}");
        };
        assert!(slurm.keep_memo && slurm.shards == 2 && slurm.time == "01:30:00");
    }

    #[test]
    fn a_sample_beside_a_checkpoint_times_the_chunk_left_though_its_first_rounds_meet_none() {
        // 200 chunks of 3x3 deals, all done but the last: the sample's
        // first rounds land on done chunks only, and a budget of nothing
        // has run out by then; the estimate must still rest on a chunk
        // timed, not on none.
        let text = "[experiment]\nname = \"t\"\nmode = \"sample\"\ndeals = 819200\n[hands]\nsizes = [[3, 3]]\n";
        let config = Config::parse(text, "t.toml").unwrap();
        let entry = studies::find(&config.experiment.study).unwrap();
        let total = (entry.outline)(&config, 2).plan().len();
        assert_eq!(total, 200);
        let to_time = ToTime {
            shard: engine::Shard::WHOLE,
            done: (0..total - 1).collect(),
        };
        let ctx = RunContext::quiet("t.toml".into(), Default::default(), 2);
        let c = (entry.calibrate)(&config, &ctx, Duration::ZERO, &to_time).unwrap();
        assert_eq!((c.chunks_run, c.chunks_total), (1, 1));
        assert_eq!(c.chunk_times.count(), 1);
    }

    #[test]
    fn a_recipe_has_no_more_shards_than_chunks_and_a_limit_of_at_least_ten_minutes() {
        let recipe = |secs, chunks| cluster_recipe(Path::new("c.toml"), secs, chunks, 0, 1, None);
        assert!(recipe(1.0, 5).contains("--shards 1 --cpus 1 --mem 1G --time 00:10:00"));
        // 30 hours of 3 chunks: 3 shards of 10 hours, 20 as the limit.
        assert!(recipe(30.0 * 3600.0, 3).contains("--shards 3 --cpus 1 --mem 1G --time 20:00:00"));
    }
}
