//! `runner solve`: one Tanhinmin position, by minimax and by the formula,
//! under the plain rules or a variant's (8-cut, 11-back). Under a variant
//! the μ test is the plain game's, shown as a predictor: minimax decides,
//! and on small positions the variant's plain recursion checks it.

mod batch;
mod batch_memo;
mod batch_rows;
mod recorded;
mod report;

pub use report::{
    COLUMNS, CardCountReport, FLAGS, LineReport, LineStep, Names, SolveReport, Solvers, TwinCheck,
    VariantReport, card_count, check, check_rule_flags, check_rules, line_report, report,
    report_one, report_under,
};

use crate::cli::SolveArgs;
use crate::exit;
use crate::games::tanhinmin::variant::{LINE_MAX_CARDS, Rules};
use report::twin_check;

/// `runner solve`: prints the report (or solves a batch file); returns
/// the exit status: 1 when a check fails ([`SolveReport::checks_hold`]:
/// under the plain rules minimax against the theorem and the proof's move,
/// under a variant minimax against the variant's plain recursion, the μ
/// test being only a predictor there).
pub fn main(args: &SolveArgs) -> i32 {
    if let Some(path) = &args.batch {
        return batch::main(args, path);
    }
    // (clap's `requires = "batch"` is not enforced beside the hands'
    // `required_unless_present`, so the check is here.)
    for (given, flag) in [
        (args.out.is_some(), "--out"),
        (args.threads.is_some(), "--threads"),
        (args.quiet, "--quiet"),
        (args.resume, "--resume"),
        (args.keep_memo, "--keep-memo"),
        (args.stop_after_rows.is_some(), "--stop-after-rows"),
    ] {
        if given {
            exit::say_error(format_args!(
                "{flag}: only with --batch; one position prints to stdout"
            ));
            return exit::USAGE;
        }
    }
    let rules = Rules {
        cut: args.cut,
        back: args.back,
    };
    let checked = check_rules(
        &args.first,
        &args.second,
        args.field,
        rules,
        args.reversed,
        FLAGS,
    );
    if exit::or_say(checked).is_none() {
        return exit::USAGE;
    }
    let cards = args.first.len() + args.second.len();
    if args.line && cards > LINE_MAX_CARDS {
        exit::say_error(format_args!(
            "--line: the position holds {cards} cards; a line of best play needs the whole game tree, so it is shown for positions of at most {LINE_MAX_CARDS}"
        ));
        return exit::USAGE;
    }
    let Some(twin) = exit::or_say(twin_check(args.check_positions, rules, 1)) else {
        return exit::USAGE;
    };
    let solvers = Solvers::new(rules)
        .checking(twin)
        .with_moves(!args.verdicts_only);
    let mut r = report_one(
        solvers,
        &args.first,
        &args.second,
        args.field,
        args.reversed,
    );
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
        print_text(&r, twin);
    }
    let agrees = r.checks_hold();
    if agrees { exit::OK } else { exit::CHECK_FAILED }
}

/// The report as the lines a reader sees.
fn print_text(r: &SolveReport, twin: TwinCheck) {
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
            match v.twin_first_wins {
                Some(t) => println!(
                    "check:    the variant's plain recursion agrees: {}",
                    yes_no(t == r.minimax_first_wins)
                ),
                None => println!(
                    "check:    not run: the variant's plain recursion checks {}{}",
                    twin.scope(),
                    if twin == TwinCheck::default() {
                        " (--check-positions N checks larger ones)"
                    } else {
                        ""
                    }
                ),
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
    let moves = r.winning_moves.as_deref().unwrap_or_default();
    if r.winning_moves.is_none() {
        println!("winning moves: not solved (--verdicts-only)");
    } else if moves.is_empty() {
        println!("winning moves: none");
    } else {
        let shown: Vec<String> = moves
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
    if let Some(m) = &r.proof_move {
        let shown = if m == "pass" {
            m.clone()
        } else {
            format!("play {m}")
        };
        println!(
            "proof's move: {shown} (the winning strategy of the Coq proof, Tanhinmin.v): {}",
            if r.winning_moves.is_none() {
                "not checked against the winning moves (--verdicts-only)"
            } else if moves.contains(m) {
                "a winning move"
            } else {
                "NOT a winning move"
            }
        );
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
