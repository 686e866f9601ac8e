//! A line of best play from a small position, under any rules (the plain
//! game is `Rules::PLAIN`): what `runner solve --line` shows, so that a
//! reader can follow a verdict move by move instead of taking it on trust.
//!
//! A verdict alone does not pick a line: every winning move wins, and
//! every reply of the loser loses. The line is made definite by the
//! length of the game, as chess endgame tables do it: the winner ends the
//! game in the fewest moves it can force, the loser holds out for the
//! most, and among equal moves the first in [`variant_moves`] order is
//! taken. The length needs the whole game tree below the position, so this
//! is an exhaustive recursion (memoised on sorted hands) for positions of
//! at most [`LINE_MAX_CARDS`] cards.

use super::rules::{After, Rules, after_move, variant_moves};
use crate::games::tanhinmin::moves::Move;
use std::collections::HashMap;

/// The most cards a position given to [`best_line`] may hold: 16 distinct
/// cards are up to a few million positions (each hand any subset, times
/// the fields and orders). At 8 against 8 distinct cards under both rules
/// `runner solve --line` took 1.9 s and 256 MB on the project VM.
pub const LINE_MAX_CARDS: usize = 16;

/// One move of a line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineMove {
    /// Is it the first player's (the player to move at the start)?
    pub by_first: bool,
    /// The move.
    pub mv: Move,
    /// Where it leads (`None`: it played the mover's last card, and won).
    pub after: Option<After>,
}

/// A line of best play: its moves, the last of which empties a hand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// Does the player to move at the start win?
    pub first_wins: bool,
    /// The moves, first to last.
    pub moves: Vec<LineMove>,
}

type Key = (Vec<u32>, Vec<u32>, u32, bool);

/// The value of each position met: (the mover wins, moves to the end).
struct Lengths {
    rules: Rules,
    memo: HashMap<Key, (bool, u32)>,
}

impl Lengths {
    /// The value of the move `m` for the player holding `x`: (that player
    /// wins, moves to the end, this one included).
    fn of_move(&mut self, x: &[u32], y: &[u32], reversed: bool, m: Move) -> (bool, u32) {
        match after_move(x, y, reversed, self.rules, m) {
            None => (true, 1),
            Some(a) => {
                let (wins, len) = self.of(&a.mover, &a.other, a.field, a.reversed);
                (wins == a.mover_again, len + 1)
            }
        }
    }

    /// The value of a position: won in the fewest moves the mover can
    /// force, or lost in the most the mover can hold out for.
    fn of(&mut self, x: &[u32], y: &[u32], field: u32, reversed: bool) -> (bool, u32) {
        let key = (x.to_vec(), y.to_vec(), field, reversed);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let v = self.best(x, y, field, reversed).1;
        self.memo.insert(key, v);
        v
    }

    /// The best move of a position and its value.
    fn best(&mut self, x: &[u32], y: &[u32], field: u32, reversed: bool) -> (Move, (bool, u32)) {
        let mut best: Option<(Move, (bool, u32))> = None;
        for m in variant_moves(x, field, reversed) {
            let v = self.of_move(x, y, reversed, m);
            let better = match best {
                None => true,
                Some((_, (won, len))) => match (v.0, won) {
                    (true, false) => true,
                    (false, true) => false,
                    (true, true) => v.1 < len,
                    (false, false) => v.1 > len,
                },
            };
            if better {
                best = Some((m, v));
            }
        }
        best.expect("a player with cards always has a move")
    }
}

