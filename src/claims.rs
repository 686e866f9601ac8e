//! Claim studies: a suite of stated claims, each checked on a numbered list of
//! instances, summarised in `claims.csv`.
//!
//! A suite only says which claims it has, how many instances each has, and
//! whether instance `i` of claim `c` holds. This module turns that into an
//! engine study (one cell per claim), so chunking, threads, shards, resume
//! and merge work exactly as for the card studies.
//!
//! Instances are numbered from the smallest up, so the failure with the
//! lowest index is the smallest counterexample; merging keeps the lowest
//! index, which makes the reported counterexample independent of threads
//! and shards.

use crate::config::Config;
use crate::engine::{CellResult, Chunk, Workload};
use crate::export::Table;
use crate::study::{BuildContext, CellOutline, Outline, Study, Summary};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What one claim is called and how many instances it has.
#[derive(Clone, Debug)]
pub struct ClaimSpec {
    /// Family of the claim, such as `nim` or `wythoff`.
    pub suite: &'static str,
    /// Short stable identifier, documented in `configs/README.md`.
    pub id: String,
    /// Instances of the claim, numbered from the smallest.
    pub instances: u64,
}

/// The result of checking one instance.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The claim holds on this instance.
    Holds,
    /// The claim fails here; the text shows the instance in readable form.
    Fails(String),
    /// The instance does not meet the claim's premise, so it says nothing.
    Vacuous,
}

/// A family of claims checked by brute force.
pub trait Suite: Sync + Sized + 'static {
    /// Per-thread scratch, such as memo tables, kept across chunks.
    type Scratch: Send;
    /// Checks the suite's own config table; errors read `"[table] key: problem"`.
    fn validate(config: &Config) -> Result<(), String>;
    /// `inject_fault` swaps one claim for a deliberately wrong one.
    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self>;
    /// Every claim of the suite, in output order.
    fn claims(&self) -> &[ClaimSpec];
    /// The claims `config` will check, and the suite's memory, cheaply
    /// (without its long build).
    fn outline(config: &Config, threads: usize) -> SuiteOutline;
    /// Fresh per-thread scratch.
    fn new_scratch(&self) -> Self::Scratch;
    /// Checks instance `index` of claim `claim`.
    fn check(&self, scratch: &mut Self::Scratch, claim: usize, index: u64) -> Verdict;
}

/// Counts for one claim. Sums and a minimum, so merging in any order gives
/// the same result.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClaimCounts {
    /// Instances whose premise held and which were checked.
    pub instances: u64,
    /// Checked instances where the claim failed.
    pub failures: u64,
    /// Instances outside the claim's premise.
    pub vacuous: u64,
    /// Lowest failing index and its description.
    pub first_failure: Option<(u64, String)>,
}

impl ClaimCounts {
    /// Counts one checked instance.
    pub fn record(&mut self, index: u64, verdict: Verdict) {
        match verdict {
            Verdict::Holds => self.instances += 1,
            Verdict::Vacuous => self.vacuous += 1,
            Verdict::Fails(text) => {
                self.instances += 1;
                self.failures += 1;
                if self.first_failure.as_ref().is_none_or(|(i, _)| index < *i) {
                    self.first_failure = Some((index, text));
                }
            }
        }
    }

    /// Adds another part's counts; the order of merging does not matter.
    pub fn merge(&mut self, from: ClaimCounts) {
        self.instances += from.instances;
        self.failures += from.failures;
        self.vacuous += from.vacuous;
        if let Some((i, text)) = from.first_failure
            && self.first_failure.as_ref().is_none_or(|(j, _)| i < *j)
        {
            self.first_failure = Some((i, text));
        }
    }

    /// `holds`, `fails`, or `untested` when no instance met the premise.
    pub fn verdict(&self) -> &'static str {
        if self.instances == 0 {
            "untested"
        } else if self.failures == 0 {
            "holds"
        } else {
            "fails"
        }
    }
}

/// What a suite will check and hold, from its config alone.
pub struct SuiteOutline {
    /// Every claim, in output order.
    pub claims: Vec<ClaimSpec>,
    /// Bytes the suite's tables and per-thread scratch hold.
    pub memory: u64,
    /// The config keys that bound `memory`.
    pub budget_key: &'static str,
    /// The bound: `memory` never exceeds it.
    pub budget: u64,
}

/// Instances per chunk: small enough to spread over threads, large enough
/// that journalling a chunk costs little.
const CHUNK: u64 = 8192;

/// Any suite as an engine study.
pub struct ClaimStudy<S: Suite> {
    suite: S,
}

impl<S: Suite> ClaimStudy<S> {
    /// The suite as an engine workload.
    pub fn new(suite: S) -> Self {
        ClaimStudy { suite }
    }
}

impl<S: Suite> Workload for ClaimStudy<S> {
    type Instance = (usize, u64);
    type Counts = ClaimCounts;
    type Worker = S::Scratch;

    fn cell_sizes(&self) -> Vec<u64> {
        self.suite.claims().iter().map(|c| c.instances).collect()
    }

    fn chunk_size(&self, _cell: usize) -> u64 {
        CHUNK
    }

