//! Move ordering for the plain game's search: which move to try first.
//!
//! Nothing here decides a verdict. The search still proves every move it
//! does not take; the order only changes how soon it finds a winning one.

use super::formula;
use super::moves::Move;
use super::packed::{self, MAX_PACKED_RANKS};
use crate::games::cards::MAX_RANKS;

/// Which move the search tries first. Only speed depends on it: every move
/// is still searched until one wins, so the verdict is the same either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveOrder {
    /// Weakest playable card first, pass last: the order that never
    /// consults the formula.
    WeakestFirst,
    /// The Coq proof's winning move first (seed 000, Tanhinmin.v), then
    /// weakest first. In a won position the first try then wins at once.
    ProofStrategy,
    /// Among the moves after which the μ test says the opponent loses, the
    /// one that leaves the opponent the fewest replies, ties to the
    /// strongest card; then weakest first. Small refutation trees make small
    /// proofs. The default: fastest on every shipped config, exhaustive
    /// and sampled (BENCHMARKS.md).
    #[default]
    FewestReplies,
    /// For tests only (no config can name it): first a move the μ test says
    /// loses, so that the search's recovery from a wrong first guess runs.
    #[serde(skip)]
    LosingFirst,
}

/// The move for [`MoveOrder::FewestReplies`], or `None` when the μ test names no winning move.
///
/// Opponent replies only shrink as the card played gets stronger, so the
/// strongest card after which the μ test says the opponent loses leaves the
/// fewest replies, and the scan stops at the first such card from the top.
/// Ties go to that strongest card on purpose: the cards tied with it form a
/// run with no opponent card between, and the only other position they can
/// lead to is playing the run's weakest card where it shares a rank with an
/// opponent card. Keeping that card and spending one the opponent cannot
/// match gave 38% smaller proofs at 26 cards (BENCHMARKS.md).
///
/// A position the μ test calls lost has no μ-winning move (by the theorem),
/// so it costs one test instead of one per move. Half the positions of a
/// proof are lost ones. This only orders moves: the search still proves
/// every verdict.
pub fn fewest_replies_move(mover: &[u8], other: &[u8], field: usize) -> Option<Move> {
    if mover.len() <= MAX_PACKED_RANKS {
        let (m, o) = (packed::pack(mover), packed::pack(other));
        packed::mover_wins(m, o, field)
            .then(|| fewest_replies_packed(m, o, field, mover.len()))
            .flatten()
    } else {
        formula::mover_wins_counts(mover, other, field)
            .then(|| fewest_replies_scan(WalkedHands { mover, other }, field, mover.len()))
            .flatten()
    }
}

/// The μ test on count arrays (packed when they fit): a guess of who wins,
/// for searches that choose their next step by it and prove the verdict.
#[inline]
pub fn mu_guesses_mover_wins(mover: &[u8], other: &[u8], field: usize) -> bool {
    if mover.len() <= MAX_PACKED_RANKS {
        packed::mover_wins(packed::pack(mover), packed::pack(other), field)
    } else {
        formula::mover_wins_counts(mover, other, field)
    }
}

/// [`fewest_replies_move`] without its first μ test, for positions the
/// caller expects to be won: every reply to a move of a lost position. In a
/// won position it names the same move; elsewhere it may name any move,
/// which costs time only.
pub fn fewest_replies_move_if_won(mover: &[u8], other: &[u8], field: usize) -> Option<Move> {
    if mover.len() <= MAX_PACKED_RANKS {
        fewest_replies_packed(packed::pack(mover), packed::pack(other), field, mover.len())
    } else {
        fewest_replies_scan(WalkedHands { mover, other }, field, mover.len())
    }
}

/// [`fewest_replies_move_if_won`] on packed hands of `ranks <=
/// MAX_PACKED_RANKS` ranks, so that a caller trying several moves packs
/// once.
#[inline]
pub(crate) fn fewest_replies_packed(
    mover: u128,
    other: u128,
    field: usize,
    ranks: usize,
) -> Option<Move> {
    let hands = PackedHands {
        mover,
        other,
        mu0_common: None,
    };
    fewest_replies_scan(hands, field, ranks)
}