/// The line of best play from (X, Y, field) in the given order under
/// `rules`, on sorted hands of at least one card each and at most
/// [`LINE_MAX_CARDS`] cards in all.
pub fn best_line(x: &[u32], y: &[u32], field: u32, reversed: bool, rules: Rules) -> Line {
    assert!(
        !x.is_empty() && !y.is_empty() && x.len() + y.len() <= LINE_MAX_CARDS,
        "callers check the position's size"
    );
    let mut lengths = Lengths {
        rules,
        memo: HashMap::new(),
    };
    let first_wins = lengths.of(x, y, field, reversed).0;
    let mut moves = Vec::new();
    let (mut mover, mut other, mut field, mut reversed) = (x.to_vec(), y.to_vec(), field, reversed);
    let mut by_first = true;
    loop {
        let (mv, _) = lengths.best(&mover, &other, field, reversed);
        let after = after_move(&mover, &other, reversed, rules, mv);
        moves.push(LineMove {
            by_first,
            mv,
            after: after.clone(),
        });
        let Some(a) = after else { break };
        if !a.mover_again {
            by_first = !by_first;
        }
        (mover, other, field, reversed) = (a.mover, a.other, a.field, a.reversed);
    }
    Line { first_wins, moves }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::variant::plain_variant_wins;
    use crate::random::{chunk_rng, uniform_below};

    /// The value of each legal move by the definition, with no memo: (the
    /// mover wins by it, moves to the end, it included).
    fn plain_move_values(
        x: &[u32],
        y: &[u32],
        field: u32,
        reversed: bool,
        rules: Rules,
    ) -> Vec<(bool, u32)> {
        variant_moves(x, field, reversed)
            .into_iter()
            .map(|m| match after_move(x, y, reversed, rules, m) {
                None => (true, 1),
                Some(a) => {
                    let (w, len) = plain_length(&a.mover, &a.other, a.field, a.reversed, rules);
                    (w == a.mover_again, len + 1)
                }
            })
            .collect()
    }

    /// The length of the game by the definition, with no memo: the twin
    /// of [`Lengths::of`].
    fn plain_length(x: &[u32], y: &[u32], field: u32, reversed: bool, rules: Rules) -> (bool, u32) {
        let values = plain_move_values(x, y, field, reversed, rules);
        let wins = values.iter().filter(|v| v.0).map(|v| v.1).min();
        match wins {
            Some(len) => (true, len),
            None => (false, values.iter().map(|v| v.1).max().unwrap()),
        }
    }

    /// A random sorted hand of 1 to 5 cards of strengths 1 to 7.
    fn random_hand(rng: &mut impl rand_xoshiro::rand_core::Rng) -> Vec<u32> {
        let n = 1 + uniform_below(rng, 5) as usize;
        let mut h: Vec<u32> = (0..n).map(|_| 1 + uniform_below(rng, 7) as u32).collect();
        h.sort_unstable();
        h
    }

    const RULES: [Rules; 4] = [
        Rules::PLAIN,
        Rules {
            cut: Some(4),
            back: None,
        },
        Rules {
            cut: None,
            back: Some(5),
        },
        Rules {
            cut: Some(4),
            back: Some(5),
        },
    ];

    /// On many random positions under every rule set: the line is legal,
    /// alternates as the rules say, ends when the winner the plain twin
    /// names empties a hand, each of the winner's moves wins, and its
    /// length is the one the memo-less definition gives.
    #[test]
    fn lines_are_legal_won_by_the_twins_winner_and_of_the_defined_length() {
        let mut rng = chunk_rng(23, 0);
        for case in 0..800 {
            let rules = RULES[case % 4];
            let (x, y) = (random_hand(&mut rng), random_hand(&mut rng));
            let reversed = rules.back.is_some() && uniform_below(&mut rng, 4) == 0;
            let field = if reversed {
                1 + uniform_below(&mut rng, 7) as u32
            } else {
                uniform_below(&mut rng, 8) as u32
            };
            let line = best_line(&x, &y, field, reversed, rules);
            let what = format!("{x:?} {y:?} {field} {reversed} {rules:?}");
            assert_eq!(
                line.first_wins,
                plain_variant_wins(&x, &y, field, reversed, rules),
                "{what}"
            );
            let (wins, len) = plain_length(&x, &y, field, reversed, rules);
            assert_eq!(
                (line.first_wins, line.moves.len() as u32),
                (wins, len),
                "{what}"
            );
            let (mut mover, mut other, mut f, mut rev) = (x.clone(), y.clone(), field, reversed);
            let mut by_first = true;
            for (i, step) in line.moves.iter().enumerate() {
                assert_eq!(step.by_first, by_first, "{what}: move {i}");
                assert!(
                    variant_moves(&mover, f, rev).contains(&step.mv),
                    "{what}: move {i} is legal"
                );
                if by_first == line.first_wins {
                    let (w, _) = plain_length(&mover, &other, f, rev, rules);
                    assert!(w, "{what}: the winner's position {i} is won");
                }
                assert_eq!(step.after, after_move(&mover, &other, rev, rules, step.mv));
                match &step.after {
                    None => {
                        assert_eq!(i + 1, line.moves.len(), "{what}: the game ends there");
                        assert_eq!(by_first, line.first_wins, "{what}: the winner ends it");
                    }
                    Some(a) => {
                        if !a.mover_again {
                            by_first = !by_first;
                        }
                        (mover, other, f, rev) =
                            (a.mover.clone(), a.other.clone(), a.field, a.reversed);
                    }
                }
            }
        }
    }

    /// The length decides something: on many of the random positions of
    /// the test above, the first winning move is not the quickest win, or
    /// the loser's first move not the longest resistance, so a line that
    /// merely took the first winning move would fail that test's length.
    #[test]
    fn the_first_winning_move_is_often_not_the_quickest() {
        let mut rng = chunk_rng(23, 1);
        let (mut slower_wins, mut quicker_losses) = (0, 0);
        for case in 0..400 {
            let rules = RULES[case % 4];
            let (x, y) = (random_hand(&mut rng), random_hand(&mut rng));
            let values = plain_move_values(&x, &y, 0, false, rules);
            let line = best_line(&x, &y, 0, false, rules);
            if line.first_wins {
                let first_win = values.iter().find(|v| v.0).unwrap();
                slower_wins += usize::from(first_win.1 > line.moves.len() as u32);
            } else {
                quicker_losses += usize::from(values[0].1 < line.moves.len() as u32);
            }
        }
        assert!(slower_wins > 10, "{slower_wins}");
        assert!(quicker_losses > 10, "{quicker_losses}");
    }

    /// One line by hand: X = {1, 5}, Y = {6}, empty field. X loses (any
    /// lead is answered: 1 by 6, which empties Y's hand at once; 5 by 6
    /// too), so the loser's longest is 2 moves. X = {2, 5}, Y = {1, 3}:
    /// X wins by 5 (Y passes), then 2; or by 2, Y's 3, X's 5: 3 moves
    /// either way, and the first in order, 2, is taken.
    #[test]
    fn a_line_by_hand() {
        let line = best_line(&[1, 5], &[6], 0, false, Rules::PLAIN);
        assert!(!line.first_wins);
        assert_eq!(line.moves.len(), 2);
        assert_eq!(line.moves[1].mv, Move::play_strength(6));
        assert_eq!(line.moves[1].after, None);
        let line = best_line(&[2, 5], &[1, 3], 0, false, Rules::PLAIN);
        assert!(line.first_wins);
        let shown: Vec<String> = line.moves.iter().map(|m| m.mv.to_string()).collect();
        assert_eq!(shown, ["2", "3", "5"]);
    }
}
