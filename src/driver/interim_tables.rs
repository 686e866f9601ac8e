//! `runner interim`: the tables of a run's chunks so far.

use super::context::{
    CHECKPOINT_FILE, PARTIAL_FILE, RunContext, fingerprint, refuse_another_runs_checkpoint,
    result_hash, shard_named,
};
use super::out_dir::{
    lock_out_dir, refuse_another_experiments_results, refuse_finished_results,
    refuse_unfit_outputs, remove_stale_temp_files, same_directory,
};
use super::record::{
    RunFacts, Started, chunk_sizes, interim_labels, picture_labels, print_summary, write_manifest,
    write_tables,
};
use super::shard_merge::{
    Partial, check_shard_counts, check_sum_so_far, read_partial, shard_rechecks,
};
use crate::config::Config;
use crate::engine::{self, journal, journal::Journal};
use crate::error::refuse;
use crate::export::manifest;
use crate::study::{Check, Study};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// `runner interim`: the tables of the chunks that the run of `config`
/// has finished so far, written to `ctx.out_dir` with a manifest that says
/// so. For runs of days (the both-rules 26x26 deals), whose rates so far a
/// researcher wants before the end. Each of `run_dirs` is the output
/// directory of the run or of some of its shards: a stopped or running
/// one's checkpoint is read only, checked as a resume checks it (its
/// records are final once written, and a record being written is left
/// out); a finished shard's `partial.json` is checked as a merge checks
/// it. The tables go to a directory of their own, never a run's, so that
/// they are not taken for a finished run's results.
pub fn interim<S: Study>(
    config: &Config,
    ctx: &RunContext,
    run_dirs: &[PathBuf],
) -> anyhow::Result<Check>
where
    S::Counts: DeserializeOwned,
{
    let started = Started::now();
    let out = &ctx.out_dir;
    if let Some(dir) = run_dirs.iter().find(|d| same_directory(out, d)) {
        return Err(refuse(format!(
            "--to {}: is the output directory of a run given with --out; interim tables go to a directory of their own, so that they are never taken for the finished run's",
            dir.display()
        )));
    }
    let study = S::build(config, &ctx.build_context())?;
    let sizes = chunk_sizes(&study);
    let hash = result_hash(config, &sizes);
    let plan = engine::Plan::new(&study);
    let cells = plan.cells();
    let mut merged: Vec<S::Counts> = (0..cells).map(|_| S::Counts::default()).collect();
    let mut merged_items = vec![0u64; cells];
    let mut done: Vec<u64> = Vec::new();
    let mut sources = Vec::new();
    let mut rechecks = Vec::new();
    // Shard count, and the directory each shard index came from.
    let mut shards_of_run: Option<u64> = None;
    let mut seen: std::collections::BTreeMap<u64, &Path> = Default::default();
    for dir in run_dirs {
        let InterimPart {
            shard,
            part,
            source,
            rechecks: passed,
        } = interim_part(&study, &plan, &hash, dir)?;
        rechecks.extend(passed);
        if *shards_of_run.get_or_insert(shard.count) != shard.count {
            return Err(refuse(format!(
                "{}: a shard of {} shards, where the directories before it hold shards of {}",
                source.display(),
                shard.count,
                shards_of_run.unwrap_or(0)
            )));
        }
        if let Some(other) = seen.insert(shard.index, dir) {
            return Err(refuse(format!(
                "shard {} of {} given twice: {} and {}",
                shard.index,
                shard.count,
                other.display(),
                dir.display()
            )));
        }
        for (cell, counts) in part.counts.into_iter().enumerate() {
            S::merge(&mut merged[cell], counts);
            merged_items[cell] += part.items[cell];
            check_sum_so_far(&study, cell, merged_items[cell], &merged[cell], &source)?;
        }
        done.extend(part.chunks.into_iter().flatten());
        sources.push(source.display().to_string());
    }
    let (shards, index) = match (shards_of_run, seen.keys().next()) {
        (Some(n), Some(&i)) if n > 1 && seen.len() == 1 => (n, i),
        (Some(n), _) => (n, 0),
        _ => return Err(refuse("interim needs the directory of a run (--out)")),
    };
    let _only_writer = lock_out_dir(out)?;
    refuse_unfit_outputs(&study, out, true, false)?;
    refuse_another_experiments_results(config, out)?;
    refuse_finished_results(out)?;
    remove_stale_temp_files(out);
    done.sort_unstable();
    if done.len() as u64 == plan.len() {
        eprintln!(
            "note: every chunk of the run is done; its results are what the run writes (a finished run has written them; else --resume finishes it, or `runner merge` its shards)"
        );
    }
    let facts = manifest::Interim {
        from: sources,
        chunks_done: done.len() as u64,
        chunks_total: plan.len(),
        chunks: ranges_text(&done),
    };
    let counts: Vec<&S::Counts> = merged.iter().collect();
    let labels = interim_labels(picture_labels(config), &facts);
    let mut written = write_tables(&study, &counts, &labels, out)?;
    let summary = study.summary(&counts, out);
    let dirs: Vec<String> = run_dirs.iter().map(|d| d.display().to_string()).collect();
    println!(
        "interim: {} ({}) of the run in {}; the run's results are only what it writes when it finishes",
        facts.share(),
        facts.chunks,
        dirs.join(", ")
    );
    println!("{}", manifest::rechecks_line(&rechecks));
    written.push("manifest.json".into());
    write_manifest(
        out,
        ctx,
        RunFacts {
            chunks: facts.chunks_done,
            shards,
            shard_index: index,
            merged_from: Vec::new(),
            started,
            check: summary.check,
            outputs: written.clone(),
            config,
            chunk_sizes: sizes,
            interim: Some(facts),
            rechecks,
        },
    )?;
    print_summary(ctx, config, &summary, &written);
    Ok(summary.check)
}