/// What the fewest-replies scan asks of a position, in either hand form.
trait ScannedHands {
    /// Bit `i` set when the mover holds rank `i`.
    fn mover_ranks(&self) -> u64;
    /// Does the μ test say the opponent wins after the mover plays `rank`?
    fn opponent_wins_after_play(&mut self, rank: usize) -> bool;
    /// ... and after the mover passes?
    fn opponent_wins_after_pass(&mut self) -> bool;
}

/// Count slices and the greedy μ walk: decks of any size.
struct WalkedHands<'a> {
    mover: &'a [u8],
    other: &'a [u8],
}

impl ScannedHands for WalkedHands<'_> {
    fn mover_ranks(&self) -> u64 {
        self.mover
            .iter()
            .enumerate()
            .fold(0u64, |m, (i, &n)| m | (((n > 0) as u64) << i))
    }
    fn opponent_wins_after_play(&mut self, rank: usize) -> bool {
        formula::opponent_wins_after_play(self.mover, self.other, rank)
    }
    fn opponent_wins_after_pass(&mut self) -> bool {
        formula::mover_wins_counts(self.other, self.mover, 0)
    }
}

/// Packed hands and Hall's μ (see [`packed`]).
struct PackedHands {
    mover: u128,
    other: u128,
    mu0_common: Option<u32>,
}

impl ScannedHands for PackedHands {
    #[inline]
    fn mover_ranks(&self) -> u64 {
        packed::held_ranks(self.mover) as u64
    }
    #[inline]
    fn opponent_wins_after_play(&mut self, rank: usize) -> bool {
        packed::opponent_wins_after_play(self.mover, self.other, rank, &mut self.mu0_common)
    }
    #[inline]
    fn opponent_wins_after_pass(&mut self) -> bool {
        packed::mover_wins(self.other, self.mover, 0)
    }
}

/// The scan of [`fewest_replies_move_if_won`]: the mover's playable ranks
/// from the strongest down, to the first that the μ test says wins.
#[inline(always)]
fn fewest_replies_scan(mut hands: impl ScannedHands, field: usize, ranks: usize) -> Option<Move> {
    debug_assert!(ranks <= 64);
    let mut playable = hands.mover_ranks() & !((1u64 << field.min(63)) - 1);
    if field >= 64 {
        playable = 0;
    }
    while playable != 0 {
        let i = 63 - playable.leading_zeros() as usize;
        playable ^= 1 << i;
        if !hands.opponent_wins_after_play(i) {
            return Some(Move::Play(i));
        }
    }
    (field > 0 && !hands.opponent_wins_after_pass()).then_some(Move::Pass)
}

/// [`fewest_replies_move`] the obvious way: the μ test after every move,
/// then the fewest replies (opponent ranks above the card), ties to the
/// strongest card. The fast version must choose the same move; tests compare
/// the two.
pub fn fewest_replies_move_plain(mover: &[u8], other: &[u8], field: usize) -> Option<Move> {
    let ranks = mover.len();
    let mut rest = [0u8; MAX_RANKS];
    rest[..ranks].copy_from_slice(mover);
    let mut best: Option<(u32, usize)> = None;
    // Opponent cards above each rank, counted once from the top.
    let mut above = [0u32; MAX_RANKS + 1];
    for i in (0..ranks).rev() {
        above[i] = above[i + 1] + (other[i] > 0) as u32;
    }
    for i in field..ranks {
        if mover[i] == 0 {
            continue;
        }
        rest[i] -= 1;
        let opponent_wins = formula::mover_wins_counts(other, &rest[..ranks], i + 1);
        rest[i] += 1;
        let replies = above[i + 1];
        if !opponent_wins && best.is_none_or(|(r, _)| replies <= r) {
            best = Some((replies, i));
        }
    }
    if best.is_none() && field > 0 && !formula::mover_wins_counts(other, mover, 0) {
        return Some(Move::Pass);
    }
    best.map(|(_, i)| Move::Play(i))
}

/// The weakest move after which the μ test says the opponent wins, for
/// [`MoveOrder::LosingFirst`].
pub(crate) fn losing_move(mover: &[u8], other: &[u8], field: usize) -> Option<Move> {
    if other.iter().all(|&c| c == 0) {
        return None;
    }
    let card = (field..mover.len())
        .find(|&i| mover[i] > 0 && formula::opponent_wins_after_play(mover, other, i));
    let pass = field > 0 && formula::mover_wins_counts(other, mover, 0);
    card.map(Move::Play).or(pass.then_some(Move::Pass))
}

