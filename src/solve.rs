//! `runner solve`: one Tanhinmin position, by minimax and by the formula,
//! under the plain rules or a variant's (8-cut, 11-back). Under a variant
//! the μ test is the plain game's, shown as a predictor: minimax decides,
//! and on small positions the variant's plain recursion checks it.

use crate::cli::SolveArgs;
use crate::config::MAX_CARDS_IN_PLAY;
use crate::exit;
use crate::games::cards::MAX_RANKS;
use crate::games::tanhinmin::dropped_cards::DroppedCardsSolver;
use crate::games::tanhinmin::formula;
use crate::games::tanhinmin::memo::SharedMemo;
use crate::games::tanhinmin::moves::Move;
use crate::games::tanhinmin::ordering::{MoveOrder, cut_guess_mover_wins};
use crate::games::tanhinmin::position::Position;
use crate::games::tanhinmin::score::{Conjecture, ScoreSolver, c1_value, plain_score};
use crate::games::tanhinmin::solver::Solver;
use crate::games::tanhinmin::variant::{
    LINE_MAX_CARDS, Rules, VARIANT_MAX_CARDS, VariantSolver, best_line, plain_variant_wins,
};
use serde::Serialize;

/// The largest card strength a position may hold.
const MAX_STRENGTH: u32 = MAX_RANKS as u32;

/// The most cards of a variant position that the variant's plain
/// recursion (no memo, exponential) re-solves as a check: 14 cards take
/// well under a second.
const TWIN_MAX_CARDS: usize = 14;

/// One position solved both ways, as printed or as `--json`.
#[derive(Serialize, Debug, PartialEq)]
pub struct SolveReport {
    /// The first player's cards, sorted.
    pub first: Vec<u32>,
    /// The second player's cards, sorted.
    pub second: Vec<u32>,
    /// The field (0: empty).
    pub field: u32,
    /// Does the first player (to move) win by minimax?
    pub minimax_first_wins: bool,
    /// ... and by the formula?
    pub formula_first_wins: bool,
    /// μ(X, Y- + {r}).
    pub mu0: u32,
    /// μ(Y, X-).
    pub mu1: u32,
    /// Card strengths to play, or "pass".
    pub winning_moves: Vec<String>,
    /// The variant played, when a rule is on (then `minimax_first_wins`
    /// is the variant's verdict and `formula_first_wins` the plain μ
    /// test's prediction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<VariantReport>,
    /// The card-count value, with `--score`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_count: Option<CardCountReport>,
    /// A line of best play, with `--line`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<LineReport>,
}

/// What `runner solve --line` adds: one game played to its end, the
/// winner ending it in the fewest moves it can force and the loser holding
/// out for the most (first in move order among equals). Found by an
/// exhaustive recursion of its own, so its winner is one more check of
/// the verdict.
#[derive(Serialize, Debug, PartialEq)]
pub struct LineReport {
    /// Does the first player win the line?
    pub first_wins: bool,
    /// Its moves, first to last.
    pub moves: Vec<LineStep>,
}

/// One move of a line.
#[derive(Serialize, Debug, PartialEq)]
pub struct LineStep {
    /// "first" (the player to move at the start) or "second".
    pub player: &'static str,
    /// A card strength, or "pass".
    #[serde(rename = "move")]
    pub mv: String,
    /// What the move does besides: `wins` (the player's last card), `cut`
    /// (the field clears and the same player moves again), `reverses` or
    /// `restores` (the order), `clears` (a pass: the field clears, and
    /// the order turns normal); none for a plain play.
    pub effect: Option<&'static str>,
}

/// The line of best play of a checked position (see [`LineReport`]).
pub fn line_report(x: &[u32], y: &[u32], field: u32, reversed: bool, rules: Rules) -> LineReport {
    let line = best_line(x, y, field, reversed, rules);
    let mut order = reversed;
    let moves = line
        .moves
        .iter()
        .map(|step| {
            let effect = match (&step.after, step.mv) {
                (None, _) => Some("wins"),
                (Some(_), Move::Pass) => Some("clears"),
                (Some(a), _) if a.mover_again => Some("cut"),
                (Some(a), _) if a.reversed != order => {
                    Some(if a.reversed { "reverses" } else { "restores" })
                }
                _ => None,
            };
            if let Some(a) = &step.after {
                order = a.reversed;
            }
            LineStep {
                player: if step.by_first { "first" } else { "second" },
                mv: step.mv.to_string(),
                effect,
            }
        })
        .collect();
    LineReport {
        first_wins: line.first_wins,
        moves,
    }
}

