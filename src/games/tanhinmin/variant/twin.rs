//! The plain recursive twin of the variant solver: no memo, no pruning,
//! every legal move tried. Tests hold the fast solver to it.

use super::rules::{Rules, variant_moves};
use crate::games::tanhinmin::moves::{Move, hand_after};

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
    match m {
        Move::Play(_) if x.len() == 1 => true,
        Move::Play(i) if Some(i as u32 + 1) == rules.cut => {
            plain_variant_wins(&hand_after(x, m), y, 0, false, rules)
        }
        Move::Play(i) => {
            let order = reversed ^ (Some(i as u32 + 1) == rules.back);
            !plain_variant_wins(y, &hand_after(x, m), i as u32 + 1, order, rules)
        }
        Move::Pass => !plain_variant_wins(y, x, 0, false, rules),
    }
}
