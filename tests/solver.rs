//! The fast solver against its plain twins, and the theorem against both.

use proptest::prelude::*;
use rand_xoshiro::rand_core::Rng;
use runner::games::tanhinmin::formula::{mover_wins_sorted, mu_pair_sorted};
use runner::games::tanhinmin::memo::SharedMemo;
use runner::games::tanhinmin::moves::Move;
use runner::games::tanhinmin::ordering::{
    MoveOrder, fewest_replies_move, fewest_replies_move_if_won, fewest_replies_move_plain,
};
use runner::games::tanhinmin::position::{
    Position, SMALL_KEY_CARDS, canonical_key, canonical_key_small,
};
use runner::games::tanhinmin::reference::{
    CoqOutcome, NaiveSolver, coq_rules_outcome, plain_mover_wins,
};
use runner::games::tanhinmin::solver::Solver;
use runner::games::tanhinmin::strategy::proof_move_counts;
use runner::random::chunk_rng;
use std::sync::Arc;

fn hand(max_len: usize, top: u32) -> impl Strategy<Value = Vec<u32>> {
    prop::collection::vec(1..=top, 1..=max_len).prop_map(|mut v| {
        v.sort();
        v
    })
}

fn fast(x: &[u32], y: &[u32], r: u32, solver: &mut Solver) -> bool {
    let mut p = Position::from_cards(x, y, r);
    p.ranks = p.ranks.max(r as usize);
    p.field = r as usize;
    solver.mover_wins(&p)
}

