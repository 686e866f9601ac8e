//! The compressed exhaustive run against a plain one: every per-rank deal,
//! solved by the plain recursive solver, must give the same totals.

mod common;

use common::run_whole;
use runner::config::Config;
use runner::games::cards::{Deck, PerRankDealSpace};
use runner::games::tanhinmin::formula::{broken_claim, theorem};
use runner::games::tanhinmin::reference::plain_mover_wins;
use runner::studies::tanhinmin::Tanhinmin;

fn cards(counts: &[u8]) -> Vec<u32> {
    let mut v = Vec::new();
    for (r, &c) in counts.iter().enumerate() {
        v.extend(std::iter::repeat_n(r as u32 + 1, c as usize));
    }
    v
}

fn config(copies: &str, ranks: u32, sizes: &str, field: u32) -> Config {
    let text = format!(
        "[experiment]\nname = \"t\"\nmode = \"exhaustive\"\n[deck]\nranks = {ranks}\ncopies = {copies}\n[hands]\nsizes = {sizes}\nfield = {field}\n"
    );
    runner::studies::parse_config(&text, "test").unwrap()
}

#[test]
fn compressed_enumeration_matches_plain_enumeration_and_plain_solver() {
    let cases = [
        ("4", 13, "[[2, 2], [3, 2]]", 0),
        ("4", 13, "[[3, 3]]", 6),
        ("[2, 3, 1, 4, 2, 2, 3]", 7, "[[3, 3], [1, 4]]", 2),
        ("[4, 4, 4, 4, 4, 4, 2]", 7, "[[2, 3]]", 7),
    ];
    for (copies, ranks, sizes, field) in cases {
        let cfg = config(copies, ranks, sizes, field);
        let study = Tanhinmin::new(&cfg, 2, theorem);
        let results = run_whole(&study, 2);
        let deck = Deck {
            copies: cfg.copies(),
        };
        for (cell, &[a, b]) in cfg.hands.sizes.iter().enumerate() {
            let space = PerRankDealSpace::new(&deck, a, b).unwrap();
            let (mut deals, mut wins) = (0u128, 0u128);
            space.for_each_in_range(0, space.len(), |d| {
                deals += d.weight;
                if plain_mover_wins(
                    &cards(&d.first[..ranks as usize]),
                    &cards(&d.second[..ranks as usize]),
                    field,
                ) {
                    wins += d.weight;
                }
            });
            let got = &results[cell].counts;
            assert_eq!(got.deals, deals, "{copies} {a}x{b} field {field}");
            assert_eq!(got.first_wins, wins, "{copies} {a}x{b} field {field}");
            assert_eq!(got.disagree, 0);
        }
    }
}

#[test]
fn a_broken_claim_is_counted_as_disagreement() {
    let cfg = config("4", 13, "[[3, 3]]", 0);
    let study = Tanhinmin::new(&cfg, 1, broken_claim);
    let results = run_whole(&study, 1);
    let c = &results[0].counts;
    assert!(c.disagree > 0);
    assert_eq!(c.agree + c.disagree, c.deals);
    assert!(
        c.disagreements
            .iter()
            .all(|d| d.mu0 == d.mu1 && !d.minimax && d.formula)
    );
}

/// The root enumeration (one instance per canonical root, weighted by all
/// its patterns) against the pattern enumeration it replaces: the same
/// deals, wins, agreements and μ table per cell, on several decks, fields
/// and unequal hands, with the theorem and with a broken claim.
#[test]
fn roots_give_the_same_tables_as_patterns() {
    use runner::studies::deal_study::DealSource;
    let cases = [
        ("4", 13, "[[4, 4], [5, 3], [3, 5]]", 0),
        ("4", 13, "[[4, 4], [2, 6]]", 5),
        ("4", 13, "[[5, 5]]", 12),
        ("3", 9, "[[4, 4], [4, 3]]", 2),
        ("2", 8, "[[4, 4]]", 1),
        ("6", 5, "[[5, 4]]", 3),
    ];
    for claim in [theorem as fn(u32, u32) -> bool, broken_claim] {
        for (copies, ranks, sizes, field) in cases {
            let cfg = config(copies, ranks, sizes, field);
            let by_root = Tanhinmin::new(&cfg, 2, claim);
            let mut by_pattern = Tanhinmin::new(&cfg, 2, claim);
            by_pattern.source = DealSource::new(&cfg);
            let (roots, patterns) = (run_whole(&by_root, 2), run_whole(&by_pattern, 2));
            for (r, p) in roots.iter().zip(&patterns) {
                let (r, p) = (&r.counts, &p.counts);
                let case = format!("{copies} x {ranks} {sizes} field {field}");
                assert_eq!(
                    (r.deals, r.first_wins, r.agree, r.disagree),
                    (p.deals, p.first_wins, p.agree, p.disagree),
                    "{case}"
                );
                assert_eq!(r.mu, p.mu, "{case}");
                assert!(r.evaluated < p.evaluated, "{case}: roots are fewer");
            }
        }
    }
}
