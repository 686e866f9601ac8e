//! Runs a study end to end, whatever the study: plans and shards the chunks,
//! journals them for resume, writes outputs atomically, and merges shards.
//!
//! A run with one shard writes the tables directly; a shard of many writes
//! `partial.json`, and `runner merge` sums the partials and writes the same
//! tables through the same code, so merged output is byte-identical to a
//! single-machine run.

use crate::config::Config;
use crate::engine::{self, Outcome, Workload, journal, journal::Journal, memo_file, progress};
use crate::error::{Role, refuse, refuse_unless_file_or_absent};
use crate::export::{manifest, plot, write_atomic};
use crate::study::{BuildContext, Check, KeptMemo, Study};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::time::Instant;

/// How one run executes; nothing here changes what it computes, except
/// `inject_fault`, which exists to prove that a study's check can fail.
#[derive(Clone, Debug)]
pub struct RunContext {
    /// The config file, as the user named it (recorded in the manifest).
    pub config_path: PathBuf,
    /// Where tables, checkpoints and the manifest go.
    pub out_dir: PathBuf,
    /// Worker threads.
    pub threads: usize,
    /// How progress is shown.
    pub progress: progress::Mode,
    /// Swap the study's claim for a deliberately wrong one.
    pub inject_fault: bool,
    /// (shard count, shard index), or `None` for the whole run.
    pub shard: Option<(u64, u64)>,
    /// Continue from the checkpoint in the output directory, if any.
    pub resume: bool,
    /// Print the end of the run as one JSON object on stdout instead of
    /// the summary lines.
    pub json: bool,
    /// Discard the checkpoint in the output directory, if any. With
    /// neither this nor `resume`, a checkpoint there is refused: a rerun
    /// must not silently throw away hours of finished chunks.
    pub fresh: bool,
    /// On a stop, also write the study's memo beside the checkpoint
    /// ([`MEMO_FILE`]), which a resume reads back.
    pub keep_memo: bool,
    /// Set by SIGINT/SIGTERM: start no new chunk, checkpoint, and exit.
    pub stop: Arc<AtomicBool>,
    /// Where the run is ([`Phase`]), so a signal handler knows whether
    /// there is anything to checkpoint.
    pub phase: Arc<AtomicU8>,
}

/// The phases of a run, as kept in [`RunContext::phase`].
pub struct Phase;

impl Phase {
    /// Building the study and planning: nothing to checkpoint yet, so a
    /// stop request may end the process at once.
    pub const PREPARING: u8 = 0;
    /// Running chunks: a stop request is honoured after the chunks under
    /// way, which are journalled or abandoned.
    pub const RUNNING: u8 = 1;
    /// Writing outputs, each atomically: a stop request waits for it.
    pub const WRITING: u8 = 2;
}

impl RunContext {
    /// A context for work that is not a run of its own (a merge, a plan's
    /// calibration): quiet, no shard, no checkpoint, no signal wiring.
    pub fn quiet(config_path: PathBuf, out_dir: PathBuf, threads: usize) -> RunContext {
        RunContext {
            config_path,
            out_dir,
            threads,
            progress: progress::Mode::Quiet,
            inject_fault: false,
            shard: None,
            resume: false,
            fresh: false,
            keep_memo: false,
            json: false,
            stop: Arc::new(AtomicBool::new(false)),
            phase: Arc::new(AtomicU8::new(Phase::PREPARING)),
        }
    }

    /// The part of the context a study may be built from.
    pub fn build_context(&self) -> BuildContext {
        BuildContext {
            threads: self.threads,
            inject_fault: self.inject_fault,
            progress: self.progress,
            stop: self.stop.clone(),
        }
    }
}

/// How a run ended, for the top layer to turn into an exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunOutcome {
    /// Every chunk of the run (or shard) was done; a shard always passes,
    /// since its check is made when the shards are merged.
    Finished(Check),
    /// A stop was requested; finished chunks are checkpointed.
    Interrupted,
}

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

/// One shard's counts, for `runner merge`.
pub const PARTIAL_FILE: &str = "partial.json";
/// The journal of finished chunks, for `--resume`.
pub const CHECKPOINT_FILE: &str = "checkpoint.jsonl";
/// A stopped run's memo (`--keep-memo`), read back by `--resume`.
pub const MEMO_FILE: &str = "memo.bin";

/// The hash of what decides `config`'s results ([`Config::result_inputs`]).
fn result_hash(config: &Config, chunk_sizes: &[u64]) -> String {
    manifest::config_hash(&config.result_inputs(chunk_sizes))
}

