//! The card-count game: the plain game scored by the cards left in the
//! loser's hand, and conjecture C1's closed form for its value.
//!
//! When a player empties their hand, the score is the number of cards left
//! in the loser's hand, positive for the player to move at the root if they
//! win. Each player maximises their own score. Pass on an empty field is
//! not allowed, as in the plain game.
//!
//! Conjecture C1 (found by brute force, unpublished), with T(X, Y, r) the
//! theorem's test μ(X, Y- + {r}) > μ(Y, X-) and top_k(H) the k strongest
//! cards of H:
//! - if T(X, Y, r), the value is |Y| - b* + 1, b* the smallest b with
//!   T(X, top_b(Y), r);
//! - otherwise it is -(|X| - a* + 1), a* the smallest a for which
//!   T(top_a(X), Y, r) fails.

use super::formula::mover_wins_sorted;
use super::memo::BoundedMemo;
use super::moves::{Move, hand_after, legal_moves};
use super::position::{Position, pack_position};

/// Memoised card-count minimax on compressed positions.
pub struct ScoreSolver {
    memo: BoundedMemo<i8>,
    /// Positions expanded (memo misses), for run details.
    pub positions: u64,
}

impl ScoreSolver {
    /// A solver with a memo of about `memo_bytes`.
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
    legal_moves(x, r)
        .into_iter()
        .map(|m| match m {
            Move::Play(_) if x.len() == 1 => y.len() as i32,
            Move::Play(i) => -plain_score(y, &hand_after(x, m), i as u32 + 1),
            Move::Pass => -plain_score(y, x, 0),
        })
        .max()
        .unwrap_or(i32::MIN)
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

/// A closed form for the value, on sorted lists (C1, or a deliberately wrong one).
pub type Conjecture = fn(&[u32], &[u32], u32) -> i32;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cards::MAX_RANKS;
    use crate::games::tanhinmin::reference::plain_mover_wins;

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
