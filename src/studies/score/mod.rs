//! The card-count minimax and conjecture C1.
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

use crate::config::Config;
use crate::driver::Report;
use crate::engine::CellResult;
use crate::export::Table;
use crate::studies::RunContext;
use crate::studies::tanhinmin::MAX_DISAGREEMENT_ROWS;
#[cfg(test)]
use crate::studies::tanhinmin::MAX_RANKS;
use crate::studies::tanhinmin::deals::{DealInstance, DealSource, DealStudy, strengths};
use crate::studies::tanhinmin::formula::mover_wins_sorted;
use crate::studies::tanhinmin::memo::BoundedMemo;
use crate::studies::tanhinmin::outputs::{
    deal_run_details, deal_stats_row, hand_text, rate_header_with, rate_text_of,
};
use crate::studies::tanhinmin::solver::Position;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Largest rank count and copies per rank the packed memo key holds.
pub const MAX_SCORE_RANKS: u32 = 20;
pub const MAX_SCORE_COPIES: u32 = 7;

/// Checks `[deck]` against what the score and cut solvers' keys hold.
pub fn validate_small_deck(config: &Config) -> Result<(), String> {
    Config::validate_deck_and_hands(config)?;
    if config.deck.ranks > MAX_SCORE_RANKS {
        return Err(format!(
            "[deck] ranks: {} is more than the {MAX_SCORE_RANKS} study `{}` supports",
            config.deck.ranks, config.experiment.study
        ));
    }
    if let Some(c) = config.copies().iter().find(|&&c| c > MAX_SCORE_COPIES) {
        return Err(format!(
            "[deck] copies: {c} is more than the {MAX_SCORE_COPIES} per rank study `{}` supports",
            config.experiment.study
        ));
    }
    Ok(())
}

/// Packs counts (3 bits each, mover and other per rank) and the field.
pub fn pack_position(p: &Position) -> u128 {
    let mut k: u128 = 0;
    for i in 0..p.ranks {
        k = (k << 6) | (u128::from(p.mover[i]) << 3) | u128::from(p.other[i]);
    }
    (k << 6) | p.field as u128
}

/// Memoised card-count minimax on compressed positions.
pub struct ScoreSolver {
    memo: BoundedMemo<i8>,
    pub positions: u64,
}

impl ScoreSolver {
    pub fn new(memo_bytes: usize) -> Self {
        ScoreSolver {
            memo: BoundedMemo::with_bytes(memo_bytes),
            positions: 0,
        }
    }

    /// The score for the player to move in `p` (both hands non-empty).
    pub fn score(&mut self, p: &Position) -> i32 {
        let c = p.compressed();
        let key = pack_position(&c);
        if let Some(v) = self.memo.get(key) {
            return i32::from(v);
        }
        self.positions += 1;
        let nm: u32 = c.mover[..c.ranks].iter().map(|&v| u32::from(v)).sum();
        let no: u32 = c.other[..c.ranks].iter().map(|&v| u32::from(v)).sum();
        let mut best = i32::MIN;
        for i in c.field..c.ranks {
            if c.mover[i] == 0 {
                continue;
            }
            if nm == 1 {
                best = best.max(no as i32);
                continue;
            }
            let mut child = Position {
                mover: c.other,
                other: c.mover,
                ranks: c.ranks,
                field: i + 1,
            };
            child.other[i] -= 1;
            best = best.max(-self.score(&child));
        }
        if c.field > 0 {
            let child = Position {
                mover: c.other,
                other: c.mover,
                ranks: c.ranks,
                field: 0,
            };
            best = best.max(-self.score(&child));
        }
        self.memo.insert(key, best as i8);
        best
    }
}

/// The plain twin: the same scored game on sorted lists, no memo.
pub fn plain_score(x: &[u32], y: &[u32], r: u32) -> i32 {
    let mut best = i32::MIN;
    let mut last = None;
    for (i, &c) in x.iter().enumerate() {
        if c <= r || last == Some(c) {
            continue;
        }
        last = Some(c);
        if x.len() == 1 {
            best = best.max(y.len() as i32);
            continue;
        }
        let mut rest = x.to_vec();
        rest.remove(i);
        best = best.max(-plain_score(y, &rest, c));
    }
    if r > 0 {
        best = best.max(-plain_score(y, x, 0));
    }
    best
}

/// Conjecture C1's value of (X, Y, r), on sorted lists.
pub fn c1_value(x: &[u32], y: &[u32], r: u32) -> i32 {
    let top = |h: &[u32], k: usize| h[h.len() - k..].to_vec();
    if mover_wins_sorted(x, y, r) {
        let b = (1..=y.len())
            .find(|&b| mover_wins_sorted(x, &top(y, b), r))
            .expect("b = |Y| satisfies T");
        (y.len() - b + 1) as i32
    } else {
        let a = (1..=x.len())
            .find(|&a| !mover_wins_sorted(&top(x, a), y, r))
            .expect("a = |X| fails T");
        -((x.len() - a + 1) as i32)
    }
}

/// A deliberately wrong C1 (off by one for winners), to show it is caught.
pub fn c1_off_by_one(x: &[u32], y: &[u32], r: u32) -> i32 {
    let v = c1_value(x, y, r);
    if v > 0 { v + 1 } else { v }
}

