//! Rule variants of Tanhinmin as a value the one variant solver takes:
//!
//! - **8-cut** (8切り): playing a card of the cut rank clears the field, the
//!   order turns back to normal, and the same player moves again;
//! - **11-back** (Jバック): playing a card of the back rank reverses the
//!   order for the rest of the trick, so a card may be played only if it is
//!   strictly weaker than the field card; playing the back rank again while
//!   reversed turns the order back. A pass clears the field and restores
//!   the normal order;
//! - both at once.
//!
//! Playing one's last card wins, whatever it is. With neither rule the
//! variant is the plain game, and a test holds the two solvers equal there.
//!
//! What carries over from the plain solver ([`super::solver`]), and why:
//! - **The plain solver itself**, where the rules have nothing left to act
//!   on: with no card of a special rank in either hand and the order
//!   normal, the rest of the game is the plain game, and the variant
//!   solver hands the position to a plain solver of its own (μ-guided
//!   order, its own memo), which proves it by search. On 4,000 13x13 deals
//!   this made 8-cut 2.3x faster (its cut cards are tried first, so most
//!   lines soon have none left), 11-back 1.3x and both 1.15x.
//! - **The plain game as a bound** (see `VariantSolver::special_card_bounds`):
//!   a cut or back card is never better for its holder than a card nothing
//!   beats, and a cut card never worse than a plain card of its rank. So
//!   in normal order a plain game with one side's special cards made
//!   unbeatable bounds the variant position, and the plain solver proves
//!   that bound; the μ test only picks which bound is worth proving. On
//!   13x13 8-cut deals this made the search 2.2x (100,000 deals) to 2.5x
//!   (20,000) faster; under 11-back, where it needs one side to hold no
//!   back card, 1.12x.
//! - **Canonical keys.** Nobody ever plays on their own card: after a play
//!   the opponent moves, and a cut or a pass clears the field. So adjacent
//!   ranks held by one player only are still interchangeable, *except* a
//!   rule's special rank, whose cards do something the others do not. The
//!   key (`key::variant_key`) writes the plain game's groups, with each
//!   special rank forced into a group of its own and named by its first
//!   card's place, plus the order bit.
//! - **The field as blocked cards, and the memo's field monotonicity.** In
//!   either order a more restrictive field only takes moves away and leaves
//!   the others leading to the same positions (the position after a move
//!   depends on the card played, not on the field it was played on). In
//!   normal order the blocked cards are the mover's weakest; reversed, the
//!   strongest. The key's low bits count them, and the order bit sits above
//!   them, so the shared memo's "lost under a lower block is lost under a
//!   higher one" holds within one order and never mixes the two.
//! - **An empty field is not a field that blocks nothing.** In the plain
//!   game the two share a key: the pass that a field card allows never
//!   changes the winner there. Under 11-back it can: X = {1, 6} and
//!   Y = {1, 6} with back = 6, X to lead, loses, but X facing a 7 passes and
//!   wins (Y must then lead). The key has a field-card bit above the
//!   blocked count, so the memo never answers one from the other. (Found by
//!   the twin test below, as a wrong verdict on [1, 6] against [1, 2, 6, 7].)
//! - **The shared lock-free memo**, kept across deals: yes (its own table;
//!   the plain solver's keys mean something else).
//! - **The card-upgrade pruning of the plain solver** (its wider move
//!   classes and its refutation bound, both from "a card upgraded never
//!   hurts its holder"): **kept under 8-cut for plain cards, and under
//!   11-back for plain cards above the back rank.** The copy argument: the
//!   holder of the stronger card plays it wherever the strategy played the
//!   weaker one; that is legal, leaves the opponent a higher field (only
//!   fewer moves, each to the same position), and changes nothing else.
//!   Under 8-cut it survives for a plain card upgraded to a plain card,
//!   even across the cut rank (a cut card of the opponent's is an ordinary
//!   card to beat). It fails when a cut card is upgraded (it loses its
//!   rule) and under 11-back for cards a reversed trick can take (there a
//!   stronger card is playable in fewer places). A reversed trick starts at
//!   the back rank and only weaker cards follow, so cards above the back
//!   rank are only ever played in normal order, and for them the argument
//!   holds again. Within a reversed trick the pruning is off (a reversed
//!   root, which no game reaches, may have stronger cards in play).
//!   `tests/variants.rs` checks both upgrades on the plain recursion of the
//!   variants, shows the smallest positions where the switched-off
//!   upgrades hurt, and shows the pruning forced on under 11-back gives a
//!   wrong verdict. Above the back rank it made 11-back 1.11x and both
//!   rules 1.14x faster on 4,000 13x13 deals.
//! - **Move classes without upgrades:** adjacent ranks only the mover holds,
//!   none special, lead to the same canonical position whichever card is
//!   played, so one card stands for them under every rule.
//! - **Move order:** the cut card first when the mover holds one (it keeps
//!   the move), then weakest first, the back card last (see
//!   [`super::moves::move_classes`]; strongest first was 12x slower under 11-back). In
//!   normal order while a back card is held, a weakest class that a
//!   reversed trick cannot beat whole, and a cut card below the back rank,
//!   go after the other low cards (see [`super::moves::keep_reversed_stoppers`]). Order changes time, never a verdict.

