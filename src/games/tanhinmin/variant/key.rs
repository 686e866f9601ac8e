//! The canonical key of a variant position, and the fingerprint that ties
//! a kept memo to the keys that wrote it.

use super::rules::NO_RANK;
use crate::games::tanhinmin::position::{SMALL_KEY_CARDS, canonical_key, canonical_key_small};

/// Most cards a variant key holds: a leading bit, two bits a card, 6 bits
/// each for the two special ranks' places, one for the order, one for a
/// field card, 6 for the blocked cards: 1 + 2 * 53 + 20 = 127.
pub const VARIANT_MAX_CARDS: u32 = 53;

/// Bits under the hands in a variant key: cut place, back place, order
/// bit, field-card bit, blocked cards.
pub(super) const TAIL_BITS: u32 = 6 + 6 + 1 + 1 + 6;
const _: () = assert!(1 + 2 * VARIANT_MAX_CARDS + TAIL_BITS <= 128);

/// Most cards whose `variant_key` fits 63 bits: a leading bit, two bits
/// a card and the tail.
pub const SMALL_VARIANT_CARDS: u32 = (63 - 1 - TAIL_BITS) / 2;

/// The smallest [`variant_key`] of a position of `cards` cards: its
/// leading bit, above two bits a card and the tail. Keys of fewer cards
/// are smaller.
pub(super) fn first_key_of(cards: u32) -> u128 {
    1 << (2 * cards + TAIL_BITS)
}

/// The integers a variant key is built in.
pub(crate) trait KeyWord:
    Copy
    + From<u32>
    + From<bool>
    + std::ops::Shl<u32, Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitAnd<Output = Self>
{
    /// The "belongs to the opponent" bit of every card: 0b0101...
    const OTHER_BITS: Self;
    /// The low `bits` bits set (`bits` below the word's width).
    fn low_bits(bits: u32) -> Self;
}

impl KeyWord for u64 {
    const OTHER_BITS: u64 = 0x5555_5555_5555_5555;
    fn low_bits(bits: u32) -> u64 {
        (1u64 << bits) - 1
    }
}

impl KeyWord for u128 {
    const OTHER_BITS: u128 = 0x5555_5555_5555_5555_5555_5555_5555_5555;
    fn low_bits(bits: u32) -> u128 {
        (1u128 << bits) - 1
    }
}

/// The canonical key of a variant position: the plain game's groups (see
/// [`crate::games::tanhinmin::position::canonical_key`]) with each special rank in a group
/// of its own, then the place (card index, 63 if nobody holds it) of the
/// cut and back groups, the order bit, whether a card is on the field, and
/// the number of the mover's cards the field blocks. `mover`, `other` need
/// not be compressed: empty ranks write nothing. At most
/// [`VARIANT_MAX_CARDS`] cards. Built in the word `K`, which must hold
/// all its bits: u128 always fits; u64 is faster (a variable shift of a
/// u128 costs several instructions) and fits [`SMALL_VARIANT_CARDS`].
#[inline(always)]
pub(crate) fn variant_key<K: KeyWord>(
    mover: &[u8],
    other: &[u8],
    field: usize,
    reversed: bool,
    cut: usize,
    back: usize,
) -> K {
    let mut key = K::from(1u32);
    let mut prev_kind = 0u32;
    let (mut cards, mut cut_at, mut back_at) = (0u32, 63u32, 63u32);
    for (i, (&a, &b)) in mover.iter().zip(other).enumerate() {
        let (a, b) = (u32::from(a), u32::from(b));
        if a + b == 0 {
            continue;
        }
        let special = i == cut || i == back;
        if i == cut {
            cut_at = cards;
        } else if i == back {
            back_at = cards;
        }
        let kind = (a > 0) as u32 | (((b > 0) as u32) << 1);
        let width = 2 * (a + b);
        let starts_group = special || kind == 3 || kind != prev_kind;
        let bits = (K::OTHER_BITS & K::low_bits(2 * b)) | (K::from(starts_group) << (width - 1));
        key = (key << width) | bits;
        // Kind 0 never matches a held rank, so the next rank starts a group.
        prev_kind = if special { 0 } else { kind };
        cards += a + b;
    }
    debug_assert!(cards <= VARIANT_MAX_CARDS);
    let blocked: u32 = match (field, reversed) {
        (0, _) => 0,
        (f, false) => mover[..f].iter().map(|&c| u32::from(c)).sum(),
        (f, true) => mover[f - 1..].iter().map(|&c| u32::from(c)).sum(),
    };
    let tail = [
        (6, cut_at),
        (6, back_at),
        (1, u32::from(reversed)),
        (1, u32::from(field > 0)),
        (6, blocked),
    ];
    tail.iter()
        .fold(key, |k, &(width, bits)| (k << width) | K::from(bits))
}