    fn cell_label(&self, cell: usize) -> String {
        self.suite.claims()[cell].id.clone()
    }

    fn new_worker(&self) -> S::Scratch {
        self.suite.new_scratch()
    }

    fn for_each_instance(&self, chunk: &Chunk, mut f: impl FnMut(&(usize, u64))) {
        for i in chunk.start..chunk.start + chunk.len {
            f(&(chunk.cell, i));
        }
    }

    fn evaluate(
        &self,
        worker: &mut S::Scratch,
        &(claim, index): &(usize, u64),
        c: &mut ClaimCounts,
    ) {
        c.record(index, self.suite.check(worker, claim, index));
    }

    fn merge(into: &mut ClaimCounts, from: ClaimCounts) {
        into.merge(from);
    }

    fn check_counts(&self, _cell: usize, items: u64, c: &ClaimCounts) -> Result<(), String> {
        if c.instances.checked_add(c.vacuous) != Some(items) || c.failures > c.instances {
            return Err("the claim's counts do not fit its chunk".into());
        }
        Ok(())
    }
}

/// The columns of `claims.csv`.
pub const CLAIMS_HEADER: [&str; 7] = [
    "suite",
    "claim",
    "instances",
    "failures",
    "first_failure",
    "verdict",
    "vacuous",
];

/// `claims.csv`: one row per claim, in the suite's order.
pub fn claims_table(specs: &[ClaimSpec], cells: &[&ClaimCounts]) -> Vec<u8> {
    let mut t = Table::new(&CLAIMS_HEADER);
    for (spec, c) in specs.iter().zip(cells) {
        let first = c
            .first_failure
            .as_ref()
            .map(|(_, text)| text.clone())
            .unwrap_or_default();
        t.row([
            spec.suite.to_string(),
            spec.id.clone(),
            c.instances.to_string(),
            c.failures.to_string(),
            first,
            c.verdict().to_string(),
            c.vacuous.to_string(),
        ]);
    }
    t.into_bytes()
}

impl<S: Suite> Study for ClaimStudy<S> {
    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self> {
        Ok(ClaimStudy::new(S::build(config, ctx)?))
    }

    fn outline(config: &Config, threads: usize) -> Outline {
        let o = S::outline(config, threads);
        Outline {
            cells: o
                .claims
                .into_iter()
                .map(|c| CellOutline {
                    label: c.id,
                    items: c.instances,
                    chunk_size: CHUNK,
                })
                .collect(),
            memory: o.memory,
            budget_key: o.budget_key,
            budget: o.budget,
            notes: Vec::new(),
            estimate_bias: None,
        }
    }

    fn tables(&self, cells: &[&ClaimCounts]) -> Vec<(&'static str, Vec<u8>)> {
        vec![("claims.csv", claims_table(self.suite.claims(), cells))]
    }

    fn run_details(&self, cells: &[CellResult<ClaimCounts>]) -> Vec<u8> {
        let mut t = Table::new(&["claim", "instances_here", "seconds", "instances_per_s"]);
        for (spec, c) in self.suite.claims().iter().zip(cells) {
            let secs = c.elapsed.as_secs_f64();
            let rate = if secs > 0.0 {
                crate::export::throughput_text(c.items as f64 / secs)
            } else {
                String::new()
            };
            t.row([
                spec.id.clone(),
                c.items.to_string(),
                format!("{secs:.3}"),
                rate,
            ]);
        }
        t.into_bytes()
    }

    /// A claim study exists to test claims, so a failing claim is a finding
    /// reported in `claims.csv`, not an error: the run passes.
    fn summary(&self, cells: &[&ClaimCounts], out_dir: &Path) -> Summary {
        let mut lines = Vec::new();
        let failing: Vec<_> = self
            .suite
            .claims()
            .iter()
            .zip(cells)
            .filter(|(_, c)| c.failures > 0)
            .collect();
        for (spec, c) in &failing {
            let first = c.first_failure.as_ref().map(|(_, t)| t.as_str());
            lines.push(format!(
                "claim {} fails on {} of {} instances; smallest: {}",
                spec.id,
                c.failures,
                c.instances,
                first.unwrap_or("")
            ));
        }
        lines.push(format!(
            "{} claims: {} hold, {} fail; see {}",
            cells.len(),
            cells.iter().filter(|c| c.verdict() == "holds").count(),
            failing.len(),
            out_dir.join("claims.csv").display()
        ));
        Summary::measured(lines)
    }
}

/// Runs every instance of one claim in this thread; for tests and tools
/// that want a claim's counts without the engine.
pub fn check_all<S: Suite>(suite: &S, claim: usize) -> ClaimCounts {
    let mut scratch = suite.new_scratch();
    let mut counts = ClaimCounts::default();
    for i in 0..suite.claims()[claim].instances {
        counts.record(i, suite.check(&mut scratch, claim, i));
    }
    counts
}

/// The index of a claim by identifier.
pub fn position<S: Suite>(suite: &S, id: &str) -> Option<usize> {
    suite.claims().iter().position(|c| c.id == id)
}