mod key;
mod line;
mod rules;
mod solver;
mod twin;

pub use key::{SMALL_VARIANT_CARDS, VARIANT_MAX_CARDS, memo_key_encoding, memo_key_encoding_named};
pub use line::{LINE_MAX_CARDS, Line, LineMove, best_line};
pub use rules::variant_moves;
pub use rules::{After, Rules, after_move};
pub use solver::VariantSolver;
pub use twin::{MemoTwin, plain_variant_move_wins, plain_variant_wins};

#[cfg(test)]
mod tests {

    use super::key::variant_key;
    use super::rules::NO_RANK;
    use super::*;
    use crate::games::tanhinmin::memo::SharedMemo;
    use crate::games::tanhinmin::moves::Move;
    use crate::games::tanhinmin::ordering::cut_guess_mover_wins;
    use crate::games::tanhinmin::position::Position;
    use crate::games::tanhinmin::reference::plain_mover_wins;
    use crate::random::{chunk_rng, uniform_below};
    use std::sync::Arc;

    #[test]
    fn back_reverses_the_trick_and_a_pass_restores_it() {
        assert_eq!(
            variant_moves(&[1, 2, 2, 5, 7], 5, true),
            vec![Move::Play(0), Move::Play(1), Move::Pass]
        );
        assert_eq!(
            variant_moves(&[1, 7], 5, false),
            vec![Move::Play(6), Move::Pass]
        );
        // X = {2, 9}, Y = {5}, back = 9. Plain: X leads 9, Y cannot beat
        // it and passes, and X's 2 is the last card: X wins. With 11-back
        // the 9 reverses the order, Y's 5 is now playable and is Y's last
        // card; leading 2 loses to the 5 as well: X loses.
        let rules = Rules {
            cut: None,
            back: Some(9),
        };
        assert!(plain_mover_wins(&[2, 9], &[5], 0));
        assert!(!plain_variant_wins(&[2, 9], &[5], 0, false, rules));
        assert!(
            !VariantSolver::new(rules, 1 << 16, 1 << 16).mover_wins(&Position::from_cards(
                &[2, 9],
                &[5],
                0
            ))
        );
    }

    /// How often `guess` names the 8-cut winner (by the variant's plain
    /// recursion) of 3,000 random positions: 9 ranks of 4 cards, the cut
    /// on rank 5, 1 to 6 cards a hand, an empty field or a plain card.
    fn cut_hit_rate(guess: impl Fn(&[u8], &[u8], usize, usize) -> bool) -> f64 {
        const RANKS: usize = 9;
        const CUT: u32 = 5;
        let rules = Rules {
            cut: Some(CUT),
            back: None,
        };
        let mut rng = chunk_rng(8, 0);
        let cases = 3000;
        let mut hits = 0;
        for _ in 0..cases {
            let mut deck: Vec<u32> = (1..=RANKS as u32).flat_map(|r| [r; 4]).collect();
            let mut draw = |n: u64| -> Vec<u32> {
                let mut hand: Vec<u32> = (0..n)
                    .map(|_| {
                        let at = uniform_below(&mut rng, deck.len() as u64) as usize;
                        deck.swap_remove(at)
                    })
                    .collect();
                hand.sort();
                hand
            };
            let (nx, ny) = (1 + (hits % 6) as u64, 1 + ((hits / 6) % 6) as u64);
            let (x, y) = (draw(nx), draw(ny));
            let field = uniform_below(&mut rng, RANKS as u64 + 1) as u32;
            let field = if field == CUT { 0 } else { field };
            let counts = |h: &[u32]| {
                let mut c = [0u8; RANKS];
                h.iter().for_each(|&s| c[s as usize - 1] += 1);
                c
            };
            let truth = plain_variant_wins(&x, &y, field, false, rules);
            let said = guess(&counts(&x), &counts(&y), field as usize, CUT as usize - 1);
            hits += usize::from(said == truth);
        }
        hits as f64 / cases as f64
    }

