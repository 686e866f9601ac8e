//! The studies beyond the headline theorem: the proof's strategy, the
//! card-count minimax with conjecture C1, and the rule variants (8-cut,
//! 11-back, both).

mod common;

use common::{run, run_args, scratch, stderr};
use runner::games::cards::{DealSpace, Deck, PerRankDealSpace};
use runner::games::tanhinmin::formula::{broken_claim, mu_pair_counts, theorem};
use runner::games::tanhinmin::position::Position;
use runner::games::tanhinmin::reference::plain_mover_wins;
use runner::games::tanhinmin::variant::{Rules, VariantSolver, plain_variant_wins};

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
        let rules = Rules {
            cut: Some(cut),
            back: None,
        };
        let mut solver = VariantSolver::new(rules, 1 << 20, 1 << 20);
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
            if plain_variant_wins(
                &cards(&d.first[..7]),
                &cards(&d.second[..7]),
                field,
                false,
                rules,
            ) {
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

/// `[solver] score_method` chooses how each deal's value is proved, never
/// what it is: the dropped-cards lemma's plain searches (the default), the
/// card-count game's threshold searches, and the full-value minimax write
/// byte-identical tables on the same sampled deals.
#[test]
fn every_score_method_writes_the_same_tables() {
    let dir = scratch("score-methods");
    let mut tables = Vec::new();
    for method in [None, Some("threshold"), Some("full-value")] {
        let solver = method.map_or(String::new(), |m| {
            format!("[solver]\nscore_method = \"{m}\"\n")
        });
        let name = method.unwrap_or("default");
        let cfg = dir.join(format!("{name}.toml"));
        std::fs::write(
            &cfg,
            format!(
                "[experiment]\nname = \"{name}\"\nstudy = \"score\"\nmode = \"sample\"\nseed = 5\ndeals = 300\n[hands]\nsizes = [[7, 7], [4, 8]]\n{solver}"
            ),
        )
        .unwrap();
        let out = dir.join(name);
        let o = run(&run_args(&cfg, &out, &[]));
        assert_eq!(o.status.code(), Some(0), "{name}: {}", stderr(&o));
        let read = |f: &str| std::fs::read(out.join(f)).unwrap();
        tables.push(["stats.csv", "score.csv", "c1_failures.csv"].map(read));
    }
    assert!(tables[0][1].len() > 100, "a score distribution was written");
    assert_eq!(tables[0], tables[1], "threshold searches");
    assert_eq!(tables[0], tables[2], "full-value minimax");
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
/// game, by two searches around C1's value: plain searches on the hands the
/// dropped-cards lemma names (the default), or the card-count game's own
/// threshold searches. Merging a run of one owner's ranks changes no card
/// count, so the value and C1's prediction are the same on every pattern of
/// a root: the tables by roots and either method must equal the tables by
/// patterns and the full-value minimax, with C1 and with a deliberately
/// wrong conjecture (where every window it picks is wrong somewhere and the
/// full search takes over).
#[test]
fn card_count_by_roots_and_thresholds_equals_patterns_and_full_minimax() {
    use runner::engine::progress;
    use runner::studies::deal_study::DealSource;
    use runner::studies::score::{ScoreCounts, ScoreMethod, ScoreStudy};
    use runner::study::{BuildContext, Study};
    let whole = |study: &ScoreStudy| -> Vec<ScoreCounts> {
        common::run_whole(study, 2)
            .into_iter()
            .map(|c| c.counts)
            .collect()
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
                stop: Default::default(),
                timing_sample: false,
            };
            // The fast path: one root per class, by the dropped-cards
            // lemma's plain searches.
            let by_root = ScoreStudy::build(&cfg, &ctx).unwrap();
            assert_eq!(by_root.method, ScoreMethod::DroppedCards);
            // The same roots by the card-count game's own threshold
            // searches, which know nothing of the lemma.
            let mut by_threshold = ScoreStudy::build(&cfg, &ctx).unwrap();
            by_threshold.method = ScoreMethod::Threshold;
            // The plain twin: every pattern, by the full-value minimax.
            let mut by_pattern = ScoreStudy::build(&cfg, &ctx).unwrap();
            by_pattern.source = DealSource::new(&cfg);
            by_pattern.method = ScoreMethod::FullValue;
            let twins = [whole(&by_threshold), whole(&by_pattern)];
            for (k, r) in whole(&by_root).iter().enumerate() {
                let case = format!("{deck} {sizes} field {field} fault {inject_fault}");
                for p in twins.iter().map(|t| &t[k]) {
                    assert_eq!(
                        (r.deals, r.first_wins, r.c1_agree, r.c1_disagree),
                        (p.deals, p.first_wins, p.c1_agree, p.c1_disagree),
                        "{case}"
                    );
                    assert_eq!(r.scores, p.scores, "{case}");
                }
                if inject_fault {
                    assert!(r.c1_disagree > 0, "{case}: the wrong conjecture is caught");
                }
            }
        }
    }
}

/// Every sorted hand of strengths 1..=max with at most two of each and at
/// most `n` cards.
fn hands(max: u32, n: usize) -> Vec<Vec<u32>> {
    let mut out = vec![vec![]];
    for s in 1..=max {
        let mut next = Vec::new();
        for h in &out {
            for k in 0..=2 {
                if h.len() + k <= n {
                    let mut h2 = h.clone();
                    h2.extend(std::iter::repeat_n(s, k));
                    next.push(h2);
                }
            }
        }
        out = next;
    }
    out.into_iter().filter(|h| !h.is_empty()).collect()
}

/// Which of the mover's cards an upgrade may touch.
#[derive(Clone, Copy, PartialEq)]
enum Upgrade {
    /// Any card, to the next strength.
    Any,
    /// A card of neither special rank, to the next strength that is not
    /// special either (the upgrade the 8-cut solver relies on).
    PlainToPlain,
    /// As `PlainToPlain`, for a card above the back rank only, in the
    /// states a game reaches: a reversed trick starts at the back rank, so
    /// its field card is never above it (the upgrade the 11-back solver
    /// relies on).
    AboveBack,
}

