//! `runner merge`: each shard's `partial.json`, sealed with a checksum,
//! read back, checked as a resume checks a checkpoint, and summed into the
//! tables of the whole run.

use super::context::{
    FAULT_INJECTED, PARTIAL_FILE, RunContext, SHARD_CHUNKS_FILE, fingerprint, result_hash,
};
use super::out_dir::{
    lock_out_dir, refuse_another_experiments_results, refuse_unfit_outputs, remove_stale_temp_files,
};
use super::recheck::{Solved, solve_again};
use super::record::{
    RunFacts, Started, chunk_sizes, picture_labels, print_summary, write_manifest, write_tables,
};
use crate::config::Config;
use crate::engine::{self, journal, journal::Journal};
use crate::error::{Role, refuse, refuse_unless_file_or_absent};
use crate::export::manifest;
use crate::study::{Check, Study};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The fixed type of the shard results a merge reads: each file's path and
/// its parsed JSON.
pub type ShardResults = Vec<(PathBuf, serde_json::Value)>;

/// One shard's results, for `runner merge`.
#[derive(Serialize, Deserialize)]
pub struct Partial<C> {
    /// Always `runner`.
    pub tool: String,
    /// The version that wrote it; merges need the same.
    pub version: String,
    /// The config's hash; merges need the same.
    pub config_hash: String,
    /// The config echo.
    pub config: Config,
    /// Shards of the run.
    pub shards: u64,
    /// Which shard this is.
    pub shard_index: u64,
    /// Counts of every cell, for this shard's chunks only.
    pub cells: Vec<C>,
}

/// The key of a shard file's checksum.
pub(super) const CHECKSUM: &str = "checksum";

/// The CRC-32 of a shard file's JSON with its checksum field empty. The
/// JSON value's keys are sorted, so the text is the same when written and
/// when checked.
pub(super) fn checksum_of(mut v: serde_json::Value) -> anyhow::Result<String> {
    if let Some(map) = v.as_object_mut() {
        map.insert(CHECKSUM.into(), serde_json::Value::String(String::new()));
    }
    Ok(format!("{:08x}", crc32fast::hash(&serde_json::to_vec(&v)?)))
}

/// A shard file's bytes, with a checksum of its content, so that an edited
/// count or config echo is refused at the merge.
pub(super) fn sealed<T: Serialize>(partial: &T) -> anyhow::Result<Vec<u8>> {
    let mut v = serde_json::to_value(partial)?;
    let sum = checksum_of(v.clone())?;
    if let Some(map) = v.as_object_mut() {
        map.insert(CHECKSUM.into(), serde_json::Value::String(sum));
    }
    Ok(serde_json::to_vec(&v)?)
}

/// Reads `partial.json` from a shard directory, its checksum checked.
pub(super) fn read_partial(dir: &Path) -> anyhow::Result<(PathBuf, serde_json::Value)> {
    let path = dir.join(PARTIAL_FILE);
    refuse_unless_file_or_absent(&path, Role::Read("read as shard results"))?;
    if !path.exists()
        && let Some(facts) = manifest::interim_of(dir)
    {
        return Err(refuse(format!(
            "{}: holds interim tables ({} of a run not finished, by `runner interim`), not a shard's results; merge the shards' own directories once they finish",
            dir.display(),
            facts.share()
        )));
    }
    let bytes = std::fs::read(&path).map_err(|e| {
        refuse(format!(
            "{}: cannot read shard results: {e}",
            path.display()
        ))
    })?;
    let v: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| refuse(format!("{}: not a shard result: {e}", path.display())))?;
    let recorded = v.get(CHECKSUM).and_then(|c| c.as_str()).map(String::from);
    if recorded.as_deref() != Some(checksum_of(v.clone())?.as_str()) {
        return Err(refuse(format!(
            "{}: checksum mismatch; the shard result was edited or corrupted (rerun that shard)",
            path.display()
        )));
    }
    Ok((path, v))
}

