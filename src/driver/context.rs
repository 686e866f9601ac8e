//! What every part of the driver shares: how a run executes, how it
//! ended, the names of the files it keeps, and the name of its checkpoint.

use crate::config::Config;
use crate::engine::progress;
use crate::export::manifest;
use crate::study::{BuildContext, Check};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU8};

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
    /// On a resume, how many journalled chunks to solve again and compare
    /// with their records before trusting the checkpoint; 0 for none.
    pub recheck: u64,
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
            recheck: 0,
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
            timing_sample: false,
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

/// One shard's counts, for `runner merge`.
pub const PARTIAL_FILE: &str = "partial.json";
/// The journal of finished chunks, for `--resume`.
pub const CHECKPOINT_FILE: &str = "checkpoint.jsonl";
/// A finished shard's journal, kept beside its [`PARTIAL_FILE`] so that
/// `runner merge --recheck` can solve its chunks again.
pub const SHARD_CHUNKS_FILE: &str = "chunks.jsonl";
/// A stopped run's memo (`--keep-memo`), read back by `--resume`.
pub const MEMO_FILE: &str = "memo.bin";

/// The hash of what decides `config`'s results ([`Config::result_inputs`]).
pub(super) fn result_hash(config: &Config, chunk_sizes: &[u64]) -> String {
    manifest::config_hash(&config.result_inputs(chunk_sizes))
}

/// What a run's hash gains when its claim was swapped for a wrong one
/// (`--inject-fault`): what such a run counts are not results of its
/// config, so its checkpoint is never resumed, nor its shard merged, as
/// theirs.
pub(super) const FAULT_INJECTED: &str = "+fault-injected";

/// The hash naming the run of `config` that `ctx` executes: what decides
/// its results ([`result_hash`]), and whether a fault was injected.
pub(super) fn run_hash(config: &Config, chunk_sizes: &[u64], ctx: &RunContext) -> String {
    let hash = result_hash(config, chunk_sizes);
    if ctx.inject_fault {
        hash + FAULT_INJECTED
    } else {
        hash
    }
}

/// What names a run's checkpoint: the hash of what decides the results,
/// the version, and the shard. A resume refuses a checkpoint of anything else.
pub(super) fn fingerprint(hash: &str, shards: u64, index: u64) -> String {
    format!(
        "config {hash} version {} shard {index} of {shards}",
        env!("CARGO_PKG_VERSION")
    )
}

/// The shard (shards, index) that `found`, a checkpoint's fingerprint,
/// names if it is a run of this config and version: the inverse of
/// [`fingerprint`].
pub(super) fn shard_named(found: &str, hash: &str) -> Option<(u64, u64)> {
    let (_, shard) = found.rsplit_once(" shard ")?;
    let (index, shards) = shard.split_once(" of ")?;
    let (shards, index) = (shards.parse().ok()?, index.parse().ok()?);
    (found == fingerprint(hash, shards, index) && index < shards).then_some((shards, index))
}

/// What differs between `found`, a checkpoint's fingerprint, and this
/// run's (of config hash `hash`, shard `index` of `shards`, or any shard
/// for `None`, as `runner interim` and `runner plan` read one), as clauses
/// a user can act on, or `None` if `found` is not in [`fingerprint`]'s
/// form. The config's hash names no key, so a config that differs is said
/// as such.
pub(super) fn how_another_run_differs(
    found: &str,
    hash: &str,
    shard: Option<(u64, u64)>,
) -> Option<String> {
    let (found_hash, rest) = found.strip_prefix("config ")?.split_once(" version ")?;
    let (found_version, found_shard) = rest.split_once(" shard ")?;
    let (found_index, found_shards) = found_shard.split_once(" of ")?;
    let (found_index, found_shards): (u64, u64) =
        (found_index.parse().ok()?, found_shards.parse().ok()?);
    if found_hash.is_empty() || found_version.contains(' ') || found_index >= found_shards {
        return None;
    }
    let shard_of = |index: u64, shards: u64| {
        if shards == 1 {
            "the whole run".to_string()
        } else {
            format!("shard {index} of {shards}")
        }
    };
    let mut clauses = Vec::new();
    let injected = |hash: &str| -> (String, bool) {
        match hash.strip_suffix(FAULT_INJECTED) {
            Some(base) => (base.into(), true),
            None => (hash.into(), false),
        }
    };
    let ((found_base, found_injected), (base, injected)) = (injected(found_hash), injected(hash));
    if found_base != base {
        clauses.push(
            "it was started from another config (or by a build that cuts the work into other chunks)"
                .to_string(),
        );
    }
    if found_injected != injected {
        clauses.push(if found_injected {
            "it was started with --inject-fault, a test of the checks whose counts are no results"
                .to_string()
        } else {
            "it was started without --inject-fault, and this run swaps the claim for a wrong one"
                .to_string()
        });
    }
    let version = env!("CARGO_PKG_VERSION");
    if found_version != version {
        clauses.push(format!(
            "it was written by runner {found_version}, and this is runner {version}"
        ));
    }
    if let Some((shards, index)) = shard
        && (found_shards, found_index) != (shards, index)
    {
        let flags = if found_shards == 1 {
            "no --shards".to_string()
        } else {
            format!("--shards {found_shards} --shard-index {found_index}")
        };
        clauses.push(format!(
            "it is {}'s, where this run is {}: give {flags}",
            shard_of(found_index, found_shards),
            shard_of(index, shards)
        ));
    }
    (!clauses.is_empty()).then(|| clauses.join("; "))
}

