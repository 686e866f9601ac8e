//! Runs a study end to end, whatever the study: plans and shards the chunks,
//! journals them for resume, writes outputs atomically, and merges shards.
//!
//! A run with one shard writes the tables directly; a shard of many writes
//! `partial.json`, and `runner merge` sums the partials and writes the same
//! tables through the same code, so merged output is byte-identical to a
//! single-machine run.

use crate::app::{EXIT_INTERRUPTED, EXIT_USAGE};
use crate::config::Config;
use crate::engine::{self, CellResult, Outcome, Study, journal::Journal};
use crate::export::{manifest, plot, write_atomic};
use crate::studies::RunContext;
use anyhow::Context;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The end of a check's verdict: exit 1 with `fail_line` when the check
/// failed, else exit 0 with `ok_line`.
pub fn check_verdict(
    mut lines: Vec<String>,
    failed: bool,
    fail_line: String,
    ok_line: String,
) -> (i32, Vec<String>) {
    if failed {
        lines.push(fail_line);
        (crate::app::EXIT_CHECK_FAILED, lines)
    } else {
        lines.push(ok_line);
        (crate::app::EXIT_OK, lines)
    }
}

/// What a study adds to the engine to be run from a config: how to build it,
/// which tables it writes, and what its counts mean for the exit code.
pub trait Report: Study + Sized {
    fn build(config: &Config, ctx: &RunContext) -> anyhow::Result<Self>;
    /// Deterministic tables from merged per-cell counts, as (file, bytes).
    fn tables(&self, cells: &[&Self::Counts]) -> Vec<(&'static str, Vec<u8>)>;
    /// `run.csv`: timings and search effort, which vary from run to run.
    fn run_details(&self, cells: &[CellResult<Self::Counts>]) -> Vec<u8>;
    /// Exit code and the summary lines printed at the end.
    fn verdict(&self, cells: &[&Self::Counts], out_dir: &Path) -> (i32, Vec<String>);
}

/// One shard's results, for `runner merge`.
#[derive(Serialize, Deserialize)]
pub struct Partial<C> {
    pub tool: String,
    pub version: String,
    pub config_hash: String,
    pub config: Config,
    pub shards: u64,
    pub shard_index: u64,
    pub cells: Vec<C>,
}

pub const PARTIAL_FILE: &str = "partial.json";
pub const CHECKPOINT_FILE: &str = "checkpoint.jsonl";

fn fingerprint(config: &Config, shards: u64, index: u64) -> String {
    format!(
        "config {} version {} shard {index} of {shards}",
        manifest::config_hash(config),
        env!("CARGO_PKG_VERSION")
    )
}

pub fn run<S: Report>(config: &Config, ctx: &RunContext) -> anyhow::Result<i32> {
    let started = Instant::now();
    let started_unix = manifest::unix_now();
    let study = S::build(config, ctx)?;
    let all = engine::plan(&study);
    let (shards, index) = ctx.shard.unwrap_or((1, 0));
    let chunks = engine::shard(&all, shards, index);
    let out = &ctx.out_dir;
    let mut journal = Journal::<S::Counts>::open(
        &out.join(CHECKPOINT_FILE),
        &fingerprint(config, shards, index),
        ctx.resume,
    )?;
    let opts = engine::RunOptions {
        threads: ctx.threads,
        progress: ctx.progress,
    };
    let cells = match engine::run(&study, &chunks, &opts, Some(&mut journal), &ctx.stop)? {
        Outcome::Complete(cells) => cells,
        Outcome::Interrupted {
            chunks_done,
            chunks_total,
        } => {
            eprintln!(
                "interrupted: {chunks_done} of {chunks_total} chunks done and checkpointed in {}; rerun with --resume to finish",
                out.join(CHECKPOINT_FILE).display()
            );
            return Ok(EXIT_INTERRUPTED);
        }
    };
    let counts: Vec<&S::Counts> = cells.iter().map(|c| &c.counts).collect();
    let mut written = Vec::new();
    if shards == 1 {
        written.extend(write_tables(&study, &counts, config, out)?);
    }
    let partial = Partial {
        tool: "runner".into(),
        version: env!("CARGO_PKG_VERSION").into(),
        config_hash: manifest::config_hash(config),
        config: config.clone(),
        shards,
        shard_index: index,
        cells: counts.clone(),
    };
    write_atomic(&out.join(PARTIAL_FILE), &serde_json::to_vec(&partial)?)?;
    written.push(PARTIAL_FILE.into());
    write_atomic(&out.join("run.csv"), &study.run_details(&cells))?;
    written.push("run.csv".into());
    let (code, lines) = if shards == 1 {
        study.verdict(&counts, out)
    } else {
        (
            0,
            vec![format!(
                "shard {index} of {shards} done; merge with `runner merge`"
            )],
        )
    };
    written.push("manifest.json".into());
    write_manifest(
        out,
        RunFacts {
            config_path: ctx.config_path.display().to_string(),
            chunks: chunks.len() as u64,
            shards,
            shard_index: index,
            merged_from: Vec::new(),
            threads: ctx.threads,
            started,
            started_unix,
            exit_code: code,
            outputs: written,
            config,
            chunk_sizes: chunk_sizes(&study),
        },
    )?;
    journal.remove()?;
    for line in lines {
        eprintln!("{line}");
    }
    Ok(code)
}

/// Writes the study's tables and the pictures drawn from them; returns the
/// file names.
fn write_tables<S: Report>(
    study: &S,
    counts: &[&S::Counts],
    config: &Config,
    out: &Path,
) -> anyhow::Result<Vec<String>> {
    let tables = study.tables(counts);
    let mut written = Vec::new();
    for (name, bytes) in &tables {
        write_atomic(&out.join(name), bytes)?;
        written.push(name.to_string());
    }
    let views: Vec<(&str, &[u8])> = tables.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    for (name, bytes) in plot::pictures(&views, &config.experiment.name)? {
        write_atomic(&out.join(&name), &bytes)?;
        written.push(name);
    }
    Ok(written)
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
    exit_code: i32,
    outputs: Vec<String>,
    config: &'a Config,
    chunk_sizes: Vec<u64>,
}

fn chunk_sizes<S: Study>(study: &S) -> Vec<u64> {
    (0..study.cell_sizes().len())
        .map(|cell| study.chunk_size(cell))
        .collect()
}

fn write_manifest(out: &Path, f: RunFacts) -> anyhow::Result<()> {
    manifest::Manifest {
        tool: "runner",
        version: env!("CARGO_PKG_VERSION"),
        study: &f.config.experiment.study,
        config_path: f.config_path,
        config_hash: manifest::config_hash(f.config),
        config: f.config,
        seed: f.config.experiment.seed,
        chunk_sizes: f.chunk_sizes,
        chunks: f.chunks,
        shards: f.shards,
        shard_index: f.shard_index,
        merged_from: f.merged_from,
        threads: f.threads,
        started_unix: f.started_unix,
        elapsed_s: (f.started.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        host: manifest::host_name(),
        peak_rss_mb: manifest::peak_rss_mb(),
        exit_code: f.exit_code,
        outputs: f.outputs,
    }
    .write(&out.join("manifest.json"))
}

/// A merge problem the user must fix: exit code 2, not a crash.
#[derive(Debug)]
pub struct MergeRefused(pub String);

impl std::fmt::Display for MergeRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for MergeRefused {}

/// Reads `partial.json` from each shard directory and checks that together
/// they are exactly the shards of one run.
pub fn read_partials(dirs: &[PathBuf]) -> anyhow::Result<Vec<(PathBuf, serde_json::Value)>> {
    let refuse = |msg: String| anyhow::Error::new(MergeRefused(msg));
    let mut out = Vec::new();
    for dir in dirs {
        let path = dir.join(PARTIAL_FILE);
        let bytes = std::fs::read(&path).map_err(|e| {
            refuse(format!(
                "{}: cannot read shard results: {e}",
                path.display()
            ))
        })?;
        let v: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| refuse(format!("{}: not a shard result: {e}", path.display())))?;
        out.push((path, v));
    }
    let Some((first_path, first)) = out.first() else {
        return Err(refuse("merge needs at least one shard directory".into()));
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
    let mut seen = vec![None::<&Path>; shards as usize];
    for (path, v) in &out {
        let i = field(v, "shard_index").as_u64().unwrap_or(u64::MAX);
        let Some(slot) = seen.get_mut(i as usize) else {
            return Err(refuse(format!(
                "{}: shard index {i} out of range for {shards} shards",
                path.display()
            )));
        };
        if let Some(other) = slot {
            return Err(refuse(format!(
                "shard {i} given twice: {} and {}",
                other.display(),
                path.display()
            )));
        }
        *slot = Some(path);
    }
    let missing: Vec<String> = seen
        .iter()
        .enumerate()
        .filter(|(_, s)| s.is_none())
        .map(|(i, _)| i.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(refuse(format!(
            "missing shard(s) {} of {shards}",
            missing.join(", ")
        )));
    }
    Ok(out)
}

/// Sums the shards' counts and writes the tables of the whole run.
pub fn merge<S: Report>(
    partials: Vec<(PathBuf, serde_json::Value)>,
    ctx: &RunContext,
) -> anyhow::Result<i32>
where
    S::Counts: DeserializeOwned,
{
    let started = Instant::now();
    let mut merged: Option<Vec<S::Counts>> = None;
    let mut config: Option<Config> = None;
    let mut from = Vec::new();
    for (path, v) in partials {
        let p: Partial<S::Counts> = serde_json::from_value(v)
            .with_context(|| format!("{}: unreadable shard counts", path.display()))?;
        from.push(path.display().to_string());
        config.get_or_insert(p.config);
        match &mut merged {
            None => merged = Some(p.cells),
            Some(acc) => {
                if acc.len() != p.cells.len() {
                    return Err(anyhow::Error::new(MergeRefused(format!(
                        "{}: wrong number of cells",
                        path.display()
                    ))));
                }
                for (a, c) in acc.iter_mut().zip(p.cells) {
                    S::merge(a, c);
                }
            }
        }
    }
    let config = config.expect("checked non-empty");
    let cells = merged.expect("checked non-empty");
    let study = S::build(&config, ctx)?;
    let counts: Vec<&S::Counts> = cells.iter().collect();
    let out = &ctx.out_dir;
    let mut written = write_tables(&study, &counts, &config, out)?;
    let (code, lines) = study.verdict(&counts, out);
    written.push("manifest.json".into());
    write_manifest(
        out,
        RunFacts {
            config_path: String::new(),
            chunks: engine::plan(&study).len() as u64,
            shards: from.len() as u64,
            shard_index: 0,
            merged_from: from,
            threads: ctx.threads,
            started,
            started_unix: manifest::unix_now(),
            exit_code: code,
            outputs: written,
            config: &config,
            chunk_sizes: chunk_sizes(&study),
        },
    )?;
    for line in lines {
        eprintln!("{line}");
    }
    Ok(code)
}

/// Exit code for a refused merge.
pub fn merge_error_code(e: &anyhow::Error) -> Option<i32> {
    e.downcast_ref::<MergeRefused>().map(|_| EXIT_USAGE)
}
