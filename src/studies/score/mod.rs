//! The card-count minimax and conjecture C1, checked on every deal (the
//! game and the conjecture are in [`crate::games::tanhinmin::score`]).
//!
//! The game is scored: when a player empties their hand, the score is the
//! number of cards left in the loser's hand, positive for the player to move
//! at the root if they win. Each player maximises their own score. Pass on
//! an empty field is not allowed, as in the plain game. The distribution of
//! the score is written per cell.
//!
//! Conjecture C1 (found by brute force, unpublished), with T(X, Y, r) the
//! theorem's test μ(X, Y- + {r}) > μ(Y, X-) and top_k(H) the k strongest
//! cards of H:
//! - if T(X, Y, r), the value is |Y| - b* + 1, b* the smallest b with
//!   T(X, top_b(Y), r);
//! - otherwise it is -(|X| - a* + 1), a* the smallest a for which
//!   T(top_a(X), Y, r) fails.
//!
//! C1 follows from the theorem by the dropped-cards lemma
//! ([`crate::games::tanhinmin::dropped_cards`]), which is also how each deal
//! is checked fast: the two questions that prove C1's value are plain games.
//! The study still proves every value by search, and a value C1 misnames is
//! found by the full-value minimax, which knows nothing of the lemma.

use crate::config::Config;
pub use crate::config::ScoreMethod;
use crate::engine::CellResult;
use crate::export::Table;
use crate::games::cards::strengths;
use crate::games::tanhinmin::dropped_cards::DroppedCardsSolver;
use crate::games::tanhinmin::memo::SharedMemo;
use crate::games::tanhinmin::ordering::MoveOrder;
use crate::games::tanhinmin::position::Position;
use crate::games::tanhinmin::score::ThresholdShared;
use crate::games::tanhinmin::score::{
    Conjecture, ScoreSolver, THRESHOLD_MAX_CARDS, ThresholdSolver, c1_off_by_one, c1_value,
};
use crate::studies::deal_study::columns::{
    deal_run_details, deal_stats_row, hand_text, rate_header_with, rate_text_of,
};
use crate::studies::deal_study::{
    self, DealInstance, DealSource, DealStudy, Dealt, FailureList, ListedDeal, ListedPlaces,
    Located, memo_budget, memo_size,
};
use crate::study::{BuildContext, Outline, Study, Summary};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::path::Path;

/// A deal where C1 misnames the value.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct C1Failure {
    /// Global chunk index.
    pub chunk: u64,
    /// Deal within the chunk.
    pub seq: u64,
    /// The first hand, as counts per rank.
    pub first: Vec<u8>,
    /// The second hand, as counts per rank.
    pub second: Vec<u8>,
    /// The value by minimax.
    pub score: i32,
    /// The value C1 gives.
    pub c1: i32,
}

impl Located for C1Failure {
    fn place(&self) -> (u64, u64, u64) {
        (self.chunk, self.seq, 0)
    }
}

/// Counts of one cell.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ScoreCounts {
    /// Weighted deals.
    pub deals: u128,
    /// Weighted deals the first player wins.
    pub first_wins: u128,
    /// Weighted deals per score.
    pub scores: BTreeMap<i32, u128>,
    /// Weighted deals where C1 gives the value.
    pub c1_agree: u128,
    /// Weighted deals where it does not.
    pub c1_disagree: u128,
    /// The first failures, in (chunk, seq) order.
    pub failures: FailureList<C1Failure>,
    /// Positions expanded; run detail only.
    #[serde(skip)]
    pub positions: u64,
}

/// The card-count study.
pub struct ScoreStudy {
    /// The deals.
    pub source: DealSource,
    /// The closed form checked (C1, or a wrong one under `--inject-fault`).
    pub conjecture: Conjecture,
    /// How each deal's value is proved. Whatever the method, the value
    /// written is one that search proved: where the two searches do not
    /// confirm the closed form's value, the full-value minimax finds it.
    pub method: ScoreMethod,
    /// The plain game's table for [`ScoreMethod::DroppedCards`], shared by
    /// all threads and kept across deals.
    plain_shared: std::sync::Arc<SharedMemo>,
    /// Threshold entries of up to 24 cards for [`ScoreMethod::Threshold`],
    /// shared by all threads and kept across deals.
    threshold_shared: std::sync::Arc<ThresholdShared>,
    /// Private memo bytes per worker, split between the searches' larger
    /// positions and the full-value minimax.
    memo_bytes: usize,
    /// The plain searches' move order (`[solver] order`).
    order: MoveOrder,
    /// The run's stop request, which the threshold searches poll. (The
    /// plain searches of the lemma take well under a second at 26x26, and
    /// the full-value minimax runs only where C1 is wrong; neither does.)
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

/// A thread's solvers: the searches of the study's method (only its own
/// are made), and the full-value minimax for deals where the closed form's
/// window is wrong.
pub struct ScoreWorker {
    dropped: Option<DroppedCardsSolver>,
    threshold: Option<ThresholdSolver>,
    full: ScoreSolver,
}

impl ScoreWorker {
    fn positions(&self) -> u64 {
        self.dropped.as_ref().map_or(0, |s| s.positions)
            + self.threshold.as_ref().map_or(0, |s| s.positions)
            + self.full.positions
    }
}

impl DealStudy for ScoreStudy {
    fn failure_lists(c: &ScoreCounts) -> Vec<&dyn ListedPlaces> {
        vec![&c.failures]
    }

