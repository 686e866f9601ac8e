//! The study contract: what a theorem check adds to an engine
//! [`Workload`] to be run from a config. Every study under
//! [`crate::studies`], and every claim suite through [`crate::claims`],
//! implements [`Study`]; the driver runs, shards and merges any of them the
//! same way.

use crate::config::Config;
use crate::engine::{CellResult, Plan, Workload};
use std::io::{self, Read, Write};
use std::path::Path;

/// What a study's check concluded; the top layer turns it into an exit
/// status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// Every claim the study checks held, or it checks none (a
    /// measurement, such as the variants' rates).
    Passed,
    /// A claim the study checks failed on some instance.
    Failed,
}

/// The end of a run: the check's conclusion and the lines printed for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// What the check concluded.
    pub check: Check,
    /// Human-readable lines, printed on stderr at the end of the run.
    pub lines: Vec<String>,
}

impl Summary {
    /// A study that measures without claiming anything: it always passes.
    pub fn measured(lines: Vec<String>) -> Summary {
        Summary {
            check: Check::Passed,
            lines,
        }
    }

    /// A claim checked: `lines`, then `fail_line` when it failed or
    /// `ok_line` when it held.
    pub fn checked(
        mut lines: Vec<String>,
        failed: bool,
        fail_line: String,
        ok_line: String,
    ) -> Summary {
        lines.push(if failed { fail_line } else { ok_line });
        Summary {
            check: if failed { Check::Failed } else { Check::Passed },
            lines,
        }
    }
}

/// What building a study may depend on. Nothing here changes what a run
/// computes, except `inject_fault`, which exists to prove that a study's
/// check can fail.
#[derive(Clone, Debug)]
pub struct BuildContext {
    /// Worker threads the run will use (memory budgets are split by it).
    pub threads: usize,
    /// Swap the study's claim for a deliberately wrong one.
    pub inject_fault: bool,
    /// How a long build (a claim study's tables) shows its progress.
    pub progress: crate::engine::progress::Mode,
    /// Set when a stop is requested (Ctrl-C, SIGTERM). The engine starts
    /// no instance after it and abandons the chunks under way; a solver
    /// whose one instance can take an hour (a 26x26 variant deal) polls it
    /// too and gives up, so a stop does not wait for that instance.
    pub stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Built only to time a few of its chunks (`runner plan`), not to run.
    /// Memory sized for a whole run's later chunks is then only a cost: a
    /// long sampled variant run grows its memo into an 8 GiB endgame table,
    /// which a plan's sample of a few thousand deals would touch all over
    /// (7.9 GB and 19 s for a plan of `variant-back-13.toml`).
    pub timing_sample: bool,
}

/// A run described from its config alone, before any work and without
/// building tables or allocating a memo: what `runner plan` prints, and
/// what the config fuzz test holds to its budget.
#[derive(Clone, Debug, PartialEq)]
pub struct Outline {
    /// The cells, in run order.
    pub cells: Vec<CellOutline>,
    /// The memory the run's tables and memo will hold, in bytes, beyond a
    /// small constant (the program, thread stacks, per-chunk counts).
    pub memory: u64,
    /// The config key that bounds `memory`, as written in errors.
    pub budget_key: &'static str,
    /// Its bound, in bytes: `memory` never exceeds it.
    pub budget: u64,
    /// One-line notes on settings that were adjusted (a memo cut to what
    /// the machine has).
    pub notes: Vec<String>,
    /// Which way a short timed sample misjudges this run, if it does.
    pub estimate_bias: Option<EstimateBias>,
}

/// How a short timed sample misjudges a run, for `runner plan`: the note it
/// prints under its estimate, and how its cluster recipe allows for it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EstimateBias {
    /// A memo kept from deal to deal makes a long run faster than its
    /// first chunks: the estimate errs long, and the recipe's usual margin
    /// holds.
    ErrsLong(&'static str),
    /// Deals of very uneven cost, each a chunk of its own, make a run
    /// slower than a sample of a few shows: a whole run has taken up to
    /// `measured` times its estimate, so the recipe plans on that much.
    ErrsShort {
        /// The line under the estimate.
        note: &'static str,
        /// The worst measured ratio of a run's time to its estimate.
        measured: f64,
    },
}

