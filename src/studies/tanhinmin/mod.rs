//! Two-player Tanhinmin: every deal solved by exact minimax and by the
//! Kitani–Ono formula μ(X, Y- + {r}) > μ(Y, X-), counted and compared.

pub mod deals;
pub mod formula;
pub mod memo;
pub mod outputs;
pub mod reference;
pub mod solver;

use crate::config::{Config, Mode};
use crate::engine::{self, Chunk, Study};
use crate::studies::RunContext;
use deals::{Deal, DealSpace, Dealer, Deck, chunk_rng};
use solver::{Position, Solver};
use std::time::Instant;

/// Rank slots in the count arrays.
pub const MAX_RANKS: usize = 64;

/// Distinct deals per chunk in exhaustive mode.
pub const EXHAUSTIVE_CHUNK: u64 = 1 << 16;
/// Deals per chunk in sample mode. Part of the random stream's definition:
/// changing it changes which deals a seed draws.
pub const SAMPLE_CHUNK: u64 = 1 << 14;
/// Disagreeing deals written out in full per cell; all are counted.
pub const MAX_DISAGREEMENT_ROWS: usize = 1000;

/// How the formula's two μ values decide the winner.
pub type Claim = fn(u32, u32) -> bool;

/// The theorem: the mover wins iff μ0 > μ1.
pub fn theorem(mu0: u32, mu1: u32) -> bool {
    mu0 > mu1
}

/// A deliberately wrong claim, used to show that disagreements are caught.
pub fn broken_claim(mu0: u32, mu1: u32) -> bool {
    mu0 >= mu1
}

pub struct Tanhinmin {
    pub mode: Mode,
    pub seed: u64,
    pub deck: Deck,
    pub cells: Vec<[u32; 2]>,
    pub field: u32,
    pub deals_per_cell: u64,
    /// One memo for all threads; positions too large for it use a private
    /// memo per worker of `memo_bytes_per_worker`.
    pub shared_memo: std::sync::Arc<memo::SharedMemo>,
    pub memo_bytes_per_worker: usize,
    pub order: solver::MoveOrder,
    pub claim: Claim,
    spaces: Vec<Option<DealSpace>>,
}

impl Tanhinmin {
    pub fn new(config: &Config, threads: usize, claim: Claim) -> Self {
        let deck = Deck {
            copies: config.copies(),
        };
        let cells = config.hands.sizes.clone();
        let spaces: Vec<Option<DealSpace>> = cells
            .iter()
            .map(|&[a, b]| match config.experiment.mode {
                Mode::Exhaustive => Some(
                    DealSpace::new(&deck, a, b, config.hands.field).expect("checked by config"),
                ),
                Mode::Sample => None,
            })
            .collect();
        // Keys of up to 28 cards fit the shared table; larger cells need
        // private memos too, and the budget is split between the two.
        // A small run cannot fill a large memo, and touching a large table
        // sparsely still costs its pages, so the budget is capped by a rough
        // need: 16 bytes times 2^(cards / 2) per instance (measured positions
        // per deal grow about that fast), never below 16 MiB.
        let need: usize = cells
            .iter()
            .zip(&spaces)
            .map(|(&[a, b], s)| {
                let n = s
                    .as_ref()
                    .map_or(config.experiment.deals.unwrap_or(0), |s| s.len());
                (n as usize).saturating_mul(16usize << ((a + b) / 2).min(40))
            })
            .fold(0usize, |acc, x| acc.saturating_add(x));
        let memo_bytes = (config.solver.memo_mb as usize * (1 << 20)).min(need.max(16 << 20));
        let needs_local = cells.iter().any(|&[a, b]| a + b > 28);
        let shared_bytes = if needs_local {
            memo_bytes / 2
        } else {
            memo_bytes
        };
        Tanhinmin {
            mode: config.experiment.mode,
            seed: config.experiment.seed,
            deck,
            cells,
            field: config.hands.field,
            deals_per_cell: config.experiment.deals.unwrap_or(0),
            shared_memo: std::sync::Arc::new(memo::SharedMemo::with_bytes(shared_bytes)),
            memo_bytes_per_worker: if needs_local {
                (memo_bytes - shared_bytes) / threads.max(1)
            } else {
                0
            },
            order: config.solver.order,
            claim,
            spaces,
        }
    }