/// What `runner solve` adds under a variant's rules.
#[derive(Serialize, Debug, PartialEq)]
pub struct VariantReport {
    /// The rules' name: "8-cut", "11-back" or "8-cut + 11-back".
    pub rules: &'static str,
    /// Strength of the cut rank, if on.
    pub cut: Option<u32>,
    /// Strength of the back rank, if on.
    pub back: Option<u32>,
    /// Was the order reversed?
    pub reversed: bool,
    /// Does the first player win the plain game from here (normal order
    /// only)?
    pub plain_first_wins: Option<bool>,
    /// The variant's plain recursion, on positions of at most 14 cards.
    pub twin_first_wins: Option<bool>,
    /// Under 8-cut alone, the guess that orders the search's moves: the μ
    /// test read on the game's "may be played on" graph.
    pub cut_guess_first_wins: Option<bool>,
}

/// What `runner solve --score` adds: the card-count game's value.
#[derive(Serialize, Debug, PartialEq)]
pub struct CardCountReport {
    /// The value by search: the cards left in the loser's hand, positive
    /// when the player to move wins.
    pub value: i32,
    /// Conjecture C1's value.
    pub c1: i32,
    /// How the search proved it: `c1-window` (the value is at least C1's
    /// and not more, two plain searches by the dropped-cards lemma, as the
    /// card-count study proves it) or `full-minimax` (C1's window missed).
    pub proved_by: &'static str,
    /// The scored game's plain recursion (no memo), on positions of at
    /// most 12 cards.
    pub twin: Option<i32>,
}

/// The most cards on which `--score` also runs the scored game's plain
/// recursion (no memo, exponential) as a check.
const SCORE_TWIN_MAX_CARDS: usize = 12;

/// The card-count value of (X, Y, r), on sorted lists, proved as the
/// card-count study proves it: C1 only picks the window.
pub fn card_count(x: &[u32], y: &[u32], field: u32) -> CardCountReport {
    card_count_by(x, y, field, c1_value)
}

/// [`card_count`] with the window picked by `conjecture`: the tests give a
/// wrong one, to show the searches, not the closed form, decide the value.
fn card_count_by(x: &[u32], y: &[u32], field: u32, conjecture: Conjecture) -> CardCountReport {
    let pos = position_of(x, y, field);
    let c1 = conjecture(x, y, field);
    let mut window = DroppedCardsSolver::new(
        std::sync::Arc::new(SharedMemo::with_bytes(64 << 20)),
        64 << 20,
        MoveOrder::default(),
    );
    let (value, proved_by) = if window.proves_value(&pos, c1) {
        (c1, "c1-window")
    } else {
        (ScoreSolver::new(256 << 20).score(&pos), "full-minimax")
    };
    CardCountReport {
        value,
        c1,
        proved_by,
        twin: (x.len() + y.len() <= SCORE_TWIN_MAX_CARDS).then(|| plain_score(x, y, field)),
    }
}

/// The position (X, Y, r) of sorted lists, with the field given a rank of
/// its own so that it keeps its strength when above every card.
fn position_of(x: &[u32], y: &[u32], field: u32) -> Position {
    let mut pos = Position::from_cards(x, y, field);
    pos.ranks = pos.ranks.max(field as usize);
    pos.field = field as usize;
    pos
}

/// Checks a position's cards; the message names the flag at fault.
pub fn check(first: &[u32], second: &[u32], field: u32) -> Result<(), String> {
    for (flag, hand) in [("--first", first), ("--second", second)] {
        if hand.is_empty() {
            return Err(format!("{flag}: needs at least one card"));
        }
        if let Some(bad) = hand.iter().find(|&&c| c == 0 || c > MAX_STRENGTH) {
            return Err(format!(
                "{flag}: card strength {bad} is outside 1..={MAX_STRENGTH}"
            ));
        }
    }
    if first.len() + second.len() > MAX_CARDS_IN_PLAY as usize {
        return Err(format!(
            "--first/--second: more than {MAX_CARDS_IN_PLAY} cards in all"
        ));
    }
    if field > MAX_STRENGTH {
        return Err(format!("--field: {field} is outside 0..={MAX_STRENGTH}"));
    }
    Ok(())
}