    #[test]
    fn the_cut_guess_names_the_winner_of_nearly_every_position() {
        let rate = cut_hit_rate(cut_guess_mover_wins);
        assert!(rate > 0.99, "the cut guess is right on {rate}");
        // Blind to the cut, the plain μ test is wrong far more often; so is
        // the guess with the cut cards read as the weakest when X- and Y-
        // drop one, which a wrong reading of the graph would give.
        let plain =
            cut_hit_rate(|m, o, f, _| crate::games::tanhinmin::formula::mover_wins_counts(m, o, f));
        assert!(plain < 0.97, "the plain μ test is right on {plain}");
        let cut_as_weakest = cut_hit_rate(|m, o, f, cut| {
            let drop_weakest = |h: &[u8]| {
                let mut b = h.to_vec();
                if b[cut] > 0 {
                    b[cut] -= 1;
                } else if let Some(w) = b.iter().position(|&c| c > 0) {
                    b[w] -= 1;
                }
                b[cut] = 0;
                b
            };
            let mut y_side = drop_weakest(o);
            let below = if f == 0 { 1 } else { 0 };
            if f > 0 {
                y_side[f - 1] += 1;
            }
            crate::games::tanhinmin::formula::mu_counts(m, &y_side, below)
                > crate::games::tanhinmin::formula::mu_counts(o, &drop_weakest(m), 0)
        });
        assert!(
            cut_as_weakest < 0.97,
            "cut as weakest is right on {cut_as_weakest}"
        );
        eprintln!("hit rates: cut guess {rate}, plain μ {plain}, cut as weakest {cut_as_weakest}");
    }

    /// A shared table large enough to be grouped by the keys' strongest
    /// cards ([`SharedMemo::grouped`]), kept across the positions of each
    /// rule set, answers as the plain recursion does.
    #[test]
    fn a_grouped_shared_table_gives_the_plain_recursions_verdicts() {
        let mut rng = chunk_rng(19, 3);
        let mut below = |n: u32| uniform_below(&mut rng, u64::from(n)) as u32;
        let hand = |below: &mut dyn FnMut(u32) -> u32| {
            let mut h: Vec<u32> = (0..3 + below(4)).map(|_| 1 + below(7)).collect();
            h.sort();
            h
        };
        for rules in [
            Rules {
                cut: Some(4),
                back: None,
            },
            Rules {
                cut: None,
                back: Some(5),
            },
            Rules {
                cut: Some(3),
                back: Some(5),
            },
        ] {
            let table = Arc::new(SharedMemo::grouped(150 << 20));
            let mut solver = VariantSolver::with_shared(rules, table, 1 << 12, 1 << 12);
            for _ in 0..400 {
                let (x, y) = (hand(&mut below), hand(&mut below));
                let r = below(8);
                let rev = r > 0 && rules.back.is_some() && below(2) == 1;
                let mut p = Position::from_cards(&x, &y, r);
                p.ranks = 7;
                p.field = r as usize;
                let want = plain_variant_wins(&x, &y, r, rev, rules);
                assert_eq!(
                    solver.mover_wins_in(&p, rev),
                    want,
                    "{x:?} {y:?} {r} {rev} {rules:?}"
                );
            }
        }
    }