impl EstimateBias {
    /// The line `runner plan` prints under its estimate.
    pub fn note(&self) -> &'static str {
        match self {
            EstimateBias::ErrsLong(note) | EstimateBias::ErrsShort { note, .. } => note,
        }
    }

    /// Does the run take longer than its estimate, at worst?
    pub fn errs_short(bias: Option<EstimateBias>) -> bool {
        matches!(bias, Some(EstimateBias::ErrsShort { .. }))
    }

    /// The seconds to plan a run on, for an estimate of `estimate_secs`:
    /// the estimate, or where it errs short, its worst measured overrun.
    pub fn at_worst(bias: Option<EstimateBias>, estimate_secs: f64) -> f64 {
        match bias {
            Some(EstimateBias::ErrsShort { measured, .. }) => estimate_secs * measured,
            _ => estimate_secs,
        }
    }
}

/// One cell of an [`Outline`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CellOutline {
    /// As shown in progress lines.
    pub label: String,
    /// Instances (deals, patterns, claim instances).
    pub items: u64,
    /// Instances per chunk.
    pub chunk_size: u64,
}

impl Outline {
    /// The chunk plan the engine will run.
    pub fn plan(&self) -> Plan {
        Plan::from_sizes(self.cells.iter().map(|c| (c.items, c.chunk_size)))
    }
}

/// A theorem check at scale: an engine workload plus how to build it from a
/// config, which tables it writes, and what its counts conclude.
pub trait Study: Workload + Sized {
    /// Builds the study from a config already checked by the registry.
    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self>;
    /// What a run of `config` on `threads` threads will do and hold,
    /// computed cheaply from the config (checked by the registry).
    fn outline(config: &Config, threads: usize) -> Outline;
    /// Deterministic tables from merged per-cell counts, as (file, bytes).
    fn tables(&self, cells: &[&Self::Counts]) -> Vec<(&'static str, Vec<u8>)>;
    /// `run.csv`: timings and search effort, which vary from run to run.
    fn run_details(&self, cells: &[CellResult<Self::Counts>]) -> Vec<u8>;
    /// What the counts conclude, and the lines printed at the end.
    fn summary(&self, cells: &[&Self::Counts], out_dir: &Path) -> Summary;
    /// Whether [`Self::kept_memo`] gives a memo: read by the registry, so
    /// that `--keep-memo` is refused for a study without one before it is
    /// built or scripted for a cluster.
    const KEEPS_MEMO: bool = false;
    /// The memo this study keeps across instances, if it is worth saving
    /// over a stop (`--keep-memo`); none by default.
    fn kept_memo(&self) -> Option<&dyn KeptMemo> {
        None
    }
}

/// A memo that a study keeps across instances, which a stopped run writes
/// out (`--keep-memo`) and the run that resumes it reads back. A stop
/// abandons the instances under way, and a resume starts them over; with
/// the memo read back, what was proved of them before the stop is found
/// again instead of proved again, so an instance longer than any one
/// sitting (a 26x26 deal under both variant rules) still finishes. The
/// driver frames the bytes (whose run they are, a checksum); the study
/// only says what its tables hold.
pub trait KeptMemo {
    /// Writes every table, those of the workers the engine retired too.
    fn write_memo(&self, out: &mut dyn Write) -> io::Result<()>;
    /// Reads back what [`Self::write_memo`] wrote, before any chunk runs.
    fn read_memo(&self, input: &mut dyn Read) -> io::Result<()>;
    /// How this build's memo keys name positions: a fingerprint computed
    /// from the key functions themselves, so that a change to them, within
    /// one version, makes an older memo refused rather than misread.
    fn key_encoding(&self) -> String;
    /// The key encoding of memos kept before memos named theirs, if known.
    fn key_encoding_of_memos_without_keys(&self) -> Option<&'static str> {
        None
    }
}