/// A guess at the 8-cut game's winner, for its move order only: the μ test
/// with the cut cards read as what they are in the game's "may be played
/// on" graph. A cut card is played on what a card of its rank is played
/// on, and nothing is ever played on it (the field clears and its player
/// moves again, as if the opponent had to pass). So it matches opponent
/// cards below its rank, no card matches it, and it counts as the
/// strongest card when X- and Y- drop the weakest.
///
/// Not a theorem: it was right on 99.9% of 30,000 random positions of up
/// to 12 cards (9 ranks, cut on 5), checked by brute force (a test in
/// `variant/mod.rs` holds it above 99%); its smallest
/// misses hold a cut card and one or two others. The search proves every
/// verdict whatever this says.
pub fn cut_guess_mover_wins(mover: &[u8], other: &[u8], field: usize, cut: usize) -> bool {
    let ranks = mover.len();
    // The field card joins Y's side as one more card, or, empty, as a card
    // below every rank.
    let (field_rank, below) = match field {
        0 => (usize::MAX, 1),
        f if f <= ranks => (f - 1, 0),
        _ => (usize::MAX, 0),
    };
    let mu0 = mu_without_cut(
        mover,
        other,
        cut,
        weakest_but_cut(other, cut),
        field_rank,
        below,
    );
    let mu1 = mu_without_cut(
        other,
        mover,
        cut,
        weakest_but_cut(mover, cut),
        usize::MAX,
        0,
    );
    mu0 > mu1
}

/// The weakest rank of `hand` other than `cut` that holds a card, or
/// `usize::MAX`.
#[inline]
fn weakest_but_cut(hand: &[u8], cut: usize) -> usize {
    (0..hand.len())
        .find(|&i| i != cut && hand[i] > 0)
        .unwrap_or(usize::MAX)
}

/// μ(A, B') by the greedy walk up the ranks, where B' is `b` without its
/// cards of rank `cut` and one card of rank `minus`, with one more of rank
/// `plus` and `below` cards under every rank (`usize::MAX`: no rank). One
/// walk, without building B': the guess is asked once or more for every
/// position of an 8-cut search, and building the hands cost 6% of a 26x26
/// run. A test holds it equal to [`formula::mu_counts`] on the built hands.
#[inline]
fn mu_without_cut(a: &[u8], b: &[u8], cut: usize, minus: usize, plus: usize, below: u32) -> u32 {
    let mut available = below;
    let mut matched = 0;
    for (i, (&ac, &bc)) in a.iter().zip(b).enumerate() {
        let here = u32::from(ac).min(available);
        matched += here;
        let b_here = if i == cut { 0 } else { u32::from(bc) };
        available = available - here + b_here + u32::from(i == plus) - u32::from(i == minus);
    }
    matched
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`cut_guess_mover_wins`] as it reads: build both B sides, then
    /// μ by [`formula::mu_counts`].
    fn cut_guess_on_built_hands(mover: &[u8], other: &[u8], field: usize, cut: usize) -> bool {
        let ranks = mover.len();
        let matchable_minus_weakest = |hand: &[u8]| {
            let mut b = hand.to_vec();
            if cut < ranks {
                b[cut] = 0;
            }
            if let Some(w) = b.iter().position(|&c| c > 0) {
                b[w] -= 1;
            }
            b
        };
        let mut y_side = matchable_minus_weakest(other);
        let below = match field {
            0 => 1,
            f if f <= ranks => {
                y_side[f - 1] += 1;
                0
            }
            _ => 0,
        };
        let x_side = matchable_minus_weakest(mover);
        formula::mu_counts(mover, &y_side, below) > formula::mu_counts(other, &x_side, 0)
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]

        #[test]
        fn the_cut_guess_walk_equals_building_the_hands(
            mover in proptest::collection::vec(0u8..4, 9),
            other in proptest::collection::vec(0u8..4, 9),
            field in 0usize..11,
            cut in 0usize..10,
        ) {
            proptest::prop_assert_eq!(
                cut_guess_mover_wins(&mover, &other, field, cut),
                cut_guess_on_built_hands(&mover, &other, field, cut)
            );
        }
    }
}
