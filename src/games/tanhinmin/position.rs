//! Positions of the plain game and their canonical keys.
//!
//! Only the order of the cards matters, so ranks nobody holds are dropped;
//! and adjacent ranks held by one player only, with no card of the other
//! player between them, are interchangeable: nobody ever plays on their own
//! card (the opponent moves in between, and a pass clears the field), so a
//! card in such a run beats exactly what its neighbours beat. The field only
//! matters to the mover, as the number of the mover's weakest cards it
//! blocks. A canonical key writes that structure as a bit string, so
//! positions from different deals that are the same game share one memo
//! entry.

use crate::games::cards::{Hand, MAX_RANKS};

/// A position (X, Y, r) on count arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The hand of the player to move.
    pub mover: Hand,
    /// The other player's hand.
    pub other: Hand,
    /// Number of rank slots in use.
    pub ranks: usize,
    /// Field strength: cards of rank index `< field` cannot be played.
    pub field: usize,
}

impl Position {
    /// Builds a position from sorted card strengths (each >= 1).
    pub fn from_cards(x: &[u32], y: &[u32], r: u32) -> Self {
        let top = x.iter().chain(y).copied().max().unwrap_or(0) as usize;
        assert!(top <= MAX_RANKS, "card strength above {MAX_RANKS}");
        let mut p = Position {
            mover: [0; MAX_RANKS],
            other: [0; MAX_RANKS],
            ranks: top,
            field: (r as usize).min(top),
        };
        for &c in x {
            p.mover[c as usize - 1] += 1;
        }
        for &c in y {
            p.other[c as usize - 1] += 1;
        }
        p
    }

    /// Drops ranks that neither hand holds, keeping the field's place.
    pub fn compressed(&self) -> Self {
        let mut out = Position {
            mover: [0; MAX_RANKS],
            other: [0; MAX_RANKS],
            ranks: 0,
            field: 0,
        };
        for i in 0..self.ranks {
            if self.mover[i] | self.other[i] != 0 {
                out.mover[out.ranks] = self.mover[i];
                out.other[out.ranks] = self.other[i];
                out.ranks += 1;
                if i < self.field {
                    out.field = out.ranks;
                }
            }
        }
        out
    }
}

/// The canonical key of a position. Cards are written weakest first, two
/// bits each: "starts a new group of equal cards" and "belongs to the
/// opponent". Within a group the mover's cards come first. A leading 1 bit
/// makes lengths unambiguous, and the low 6 bits hold how many of the
/// mover's cards the field blocks. Fits 60 cards.
#[inline]
pub fn canonical_key(mover: &[u8], other: &[u8], field: usize) -> u128 {
    let mut key: u128 = 1;
    let mut prev_kind = 0u32;
    for (&a, &b) in mover.iter().zip(other) {
        let (bits, width, kind) = rank_bits(prev_kind, a as u32, b as u32);
        key = (key << width) | bits;
        prev_kind = kind;
    }
    let blocked: u32 = mover[..field.min(mover.len())]
        .iter()
        .map(|&c| c as u32)
        .sum();
    (key << 6) | blocked as u128
}

/// One rank of a canonical key, after a rank of kind `prev_kind` (0 none
/// yet, 1 mover only, 2 opponent only, 3 both): the rank's bits, their
/// number, and the kind carried on to the next rank. Branch-free: whether a
/// rank is empty is a coin toss, and an empty one simply writes nothing and
/// carries the old kind.
#[inline(always)]
const fn rank_bits(prev_kind: u32, a: u32, b: u32) -> (u128, u32, u32) {
    const OTHER_BITS: u128 = 0x5555_5555_5555_5555_5555_5555_5555_5555;
    let kind = (a > 0) as u32 | (((b > 0) as u32) << 1);
    let width = 2 * (a + b);
    let starts_group = (kind == 3 || kind != prev_kind) as u128;
    let bits = (OTHER_BITS & ((1u128 << (2 * b)) - 1)) | ((starts_group << width) >> 1);
    let carried = if kind == 0 { prev_kind } else { kind };
    (bits, width, carried)
}

/// [`canonical_key`] for positions of at most [`SMALL_KEY_CARDS`] cards, in
/// 64-bit arithmetic: the same bits, but a variable shift of a u128 costs
/// several instructions, and keys are built for nearly every position the
/// search visits. Tests check it against [`canonical_key`].
///
/// Each rank is one step of a small state machine (the state is the kind
/// of the last non-empty rank), read from `KEY_STEPS` when both counts are
/// below 8; a deck with more copies of a rank takes the wide key.
#[inline]
pub fn canonical_key_small(mover: &[u8], other: &[u8], field: usize) -> u64 {
    let mut key: u64 = 1;
    let mut prev_kind = 0u64;
    for (&a, &b) in mover.iter().zip(other) {
        if (a | b) >= 8 {
            return canonical_key(mover, other, field) as u64;
        }
        let step = KEY_STEPS[(prev_kind | (a as u64) << 2 | (b as u64) << 5) as usize];
        key = (key << (step >> 32 & 0xFF)) | (step & 0xFFFF_FFFF);
        prev_kind = step >> 40;
    }
    let blocked: u32 = mover[..field.min(mover.len())]
        .iter()
        .map(|&c| c as u32)
        .sum();
    (key << 6) | blocked as u64
}

