//! Dispatch from parsed flags to a run, with exit codes in one place.

use crate::cli::{Cli, Command, InterimArgs, RunArgs};
use crate::driver::{Phase, RunContext, RunOutcome};
use crate::engine::progress;
use crate::exit;
use crate::export::manifest::Recorded;
use crate::studies;
use crate::study::Check;
use clap::{CommandFactory, Parser};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// The shard to run: count from --shards only (never from SLURM's task count,
/// which shrinks when failed tasks are resubmitted), index from
/// --shard-index or else $SLURM_ARRAY_TASK_ID.
fn shard_spec(args: &RunArgs) -> Result<Option<(u64, u64)>, String> {
    let Some(n) = args.shards else {
        return Ok(None);
    };
    let index = match args.shard_index {
        Some(i) => i,
        None => {
            let raw = std::env::var("SLURM_ARRAY_TASK_ID").map_err(|_| {
                "--shards needs --shard-index, or SLURM_ARRAY_TASK_ID in the environment"
                    .to_string()
            })?;
            raw.trim()
                .parse()
                .map_err(|_| format!("SLURM_ARRAY_TASK_ID: `{raw}` is not a shard index"))?
        }
    };
    if index >= n {
        return Err(format!("--shard-index: {index} is not below --shards {n}"));
    }
    Ok(Some((n, index)))
}

/// The status of a check's conclusion.
fn check_status(check: Check) -> i32 {
    match check {
        Check::Passed => exit::OK,
        Check::Failed => exit::CHECK_FAILED,
    }
}

/// The status of an error from a run or merge: the user's input refused,
/// or a fault.
fn error_status(e: &anyhow::Error) -> i32 {
    exit::say_error(format_args!("{e:#}"));
    exit::of_error(e)
}

