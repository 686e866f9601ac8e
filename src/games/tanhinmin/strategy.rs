//! The winning strategy that the Coq proof (seed 000, Tanhinmin.v)
//! constructs, in two forms held equal by a test: on sorted lists, as the
//! statement reads, and on count arrays, as the solver's move order uses it.

use super::formula::{mu_counts, mu_pair_counts, mu_sorted};
use super::moves::Move;
use crate::games::cards::MAX_RANKS;

/// A rule that names one move for the player to move: sorted hand `x`
/// (non-empty) against `y` on field `r`.
pub type Strategy = fn(&[u32], &[u32], u32) -> Move;

/// The proof's move for the player to move with sorted hand `x` (non-empty)
/// against `y` on field `r`, transcribed from the statement:
/// - if max(X) <= r: pass;
/// - with one card, which is then playable: play it (it wins outright);
/// - else if min(X) <= r: play the weakest card stronger than r;
/// - else if μ(Y, X-) = μ(Y, X minus one copy of its second card): play the
///   weakest card;
/// - otherwise play the second card.
pub fn proof_move(x: &[u32], y: &[u32], r: u32) -> Move {
    let max = *x.last().expect("the mover holds a card");
    if max <= r {
        return Move::Pass;
    }
    if x.len() == 1 {
        return Move::play_strength(x[0]);
    }
    if x[0] <= r {
        let weakest_playable = *x.iter().find(|&&c| c > r).expect("max > r");
        return Move::play_strength(weakest_playable);
    }
    let second = x[1];
    let mut without_second = x.to_vec();
    without_second.remove(1);
    if mu_sorted(y, &x[1..]) == mu_sorted(y, &without_second) {
        Move::play_strength(x[0])
    } else {
        Move::play_strength(second)
    }
}

/// A deliberately wrong strategy, to show that failures are caught: always
/// the weakest playable card.
pub fn weakest_move(x: &[u32], _y: &[u32], r: u32) -> Move {
    match x.iter().find(|&&c| c > r) {
        Some(&c) => Move::play_strength(c),
        None => Move::Pass,
    }
}

/// [`proof_move`] on count arrays, for the search's move order: the proof's
/// card when μ0 > μ1 and the mover holds two or more cards; `None` when the
/// proof's test says the position is lost, when its move is a pass, or with
/// one card (the search plays a lone card at once anyway).
pub fn proof_move_counts(mover: &[u8], other: &[u8], field: usize) -> Option<Move> {
    let ranks = mover.len();
    let low = mover.iter().position(|&c| c > 0)?;
    let playable = (field..ranks).find(|&i| mover[i] > 0)?;
    let (mu0, mu1) = mu_pair_counts(mover, other, field);
    if mu0 <= mu1 {
        return None;
    }
    if low < field {
        // Some card cannot be played: play the weakest that can.
        return Some(Move::Play(playable));
    }
    let second = if mover[low] >= 2 {
        low
    } else {
        (low + 1..ranks).find(|&i| mover[i] > 0)?
    };
    let mut x_minus_second = [0u8; MAX_RANKS];
    x_minus_second[..ranks].copy_from_slice(mover);
    x_minus_second[second] -= 1;
    if mu1 == mu_counts(other, &x_minus_second[..ranks], 0) {
        Some(Move::Play(low))
    } else {
        Some(Move::Play(second))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cards::strengths;
    use crate::games::tanhinmin::formula::mu_pair_sorted;

    proptest::proptest! {
        /// Whenever the count form names a move, it is the list form's.
        #[test]
        fn count_form_names_the_list_forms_move(
            mover in proptest::collection::vec(0u8..3, 9),
            other in proptest::collection::vec(0u8..3, 9),
            field in 0usize..9,
        ) {
            let (x, y) = (strengths(&mover), strengths(&other));
            proptest::prop_assume!(!x.is_empty() && !y.is_empty());
            let (mu0, mu1) = mu_pair_sorted(&x, &y, field as u32);
            let fast = proof_move_counts(&mover, &other, field);
            let plain = proof_move(&x, &y, field as u32);
            if mu0 > mu1 && x.len() >= 2 && plain != Move::Pass {
                proptest::prop_assert_eq!(fast, Some(plain));
            } else {
                proptest::prop_assert!(fast.is_none() || fast == Some(plain));
            }
        }
    }
}
