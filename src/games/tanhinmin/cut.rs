//! The 8-cut variant (8切り): playing a card of the cut rank clears the
//! field and the same player moves again; playing it as the last card wins.

use super::memo::BoundedMemo;
use super::moves::{Move, hand_after, legal_moves};
use super::position::{Position, pack_position};

/// Most ranks the variant's memo key holds: [`pack_position`] takes 6 bits
/// a rank plus 6 for the field, and the cut rank's index takes 6 more, all
/// in one `u128`. A 20-rank position would shift bits off the top and
/// alias two positions in the memo, so larger decks are refused up front.
pub const CUT_MAX_RANKS: usize = (128 - 6 - 6) / 6;
const _: () = assert!(CUT_MAX_RANKS * 6 + 12 <= 128);

/// Memoised minimax of the variant. Positions are not compressed, so the
/// cut rank keeps its index; the key is the raw counts and the field.
pub struct CutSolver {
    /// Rank index of the cut rank.
    cut: usize,
    memo: BoundedMemo<bool>,
    /// Positions expanded (memo misses), for run details.
    pub positions: u64,
}

impl CutSolver {
    /// A solver for the cut rank of strength `cut_strength`, with a memo of `memo_bytes`.
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
        debug_assert!(p.ranks <= CUT_MAX_RANKS, "validation refuses larger decks");
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
    legal_moves(x, r).into_iter().any(|m| match m {
        Move::Play(_) if x.len() == 1 => true,
        Move::Play(i) if i as u32 + 1 == cut => plain_cut_wins(&hand_after(x, m), y, 0, cut),
        Move::Play(i) => !plain_cut_wins(y, &hand_after(x, m), i as u32 + 1, cut),
        Move::Pass => !plain_cut_wins(y, x, 0, cut),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::reference::plain_mover_wins;

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
