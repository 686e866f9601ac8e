//! The μ matching and the Kitani–Ono test μ(X, Y- + {r}) > μ(Y, X-).
//!
//! Two forms of each: one on sorted card lists, written to read like the
//! statement, and one on per-rank count arrays, which the runner uses on every
//! deal. Tests hold the two equal.

/// How the formula's two μ values decide the winner.
pub type Claim = fn(u32, u32) -> bool;

/// The theorem: the mover wins iff μ0 > μ1.
pub fn theorem(mu0: u32, mu1: u32) -> bool {
    mu0 > mu1
}

/// A deliberately wrong claim, used to show that disagreements are caught.
pub fn broken_claim(mu0: u32, mu1: u32) -> bool {
    mu0 >= mu1
}

/// μ(A, B): the size of a maximum matching that pairs each card a of `a`
/// with a distinct card b of `b` where b < a. Both slices sorted ascending.
///
/// Greedy is optimal: walking A upwards, every unmatched B card below the
/// current A card is also below every later A card, so which one is used does
/// not matter, and matching as early as possible never hurts.
pub fn mu_sorted(a: &[u32], b: &[u32]) -> u32 {
    let mut j = 0;
    let mut matched = 0;
    for &card in a {
        if j < b.len() && b[j] < card {
            matched += 1;
            j += 1;
        }
    }
    matched
}

/// The two μ values of a position (X, Y, r) given as sorted lists.
/// `r == 0` is the empty field, which enters Y- as a card every card beats.
pub fn mu_pair_sorted(x: &[u32], y: &[u32], r: u32) -> (u32, u32) {
    // Room for r too, so that inserting it does not move the list again.
    let mut y_minus_r: Vec<u32> = Vec::with_capacity(y.len().max(1));
    y_minus_r.extend(y.iter().skip(1));
    let at = y_minus_r.partition_point(|&c| c < r);
    y_minus_r.insert(at, r);
    let x_minus = x.get(1..).unwrap_or(&[]);
    (mu_sorted(x, &y_minus_r), mu_sorted(y, x_minus))
}

/// The theorem's verdict on sorted lists: does the player to move win?
pub fn mover_wins_sorted(x: &[u32], y: &[u32], r: u32) -> bool {
    let (mu0, mu1) = mu_pair_sorted(x, y, r);
    mu0 > mu1
}

/// μ(A, B) on count arrays over ranks `0..a.len()`, plus `b_below` B cards
/// that lie below every rank (the empty field card).
#[inline]
pub fn mu_counts(a: &[u8], b: &[u8], b_below: u32) -> u32 {
    mu_adjusted(a, NO_RANK, b, [NO_RANK; 2], NO_RANK, b_below)
}

/// "No rank" for the adjustments of [`mu_adjusted`].
const NO_RANK: usize = usize::MAX;

/// [`mu_counts`] on hands that differ from `a` and `b` by single cards:
/// one card fewer of `a` at rank `a_minus`, of `b` at the ranks in
/// `b_minus`, one more of `b` at `b_plus` ([`NO_RANK`] for none). The search
/// asks this several times per position, and building the changed hands
/// cost more than the walk itself (measured: two array copies per call).
#[inline(always)]
fn mu_adjusted(
    a: &[u8],
    a_minus: usize,
    b: &[u8],
    b_minus: [usize; 2],
    b_plus: usize,
    b_below: u32,
) -> u32 {
    let mut available = b_below;
    let mut matched = 0;
    for (i, (&ac, &bc)) in a.iter().zip(b).enumerate() {
        let here = (ac as u32 - (i == a_minus) as u32).min(available);
        matched += here;
        available = available - here + bc as u32 + (i == b_plus) as u32
            - (i == b_minus[0]) as u32
            - (i == b_minus[1]) as u32;
    }
    matched
}

/// The weakest rank of `c` after taking one card from rank `minus`.
#[inline(always)]
fn weakest(c: &[u8], minus: usize) -> usize {
    c.iter()
        .enumerate()
        .position(|(i, &n)| n as u32 > (i == minus) as u32)
        .unwrap_or(NO_RANK)
}

/// The two μ values of a position on count arrays.
///
/// `field` is a rank threshold: the field card has strength `field`, so with
/// ranks numbered from 1 it sits on rank index `field - 1`, and `0` is the
/// empty field below every card.
#[inline]
pub fn mu_pair_counts(x: &[u8], y: &[u8], field: usize) -> (u32, u32) {
    let ranks = x.len();
    debug_assert_eq!(ranks, y.len());
    // A field above every rank is beaten by nothing, so it never matches.
    let (field_rank, below) = match field {
        0 => (NO_RANK, 1),
        f if f <= ranks => (f - 1, 0),
        _ => (NO_RANK, 0),
    };
    let mu0 = mu_adjusted(
        x,
        NO_RANK,
        y,
        [weakest(y, NO_RANK), NO_RANK],
        field_rank,
        below,
    );
    let mu1 = mu_adjusted(y, NO_RANK, x, [weakest(x, NO_RANK), NO_RANK], NO_RANK, 0);
    (mu0, mu1)
}

