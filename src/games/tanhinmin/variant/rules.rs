//! The rules of a variant as a value (which ranks are special), and its
//! one move generator.

use crate::games::tanhinmin::moves::{Move, hand_after, legal_moves};

/// The rules of a variant: strengths (1 = weakest) of the special ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Strength of the cut rank (8-cut), if the rule is on.
    pub cut: Option<u32>,
    /// Strength of the back rank (11-back), if the rule is on.
    pub back: Option<u32>,
}

impl Rules {
    /// The plain game.
    pub const PLAIN: Rules = Rules {
        cut: None,
        back: None,
    };

    /// The rule sets of the shipped variant configs: 8-cut on the 8
    /// (strength 6), 11-back on the Jack (9), both.
    pub const SHIPPED: [Rules; 3] = [
        Rules {
            cut: Some(6),
            back: None,
        },
        Rules {
            cut: None,
            back: Some(9),
        },
        Rules {
            cut: Some(6),
            back: Some(9),
        },
    ];

    /// A short name for tables and pictures: "plain", "8-cut", "11-back",
    /// "8-cut + 11-back" (the names of the card games, whatever the
    /// strengths).
    pub fn name(&self) -> &'static str {
        match (self.cut, self.back) {
            (None, None) => "plain",
            (Some(_), None) => "8-cut",
            (None, Some(_)) => "11-back",
            (Some(_), Some(_)) => "8-cut + 11-back",
        }
    }

    /// The strengths of the ranks the rules single out (cut, then back):
    /// exhaustive deals keep each one apart from its neighbours.
    pub fn special_ranks(&self) -> Vec<u32> {
        self.cut.into_iter().chain(self.back).collect()
    }

    pub(super) fn index(strength: Option<u32>) -> usize {
        strength.map_or(NO_RANK, |s| s as usize - 1)
    }
}

/// A rank index no position has.
pub(super) const NO_RANK: usize = usize::MAX;

/// The legal moves of a variant on a sorted hand: plays strictly above the
/// field card (normal) or strictly below it (reversed), one per distinct
/// strength, weakest first, then the pass when the field holds a card.
pub fn variant_moves(hand: &[u32], field: u32, reversed: bool) -> Vec<Move> {
    if !reversed || field == 0 {
        return legal_moves(hand, field);
    }
    let mut moves: Vec<Move> = Vec::with_capacity(hand.len() + 1);
    for &c in hand {
        if c < field && moves.last() != Some(&Move::play_strength(c)) {
            moves.push(Move::play_strength(c));
        }
    }
    moves.push(Move::Pass);
    moves
}

/// The position a legal move leads to, on sorted lists: who moves there
/// and with which hands, on which field, in which order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct After {
    /// Does the same player move again (a cut card was played)?
    pub mover_again: bool,
    /// The hand of the player to move next.
    pub mover: Vec<u32>,
    /// The other hand.
    pub other: Vec<u32>,
    /// The field card (0: empty).
    pub field: u32,
    /// Is the order reversed?
    pub reversed: bool,
}

/// Where the legal move `m` of the player holding `x` against `y` leads
/// under `rules`, or `None` when it plays the last card and wins. The one
/// place the rules' effects are written for the plain recursions (the
/// variant's twin and its lines of play).
pub fn after_move(x: &[u32], y: &[u32], reversed: bool, rules: Rules, m: Move) -> Option<After> {
    match m {
        Move::Play(_) if x.len() == 1 => None,
        Move::Play(i) if Some(i as u32 + 1) == rules.cut => Some(After {
            mover_again: true,
            mover: hand_after(x, m),
            other: y.to_vec(),
            field: 0,
            reversed: false,
        }),
        Move::Play(i) => Some(After {
            mover_again: false,
            mover: y.to_vec(),
            other: hand_after(x, m),
            field: i as u32 + 1,
            reversed: reversed ^ (Some(i as u32 + 1) == rules.back),
        }),
        Move::Pass => Some(After {
            mover_again: false,
            mover: y.to_vec(),
            other: x.to_vec(),
            field: 0,
            reversed: false,
        }),
    }
}