/// What one directory of a run holds for [`interim`].
pub(super) struct InterimPart<C> {
    /// The shard it is of.
    pub(super) shard: engine::Shard,
    /// Its finished chunks' counts.
    pub(super) part: engine::Restored<C>,
    /// The file they were read from.
    pub(super) source: PathBuf,
    /// The rechecks its checkpoint records (a finished shard's are in its
    /// manifest).
    pub(super) rechecks: Vec<manifest::RecheckPassed>,
}

/// What one directory of a run holds for [`interim`]: the chunks its
/// checkpoint records (a run or shard stopped or under way), else every
/// chunk of the finished shard whose `partial.json` it holds.
pub(super) fn interim_part<S: Study>(
    study: &S,
    plan: &engine::Plan,
    hash: &str,
    dir: &Path,
) -> anyhow::Result<InterimPart<S::Counts>>
where
    S::Counts: DeserializeOwned,
{
    let path = dir.join(CHECKPOINT_FILE);
    refuse_another_runs_checkpoint(&path, hash, None)?;
    let (count, index) = journal::fingerprint_of(&path)?
        .and_then(|found| shard_named(&found, hash))
        .unwrap_or((1, 0));
    if let Some(finished) = Journal::<S::Counts>::read_only(
        &path,
        &fingerprint(hash, count, index),
        journal::Remedy::StartOver,
    )? {
        let shard = engine::Shard { count, index };
        return Ok(InterimPart {
            shard,
            part: engine::restore(study, plan, shard, &finished)?,
            source: path,
            rechecks: finished.rechecks().to_vec(),
        });
    }
    if !dir.join(PARTIAL_FILE).exists() {
        return Err(refuse(format!(
            "{}: no checkpoint of a run of this config, nor a finished shard's {PARTIAL_FILE}; `runner interim` reads what a run or shard keeps in its output directory (give that with --out)",
            dir.display()
        )));
    }
    let (path, v) = read_partial(dir)?;
    let p: Partial<S::Counts> = serde_json::from_value(v)
        .map_err(|e| refuse(format!("{}: unreadable shard counts: {e}", path.display())))?;
    if p.config_hash != hash || p.version != env!("CARGO_PKG_VERSION") {
        return Err(refuse(format!(
            "{}: the shard result of another config or version, not this run's",
            path.display()
        )));
    }
    if p.shard_index >= p.shards || p.cells.len() != plan.cells() {
        return Err(refuse(format!(
            "{}: not a shard of this run; the shard result was edited",
            path.display()
        )));
    }
    let shard = engine::Shard {
        count: p.shards,
        index: p.shard_index,
    };
    check_shard_counts(study, plan, shard, &p.cells, &path)?;
    let part = engine::Restored {
        items: (0..plan.cells())
            .map(|cell| plan.items_of(cell, shard))
            .collect(),
        chunks: (0..plan.cells())
            .map(|cell| shard.within(plan.cell_range(cell)).collect())
            .collect(),
        counts: p.cells,
    };
    // A finished run or shard journals no more: its rechecks are in the
    // manifest beside its partial.json.
    let rechecks = shard_rechecks(&path, shard, hash);
    Ok(InterimPart {
        shard,
        part,
        source: path,
        rechecks,
    })
}

/// Sorted chunk indices as ranges: "0-80, 250, 500-627". At most
/// [`RANGES_SHOWN`] are named, then how many more there are (a shard's
/// chunks are every n-th one).
pub(super) fn ranges_text(sorted: &[u64]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            sorted[i].to_string()
        } else {
            format!("{}-{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    match parts.len() {
        0 => "none".into(),
        n if n > RANGES_SHOWN => format!(
            "{} and {} more ranges",
            parts[..RANGES_SHOWN].join(", "),
            n - RANGES_SHOWN
        ),
        _ => parts.join(", "),
    }
}

/// Ranges of chunks [`ranges_text`] names.
pub(super) const RANGES_SHOWN: usize = 20;

#[cfg(test)]
mod tests {
    use super::ranges_text;

    #[test]
    fn chunks_are_named_as_ranges() {
        assert_eq!(ranges_text(&[]), "none");
        assert_eq!(ranges_text(&[7]), "7");
        assert_eq!(ranges_text(&[0, 1, 2]), "0-2");
        assert_eq!(
            ranges_text(&[0, 1, 2, 250, 500, 501, 750]),
            "0-2, 250, 500-501, 750"
        );
        let every_third: Vec<u64> = (0..30).map(|i| 3 * i).collect();
        assert_eq!(
            ranges_text(&every_third),
            "0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30, 33, 36, 39, 42, 45, 48, 51, 54, 57 and 10 more ranges"
        );
    }
}
