//! The one move type of the plain game and its variants, and the one move
//! generator that every plain (list-based) solver uses.
//!
//! The fast solver works on count arrays and keeps moves as rank indices;
//! the plain twins work on sorted lists of card strengths. Both speak
//! [`Move`], so a move named by one can be checked by the other.

use std::fmt;

/// Pass, or play one card of a rank. The rank is an index: rank index `i`
/// holds cards of strength `i + 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// Give up the trick: the field clears and the opponent leads.
    Pass,
    /// Play one card of this rank index.
    Play(usize),
}

impl Move {
    /// The move that plays a card of strength `strength` (at least 1).
    pub fn play_strength(strength: u32) -> Move {
        Move::Play(strength as usize - 1)
    }

    /// The field after the move: the strength of the card played, or 0
    /// (empty) after a pass.
    pub fn field_after(self) -> usize {
        match self {
            Move::Pass => 0,
            Move::Play(i) => i + 1,
        }
    }

    /// The move in one byte, for the solver's compact move lists and
    /// hints. Rank indices are below 64, so bytes from 64 up are free for
    /// [`Move::PASS_BYTE`] and the solver's own markers.
    #[inline]
    pub fn to_byte(self) -> u8 {
        match self {
            Move::Pass => Self::PASS_BYTE,
            Move::Play(i) => i as u8,
        }
    }

    /// The inverse of [`Move::to_byte`] on the bytes it produces.
    #[inline]
    pub fn from_byte(b: u8) -> Move {
        if b == Self::PASS_BYTE {
            Move::Pass
        } else {
            Move::Play(b as usize)
        }
    }

    /// The byte of [`Move::Pass`].
    pub const PASS_BYTE: u8 = u8::MAX - 2;
}

const _: () = assert!(crate::games::cards::MAX_RANKS < Move::PASS_BYTE as usize);

/// Shown as players write moves: `pass`, or the strength of the card.
impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Pass => f.write_str("pass"),
            Move::Play(i) => write!(f, "{}", i + 1),
        }
    }
}

/// Every legal move of the player holding the sorted hand `hand` on field
/// `field`: one per distinct strength above the field, weakest first, then
/// the pass when the field is not empty (a pass on an empty field is not a
/// move in the card game).
pub fn legal_moves(hand: &[u32], field: u32) -> Vec<Move> {
    let mut moves: Vec<Move> = Vec::with_capacity(hand.len() + 1);
    let mut last = None;
    for &c in hand {
        if c > field && last != Some(c) {
            last = Some(c);
            moves.push(Move::play_strength(c));
        }
    }
    if field > 0 {
        moves.push(Move::Pass);
    }
    moves
}

/// The sorted hand left after `m`: the hand less one card of the strength
/// played, or the same hand after a pass.
pub fn hand_after(hand: &[u32], m: Move) -> Vec<u32> {
    let mut rest = hand.to_vec();
    if let Move::Play(i) = m {
        let strength = i as u32 + 1;
        let at = rest
            .iter()
            .position(|&c| c == strength)
            .expect("the move plays a card the hand holds");
        rest.remove(at);
    }
    rest
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legal_moves_are_distinct_playable_strengths_then_the_pass() {
        assert_eq!(
            legal_moves(&[1, 2, 2, 5], 1),
            vec![Move::Play(1), Move::Play(4), Move::Pass]
        );
        assert_eq!(legal_moves(&[1, 1], 0), vec![Move::Play(0)]);
        assert_eq!(legal_moves(&[1], 3), vec![Move::Pass]);
    }

    #[test]
    fn bytes_round_trip_and_moves_print_as_strengths() {
        for m in [Move::Pass, Move::Play(0), Move::Play(63)] {
            assert_eq!(Move::from_byte(m.to_byte()), m);
        }
        assert_eq!(Move::Play(7).to_string(), "8");
        assert_eq!(Move::Pass.to_string(), "pass");
        assert_eq!(hand_after(&[1, 3, 3], Move::Play(2)), vec![1, 3]);
    }
}
