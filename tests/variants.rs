//! The studies beyond the headline theorem: the proof's strategy, the
//! card-count minimax with conjecture C1, and the 8-cut variant.

mod common;

use common::{run, run_args, scratch, stderr};
use runner::games::cards::{DealSpace, Deck, PerRankDealSpace};
use runner::games::tanhinmin::cut::{CutSolver, plain_cut_wins};
use runner::games::tanhinmin::position::Position;

fn config(dir: &std::path::Path, name: &str, body: &str) -> std::path::PathBuf {
    let cfg = dir.join(format!("{name}.toml"));
    std::fs::write(
        &cfg,
        format!(
            "[experiment]\nname = \"{name}\"\nstudy = \"{name}\"\nmode = \"exhaustive\"\n{body}"
        ),
    )
    .unwrap();
    cfg
}

fn cards(counts: &[u8]) -> Vec<u32> {
    let mut v = Vec::new();
    for (i, &c) in counts.iter().enumerate() {
        for _ in 0..c {
            v.push(i as u32 + 1);
        }
    }
    v
}

#[test]
fn cut_patterns_keep_the_cut_rank_and_match_per_rank_deals() {
    let deck = Deck {
        copies: vec![2, 1, 2, 2, 1, 2, 2],
    };
    for (field, cut) in [(0u32, 4u32), (2, 4), (0, 1), (5, 7)] {
        let mut solver = CutSolver::new(cut, 1 << 20);
        let boundaries = [field as usize, cut as usize - 1, cut as usize];
        let patterns = DealSpace::with_boundaries(&deck, 3, 3, &boundaries).unwrap();
        let (mut deals, mut wins) = (0u128, 0u128);
        patterns.for_each_in_range(0, patterns.len(), |d| {
            let p = Position {
                mover: d.first,
                other: d.second,
                ranks: 7,
                field: field as usize,
            };
            deals += d.weight;
            if solver.mover_wins(&p) {
                wins += d.weight;
            }
        });
        let per_rank = PerRankDealSpace::new(&deck, 3, 3).unwrap();
        let (mut deals2, mut wins2) = (0u128, 0u128);
        per_rank.for_each_in_range(0, per_rank.len(), |d| {
            deals2 += d.weight;
            if plain_cut_wins(&cards(&d.first[..7]), &cards(&d.second[..7]), field, cut) {
                wins2 += d.weight;
            }
        });
        assert_eq!((deals, wins), (deals2, wins2), "field {field} cut {cut}");
    }
}