/// Checks the rules of a variant position on top of [`check`].
pub fn check_rules(
    first: &[u32],
    second: &[u32],
    field: u32,
    rules: Rules,
    reversed: bool,
) -> Result<(), String> {
    check(first, second, field)?;
    for (flag, rank) in [("--cut", rules.cut), ("--back", rules.back)] {
        if let Some(r) = rank
            && !(1..=MAX_STRENGTH).contains(&r)
        {
            return Err(format!("{flag}: rank {r} is outside 1..={MAX_STRENGTH}"));
        }
    }
    if rules.cut.is_some() && rules.cut == rules.back {
        return Err("--cut/--back: the two rules need different ranks".into());
    }
    if reversed && rules.back.is_none() {
        return Err("--reversed: only an 11-back trick is reversed; give --back".into());
    }
    if reversed && field == 0 {
        return Err("--reversed: a reversed trick has a card on the field; give --field".into());
    }
    let special = rules != Rules::PLAIN;
    if special && first.len() + second.len() > VARIANT_MAX_CARDS as usize {
        return Err(format!(
            "--first/--second: more than {VARIANT_MAX_CARDS} cards in all, the most a variant position holds"
        ));
    }
    Ok(())
}

/// Solves one position by minimax and by the formula.
pub fn report(first: &[u32], second: &[u32], field: u32) -> SolveReport {
    report_under(first, second, field, Rules::PLAIN, false)
}

/// Solves one position under `rules` (checked by [`check_rules`]) by
/// minimax, beside the plain game's μ test.
pub fn report_under(
    first: &[u32],
    second: &[u32],
    field: u32,
    rules: Rules,
    reversed: bool,
) -> SolveReport {
    let mut x = first.to_vec();
    let mut y = second.to_vec();
    x.sort_unstable();
    y.sort_unstable();
    let pos = position_of(&x, &y, field);
    let (mu0, mu1) = formula::mu_pair_sorted(&x, &y, field);
    let mut plain_solver = Solver::with_order(64 << 20, MoveOrder::default());
    let plain = (!reversed).then(|| plain_solver.mover_wins(&pos));
    let (minimax, moves, variant) = if rules == Rules::PLAIN {
        let win = plain.expect("the plain game is never reversed");
        (win, plain_solver.winning_moves(&pos), None)
    } else {
        let mut s = VariantSolver::new(rules, 256 << 20, 64 << 20);
        let moves = s.winning_moves_in(&pos, reversed);
        let twin = (x.len() + y.len() <= TWIN_MAX_CARDS)
            .then(|| plain_variant_wins(&x, &y, field, reversed, rules));
        let report = VariantReport {
            rules: rules.name(),
            cut: rules.cut,
            back: rules.back,
            reversed,
            plain_first_wins: plain,
            twin_first_wins: twin,
            cut_guess_first_wins: match rules {
                Rules {
                    cut: Some(cut),
                    back: None,
                } if !reversed => Some(cut_guess_mover_wins(
                    &pos.mover[..pos.ranks.max(cut as usize)],
                    &pos.other[..pos.ranks.max(cut as usize)],
                    pos.field,
                    cut as usize - 1,
                )),
                _ => None,
            },
        };
        (!moves.is_empty(), moves, Some(report))
    };
    SolveReport {
        first: x,
        second: y,
        field,
        minimax_first_wins: minimax,
        formula_first_wins: mu0 > mu1,
        mu0,
        mu1,
        winning_moves: moves.into_iter().map(|m| m.to_string()).collect(),
        variant,
        card_count: None,
        line: None,
    }
}