/// The smallest position (fewest cards) where upgrading one of the mover's
/// cards turns a win into a loss, on hands of strengths 1..=6, two copies
/// each, at most three cards a hand, any field and either order (reversed
/// only on a field card, and only where a back rule can reverse it).
fn smallest_upgrade_that_hurts(rules: Rules, kind: Upgrade) -> Option<(Vec<u32>, Vec<u32>, u32)> {
    let special = |c: u32| Some(c) == rules.cut || Some(c) == rules.back;
    smallest_position(|x, y| {
        for (r, reversed) in (0..=6u32).flat_map(|r| [(r, false), (r, true)]) {
            let unreachable = kind == Upgrade::AboveBack && rules.back.is_some_and(|b| r > b);
            if (reversed && (r == 0 || rules.back.is_none() || unreachable))
                || !plain_variant_wins(x, y, r, reversed, rules)
            {
                continue;
            }
            let hurt = (0..x.len()).any(|i| {
                let to = match kind {
                    Upgrade::Any => x[i] + 1,
                    Upgrade::AboveBack if rules.back.is_some_and(|b| x[i] <= b) => {
                        return false;
                    }
                    Upgrade::PlainToPlain | Upgrade::AboveBack if special(x[i]) => {
                        return false;
                    }
                    Upgrade::PlainToPlain | Upgrade::AboveBack => {
                        (x[i] + 1..=6).find(|&c| !special(c)).unwrap_or(7)
                    }
                };
                let mut up = x.to_vec();
                up[i] = to;
                up.sort();
                to <= 6
                    && up.iter().filter(|&&c| c == to).count() <= 2
                    && !plain_variant_wins(&up, y, r, reversed, rules)
            });
            if hurt {
                return Some(r);
            }
        }
        None
    })
}

/// The position with the fewest cards, on hands of strengths 1..=6 (two
/// copies each, at most three cards a hand), for which `field_where`
/// names a field; with that field.
fn smallest_position(
    field_where: impl Fn(&[u32], &[u32]) -> Option<u32>,
) -> Option<(Vec<u32>, Vec<u32>, u32)> {
    let all = hands(6, 3);
    let mut best: Option<(Vec<u32>, Vec<u32>, u32)> = None;
    for x in &all {
        for y in &all {
            if best
                .as_ref()
                .is_some_and(|(bx, by, _)| bx.len() + by.len() <= x.len() + y.len())
            {
                continue;
            }
            if let Some(r) = field_where(x, y) {
                best = Some((x.clone(), y.clone(), r));
            }
        }
    }
    best
}

/// The plain solver prunes with "a card upgraded never hurts its holder"
/// (its move classes and its refutation bound). The variant solver keeps
/// that pruning under 8-cut for plain cards only, and switches it off
/// under 11-back, because the copy argument survives only there: with the
/// cut, a plain card upgraded to a stronger plain card is playable
/// wherever the weaker one was and leaves the opponent fewer replies, but a
/// cut card upgraded loses its rule; reversed, a stronger card is playable
/// in fewer places. Checked here on the plain recursion of each variant:
/// no plain-to-plain upgrade hurts under 8-cut, nor under 11-back for cards
/// above the back rank (nor any upgrade in the plain game, so the search
/// can come up empty), and the smallest positions
/// where the switched-off upgrades would have given a wrong answer.
#[test]
fn the_upgrade_pruning_holds_where_the_solver_uses_it_and_fails_where_it_is_off() {
    assert_eq!(
        smallest_upgrade_that_hurts(Rules::PLAIN, Upgrade::Any),
        None
    );
    let cut = |c| Rules {
        cut: Some(c),
        back: None,
    };
    for c in 1..=6 {
        assert_eq!(
            smallest_upgrade_that_hurts(cut(c), Upgrade::PlainToPlain),
            None,
            "8-cut at {c}: a plain card upgraded never hurts"
        );
    }
    // Under 11-back (with or without a cut), cards above the back rank are
    // never played in a reversed trick, so upgrading them never hurts.
    for b in 1..=5 {
        for c in [None, Some(1), Some(b + 1), Some(6)]
            .into_iter()
            .filter(|&c| c != Some(b))
        {
            let rules = Rules {
                cut: c,
                back: Some(b),
            };
            assert_eq!(
                smallest_upgrade_that_hurts(rules, Upgrade::AboveBack),
                None,
                "{rules:?}: a plain card above the back rank upgraded never hurts"
            );
        }
    }
    for (rules, kind) in [
        (cut(3), Upgrade::Any),
        (
            Rules {
                cut: None,
                back: Some(3),
            },
            Upgrade::PlainToPlain,
        ),
        (
            Rules {
                cut: Some(3),
                back: Some(5),
            },
            Upgrade::PlainToPlain,
        ),
    ] {
        let (x, y, r) = smallest_upgrade_that_hurts(rules, kind)
            .unwrap_or_else(|| panic!("{rules:?}: no upgrade hurts"));
        eprintln!(
            "{}: upgrading a card of X = {x:?} against Y = {y:?} on field {r} loses",
            rules.name()
        );
        assert!(x.len() + y.len() <= 4, "{rules:?}: {x:?} {y:?}");
    }
}

/// The 8-cut solver's pruning is what a broken copy argument would break:
/// the same solver with the pruning forced on under 11-back gives a wrong
/// verdict somewhere in a small range, so the twin tests can catch it.
#[test]
fn the_pruning_forced_on_under_back_is_caught_by_the_plain_twin() {
    let rules = Rules {
        cut: None,
        back: Some(3),
    };
    let (x, y) = first_wrong_verdict(rules, |s| s.with_upgrade_pruning_forced())
        .expect("forcing the pruning under 11-back gives a wrong verdict");
    eprintln!("11-back, pruning forced on: wrong verdict for X = {x:?} against Y = {y:?}");
}

/// The first pair of hands of strengths 1..=5 (two copies each, at most
/// three cards a hand), on an empty field, where the variant solver as
/// `change` makes it disagrees with the plain recursion of `rules`.
fn first_wrong_verdict(
    rules: Rules,
    change: impl Fn(VariantSolver) -> VariantSolver,
) -> Option<(Vec<u32>, Vec<u32>)> {
    let all = hands(5, 3);
    all.iter()
        .flat_map(|x| all.iter().map(move |y| (x, y)))
        .find(|(x, y)| {
            let p = Position::from_cards(x, y, 0);
            let mut solver = change(VariantSolver::new(rules, 1 << 16, 1 << 16));
            solver.mover_wins(&p) != plain_variant_wins(x, y, 0, false, rules)
        })
        .map(|(x, y)| (x.clone(), y.clone()))
}

/// The first position (fewest cards) on hands of strengths 1..=6, two
/// copies each, at most three cards a hand, any field in normal order,
/// where a plain game given by `bound` does not bound the variant as
/// `upper` says: with `upper`, the variant won but the plain game lost;
/// otherwise the plain game won but the variant lost. `bound` maps the
/// two hands to the plain game's, or `None` where it claims nothing.
fn first_broken_bound(
    rules: Rules,
    upper: bool,
    bound: impl Fn(&[u32], &[u32]) -> Option<(Vec<u32>, Vec<u32>)>,
) -> Option<(Vec<u32>, Vec<u32>, u32)> {
    smallest_position(|x, y| {
        let (px, py) = bound(x, y)?;
        (0..=6u32).find(|&r| {
            let variant = plain_variant_wins(x, y, r, false, rules);
            let plain = plain_mover_wins(&px, &py, r);
            if upper {
                variant && !plain
            } else {
                plain && !variant
            }
        })
    })
}

