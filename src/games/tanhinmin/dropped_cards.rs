//! The card-count game's thresholds as plain games: a player who may end
//! with `j` cards in hand plays the plain game without their `j` weakest.
//!
//! **Lemma.** In the card-count game ([`super::score`]), the player to move
//! in (X, Y, r) can guarantee a score of at least `v`
//! - for `v >= 1`, exactly when they win the plain game (X, Y', r), Y'
//!   being Y without its `v - 1` weakest cards (never, if none are left);
//! - for `v <= 0`, exactly when they win the plain game (X', Y, r), X'
//!   being X without its `-v` weakest cards (always, if none are left).
//!
//! **Proof.** Each question is a race, since hands only shrink. A score of
//! at least `v >= 1` means the mover empties their hand while the opponent
//! still holds `v` cards or more: the mover must reach 0 cards before the
//! opponent reaches `v - 1`. A score of at least `-k` means the mover wins,
//! or loses holding at most `k`: the mover must reach `k` cards before the
//! opponent reaches 0. In both, one player, the *keeper*, wins the race on
//! reaching `j` cards (the opponent with `j = v - 1`, or the mover with
//! `j = k`), and the other on reaching 0. The keeper, holding H, wins the
//! race exactly when they win the plain game holding H' = H without its
//! `j` weakest cards:
//! - *If*: the keeper plays the plain game's winning strategy and never
//!   touches the `j` cards left out; when H' is empty they hold those `j`.
//!   The rival's moves do not depend on the keeper's hand.
//! - *Only if*: the keeper plays the race's winning strategy, but where it
//!   plays a card c they play the weakest card still in H' that is at
//!   least c. That card is legal wherever c is, and leaves the rival a
//!   field at least as high, so each reply the rival has is also a reply
//!   in the race, to the same field; passes are copied as passes. Such a
//!   card always exists: the race strategy plays at most |H| - j cards of
//!   H before it wins, H' holds the |H| - j strongest cards of H, and
//!   giving each card the weakest one left that covers it never uses up a
//!   card a later, stronger one needs. When the race is won (the keeper
//!   down to `j`), they have played |H'| cards: H' is empty, and the rival
//!   could not have emptied first, or the race would have been lost.
//!
//! With the Kitani–Ono theorem deciding the plain games, this is
//! conjecture C1 ([`super::score::c1_value`]): C1 is a corollary of the
//! theorem. The runner does not take either on trust: each plain game is
//! proved by the plain solver's search, the lemma is held equal to the
//! direct searches of the card-count game on thousands of random positions
//! (below and `tests/variants.rs`), and where C1 names a value the plain
//! searches do not confirm, the card-count study finds the true value by
//! the full-value minimax, which knows nothing of the lemma.

use super::memo::SharedMemo;
use super::ordering::MoveOrder;
use super::position::Position;
use super::solver::Solver;
use crate::games::cards::Hand;
use std::sync::Arc;

/// Answers "can the mover reach `v`?" by one plain search on the hands the
/// lemma (module comment) names.
pub struct DroppedCardsSolver {
    plain: Solver,
    /// Positions the plain searches expanded, for run details.
    pub positions: u64,
    /// Tests only: drop the strongest cards instead of the weakest.
    drops_strongest: bool,
}

impl DroppedCardsSolver {
    /// A solver over the plain game's `shared` table, with a private one
    /// of `local_bytes` for keys too long for it, trying moves in `order`.
    pub fn new(shared: Arc<SharedMemo>, local_bytes: usize, order: MoveOrder) -> Self {
        DroppedCardsSolver {
            plain: Solver::with_shared(shared, local_bytes, order),
            positions: 0,
            drops_strongest: false,
        }
    }

    /// The same solver dropping the keeper's strongest cards: a wrong
    /// lemma, for a test that shows the direct searches catch it.
    #[doc(hidden)]
    pub fn dropping_strongest(self) -> Self {
        DroppedCardsSolver {
            drops_strongest: true,
            ..self
        }
    }