/// The theorem's verdict for the opponent after the mover plays one card of
/// rank index `played`: `mover_wins_counts(other, mover - {played}, played
/// + 1)` without building the new hand.
#[inline]
pub fn opponent_wins_after_play(mover: &[u8], other: &[u8], played: usize) -> bool {
    debug_assert!(mover[played] > 0);
    // Y- + {r}: the played card leaves Y and comes back as the field card,
    // so only the weakest card left in Y goes.
    let rest_weakest = weakest(mover, played);
    let mu0 = mu_adjusted(other, NO_RANK, mover, [rest_weakest, NO_RANK], NO_RANK, 0);
    let mu1 = mu_adjusted(
        mover,
        played,
        other,
        [weakest(other, NO_RANK), NO_RANK],
        NO_RANK,
        0,
    );
    mu0 > mu1
}

/// The theorem's verdict on count arrays.
#[inline]
pub fn mover_wins_counts(x: &[u8], y: &[u8], field: usize) -> bool {
    let (mu0, mu1) = mu_pair_counts(x, y, field);
    mu0 > mu1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worked_example_from_the_coq_readme() {
        let (x, y) = ([1, 1, 3, 4], [1, 2, 3, 5]);
        assert_eq!(mu_pair_sorted(&x, &y, 0), (3, 2));
        assert!(mover_wins_sorted(&x, &y, 0));
    }

    #[test]
    fn mu_basics() {
        assert_eq!(mu_sorted(&[], &[1, 2]), 0);
        assert_eq!(mu_sorted(&[3], &[]), 0);
        assert_eq!(mu_sorted(&[2, 2], &[1, 1]), 2);
        assert_eq!(mu_sorted(&[2, 2], &[2, 2]), 0);
        assert_eq!(mu_sorted(&[1, 5], &[2, 3]), 1);
        assert_eq!(mu_sorted(&[3, 4, 5], &[1, 2, 3]), 3);
    }

    /// Exhaustive maximum matching by trying every assignment, to check the
    /// greedy walk is truly maximum.
    fn mu_brute(a: &[u32], b: &[u32]) -> u32 {
        fn go(a: &[u32], b: &[u32], used: &mut Vec<bool>) -> u32 {
            let Some((&first, rest)) = a.split_first() else {
                return 0;
            };
            let mut best = go(rest, b, used);
            for j in 0..b.len() {
                if !used[j] && b[j] < first {
                    used[j] = true;
                    best = best.max(1 + go(rest, b, used));
                    used[j] = false;
                }
            }
            best
        }
        go(a, b, &mut vec![false; b.len()])
    }

    fn counts(cards: &[u32], ranks: usize) -> Vec<u8> {
        let mut c = vec![0u8; ranks];
        for &v in cards {
            c[v as usize - 1] += 1;
        }
        c
    }

    proptest::proptest! {
        #[test]
        fn verdict_after_a_play_equals_building_the_new_hand(
            mut x in proptest::collection::vec(1u32..8, 1..8),
            mut y in proptest::collection::vec(0u32..8, 0..8),
            pick in 0usize..8,
        ) {
            x.sort();
            y.retain(|&c| c > 0);
            y.sort();
            let (cx, cy) = (counts(&x, 7), counts(&y, 7));
            let played = x[pick % x.len()] as usize - 1;
            let mut rest = cx.clone();
            rest[played] -= 1;
            proptest::prop_assert_eq!(
                opponent_wins_after_play(&cx, &cy, played),
                mover_wins_counts(&cy, &rest, played + 1)
            );
        }

        #[test]
        fn greedy_mu_is_maximum(mut a in proptest::collection::vec(1u32..6, 0..6),
                                mut b in proptest::collection::vec(1u32..6, 0..6)) {
            a.sort();
            b.sort();
            proptest::prop_assert_eq!(mu_sorted(&a, &b), mu_brute(&a, &b));
        }

        #[test]
        fn count_form_equals_sorted_form(mut x in proptest::collection::vec(1u32..8, 1..8),
                                         mut y in proptest::collection::vec(1u32..8, 1..8),
                                         field in 0usize..8) {
            x.sort();
            y.sort();
            let (cx, cy) = (counts(&x, 7), counts(&y, 7));
            proptest::prop_assert_eq!(mu_pair_counts(&cx, &cy, field), mu_pair_sorted(&x, &y, field as u32));
        }
    }
}