/// A fingerprint of how a variant solver's memos name positions: a CRC-32
/// of the keys of fixed positions, by `variant_key` at both widths under
/// several rule sets, and by the plain game's keys (the plain solver
/// inside keeps its own memo). A kept memo holds bare keys with verdicts;
/// read by a runner whose keys name other positions, it would hand out
/// the verdicts of other positions, without a word. Its header carries this
/// fingerprint, so such a memo is refused instead.
pub fn memo_key_encoding() -> u32 {
    key_encoding_of(
        |m, o, f, r, c, b| {
            (
                variant_key::<u64>(m, o, f, r, c, b),
                variant_key::<u128>(m, o, f, r, c, b),
            )
        },
        |m, o, f| (canonical_key_small(m, o, f), canonical_key(m, o, f)),
    )
}

/// [`memo_key_encoding`] as a kept memo's header names it: the same for
/// a run's memo and a batch's, whose solvers' own tables are alike.
pub fn memo_key_encoding_named() -> String {
    format!("variant keys {:08x}", memo_key_encoding())
}

/// [`memo_key_encoding`] of the given key functions: `variant` gives the
/// 64- and 128-bit keys, `plain` the plain game's (both widths too; the
/// 64-bit ones are used only where they fit).
fn key_encoding_of(
    variant: impl Fn(&[u8], &[u8], usize, bool, usize, usize) -> (u64, u128),
    plain: impl Fn(&[u8], &[u8], usize) -> (u64, u128),
) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    // A fixed stream (an LCG): the positions must never change.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut below = |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    for (cut, back) in [
        (NO_RANK, NO_RANK),
        (5, NO_RANK),
        (NO_RANK, 8),
        (5, 8),
        (0, 12),
    ] {
        for _ in 0..64 {
            let (mut mover, mut other) = ([0u8; 13], [0u8; 13]);
            for rank in 0..13 {
                mover[rank] = below(3) as u8;
                other[rank] = below(3) as u8;
            }
            let cards: u32 = mover.iter().chain(&other).map(|&c| u32::from(c)).sum();
            let field = below(14) as usize;
            let reversed = back != NO_RANK && field > 0 && below(2) == 1;
            let (small, large) = variant(&mover, &other, field, reversed, cut, back);
            if cards <= SMALL_VARIANT_CARDS {
                crc.update(&small.to_le_bytes());
            }
            crc.update(&large.to_le_bytes());
            let (small, large) = plain(&mover, &other, field);
            if cards <= SMALL_KEY_CARDS {
                crc.update(&small.to_le_bytes());
            }
            crc.update(&large.to_le_bytes());
        }
    }
    crc.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of positions of `c` cards lie from `first_key_of(c)` up to
    /// `first_key_of(c + 1)`, exclusive, whatever the field and order.
    #[test]
    fn a_positions_cards_bound_its_key() {
        let (none, one, two) = ([0u8; 13], [1u8; 13], [2u8; 13]);
        for (mover, other, field, reversed) in [
            (&one, &none, 0, false),
            (&two, &two, 13, true),
            (&one, &two, 5, false),
        ] {
            let cards: u32 = mover.iter().chain(other).map(|&c| u32::from(c)).sum();
            let key: u128 = variant_key(mover, other, field, reversed, NO_RANK, 8);
            assert!(first_key_of(cards) <= key && key < first_key_of(cards + 1));
        }
    }

    /// The fingerprint a kept memo's header carries changes with any change
    /// to the keys: a bit of the variant key, the two rule ranks swapped,
    /// the plain key's hands swapped. (It is computed from the key functions
    /// themselves, so no one has to remember to change it.)
    #[test]
    fn the_memo_key_encoding_changes_with_the_keys() {
        let real = memo_key_encoding();
        assert_eq!(real, memo_key_encoding(), "deterministic");
        let both = |cut_first: bool, flip: u128| {
            move |m: &[u8], o: &[u8], f, r, c, b| {
                let (c, b) = if cut_first { (c, b) } else { (b, c) };
                (
                    variant_key::<u64>(m, o, f, r, c, b),
                    variant_key::<u128>(m, o, f, r, c, b) ^ flip,
                )
            }
        };
        let plain = |m: &[u8], o: &[u8], f| (canonical_key_small(m, o, f), canonical_key(m, o, f));
        assert_eq!(key_encoding_of(both(true, 0), plain), real);
        assert_ne!(key_encoding_of(both(true, 1 << 7), plain), real);
        assert_ne!(key_encoding_of(both(false, 0), plain), real);
        let swapped = |m: &[u8], o: &[u8], f| plain(o, m, f);
        assert_ne!(key_encoding_of(both(true, 0), swapped), real);
    }
}
