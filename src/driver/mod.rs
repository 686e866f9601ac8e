//! Runs a study end to end, whatever the study: plans and shards the chunks,
//! journals them for resume, writes outputs atomically, and merges shards.
//!
//! A run with one shard writes the tables directly; a shard of many writes
//! `partial.json`, and `runner merge` sums the partials and writes the same
//! tables through the same code, so merged output is byte-identical to a
//! single-machine run.

mod context;
mod interim_tables;
mod kept_memo;
mod out_dir;
mod recheck;
mod record;
mod shard_merge;
mod timing;

pub use context::{
    CHECKPOINT_FILE, MEMO_FILE, PARTIAL_FILE, Phase, RunContext, RunOutcome, SHARD_CHUNKS_FILE,
};
pub use interim_tables::interim;
pub use record::{picture_labels, picture_labels_of};
pub use shard_merge::{Partial, ShardResults, merge, read_partials};
pub use timing::{Calibration, Deadline, ToTime, calibrate};

use crate::config::Config;
use crate::engine::{self, Outcome, journal, journal::Journal};
use crate::error::refuse;
use crate::export::{manifest, write_atomic};
use crate::study::Study;
use context::{fingerprint, refuse_another_runs_checkpoint, result_hash, run_hash, shard_named};
use kept_memo::{read_kept_memo, write_kept_memo};
use out_dir::{
    lock_out_dir, refuse_another_experiments_results, refuse_unfit_outputs, remove_stale_temp_files,
};
use recheck::{Solved, solve_again};
use record::{RunFacts, Started, chunk_sizes, print_summary, write_manifest, write_tables};
use shard_merge::sealed;
use std::path::Path;
use std::sync::atomic::Ordering;
use timing::warn_if_long;

/// What a stopped run's checkpoint holds, for `runner plan`.
#[derive(Debug, PartialEq)]
pub struct CheckpointProgress {
    /// The rechecks it passed (`--recheck N`), in the order they ran.
    pub rechecks: Vec<crate::export::manifest::RecheckPassed>,
    /// The shard it belongs to (shards, index); (1, 0) for an unsharded run.
    pub shard: (u64, u64),
    /// The finished chunks, by global index.
    pub done: std::collections::HashSet<u64>,
}

/// What the checkpoint in `out_dir` holds for a run of `config` (chunk
/// sizes per cell as its outline gives them), whole or any one shard of it,
/// read only; `None` if there is none. Refused as a resume would refuse
/// it: another config's or version's, or edited.
pub fn checkpoint_progress(
    config: &Config,
    chunk_sizes: &[u64],
    out_dir: &Path,
) -> anyhow::Result<Option<CheckpointProgress>> {
    let path = out_dir.join(CHECKPOINT_FILE);
    let hash = result_hash(config, chunk_sizes);
    refuse_another_runs_checkpoint(&path, &hash, None)?;
    let shard = journal::fingerprint_of(&path)?
        .and_then(|found| shard_named(&found, &hash))
        .unwrap_or((1, 0));
    let held = journal::held(&path, &fingerprint(&hash, shard.0, shard.1))?;
    Ok(held.map(|h| CheckpointProgress {
        rechecks: h.rechecks,
        shard,
        done: h.done,
    }))
}

/// Solves `ctx.recheck` of the chunks `journal` read back again, picked
/// at random, and refuses the checkpoint if one differs from its record
/// ([`solve_again`]). False if a stop came first. With a kept memo read
/// back, the chunks are solved with its help, as the run's own would be. A
/// recheck passed is journalled, for the manifest of the sitting that
/// finishes the run.
fn recheck_checkpoint<S: Study>(
    study: &S,
    plan: &engine::Plan,
    shard: engine::Shard,
    journal: &mut Journal<S::Counts>,
    opts: &engine::RunOptions,
    ctx: &RunContext,
) -> anyhow::Result<bool> {
    let parts = [(shard, journal.finished())];
    match solve_again(study, plan, &parts, "the checkpoint's", opts, ctx)? {
        Solved::Nothing => Ok(true),
        Solved::Stopped => Ok(false),
        Solved::AsRecorded(passed) => {
            journal.record_recheck(passed)?;
            Ok(true)
        }
    }
}