/// Reads `partial.json` from each shard directory and checks that together
/// they are exactly the shards of one run.
pub fn read_partials(dirs: &[PathBuf]) -> anyhow::Result<ShardResults> {
    let out = dirs
        .iter()
        .map(|dir| read_partial(dir))
        .collect::<anyhow::Result<ShardResults>>()?;
    let Some((first_path, first)) = out.first() else {
        return Err(refuse("merge needs at least one shard directory"));
    };
    let field =
        |v: &serde_json::Value, k: &str| v.get(k).cloned().unwrap_or(serde_json::Value::Null);
    for (path, v) in &out[1..] {
        for key in ["version", "config_hash", "shards"] {
            if field(v, key) != field(first, key) {
                return Err(refuse(format!(
                    "{} and {} come from different runs: {key} {} vs {}",
                    first_path.display(),
                    path.display(),
                    field(first, key),
                    field(v, key)
                )));
            }
        }
    }
    if (field(first, "config_hash").as_str()).is_some_and(|h| h.ends_with(FAULT_INJECTED)) {
        return Err(refuse(format!(
            "{}: a shard run with --inject-fault, a test of the checks whose counts are no results; it is never merged",
            first_path.display()
        )));
    }
    if field(first, "version") != serde_json::json!(env!("CARGO_PKG_VERSION")) {
        return Err(refuse(format!(
            "{}: written by runner {}, this is {}",
            first_path.display(),
            field(first, "version"),
            env!("CARGO_PKG_VERSION")
        )));
    }
    let shards = field(first, "shards").as_u64().unwrap_or(0);
    if shards == 0 {
        return Err(refuse(format!(
            "{}: no shard count recorded",
            first_path.display()
        )));
    }
    // Indices seen, by shard; the shard count comes from a file, so
    // nothing is sized by it.
    let mut seen: std::collections::BTreeMap<u64, &Path> = Default::default();
    for (path, v) in &out {
        let i = field(v, "shard_index").as_u64().unwrap_or(u64::MAX);
        if i >= shards {
            return Err(refuse(format!(
                "{}: shard index {i} out of range for {shards} shards",
                path.display()
            )));
        }
        if let Some(other) = seen.insert(i, path) {
            return Err(refuse(format!(
                "shard {i} given twice: {} and {}",
                other.display(),
                path.display()
            )));
        }
    }
    let missing_count = shards - seen.len() as u64;
    if missing_count > 0 {
        let shown: Vec<String> = (0..shards)
            .filter(|i| !seen.contains_key(i))
            .take(20)
            .map(|i| i.to_string())
            .collect();
        let more = if missing_count > 20 {
            format!(" and {} more", missing_count - 20)
        } else {
            String::new()
        };
        // The commands that redo just those shards: SLURM array indices are
        // the shard indices (scripts written by `runner slurm`), and a
        // shard can be rerun by hand with its index.
        let name = field(&out[0].1, "config")["experiment"]["name"]
            .as_str()
            .unwrap_or("NAME")
            .to_string();
        let first = shown.first().cloned().unwrap_or_default();
        return Err(refuse(format!(
            "missing shard(s) {}{more} of {shards}; resubmit just those with `sbatch --array={} scripts/slurm/{name}/array.sbatch`, or run one by hand with `runner --config CONFIG --shards {shards} --shard-index {first} --resume`",
            shown.join(", "),
            shown.join(",")
        )));
    }
    Ok(out)
}