fn check_fewest_replies(x: &[u32], y: &[u32], r: u32) -> Result<(), TestCaseError> {
    let p = Position::from_cards(x, y, r);
    let ranks = p.ranks.max(r as usize);
    let field = (r as usize).min(ranks);
    prop_assert_eq!(
        fewest_replies_move(&p.mover[..ranks], &p.other[..ranks], field),
        fewest_replies_move_plain(&p.mover[..ranks], &p.other[..ranks], field)
    );
    if mover_wins_sorted(x, y, field as u32) {
        prop_assert_eq!(
            fewest_replies_move_if_won(&p.mover[..ranks], &p.other[..ranks], field),
            fewest_replies_move_plain(&p.mover[..ranks], &p.other[..ranks], field)
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn memoized_minimax_equals_plain_recursion(x in hand(6, 9), y in hand(6, 9), r in 0u32..10) {
        let mut solver = Solver::new(1 << 20);
        prop_assert_eq!(fast(&x, &y, r, &mut solver), plain_mover_wins(&x, &y, r));
    }

    /// The fast first-move choice scans from the top and stops early, and
    /// skips lost positions with one μ test; it must pick the plain one's move.
    /// Decks of up to 16 ranks take the packed μ, larger ones the walk.
    #[test]
    fn fewest_replies_fast_picks_the_plain_move(x in hand(13, 13), y in hand(13, 13), r in 0u32..14) {
        check_fewest_replies(&x, &y, r)?;
    }

    #[test]
    fn fewest_replies_fast_picks_the_plain_move_on_many_ranks(
        x in hand(13, 24), y in hand(13, 24), r in 0u32..25
    ) {
        check_fewest_replies(&x, &y, r)?;
    }

    /// The 64-bit key builder must write the very bits of the u128 one, up
    /// to the most cards it is used for.
    #[test]
    fn small_key_equals_wide_key(x in hand(14, 26), y in hand(14, 26), r in 0u32..27) {
        let p = Position::from_cards(&x, &y, r);
        prop_assume!((x.len() + y.len()) as u32 <= SMALL_KEY_CARDS);
        let field = (r as usize).min(p.ranks);
        prop_assert_eq!(
            canonical_key_small(&p.mover[..p.ranks], &p.other[..p.ranks], field) as u128,
            canonical_key(&p.mover[..p.ranks], &p.other[..p.ranks], field)
        );
    }

    #[test]
    fn move_order_never_changes_a_verdict(x in hand(7, 9), y in hand(7, 9), r in 0u32..10) {
        let mut plain = Solver::with_order(1 << 20, MoveOrder::WeakestFirst);
        let mut proof = Solver::with_order(1 << 20, MoveOrder::ProofStrategy);
        let mut replies = Solver::with_order(1 << 20, MoveOrder::FewestReplies);
        let mut losing = Solver::with_order(1 << 20, MoveOrder::LosingFirst);
        let expected = fast(&x, &y, r, &mut plain);
        prop_assert_eq!(expected, fast(&x, &y, r, &mut proof));
        prop_assert_eq!(expected, fast(&x, &y, r, &mut replies));
        // A first guess that loses must not cost the right verdict.
        prop_assert_eq!(expected, fast(&x, &y, r, &mut losing));
    }

    /// The proof's strategy move, where it names one, really wins.
    #[test]
    fn proof_strategy_move_wins(x in hand(6, 8), y in hand(6, 8), r in 0u32..9) {
        let p = Position::from_cards(&x, &y, r);
        let mut p = p;
        p.ranks = p.ranks.max(r as usize);
        p.field = r as usize;
        if let Some(Move::Play(i)) = proof_move_counts(&p.mover[..p.ranks], &p.other[..p.ranks], p.field) {
            let card = i as u32 + 1;
            let mut rest = x.clone();
            rest.remove(rest.iter().position(|&c| c == card).unwrap());
            prop_assert!(!plain_mover_wins(&y, &rest, card), "playing {} from {:?} vs {:?} r={}", card, x, y, r);
        }
    }

    /// The search prunes and the memo answers by two facts, checked here on
    /// the plain recursion (which uses neither): a card upgraded is never
    /// worse for whoever holds it, and a higher field never helps the mover.
    #[test]
    fn upgrading_a_card_helps_its_holder_and_a_higher_field_hurts_the_mover(
        x in hand(6, 9), y in hand(6, 9), r in 1u32..10, pick in 0usize..6, up in 1u32..5
    ) {
        let wins = plain_mover_wins(&x, &y, r);
        let upgraded = |h: &[u32]| {
            let mut h = h.to_vec();
            let i = pick % h.len();
            h[i] = (h[i] + up).min(12);
            h.sort();
            h
        };
        if wins {
            prop_assert!(plain_mover_wins(&upgraded(&x), &y, r), "mover's card up: {:?} {:?} {}", x, y, r);
            prop_assert!(plain_mover_wins(&x, &y, r - 1), "field down: {:?} {:?} {}", x, y, r);
        } else {
            prop_assert!(!plain_mover_wins(&x, &upgraded(&y), r), "other's card up: {:?} {:?} {}", x, y, r);
            prop_assert!(!plain_mover_wins(&x, &y, r + 1), "field up: {:?} {:?} {}", x, y, r);
        }
    }

    #[test]
    fn theorem_holds_on_small_positions(x in hand(6, 9), y in hand(6, 9), r in 0u32..10) {
        prop_assert_eq!(mover_wins_sorted(&x, &y, r), plain_mover_wins(&x, &y, r));
    }

    #[test]
    fn naive_baseline_equals_plain_recursion(x in hand(5, 7), y in hand(5, 7), r in 0u32..8) {
        prop_assert_eq!(NaiveSolver::new().solve_deal(&x, &y, r), plain_mover_wins(&x, &y, r));
    }
}

/// A sorted hand of `n` cards of strength 1..=`top`.
fn draw(rng: &mut impl Rng, n: usize, top: u32) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n).map(|_| (rng.next_u32() % top) + 1).collect();
    v.sort();
    v
}

