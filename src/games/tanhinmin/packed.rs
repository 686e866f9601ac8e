//! μ on hands packed one rank per byte into a u128, for the search's move
//! ordering. The greedy walk in [`super::formula`] is a chain of dependent
//! steps, one per rank, and the search asks for μ after nearly every
//! candidate move; here μ is a handful of whole-word operations, and taking
//! a card from a hand is one subtraction.
//!
//! Hall's theorem gives μ without walking: a card of rank `s` can only be
//! matched below `s`, so the worst-off cards of A are always a lower set,
//! and μ(A, B) = |A| - max(0, max_t (#A at ranks <= t - #B at ranks < t)).
//! Prefix sums of packed bytes are three shift-adds, and the maximum over `t`
//! is a byte-wise maximum.
//!
//! Only decks of at most [`MAX_PACKED_RANKS`] ranks are packed; the verdict
//! side of the runner never uses this module. Tests hold it equal to the
//! walk.

/// Ranks that fit in one packed hand.
pub const MAX_PACKED_RANKS: usize = 16;

/// One in every byte.
const ONES: u128 = u128::MAX / 0xFF;

/// Added to every byte of a difference so that it stays positive: counts
/// and their prefix sums are at most 60 cards.
const BIAS: u128 = 0x80 * ONES;

/// Counts per rank, rank `i` in byte `i`. `counts.len() <=
/// MAX_PACKED_RANKS`.
#[inline]
pub fn pack(counts: &[u8]) -> u128 {
    debug_assert!(counts.len() <= MAX_PACKED_RANKS);
    let mut bytes = [0u8; MAX_PACKED_RANKS];
    for (b, &c) in bytes.iter_mut().zip(counts) {
        *b = c;
    }
    u128::from_le_bytes(bytes)
}

/// One card at rank `i`; nothing for a rank beyond the packed ones (the
/// "no rank" marker of the callers).
#[inline]
pub fn card(i: usize) -> u128 {
    if i < MAX_PACKED_RANKS {
        1u128 << (8 * i)
    } else {
        0
    }
}

/// Bit `i` set when rank `i` holds a card.
#[inline]
pub fn held_ranks(hand: u128) -> u32 {
    // Fold each byte onto its low bit, then gather the low bits of eight
    // bytes into one byte by a multiplication (no two partial products
    // overlap).
    let mut x = hand;
    x |= x >> 4;
    x |= x >> 2;
    x |= x >> 1;
    x &= ONES;
    let gather = |half: u64| (half.wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32;
    gather(x as u64) | (gather((x >> 64) as u64) << 8)
}

/// The weakest rank held, or `usize::MAX` for an empty hand.
#[inline]
pub fn weakest(hand: u128) -> usize {
    if hand == 0 {
        usize::MAX
    } else {
        hand.trailing_zeros() as usize / 8
    }
}

/// Byte `i` becomes the sum of bytes `0..=i`.
#[inline]
fn prefix_sums(x: u128) -> u128 {
    let x = x + (x << 8);
    let x = x + (x << 16);
    let x = x + (x << 32);
    x + (x << 64)
}

/// The largest byte.
#[inline]
fn max_byte(x: u128) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_cvtsi128_si32, _mm_max_epu8, _mm_set_epi64x, _mm_srli_si128};
        // SAFETY: these intrinsics only need SSE2, which every x86_64 CPU
        // has (it is part of the target's baseline), and touch no memory.
        unsafe {
            let v = _mm_set_epi64x((x >> 64) as i64, x as i64);
            let v = _mm_max_epu8(v, _mm_srli_si128::<8>(v));
            let v = _mm_max_epu8(v, _mm_srli_si128::<4>(v));
            let v = _mm_max_epu8(v, _mm_srli_si128::<2>(v));
            let v = _mm_max_epu8(v, _mm_srli_si128::<1>(v));
            (_mm_cvtsi128_si32(v) & 0xFF) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        x.to_le_bytes().into_iter().max().unwrap_or(0) as u32
    }
}

/// μ(A, B) with `b_below` (0 or 1) extra B cards under every rank.
#[inline]
pub fn mu(a: u128, b: u128, b_below: u32) -> u32 {
    let a_at_or_below = prefix_sums(a);
    let b_strictly_below = (prefix_sums(b) << 8) + b_below as u128 * ONES;
    let surplus = max_byte(a_at_or_below + BIAS - b_strictly_below);
    let size_a = (a_at_or_below >> 120) as u32;
    size_a - surplus.saturating_sub(0x80)
}