/// `hand` with its cards of the strengths in `special` moved to strength
/// 7, above every card of [`hands`]`(6, _)`: a card nothing beats.
fn unbeatable(hand: &[u32], special: &[u32]) -> Vec<u32> {
    let mut h: Vec<u32> = hand
        .iter()
        .map(|&c| if special.contains(&c) { 7 } else { c })
        .collect();
    h.sort();
    h
}

/// The two facts behind the variant solver's plain bounds, checked on the
/// plain recursion of each rule set: a cut or back card is never better
/// for its holder than a card nothing beats, and a cut card never worse
/// than a plain card of its rank. So, the rival holding no back card, the
/// plain game with the mover's special cards unbeatable is at least as
/// good for the mover (a variant win is a plain win there), and, the mover
/// holding no back card, the plain game with the rival's special cards
/// unbeatable at most as good. Without its condition the first bound
/// fails: a back card of the rival's, left plain, is not the rival's
/// worst case.
#[test]
fn the_plain_games_bound_the_variants_where_the_solver_uses_them() {
    let rule_sets = [
        (Some(3), None),
        (None, Some(3)),
        (Some(2), Some(4)),
        (Some(4), Some(2)),
    ];
    for (cut, back) in rule_sets {
        let rules = Rules { cut, back };
        let special: Vec<u32> = cut.into_iter().chain(back).collect();
        let holds_back = |h: &[u32]| back.is_some_and(|b| h.contains(&b));
        let upper = first_broken_bound(rules, true, |x, y| {
            (!holds_back(y)).then(|| (unbeatable(x, &special), y.to_vec()))
        });
        assert_eq!(
            upper, None,
            "{rules:?}: the mover's special cards made unbeatable"
        );
        let lower = first_broken_bound(rules, false, |x, y| {
            (!holds_back(x)).then(|| (x.to_vec(), unbeatable(y, &special)))
        });
        assert_eq!(
            lower, None,
            "{rules:?}: the rival's special cards made unbeatable"
        );
    }
    let rules = Rules {
        cut: None,
        back: Some(3),
    };
    let (x, y, r) = first_broken_bound(rules, true, |x, y| Some((unbeatable(x, &[3]), y.to_vec())))
        .expect("a back card of the rival's left plain breaks the upper bound");
    eprintln!(
        "11-back on 3: X = {x:?} wins against Y = {y:?} on field {r}, but loses the plain game with its back cards unbeatable"
    );
    assert!(x.len() + y.len() <= 4, "{x:?} {y:?}");
}

/// A back card is never better for its holder than a card nothing beats,
/// whatever the rival holds: the copy argument leaves the rival's cards,
/// back cards included, as they are. So even where both players hold a
/// back card, the variant with the mover's back cards made unbeatable is
/// at least as good for the mover, and with the rival's at most as good.
/// (The solver does not use these bounds: the bound games, with back cards
/// on one side, cost more than they settle; BENCHMARKS.md, "Seven more
/// things that did not help".) Checked on the plain recursion, every field
/// in normal order; the reverse claim (never worse) fails, so the check
/// can tell the two apart.
#[test]
fn a_back_card_is_never_better_than_an_unbeatable_card_whatever_the_rival_holds() {
    for (cut, back) in [(None, 3), (Some(2), 4), (Some(4), 2)] {
        let rules = Rules {
            cut,
            back: Some(back),
        };
        let wins = |x: &[u32], y: &[u32], r: u32| plain_variant_wins(x, y, r, false, rules);
        let both_hold = |x: &[u32], y: &[u32]| x.contains(&back) && y.contains(&back);
        let fields = |x: &[u32], y: &[u32], claim_fails: &dyn Fn(u32) -> bool| {
            both_hold(x, y).then(|| (0..=6u32).find(|&r| claim_fails(r)))?
        };
        let upper = smallest_position(|x, y| {
            let ux = unbeatable(x, &[back]);
            fields(x, y, &|r| wins(x, y, r) && !wins(&ux, y, r))
        });
        assert_eq!(upper, None, "{rules:?}: the mover's back cards unbeatable");
        let lower = smallest_position(|x, y| {
            let uy = unbeatable(y, &[back]);
            fields(x, y, &|r| wins(x, &uy, r) && !wins(x, y, r))
        });
        assert_eq!(lower, None, "{rules:?}: the rival's back cards unbeatable");
        let never_worse = smallest_position(|x, y| {
            let ux = unbeatable(x, &[back]);
            fields(x, y, &|r| wins(&ux, y, r) && !wins(x, y, r))
        });
        let (x, y, r) = never_worse.expect("an unbeatable card is sometimes better");
        eprintln!(
            "{rules:?}: X = {x:?} against Y = {y:?} on field {r} loses, and wins with its back cards unbeatable"
        );
    }
}

/// A back card is never better for its holder than a cut card of its
/// rank: both are played on the same fields, and after the cut the holder
/// leads again, which after the back card is one of the rival's choices
/// (the pass). So where one side holds every back card, the 8-cut game
/// with those cards as cut cards bounds the 11-back position. (Not used
/// by the solver: it settles no more than the plain bounds; BENCHMARKS.md,
/// "Seven more things that did not help".) Checked on the plain recursion,
/// every field in normal order; the reverse claim fails.
#[test]
fn a_back_card_is_never_better_than_a_cut_card_of_its_rank() {
    let back = 3;
    let as_back = Rules {
        cut: None,
        back: Some(back),
    };
    let as_cut = Rules {
        cut: Some(back),
        back: None,
    };
    let wins =
        |rules: Rules, x: &[u32], y: &[u32], r: u32| plain_variant_wins(x, y, r, false, rules);
    let only = |a: &[u32], b: &[u32]| a.contains(&back) && !b.contains(&back);
    let upper = smallest_position(|x, y| {
        only(x, y)
            .then(|| (0..=6u32).find(|&r| wins(as_back, x, y, r) && !wins(as_cut, x, y, r)))?
    });
    assert_eq!(upper, None, "the mover's back cards as cut cards");
    let lower = smallest_position(|x, y| {
        only(y, x)
            .then(|| (0..=6u32).find(|&r| wins(as_cut, x, y, r) && !wins(as_back, x, y, r)))?
    });
    assert_eq!(lower, None, "the rival's back cards as cut cards");
    let (x, y, r) = smallest_position(|x, y| {
        only(x, y)
            .then(|| (0..=6u32).find(|&r| wins(as_cut, x, y, r) && !wins(as_back, x, y, r)))?
    })
    .expect("a cut card is sometimes better than a back card");
    eprintln!(
        "X = {x:?} against Y = {y:?} on field {r} wins with cut cards, loses with back cards"
    );
}

