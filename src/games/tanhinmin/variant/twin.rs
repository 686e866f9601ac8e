//! The plain recursive twin of the variant solver: no pruning, no
//! canonical key, every legal move tried. Tests and `runner solve` hold the
//! fast solver to it.

use super::rules::{Rules, after_move, variant_moves};
use crate::games::tanhinmin::moves::Move;
use std::collections::HashMap;

/// The plain twin on sorted lists of strengths, without memo: does the
/// player holding `x` to move, against `y`, on field `field` (0 = empty)
/// in the given order, win under `rules`?
pub fn plain_variant_wins(x: &[u32], y: &[u32], field: u32, reversed: bool, rules: Rules) -> bool {
    variant_moves(x, field, reversed)
        .into_iter()
        .any(|m| plain_variant_move_wins(x, y, reversed, rules, m))
}

/// The plain twin's verdict on one legal move `m` of the player holding
/// `x` against `y` in the given order: does it win?
pub fn plain_variant_move_wins(
    x: &[u32],
    y: &[u32],
    reversed: bool,
    rules: Rules,
    m: Move,
) -> bool {
    match after_move(x, y, reversed, rules, m) {
        None => true,
        Some(a) => {
            let wins = plain_variant_wins(&a.mover, &a.other, a.field, a.reversed, rules);
            wins == a.mover_again
        }
    }
}

/// The plain twin with a table of the positions it has settled, each
/// written out whole (both hands card by card, the field, the order): the
/// same recursion as [`plain_variant_wins`], with none of the fast
/// solver's canonical keys, move classes, bounds or shared memo, so that
/// it can check the fast solver on deals of 9 to 13 cards a hand, where
/// the twin without a table would take years. It gives up past a number
/// of positions, so that a check cannot exhaust memory.
pub struct MemoTwin {
    rules: Rules,
    settled: HashMap<Box<[u8]>, bool>,
    max_positions: usize,
}

impl MemoTwin {
    /// A twin that settles at most `max_positions` positions (about 80
    /// bytes each) before it gives up.
    pub fn new(rules: Rules, max_positions: usize) -> MemoTwin {
        MemoTwin {
            rules,
            settled: HashMap::new(),
            max_positions,
        }
    }

    /// Positions settled so far.
    pub fn positions(&self) -> usize {
        self.settled.len()
    }

    /// As [`plain_variant_wins`], or `None` once more than the twin's
    /// positions would be needed. The table is kept between calls (it holds
    /// verdicts under these rules only).
    pub fn wins(&mut self, x: &[u32], y: &[u32], field: u32, reversed: bool) -> Option<bool> {
        let state = Self::state(x, y, field, reversed);
        if let Some(&won) = self.settled.get(&state) {
            return Some(won);
        }
        if self.settled.len() >= self.max_positions {
            return None;
        }
        let mut won = false;
        // Strongest first: it finds the winning move sooner than weakest
        // first in most positions, which only saves time.
        for m in variant_moves(x, field, reversed).into_iter().rev() {
            let move_wins = match after_move(x, y, reversed, self.rules, m) {
                None => true,
                Some(a) => self.wins(&a.mover, &a.other, a.field, a.reversed)? == a.mover_again,
            };
            if move_wins {
                won = true;
                break;
            }
        }
        // The children settled since may have filled the table.
        if self.settled.len() >= self.max_positions {
            return None;
        }
        self.settled.insert(state, won);
        Some(won)
    }

    /// The position written out whole: the mover's strengths, a 0, the
    /// other's, a 0, the field, the order. Strengths are 1 to 64, so the 0s
    /// mark where each hand ends and no two positions share a state.
    fn state(x: &[u32], y: &[u32], field: u32, reversed: bool) -> Box<[u8]> {
        let byte = |s: &u32| u8::try_from(*s).expect("strengths are at most 64");
        x.iter()
            .map(byte)
            .chain([0])
            .chain(y.iter().map(byte))
            .chain([0, byte(&field), u8::from(reversed)])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Past its positions the twin gives up rather than grow, and what it
    /// settled before is still right: a larger twin agrees on every
    /// position a smaller one answers, and answers the rest.
    #[test]
    fn the_twin_gives_up_past_its_positions_and_keeps_only_whole_verdicts() {
        let rules = Rules {
            cut: None,
            back: Some(5),
        };
        let (x, y) = ([1, 2, 3, 4, 5, 6, 7], [1, 2, 3, 4, 5, 6, 7]);
        let mut small = MemoTwin::new(rules, 50);
        assert_eq!(small.wins(&x, &y, 0, false), None);
        assert!(small.positions() <= 50);
        let mut large = MemoTwin::new(rules, usize::MAX);
        let want = large.wins(&x, &y, 0, false);
        assert!(large.positions() > 50);
        assert_eq!(want, Some(plain_variant_wins(&x, &y, 0, false, rules)));
        for (state, &won) in &small.settled {
            assert_eq!(large.settled.get(state), Some(&won), "{state:?}");
        }
    }
}
