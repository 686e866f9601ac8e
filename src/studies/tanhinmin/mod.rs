//! Two-player Tanhinmin: every deal solved by exact minimax and by the
//! Kitani–Ono formula μ(X, Y- + {r}) > μ(Y, X-), counted and compared.

mod counts;
pub mod outputs;

pub use counts::{CellCounts, Disagreement};

use crate::config::Config;
use crate::engine::CellResult;
use crate::games::tanhinmin::formula::{self, Claim, broken_claim, theorem};
use crate::games::tanhinmin::memo;
use crate::games::tanhinmin::ordering::MoveOrder;
use crate::games::tanhinmin::position::Position;
use crate::games::tanhinmin::solver::Solver;
pub use crate::studies::deal_study::mu::{MU_SIDE, MuEntry, MuTable};
use crate::studies::deal_study::{
    self, DealInstance, DealSource, DealStudy, Dealt, ListedDeal, ListedPlaces, memo_budget,
    memo_size,
};
use crate::study::{BuildContext, Outline, Study, Summary};
use std::ops::RangeInclusive;
use std::path::Path;

/// The headline study: minimax against the formula on every deal.
pub struct Tanhinmin {
    /// Which deals each cell holds.
    pub source: DealSource,
    /// One memo for all threads; positions too large for it use a private
    /// memo per worker of `memo_bytes_per_worker`.
    pub shared_memo: std::sync::Arc<memo::SharedMemo>,
    /// Private memo bytes per worker, for positions too large for the shared table.
    pub memo_bytes_per_worker: usize,
    /// The search's move order (speed only).
    pub order: MoveOrder,
    /// The claim checked: the theorem, or a wrong one under `--inject-fault`.
    pub claim: Claim,
}

impl Tanhinmin {
    /// The study for `config`, for `threads` workers, checking `claim`.
    pub fn new(config: &Config, threads: usize, claim: Claim) -> Self {
        let source = DealSource::by_root(config);
        let cells = source.cells.clone();
        // The plain game grows no endgame table, so a timing sample's memo
        // is the run's.
        let memo_bytes = memo_budget(config, &source, false);
        // Keys of up to 28 cards fit the shared table; larger cells need
        // private memos too. Most of their positions have more than 28
        // cards (measured at 26x26: a 2 GiB private table full while the
        // shared one was barely touched), so those get 7/8 of the budget.
        let needs_local = cells.iter().any(|&[a, b]| a + b > 28);
        let shared_bytes = if needs_local {
            memo_bytes / 8
        } else {
            memo_bytes
        };
        Tanhinmin {
            source,
            shared_memo: std::sync::Arc::new(memo::SharedMemo::with_bytes(shared_bytes)),
            memo_bytes_per_worker: if needs_local {
                (memo_bytes - shared_bytes) / threads.max(1)
            } else {
                0
            },
            order: config.solver.order,
            claim,
        }
    }

    fn ranks(&self) -> usize {
        self.source.deck.copies.len()
    }
}

/// A thread's solver.
pub struct Worker {
    /// The solver, kept across deals.
    pub solver: Solver,
}

impl DealStudy for Tanhinmin {
    fn failure_lists(c: &CellCounts) -> Vec<&dyn ListedPlaces> {
        vec![&c.disagreements]
    }

    fn failure_lists_mut(c: &mut CellCounts) -> Vec<&mut dyn ListedPlaces> {
        vec![&mut c.disagreements]
    }

    fn listed_deals(c: &CellCounts) -> Vec<ListedDeal<'_>> {
        (c.disagreements.iter())
            .map(|d| ListedDeal {
                weight: Some(d.weight),
                ..ListedDeal::of(d.chunk, d.seq, &d.first, &d.second)
            })
            .collect()
    }

    type Counts = CellCounts;
    type Worker = Worker;

    fn source(&self) -> &DealSource {
        &self.source
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

    fn evaluate(&self, worker: &mut Worker, inst: &DealInstance, counts: &mut CellCounts) {
        let ranks = self.ranks();
        let field = self.source.field as usize;
        let deal = &inst.deal;
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
        let wins = if minimax { w } else { 0 };
        counts.first_wins += wins;
        counts.mu.add(mu0, mu1, w, wins);
        if minimax == by_formula {
            counts.agree += w;
        } else {
            counts.disagree += w;
            counts.disagreements.push(|| Disagreement {
                chunk: inst.chunk,
                seq: inst.seq,
                first: deal.first[..ranks].to_vec(),
                second: deal.second[..ranks].to_vec(),
                weight: w,
                minimax,
                formula: by_formula,
                mu0,
                mu1,
            });
        }
    }

    fn merge(into: &mut CellCounts, from: CellCounts) {
        into.merge(from);
    }

    fn check_counts(
        &self,
        cell: usize,
        items: u64,
        deals: &RangeInclusive<u128>,
        c: &CellCounts,
    ) -> Result<(), String> {
        deal_study::check_claim_counts(
            c.deals,
            deals,
            c.first_wins,
            c.agree,
            c.disagree,
            c.disagreements.len(),
        )?;
        if c.evaluated > items {
            Err("more deals evaluated than the chunk holds".into())
        } else {
            (c.mu).check_fits(c.deals, c.first_wins, self.source.cells[cell])
        }
    }

    fn check_listed(&self, c: &CellCounts, _dealt: &Dealt) -> Result<(), String> {
        if c.disagreements.iter().any(|d| {
            let mu = formula::mu_pair_counts(&d.first, &d.second, self.source.field as usize);
            mu != (d.mu0, d.mu1)
                || d.formula != (self.claim)(d.mu0, d.mu1)
                || d.minimax == d.formula
        }) {
            Err("a deal listed as a disagreement is not one by its μ pair".into())
        } else {
            Ok(())
        }
    }
}

impl Study for Tanhinmin {
    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self> {
        let claim: Claim = if ctx.inject_fault {
            broken_claim
        } else {
            theorem
        };
        Ok(Tanhinmin::new(config, ctx.threads, claim))
    }

    fn outline(config: &Config, _threads: usize) -> Outline {
        let source = DealSource::by_root(config);
        deal_study::outline(config, &source, memo_size(config, &source))
    }

    fn tables(&self, cells: &[&CellCounts]) -> Vec<(&'static str, Vec<u8>)> {
        outputs::deterministic_tables(&self.source, cells)
    }

    fn run_details(&self, cells: &[CellResult<CellCounts>]) -> Vec<u8> {
        outputs::run_details(&self.source, cells)
    }

    fn summary(&self, cells: &[&CellCounts], out_dir: &Path) -> Summary {
        let mut lines = Vec::new();
        for (cell, c) in cells.iter().enumerate() {
            let [a, b] = self.source.cells[cell];
            lines.push(format!(
                "{a}x{b} field {}: {} deals, first player wins {} ({}), {} disagree",
                self.source.field,
                c.deals,
                c.first_wins,
                outputs::rate_text(&self.source, c),
                c.disagree
            ));
        }
        let disagree: u128 = cells.iter().map(|c| c.disagree).sum();
        let dir = out_dir.display();
        let written: usize = cells.iter().map(|c| c.disagreements.len()).sum();
        Summary::checked(
            lines,
            disagree > 0,
            format!(
                "error: {disagree} deals disagreed between minimax and the formula; {written} written to {dir}/disagreements.csv"
            ),
            format!("all deals agree; results in {dir}"),
        )
    }
}