fn merge(args: &crate::cli::MergeArgs) -> i32 {
    let Some(threads) = exit::or_say(crate::engine::worker_threads(args.threads)) else {
        return exit::USAGE;
    };
    let partials = match crate::driver::read_partials(&args.dirs) {
        Ok(p) => p,
        Err(e) => return error_status(&e),
    };
    let study = partials[0].1["config"]["experiment"]["study"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let Some(entry) = studies::find(&study) else {
        exit::say_error(format_args!(
            "{}: unknown study `{study}`",
            partials[0].0.display()
        ));
        return exit::USAGE;
    };
    let ctx = RunContext {
        recheck: args.recheck.unwrap_or(0),
        ..RunContext::quiet(Default::default(), args.out.clone(), threads)
    };
    // A merge that only sums takes seconds and writes each output whole,
    // so a signal may end it as it comes. A recheck solves chunks, which
    // can take hours: a signal then stops it as it stops a run's.
    if ctx.recheck > 0
        && let Err(e) = watch_signals_while_rechecking(ctx.stop.clone())
    {
        exit::say_error(format_args!("cannot install signal handlers: {e}"));
        return exit::RUNTIME;
    }
    match (entry.merge)(partials, &ctx) {
        Ok(check) => check_status(check),
        Err(e) if ctx.stop.load(Ordering::SeqCst) => {
            exit::say_error(format_args!("{e:#}"));
            exit::INTERRUPTED
        }
        Err(e) => error_status(&e),
    }
}

/// `runner merge --recheck`: the first SIGINT or SIGTERM stops the chunks
/// being solved again within one poll, and the merge ends with nothing
/// written; a second ends the process at once.
fn watch_signals_while_rechecking(stop: Arc<AtomicBool>) -> std::io::Result<()> {
    crate::engine::signals::stop_on_signals(
        stop,
        |name| {
            eprintln!("{name}: stopping the recheck; nothing is written (again to stop at once)")
        },
        |name| {
            eprintln!("{name} again: stopping now; nothing was written");
            std::process::exit(exit::INTERRUPTED);
        },
    )
}

/// Says on stderr, once the command has read them, when the tables could
/// not be checked against their run (see [`Recorded::unchecked_note`]); a
/// refusal stays one line.
fn note_unchecked_tables(manifest: Option<&Recorded>) {
    if let Some(note) = manifest.and_then(Recorded::unchecked_note) {
        crate::error::say(note);
    }
}

fn plot(args: &crate::cli::PlotArgs) -> i32 {
    let manifest = match Recorded::read(&args.dir) {
        Ok(manifest) => manifest,
        Err(e) => return error_status(&e),
    };
    let labels = crate::driver::picture_labels_of(&args.dir, manifest.as_ref());
    match crate::export::plot::redraw(&args.dir, manifest.as_ref(), &labels) {
        Ok(written) => {
            note_unchecked_tables(manifest.as_ref());
            if written.is_empty() {
                crate::error::say(format_args!(
                    "note: {}: the tables have no rows, so there is nothing to draw",
                    args.dir.display()
                ));
            }
            for w in written {
                println!("wrote {}", crate::error::on_one_line(&w.to_string()));
            }
            exit::OK
        }
        Err(e) => error_status(&e),
    }
}

fn report(args: &crate::cli::ReportArgs) -> i32 {
    let manifest = match Recorded::read(&args.dir) {
        Ok(manifest) => manifest,
        Err(e) => return error_status(&e),
    };
    let labels = crate::driver::picture_labels_of(&args.dir, manifest.as_ref());
    match crate::export::report::write(&args.dir, manifest.as_ref(), &labels) {
        Ok(path) => {
            note_unchecked_tables(manifest.as_ref());
            println!(
                "wrote {}",
                crate::error::on_one_line(&path.display().to_string())
            );
            exit::OK
        }
        Err(e) => error_status(&e),
    }
}

fn table(args: &crate::cli::TableArgs) -> i32 {
    use crate::export::table::{self, Latex, Markdown, TableFormat};
    // A run under way or stopped has only its checkpoint: a missing table
    // then says how to see its tables so far rather than only that there
    // are none.
    let unfinished = args
        .dir
        .join(crate::driver::CHECKPOINT_FILE)
        .is_file()
        .then(|| {
            format!(
                "{} holds the checkpoint of a run not finished, whose tables so far `runner interim --config FILE --out {} --to DIR` writes",
                args.dir.display(),
                crate::error::path_word(&args.dir)
            )
        });
    let manifest = match Recorded::read(&args.dir) {
        Ok(manifest) => manifest,
        Err(e) => return error_status(&e),
    };
    let labels = crate::driver::picture_labels_of(&args.dir, manifest.as_ref());
    let format: &dyn TableFormat = match args.format {
        crate::cli::TableFormat::Markdown => &Markdown,
        crate::cli::TableFormat::Latex => &Latex,
    };
    let request = table::Request {
        table: &args.table,
        columns: &args.columns,
        interim: args.interim,
        digits: args.digits.map(usize::from),
        when_missing: unfinished.as_deref(),
    };
    match table::text(&args.dir, manifest.as_ref(), &labels, &request, format) {
        Ok(text) => {
            note_unchecked_tables(manifest.as_ref());
            print!("{text}");
            exit::OK
        }
        Err(e) => error_status(&e),
    }
}

/// Handles SIGINT and SIGTERM on a thread of their own. The first signal
/// asks for a clean stop: while the study is being built or planned there
/// is nothing to save, so the process ends at once; while chunks run, no
/// new chunk starts, chunks under way are abandoned between instances, and
/// the finished ones are journalled; outputs being written are finished. A
/// second signal ends the process at once.
fn watch_signals(stop: Arc<AtomicBool>, phase: Arc<AtomicU8>) -> std::io::Result<()> {
    crate::engine::signals::stop_on_signals(
        stop,
        move |name| {
            if phase.load(Ordering::SeqCst) == Phase::PREPARING {
                eprintln!("{name}: stopped before any chunk ran; nothing to resume");
                std::process::exit(exit::INTERRUPTED);
            }
            eprintln!(
                "{name}: stopping; the chunks under way are left for --resume (again to stop at once)"
            );
        },
        |name| {
            eprintln!("{name} again: stopping now; finished chunks are in the checkpoint");
            std::process::exit(exit::INTERRUPTED);
        },
    )
}

/// Ends the process quietly when what it prints to is closed, as other
/// Unix tools do. Rust ignores SIGPIPE, so `println!` into a closed pipe
/// (`runner plan … | head -3`) panicked with a backtrace instead. A run's
/// outputs are written atomically and its checkpoint is synced per chunk,
/// so a run ended this way loses nothing it finished.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: sets a signal's disposition to its default, before any other
    // thread exists; no handler runs.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A command line clap could not read: `--help` and `--version` as clap
/// prints them; anything else as the one line every refusal is, exit 2.
/// Clap's own form spreads over five lines (the error, a tip, the usage,
/// "For more information"); its tip and possible values are kept on the
/// line, since they say what was meant.
fn flag_error(e: clap::Error) -> i32 {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        e.exit();
    }
    let rendered = e.render().to_string();
    let mut lines = rendered
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take_while(|l| !l.starts_with("Usage:") && !l.starts_with("For more information"));
    let mut line = lines
        .next()
        .map(|first| first.strip_prefix("error: ").unwrap_or(first).to_string())
        .unwrap_or_default();
    // What follows the error: a tip, the values allowed, or the names of
    // the arguments it lists (those required but not given).
    let mut listed = 0;
    for more in lines {
        if let Some(tip) = more.strip_prefix("tip: ") {
            line += "; ";
            line += tip;
        } else {
            line += if listed == 0 || more.starts_with('[') {
                " "
            } else {
                ", "
            };
            line += more;
            listed += 1;
        }
    }
    exit::say_error(format_args!("{line} (see --help)"));
    exit::USAGE
}