/// What names a run's checkpoint: the hash of what decides the results,
/// the version, and the shard. A resume refuses a checkpoint of anything else.
fn fingerprint(hash: &str, shards: u64, index: u64) -> String {
    format!(
        "config {hash} version {} shard {index} of {shards}",
        env!("CARGO_PKG_VERSION")
    )
}

/// What a stopped run's checkpoint holds, for `runner plan`.
#[derive(Debug, PartialEq, Eq)]
pub struct CheckpointProgress {
    /// Finished chunks it records.
    pub chunks_done: u64,
    /// The shard it belongs to (shards, index); (1, 0) for an unsharded run.
    pub shard: (u64, u64),
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
    let shard = journal::fingerprint_of(&path)?
        .and_then(|found| shard_named(&found, &hash))
        .unwrap_or((1, 0));
    let done = journal::chunks_done(&path, &fingerprint(&hash, shard.0, shard.1))?;
    Ok(done.map(|chunks_done| CheckpointProgress { chunks_done, shard }))
}

/// The shard (shards, index) that `found`, a checkpoint's fingerprint,
/// names if it is a run of this config and version: the inverse of
/// [`fingerprint`].
fn shard_named(found: &str, hash: &str) -> Option<(u64, u64)> {
    let (_, shard) = found.rsplit_once(" shard ")?;
    let (index, shards) = shard.split_once(" of ")?;
    let (shards, index) = (shards.parse().ok()?, index.parse().ok()?);
    (found == fingerprint(hash, shards, index) && index < shards).then_some((shards, index))
}

/// Runs (a shard of) study `S` from `config`: plans the chunks, resumes from the journal, runs the rest, and writes the tables (one shard) or `partial.json` (many), then the manifest.
pub fn run<S: Study>(config: &Config, ctx: &RunContext) -> anyhow::Result<RunOutcome> {
    let started = Instant::now();
    let started_unix = manifest::unix_now();
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
    refuse_unfit_outputs(&study, &ctx.out_dir, ctx.shard.is_none_or(|(n, _)| n == 1))?;
    refuse_another_experiments_results(config, &ctx.out_dir)?;
    let checkpoint = ctx.out_dir.join(CHECKPOINT_FILE);
    let holds_progress = std::fs::metadata(&checkpoint).is_ok_and(|m| m.len() > 0);
    if holds_progress && !ctx.resume && !ctx.fresh {
        return Err(refuse(format!(
            "{} holds the checkpoint of an unfinished run; add --resume to continue, or --fresh to start over",
            checkpoint.display()
        )));
    }
    let plan = engine::Plan::new(&study);
    let hash = result_hash(config, &chunk_sizes(&study));
    let (shards, index) = ctx.shard.unwrap_or((1, 0));
    let shard = engine::Shard {
        count: shards,
        index,
    };
    let out = &ctx.out_dir;
    remove_stale_temp_files(out);
    let run_name = fingerprint(&hash, shards, index);
    let mut journal =
        Journal::<S::Counts>::open(&out.join(CHECKPOINT_FILE), &run_name, ctx.resume)?;
    read_kept_memo(&study, &out.join(MEMO_FILE), &run_name, ctx)?;
    let opts = engine::RunOptions {
        threads: ctx.threads,
        progress: ctx.progress,
    };
    ctx.phase.store(Phase::RUNNING, Ordering::SeqCst);
    let ahead = warn_if_long(&study, &plan, shard, &mut journal, ctx)?;
    let outcome = engine::run_after(&study, &plan, shard, &opts, &mut journal, ahead, &ctx.stop)?;
    ctx.phase.store(Phase::WRITING, Ordering::SeqCst);
    let cells = match outcome {
        Outcome::Complete(cells) => cells,
        Outcome::Interrupted {
            chunks_done,
            chunks_total,
        } => {
            eprintln!(
                "interrupted: {chunks_done} of {chunks_total} chunks done and checkpointed in {}; rerun with --resume to finish",
                out.join(CHECKPOINT_FILE).display()
            );
            if let Some(memo) = study.kept_memo().filter(|_| ctx.keep_memo) {
                let path = out.join(MEMO_FILE);
                let keys = memo.key_encoding();
                let started = Instant::now();
                // The checkpoint is whole either way: a memo that cannot be
                // written (a full disk) costs the next run time, not results,
                // so the run still ends as interrupted.
                match memo_file::write(&path, &run_name, memo_keys(memo, &keys), |w| {
                    memo.write_memo(w)
                }) {
                    Ok(bytes) => eprintln!(
                        "kept the memo in {} ({}, {:.0} s); --resume reads it back and carries on the deals under way",
                        path.display(),
                        crate::export::size_text(bytes),
                        started.elapsed().as_secs_f64()
                    ),
                    Err(e) => eprintln!(
                        "could not write the memo: {e:#}; the checkpoint is whole, and --resume does without this stop's memo"
                    ),
                }
            }
            return Ok(RunOutcome::Interrupted);
        }
    };
    let counts: Vec<&S::Counts> = cells.iter().map(|c| &c.counts).collect();
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
        RunFacts {
            config_path: ctx.config_path.display().to_string(),
            chunks: shard.chunks_of(&plan),
            shards,
            shard_index: index,
            merged_from: Vec::new(),
            threads: ctx.threads,
            started,
            started_unix,
            check: summary.check,
            outputs: written.clone(),
            config,
            chunk_sizes: chunk_sizes(&study),
            interim: None,
        },
    )?;
    journal.remove()?;
    if study.kept_memo().is_some() {
        remove_kept_memo(&out.join(MEMO_FILE))?;
    }
    print_summary(ctx, config, &summary, &written);
    Ok(RunOutcome::Finished(summary.check))
}