/// `runner solve`: prints the report; returns the exit status: under the
/// plain rules 1 when minimax and the theorem disagree, under a variant 1
/// when minimax and the variant's plain recursion do (the μ test is only
/// a predictor there).
pub fn main(args: &SolveArgs) -> i32 {
    let rules = Rules {
        cut: args.cut,
        back: args.back,
    };
    if let Err(e) = check_rules(&args.first, &args.second, args.field, rules, args.reversed) {
        eprintln!("error: {e}");
        return exit::USAGE;
    }
    let cards = args.first.len() + args.second.len();
    if args.line && cards > LINE_MAX_CARDS {
        eprintln!(
            "error: --line: the position holds {cards} cards; a line of best play needs the whole game tree, so it is shown for positions of at most {LINE_MAX_CARDS}"
        );
        return exit::USAGE;
    }
    let mut r = report_under(&args.first, &args.second, args.field, rules, args.reversed);
    if args.score {
        r.card_count = Some(card_count(&r.first, &r.second, r.field));
    }
    if args.line {
        r.line = Some(line_report(
            &r.first,
            &r.second,
            r.field,
            args.reversed,
            rules,
        ));
    }
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&r).expect("serialisable")
        );
    } else {
        print_text(&r);
    }
    let agrees = match &r.variant {
        None => r.minimax_first_wins == r.formula_first_wins,
        Some(v) => v.twin_first_wins.is_none_or(|t| t == r.minimax_first_wins),
    } && r
        .card_count
        .as_ref()
        .is_none_or(|c| c.value == c.c1 && c.twin.is_none_or(|t| t == c.value))
        && r.line
            .as_ref()
            .is_none_or(|l| l.first_wins == r.minimax_first_wins);
    if agrees { exit::OK } else { exit::CHECK_FAILED }
}