/// Parses the command line, runs what it asks, and returns the exit status.
pub fn main() -> i32 {
    restore_default_sigpipe();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return flag_error(e),
    };
    match cli.command {
        Some(Command::Run(args)) => run(&args),
        Some(Command::Solve(args)) => crate::solve::main(&args),
        Some(Command::Merge(args)) => merge(&args),
        Some(Command::Slurm(args)) => crate::slurm::main(&args),
        Some(Command::Plot(args)) => plot(&args),
        Some(Command::Report(args)) => report(&args),
        Some(Command::Table(args)) => table(&args),
        Some(Command::Plan(args)) => crate::plan::main(&args),
        Some(Command::Interim(args)) => interim(&args),
        Some(Command::Diff(args)) => crate::diff::main(&args),
        Some(Command::Compare(args)) => crate::compare::main(&args),
        Some(Command::Completions(args)) => {
            clap_complete::generate(
                args.shell,
                &mut Cli::command(),
                "runner",
                &mut std::io::stdout(),
            );
            exit::OK
        }
        Some(Command::Man) => {
            match clap_mangen::Man::new(Cli::command()).render(&mut std::io::stdout()) {
                Ok(()) => exit::OK,
                Err(e) => {
                    exit::say_error(format_args!("cannot write the man page: {e}"));
                    exit::RUNTIME
                }
            }
        }
        None if cli.run.config.is_some() => run(&cli.run),
        None => {
            let _ = Cli::command().print_help();
            eprintln!("\nerror: no config given; try `runner --config configs/quick.toml`");
            exit::USAGE
        }
    }
}

/// `runner interim`: the tables of a run's finished chunks so far.
fn interim(args: &InterimArgs) -> i32 {
    let Some(config) = exit::or_say(studies::load_config(&args.config)) else {
        return exit::USAGE;
    };
    let run_dirs = if args.out.is_empty() {
        vec![config.output_dir()]
    } else {
        args.out.clone()
    };
    // Nothing is searched: the tables come from the checkpoint's counts.
    let ctx = RunContext::quiet(args.config.clone(), args.to.clone(), 1);
    let entry = studies::find(&config.experiment.study).expect("checked by load_config");
    match (entry.interim)(&config, &ctx, &run_dirs) {
        Ok(check) => check_status(check),
        Err(e) => error_status(&e),
    }
}

fn run(args: &RunArgs) -> i32 {
    if args.dry_run {
        let Some(config) = args.config.clone() else {
            exit::say_error(format_args!("--dry-run needs --config FILE"));
            return exit::USAGE;
        };
        return crate::plan::main(&crate::cli::PlanArgs {
            config,
            out: args.out.clone(),
            threads: args.threads,
            calibrate_secs: 4,
        });
    }
    let Some(path) = &args.config else {
        exit::say_error(format_args!("`runner run` needs --config FILE"));
        return exit::USAGE;
    };
    let Some(config) = exit::or_say(studies::load_config_to_run(path, args.keep_memo)) else {
        return exit::USAGE;
    };
    let Some(threads) = exit::or_say(crate::engine::worker_threads(args.threads)) else {
        return exit::USAGE;
    };
    let Some(shard) = exit::or_say(shard_spec(args)) else {
        return exit::USAGE;
    };
    let out_dir = args.out.clone().unwrap_or_else(|| match shard {
        Some((n, i)) => config.output_dir().join(format!("shard-{i:03}-of-{n:03}")),
        None => config.output_dir(),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let phase = Arc::new(AtomicU8::new(Phase::PREPARING));
    if let Err(e) = watch_signals(stop.clone(), phase.clone()) {
        exit::say_error(format_args!("cannot install signal handlers: {e}"));
        return exit::RUNTIME;
    }
    let ctx = RunContext {
        phase,
        config_path: path.clone(),
        out_dir,
        shard,
        resume: args.resume,
        fresh: args.fresh,
        keep_memo: args.keep_memo,
        recheck: args.recheck.unwrap_or(0),
        json: args.json,
        stop,
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
    let entry = studies::find(&config.experiment.study).expect("checked by load_config");
    match (entry.run)(&config, &ctx) {
        Ok(RunOutcome::Finished(check)) => check_status(check),
        Ok(RunOutcome::Interrupted) => exit::INTERRUPTED,
        Err(e) => error_status(&e),
    }
}