/// Prints the end of a run on stdout: the summary lines, or with `--json`
/// one object a script can read (study, name, check, directory, files
/// written, and the same lines).
fn print_summary(
    ctx: &RunContext,
    config: &Config,
    summary: &crate::study::Summary,
    outputs: &[String],
) {
    if !ctx.json {
        for line in &summary.lines {
            println!("{line}");
        }
        return;
    }
    let object = serde_json::json!({
        "study": config.experiment.study,
        "name": config.experiment.name,
        "check": match summary.check {
            Check::Passed => "passed",
            Check::Failed => "failed",
        },
        "out_dir": ctx.out_dir.display().to_string(),
        "outputs": outputs,
        "summary": summary.lines,
    });
    println!("{object}");
}

/// Makes this process the only runner writing to `dir` until the returned
/// handle is dropped (at the latest, when the process exits, however it
/// ends), or refuses if another holds it.
///
/// Why: two runs started on one `--out` by mistake would both append to
/// the checkpoint, delete each other's temporary files and race on every
/// table. The lock is an advisory `flock` on the directory itself, so it
/// leaves no lock file behind in results that are committed, and the
/// kernel releases it when a run is killed, so it never goes stale.
fn lock_out_dir(dir: &Path) -> anyhow::Result<std::fs::File> {
    if dir.exists() && !dir.is_dir() {
        return Err(refuse(format!(
            "{}: the output directory is a file",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        refuse(format!(
            "{}: cannot create the output directory: {e}",
            dir.display()
        ))
    })?;
    let handle = std::fs::File::open(dir).map_err(|e| {
        refuse(format!(
            "{}: cannot open the output directory: {e}",
            dir.display()
        ))
    })?;
    match handle.try_lock() {
        Ok(()) => Ok(handle),
        Err(std::fs::TryLockError::WouldBlock) => Err(refuse(format!(
            "{}: another runner is writing to this directory; wait for it to finish (or stop it with Ctrl-C), or choose another directory",
            dir.display()
        ))),
        // Some network filesystems refuse flock on a read-only handle
        // (NFS emulates it with byte-range locks). A cluster run there must
        // still go ahead: the lock guards against a mistake, it is not what
        // makes outputs whole (atomic renames and the journal do that).
        Err(std::fs::TryLockError::Error(e)) => {
            eprintln!(
                "note: {}: cannot lock the output directory ({e}); make sure no other run writes to it",
                dir.display()
            );
            Ok(handle)
        }
    }
}

/// Refuses, before any work, an output directory where a file the run
/// will write exists as something other than a regular file (a FIFO, a
/// device, a directory). [`write_atomic`] refuses it too, but only when
/// the run gets there, hours of work later.
///
/// The tables' names come from the study's tables of empty counts (every
/// study writes the same files whatever its counts); a shard of many
/// writes no tables. (The checkpoint is [`Journal::open`]'s to check.)
fn refuse_unfit_outputs<S: Study>(study: &S, dir: &Path, with_tables: bool) -> anyhow::Result<()> {
    let mut names = vec![PARTIAL_FILE, "run.csv", "manifest.json"];
    if with_tables {
        let empty: Vec<S::Counts> = study
            .cell_sizes()
            .iter()
            .map(|_| S::Counts::default())
            .collect();
        let cells: Vec<&S::Counts> = empty.iter().collect();
        names.extend(study.tables(&cells).into_iter().map(|(name, _)| name));
        names.extend(plot::PICTURE_NAMES);
    }
    for name in names {
        refuse_unless_file_or_absent(&dir.join(name), Role::Written("written"))?;
    }
    Ok(())
}

/// Refuses an output directory that holds another experiment's results
/// (its `manifest.json` names another `[experiment] name`): a mistyped
/// `--out` would overwrite them, and leave the files this run does not
/// write beside its own. The same experiment rerun, with its config
/// edited or not, writes over its own results as before.
fn refuse_another_experiments_results(config: &Config, dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(manifest::FILE_NAME);
    if !path.exists() {
        return Ok(());
    }
    let recorded =
        serde_json::from_slice::<serde_json::Value>(&crate::export::read_result_file(&path)?)
            .ok()
            .and_then(|m| m["config"]["experiment"]["name"].as_str().map(String::from));
    match recorded {
        Some(name) if name != config.experiment.name => Err(refuse(format!(
            "{}: holds the results of experiment `{name}`, not `{}`; write to another directory, or remove this one to reuse it",
            dir.display(),
            config.experiment.name
        ))),
        _ => Ok(()),
    }
}

/// Removes the temporary files that a killed run of this directory left
/// behind while writing its outputs (`.NAME.PID.tmp` of another process).
fn remove_stale_temp_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mine = format!(".{}.tmp", std::process::id());
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && name.ends_with(".tmp") && !name.ends_with(&mine) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Reads the memo a stopped run kept at `path` back into a study that
/// keeps one, on a resume; any other run of such a study starts without
/// it, and a memo left there (of a run started over) is removed, since it
/// is not this run's. Other studies leave the path alone.
fn read_kept_memo<S: Study>(
    study: &S,
    path: &Path,
    run_name: &str,
    ctx: &RunContext,
) -> anyhow::Result<()> {
    let Some(memo) = study.kept_memo() else {
        return Ok(());
    };
    if !ctx.resume {
        return remove_kept_memo(path);
    }
    let started = Instant::now();
    let keys = memo.key_encoding();
    if let Some(bytes) = memo_file::read(path, run_name, memo_keys(memo, &keys), |r| {
        memo.read_memo(r)
    })? && !matches!(ctx.progress, progress::Mode::Quiet)
    {
        eprintln!(
            "read the kept memo back from {} ({}, {:.0} s)",
            path.display(),
            crate::export::size_text(bytes),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(())
}

/// The key encodings of `memo`, framed for its file; `current` is
/// [`KeptMemo::key_encoding`], computed once.
fn memo_keys<'a>(memo: &dyn KeptMemo, current: &'a str) -> memo_file::KeyEncoding<'a> {
    memo_file::KeyEncoding {
        current,
        of_memos_without_keys: memo.key_encoding_of_memos_without_keys(),
    }
}

/// Removes a kept memo, once the run it belongs to is finished or gone.
fn remove_kept_memo(path: &Path) -> anyhow::Result<()> {
    refuse_unless_file_or_absent(path, Role::Written("the kept memo"))?;
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(anyhow::Error::new(e).context(format!("cannot remove {}", path.display())))
        }
        _ => Ok(()),
    }
}