/// The variant solver settles many positions by two plain games that
/// bound this one (the mover's special cards unbeatable, or the rival's).
/// The same solver with those bounds broken (the special cards left plain,
/// so both bounds are the plain game) gives a wrong verdict in a small
/// range, so the twin tests can catch a broken bound; the sound solver is
/// right there.
#[test]
fn broken_plain_bounds_are_caught_by_the_plain_twin() {
    for rules in [
        Rules {
            cut: Some(3),
            back: None,
        },
        Rules {
            cut: None,
            back: Some(3),
        },
    ] {
        let wrong = first_wrong_verdict(rules, |s| s.with_plain_bounds_broken());
        let (x, y) = wrong.expect("broken bounds give a wrong verdict");
        eprintln!(
            "{}, bounds broken: wrong verdict for X = {x:?} against Y = {y:?}",
            rules.name()
        );
        let p = Position::from_cards(&x, &y, 0);
        assert_eq!(
            VariantSolver::new(rules, 1 << 16, 1 << 16).mover_wins(&p),
            plain_variant_wins(&x, &y, 0, false, rules)
        );
    }
}

/// Study `variant` end to end: the tables add up, `mu.csv` splits the
/// cell's deals by (μ0, μ1), and the exhaustive 8-cut run of study
/// `variant` writes the very `stats.csv` and `mu.csv` of study `cut`, and
/// a failing deal for each root among `cut`'s failing patterns.
#[test]
fn variant_study_writes_consistent_tables_and_equals_the_cut_study() {
    let dir = scratch("variant");
    let body = "[hands]\nsizes = [[2, 2], [3, 3]]\n";
    let cut = config(&dir, "cut", &format!("[cut]\nrank = 6\n{body}"));
    let variant = config(&dir, "variant", &format!("[rules]\ncut = 6\n{body}"));
    let (a, b) = (dir.join("a"), dir.join("b"));
    for (cfg, out) in [(&cut, &a), (&variant, &b)] {
        let o = run(&run_args(cfg, out, &[]));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    for f in ["stats.csv", "mu.csv"] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f}"
        );
    }
    // Study `variant` lists one deal per root, study `cut` every pattern.
    let by_pattern = std::fs::read_to_string(a.join("formula_failures.csv")).unwrap();
    let by_root = std::fs::read_to_string(b.join("formula_failures.csv")).unwrap();
    let patterns: std::collections::HashSet<&str> = by_pattern.lines().collect();
    assert!(by_root.lines().count() > 1);
    assert!(by_root.lines().count() < by_pattern.lines().count());
    for row in by_root.lines() {
        assert!(patterns.contains(row), "{row}");
    }
    let back = config(&dir, "variant", &format!("[rules]\nback = 9\n{body}"));
    let c = dir.join("c");
    let o = run(&run_args(&back, &c, &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stats = std::fs::read_to_string(c.join("stats.csv")).unwrap();
    let mu = std::fs::read_to_string(c.join("mu.csv")).unwrap();
    for row in stats.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let (deals, wins): (u128, u128) = (f[3].parse().unwrap(), f[4].parse().unwrap());
        let (mut d2, mut w2) = (0u128, 0u128);
        for m in mu
            .lines()
            .skip(1)
            .filter(|m| m.starts_with(&format!("{},{},", f[0], f[1])))
        {
            let g: Vec<&str> = m.split(',').collect();
            d2 += g[5].parse::<u128>().unwrap();
            w2 += g[6].parse::<u128>().unwrap();
        }
        assert_eq!((deals, wins), (d2, w2), "{row}");
    }
    // The back rule changes winners at 2x2 already, and the summary says so.
    assert!(!stats.lines().nth(1).unwrap().ends_with(",0"), "{stats}");
    // The summary gives the μ test's hit rate, exact here: the fraction
    // of the table's formula_agree over its deals, each cell's. Beside the
    // variant's rate it gives the plain game's on the same deals, which is
    // the plain study's first_wins.
    let said = String::from_utf8_lossy(&o.stdout);
    let plain_out = dir.join("plain");
    let plain = config(&dir, "tanhinmin", body);
    let p = run(&run_args(&plain, &plain_out, &[]));
    assert_eq!(p.status.code(), Some(0), "{}", stderr(&p));
    let plain_stats = std::fs::read_to_string(plain_out.join("stats.csv")).unwrap();
    let fraction_after = |line: &str, head: &str| -> (u128, u128) {
        let at = line
            .find(head)
            .unwrap_or_else(|| panic!("no {head:?} in {line}"));
        let token = line[at + head.len()..].split([' ', ')']).next().unwrap();
        let (p, q) = token.split_once('/').unwrap();
        (p.parse().unwrap(), q.parse().unwrap())
    };
    for row in stats.lines().skip(1) {
        let f: Vec<&str> = row.split(',').collect();
        let (deals, agree): (u128, u128) = (f[3].parse().unwrap(), f[9].parse().unwrap());
        let line = said
            .lines()
            .find(|l| l.starts_with(&format!("{}x{} ", f[0], f[1])))
            .unwrap_or_else(|| panic!("no summary line for {row}: {said}"));
        let (p, q) = fraction_after(line, &format!("predicts {agree} of {deals} deals ("));
        assert_eq!(p * deals, q * agree, "{line}");
        assert!(p <= q, "a rate above 1: {line}");
        let plain_row = plain_stats
            .lines()
            .find(|r| r.starts_with(&format!("{},{},", f[0], f[1])))
            .unwrap_or_else(|| panic!("no plain row for {row}: {plain_stats}"));
        let g: Vec<&str> = plain_row.split(',').collect();
        let (plain_deals, plain_wins): (u128, u128) =
            (g[3].parse().unwrap(), g[4].parse().unwrap());
        assert_eq!(plain_deals, deals, "{plain_row}");
        let (p, q) = fraction_after(line, "(plain game on the same deals: ");
        assert_eq!(p * deals, q * plain_wins, "{line} against {plain_row}");
    }
    // The plain minimax behind winner_changed is checked against the
    // theorem on every deal, and a wrong claim is caught.
    let all: u128 = stats
        .lines()
        .skip(1)
        .map(|r| r.split(',').nth(3).unwrap().parse::<u128>().unwrap())
        .sum();
    let agrees = format!(
        "the plain game's minimax agrees with its proved μ test on all {all} deals checked\n"
    );
    assert!(said.ends_with(&agrees), "{said}");
    let o = run(&run_args(&back, &dir.join("c-fault"), &["--inject-fault"]));
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("the plain game's minimax and its proved μ test disagree on "),
        "{said}"
    );
    // The failing deals are named, a few per cell, each one that the
    // broken claim gets wrong and the plain game's reference search and
    // the theorem agree on.
    let hand = |line: &str, head: &str| -> Vec<u32> {
        let at = line
            .find(head)
            .unwrap_or_else(|| panic!("{head:?} in {line}"))
            + head.len();
        let end = at + line[at..].find(']').unwrap();
        line[at..end]
            .split(' ')
            .map(|c| c.parse().unwrap())
            .collect()
    };
    let named: Vec<&str> = said
        .lines()
        .filter(|l| l.starts_with("plain-theorem failure: "))
        .collect();
    for cell in ["2x2", "3x3"] {
        let n = named
            .iter()
            .filter(|l| l.contains(&format!(": {cell}, ")))
            .count();
        assert!((1..=5).contains(&n), "{n} named in {cell}: {said}");
    }
    for line in named {
        let (x, y) = (hand(line, "first hand ["), hand(line, "second hand ["));
        let wins = plain_mover_wins(&x, &y, 0);
        let said_first = line.contains("the plain minimax says first wins");
        assert_eq!(said_first, wins, "{line}");
        let top = x.iter().chain(&y).copied().max().unwrap() as usize;
        let counts = |h: &[u32]| -> Vec<u8> {
            let mut c = vec![0u8; top];
            h.iter().for_each(|&k| c[k as usize - 1] += 1);
            c
        };
        let (mu0, mu1) = mu_pair_counts(&counts(&x), &counts(&y), 0);
        assert!(line.ends_with(&format!("μ0 = {mu0}, μ1 = {mu1}")), "{line}");
        assert_eq!(theorem(mu0, mu1), wins, "{line}");
        assert_ne!(broken_claim(mu0, mu1), wins, "{line}");
    }
}