    fn ranks(&self) -> usize {
        self.deck.copies.len()
    }
}

/// One deal where the two methods disagree, kept in full.
#[derive(Clone, Debug)]
pub struct Disagreement {
    pub deal: Deal,
    pub minimax: bool,
    pub formula: bool,
    pub mu0: u32,
    pub mu1: u32,
}

/// Side of the (μ0, μ1) table; μ never exceeds a hand size.
pub const MU_SIDE: usize = 64;

/// Counts for one cell. All fields except `positions` are deterministic.
#[derive(Default, Clone, Debug)]
pub struct CellCounts {
    /// Physical deals (weighted in exhaustive mode).
    pub deals: u128,
    pub first_wins: u128,
    pub agree: u128,
    pub disagree: u128,
    /// Instances evaluated: distinct deals in exhaustive mode.
    pub evaluated: u64,
    /// Weighted deals and first-player wins per (μ0, μ1), flat `μ0 * MU_SIDE + μ1`.
    pub mu_deals: Vec<u128>,
    pub mu_wins: Vec<u128>,
    pub disagreements: Vec<Disagreement>,
    /// Positions the solver expanded; depends on memo state, so run detail only.
    pub positions: u64,
}

impl CellCounts {
    fn merge(&mut self, from: CellCounts) {
        self.deals += from.deals;
        self.first_wins += from.first_wins;
        self.agree += from.agree;
        self.disagree += from.disagree;
        self.evaluated += from.evaluated;
        self.positions += from.positions;
        if self.mu_deals.is_empty() {
            self.mu_deals = from.mu_deals;
            self.mu_wins = from.mu_wins;
        } else if !from.mu_deals.is_empty() {
            for (a, b) in self.mu_deals.iter_mut().zip(from.mu_deals) {
                *a += b;
            }
            for (a, b) in self.mu_wins.iter_mut().zip(from.mu_wins) {
                *a += b;
            }
        }
        let room = MAX_DISAGREEMENT_ROWS.saturating_sub(self.disagreements.len());
        self.disagreements
            .extend(from.disagreements.into_iter().take(room));
    }
}

pub struct Worker {
    pub solver: Solver,
}

impl Study for Tanhinmin {
    type Instance = (usize, Deal);
    type Counts = CellCounts;
    type Worker = Worker;

    fn cell_sizes(&self) -> Vec<u64> {
        self.spaces
            .iter()
            .map(|s| match s {
                Some(space) => space.len(),
                None => self.deals_per_cell,
            })
            .collect()
    }

    fn chunk_size(&self) -> u64 {
        match self.mode {
            Mode::Exhaustive => EXHAUSTIVE_CHUNK,
            Mode::Sample => SAMPLE_CHUNK,
        }
    }

    fn cell_label(&self, cell: usize) -> String {
        let [a, b] = self.cells[cell];
        format!("{a}x{b} field {}", self.field)
    }

    fn new_worker(&self) -> Worker {
        Worker {
            solver: Solver::with_shared(
                self.shared_memo.clone(),
                self.memo_bytes_per_worker,
                self.order,
            ),
        }
    }