/// `count` random positions of up to 7 cards each, solved one after another
/// by `solver` (so its memo is kept across them), against the plain
/// recursion.
fn agrees_with_plain_recursion_on_many_positions(solver: &mut Solver, seed: u64, count: usize) {
    let mut rng = chunk_rng(seed, 0);
    for i in 0..count {
        let top = 3 + (i % 9) as u32;
        let x = draw(&mut rng, 1 + i % 7, top);
        let y = draw(&mut rng, 1 + (i / 7) % 7, top);
        let r = (i as u32 * 7) % (top + 1);
        assert_eq!(
            fast(&x, &y, r, solver),
            plain_mover_wins(&x, &y, r),
            "x={x:?} y={y:?} r={r}"
        );
    }
}

/// One memo shared by thousands of positions, as in a run: a wrong canonical
/// key that merges two different games would show up here.
#[test]
fn memo_shared_across_many_positions_stays_exact() {
    let mut solver = Solver::new(1 << 24);
    agrees_with_plain_recursion_on_many_positions(&mut solver, 99, 20_000);
    assert!(solver.memo_len() > 1000, "the memo was exercised");
}

/// Every move order, each with one memo kept across thousands of positions,
/// against the plain recursion; then on deals too large for it, against the
/// theorem. The guessing orders prune by what a refutation proved (a reply
/// that refutes one card refutes the stronger cards below it), so a wrong
/// record of which reply won shows up here.
#[test]
fn every_order_with_a_kept_memo_agrees_with_plain_recursion_and_the_theorem() {
    for order in [
        MoveOrder::FewestReplies,
        MoveOrder::ProofStrategy,
        MoveOrder::LosingFirst,
    ] {
        let mut solver = Solver::with_order(1 << 24, order);
        agrees_with_plain_recursion_on_many_positions(&mut solver, 41 + order as u64, 6_000);
        let mut rng = chunk_rng(41, order as u64);
        for i in 0..400 {
            let x = draw(&mut rng, 6 + i % 7, 13);
            let y = draw(&mut rng, 6 + (i / 7) % 7, 13);
            let r = (i as u32 * 3) % 14;
            assert_eq!(
                fast(&x, &y, r, &mut solver),
                mover_wins_sorted(&x, &y, r),
                "{order:?}: x={x:?} y={y:?} r={r}"
            );
        }
    }
}

/// A memo too small to hold a deal's positions evicts entries mid-search;
/// the verdicts must not change.
#[test]
fn tiny_memo_that_keeps_evicting_gives_the_same_verdicts() {
    let mut tiny = Solver::new(0);
    let mut rng = chunk_rng(5, 5);
    let mut cleared = false;
    for _ in 0..300 {
        let mut x: Vec<u32> = (0..8).map(|_| rng.next_u32() % 13 + 1).collect();
        let mut y: Vec<u32> = (0..8).map(|_| rng.next_u32() % 13 + 1).collect();
        x.sort();
        y.sort();
        assert_eq!(fast(&x, &y, 0, &mut tiny), mover_wins_sorted(&x, &y, 0));
        cleared |= tiny.memo_evictions > 0;
    }
    assert!(cleared, "the memo evicted entries at least once");
}