/// Study `cut` is a configuration of the variant engine, and still writes
/// the tables it always wrote: `configs/cut.toml` rerun gives the committed
/// `results/cut` byte for byte, its failures listed by pattern.
#[test]
fn the_cut_study_reproduces_its_committed_tables() {
    let dir = scratch("cut-committed");
    let o = run(&run_args(
        std::path::Path::new("configs/cut.toml"),
        &dir.join("out"),
        &[],
    ));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for f in ["stats.csv", "mu.csv", "formula_failures.csv"] {
        assert_eq!(
            std::fs::read_to_string(dir.join("out").join(f)).unwrap(),
            std::fs::read_to_string(std::path::Path::new("results/cut").join(f)).unwrap(),
            "{f}"
        );
    }
}

/// Study `variant` solves one deal per root (runs merged as the variant
/// key merges them, each special rank a segment of its own), weighted by
/// all its patterns. Its plain twin is the pattern enumeration: the same
/// deals, wins, hits, changed winners and μ table per cell, under each
/// rule set, on several decks, fields and unequal hands, with every failing
/// root a failing pattern. Roots of the plain game, which merge a special
/// rank into its neighbours, give other tables: the comparison can fail.
#[test]
fn variant_roots_give_the_same_tables_as_patterns() {
    use runner::engine::progress;
    use runner::games::tanhinmin::formula::mu_pair_counts;
    use runner::studies::deal_study::DealSource;
    use runner::studies::variant::{VariantCounts, VariantStudy};
    use runner::study::{BuildContext, Study};
    let whole = |study: &VariantStudy| common::run_whole(study, 2);
    let tables = |c: &VariantCounts| {
        (
            c.deals,
            c.first_wins,
            c.formula_agree,
            c.formula_disagree,
            c.winner_changed,
        )
    };
    let mut plain_roots_differ = false;
    for (deck, sizes, field, rules) in [
        ("ranks = 13\ncopies = 4", "[[4, 4], [5, 3]]", 0, "cut = 6"),
        ("ranks = 13\ncopies = 4", "[[4, 4], [3, 5]]", 0, "back = 9"),
        ("ranks = 13\ncopies = 4", "[[4, 4]]", 0, "cut = 6\nback = 9"),
        (
            "ranks = 13\ncopies = 4",
            "[[4, 4], [2, 5]]",
            7,
            "cut = 6\nback = 9",
        ),
        ("ranks = 13\ncopies = 4", "[[3, 3]]", 9, "back = 9"),
        ("ranks = 9\ncopies = 3", "[[4, 4]]", 2, "cut = 3\nback = 5"),
        ("ranks = 8\ncopies = 2", "[[4, 4]]", 1, "cut = 8\nback = 1"),
    ] {
        let text = format!(
            "[experiment]\nname = \"v\"\nstudy = \"variant\"\nmode = \"exhaustive\"\n[deck]\n{deck}\n[hands]\nsizes = {sizes}\nfield = {field}\n[rules]\n{rules}\n[solver]\nmemo_mb = 64\n"
        );
        let cfg = runner::studies::parse_config(&text, "test").unwrap();
        let ctx = BuildContext {
            threads: 2,
            inject_fault: false,
            progress: progress::Mode::Quiet,
            stop: Default::default(),
            timing_sample: false,
        };
        let by_root = VariantStudy::build(&cfg, &ctx).unwrap();
        let mut by_pattern = VariantStudy::build(&cfg, &ctx).unwrap();
        let ranks = runner::studies::variant::rules_of(&cfg);
        by_pattern.source = DealSource::with_distinguished_ranks(&cfg, &ranks.special_ranks());
        let mut by_plain_root = VariantStudy::build(&cfg, &ctx).unwrap();
        by_plain_root.source = DealSource::by_root(&cfg);
        let (roots, patterns) = (whole(&by_root), whole(&by_pattern));
        for ((r, p), q) in roots.iter().zip(&patterns).zip(whole(&by_plain_root)) {
            let case = format!("{deck} {sizes} field {field} {rules}");
            assert!(r.items < p.items, "{case}: roots are fewer");
            let (r, p, q) = (&r.counts, &p.counts, &q.counts);
            assert_eq!(tables(r), tables(p), "{case}");
            assert_eq!(r.mu, p.mu, "{case}");
            // Each failure listed by root is a deal the μ test misnames.
            let failing: std::collections::HashSet<_> =
                p.failures.iter().map(|f| (&f.first, &f.second)).collect();
            let mut solver = VariantSolver::new(ranks, 1 << 20, 1 << 20);
            for f in &r.failures {
                let mut d = Position {
                    mover: [0; runner::games::cards::MAX_RANKS],
                    other: [0; runner::games::cards::MAX_RANKS],
                    ranks: f.first.len(),
                    field: field as usize,
                };
                d.mover[..d.ranks].copy_from_slice(&f.first);
                d.other[..d.ranks].copy_from_slice(&f.second);
                let (mu0, mu1) = mu_pair_counts(&f.first, &f.second, d.field);
                let variant = solver.mover_wins(&d);
                assert_eq!(variant, f.variant_first_wins, "{case}: {f:?}");
                assert_ne!(variant, mu0 > mu1, "{case}: {f:?}");
                if p.failures.len() < 1000 {
                    assert!(failing.contains(&(&f.first, &f.second)), "{case}: {f:?}");
                }
            }
            assert_eq!(r.failures.is_empty(), p.failures.is_empty(), "{case}");
            plain_roots_differ |= tables(q) != tables(p) || q.mu != p.mu;
        }
    }
    assert!(
        plain_roots_differ,
        "merging a special rank changes the tables"
    );
}