    fn failure_lists_mut(c: &mut ScoreCounts) -> Vec<&mut dyn ListedPlaces> {
        vec![&mut c.failures]
    }

    fn listed_deals(c: &ScoreCounts) -> Vec<ListedDeal<'_>> {
        (c.failures.iter())
            .map(|f| ListedDeal::of(f.chunk, f.seq, &f.first, &f.second))
            .collect()
    }

    type Counts = ScoreCounts;
    type Worker = ScoreWorker;

    fn source(&self) -> &DealSource {
        &self.source
    }

    fn new_worker(&self) -> ScoreWorker {
        let method = self.method;
        ScoreWorker {
            dropped: (method == ScoreMethod::DroppedCards).then(|| {
                DroppedCardsSolver::new(self.plain_shared.clone(), self.memo_bytes / 2, self.order)
            }),
            threshold: (method == ScoreMethod::Threshold).then(|| {
                ThresholdSolver::new(
                    self.threshold_shared.clone(),
                    self.memo_bytes / 2,
                    self.memo_bytes / 4,
                )
                .with_stop(self.stop.clone())
            }),
            full: ScoreSolver::new(self.memo_bytes / 4),
        }
    }

    fn evaluate(&self, worker: &mut ScoreWorker, inst: &DealInstance, c: &mut ScoreCounts) {
        let ranks = self.source.ranks();
        let d = &inst.deal;
        let p = Position {
            mover: d.first,
            other: d.second,
            ranks,
            field: self.source.field as usize,
        };
        let (x, y) = (strengths(&d.first[..ranks]), strengths(&d.second[..ranks]));
        let c1 = (self.conjecture)(&x, &y, self.source.field);
        let before = worker.positions();
        // Value >= c1 and not >= c1 + 1 proves value == c1; otherwise the
        // full minimax finds the value the closed form missed.
        let proved = if let Some(dropped) = worker.dropped.as_mut() {
            dropped.proves_value(&p, c1)
        } else if let Some(threshold) = worker.threshold.as_mut()
            && (x.len() + y.len()) as u32 <= THRESHOLD_MAX_CARDS
        {
            // A search given up on a stop request answers `None`: the
            // engine abandons the chunk.
            let Some(low) = threshold.try_reaches(&p, c1) else {
                return;
            };
            low && {
                let Some(high) = threshold.try_reaches(&p, c1 + 1) else {
                    return;
                };
                !high
            }
        } else {
            false
        };
        let score = if proved { c1 } else { worker.full.score(&p) };
        c.positions += worker.positions() - before;
        c.deals += d.weight;
        if score > 0 {
            c.first_wins += d.weight;
        }
        *c.scores.entry(score).or_insert(0) += d.weight;
        if c1 == score {
            c.c1_agree += d.weight;
        } else {
            c.c1_disagree += d.weight;
            c.failures.push(|| C1Failure {
                chunk: inst.chunk,
                seq: inst.seq,
                first: d.first[..ranks].to_vec(),
                second: d.second[..ranks].to_vec(),
                score,
                c1,
            });
        }
    }

    fn merge(into: &mut ScoreCounts, from: ScoreCounts) {
        into.deals += from.deals;
        into.first_wins += from.first_wins;
        into.c1_agree += from.c1_agree;
        into.c1_disagree += from.c1_disagree;
        into.positions = into.positions.saturating_add(from.positions);
        for (s, w) in from.scores {
            *into.scores.entry(s).or_insert(0) += w;
        }
        into.failures.merge(from.failures);
    }