    /// Sorted hands of strengths 1..=7 with duplicates, a field, an order
    /// (reversed only on a field card) and rules with distinct special ranks.
    fn case() -> impl proptest::strategy::Strategy<Value = (Vec<u32>, Vec<u32>, u32, bool, Rules)> {
        use proptest::prelude::*;
        (
            proptest::collection::vec(1u32..8, 1..6),
            proptest::collection::vec(1u32..8, 1..6),
            0u32..8,
            any::<bool>(),
            proptest::option::of(1u32..8),
            proptest::option::of(1u32..8),
        )
            .prop_map(|(mut x, mut y, r, rev, cut, back)| {
                x.sort();
                y.sort();
                let back = back.filter(|&b| Some(b) != cut);
                (x, y, r, rev && r > 0, Rules { cut, back })
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        #[test]
        fn memo_solver_equals_plain_recursion((x, y, r, rev, rules) in case()) {
            let p = Position::from_cards(&x, &y, r);
            let mut p7 = p.clone();
            p7.ranks = 7;
            p7.field = r as usize;
            let want = plain_variant_wins(&x, &y, r, rev, rules);
            let mut private = VariantSolver::new(rules, 1 << 16, 1 << 16);
            proptest::prop_assert_eq!(private.mover_wins_in(&p7, rev), want);
            // A shared table of four buckets: most entries are evicted.
            let tiny = Arc::new(SharedMemo::with_bytes(256));
            let mut shared = VariantSolver::with_shared(rules, tiny, 1 << 12, 1 << 12);
            proptest::prop_assert_eq!(shared.mover_wins_in(&p7, rev), want);
            // An own table evicting by cost, of one bucket (three entries),
            // holding every key.
            let mut costed = VariantSolver::new(rules, 64, 1 << 12).evicting_by_cost();
            proptest::prop_assert_eq!(costed.mover_wins_in(&p7, rev), want);
        }

        /// The twin's table changes nothing: the same verdict as the twin
        /// without one, from a fresh table and from one that an unrelated
        /// position filled first.
        #[test]
        fn the_table_twin_equals_the_twin_without_a_table(
            (x, y, r, rev, rules) in case(),
            (mut u, mut v) in (proptest::collection::vec(1u32..8, 1..6), proptest::collection::vec(1u32..8, 1..6)),
        ) {
            let want = plain_variant_wins(&x, &y, r, rev, rules);
            let mut fresh = MemoTwin::new(rules, usize::MAX);
            proptest::prop_assert_eq!(fresh.wins(&x, &y, r, rev), Some(want));
            let mut used = MemoTwin::new(rules, usize::MAX);
            u.sort();
            v.sort();
            used.wins(&u, &v, 0, false);
            proptest::prop_assert_eq!(used.wins(&x, &y, r, rev), Some(want));
        }

        #[test]
        fn the_cut_guess_only_orders_moves(
            mut x in proptest::collection::vec(1u32..8, 1..7),
            mut y in proptest::collection::vec(1u32..8, 1..7),
            r in 0u32..8,
            cut in 1u32..8,
            back in proptest::option::of(1u32..8),
            rev: bool,
        ) {
            x.sort();
            y.sort();
            // Under 8-cut alone, and with 11-back too (which the guess
            // leaves alone).
            let back = back.filter(|&b| b != cut);
            let r = if r == cut { 0 } else { r };
            let rev = rev && r > 0 && back.is_some();
            let rules = Rules { cut: Some(cut), back };
            let mut p = Position::from_cards(&x, &y, r);
            p.ranks = 7;
            p.field = r as usize;
            let want = plain_variant_wins(&x, &y, r, rev, rules);
            let mut guided = VariantSolver::new(rules, 1 << 16, 1 << 16);
            proptest::prop_assert_eq!(guided.mover_wins_in(&p, rev), want);
            let mut misled = VariantSolver::new(rules, 1 << 16, 1 << 16).with_guess_inverted();
            proptest::prop_assert_eq!(misled.mover_wins_in(&p, rev), want);
        }

        #[test]
        fn winning_moves_equal_the_plain_recursion_move_by_move((x, y, r, rev, rules) in case()) {
            let mut p = Position::from_cards(&x, &y, r);
            p.ranks = 7;
            p.field = r as usize;
            let want: Vec<Move> = variant_moves(&x, r, rev)
                .into_iter()
                .filter(|&m| plain_variant_move_wins(&x, &y, rev, rules, m))
                .collect();
            let mut solver = VariantSolver::new(rules, 1 << 16, 1 << 16);
            proptest::prop_assert_eq!(solver.winning_moves_in(&p, rev), want.clone());
            proptest::prop_assert_eq!(solver.mover_wins_in(&p, rev), !want.is_empty());
        }

        #[test]
        fn without_rules_it_is_the_plain_game(
            mut x in proptest::collection::vec(1u32..8, 1..6),
            mut y in proptest::collection::vec(1u32..8, 1..6),
            r in 0u32..8,
        ) {
            x.sort();
            y.sort();
            let want = plain_mover_wins(&x, &y, r);
            proptest::prop_assert_eq!(plain_variant_wins(&x, &y, r, false, Rules::PLAIN), want);
            let mut p = Position::from_cards(&x, &y, r);
            p.ranks = 7;
            p.field = r as usize;
            proptest::prop_assert_eq!(VariantSolver::new(Rules::PLAIN, 1 << 16, 1 << 16).mover_wins(&p), want);
        }

        #[test]
        fn a_special_rank_nobody_holds_changes_nothing(
            mut x in proptest::collection::vec(1u32..7, 1..6),
            mut y in proptest::collection::vec(1u32..7, 1..6),
            r in 0u32..7,
        ) {
            x.sort();
            y.sort();
            let rules = Rules { cut: Some(7), back: Some(8) };
            proptest::prop_assert_eq!(plain_variant_wins(&x, &y, r, false, rules), plain_mover_wins(&x, &y, r));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// The 64-bit key is the wide key, bit for bit, on positions of up
        /// to its card limit: random counts (up to 5 a rank, so a rank can
        /// hold most of the cards), fields, orders and special ranks.
        #[test]
        fn the_small_key_is_the_wide_key(
            mover in proptest::collection::vec(0u8..6, 1..14),
            other in proptest::collection::vec(0u8..6, 1..14),
            field in 0usize..15,
            reversed: bool,
            cut in 0usize..16,
            back in 0usize..16,
        ) {
            let ranks = mover.len().min(other.len());
            let (mut m, mut o) = (mover[..ranks].to_vec(), other[..ranks].to_vec());
            // Cards taken from the strongest ranks down to the limit.
            let mut cards: u32 = m.iter().chain(&o).map(|&c| u32::from(c)).sum();
            for i in (0..ranks).rev() {
                for hand in [&mut m, &mut o] {
                    while cards > SMALL_VARIANT_CARDS && hand[i] > 0 {
                        hand[i] -= 1;
                        cards -= 1;
                    }
                }
            }
            let (m, o) = (&m[..], &o[..]);
            let field = field.min(ranks);
            let reversed = reversed && field > 0;
            let cut = if cut < ranks { cut } else { NO_RANK };
            let back = if back < ranks && back != cut { back } else { NO_RANK };
            proptest::prop_assert_eq!(
                u128::from(variant_key::<u64>(m, o, field, reversed, cut, back)),
                variant_key::<u128>(m, o, field, reversed, cut, back)
            );
        }
    }

    #[test]
    fn the_cut_can_change_the_winner() {
        // X = {1, 8}, Y = {9}: in the plain game X must lead 1 or 8; Y beats
        // either and wins. With 8 as the cut, X plays 8, clears the field and
        // then plays 1 to win.
        let rules = Rules {
            cut: Some(8),
            back: None,
        };
        assert!(!plain_mover_wins(&[1, 8], &[9], 0));
        assert!(plain_variant_wins(&[1, 8], &[9], 0, false, rules));
    }

    #[test]
    fn under_back_an_empty_field_is_not_a_field_that_blocks_nothing() {
        let rules = Rules {
            cut: None,
            back: Some(6),
        };
        assert!(!plain_variant_wins(&[1, 6], &[1, 6], 0, false, rules));
        assert!(plain_variant_wins(&[1, 6], &[1, 6], 7, false, rules));
        let (m, o) = ([1u8, 0, 0, 0, 0, 1, 0], [1u8, 0, 0, 0, 0, 1, 0]);
        assert_ne!(
            variant_key::<u128>(&m, &o, 0, false, NO_RANK, 5),
            variant_key::<u128>(&m, &o, 7, false, NO_RANK, 5) & !63
        );
    }

    #[test]
    fn keys_keep_special_ranks_apart_from_their_run() {
        let rules_cut = Rules::index(Some(2));
        // Mover holds ranks 1, 2, 3 (2 is the cut), the opponent rank 4.
        let m = [1u8, 1, 1, 0];
        let o = [0u8, 0, 0, 1];
        let with_cut = variant_key::<u128>(&m, &o, 0, false, rules_cut, NO_RANK);
        let plain = variant_key::<u128>(&m, &o, 0, false, NO_RANK, NO_RANK);
        assert_ne!(with_cut, plain);
        // Without special ranks, a run of one owner's ranks is one group:
        // {1, 2, 3} and {1, 1, 2} are the same game and the same key.
        let m2 = [2u8, 1, 0, 0];
        assert_eq!(
            plain,
            variant_key::<u128>(&m2, &o, 0, false, NO_RANK, NO_RANK)
        );
    }
}