/// The report as the lines a reader sees.
fn print_text(r: &SolveReport) {
    let who = |w: bool| {
        if w {
            "the player to move wins"
        } else {
            "the player to move loses"
        }
    };
    let yes_no = |b: bool| if b { "yes" } else { "NO" };
    let list = |h: &[u32]| {
        h.iter()
            .map(|c| c.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let order = match &r.variant {
        Some(v) if v.reversed => ", order reversed",
        _ => "",
    };
    println!(
        "position: first = [{}], second = [{}], field = {}{order}",
        list(&r.first),
        list(&r.second),
        r.field
    );
    match &r.variant {
        None => {
            println!("minimax:  {}", who(r.minimax_first_wins));
            println!(
                "formula:  mu0 = {}, mu1 = {}: {}",
                r.mu0,
                r.mu1,
                who(r.formula_first_wins)
            );
            println!(
                "agree:    {}",
                yes_no(r.minimax_first_wins == r.formula_first_wins)
            );
        }
        Some(v) => {
            // A prediction of the variant's winner, against minimax.
            let right_wrong = |guess: bool| {
                if guess == r.minimax_first_wins {
                    "right"
                } else {
                    "wrong"
                }
            };
            let mut rules = Vec::new();
            if let Some(c) = v.cut {
                rules.push(format!("cut rank {c}"));
            }
            if let Some(b) = v.back {
                rules.push(format!("back rank {b}"));
            }
            println!("rules:    {} ({})", v.rules, rules.join(", "));
            println!("minimax:  {}", who(r.minimax_first_wins));
            if let Some(t) = v.twin_first_wins {
                println!(
                    "check:    the variant's plain recursion agrees: {}",
                    yes_no(t == r.minimax_first_wins)
                );
            }
            if let Some(p) = v.plain_first_wins {
                println!(
                    "plain:    {} (the rules change the winner: {})",
                    who(p),
                    if p == r.minimax_first_wins {
                        "no"
                    } else {
                        "yes"
                    }
                );
            }
            if let Some(g) = v.cut_guess_first_wins {
                println!(
                    "8-cut guess: predicts that {} (the μ test on the cut's graph, which orders the search; not a claim): {}",
                    who(g),
                    right_wrong(g)
                );
            }
            println!(
                "μ test:   mu0 = {}, mu1 = {}: predicts that {} (a predictor under a variant, not a claim): {}",
                r.mu0,
                r.mu1,
                who(r.formula_first_wins),
                right_wrong(r.formula_first_wins)
            );
        }
    }
    if let Some(c) = &r.card_count {
        println!(
            "card count: {:+} by search ({}), C1 gives {:+}: {}",
            c.value,
            if c.proved_by == "c1-window" {
                "at least C1's value and not more, proved by two searches"
            } else {
                "C1's window missed, so the full minimax"
            },
            c.c1,
            if c.value == c.c1 { "agree" } else { "C1 FAILS" }
        );
        if let Some(t) = c.twin {
            println!(
                "check:    the scored game's plain recursion gives {t:+}: {}",
                yes_no(t == c.value)
            );
        }
    }
    if r.winning_moves.is_empty() {
        println!("winning moves: none");
    } else {
        let shown: Vec<String> = r
            .winning_moves
            .iter()
            .map(|m| {
                if m == "pass" {
                    m.clone()
                } else {
                    format!("play {m}")
                }
            })
            .collect();
        println!("winning moves: {}", shown.join(", "));
    }
    if let Some(l) = &r.line {
        print_line(l, r.minimax_first_wins);
    }
}

/// A line of best play, one numbered move a row.
fn print_line(l: &LineReport, minimax_first_wins: bool) {
    println!(
        "line:     {} moves with both at their best (the winner ends the game as soon as it can, the loser holds out as long as it can); the {} player wins{}",
        l.moves.len(),
        if l.first_wins { "first" } else { "second" },
        if l.first_wins == minimax_first_wins {
            ""
        } else {
            ", which DISAGREES with minimax"
        }
    );
    let width = l.moves.len().to_string().len();
    for (i, step) in l.moves.iter().enumerate() {
        let what = if step.mv == "pass" {
            "passes".to_string()
        } else {
            format!("plays {}", step.mv)
        };
        let effect = match step.effect {
            Some("wins") => ": the last card, and wins",
            Some("cut") => ": cut, the field clears and the same player moves again",
            Some("reverses") => ": back, the order reverses",
            Some("restores") => ": back, the order turns normal",
            Some("clears") => ": the field clears",
            _ => "",
        };
        println!("  {:>width$}. {:<6} {what}{effect}", i + 1, step.player);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::score::c1_off_by_one;
    use crate::random::{chunk_rng, uniform_below};

    /// Random sorted hands of 1 to 6 cards of strengths 1 to 7, and a field.
    fn random_position(rng: &mut impl rand_xoshiro::rand_core::Rng) -> (Vec<u32>, Vec<u32>, u32) {
        let hand = |rng: &mut _| {
            let n = 1 + uniform_below(rng, 6) as usize;
            let mut h: Vec<u32> = (0..n).map(|_| 1 + uniform_below(rng, 7) as u32).collect();
            h.sort_unstable();
            h
        };
        let (x, y) = (hand(rng), hand(rng));
        (x, y, uniform_below(rng, 8) as u32)
    }

    /// `--score`'s value is the scored game's plain recursion's, on many
    /// random positions, fields above every card included.
    #[test]
    fn the_card_count_is_the_plain_recursions() {
        let mut rng = chunk_rng(19, 0);
        for _ in 0..400 {
            let (x, y, r) = random_position(&mut rng);
            let c = card_count(&x, &y, r);
            let plain = plain_score(&x, &y, r);
            assert_eq!(c.value, plain, "{x:?} {y:?} {r}");
            assert_eq!(c.twin, Some(plain));
            assert_eq!(c.c1, c1_value(&x, &y, r));
        }
    }

    /// A wrong conjecture picks a wrong window: the searches refuse it,
    /// the full minimax finds the true value, and the report shows the two
    /// apart (which `runner solve --score` turns into exit 1).
    #[test]
    fn a_wrong_conjecture_is_caught_not_believed() {
        let mut rng = chunk_rng(19, 1);
        let mut caught = 0;
        for _ in 0..200 {
            let (x, y, r) = random_position(&mut rng);
            let c = card_count_by(&x, &y, r, c1_off_by_one);
            assert_eq!(c.value, plain_score(&x, &y, r), "{x:?} {y:?} {r}");
            if c.c1 != c1_value(&x, &y, r) {
                assert_eq!(c.proved_by, "full-minimax");
                assert_ne!(c.value, c.c1);
                caught += 1;
            }
        }
        assert!(caught > 20, "only {caught} positions had a wrong window");
    }
}