/// Runs (a shard of) study `S` from `config`: plans the chunks, resumes from the journal, runs the rest, and writes the tables (one shard) or `partial.json` (many), then the manifest.
pub fn run<S: Study>(config: &Config, ctx: &RunContext) -> anyhow::Result<RunOutcome> {
    let started = Started::now();
    // The study refuses a bad config before anything is written.
    let study = S::build(config, &ctx.build_context())?;
    // The top layer refused --keep-memo by S::KEEPS_MEMO; a study whose
    // constant promises more than it keeps is a bug, not a bad flag.
    anyhow::ensure!(
        S::KEEPS_MEMO == study.kept_memo().is_some(),
        "study `{}`: KEEPS_MEMO does not match kept_memo()",
        config.experiment.study
    );
    let _only_writer = lock_out_dir(&ctx.out_dir)?;
    refuse_unfit_outputs(
        &study,
        &ctx.out_dir,
        ctx.shard.is_none_or(|(n, _)| n == 1),
        ctx.shard.is_some(),
    )?;
    refuse_another_experiments_results(config, &ctx.out_dir)?;
    let checkpoint = ctx.out_dir.join(CHECKPOINT_FILE);
    let holds_progress = std::fs::metadata(&checkpoint).is_ok_and(|m| m.len() > 0);
    if holds_progress && !ctx.resume && !ctx.fresh {
        return Err(refuse(format!(
            "{} holds the checkpoint of an unfinished run; add --resume to continue, or --fresh to start over",
            checkpoint.display()
        )));
    }
    // Rerunning a config as a regression check is meant to rewrite its
    // results, but a researcher who named the wrong --out should hear of it
    // before hours of work, not find the committed tables replaced.
    if !holds_progress && ctx.out_dir.join(manifest::FILE_NAME).exists() {
        crate::error::say(format_args!(
            "note: {} holds the results of an earlier run of `{}`; this run replaces them when it finishes",
            ctx.out_dir.display(),
            config.experiment.name
        ));
    }
    let plan = engine::Plan::new(&study);
    let hash = run_hash(config, &chunk_sizes(&study), ctx);
    let (shards, index) = ctx.shard.unwrap_or((1, 0));
    let shard = engine::Shard {
        count: shards,
        index,
    };
    let out = &ctx.out_dir;
    remove_stale_temp_files(out);
    let run_name = fingerprint(&hash, shards, index);
    // The journal would refuse another run's checkpoint too, but only this
    // layer knows what the fingerprint's parts are and which flags set them.
    if ctx.resume {
        refuse_another_runs_checkpoint(&checkpoint, &hash, Some((shards, index)))?;
    }
    let mut journal =
        Journal::<S::Counts>::open(&out.join(CHECKPOINT_FILE), &run_name, ctx.resume)?;
    read_kept_memo(&study, &out.join(MEMO_FILE), &run_name, ctx)?;
    journal.note_if_nothing_to_resume();
    let opts = engine::RunOptions {
        threads: ctx.threads,
        progress: ctx.progress,
    };
    ctx.phase.store(Phase::RUNNING, Ordering::SeqCst);
    if ctx.recheck > 0 && !recheck_checkpoint(&study, &plan, shard, &mut journal, &opts, ctx)? {
        crate::error::say(format_args!(
            "interrupted during the recheck; {} is as it was; rerun with --resume",
            out.join(CHECKPOINT_FILE).display()
        ));
        return Ok(RunOutcome::Interrupted);
    }
    let outline = S::outline(config, ctx.threads);
    let warm_up = timing::WarmUp::of_memory(outline.memory);
    let ahead = warn_if_long(
        &study,
        &plan,
        shard,
        &mut journal,
        ctx,
        warm_up,
        outline.estimate_bias,
    )?;
    let outcome = engine::run_after(&study, &plan, shard, &opts, &mut journal, ahead, &ctx.stop)?;
    ctx.phase.store(Phase::WRITING, Ordering::SeqCst);
    let cells = match outcome {
        Outcome::Complete(cells) => cells,
        Outcome::Interrupted {
            chunks_done,
            chunks_total,
        } => {
            crate::error::say(format_args!(
                "interrupted: {} of {} chunks done and checkpointed in {}; rerun with --resume to finish",
                crate::export::grouped(chunks_done as u64),
                crate::export::grouped(chunks_total as u64),
                out.join(CHECKPOINT_FILE).display()
            ));
            if ctx.keep_memo {
                write_kept_memo(&study, &out.join(MEMO_FILE), &run_name);
            }
            return Ok(RunOutcome::Interrupted);
        }
    };
    let counts: Vec<&S::Counts> = cells.iter().map(|c| &c.counts).collect();
    let written_and_summary = (|| -> anyhow::Result<_> {
        let mut written = Vec::new();
        if shards == 1 {
            written.extend(write_tables(&study, &counts, &picture_labels(config), out)?);
        }
        let partial = Partial {
            tool: "runner".into(),
            version: env!("CARGO_PKG_VERSION").into(),
            config_hash: hash.clone(),
            config: config.clone(),
            shards,
            shard_index: index,
            cells: counts.clone(),
        };
        write_atomic(&out.join(PARTIAL_FILE), &sealed(&partial)?)?;
        written.push(PARTIAL_FILE.into());
        write_atomic(&out.join("run.csv"), &study.run_details(&cells))?;
        written.push("run.csv".into());
        let summary = if shards == 1 {
            study.summary(&counts, out)
        } else {
            crate::study::Summary::measured(vec![format!(
                "shard {index} of {shards} done; merge with `runner merge`"
            )])
        };
        written.push("manifest.json".into());
        write_manifest(
            out,
            ctx,
            RunFacts {
                chunks: shard.chunks_of(&plan),
                shards,
                shard_index: index,
                merged_from: Vec::new(),
                started,
                check: summary.check,
                outputs: written.clone(),
                config,
                chunk_sizes: chunk_sizes(&study),
                interim: None,
                rechecks: journal.rechecks(),
            },
        )?;
        Ok((written, summary))
    })();
    // Every chunk is in the checkpoint until the manifest is written, so
    // a disk that fills (or any fault) while the results are written costs
    // no solving: say so, since the error alone reads as a lost run.
    let (written, summary) = written_and_summary.map_err(|e| {
        if crate::error::is_refused(&e) {
            e
        } else {
            anyhow::anyhow!(
                "{e:#}; every chunk is done and kept in {}, so once that is fixed a rerun with --resume writes the results without solving anything again",
                out.join(CHECKPOINT_FILE).display()
            )
        }
    })?;
    // A shard's records stay beside its results, for `runner merge
    // --recheck`; a whole run's tables are its results.
    if ctx.shard.is_some() {
        journal.keep_as(&out.join(SHARD_CHUNKS_FILE))?;
    } else {
        journal.remove()?;
    }
    if study.kept_memo().is_some() {
        crate::engine::memo_file::remove(&out.join(MEMO_FILE))?;
    }
    print_summary(ctx, config, &summary, &written);
    Ok(RunOutcome::Finished(summary.check))
}
