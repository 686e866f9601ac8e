//! Exact first-player win counts from the μ formula by a dynamic programme
//! over ranks, without enumerating deals.
//!
//! Both μ values are greedy walks up the ranks (see `formula::mu_counts`):
//! μ(X, Y- + {r}) keeps the number of unmatched Y- cards (and the field)
//! below the current rank, μ(Y, X-) the number of unmatched X- cards. So a
//! deal can be built rank by rank while carrying only
//!
//!   (cards given to X, cards given to Y, unmatched Y- below,
//!    unmatched X- below, μ0 - μ1)
//!
//! and each rank's choice (x cards to X, y to Y) is weighted by the number
//! of ways to pick those physical cards, C(c, x) C(c - x, y). Y's weakest
//! card is left out of Y- at the first rank where Y gets a card, and the
//! same for X. The counts are exact integers.

use crate::stats::binomial;
use hashbrown::HashMap;
use num_bigint::BigUint;

/// Deals and first-player wins of one cell, by the formula.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Weighted deals.
    pub deals: u128,
    /// Weighted deals the formula says the first player wins.
    pub first_wins: u128,
}

/// Bits per field of the packed state; every count is below 64.
const BITS: u32 = 7;
const MASK: u32 = (1 << BITS) - 1;
/// Offset that keeps μ0 - μ1 non-negative in the key.
const D_OFFSET: i32 = 63;

fn pack(i: u32, j: u32, a0: u32, a1: u32, d: i32) -> u64 {
    let d = (d + D_OFFSET) as u64;
    (u64::from(i) << (4 * BITS))
        | (u64::from(j) << (3 * BITS))
        | (u64::from(a0) << (2 * BITS))
        | (u64::from(a1) << BITS)
        | d
}

fn unpack(k: u64) -> (u32, u32, u32, u32, i32) {
    let f = |s: u32| ((k >> (s * BITS)) as u32) & MASK;
    (f(4), f(3), f(2), f(1), f(0) as i32 - D_OFFSET)
}

/// Deals of `n_first` and `n_second` cards from a deck with `copies[r]`
/// cards of rank r+1, and how many the player to move wins by the theorem,
/// with the field of strength `field` (0: empty). The field card is a
/// strength only, not taken from the deck, as in the runner's configs.
///
/// Counted in u128 with checked arithmetic; if any step would overflow, the
/// same programme runs again on big integers. `None` only when the final
/// counts themselves pass u128 (the config check refuses such cells).
pub fn formula_tally(copies: &[u32], n_first: u32, n_second: u32, field: u32) -> Option<Tally> {
    let (deals, first_wins) = match tally_in::<u128>(copies, n_first, n_second, field) {
        Some(t) => t,
        None => {
            let (d, w) = tally_in::<BigUint>(copies, n_first, n_second, field)?;
            (u128::try_from(d).ok()?, u128::try_from(w).ok()?)
        }
    };
    Some(Tally { deals, first_wins })
}

/// A deal count the programme can run in: u128 that reports overflow, or
/// big integers that never do.
trait Count: Clone {
    fn one() -> Self;
    /// `self + w * C(c, x) * C(c - x, y)`, or `None` on overflow.
    fn plus_ways(&self, w: &Self, c: u32, x: u32, y: u32) -> Option<Self>;
    fn plus(&self, other: &Self) -> Option<Self>;
    fn zero() -> Self;
}

impl Count for u128 {
    fn one() -> Self {
        1
    }
    fn zero() -> Self {
        0
    }
    fn plus_ways(&self, w: &Self, c: u32, x: u32, y: u32) -> Option<Self> {
        let ways = binomial(c, x)?.checked_mul(binomial(c - x, y)?)?;
        self.checked_add(w.checked_mul(ways)?)
    }
    fn plus(&self, other: &Self) -> Option<Self> {
        self.checked_add(*other)
    }
}

impl Count for BigUint {
    fn one() -> Self {
        BigUint::from(1u32)
    }
    fn zero() -> Self {
        BigUint::default()
    }
    fn plus_ways(&self, w: &Self, c: u32, x: u32, y: u32) -> Option<Self> {
        Some(self + w * big_binomial(c, x) * big_binomial(c - x, y))
    }
    fn plus(&self, other: &Self) -> Option<Self> {
        Some(self + other)
    }
}

/// C(n, k) in big integers.
fn big_binomial(n: u32, k: u32) -> BigUint {
    if k > n {
        return BigUint::default();
    }
    let mut acc = BigUint::from(1u32);
    for i in 0..k.min(n - k) {
        acc = acc * (n - i) / (i + 1);
    }
    acc
}