/// The theorem's verdict for the mover of (X, Y, field), as
/// [`super::formula::mover_wins_counts`] gives it.
#[inline]
pub fn mover_wins(x: u128, y: u128, field: usize) -> bool {
    // Y- + {r}: Y's weakest card leaves and the field card joins; the empty
    // field is a card below every rank, a field above all ranks matches
    // nothing.
    let y_minus = y - card(weakest(y));
    let (y_field, below) = match field {
        0 => (y_minus, 1),
        f => (y_minus + card(f - 1), 0),
    };
    let x_minus = x - card(weakest(x));
    mu(x, y_field, below) > mu(y, x_minus, 0)
}

/// After the mover plays rank `played`, does the μ test say the opponent
/// wins? As [`super::formula::opponent_wins_after_play`]; `mu0_common` holds
/// μ(other, mover - weakest), the opponent's side for every play but that
/// of a single weakest card, once worked out.
#[inline]
pub fn opponent_wins_after_play(
    mover: u128,
    other: u128,
    played: usize,
    mu0_common: &mut Option<u32>,
) -> bool {
    let rest = mover - card(played);
    // Y- + {r} for the opponent is the mover's hand without the weakest
    // card left after the play: the played card returns as the field.
    let rest_weakest = weakest(rest);
    let mu0 = if rest_weakest == weakest(mover) {
        *mu0_common.get_or_insert_with(|| mu(other, mover - card(rest_weakest), 0))
    } else {
        mu(other, mover - card(rest_weakest), 0)
    };
    let mu1 = mu(rest, other - card(weakest(other)), 0);
    mu0 > mu1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::formula;
    use proptest::prelude::*;

    fn counts(max_ranks: usize) -> impl Strategy<Value = Vec<u8>> {
        (1..=max_ranks).prop_flat_map(|n| proptest::collection::vec(0u8..5, n))
    }

    fn pair() -> impl Strategy<Value = (Vec<u8>, Vec<u8>)> {
        (1..=MAX_PACKED_RANKS).prop_flat_map(|n| {
            (
                proptest::collection::vec(0u8..5, n),
                proptest::collection::vec(0u8..5, n),
            )
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(5000))]

        #[test]
        fn mu_equals_the_greedy_walk((a, b) in pair(), below in 0u32..2) {
            prop_assert_eq!(mu(pack(&a), pack(&b), below), formula::mu_counts(&a, &b, below));
        }

        #[test]
        fn verdict_equals_the_walk((x, y) in pair(), field in 0usize..=MAX_PACKED_RANKS) {
            let field = field.min(x.len());
            prop_assume!(x.iter().any(|&c| c > 0));
            prop_assert_eq!(
                mover_wins(pack(&x), pack(&y), field),
                formula::mover_wins_counts(&x, &y, field)
            );
        }

        #[test]
        fn verdict_after_each_play_equals_the_walk((x, y) in pair()) {
            let (m, o) = (pack(&x), pack(&y));
            let mut mu0_common = None;
            for i in (0..x.len()).rev().filter(|&i| x[i] > 0) {
                prop_assert_eq!(
                    opponent_wins_after_play(m, o, i, &mut mu0_common),
                    formula::opponent_wins_after_play(&x, &y, i),
                    "play {}", i
                );
            }
        }

        #[test]
        fn held_ranks_marks_every_nonempty_rank(c in counts(MAX_PACKED_RANKS)) {
            let expected = c.iter().enumerate().fold(0u32, |m, (i, &n)| m | (((n > 0) as u32) << i));
            prop_assert_eq!(held_ranks(pack(&c)), expected);
        }

        #[test]
        fn weakest_is_the_lowest_held_rank(c in counts(MAX_PACKED_RANKS)) {
            let expected = c.iter().position(|&n| n > 0).unwrap_or(usize::MAX);
            prop_assert_eq!(weakest(pack(&c)), expected);
        }
    }

    /// The Hall form must see a surplus anywhere, not only at the top: here
    /// the two weakest A cards have nothing below them.
    #[test]
    fn worked_examples() {
        // A = {2, 2, 5}, B = {1, 4}: 2 beats 1, 5 beats 4, one 2 is left.
        assert_eq!(mu(pack(&[0, 2, 0, 0, 1]), pack(&[1, 0, 0, 1, 0]), 0), 2);
        // With the empty field under everything the second 2 matches too.
        assert_eq!(mu(pack(&[0, 2, 0, 0, 1]), pack(&[1, 0, 0, 1, 0]), 1), 3);
        assert_eq!(mu(pack(&[3]), pack(&[3]), 0), 0);
        assert_eq!(mu(0, pack(&[1, 1]), 1), 0);
    }
}