/// [`rank_bits`] in one word for [`KEY_STEPS`]: the bits in the low 32
/// (counts are below 8, so they fit), their number in bits 32..40, the
/// carried kind from bit 40.
const fn key_step(prev_kind: u64, a: u64, b: u64) -> u64 {
    let (bits, width, carried) = rank_bits(prev_kind as u32, a as u32, b as u32);
    bits as u64 | (width as u64) << 32 | (carried as u64) << 40
}

/// [`key_step`] for every state and counts below 8, indexed by
/// `prev_kind | a << 2 | b << 5`.
static KEY_STEPS: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = key_step((i & 3) as u64, ((i >> 2) & 7) as u64, (i >> 5) as u64);
        i += 1;
    }
    table
};

/// Most cards whose key [`canonical_key_small`] can build: a leading bit,
/// two bits a card and six for the field fill 63 bits, the width of a
/// shared memo key.
pub const SMALL_KEY_CARDS: u32 = 28;

/// The canonical key of a position of `cards` cards in all, by the fastest
/// way that fits.
#[inline]
pub(crate) fn key_of(mover: &[u8], other: &[u8], field: usize, cards: u32) -> u128 {
    if cards <= SMALL_KEY_CARDS {
        canonical_key_small(mover, other, field) as u128
    } else {
        canonical_key(mover, other, field)
    }
}
/// Most ranks a [`pack_position`] key holds: 6 bits a rank and 6 for the
/// field, 126 of 128 bits.
pub const PACKED_MAX_RANKS: u32 = 20;
/// Most copies of a rank a [`pack_position`] key holds (3 bits a hand).
pub const PACKED_MAX_COPIES: u32 = 7;

/// Packs counts (3 bits each, mover and other per rank) and the field: the
/// key of the variant solvers, which do not merge runs of ranks as
/// [`canonical_key`] does. Decks within [`PACKED_MAX_RANKS`] and
/// [`PACKED_MAX_COPIES`] only.
pub fn pack_position(p: &Position) -> u128 {
    let mut k: u128 = 0;
    for i in 0..p.ranks {
        k = (k << 6) | (u128::from(p.mover[i]) << 3) | u128::from(p.other[i]);
    }
    (k << 6) | p.field as u128
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cards::{Deal, DealSpace, Deck, PerRankDealSpace};

    /// Sums the weights of a compressed space's deals by a key that only
    /// depends on the order of cards in play (the relative hands and field).
    fn weights_by_shape(
        deck: &Deck,
        a: u32,
        b: u32,
        field: u32,
        compressed: bool,
    ) -> std::collections::BTreeMap<String, u128> {
        let mut out = std::collections::BTreeMap::new();
        let ranks = deck.copies.len();
        let mut add = |d: &Deal| {
            let p = Position {
                mover: d.first,
                other: d.second,
                ranks,
                field: field as usize,
            }
            .compressed();
            let key = canonical_key(&p.mover[..p.ranks], &p.other[..p.ranks], p.field);
            // The canonical key merges runs; add the raw shape too so the
            // comparison is as strict as possible.
            let shape = format!(
                "{key:x}/{:?}/{:?}/{}",
                &p.mover[..p.ranks],
                &p.other[..p.ranks],
                p.field
            );
            *out.entry(shape).or_insert(0) += d.weight;
        };
        if compressed {
            let s = DealSpace::new(deck, a, b, field).unwrap();
            s.for_each_in_range(0, s.len(), &mut add);
        } else {
            let s = PerRankDealSpace::new(deck, a, b).unwrap();
            s.for_each_in_range(0, s.len(), &mut add);
        }
        out
    }

    #[test]
    fn compressed_space_has_the_same_weight_per_shape_as_the_plain_one() {
        let decks = [
            Deck {
                copies: vec![4; 13],
            },
            Deck {
                copies: vec![2, 3, 1, 4, 2, 2],
            },
            Deck {
                copies: vec![4, 4, 4, 4, 4, 4, 2],
            },
        ];
        for deck in &decks {
            let top = deck.copies.len() as u32;
            for (a, b) in [(1, 1), (2, 2), (3, 2), (2, 4)] {
                for field in [0, 1, 3, top] {
                    assert_eq!(
                        weights_by_shape(deck, a, b, field, true),
                        weights_by_shape(deck, a, b, field, false),
                        "deck {:?} {a}x{b} field {field}",
                        deck.copies
                    );
                }
            }
        }
    }
}
