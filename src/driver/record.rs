//! What a run writes besides its counts: the tables and pictures drawn
//! from them, the manifest that says which run they are, and the summary
//! it prints at the end.

use super::context::{RunContext, result_hash};
use crate::config::Config;
use crate::engine::Workload;
use crate::export::{manifest, plot, write_atomic};
use crate::study::{Check, Study};
use std::path::Path;
use std::time::Instant;

/// Writes the study's tables and the pictures drawn from them; returns the
/// file names.
pub(super) fn write_tables<S: Study>(
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
pub(super) fn interim_labels(labels: plot::Labels, facts: &manifest::Interim) -> plot::Labels {
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

/// The parts of a manifest that differ between a run, a merge and an
/// interim.
pub(super) struct RunFacts<'a> {
    pub(super) chunks: u64,
    pub(super) shards: u64,
    pub(super) shard_index: u64,
    pub(super) merged_from: Vec<String>,
    pub(super) started: Started,
    pub(super) check: Check,
    pub(super) outputs: Vec<String>,
    pub(super) config: &'a Config,
    pub(super) chunk_sizes: Vec<u64>,
    pub(super) interim: Option<manifest::Interim>,
    pub(super) rechecks: Vec<manifest::RecheckPassed>,
}

/// When a run, merge or interim started: the clock its elapsed time is
/// measured by, and the wall time its manifest records, read together.
#[derive(Clone, Copy)]
pub(super) struct Started {
    clock: Instant,
    unix: u64,
}

impl Started {
    pub(super) fn now() -> Started {
        Started {
            clock: Instant::now(),
            unix: manifest::unix_now(),
        }
    }
}

pub(super) fn chunk_sizes<S: Workload>(study: &S) -> Vec<u64> {
    (0..study.cell_sizes().len())
        .map(|cell| study.chunk_size(cell))
        .collect()
}

/// Writes the manifest of the run `ctx` describes (its config file and
/// threads) with what differs between a run, a merge and an interim.
pub(super) fn write_manifest(out: &Path, ctx: &RunContext, f: RunFacts) -> anyhow::Result<()> {
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
        config_path: ctx.config_path.display().to_string(),
        config_hash: result_hash(f.config, &f.chunk_sizes),
        config: f.config,
        seed: f.config.experiment.seed,
        chunk_sizes: f.chunk_sizes,
        chunks: f.chunks,
        shards: f.shards,
        shard_index: f.shard_index,
        merged_from: f.merged_from,
        threads: ctx.threads,
        started: manifest::iso_utc(f.started.unix),
        started_unix: f.started.unix,
        elapsed_s: (f.started.clock.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        host: manifest::host_name(),
        peak_rss_mb: manifest::peak_rss_mb(),
        check: match f.check {
            Check::Passed => "passed",
            Check::Failed => "failed",
        },
        sha256: manifest::hashes_of(out, &f.outputs)?,
        outputs: f.outputs,
        interim: f.interim,
        rechecks: f.rechecks,
    }
    .write(&out.join(manifest::FILE_NAME))
}

/// Prints the end of a run on stdout: the summary lines, or with `--json`
/// one object a script can read (study, name, check, directory, files
/// written, and the same lines).
pub(super) fn print_summary(
    ctx: &RunContext,
    config: &Config,
    summary: &crate::study::Summary,
    outputs: &[String],
) {
    if !ctx.json {
        // A line quotes --out, which may hold a line break; a script
        // reads the summary line by line (`--json` escapes it anyway).
        for line in &summary.lines {
            println!("{}", crate::error::on_one_line(line));
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
