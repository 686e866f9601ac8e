//! `runner solve`: one Tanhinmin position, by minimax and by the formula.

use crate::cli::SolveArgs;
use crate::config::MAX_CARDS_IN_PLAY;
use crate::exit;
use crate::games::cards::MAX_RANKS;
use crate::games::tanhinmin::formula;
use crate::games::tanhinmin::position::Position;
use crate::games::tanhinmin::solver::Solver;
use serde::Serialize;

/// The largest card strength a position may hold.
const MAX_STRENGTH: u32 = MAX_RANKS as u32;

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

/// Solves one position by minimax and by the formula.
pub fn report(first: &[u32], second: &[u32], field: u32) -> SolveReport {
    let mut x = first.to_vec();
    let mut y = second.to_vec();
    x.sort_unstable();
    y.sort_unstable();
    let mut pos = Position::from_cards(&x, &y, field);
    // Give the field its own rank slot so it keeps its strength when above every card.
    pos.ranks = pos.ranks.max(field as usize);
    pos.field = field as usize;
    let mut s = Solver::new(64 << 20);
    let minimax = s.mover_wins(&pos);
    let moves = s
        .winning_moves(&pos)
        .into_iter()
        .map(|m| m.to_string())
        .collect();
    let (mu0, mu1) = formula::mu_pair_sorted(&x, &y, field);
    SolveReport {
        first: x,
        second: y,
        field,
        minimax_first_wins: minimax,
        formula_first_wins: mu0 > mu1,
        mu0,
        mu1,
        winning_moves: moves,
    }
}

/// `runner solve`: prints the report; returns the exit status.
pub fn main(args: &SolveArgs) -> i32 {
    if let Err(e) = check(&args.first, &args.second, args.field) {
        eprintln!("error: {e}");
        return exit::USAGE;
    }
    let r = report(&args.first, &args.second, args.field);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&r).expect("serialisable")
        );
    } else {
        let who = |w: bool| {
            if w {
                "the player to move wins"
            } else {
                "the player to move loses"
            }
        };
        let list = |h: &[u32]| {
            h.iter()
                .map(|c| c.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        println!(
            "position: first = [{}], second = [{}], field = {}",
            list(&r.first),
            list(&r.second),
            r.field
        );
        println!("minimax:  {}", who(r.minimax_first_wins));
        println!(
            "formula:  mu0 = {}, mu1 = {}: {}",
            r.mu0,
            r.mu1,
            who(r.formula_first_wins)
        );
        println!(
            "agree:    {}",
            if r.minimax_first_wins == r.formula_first_wins {
                "yes"
            } else {
                "NO"
            }
        );
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
    }
    if r.minimax_first_wins == r.formula_first_wins {
        exit::OK
    } else {
        exit::CHECK_FAILED
    }
}