/// Ranks of 8 or more cards leave the small key's table for the wide key.
#[test]
fn small_key_equals_wide_key_on_deep_ranks() {
    let counts = [0u8, 1, 3, 7, 8, 10];
    let mut checked = 0;
    for &a0 in &counts {
        for &a1 in &counts {
            for &b0 in &counts {
                for &b1 in &counts {
                    let (x, y) = ([a0, a1, 1], [b0, b1, 2]);
                    let cards: u32 = x.iter().chain(&y).map(|&c| c as u32).sum();
                    if cards as usize > SMALL_KEY_CARDS as usize {
                        continue;
                    }
                    for field in 0..=3 {
                        assert_eq!(
                            canonical_key_small(&x, &y, field) as u128,
                            canonical_key(&x, &y, field),
                            "{x:?} {y:?} field {field}"
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 1000);
}

#[test]
fn worked_example() {
    let (x, y) = ([1, 1, 3, 4], [1, 2, 3, 5]);
    assert_eq!(mu_pair_sorted(&x, &y, 0), (3, 2));
    assert!(plain_mover_wins(&x, &y, 0));
    assert!(fast(&x, &y, 0, &mut Solver::new(1 << 20)));
}

/// The Coq rules allow a pass on an empty field. Under the inductive
/// (least fixpoint) reading that pass never creates a win, so both rule sets
/// have the same winner, and the Coq rules never leave a position undecided.
#[test]
fn empty_field_pass_never_changes_the_outcome() {
    let mut rng = chunk_rng(17, 0);
    let mut checked = 0;
    for i in 0..1500 {
        let top = 2 + (i % 6) as u32;
        let nx = 1 + (rng.next_u32() % 4) as usize;
        let ny = 1 + (rng.next_u32() % 4) as usize;
        let mut x: Vec<u32> = (0..nx).map(|_| rng.next_u32() % top + 1).collect();
        let mut y: Vec<u32> = (0..ny).map(|_| rng.next_u32() % top + 1).collect();
        x.sort();
        y.sort();
        let r = rng.next_u32() % (top + 1);
        let coq = coq_rules_outcome(&x, &y, r);
        let plain = plain_mover_wins(&x, &y, r);
        let expected = if plain {
            CoqOutcome::Win
        } else {
            CoqOutcome::Lose
        };
        assert_eq!(coq, expected, "x={x:?} y={y:?} r={r}");
        checked += 1;
    }
    assert_eq!(checked, 1500);
}

/// The check must be able to fail: `>=` in place of `>` is wrong, and the
/// solver must say so on some small position.
#[test]
fn a_wrong_formula_is_caught_by_the_solver() {
    let mut solver = Solver::new(1 << 20);
    let mut found = 0;
    let mut rng = chunk_rng(3, 3);
    for _ in 0..2000 {
        let mut x: Vec<u32> = (0..3).map(|_| rng.next_u32() % 6 + 1).collect();
        let mut y: Vec<u32> = (0..3).map(|_| rng.next_u32() % 6 + 1).collect();
        x.sort();
        y.sort();
        let (mu0, mu1) = mu_pair_sorted(&x, &y, 0);
        if (mu0 >= mu1) != fast(&x, &y, 0, &mut solver) {
            found += 1;
        }
    }
    assert!(found > 0, "a broken formula went unnoticed");
}

/// Two threads racing on one small shared table, which keeps evicting: every
/// verdict must still be exact, in every move order.
#[test]
fn shared_memo_under_eviction_and_races_stays_exact() {
    for order in [
        MoveOrder::WeakestFirst,
        MoveOrder::ProofStrategy,
        MoveOrder::FewestReplies,
        MoveOrder::LosingFirst,
    ] {
        let memo = Arc::new(SharedMemo::with_bytes(64 * 64));
        let handles: Vec<_> = (0..2)
            .map(|t| {
                let memo = memo.clone();
                std::thread::spawn(move || {
                    let mut solver = Solver::with_shared(memo, 1 << 20, order);
                    let mut rng = chunk_rng(11, t);
                    for _ in 0..3000 {
                        let n = 1 + (rng.next_u32() % 7) as usize;
                        let m = 1 + (rng.next_u32() % 7) as usize;
                        let mut x: Vec<u32> = (0..n).map(|_| rng.next_u32() % 8 + 1).collect();
                        let mut y: Vec<u32> = (0..m).map(|_| rng.next_u32() % 8 + 1).collect();
                        x.sort();
                        y.sort();
                        let r = rng.next_u32() % 9;
                        assert_eq!(
                            fast(&x, &y, r, &mut solver),
                            plain_mover_wins(&x, &y, r),
                            "x={x:?} y={y:?} r={r}"
                        );
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert!(!memo.is_empty());
    }
}