/// The programme in count type `W`: (deals, first-player wins), or `None`
/// when `W` overflows.
fn tally_in<W: Count>(copies: &[u32], n_first: u32, n_second: u32, field: u32) -> Option<(W, W)> {
    assert!(n_first >= 1 && n_second >= 1 && n_first + n_second < 64);
    // Cards still to come at and after each rank, to drop hopeless states.
    let mut after = vec![0u32; copies.len() + 1];
    for r in (0..copies.len()).rev() {
        after[r] = after[r + 1] + copies[r];
    }
    let mut states: HashMap<u64, W> = HashMap::new();
    // The empty field is a Y- card below every rank.
    let start_a0 = u32::from(field == 0);
    states.insert(pack(0, 0, start_a0, 0, 0), W::one());
    for (r, &c) in copies.iter().enumerate() {
        let field_here = u32::from(field as usize == r + 1);
        let mut next: HashMap<u64, W> = HashMap::with_capacity(states.len() * 2);
        for (&key, w) in &states {
            let (i, j, a0, a1, d) = unpack(key);
            for x in 0..=c.min(n_first - i) {
                for y in 0..=(c - x).min(n_second - j) {
                    let (ni, nj) = (i + x, j + y);
                    if n_first - ni + n_second - nj > after[r + 1] {
                        continue;
                    }
                    // μ0: X's cards here beat unmatched Y- cards below.
                    let m0 = x.min(a0);
                    let y_minus_here = if j == 0 && y > 0 { y - 1 } else { y };
                    let na0 = a0 - m0 + y_minus_here + field_here;
                    // μ1: Y's cards here beat unmatched X- cards below.
                    let m1 = y.min(a1);
                    let x_minus_here = if i == 0 && x > 0 { x - 1 } else { x };
                    let na1 = a1 - m1 + x_minus_here;
                    let nd = d + m0 as i32 - m1 as i32;
                    let slot = next
                        .entry(pack(ni, nj, na0, na1, nd))
                        .or_insert_with(W::zero);
                    *slot = slot.plus_ways(w, c, x, y)?;
                }
            }
        }
        states = next;
    }
    let (mut deals, mut first_wins) = (W::zero(), W::zero());
    for (&key, w) in &states {
        let (i, j, _, _, d) = unpack(key);
        debug_assert!(i == n_first && j == n_second);
        deals = deals.plus(w)?;
        if d > 0 {
            first_wins = first_wins.plus(w)?;
        }
    }
    Some((deals, first_wins))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cards::{Deck, PerRankDealSpace};
    use crate::games::tanhinmin::formula::mover_wins_counts;
    use proptest::prelude::*;

    /// The plain twin: every per-rank deal, weighted, through the formula.
    fn by_enumeration(copies: &[u32], a: u32, b: u32, field: u32) -> Tally {
        let deck = Deck {
            copies: copies.to_vec(),
        };
        let space = PerRankDealSpace::new(&deck, a, b).unwrap();
        let ranks = copies.len();
        let mut t = Tally::default();
        space.for_each_in_range(0, space.len(), |deal| {
            t.deals += deal.weight;
            if mover_wins_counts(&deal.first[..ranks], &deal.second[..ranks], field as usize) {
                t.first_wins += deal.weight;
            }
        });
        t
    }

    #[test]
    fn two_by_two_from_52_cards() {
        let t = formula_tally(&[4; 13], 2, 2, 0).unwrap();
        assert_eq!(t.deals, 1_624_350);
        // 661/1225 of them, as the exhaustive minimax found.
        assert_eq!(t.first_wins * 1225, 661 * t.deals);
    }

    proptest! {
        #[test]
        fn dp_equals_enumeration(
            copies in proptest::collection::vec(1u32..4, 1..6),
            a in 1u32..4,
            b in 1u32..4,
            field in 0u32..7,
        ) {
            let total: u32 = copies.iter().sum();
            prop_assume!(a + b <= total);
            let field = field.min(copies.len() as u32);
            prop_assert_eq!(formula_tally(&copies, a, b, field).unwrap(), by_enumeration(&copies, a, b, field));
        }
    }

    #[test]
    fn a_wrong_formula_would_be_caught_by_the_twin() {
        // Counting ties as wins changes the tally, so the comparison above
        // can fail.
        let copies = [2, 2, 2, 2];
        let deck = Deck {
            copies: copies.to_vec(),
        };
        let space = PerRankDealSpace::new(&deck, 2, 2).unwrap();
        let mut ties_as_wins = 0u128;
        space.for_each_in_range(0, space.len(), |deal| {
            let (m0, m1) = crate::games::tanhinmin::formula::mu_pair_counts(
                &deal.first[..4],
                &deal.second[..4],
                0,
            );
            if m0 >= m1 {
                ties_as_wins += deal.weight;
            }
        });
        assert_ne!(
            ties_as_wins,
            formula_tally(&copies, 2, 2, 0).unwrap().first_wins
        );
    }

    /// The u128 programme (with its fallback) against the big-integer one
    /// on large decks and hands, up to where u128 overflows: equal while the
    /// counts fit, `None` (never a wrapped number) past that.
    #[test]
    fn u128_counts_match_big_integers_or_refuse() {
        let mut fitted = 0;
        let mut refused = 0;
        for (ranks, copies) in [(13, 4), (40, 6), (64, 4), (64, 12), (30, 255)] {
            let deck = vec![copies; ranks];
            for (a, b) in [(3, 3), (8, 9), (12, 12), (16, 15)] {
                if a + b > ranks as u32 * copies || a + b >= 64 {
                    continue;
                }
                let (d, w) = tally_in::<BigUint>(&deck, a, b, 0).unwrap();
                assert!(w <= d);
                match formula_tally(&deck, a, b, 0) {
                    Some(t) => {
                        assert_eq!(BigUint::from(t.deals), d, "{ranks}x{copies} {a}x{b}");
                        assert_eq!(BigUint::from(t.first_wins), w);
                        fitted += 1;
                    }
                    None => {
                        assert!(d > BigUint::from(u128::MAX), "{ranks}x{copies} {a}x{b}");
                        refused += 1;
                    }
                }
            }
        }
        assert!(
            fitted >= 10 && refused >= 2,
            "{fitted} fitted, {refused} refused"
        );
    }

    #[test]
    fn big_binomials_are_pascal() {
        for n in 0..40u32 {
            for k in 0..=n + 1 {
                let expected = binomial(n, k).map(BigUint::from).unwrap();
                assert_eq!(big_binomial(n, k), expected, "C({n}, {k})");
            }
        }
    }
}
