//! The 8-cut variant (8切り): playing a card of the cut rank clears the
//! field and the same player moves again; playing it as the last card wins.
//!
//! No formula is known. Every deal is solved by minimax under the variant's
//! rules, and the plain game's μ test is scored as a predictor of the
//! variant's winner; the deals where it fails are written out, smallest
//! cells first.

use crate::config::Config;
pub use crate::config::tables::CutConfig;
use crate::engine::CellResult;
use crate::export::Table;
use crate::games::tanhinmin::cut::{CUT_MAX_RANKS, CutSolver};
use crate::games::tanhinmin::formula::mover_wins_counts;
use crate::games::tanhinmin::position::Position;
use crate::games::tanhinmin::solver::Solver;
use crate::studies::deal_study::columns::{
    deal_run_details, deal_stats_row, hand_text, rate_header_with, rate_text_of,
};
use crate::studies::deal_study::{
    self, DealInstance, DealSource, DealStudy, FailureList, Located, memo_budget, memo_size,
    validate_small_deck,
};
use crate::study::{BuildContext, Outline, Study, Summary};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Checks `[cut]` and the deck the cut solver's keys hold.
pub fn validate(config: &Config) -> Result<(), String> {
    validate_small_deck(config)?;
    if config.deck.ranks as usize > CUT_MAX_RANKS {
        return Err(format!(
            "[deck] ranks: {} is more than the {CUT_MAX_RANKS} study `cut` supports (its memo key is 128 bits)",
            config.deck.ranks
        ));
    }
    let Some(cut) = &config.cut else {
        return Err("[cut] rank: required by study `cut`".into());
    };
    if cut.rank == 0 || cut.rank > config.deck.ranks {
        return Err(format!(
            "[cut] rank: must be between 1 and {} (the strongest rank), got {}",
            config.deck.ranks, cut.rank
        ));
    }
    Ok(())
}

/// The deals of a cut config: exhaustive patterns never merge the cut rank.
fn cut_source(config: &Config) -> DealSource {
    let cut = config.cut.as_ref().expect("checked by validate").rank;
    DealSource::with_distinguished_rank(config, Some(cut))
}

/// A deal where the plain μ test misnames the variant's winner.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CutFailure {
    /// Global chunk index.
    pub chunk: u64,
    /// Deal within the chunk.
    pub seq: u64,
    /// The first hand, as counts per rank.
    pub first: Vec<u8>,
    /// The second hand, as counts per rank.
    pub second: Vec<u8>,
    /// Does the first player win the variant?
    pub variant_first_wins: bool,
}

impl Located for CutFailure {
    fn place(&self) -> (u64, u64, u64) {
        (self.chunk, self.seq, 0)
    }
}

/// Counts of one cell.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CutCounts {
    /// Weighted deals.
    pub deals: u128,
    /// Weighted deals the first player wins.
    pub first_wins: u128,
    /// Deals where the plain game's μ test names the variant's winner.
    pub formula_agree: u128,
    /// Deals where it does not.
    pub formula_disagree: u128,
    /// Deals whose winner differs from the plain game's.
    pub winner_changed: u128,
    /// The first failures, in (chunk, seq) order.
    pub failures: FailureList<CutFailure>,
    /// Positions the variant solver expanded; run detail only.
    #[serde(skip)]
    pub positions: u64,
}

/// The 8-cut study.
pub struct CutStudy {
    /// The deals.
    pub source: DealSource,
    /// Strength of the cut rank.
    pub cut: u32,
    memo_bytes: usize,
    /// For the plain game's solver, whose table is fixed-size.
    plain_memo_bytes: usize,
}

impl DealStudy for CutStudy {
    type Counts = CutCounts;
    type Worker = CutWorker;

    fn source(&self) -> &DealSource {
        &self.source
    }

    fn new_worker(&self) -> Self::Worker {
        CutWorker {
            variant: CutSolver::new(self.cut, self.memo_bytes / 2),
            plain: Solver::new(self.plain_memo_bytes),
        }
    }

