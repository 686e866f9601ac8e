//! The plain recursive twin of the variant solver: no memo, no pruning,
//! every legal move tried. Tests hold the fast solver to it.

use super::rules::{Rules, after_move, variant_moves};
use crate::games::tanhinmin::moves::Move;

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