/// Writes the study's tables and the pictures drawn from them; returns the
/// file names.
fn write_tables<S: Study>(
    study: &S,
    counts: &[&S::Counts],
    labels: &plot::Labels,
    out: &Path,
) -> anyhow::Result<Vec<String>> {
    let tables = study.tables(counts);
    let mut written = Vec::new();
    for (name, bytes) in &tables {
        write_atomic(&out.join(name), bytes)?;
        written.push(name.to_string());
    }
    let views: Vec<(&str, &[u8])> = tables.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    for (name, bytes) in plot::pictures(&views, labels)? {
        write_atomic(&out.join(&name), &bytes)?;
        written.push(name);
    }
    Ok(written)
}

/// What the pictures of a run of `config` say about it.
pub fn picture_labels(config: &Config) -> plot::Labels {
    plot::Labels {
        run: config.experiment.name.clone(),
        context: config.description(),
    }
}

/// `labels` with the run's name marked as interim: a picture of a run's
/// chunks so far must not pass for the finished run's.
fn interim_labels(labels: plot::Labels, facts: &manifest::Interim) -> plot::Labels {
    plot::Labels {
        run: format!("{} (interim: {})", labels.run, facts.share()),
        ..labels
    }
}

/// The picture labels of the results in `dir`, from the config its
/// `manifest` records; the directory's name alone when there is no
/// readable manifest (a directory of CSVs copied by hand).
pub fn picture_labels_of(dir: &Path, manifest: Option<&manifest::Recorded>) -> plot::Labels {
    let recorded = manifest.and_then(|m| m.json().ok()).and_then(|m| {
        let config = serde_json::from_value::<Config>(m.get("config")?.clone()).ok()?;
        Some((config, manifest::interim_in(m)))
    });
    match recorded {
        Some((config, None)) => picture_labels(&config),
        Some((config, Some(facts))) => interim_labels(picture_labels(&config), &facts),
        None => plot::Labels {
            run: dir
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            context: String::new(),
        },
    }
}