    fn evaluate(&self, w: &mut Self::Worker, inst: &DealInstance, c: &mut CutCounts) {
        let ranks = self.source.ranks();
        let d = &inst.deal;
        let field = self.source.field as usize;
        let p = Position {
            mover: d.first,
            other: d.second,
            ranks,
            field,
        };
        let before = w.variant.positions;
        let variant = w.variant.mover_wins(&p);
        c.positions += w.variant.positions - before;
        let plain = w.plain.mover_wins(&p);
        let formula = mover_wins_counts(&d.first[..ranks], &d.second[..ranks], field);
        c.deals += d.weight;
        if variant {
            c.first_wins += d.weight;
        }
        if variant != plain {
            c.winner_changed += d.weight;
        }
        if formula == variant {
            c.formula_agree += d.weight;
        } else {
            c.formula_disagree += d.weight;
            c.failures.push(|| CutFailure {
                chunk: inst.chunk,
                seq: inst.seq,
                first: d.first[..ranks].to_vec(),
                second: d.second[..ranks].to_vec(),
                variant_first_wins: variant,
            });
        }
    }

    fn merge(into: &mut CutCounts, from: CutCounts) {
        into.deals += from.deals;
        into.first_wins += from.first_wins;
        into.formula_agree += from.formula_agree;
        into.formula_disagree += from.formula_disagree;
        into.winner_changed += from.winner_changed;
        into.positions += from.positions;
        into.failures.merge(from.failures);
    }
}

/// A thread's two solvers: the variant's, and the plain game's to tell
/// when the cut changed the winner.
pub struct CutWorker {
    variant: CutSolver,
    plain: Solver,
}

impl Study for CutStudy {
    fn outline(config: &Config, _threads: usize) -> Outline {
        let source = cut_source(config);
        deal_study::outline(config, &source, memo_size(config, &source))
    }

    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self> {
        let cut = config.cut.as_ref().expect("checked by validate").rank;
        let source = cut_source(config);
        let share = memo_budget(config, &source) / ctx.threads.max(1);
        // The plain game's canonical positions recur across deals far more
        // than the cut game's (no cut rank to track), and its table is
        // fixed-size and touched all over: on configs/cut.toml 64 MiB per
        // thread ran in 4.2 s and 0.85 GB, 512 MiB in 6.3 s and 1.76 GB.
        // Both memos come out of the thread's share of the budget.
        let plain_memo_bytes = (share / 2).min(64 << 20);
        let memo_bytes = share - plain_memo_bytes;
        Ok(CutStudy {
            source,
            cut,
            memo_bytes,
            plain_memo_bytes,
        })
    }

    fn tables(&self, cells: &[&CutCounts]) -> Vec<(&'static str, Vec<u8>)> {
        let mut stats = Table::new(&rate_header_with(&[
            "formula_agree",
            "formula_disagree",
            "winner_changed",
        ]));
        let mut fails = Table::new(&[
            "n_first",
            "n_second",
            "field",
            "first",
            "second",
            "variant_winner",
            "formula_says",
        ]);
        let field = self.source.field.to_string();
        let who = |first: bool| if first { "first" } else { "second" };
        for (&[a, b], c) in self.source.cells.iter().zip(cells) {
            stats.row(deal_stats_row(
                &self.source,
                [a, b],
                c.first_wins,
                c.deals,
                [
                    c.formula_agree.to_string(),
                    c.formula_disagree.to_string(),
                    c.winner_changed.to_string(),
                ],
            ));
            for f in &c.failures {
                fails.row([
                    a.to_string(),
                    b.to_string(),
                    field.clone(),
                    hand_text(&f.first),
                    hand_text(&f.second),
                    who(f.variant_first_wins).to_string(),
                    who(!f.variant_first_wins).to_string(),
                ]);
            }
        }
        vec![
            ("stats.csv", stats.into_bytes()),
            ("formula_failures.csv", fails.into_bytes()),
        ]
    }

    fn run_details(&self, cells: &[CellResult<CutCounts>]) -> Vec<u8> {
        deal_run_details(&self.source, cells, |c| c.positions)
    }

    /// The formula is not claimed for the variant, so its failures are a
    /// measurement, not an error: exit 0.
    fn summary(&self, cells: &[&CutCounts], out_dir: &Path) -> Summary {
        let mut lines = Vec::new();
        for (&[a, b], c) in self.source.cells.iter().zip(cells) {
            lines.push(format!(
                "{a}x{b} cut {}: first player wins {}; the plain formula predicts {} of {} deals ({} fail), winner changed by the cut in {}",
                self.cut,
                rate_text_of(self.source.mode, c.first_wins, c.deals),
                c.formula_agree,
                c.deals,
                c.formula_disagree,
                c.winner_changed
            ));
        }
        lines.push(format!("results in {}", out_dir.display()));
        Summary::measured(lines)
    }
}
