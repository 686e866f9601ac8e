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

/// What a search proved: whether its mover wins, and the move it won by
/// ([`Move::to_byte`]), or [`Outcome::NO_MOVE`] when the verdict came from
/// the memo or a shortcut. A caller refuting several cards reuses a
/// winning reply it learns ([`RefutationBound`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Does the player to move win?
    pub win: bool,
    /// The winning move's byte, or [`Outcome::NO_MOVE`].
    pub by: u8,
}

impl Outcome {
    /// No move known. The bytes of real moves are [`Move::to_byte`]'s, all
    /// below this one.
    pub const NO_MOVE: u8 = u8::MAX - 1;

    /// A verdict whose winning move, if any, is not known.
    pub fn decided(win: bool) -> Outcome {
        Outcome {
            win,
            by: Self::NO_MOVE,
        }
    }

    /// A win by the move with byte `m`.
    pub fn won_by(m: u8) -> Outcome {
        Outcome { win: true, by: m }
    }
}

const _: () = assert!(Move::PASS_BYTE < Outcome::NO_MOVE);

/// The refutation bound, wherever "a card upgraded never hurts its holder"
/// holds (the plain game, its card-count game, 8-cut for plain cards): a
/// card refuted by the reply `b` (the position after both is lost for the
/// mover) refutes every stronger card below `b` too, since `b` is still a
/// legal reply and leaves the same position but for a weaker card in the
/// mover's hand; a card refuted by a pass refutes every stronger card.
/// Cards are tried weakest first, so one bound holds all that earlier
/// refutations settle.
#[derive(Clone, Copy, Debug, Default)]
pub struct RefutationBound(usize);

impl RefutationBound {
    /// Is a card of rank index `i`, stronger than every card tried so far,
    /// refuted already?
    #[inline]
    pub fn refutes(self, i: usize) -> bool {
        i < self.0
    }

    /// A card was refuted by the reply with byte `reply` (an
    /// [`Outcome::by`]; [`Outcome::NO_MOVE`] teaches nothing).
    #[inline]
    pub fn learn(&mut self, reply: u8) {
        match reply {
            Outcome::NO_MOVE => {}
            Move::PASS_BYTE => self.0 = usize::MAX,
            b => self.0 = self.0.max(usize::from(b)),
        }
    }
}

/// What the count-based move generator ([`move_classes`]) needs of a rule
/// set: its special ranks as indices (`usize::MAX` when off) and where a
/// card upgraded never hurts its holder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClassRules {
    /// The cut rank's index (8-cut).
    pub cut: usize,
    /// The back rank's index (11-back).
    pub back: usize,
    /// The weakest rank index from which "a card upgraded to a stronger
    /// card of neither special rank never hurts its holder" holds for the
    /// cards of neither special rank: 0 in the plain game and under 8-cut,
    /// the rank above the back rank under 11-back (cards that no reversed
    /// trick can take), `usize::MAX` for none.
    pub upgrades_from: usize,
}

impl ClassRules {
    /// The plain game (and its card-count game): nothing special, and
    /// upgrades never hurt.
    pub const PLAIN: ClassRules = ClassRules {
        cut: usize::MAX,
        back: usize::MAX,
        upgrades_from: 0,
    };

    /// Can a card of rank index `i` be upgraded without hurting (and so
    /// stand for a class, or be refuted by the refutation bound)?
    #[inline]
    pub fn upgradable(&self, i: usize) -> bool {
        i >= self.upgrades_from && i != self.cut && i != self.back
    }
}

/// Writes the card moves worth trying into `moves` (rank indices) and
/// returns their number: the cut card first when the mover can play it
/// (it keeps the move), then one card per class, weakest first, and the
/// back card last (on 4,000 13x13 deals it searched 20% fewer positions
/// there than in its rank's place, under 11-back and with both rules;
/// first, 8% more). Order changes time, never a verdict; weakest first is
/// what [`RefutationBound`] needs of the plain cards.
///
/// Adjacent ranks that only the mover holds (no card of the opponent
/// between them, neither a special rank) form one group of the canonical
/// key, and playing any card of the group leaves the opponent the same
/// replies, the same number of blocked cards (in either order) and hands
/// with the same key: one move stands for the group, under every rule.
///
/// Where a card can be upgraded ([`ClassRules::upgradable`]), a class may also
/// start at a rank the opponent holds too: its card leaves the opponent the
/// same replies as the mover-only cards above it and keeps a stronger card
/// in hand, so it wins whenever any of them wins, as in the plain solver.
pub fn move_classes(
    mover: &[u8],
    other: &[u8],
    playable: std::ops::Range<usize>,
    rules: ClassRules,
    moves: &mut [u8; crate::games::cards::MAX_RANKS],
) -> usize {
    let mut count = 0;
    if playable.contains(&rules.cut) && mover[rules.cut] > 0 {
        moves[0] = rules.cut as u8;
        count = 1;
    }
    let back_playable = playable.contains(&rules.back) && mover[rules.back] > 0;
    let mut in_class = false;
    for i in playable {
        let (a, b) = (mover[i], other[i]);
        if a | b == 0 {
            continue;
        }
        if i == rules.cut || i == rules.back {
            in_class = false;
            continue;
        }
        if b > 0 {
            in_class = a > 0 && rules.upgradable(i);
            if a > 0 {
                moves[count] = i as u8;
                count += 1;
            }
        } else if !in_class {
            moves[count] = i as u8;
            count += 1;
            in_class = true;
        }
    }
    if back_playable {
        moves[count] = rules.back as u8;
        count += 1;
    }
    count
}