/// `count` random deals of `each` cards a hand from the 52-card deck.
fn random_deals(each: usize, count: usize, seed: u64) -> Vec<Position> {
    use runner::random::{chunk_rng, uniform_below};
    let mut rng = chunk_rng(seed, 0);
    let mut deck: Vec<usize> = (0..52).map(|c| c / 4).collect();
    (0..count)
        .map(|_| {
            for i in (1..deck.len()).rev() {
                deck.swap(i, uniform_below(&mut rng, i as u64 + 1) as usize);
            }
            let mut p = Position {
                mover: [0; runner::games::cards::MAX_RANKS],
                other: [0; runner::games::cards::MAX_RANKS],
                ranks: 13,
                field: 0,
            };
            for (k, &rank) in deck[..2 * each].iter().enumerate() {
                if k < each {
                    p.mover[rank] += 1;
                } else {
                    p.other[rank] += 1;
                }
            }
            p
        })
        .collect()
}

/// A search that gives up on a stop request stores nothing from then on:
/// the verdicts it unwinds with mean nothing, and one of them in the
/// shared memo would be a wrong answer for the next deal. Here the stop is
/// requested before each search starts and looked at every 64 positions,
/// so most searches give up; then a solver without a stop token solves the
/// same deals over the same memo (9x9 deals: every position of more than 4
/// cards is in it), and must agree with a solver whose memo saw no search
/// given up. (Storing the unwound verdicts fails this on the first deal.)
#[test]
fn a_search_given_up_on_a_stop_leaves_no_wrong_verdict_behind() {
    use runner::games::tanhinmin::memo::SharedMemo;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    // The rule sets with a back rank.
    for rules in RULE_SETS[1..].iter().copied() {
        let memo = Arc::new(SharedMemo::with_bytes(64 << 20));
        let stop = Arc::new(AtomicBool::new(true));
        let mut stopping = VariantSolver::with_shared(rules, memo.clone(), 1 << 20, 16 << 20)
            .with_stop_polled_every(stop, 64);
        let mut after = VariantSolver::with_shared(rules, memo, 1 << 20, 16 << 20);
        let mut fresh = VariantSolver::new(rules, 64 << 20, 16 << 20);
        let (mut gave_up, mut finished) = (0, 0);
        for p in random_deals(9, 100, 19) {
            match stopping.try_mover_wins(&p) {
                None => gave_up += 1,
                Some(_) => finished += 1,
            }
            assert_eq!(
                after.mover_wins(&p),
                fresh.mover_wins(&p),
                "{rules:?} {p:?}"
            );
        }
        assert!(
            gave_up > 50 && finished > 0,
            "{rules:?}: {gave_up} given up, {finished} finished"
        );
    }
}

/// The same for the card-count study's threshold searches: thresholds
/// around each deal's value, over a shared table that searches given up
/// on a stop have used.
#[test]
fn a_threshold_search_given_up_on_a_stop_leaves_no_wrong_verdict_behind() {
    use runner::games::tanhinmin::score::{ThresholdShared, ThresholdSolver, c1_value};
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;
    let shared = Arc::new(ThresholdShared::with_bytes(64 << 20));
    let stop = Arc::new(AtomicBool::new(true));
    let mut stopping =
        ThresholdSolver::new(shared.clone(), 1 << 20, 16 << 20).with_stop_polled_every(stop, 64);
    let mut after = ThresholdSolver::new(shared, 1 << 20, 16 << 20);
    let mut fresh = ThresholdSolver::new(
        Arc::new(ThresholdShared::with_bytes(64 << 20)),
        1 << 20,
        16 << 20,
    );
    let (mut gave_up, mut finished) = (0, 0);
    for p in random_deals(9, 60, 23) {
        let c1 = c1_value(&cards(&p.mover[..13]), &cards(&p.other[..13]), 0);
        for v in c1 - 1..=c1 + 2 {
            match stopping.try_reaches(&p, v) {
                None => gave_up += 1,
                Some(_) => finished += 1,
            }
            assert_eq!(after.reaches(&p, v), fresh.reaches(&p, v), "{p:?} at {v}");
        }
    }
    assert!(
        gave_up > 50 && finished > 0,
        "{gave_up} given up, {finished} finished"
    );
}