pub type Conjecture = fn(&[u32], &[u32], u32) -> i32;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct C1Failure {
    pub chunk: u64,
    pub seq: u64,
    pub first: Vec<u8>,
    pub second: Vec<u8>,
    pub score: i32,
    pub c1: i32,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ScoreCounts {
    pub deals: u128,
    pub first_wins: u128,
    /// Weighted deals per score.
    pub scores: BTreeMap<i32, u128>,
    pub c1_agree: u128,
    pub c1_disagree: u128,
    pub failures: Vec<C1Failure>,
    #[serde(skip)]
    pub positions: u64,
}

pub struct ScoreStudy {
    pub source: DealSource,
    pub conjecture: Conjecture,
    memo_bytes: usize,
}

impl DealStudy for ScoreStudy {
    type Counts = ScoreCounts;
    type Worker = ScoreSolver;

    fn source(&self) -> &DealSource {
        &self.source
    }

    fn new_worker(&self) -> ScoreSolver {
        ScoreSolver::new(self.memo_bytes)
    }

    fn evaluate(&self, solver: &mut ScoreSolver, inst: &DealInstance, c: &mut ScoreCounts) {
        let ranks = self.source.ranks();
        let d = &inst.deal;
        let p = Position {
            mover: d.first,
            other: d.second,
            ranks,
            field: self.source.field as usize,
        };
        let before = solver.positions;
        let score = solver.score(&p);
        c.positions += solver.positions - before;
        let (x, y) = (strengths(&d.first[..ranks]), strengths(&d.second[..ranks]));
        let c1 = (self.conjecture)(&x, &y, self.source.field);
        c.deals += d.weight;
        if score > 0 {
            c.first_wins += d.weight;
        }
        *c.scores.entry(score).or_insert(0) += d.weight;
        if c1 == score {
            c.c1_agree += d.weight;
        } else {
            c.c1_disagree += d.weight;
            if c.failures.len() < MAX_DISAGREEMENT_ROWS {
                c.failures.push(C1Failure {
                    chunk: inst.chunk,
                    seq: inst.seq,
                    first: d.first[..ranks].to_vec(),
                    second: d.second[..ranks].to_vec(),
                    score,
                    c1,
                });
            }
        }
    }

    fn merge(into: &mut ScoreCounts, from: ScoreCounts) {
        into.deals += from.deals;
        into.first_wins += from.first_wins;
        into.c1_agree += from.c1_agree;
        into.c1_disagree += from.c1_disagree;
        into.positions += from.positions;
        for (s, w) in from.scores {
            *into.scores.entry(s).or_insert(0) += w;
        }
        into.failures.extend(from.failures);
        into.failures.sort_by_key(|f| (f.chunk, f.seq));
        into.failures.truncate(MAX_DISAGREEMENT_ROWS);
    }
}

impl Report for ScoreStudy {
    fn build(config: &Config, ctx: &RunContext) -> anyhow::Result<Self> {
        Ok(ScoreStudy {
            source: DealSource::new(config),
            conjecture: if ctx.inject_fault {
                c1_off_by_one
            } else {
                c1_value
            },
            memo_bytes: config.solver.bytes_per_thread(ctx.threads),
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

    fn verdict(&self, cells: &[&ScoreCounts], out_dir: &Path) -> (i32, Vec<String>) {
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
        crate::driver::check_verdict(
            lines,
            bad > 0,
            format!(
                "conjecture C1 fails on {bad} deals; smallest counterexamples in {dir}/c1_failures.csv"
            ),
            format!("conjecture C1 held on every deal; results in {dir}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::studies::tanhinmin::reference::plain_mover_wins;

    fn position(x: &[u32], y: &[u32], r: u32) -> Position {
        let mut p = Position::from_cards(x, y, r);
        p.field = r as usize;
        p.ranks = p.ranks.max(r as usize);
        p
    }

    proptest::proptest! {
        #[test]
        fn memo_solver_equals_plain_recursion_and_sign_is_the_winner(
            mut x in proptest::collection::vec(1u32..8, 1..6),
            mut y in proptest::collection::vec(1u32..8, 1..6),
            r in 0u32..8,
        ) {
            x.sort();
            y.sort();
            let plain = plain_score(&x, &y, r);
            let mut s = ScoreSolver::new(1 << 20);
            proptest::prop_assert_eq!(s.score(&position(&x, &y, r)), plain);
            proptest::prop_assert_eq!(plain > 0, plain_mover_wins(&x, &y, r));
            proptest::prop_assert!(plain != 0);
        }
    }

    #[test]
    fn c1_examples() {
        // One card each: the mover plays it and wins with Y's one card left.
        assert_eq!(c1_value(&[1], &[2], 0), 1);
        assert_eq!(plain_score(&[1], &[2], 0), 1);
        // The off-by-one version disagrees there.
        assert_ne!(c1_off_by_one(&[1], &[2], 0), plain_score(&[1], &[2], 0));
    }

    #[test]
    fn pack_is_injective_on_small_positions() {
        let mut seen = std::collections::HashSet::new();
        for m in 0..64u32 {
            for o in 0..64u32 {
                for f in 0..3 {
                    let mut p = Position {
                        mover: [0; MAX_RANKS],
                        other: [0; MAX_RANKS],
                        ranks: 2,
                        field: f,
                    };
                    p.mover[0] = (m & 7) as u8;
                    p.mover[1] = (m >> 3) as u8;
                    p.other[0] = (o & 7) as u8;
                    p.other[1] = (o >> 3) as u8;
                    assert!(seen.insert(pack_position(&p)));
                }
            }
        }
    }
}