    fn check_counts(
        &self,
        _cell: usize,
        _items: u64,
        deals: &RangeInclusive<u128>,
        c: &ScoreCounts,
    ) -> Result<(), String> {
        deal_study::check_claim_counts(
            c.deals,
            deals,
            c.first_wins,
            c.c1_agree,
            c.c1_disagree,
            c.failures.len(),
        )?;
        // A positive score is the first player's win.
        let sum = |wins_only: bool| {
            c.scores
                .iter()
                .filter(|&(&s, _)| !wins_only || s > 0)
                .try_fold(0u128, |sum, (_, &n)| sum.checked_add(n))
        };
        if sum(false) != Some(c.deals) || sum(true) != Some(c.first_wins) {
            Err("the scores do not add up to the deals and wins".into())
        } else {
            Ok(())
        }
    }

    fn check_listed(&self, c: &ScoreCounts, _dealt: &Dealt) -> Result<(), String> {
        if c.failures.iter().any(|f| {
            let c1 = (self.conjecture)(
                &strengths(&f.first),
                &strengths(&f.second),
                self.source.field,
            );
            c1 != f.c1 || f.score == f.c1
        }) {
            Err("a deal listed as a failure of C1 is not one by its C1 value".into())
        } else {
            Ok(())
        }
    }
}

impl Study for ScoreStudy {
    fn outline(config: &Config, _threads: usize) -> Outline {
        let source = DealSource::by_root(config);
        deal_study::outline(config, &source, memo_size(config, &source))
    }

    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self> {
        let source = DealSource::by_root(config);
        // Half the budget for the shared table, half for the workers'
        // private tables. Both shared tables are made, but only the
        // method's is ever written, and pages nobody touches cost nothing.
        let budget = memo_budget(config, &source, ctx.timing_sample);
        Ok(ScoreStudy {
            plain_shared: std::sync::Arc::new(SharedMemo::with_bytes(budget / 2)),
            threshold_shared: std::sync::Arc::new(ThresholdShared::with_bytes(budget / 2)),
            memo_bytes: budget / 2 / ctx.threads.max(1),
            method: config.solver.score_method.unwrap_or_default(),
            order: config.solver.order,
            stop: ctx.stop.clone(),
            source,
            conjecture: if ctx.inject_fault {
                c1_off_by_one
            } else {
                c1_value
            },
        })
    }

    fn tables(&self, cells: &[&ScoreCounts]) -> Vec<(&'static str, Vec<u8>)> {
        let mut stats = Table::new(&rate_header_with(&[
            "mean_score",
            "c1_agree",
            "c1_disagree",
        ]));
        let mut dist = Table::new(&["n_first", "n_second", "field", "score", "deals"]);
        let mut fails = Table::new(&[
            "n_first", "n_second", "field", "first", "second", "score", "c1",
        ]);
        let field = self.source.field.to_string();
        for (&[a, b], c) in self.source.cells.iter().zip(cells) {
            let total: f64 = c.scores.iter().map(|(&s, &w)| s as f64 * w as f64).sum();
            stats.row(deal_stats_row(
                &self.source,
                [a, b],
                c.first_wins,
                c.deals,
                [
                    format!("{:.6}", total / c.deals.max(1) as f64),
                    c.c1_agree.to_string(),
                    c.c1_disagree.to_string(),
                ],
            ));
            for (s, w) in &c.scores {
                dist.row([
                    a.to_string(),
                    b.to_string(),
                    field.clone(),
                    s.to_string(),
                    w.to_string(),
                ]);
            }
            for f in &c.failures {
                fails.row([
                    a.to_string(),
                    b.to_string(),
                    field.clone(),
                    hand_text(&f.first),
                    hand_text(&f.second),
                    f.score.to_string(),
                    f.c1.to_string(),
                ]);
            }
        }
        vec![
            ("stats.csv", stats.into_bytes()),
            ("score.csv", dist.into_bytes()),
            ("c1_failures.csv", fails.into_bytes()),
        ]
    }

    fn run_details(&self, cells: &[CellResult<ScoreCounts>]) -> Vec<u8> {
        deal_run_details(&self.source, cells, |c| c.positions)
    }

    fn summary(&self, cells: &[&ScoreCounts], out_dir: &Path) -> Summary {
        let mut lines = Vec::new();
        let mut bad = 0;
        for (&[a, b], c) in self.source.cells.iter().zip(cells) {
            bad += c.c1_disagree;
            lines.push(format!(
                "{a}x{b}: first player wins {}; C1 agrees on {} deals, disagrees on {}",
                rate_text_of(self.source.mode, c.first_wins, c.deals),
                c.c1_agree,
                c.c1_disagree
            ));
        }
        let dir = out_dir.display();
        Summary::checked(
            lines,
            bad > 0,
            format!(
                "conjecture C1 fails on {bad} deals; smallest counterexamples in {dir}/c1_failures.csv"
            ),
            format!("conjecture C1 held on every deal; results in {dir}"),
        )
    }
}