/// The dropped-cards lemma against the card-count game's own threshold
/// searches, which know nothing of it: every threshold from below the
/// worst score to above the best, on random deals of 4 to 9 cards each
/// from the 52-card deck, with and without a field, over shared tables
/// kept across deals (as the study keeps them). A wrong lemma (the
/// strongest cards dropped instead of the weakest) is caught on the
/// same deals.
#[test]
fn dropped_cards_plain_searches_equal_the_threshold_searches_on_random_deals() {
    use runner::games::tanhinmin::dropped_cards::DroppedCardsSolver;
    use runner::games::tanhinmin::memo::SharedMemo;
    use runner::games::tanhinmin::ordering::MoveOrder;
    use runner::games::tanhinmin::score::{ThresholdShared, ThresholdSolver};
    use std::sync::Arc;
    let plain = Arc::new(SharedMemo::with_bytes(16 << 20));
    let mut dropped = DroppedCardsSolver::new(plain, 1 << 20, MoveOrder::default());
    let mut wrong = DroppedCardsSolver::new(
        Arc::new(SharedMemo::with_bytes(1 << 20)),
        1 << 20,
        MoveOrder::default(),
    )
    .dropping_strongest();
    let shared = Arc::new(ThresholdShared::with_bytes(64 << 20));
    let mut threshold = ThresholdSolver::new(shared, 1 << 20, 16 << 20);
    let (mut checked, mut wrong_caught) = (0, 0);
    for each in 4..=9 {
        for (k, mut p) in random_deals(each, 60, 31 + each as u64)
            .into_iter()
            .enumerate()
        {
            // Every third deal faces a field card.
            p.field = [0, 4, 9][k % 3];
            for v in -(each as i32) - 1..=each as i32 + 1 {
                let want = threshold.reaches(&p, v);
                assert_eq!(dropped.reaches(&p, v), want, "{p:?} at {v}");
                wrong_caught += usize::from(wrong.reaches(&p, v) != want);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 60 * (4..=9).map(|e| 2 * e + 3).sum::<usize>());
    assert!(wrong_caught > 0, "the wrong lemma went unnoticed");
}

/// Counts recorded before the plain-theorem check existed read back as
/// unchecked, and the summary says so instead of vouching for them: a merge
/// of a shard written without the two counts (its `partial.json` resealed,
/// as an older version wrote it) counts only the other shard's deals as
/// checked.
#[test]
fn deals_recorded_before_the_plain_theorem_check_are_not_vouched_for() {
    let dir = scratch("variant-older-counts");
    let cfg = dir.join("c.toml");
    std::fs::write(
        &cfg,
        "[experiment]\nname = \"older\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 5\ndeals = 10000\n\
         [rules]\nback = 9\n[hands]\nsizes = [[5, 5]]\n",
    )
    .unwrap();
    let shards: Vec<std::path::PathBuf> = (0..2).map(|k| dir.join(format!("s{k}"))).collect();
    for (k, out) in shards.iter().enumerate() {
        let k = k.to_string();
        let o = run(&run_args(
            &cfg,
            out,
            &["--shards", "2", "--shard-index", &k],
        ));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let partial = shards[0].join("partial.json");
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&partial).unwrap()).unwrap();
    let mut older = 0;
    for cell in v["cells"].as_array_mut().unwrap() {
        let counts = cell.as_object_mut().unwrap();
        older += counts
            .remove("plain_theorem_checked")
            .unwrap()
            .as_u64()
            .unwrap();
        counts.remove("plain_theorem_failures").unwrap();
    }
    assert!(older > 0 && older < 10000, "{older}");
    v["checksum"] = "".into();
    let crc = format!("{:08x}", crc32fast::hash(&serde_json::to_vec(&v).unwrap()));
    v["checksum"] = crc.into();
    std::fs::write(&partial, serde_json::to_vec(&v).unwrap()).unwrap();
    let merged = dir.join("merged");
    let mut args: Vec<String> = vec!["merge".into()];
    args.extend(shards.iter().map(|s| s.to_str().unwrap().to_string()));
    args.extend(["--out".into(), merged.to_str().unwrap().into()]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = String::from_utf8_lossy(&o.stdout);
    let expected = format!(
        "agrees with its proved μ test on the {} deals checked ({older} more, recorded by an older version, were not checked)",
        10000 - older
    );
    assert!(said.contains(&expected), "{said}");
}

/// The three rule sets of the shipped variant configs.
const RULE_SETS: [Rules; 3] = Rules::SHIPPED;

/// The fast solver at the sizes the runs search, against the twin with a
/// table ([`MemoTwin`]), which shares none of its canonical keys, move
/// classes, bounds or shared memo: random 9x9 deals from the 52-card deck
/// under each rule set, from the lead, on a field card and (with a back
/// rule) in a reversed trick, over one shared table kept across the deals
/// as a run keeps it. The twin without a table checks positions of up to
/// about 14 cards; these have 18. Two solvers that keep positions of more
/// than 12 cards out of the shared table, in small tables of their own (as
/// runs of 13x13 deals keep those of more than 18), and share one table of
/// the plain game's positions (as the threads of such runs share one),
/// taking the deals in turn, must agree too. The
/// upgrade pruning forced on under 11-back is caught on the same deals.
#[test]
fn the_fast_solver_equals_the_table_twin_on_9x9_deals() {
    use runner::games::tanhinmin::memo::SharedMemo;
    use runner::games::tanhinmin::variant::MemoTwin;
    use runner::random::{chunk_rng, uniform_below};
    use std::sync::Arc;
    let mut rng = chunk_rng(31, 0);
    let deals = random_deals(9, 16, 31);
    for rules in RULE_SETS {
        let table = Arc::new(SharedMemo::grouped(64 << 20));
        let mut fast = VariantSolver::with_shared(rules, table, 1 << 20, 16 << 20);
        let (variant_table, plain_table) = (
            Arc::new(SharedMemo::grouped(64 << 20)),
            Arc::new(SharedMemo::grouped(16 << 20)),
        );
        let mut routed: Vec<VariantSolver> = (0..2)
            .map(|_| {
                VariantSolver::with_shared(rules, variant_table.clone(), 1 << 16, 1 << 12)
                    .sharing_positions_up_to(12)
                    .sharing_plain_positions(plain_table.clone(), 1 << 12)
            })
            .collect();
        let mut forced =
            VariantSolver::new(rules, 64 << 20, 16 << 20).with_upgrade_pruning_forced();
        let mut twin = MemoTwin::new(rules, 20_000_000);
        let (mut reversed, mut forced_wrong) = (0, 0);
        for (k, deal) in deals.iter().enumerate() {
            let (x, y) = (cards(&deal.mover[..13]), cards(&deal.other[..13]));
            let field = uniform_below(&mut rng, 14) as u32;
            let rev = field > 0 && rules.back.is_some() && uniform_below(&mut rng, 2) == 1;
            reversed += usize::from(rev);
            let p = Position {
                field: field as usize,
                ..deal.clone()
            };
            for (p, rev) in [(deal.clone(), false), (p, rev)] {
                let f = p.field as u32;
                let want = twin
                    .wins(&x, &y, f, rev)
                    .expect("within the twin's positions");
                assert_eq!(
                    fast.mover_wins_in(&p, rev),
                    want,
                    "{rules:?}: {x:?} against {y:?} on {f}, reversed {rev}"
                );
                assert_eq!(
                    routed[k % 2].mover_wins_in(&p, rev),
                    want,
                    "{rules:?}, routed: {x:?} against {y:?} on {f}, reversed {rev}"
                );
                forced_wrong += usize::from(forced.mover_wins_in(&p, rev) != want);
            }
        }
        if rules.back.is_some() {
            assert!(reversed > 0, "{rules:?}: no reversed trick among the deals");
            assert!(
                forced_wrong > 0,
                "{rules:?}: the upgrade pruning forced on went unnoticed"
            );
        } else {
            assert_eq!(forced_wrong, 0, "8-cut: the pruning is sound there");
        }
    }
}

/// Rows of a committed `formula_failures.csv` whose recorded winner is not
/// the one `runner solve --batch` gives the same rows, or whose solve was
/// not checked by the variant's plain recursion, or failed its check.
fn rows_not_confirmed(table: &str, solved: &str) -> Vec<String> {
    let mut recorded = csv::Reader::from_reader(table.as_bytes());
    let mut again = csv::Reader::from_reader(solved.as_bytes());
    let winner = recorded
        .headers()
        .unwrap()
        .iter()
        .position(|h| h == "variant_winner");
    let header = again.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (minimax, twin, check) = (
        column("minimax_first_wins"),
        column("twin_first_wins"),
        column("check"),
    );
    let recorded: Vec<_> = recorded.records().map(Result::unwrap).collect();
    let again: Vec<_> = again.records().map(Result::unwrap).collect();
    assert_eq!(recorded.len(), again.len(), "one solved row a recorded row");
    recorded
        .iter()
        .zip(&again)
        .filter(|(r, a)| {
            let first_wins = if &r[winner.unwrap()] == "first" {
                "true"
            } else {
                "false"
            };
            a[minimax] != *first_wins || a[twin] != *first_wins || &a[check] != "passed"
        })
        .map(|(r, _)| r.iter().collect::<Vec<_>>().join(","))
        .collect()
}

/// Every row of the committed `formula_failures.csv` of the exhaustive
/// variant runs up to 8x8 (16,331 positions of up to 16 cards), solved
/// again by `runner solve --batch` straight from the table, names the
/// recorded winner, and the variant's plain recursion (no canonical key,
/// no pruning, no shared memo) agrees with it on every row. The batch says
/// so itself, comparing the recorded columns, and the test reads its rows
/// independently. A row with its winner changed is caught both ways, and
/// the batch exits 1 naming its line.
#[test]
fn the_committed_failure_tables_up_to_8x8_are_confirmed_by_the_plain_recursion() {
    let dir = scratch("failures-confirmed");
    for (name, rules) in [
        ("variant-cut", &["--cut", "6"][..]),
        ("variant-back", &["--back", "9"]),
        ("variant-cut-back", &["--cut", "6", "--back", "9"]),
    ] {
        let table_path = format!("results/{name}/formula_failures.csv");
        let table = std::fs::read_to_string(&table_path).unwrap();
        let rows = table.lines().count() - 1;
        let (solved, said) = solve_batch(&table_path, rules, 0);
        assert!(rows > 5000, "{name}");
        assert_eq!(
            rows_not_confirmed(&table, &solved),
            Vec::<String>::new(),
            "{name}"
        );
        assert!(
            said.contains(&format!(
                "the recorded variant_winner, formula_says agree on all {rows} rows"
            )),
            "{name}: {said}"
        );
        // One winner changed in a copy of the table's first 200 rows is
        // caught.
        let mut lines: Vec<String> = table.lines().take(201).map(str::to_string).collect();
        let last = lines.len() - 1;
        lines[last] = if lines[last].contains(",first,") {
            lines[last].replacen(",first,", ",second,", 1)
        } else {
            lines[last].replacen(",second,", ",first,", 1)
        };
        let tampered = lines.join("\n") + "\n";
        let copy = dir.join(format!("{name}.csv"));
        std::fs::write(&copy, &tampered).unwrap();
        let (solved, said) = solve_batch(&copy.display().to_string(), rules, 1);
        assert_eq!(
            rows_not_confirmed(&tampered, &solved),
            vec![lines[last].clone()],
            "{name}"
        );
        assert!(
            said.contains(
                "what is solved DIFFERS from what is recorded on 1 of 200 rows (line 201: variant_winner recorded"
            ),
            "{name}: {said}"
        );
        assert_eq!(
            solved
                .lines()
                .filter(|l| l.ends_with(",differs: variant_winner"))
                .count(),
            1,
            "{name}"
        );
    }
}

/// `runner solve --batch FILE RULES`: its CSV and its summary line, with
/// the exit status asserted.
fn solve_batch(path: &str, rules: &[&str], status: i32) -> (String, String) {
    let mut args = vec!["solve", "--batch", path];
    args.extend_from_slice(rules);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(status), "{path}: {}", stderr(&o));
    let said = stderr(&o);
    (String::from_utf8(o.stdout).unwrap(), said)
}

/// The committed 13x13 failure tables (1,000 rows each, 26 cards a
/// position, past the plain recursion's default reach) read back by
/// `runner solve --batch`: minimax gives every recorded winner, so the
/// committed findings are a regression check of the variant solver at
/// the size they were found. `--verdicts-only`, since the winning moves
/// would double the time. (The 26x26 8-cut table takes about 150 s so,
/// and 11-back's deals take minutes to hours each.)
#[test]
fn the_committed_13x13_failure_tables_give_their_recorded_winners() {
    for (name, rules) in [
        ("variant-cut-13", &["--cut", "6"][..]),
        ("variant-back-13", &["--back", "9"]),
        ("variant-cut-back-13", &["--cut", "6", "--back", "9"]),
    ] {
        let path = format!("results/{name}/formula_failures.csv");
        let mut args = rules.to_vec();
        args.push("--verdicts-only");
        let (solved, said) = solve_batch(&path, &args, 0);
        assert_eq!(solved.lines().count(), 1001, "{name}");
        assert!(
            said.contains("the recorded variant_winner, formula_says agree on all 1000 rows"),
            "{name}: {said}"
        );
    }
}

/// A longer soak of the same check, at the sizes of the committed runs:
/// `EACH` cards a hand (13 by default), `COUNT` deals a rule set (4), from
/// `SEED` (29), every deal from the lead, over one shared table. A 13x13
/// deal takes the twin up to 26 million positions, 2 GB and a minute and a
/// half, so it is not in the suite; run it with `cargo test --release
/// --test variants -- --ignored --nocapture`.
#[test]
#[ignore]
fn soak_the_fast_solver_equals_the_table_twin_on_larger_deals() {
    use runner::games::tanhinmin::memo::SharedMemo;
    use runner::games::tanhinmin::variant::MemoTwin;
    use std::sync::Arc;
    let knob = |name: &str, default: u64| {
        std::env::var(name).map_or(default, |s| s.parse().expect("a whole number"))
    };
    let (each, count, seed) = (knob("EACH", 13), knob("COUNT", 4), knob("SEED", 29));
    for rules in RULE_SETS {
        let table = Arc::new(SharedMemo::grouped(256 << 20));
        let mut fast = VariantSolver::with_shared(rules, table, 1 << 20, 16 << 20);
        let started = std::time::Instant::now();
        let (mut positions, mut most) = (0, 0);
        for p in random_deals(each as usize, count as usize, seed) {
            let (x, y) = (cards(&p.mover[..13]), cards(&p.other[..13]));
            let mut twin = MemoTwin::new(rules, usize::MAX);
            let want = twin.wins(&x, &y, 0, false).expect("no limit");
            positions += twin.positions();
            most = most.max(twin.positions());
            assert_eq!(fast.mover_wins(&p), want, "{rules:?}: {x:?} against {y:?}");
        }
        eprintln!(
            "{}: {count} deals of {each} cards a hand agree; the twin settled {positions} positions, at most {most} a deal, in {:.1?}",
            rules.name(),
            started.elapsed()
        );
    }
}
