//! What Tanhinmin counts per cell, and the disagreements it keeps in full.

use crate::studies::deal_study::mu::MuTable;
use crate::studies::deal_study::{FailureList, Located};
use serde::{Deserialize, Serialize};

/// One deal where the two methods disagree, kept in full.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Disagreement {
    /// Where the deal came from, for a fixed order across threads and shards.
    pub chunk: u64,
    /// Deal within the chunk.
    pub seq: u64,
    /// Counts per rank, strongest rank last.
    pub first: Vec<u8>,
    /// The second hand, as counts per rank.
    pub second: Vec<u8>,
    /// Physical deals this deal stands for.
    pub weight: u128,
    /// Does the first player win by minimax?
    pub minimax: bool,
    /// ... by the claim?
    pub formula: bool,
    /// μ0 of the deal.
    pub mu0: u32,
    /// μ1 of the deal.
    pub mu1: u32,
}

impl Located for Disagreement {
    fn place(&self) -> (u64, u64, u64) {
        (self.chunk, self.seq, 0)
    }
}

/// Counts for one cell. All fields except `positions` are deterministic.
#[derive(Default, Clone, Debug, Serialize, Deserialize)]
pub struct CellCounts {
    /// Physical deals (weighted in exhaustive mode).
    pub deals: u128,
    /// Weighted deals the first player wins.
    pub first_wins: u128,
    /// Weighted deals where minimax and the claim agree.
    pub agree: u128,
    /// Weighted deals where they disagree.
    pub disagree: u128,
    /// Instances evaluated: distinct deals in exhaustive mode.
    pub evaluated: u64,
    /// Deals and wins per (μ0, μ1).
    pub mu: MuTable,
    /// The first disagreements in (chunk, seq) order; all are counted in
    /// `disagree`.
    pub disagreements: FailureList<Disagreement>,
    /// Positions the solver expanded; depends on memo state, so run detail only.
    #[serde(skip)]
    pub positions: u64,
}

impl CellCounts {
    pub(super) fn merge(&mut self, from: CellCounts) {
        self.deals += from.deals;
        self.first_wins += from.first_wins;
        self.agree += from.agree;
        self.disagree += from.disagree;
        self.evaluated += from.evaluated;
        self.positions = self.positions.saturating_add(from.positions);
        self.mu.merge(from.mu);
        self.disagreements.merge(from.disagreements);
    }
}