/// The parts of a manifest that differ between a run and a merge.
struct RunFacts<'a> {
    config_path: String,
    chunks: u64,
    shards: u64,
    shard_index: u64,
    merged_from: Vec<String>,
    threads: usize,
    started: Instant,
    started_unix: u64,
    check: Check,
    outputs: Vec<String>,
    config: &'a Config,
    chunk_sizes: Vec<u64>,
    interim: Option<manifest::Interim>,
}

fn chunk_sizes<S: Workload>(study: &S) -> Vec<u64> {
    (0..study.cell_sizes().len())
        .map(|cell| study.chunk_size(cell))
        .collect()
}

fn write_manifest(out: &Path, f: RunFacts) -> anyhow::Result<()> {
    manifest::Manifest {
        tool: "runner",
        version: env!("CARGO_PKG_VERSION"),
        git_commit: manifest::GIT_COMMIT,
        // args() panics on an argument that is not UTF-8 (an output
        // directory named so), after all the work; the record is lossy.
        command_line: std::env::args_os()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
        study: &f.config.experiment.study,
        config_path: f.config_path,
        config_hash: result_hash(f.config, &f.chunk_sizes),
        config: f.config,
        seed: f.config.experiment.seed,
        chunk_sizes: f.chunk_sizes,
        chunks: f.chunks,
        shards: f.shards,
        shard_index: f.shard_index,
        merged_from: f.merged_from,
        threads: f.threads,
        started: manifest::iso_utc(f.started_unix),
        started_unix: f.started_unix,
        elapsed_s: (f.started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        host: manifest::host_name(),
        peak_rss_mb: manifest::peak_rss_mb(),
        check: match f.check {
            Check::Passed => "passed",
            Check::Failed => "failed",
        },
        sha256: manifest::hashes_of(out, &f.outputs)?,
        outputs: f.outputs,
        interim: f.interim,
    }
    .write(&out.join(manifest::FILE_NAME))
}

/// The key of a shard file's checksum.
const CHECKSUM: &str = "checksum";

/// The CRC-32 of a shard file's JSON with its checksum field empty. The
/// JSON value's keys are sorted, so the text is the same when written and
/// when checked.
fn checksum_of(mut v: serde_json::Value) -> anyhow::Result<String> {
    if let Some(map) = v.as_object_mut() {
        map.insert(CHECKSUM.into(), serde_json::Value::String(String::new()));
    }
    Ok(format!("{:08x}", crc32fast::hash(&serde_json::to_vec(&v)?)))
}

/// A shard file's bytes, with a checksum of its content, so that an edited
/// count or config echo is refused at the merge.
fn sealed<T: Serialize>(partial: &T) -> anyhow::Result<Vec<u8>> {
    let mut v = serde_json::to_value(partial)?;
    let sum = checksum_of(v.clone())?;
    if let Some(map) = v.as_object_mut() {
        map.insert(CHECKSUM.into(), serde_json::Value::String(sum));
    }
    Ok(serde_json::to_vec(&v)?)
}

/// Reads `partial.json` from a shard directory, its checksum checked.
fn read_partial(dir: &Path) -> anyhow::Result<(PathBuf, serde_json::Value)> {
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
    let started = Instant::now();
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
    let (study, _) = study.expect("checked non-empty");
    let counts: Vec<&S::Counts> = cells.iter().collect();
    let out = &ctx.out_dir;
    let _only_writer = lock_out_dir(out)?;
    refuse_unfit_outputs(&study, out, true)?;
    refuse_another_experiments_results(&config, out)?;
    remove_stale_temp_files(out);
    let mut written = write_tables(&study, &counts, &picture_labels(&config), out)?;
    let summary = study.summary(&counts, out);
    written.push("manifest.json".into());
    write_manifest(
        out,
        RunFacts {
            config_path: String::new(),
            chunks: engine::Plan::new(&study).len(),
            shards: from.len() as u64,
            shard_index: 0,
            merged_from: from,
            threads: ctx.threads,
            started,
            started_unix: manifest::unix_now(),
            check: summary.check,
            outputs: written.clone(),
            config: &config,
            chunk_sizes: chunk_sizes(&study),
            interim: None,
        },
    )?;
    print_summary(ctx, &config, &summary, &written);
    Ok(summary.check)
}

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
    let started = Instant::now();
    let started_unix = manifest::unix_now();
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
    // Shard count, and the directory each shard index came from.
    let mut shards_of_run: Option<u64> = None;
    let mut seen: std::collections::BTreeMap<u64, &Path> = Default::default();
    for dir in run_dirs {
        let (shard, part, source) = interim_part(&study, &plan, &hash, dir)?;
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
    refuse_unfit_outputs(&study, out, true)?;
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
    written.push("manifest.json".into());
    write_manifest(
        out,
        RunFacts {
            config_path: ctx.config_path.display().to_string(),
            chunks: facts.chunks_done,
            shards,
            shard_index: index,
            merged_from: Vec::new(),
            threads: ctx.threads,
            started,
            started_unix,
            check: summary.check,
            outputs: written.clone(),
            config,
            chunk_sizes: sizes,
            interim: Some(facts),
        },
    )?;
    print_summary(ctx, config, &summary, &written);
    Ok(summary.check)
}

/// What one directory of a run holds for [`interim`]: the chunks its
/// checkpoint records (a run or shard stopped or under way), else every
/// chunk of the finished shard whose `partial.json` it holds; with the
/// shard and the file read.
fn interim_part<S: Study>(
    study: &S,
    plan: &engine::Plan,
    hash: &str,
    dir: &Path,
) -> anyhow::Result<(engine::Shard, engine::Restored<S::Counts>, PathBuf)>
where
    S::Counts: DeserializeOwned,
{
    let path = dir.join(CHECKPOINT_FILE);
    let (count, index) = journal::fingerprint_of(&path)?
        .and_then(|found| shard_named(&found, hash))
        .unwrap_or((1, 0));
    if let Some(finished) =
        Journal::<S::Counts>::read_only(&path, &fingerprint(hash, count, index))?
    {
        let shard = engine::Shard { count, index };
        return Ok((shard, engine::restore(study, plan, shard, &finished)?, path));
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
    Ok((shard, part, path))
}

/// Checks a finished shard's counts, cell by cell, against the items of
/// its chunks, as a resume checks a checkpoint's records: a shard file
/// edited with its checksum recomputed must not reach a table (a rate
/// above 1). Shared by `runner merge` and `runner interim`.
fn check_shard_counts<S: Study>(
    study: &S,
    plan: &engine::Plan,
    shard: engine::Shard,
    cells: &[S::Counts],
    path: &Path,
) -> anyhow::Result<()> {
    for (cell, counts) in cells.iter().enumerate() {
        if let Err(problem) = study.check_counts(cell, plan.items_of(cell, shard), counts) {
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
fn check_sum_so_far<S: Study>(
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

/// Are `a` and `b` one directory (by their canonical paths, where both
/// exist; else by the paths as given)?
fn same_directory(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Refuses a directory holding a finished run's results (a manifest
/// without the interim mark): interim tables would replace them.
fn refuse_finished_results(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(manifest::FILE_NAME);
    if !path.exists() {
        return Ok(());
    }
    let interim =
        serde_json::from_slice::<serde_json::Value>(&crate::export::read_result_file(&path)?)
            .is_ok_and(|m| m.get("interim").is_some());
    if interim {
        Ok(())
    } else {
        Err(refuse(format!(
            "{}: holds a finished run's results; interim tables go to a directory of their own",
            dir.display()
        )))
    }
}

/// Sorted chunk indices as ranges: "0-80, 250, 500-627". At most
/// [`RANGES_SHOWN`] are named, then how many more there are (a shard's
/// chunks are every n-th one).
fn ranges_text(sorted: &[u64]) -> String {
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
const RANGES_SHOWN: usize = 20;

/// A short timed sample of a run, for `runner plan`'s estimate.
#[derive(Clone, Copy, Debug)]
pub struct Calibration {
    /// Seconds to build the study (tables, memo).
    pub build_seconds: f64,
    /// Chunks run in the sample: evenly spaced over the whole plan, so
    /// every cell is sampled in proportion to its chunks.
    pub chunks_run: u64,
    /// Chunks in the whole run.
    pub chunks_total: u64,
    /// Wall seconds the sample took on the run's threads.
    pub seconds: f64,
}

impl Calibration {
    /// Estimated wall seconds of the whole run on the same threads.
    pub fn estimate(&self) -> f64 {
        self.build_seconds + self.seconds / self.chunks_run.max(1) as f64 * self.chunks_total as f64
    }
}

/// Builds study `S` and times evenly spaced chunks of its plan, more each
/// round, until a round takes a quarter of `budget` or every chunk has run.
/// Nothing is written.
pub fn calibrate<S: Study>(
    config: &Config,
    ctx: &RunContext,
    budget: std::time::Duration,
) -> anyhow::Result<Calibration> {
    let built = Instant::now();
    let study = S::build(config, &ctx.build_context())?;
    let build_seconds = built.elapsed().as_secs_f64();
    let plan = engine::Plan::new(&study);
    let Some((chunks_run, seconds)) =
        time_sample(&study, &plan, engine::Shard::WHOLE, None, ctx, budget)?
    else {
        anyhow::bail!("stopped during calibration");
    };
    Ok(Calibration {
        build_seconds,
        chunks_run,
        chunks_total: plan.len(),
        seconds,
    })
}

/// Where a run's timing sample keeps its chunks: the run's journal, and the
/// counts and time the run will count as its own.
type KeptSample<'a, C> = (&'a mut Journal<C>, &'a mut engine::Ahead<C>);

/// Runs evenly spaced chunks of `run_shard`'s part of `plan` quietly, more
/// each round, until a round takes a quarter of `budget` or every chunk has
/// run; returns the chunks run and the wall seconds of the last round, or
/// `None` if a stop was requested meanwhile. With the run's journal and an
/// [`engine::Ahead`], the chunks run are journalled and kept there, so the
/// run counts them instead of doing them again (a chunk of a 26x26 deal
/// under 11-back can take an hour); without, nothing is written.
fn time_sample<S: Study>(
    study: &S,
    plan: &engine::Plan,
    run_shard: engine::Shard,
    mut keep: Option<KeptSample<'_, S::Counts>>,
    ctx: &RunContext,
    budget: std::time::Duration,
) -> anyhow::Result<Option<(u64, f64)>> {
    let total = run_shard.chunks_of(plan);
    let opts = engine::RunOptions {
        threads: ctx.threads,
        progress: progress::Mode::Quiet,
    };
    let mut wanted = (ctx.threads as u64 * 2).max(1);
    let started = Instant::now();
    for round in 0.. {
        let stride = (total / wanted.min(total.max(1))).max(1);
        // Every stride-th chunk of the run's shard. Round 0 and later rounds
        // sample different chunks (a different offset), so a chunk is never
        // timed with its answers already in the memo.
        let shard = engine::Shard {
            count: run_shard.count * stride,
            index: run_shard.index + run_shard.count * ((round as u64 * 7919) % stride),
        };
        let timer = Instant::now();
        let (finished, chunks_run) = match keep.as_mut() {
            Some((journal, ahead)) => {
                let before = ahead.len();
                let finished =
                    engine::run_ahead(study, plan, shard, &opts, journal, ahead, &ctx.stop)?;
                (finished, ahead.len() - before)
            }
            None => (
                matches!(
                    engine::run(study, plan, shard, &opts, None, &ctx.stop)?,
                    Outcome::Complete(_)
                ),
                shard.chunks_of(plan),
            ),
        };
        if !finished {
            return Ok(None);
        }
        let seconds = timer.elapsed().as_secs_f64();
        // The first round only warms up: it pays for first touches of the
        // memo that the real run pays once, not per chunk. Unless its
        // chunks are so long (26x26 deals under 11-back take minutes) that
        // the warm-up is a small share of them, and another round would
        // cost minutes more, with nothing shown and nothing checkpointed.
        let warmed = round > 0 || seconds >= 10.0 * budget.as_secs_f64();
        if stride == 1
            || (warmed && (seconds * 4.0 >= budget.as_secs_f64() || started.elapsed() >= budget))
        {
            return Ok(Some((chunks_run, seconds)));
        }
        // Aim the next round at a quarter of the budget.
        let per_chunk = seconds / chunks_run.max(1) as f64;
        let target = (budget.as_secs_f64() / 4.0 / per_chunk.max(1e-6)) as u64;
        wanted = target.clamp(wanted * 2, wanted * 16);
    }
    unreachable!("the rounds above end by returning")
}

/// Runs an action on another thread if it is still alive after a time
/// limit; dropping it first cancels the action. For work that cannot be cut
/// short (a chunk runs to its end) but must not leave the user waiting in
/// silence.
pub struct Deadline {
    /// Dropped with the deadline, which wakes the watcher and cancels it.
    _alive: std::sync::mpsc::Sender<()>,
}

impl Deadline {
    /// Starts the clock: `on_late` runs once `limit` has passed, unless the
    /// deadline was dropped before.
    pub fn start(limit: std::time::Duration, on_late: impl FnOnce() + Send + 'static) -> Deadline {
        let (alive, watched) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = watched.recv_timeout(limit) {
                on_late();
            }
        });
        Deadline { _alive: alive }
    }
}

/// A sample of the run that takes longer than this says so.
const SLOW_SAMPLE_NOTE_AFTER: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs shorter than this get no warning before they start.
const LONG_RUN_SECONDS: f64 = 3600.0;

/// Plans of fewer chunks are not timed before the run: they are short, and
/// timing them would cost a noticeable share of the run.
const TIMED_PLAN_CHUNKS: u64 = 512;

/// Before a run that is not quiet, times a short sample of it (at most about
/// a second) and, if the chunks this shard still has to do will take over an
/// hour, says so in one line, with what to do about it. The sample's chunks
/// are journalled and returned, for the run to count.
fn warn_if_long<S: Study>(
    study: &S,
    plan: &engine::Plan,
    shard: engine::Shard,
    journal: &mut Journal<S::Counts>,
    ctx: &RunContext,
) -> anyhow::Result<engine::Ahead<S::Counts>> {
    let mut ahead = engine::Ahead::new(plan.cells());
    // A resumed run was timed when it first started, and its progress line
    // gives the time left. Timing it again would cost the most where it
    // tells the least: the sample runs in rounds that each wait for their
    // slowest chunk, and the chunks a long run has left are often its
    // slowest (a resumed 26x26 run under both rules spent a whole sitting
    // in its sample, one core idle at each round's end).
    if matches!(ctx.progress, progress::Mode::Quiet)
        || plan.len() < TIMED_PLAN_CHUNKS
        || journal.done_count() > 0
    {
        return Ok(ahead);
    }
    // The sample runs whole chunks, and a chunk can take minutes (one
    // 26x26 deal under 11-back took over an hour): say what is going on
    // rather than stay silent until it ends.
    let slow = Deadline::start(SLOW_SAMPLE_NOTE_AFTER, || {
        eprintln!(
            "note: timing a sample of the run before it starts; its chunks are slow, so this takes a while (they are checkpointed and count toward the run; Ctrl-C stops it)"
        );
    });
    let sample = time_sample(
        study,
        plan,
        shard,
        Some((&mut *journal, &mut ahead)),
        ctx,
        std::time::Duration::from_millis(1000),
    )?;
    drop(slow);
    // A stop during the sample leaves the flag set: the run that follows
    // starts no chunk and ends as interrupted, with exit status 4.
    let Some((sampled, seconds)) = sample else {
        return Ok(ahead);
    };
    let remaining = shard
        .chunks_of(plan)
        .saturating_sub(journal.done_count() + ahead.len());
    let estimate = seconds / sampled.max(1) as f64 * remaining as f64;
    if estimate > LONG_RUN_SECONDS {
        eprintln!(
            "note: this run will take about {} on {} (timed on a sample); Ctrl-C checkpoints it and --resume continues, and `runner plan` gives a cluster recipe",
            crate::export::duration_text(estimate),
            crate::export::threads_text(ctx.threads)
        );
    }
    Ok(ahead)
}

#[cfg(test)]
mod tests {
    use super::{fingerprint, ranges_text, shard_named};

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

    #[test]
    fn a_shard_is_read_back_from_its_own_configs_fingerprint_only() {
        for (shards, index) in [(1, 0), (2, 1), (1000, 999)] {
            let found = fingerprint("abc", shards, index);
            assert_eq!(shard_named(&found, "abc"), Some((shards, index)));
            assert_eq!(shard_named(&found, "abd"), None, "another config's");
        }
        let other_version = fingerprint("abc", 2, 1).replace(" version ", " version 9");
        assert_eq!(shard_named(&other_version, "abc"), None);
        for edited in [
            "shard 2 of 2",
            "shard x of 2",
            "shard 1 of",
            "shard 1 of 2 ",
        ] {
            let found = fingerprint("abc", 2, 1).replace("shard 1 of 2", edited);
            assert_eq!(shard_named(&found, "abc"), None, "{edited}");
        }
    }
}