    /// Can the player to move in `p` (both hands non-empty) guarantee a
    /// card-count score of at least `v`?
    pub fn reaches(&mut self, p: &Position, v: i32) -> bool {
        let mut q = p.clone();
        let keeper_moves = v <= 0;
        let (keeper, kept) = if keeper_moves {
            (&mut q.mover, v.unsigned_abs())
        } else {
            (&mut q.other, v.unsigned_abs() - 1)
        };
        let left = drop_cards(keeper, p.ranks, kept, self.drops_strongest);
        if left == 0 {
            // The keeper is already down to what they may keep.
            return keeper_moves;
        }
        let before = self.plain.positions;
        let wins = self.plain.mover_wins(&q);
        self.positions += self.plain.positions - before;
        wins
    }

    /// Is the card-count value of `p` exactly `v`: at least `v` and not at
    /// least `v + 1`? How a closed form's guess is proved, not believed.
    pub fn proves_value(&mut self, p: &Position, v: i32) -> bool {
        self.reaches(p, v) && !self.reaches(p, v + 1)
    }
}

/// Takes `count` cards from `hand[..ranks]`, weakest first (strongest
/// first if `strongest`), and returns how many are left.
fn drop_cards(hand: &mut Hand, ranks: usize, count: u32, strongest: bool) -> u32 {
    let mut to_drop = count;
    let mut take = |c: &mut u8| {
        let here = u32::from(*c).min(to_drop);
        *c -= here as u8;
        to_drop -= here;
    };
    if strongest {
        hand[..ranks].iter_mut().rev().for_each(&mut take);
    } else {
        hand[..ranks].iter_mut().for_each(&mut take);
    }
    hand[..ranks].iter().map(|&c| u32::from(c)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::score::plain_score;

    fn solver() -> DroppedCardsSolver {
        DroppedCardsSolver::new(
            Arc::new(SharedMemo::with_bytes(1 << 16)),
            1 << 16,
            MoveOrder::default(),
        )
    }

    fn position(x: &[u32], y: &[u32], r: u32) -> Position {
        let mut p = Position::from_cards(x, y, r);
        p.ranks = 9;
        p.field = r as usize;
        p
    }

    #[test]
    fn drops_the_weakest_cards() {
        let mut hand = [0u8; crate::games::cards::MAX_RANKS];
        hand[..4].copy_from_slice(&[2, 0, 1, 3]);
        assert_eq!(drop_cards(&mut hand, 4, 3, false), 3);
        assert_eq!(&hand[..4], &[0, 0, 0, 3]);
        assert_eq!(drop_cards(&mut hand, 4, 5, false), 0);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Every threshold of a position, with duplicates and fields, on
        /// one solver: the lemma against the card-count game's plain
        /// recursion.
        #[test]
        fn a_threshold_is_reached_exactly_when_the_dropped_cards_game_is_won(
            mut x in proptest::collection::vec(1u32..10, 1..7),
            mut y in proptest::collection::vec(1u32..10, 1..7),
            r in 0u32..10,
        ) {
            x.sort();
            y.sort();
            let value = plain_score(&x, &y, r);
            let mut s = solver();
            let p = position(&x, &y, r);
            for v in -(x.len() as i32) - 1..=y.len() as i32 + 1 {
                proptest::prop_assert_eq!(s.reaches(&p, v), value >= v, "v = {}", v);
            }
        }
    }

    /// The lemma's twin catches a wrong lemma: dropping the strongest
    /// cards instead of the weakest misjudges some threshold of a small
    /// position.
    #[test]
    fn dropping_the_strongest_cards_is_caught() {
        let mut wrong = solver().dropping_strongest();
        let (x, y) = ([1, 2, 5], [3, 4, 6]);
        let value = plain_score(&x, &y, 0);
        let p = position(&x, &y, 0);
        let misjudged = (-4..=4).filter(|&v| wrong.reaches(&p, v) != (value >= v));
        assert!(misjudged.count() > 0, "value {value}");
    }
}