/// Sums the shards' counts and writes the tables of the whole run.
pub fn merge<S: Study>(partials: ShardResults, ctx: &RunContext) -> anyhow::Result<Check>
where
    S::Counts: DeserializeOwned,
{
    let started = Started::now();
    let mut merged: Option<Vec<S::Counts>> = None;
    let mut config: Option<Config> = None;
    let mut from = Vec::new();
    // Chunk sizes follow from the result inputs, which every shard shares
    // (read_partials checked their hashes agree), so the outline (an
    // arena build for `impartial`) is made once, not once per shard.
    let mut sizes: Option<Vec<u64>> = None;
    // Built from the first shard's config (every shard's is the same, by
    // the hash), to check each shard's counts as a resume checks a
    // checkpoint's: a shard file edited with its checksum recomputed must
    // not merge into a rate above 1.
    let mut study: Option<(S, engine::Plan)> = None;
    // Per cell, the items of the shards merged so far.
    let mut merged_items: Vec<u64> = Vec::new();
    let mut rechecks = Vec::new();
    // With --recheck, what each shard's records must add up to.
    let mut to_recheck: Vec<ShardRecords> = Vec::new();
    for (path, v) in partials {
        let p: Partial<S::Counts> = serde_json::from_value(v)
            .map_err(|e| refuse(format!("{}: unreadable shard counts: {e}", path.display())))?;
        let sizes = sizes.get_or_insert_with(|| {
            S::outline(&p.config, 1)
                .cells
                .iter()
                .map(|c| c.chunk_size)
                .collect()
        });
        if result_hash(&p.config, sizes) != p.config_hash {
            return Err(refuse(format!(
                "{}: the config echo does not match its hash; the shard result was edited",
                path.display()
            )));
        }
        let (checker, plan) = match &mut study {
            Some(built) => built,
            None => {
                let built = S::build(&p.config, &ctx.build_context())?;
                let plan = engine::Plan::new(&built);
                study.insert((built, plan))
            }
        };
        if p.cells.len() != plan.cells() {
            return Err(refuse(format!("{}: wrong number of cells", path.display())));
        }
        merged_items.resize(plan.cells(), 0);
        let shard = engine::Shard {
            count: p.shards,
            index: p.shard_index,
        };
        check_shard_counts(checker, plan, shard, &p.cells, &path)?;
        rechecks.extend(shard_rechecks(&path, shard, &p.config_hash));
        if ctx.recheck > 0 {
            to_recheck.push(ShardRecords {
                dir: path.parent().map(Path::to_path_buf).unwrap_or_default(),
                shard,
                hash: p.config_hash.clone(),
                cells: serde_json::to_value(&p.cells)?,
            });
        }
        from.push(path.display().to_string());
        config.get_or_insert(p.config);
        for (cell, items) in merged_items.iter_mut().enumerate() {
            *items += plan.items_of(cell, shard);
        }
        match &mut merged {
            None => merged = Some(p.cells),
            // Every shard has the plan's cells (checked above).
            Some(acc) => {
                for (cell, (a, c)) in acc.iter_mut().zip(p.cells).enumerate() {
                    S::merge(a, c);
                    check_sum_so_far(checker, cell, merged_items[cell], a, &path)?;
                }
            }
        }
    }
    let config = config.expect("checked non-empty");
    let cells = merged.expect("checked non-empty");
    let (study, plan) = study.expect("checked non-empty");
    let counts: Vec<&S::Counts> = cells.iter().collect();
    let out = &ctx.out_dir;
    let _only_writer = lock_out_dir(out)?;
    refuse_unfit_outputs(&study, out, true, false)?;
    refuse_another_experiments_results(&config, out)?;
    remove_stale_temp_files(out);
    // After the outputs are found fit: a recheck can take as long as the
    // chunks it solves.
    if ctx.recheck > 0 {
        rechecks.extend(recheck_shards(&study, &plan, &to_recheck, ctx)?);
    }
    let mut written = write_tables(&study, &counts, &picture_labels(&config), out)?;
    let summary = study.summary(&counts, out);
    written.push("manifest.json".into());
    write_manifest(
        out,
        ctx,
        RunFacts {
            chunks: plan.len(),
            shards: from.len() as u64,
            shard_index: 0,
            merged_from: from,
            started,
            check: summary.check,
            outputs: written.clone(),
            config: &config,
            chunk_sizes: chunk_sizes(&study),
            interim: None,
            rechecks,
        },
    )?;
    print_summary(ctx, &config, &summary, &written);
    Ok(summary.check)
}

/// What `runner merge --recheck` holds of a shard until its records are
/// read: where its results are, which shard it is, its run's hash, and
/// the counts of its `partial.json`, which its records must add up to.
struct ShardRecords {
    dir: PathBuf,
    shard: engine::Shard,
    hash: String,
    cells: serde_json::Value,
}

/// `runner merge --recheck`: reads the records each shard kept beside its
/// results ([`SHARD_CHUNKS_FILE`]), which must hold every chunk of the
/// shard and add up to its `partial.json`, then solves `ctx.recheck` of
/// all their chunks again, picked at random ([`solve_again`]). So a shard
/// result forged with its checksum recomputed is caught: either its
/// records no longer add up to it, or they were forged to match, and a
/// chunk solved again differs from its record when it is one picked.
fn recheck_shards<S: Study>(
    study: &S,
    plan: &engine::Plan,
    shards: &[ShardRecords],
    ctx: &RunContext,
) -> anyhow::Result<Option<manifest::RecheckPassed>> {
    let mut read = Vec::with_capacity(shards.len());
    for s in shards {
        let path = s.dir.join(SHARD_CHUNKS_FILE);
        let name = fingerprint(&s.hash, s.shard.count, s.shard.index);
        let Some(finished) =
            Journal::<S::Counts>::read_only(&path, &name, journal::Remedy::RerunShard)?
        else {
            return Err(refuse(format!(
                "{}: not there, so --recheck cannot solve shard {}'s chunks again (the shard was finished by an older build, which kept none, or the file was removed); rerun that shard, or merge without --recheck",
                path.display(),
                s.shard.index
            )));
        };
        let restored = engine::restore(study, plan, s.shard, &finished)?;
        let every_chunk =
            (0..plan.cells()).all(|cell| restored.items[cell] == plan.items_of(cell, s.shard));
        if !every_chunk || serde_json::to_value(&restored.counts)? != s.cells {
            return Err(refuse(format!(
                "{}: its records do not add up to the {PARTIAL_FILE} beside it; one of the two was edited (rerun that shard)",
                path.display()
            )));
        }
        read.push((s.shard, finished));
    }
    let parts: Vec<_> = read.iter().map(|(shard, f)| (*shard, f)).collect();
    let opts = engine::RunOptions {
        threads: ctx.threads,
        progress: ctx.progress,
    };
    match solve_again(study, plan, &parts, "the shards'", &opts, ctx)? {
        Solved::AsRecorded(passed) => Ok(Some(passed)),
        Solved::Nothing => Ok(None),
        Solved::Stopped => Err(anyhow::anyhow!(
            "the merge was stopped during its recheck; nothing was written"
        )),
    }
}