#[test]
fn strategy_holds_and_a_wrong_strategy_is_caught() {
    let dir = scratch("strategy");
    let cfg = config(
        &dir,
        "strategy",
        "[hands]\nsizes = [[1, 1], [3, 3], [4, 2]]\nfield = 0\n",
    );
    let out = dir.join("ok");
    let o = run(&run_args(&cfg, &out, &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stats = std::fs::read_to_string(out.join("stats.csv")).unwrap();
    let row: Vec<&str> = stats.lines().nth(2).unwrap().split(',').collect();
    assert_eq!(&row[..3], &["3", "3", "0"]);
    assert!(
        row[10].parse::<u64>().unwrap() > 100,
        "win positions checked"
    );
    assert_eq!(row[11], "0");
    assert_eq!(row[14], "0");
    let bad = dir.join("bad");
    let o = run(&run_args(&cfg, &bad, &["--inject-fault"]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let failures = std::fs::read_to_string(bad.join("strategy_failures.csv")).unwrap();
    assert!(failures.lines().count() > 1);
    assert!(failures.contains("winning-move"));
}

#[test]
fn c1_holds_on_small_cells_and_a_wrong_conjecture_is_caught() {
    let dir = scratch("score");
    let cfg = config(
        &dir,
        "score",
        "[hands]\nsizes = [[2, 2], [3, 4]]\nfield = 3\n",
    );
    let out = dir.join("ok");
    let o = run(&run_args(&cfg, &out, &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let dist = std::fs::read_to_string(out.join("score.csv")).unwrap();
    // Scores run from -|X| to |Y|, never 0.
    let scores: Vec<i32> = dist
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("3,4,"))
        .map(|l| l.split(',').nth(3).unwrap().parse().unwrap())
        .collect();
    assert!(scores.iter().all(|&s| s != 0 && (-3..=4).contains(&s)));
    assert!(scores.contains(&4) && scores.contains(&-1));
    let bad = dir.join("bad");
    let o = run(&run_args(&cfg, &bad, &["--inject-fault"]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let fails = std::fs::read_to_string(bad.join("c1_failures.csv")).unwrap();
    assert!(fails.lines().count() > 1);
}

#[test]
fn cut_variant_reports_where_the_plain_formula_fails() {
    let dir = scratch("cut");
    let cfg = config(
        &dir,
        "cut",
        "[cut]\nrank = 6\n[hands]\nsizes = [[1, 1], [2, 2]]\n",
    );
    let out = dir.join("out");
    let o = run(&run_args(&cfg, &out, &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let fails = std::fs::read_to_string(out.join("formula_failures.csv")).unwrap();
    let first = fails.lines().nth(1).expect("the formula fails at 2x2");
    assert!(first.starts_with("2,2,0,"), "{first}");
    // Every listed failure involves the cut rank: it is the only difference.
    for line in fails.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert!(
            f[3].split(' ').chain(f[4].split(' ')).any(|c| c == "6"),
            "{line}"
        );
    }
    let missing = config(&dir, "cut", "[hands]\nsizes = [[1, 1]]\n");
    let o = run(&run_args(&missing, &dir.join("x"), &[]));
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("[cut] rank"), "{}", stderr(&o));
}

/// The card-count study solves one root per canonical root of the plain
/// game, by two threshold searches around C1's value. Merging a run of one
/// owner's ranks changes no card count, so the value and C1's prediction
/// are the same on every pattern of a root: the tables by roots and
/// threshold searches must equal the tables by patterns and the full-value
/// minimax, with C1 and with a deliberately wrong conjecture (where every
/// window it picks is wrong somewhere and the full search takes over).
#[test]
fn card_count_by_roots_and_thresholds_equals_patterns_and_full_minimax() {
    use runner::engine::{self, Outcome, RunOptions, progress};
    use runner::studies::deal_study::DealSource;
    use runner::studies::score::{ScoreCounts, ScoreStudy};
    use runner::study::{BuildContext, Study};
    use std::sync::atomic::AtomicBool;
    let whole = |study: &ScoreStudy| -> Vec<ScoreCounts> {
        let opts = RunOptions {
            threads: 2,
            progress: progress::Mode::Quiet,
        };
        let plan = engine::Plan::new(study);
        match engine::run(
            study,
            &plan,
            engine::Shard::WHOLE,
            &opts,
            None,
            &AtomicBool::new(false),
        )
        .unwrap()
        {
            Outcome::Complete(cells) => cells.into_iter().map(|c| c.counts).collect(),
            Outcome::Interrupted { .. } => panic!("interrupted"),
        }
    };
    for inject_fault in [false, true] {
        for (deck, sizes, field) in [
            ("ranks = 13\ncopies = 4", "[[4, 4], [5, 3]]", 0),
            ("ranks = 13\ncopies = 4", "[[4, 4], [2, 5]]", 6),
            ("ranks = 8\ncopies = 2", "[[4, 4]]", 2),
        ] {
            let text = format!(
                "[experiment]\nname = \"s\"\nstudy = \"score\"\nmode = \"exhaustive\"\n[deck]\n{deck}\n[hands]\nsizes = {sizes}\nfield = {field}\n[solver]\nmemo_mb = 64\n"
            );
            let cfg = runner::studies::parse_config(&text, "test").unwrap();
            let ctx = BuildContext {
                threads: 2,
                inject_fault,
                progress: progress::Mode::Quiet,
            };
            let by_root = ScoreStudy::build(&cfg, &ctx).unwrap();
            let mut by_pattern = ScoreStudy::build(&cfg, &ctx).unwrap();
            by_pattern.source = DealSource::new(&cfg);
            // The plain twin: every pattern, by the full-value minimax.
            by_pattern.by_threshold = false;
            for (r, p) in whole(&by_root).iter().zip(&whole(&by_pattern)) {
                let case = format!("{deck} {sizes} field {field} fault {inject_fault}");
                assert_eq!(
                    (r.deals, r.first_wins, r.c1_agree, r.c1_disagree),
                    (p.deals, p.first_wins, p.c1_agree, p.c1_disagree),
                    "{case}"
                );
                assert_eq!(r.scores, p.scores, "{case}");
                if inject_fault {
                    assert!(r.c1_disagree > 0, "{case}: the wrong conjecture is caught");
                }
            }
        }
    }
}