/// Refuses the checkpoint at `path` if its fingerprint names another run
/// than one of config hash `hash` (of `shard`, or any shard for `None`),
/// saying what differs ([`how_another_run_differs`]); a checkpoint that
/// is absent, or not in [`fingerprint`]'s form, is left to the journal,
/// which refuses it whole.
pub(super) fn refuse_another_runs_checkpoint(
    path: &std::path::Path,
    hash: &str,
    shard: Option<(u64, u64)>,
) -> anyhow::Result<()> {
    if let Some(found) = crate::engine::journal::fingerprint_of(path)?
        && let Some(how) = how_another_run_differs(&found, hash, shard)
    {
        return Err(crate::error::refuse(format!(
            "{}: the checkpoint belongs to another run ({how}); give the config and flags it was started with, or start over with --fresh or in another directory",
            path.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{FAULT_INJECTED, fingerprint, how_another_run_differs, shard_named};

    #[test]
    fn another_runs_checkpoint_is_told_apart_by_what_differs() {
        let found = fingerprint("abc", 2, 1);
        assert_eq!(how_another_run_differs(&found, "abc", Some((2, 1))), None);
        assert_eq!(
            how_another_run_differs(&found, "abc", Some((1, 0))).as_deref(),
            Some(
                "it is shard 1 of 2's, where this run is the whole run: give --shards 2 --shard-index 1"
            )
        );
        assert_eq!(
            how_another_run_differs(&fingerprint("abc", 1, 0), "abc", Some((4, 3))).as_deref(),
            Some("it is the whole run's, where this run is shard 3 of 4: give no --shards")
        );
        let said = how_another_run_differs(&found, "abd", Some((2, 1))).unwrap();
        assert!(
            said.starts_with("it was started from another config"),
            "{said}"
        );
        assert!(!said.contains("shard"), "{said}");
        let old = found.replace(
            &format!(" version {} ", env!("CARGO_PKG_VERSION")),
            " version 0.0.1 ",
        );
        let said = how_another_run_differs(&old, "abd", Some((3, 0))).unwrap();
        let clauses: Vec<&str> = said.split("; ").collect();
        assert_eq!(clauses.len(), 3, "{said}");
        assert!(clauses[1].starts_with("it was written by runner 0.0.1, and this is runner"));
        assert!(clauses[2].contains("shard 0 of 3: give --shards 2 --shard-index 1"));
        let faulty = fingerprint(&format!("abc{FAULT_INJECTED}"), 2, 1);
        assert_eq!(
            how_another_run_differs(&faulty, "abc", Some((2, 1))).as_deref(),
            Some(
                "it was started with --inject-fault, a test of the checks whose counts are no results"
            )
        );
        let said =
            how_another_run_differs(&found, &format!("abd{FAULT_INJECTED}"), Some((2, 1))).unwrap();
        // Read by any shard (interim, plan): only the run's own parts count.
        assert_eq!(how_another_run_differs(&found, "abc", None), None);
        assert_eq!(
            how_another_run_differs(&faulty, "abc", None).as_deref(),
            Some(
                "it was started with --inject-fault, a test of the checks whose counts are no results"
            )
        );
        let clauses: Vec<&str> = said.split("; ").collect();
        assert!(clauses[0].starts_with("it was started from another config"));
        assert!(clauses[1].starts_with("it was started without --inject-fault"));
        // Not a fingerprint of this form: no answer, so the caller falls
        // back to the whole fingerprints.
        for edited in [
            "",
            "config abc",
            "config  version 1 shard 0 of 1",
            "config abc version 1 shard 2 of 2",
            "config abc version 1 shard x of 2",
            "config abc version 1 2 shard 0 of 1",
            "run abc version 1 shard 0 of 1",
        ] {
            assert_eq!(
                how_another_run_differs(edited, "abc", Some((1, 0))),
                None,
                "{edited:?}"
            );
        }
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