/// The rechecks listed by the manifest beside a shard's `partial.json`
/// (`partial`), for the manifest of a merge or a `runner interim`, each
/// marked with the shard when the run has several (an unsharded run's own
/// manifest marks none). Provenance, not counts: a manifest that is not
/// there, cannot be read, or is of another run adds none, with a note for
/// the last two.
pub(super) fn shard_rechecks(
    partial: &Path,
    shard: engine::Shard,
    config_hash: &str,
) -> Vec<manifest::RecheckPassed> {
    let shard_index = shard.index;
    let Some(dir) = partial.parent() else {
        return Vec::new();
    };
    let note = |why: &str| {
        crate::error::say(format_args!(
            "note: {}: {why}, so the manifest written lists none of shard {shard_index}'s rechecks",
            dir.join(manifest::FILE_NAME).display()
        ));
        Vec::new()
    };
    let recorded = match manifest::Recorded::read(dir) {
        Ok(Some(recorded)) => recorded,
        Ok(None) => return Vec::new(),
        Err(e) => return note(&format!("cannot be read ({e:#})")),
    };
    let Ok(json) = recorded.json() else {
        return note("not JSON");
    };
    let same_run = json.get("config_hash").and_then(|h| h.as_str()) == Some(config_hash)
        && json.get("shard_index").and_then(|i| i.as_u64()) == Some(shard_index);
    if !same_run {
        return note("the manifest of another run than the shard result beside it");
    }
    let Some(listed) = json.get("rechecks") else {
        return Vec::new();
    };
    match Vec::<manifest::RecheckPassed>::deserialize(listed) {
        Ok(rechecks) => rechecks
            .into_iter()
            .map(|r| manifest::RecheckPassed {
                shard_index: (shard.count > 1).then_some(shard_index),
                ..r
            })
            .collect(),
        Err(e) => note(&format!("its rechecks cannot be read ({e})")),
    }
}

/// Checks a finished shard's counts, cell by cell, against the items of
/// its chunks, as a resume checks a checkpoint's records: a shard file
/// edited with its checksum recomputed must not reach a table (a rate
/// above 1). Shared by `runner merge` and `runner interim`.
pub(super) fn check_shard_counts<S: Study>(
    study: &S,
    plan: &engine::Plan,
    shard: engine::Shard,
    cells: &[S::Counts],
    path: &Path,
) -> anyhow::Result<()> {
    for (cell, counts) in cells.iter().enumerate() {
        let items = plan.items_of(cell, shard);
        let checked = engine::check_read_back(study, plan, cell, items, counts, |g| shard.holds(g));
        if let Err(problem) = checked {
            return Err(refuse(format!(
                "{}: cell {cell}: {problem}; the shard result was edited (rerun that shard)",
                path.display()
            )));
        }
    }
    Ok(())
}

/// Checks a cell's counts summed over the parts read so far (the last one
/// from `path`) against the items of those parts' chunks: parts that each
/// fit may still add up to more deals than their chunks hold. Checked at
/// every step, so no sum grows past twice a cell's bound.
pub(super) fn check_sum_so_far<S: Study>(
    study: &S,
    cell: usize,
    items: u64,
    sum: &S::Counts,
    path: &Path,
) -> anyhow::Result<()> {
    study.check_counts(cell, items, sum).map_err(|problem| {
        refuse(format!(
            "{}: cell {cell}: {problem} once counted with the parts before it; a checkpoint or shard result was edited",
            path.display()
        ))
    })
}