    fn for_each_instance(&self, chunk: &Chunk, mut f: impl FnMut(&(usize, Deal))) {
        let cell = chunk.cell;
        match &self.spaces[cell] {
            Some(space) => {
                let mut item = (
                    cell,
                    Deal {
                        first: [0; MAX_RANKS],
                        second: [0; MAX_RANKS],
                        weight: 0,
                    },
                );
                space.for_each_in_range(chunk.start, chunk.start + chunk.len, |deal| {
                    item.1.clone_from(deal);
                    f(&item);
                });
            }
            None => {
                let [a, b] = self.cells[cell];
                let mut rng = chunk_rng(self.seed, chunk.global);
                let mut dealer = Dealer::new(&self.deck);
                for _ in 0..chunk.len {
                    let deal = dealer.deal(&mut rng, a as usize, b as usize);
                    f(&(cell, deal));
                }
            }
        }
    }

    fn evaluate(&self, worker: &mut Worker, (_, deal): &(usize, Deal), counts: &mut CellCounts) {
        let ranks = self.ranks();
        let field = self.field as usize;
        let before = worker.solver.positions;
        let position = Position {
            mover: deal.first,
            other: deal.second,
            ranks,
            field,
        };
        let minimax = worker.solver.mover_wins(&position);
        counts.positions += worker.solver.positions - before;
        let (mu0, mu1) =
            formula::mu_pair_counts(&deal.first[..ranks], &deal.second[..ranks], field);
        let by_formula = (self.claim)(mu0, mu1);
        let w = deal.weight;
        counts.deals += w;
        counts.evaluated += 1;
        if minimax {
            counts.first_wins += w;
        }
        if counts.mu_deals.is_empty() {
            counts.mu_deals = vec![0; MU_SIDE * MU_SIDE];
            counts.mu_wins = vec![0; MU_SIDE * MU_SIDE];
        }
        let slot = mu0 as usize * MU_SIDE + mu1 as usize;
        counts.mu_deals[slot] += w;
        if minimax {
            counts.mu_wins[slot] += w;
        }
        if minimax == by_formula {
            counts.agree += w;
        } else {
            counts.disagree += w;
            if counts.disagreements.len() < MAX_DISAGREEMENT_ROWS {
                counts.disagreements.push(Disagreement {
                    deal: deal.clone(),
                    minimax,
                    formula: by_formula,
                    mu0,
                    mu1,
                });
            }
        }
    }

    fn merge(into: &mut CellCounts, from: CellCounts) {
        into.merge(from);
    }
}

/// Runs a Tanhinmin config end to end and writes its outputs.
pub fn run(config: &Config, ctx: &RunContext) -> anyhow::Result<i32> {
    let started = Instant::now();
    let started_unix = crate::export::manifest::unix_now();
    let claim: Claim = if ctx.inject_fault {
        broken_claim
    } else {
        theorem
    };
    let study = Tanhinmin::new(config, ctx.threads, claim);
    let chunks = engine::plan(&study);
    let opts = engine::RunOptions {
        threads: ctx.threads,
        progress: ctx.progress,
    };
    let results = engine::run(&study, &chunks, &opts)?;
    let disagreements: u128 = results.iter().map(|r| r.counts.disagree).sum();
    let exit_code = if disagreements > 0 { 1 } else { 0 };
    outputs::write_all(
        &study,
        config,
        ctx,
        &results,
        chunks.len() as u64,
        started,
        started_unix,
        exit_code,
    )?;
    let dir = ctx.out_dir.display();
    for (cell, r) in results.iter().enumerate() {
        let c = &r.counts;
        let [a, b] = study.cells[cell];
        eprintln!(
            "{a}x{b} field {}: {} deals, first player wins {} ({}), {} disagree, {:.2}s",
            study.field,
            c.deals,
            c.first_wins,
            outputs::rate_text(&study, c),
            c.disagree,
            r.elapsed.as_secs_f64()
        );
    }
    if disagreements > 0 {
        let distinct: usize = results.iter().map(|r| r.counts.disagreements.len()).sum();
        eprintln!(
            "error: {disagreements} deals disagreed between minimax and the formula; {distinct} written to {dir}/disagreements.csv"
        );
    } else {
        eprintln!("all deals agree; results in {dir}");
    }
    Ok(exit_code)
}