/// Under 11-back, in normal order: the cards a reversed trick cannot beat
/// are played after the other cards below the back rank, since keeping
/// them for a reversed trick is often worth more than playing them now,
/// as weakest first would. Two kinds:
/// - the mover's weakest plain class, when it holds more cards than the
///   opponent holds below it: a card is beaten in a reversed trick only by
///   a weaker one, and each opponent card beats at most one, so one card
///   of the class is never beaten there. It goes after the other plain
///   cards below the back rank.
/// - the cut card, when its rank is below the back rank: in a reversed
///   trick it is played on any field above it and keeps the move. It goes
///   after all of them, instead of first.
///
/// Worth doing only while someone holds a back card, which the caller
/// checks. The cards moved are below the back rank, where
/// [`RefutationBound`] does not apply, so its weakest-first order is kept.
/// Order changes time, never a verdict (BENCHMARKS.md, "11-back: the
/// reversed trick's stopper kept").
pub fn keep_reversed_stoppers(moves: &mut [u8], mover: &[u8], other: &[u8], rules: ClassRules) {
    // The cut card is only ever first (see [`move_classes`]).
    let cut_first = moves.first().is_some_and(|&m| usize::from(m) == rules.cut);
    let start = usize::from(cut_first);
    let plain_lows = moves[start..]
        .iter()
        .take_while(|&&m| usize::from(m) < rules.back)
        .count();
    if plain_lows >= 2 {
        let weakest = usize::from(moves[start]);
        let count = |cards: &[u8]| cards.iter().map(|&c| u32::from(c)).sum::<u32>();
        // The class (see [`move_classes`]): the weakest card's rank and, if
        // the opponent holds none of it, the ranks above that only the
        // mover holds, up to a special rank.
        let class_end = match other[weakest] {
            0 => (weakest + 1..rules.back)
                .find(|&i| other[i] > 0 || i == rules.cut)
                .unwrap_or(rules.back),
            _ => weakest + 1,
        };
        if count(&mover[weakest..class_end]) > count(&other[..weakest]) {
            moves[start..start + plain_lows].rotate_left(1);
        }
    }
    if cut_first && rules.cut < rules.back {
        moves[..=plain_lows].rotate_left(1);
    }
}

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

    /// Moves on an empty field under 11-back (back on index 5) and, where
    /// `cut` is a rank, 8-cut too, as the variant solver orders them.
    fn order(mover: &[u8], other: &[u8], cut: usize) -> Vec<u8> {
        let rules = ClassRules {
            cut,
            back: 5,
            upgrades_from: 6,
        };
        let mut moves = [0u8; crate::games::cards::MAX_RANKS];
        let count = move_classes(mover, other, 0..mover.len(), rules, &mut moves);
        keep_reversed_stoppers(&mut moves[..count], mover, other, rules);
        moves[..count].to_vec()
    }

    #[test]
    fn a_class_no_reversed_trick_can_beat_whole_is_played_after_the_other_low_cards() {
        // The mover's 0 is below every opponent card: played after 2 and
        // 4, before the card above the back rank and the back card.
        assert_eq!(
            order(&[1, 0, 1, 0, 1, 1, 1, 0], &[0, 1, 0, 1, 0, 0, 0, 1], 9),
            vec![2, 4, 0, 6, 5]
        );
        // The class of 1 and 2 (two cards) against one opponent card below.
        assert_eq!(
            order(&[0, 1, 1, 0, 1, 0, 1, 0], &[1, 0, 0, 1, 0, 1, 0, 1], 9),
            vec![4, 1, 6]
        );
        // Two opponent cards below the class's two: weakest first.
        assert_eq!(
            order(&[0, 1, 1, 0, 1, 0, 1, 0], &[2, 0, 0, 1, 0, 1, 0, 1], 9),
            vec![1, 4, 6]
        );
        // A rank both hold is a class of its own (the opponent's card of
        // it beats the mover's 2, not the mover's 1): one card against one
        // below, then two against one.
        assert_eq!(
            order(&[0, 1, 2, 0, 0, 0, 0, 0], &[1, 1, 0, 0, 0, 0, 0, 1], 9),
            vec![1, 2]
        );
        assert_eq!(
            order(&[0, 2, 1, 0, 0, 0, 0, 0], &[1, 1, 0, 0, 0, 0, 0, 1], 9),
            vec![2, 1]
        );
        // One low card only: nothing to keep it for.
        assert_eq!(
            order(&[1, 0, 0, 0, 0, 1, 1, 0], &[0, 1, 0, 0, 0, 0, 0, 1], 9),
            vec![0, 6, 5]
        );
        // The cut card below the back rank bounds the class and goes last
        // of the low cards, after the stopper class.
        assert_eq!(
            order(&[1, 0, 1, 1, 1, 0, 1, 0], &[0, 1, 0, 0, 0, 1, 0, 1], 2),
            vec![3, 0, 2, 6]
        );
        // A cut card above the back rank is never played in a reversed
        // trick: it stays first.
        assert_eq!(
            order(&[1, 0, 1, 0, 0, 0, 1, 0], &[0, 1, 0, 0, 0, 1, 0, 1], 6),
            vec![6, 2, 0]
        );
    }
}
