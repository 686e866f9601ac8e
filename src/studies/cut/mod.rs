//! The 8-cut variant (8切り): playing a card of the cut rank clears the
//! field and the same player moves again; playing it as the last card wins.
//!
//! No formula is known. Every deal is solved by minimax under the variant's
//! rules, and the plain game's μ test is scored as a predictor of the
//! variant's winner; the deals where it fails are written out, smallest
//! cells first.

use crate::config::Config;
use crate::driver::Report;
use crate::engine::CellResult;
use crate::export::Table;
use crate::studies::RunContext;
use crate::studies::score::pack_position;
use crate::studies::tanhinmin::MAX_DISAGREEMENT_ROWS;
use crate::studies::tanhinmin::deals::{DealInstance, DealSource, DealStudy};
use crate::studies::tanhinmin::formula::mover_wins_counts;
use crate::studies::tanhinmin::memo::BoundedMemo;
use crate::studies::tanhinmin::outputs::{
    deal_run_details, deal_stats_row, hand_text, rate_header_with, rate_text_of,
};
use crate::studies::tanhinmin::solver::Position;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// `[cut]`: the variant's rule.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CutConfig {
    /// Strength of the cut rank (6 is the 8 in a 3-to-2 deck).
    pub rank: u32,
}

pub fn validate(config: &Config) -> Result<(), String> {
    crate::studies::score::validate_small_deck(config)?;
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

/// Memoised minimax of the variant. Positions are not compressed, so the
/// cut rank keeps its index; the key is the raw counts and the field.
pub struct CutSolver {
    /// Rank index of the cut rank.
    cut: usize,
    memo: BoundedMemo<bool>,
    pub positions: u64,
}

impl CutSolver {
    pub fn new(cut_strength: u32, memo_bytes: usize) -> Self {
        CutSolver {
            cut: cut_strength as usize - 1,
            memo: BoundedMemo::with_bytes(memo_bytes),
            positions: 0,
        }
    }

    /// Does the player to move in `p` win (both hands non-empty)?
    pub fn mover_wins(&mut self, p: &Position) -> bool {
        let cut = (self.cut < p.ranks).then_some(self.cut);
        let (c, cut) = compress(p, cut);
        self.search(&c, cut)
    }

    /// `p` is compressed and `cut` is the cut rank's index in it, if anyone
    /// holds a card of it.
    fn search(&mut self, p: &Position, cut: Option<usize>) -> bool {
        let key = (pack_position(p) << 6) | cut.map_or(63, |c| c as u128);
        if let Some(v) = self.memo.get(key) {
            return v;
        }
        self.positions += 1;
        let nm: u32 = p.mover[..p.ranks].iter().map(|&v| u32::from(v)).sum();
        let mut wins = false;
        for i in p.field..p.ranks {
            if p.mover[i] == 0 {
                continue;
            }
            if nm == 1 {
                wins = true;
                break;
            }
            let w = if Some(i) == cut {
                // The field clears and the same player moves again.
                let mut again = p.clone();
                again.mover[i] -= 1;
                again.field = 0;
                let (c, cut) = compress(&again, cut);
                self.search(&c, cut)
            } else {
                let mut child = Position {
                    mover: p.other,
                    other: p.mover,
                    ranks: p.ranks,
                    field: i + 1,
                };
                child.other[i] -= 1;
                let (c, cut) = compress(&child, cut);
                !self.search(&c, cut)
            };
            if w {
                wins = true;
                break;
            }
        }
        if !wins && p.field > 0 {
            let child = Position {
                mover: p.other,
                other: p.mover,
                ranks: p.ranks,
                field: 0,
            };
            wins = !self.search(&child, cut);
        }
        self.memo.insert(key, wins);
        wins
    }
}

/// Drops ranks nobody holds, as `Position::compressed` does, and follows the
/// cut rank to its new index (`None` once nobody holds it: then it can never
/// be played and the variant is the plain game from there).
fn compress(p: &Position, cut: Option<usize>) -> (Position, Option<usize>) {
    let c = p.compressed();
    let cut = cut.and_then(|k| {
        if p.mover[k] | p.other[k] == 0 {
            return None;
        }
        Some((0..k).filter(|&i| p.mover[i] | p.other[i] != 0).count())
    });
    (c, cut)
}

/// The plain twin on sorted lists, without memo.
pub fn plain_cut_wins(x: &[u32], y: &[u32], r: u32, cut: u32) -> bool {
    let mut last = None;
    for (i, &c) in x.iter().enumerate() {
        if c <= r || last == Some(c) {
            continue;
        }
        last = Some(c);
        if x.len() == 1 {
            return true;
        }
        let mut rest = x.to_vec();
        rest.remove(i);
        let w = if c == cut {
            plain_cut_wins(&rest, y, 0, cut)
        } else {
            !plain_cut_wins(y, &rest, c, cut)
        };
        if w {
            return true;
        }
    }
    r > 0 && !plain_cut_wins(y, x, 0, cut)
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CutFailure {
    pub chunk: u64,
    pub seq: u64,
    pub first: Vec<u8>,
    pub second: Vec<u8>,
    pub variant_first_wins: bool,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CutCounts {
    pub deals: u128,
    pub first_wins: u128,
    /// Deals where the plain game's μ test names the variant's winner.
    pub formula_agree: u128,
    pub formula_disagree: u128,
    /// Deals whose winner differs from the plain game's.
    pub winner_changed: u128,
    pub failures: Vec<CutFailure>,
    #[serde(skip)]
    pub positions: u64,
}

pub struct CutStudy {
    pub source: DealSource,
    pub cut: u32,
    memo_bytes: usize,
    /// For the plain game's solver, whose table is fixed-size.
    plain_memo_bytes: usize,
}

impl DealStudy for CutStudy {
    type Counts = CutCounts;
    type Worker = (CutSolver, crate::studies::tanhinmin::solver::Solver);

    fn source(&self) -> &DealSource {
        &self.source
    }

    fn new_worker(&self) -> Self::Worker {
        (
            CutSolver::new(self.cut, self.memo_bytes / 2),
            crate::studies::tanhinmin::solver::Solver::new(self.plain_memo_bytes),
        )
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
        let before = w.0.positions;
        let variant = w.0.mover_wins(&p);
        c.positions += w.0.positions - before;
        let plain = w.1.mover_wins(&p);
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
            if c.failures.len() < MAX_DISAGREEMENT_ROWS {
                c.failures.push(CutFailure {
                    chunk: inst.chunk,
                    seq: inst.seq,
                    first: d.first[..ranks].to_vec(),
                    second: d.second[..ranks].to_vec(),
                    variant_first_wins: variant,
                });
            }
        }
    }

    fn merge(into: &mut CutCounts, from: CutCounts) {
        into.deals += from.deals;
        into.first_wins += from.first_wins;
        into.formula_agree += from.formula_agree;
        into.formula_disagree += from.formula_disagree;
        into.winner_changed += from.winner_changed;
        into.positions += from.positions;
        into.failures.extend(from.failures);
        into.failures.sort_by_key(|f| (f.chunk, f.seq));
        into.failures.truncate(MAX_DISAGREEMENT_ROWS);
    }
}

impl Report for CutStudy {
    fn build(config: &Config, ctx: &RunContext) -> anyhow::Result<Self> {
        let cut = config.cut.as_ref().expect("checked by validate").rank;
        let source = DealSource::with_distinguished_rank(config, Some(cut));
        let memo_bytes = config.solver.bytes_per_thread(ctx.threads);
        // The plain game's canonical positions recur across deals far more
        // than the cut game's (no cut rank to track), and its table is
        // fixed-size and touched all over: on configs/cut.toml 64 MiB per
        // thread ran in 4.2 s and 0.85 GB, 512 MiB in 6.3 s and 1.76 GB.
        let plain_memo_bytes = (crate::studies::tanhinmin::memo_budget(config, &source)
            / ctx.threads.max(1))
        .min(memo_bytes / 2)
        .min(64 << 20);
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
    fn verdict(&self, cells: &[&CutCounts], out_dir: &Path) -> (i32, Vec<String>) {
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
        (crate::app::EXIT_OK, lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::studies::tanhinmin::reference::plain_mover_wins;

    fn position(x: &[u32], y: &[u32], r: u32, ranks: usize) -> Position {
        let mut p = Position::from_cards(x, y, r);
        p.ranks = ranks;
        p.field = r as usize;
        p
    }

    proptest::proptest! {
        #[test]
        fn memo_solver_equals_plain_recursion(
            mut x in proptest::collection::vec(1u32..8, 1..6),
            mut y in proptest::collection::vec(1u32..8, 1..6),
            r in 0u32..8,
            cut in 1u32..8,
        ) {
            x.sort();
            y.sort();
            let mut s = CutSolver::new(cut, 1 << 20);
            proptest::prop_assert_eq!(
                s.mover_wins(&position(&x, &y, r, 7)),
                plain_cut_wins(&x, &y, r, cut)
            );
        }

        #[test]
        fn a_cut_nobody_holds_changes_nothing(
            mut x in proptest::collection::vec(1u32..7, 1..6),
            mut y in proptest::collection::vec(1u32..7, 1..6),
            r in 0u32..7,
        ) {
            x.sort();
            y.sort();
            proptest::prop_assert_eq!(plain_cut_wins(&x, &y, r, 7), plain_mover_wins(&x, &y, r));
        }
    }

    #[test]
    fn the_cut_can_change_the_winner() {
        // X = {1, 8}, Y = {9}: in the plain game X must lead 1 or 8; Y beats
        // either and wins. With 8 as the cut, X plays 8, clears the field and
        // then plays 1 to win.
        assert!(!plain_mover_wins(&[1, 8], &[9], 0));
        assert!(plain_cut_wins(&[1, 8], &[9], 0, 8));
    }
}
