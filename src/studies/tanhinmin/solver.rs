//! Exact memoized minimax over canonical positions. Never consults μ.
//!
//! Two facts make the memo pay off across deals:
//! - only the order of the cards matters, so ranks nobody holds are dropped;
//! - adjacent ranks held by one player only, with no card of the other
//!   player between them, are interchangeable: nobody ever plays on their own
//!   card (the opponent moves in between, and a pass clears the field), so a
//!   card in such a run beats exactly what its neighbours beat. The field only
//!   matters to the mover, as the number of the mover's weakest cards it blocks.
//!
//! A canonical key writes that structure as a bit string, so positions from
//! different deals that are the same game share one memo entry.

use super::MAX_RANKS;
use hashbrown::HashMap;

/// Hands as counts per rank; rank index `i` has strength `i + 1`.
pub type Counts = [u8; MAX_RANKS];

/// A position (X, Y, r) on count arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub mover: Counts,
    pub other: Counts,
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
    const OTHER_BITS: u128 = 0x5555_5555_5555_5555_5555_5555_5555_5555;
    let mut key: u128 = 1;
    let mut blocked: u32 = 0;
    let mut prev_kind = 0u8;
    for i in 0..mover.len() {
        let (a, b) = (mover[i] as u32, other[i] as u32);
        if a | b == 0 {
            continue;
        }
        if i < field {
            blocked += a;
        }
        let kind = (a > 0) as u8 | (((b > 0) as u8) << 1);
        let width = 2 * (a + b);
        let mut bits = OTHER_BITS & ((1u128 << (2 * b)) - 1);
        if kind == 3 || kind != prev_kind {
            bits |= 1u128 << (width - 1);
        }
        key = (key << width) | bits;
        prev_kind = kind;
    }
    (key << 6) | blocked as u128
}

/// Largest total number of cards a canonical key can describe.
pub const MAX_CARDS: usize = 60;

/// Bytes one memo entry costs in the table, including hashbrown's control
/// byte and load-factor slack, for sizing the memo from a memory budget.
pub const MEMO_ENTRY_BYTES: usize = 40;

/// Memoized minimax solver. The memo is kept across deals, since most
/// positions recur under the canonical key; when it reaches its capacity it is
/// cleared, which costs time but never changes a verdict.
pub struct Solver {
    memo: HashMap<u128, bool>,
    capacity: usize,
    /// Positions expanded by search (memo misses), for the run report.
    pub positions: u64,
    /// Times the memo was cleared for reaching its capacity.
    pub memo_clears: u64,
}

impl Solver {
    pub fn new(memo_bytes: usize) -> Self {
        Solver {
            memo: HashMap::new(),
            capacity: (memo_bytes / MEMO_ENTRY_BYTES).max(1024),
            positions: 0,
            memo_clears: 0,
        }
    }

    pub fn memo_len(&self) -> usize {
        self.memo.len()
    }

    /// Does the player to move win? `pos` need not be compressed.
    pub fn mover_wins(&mut self, pos: &Position) -> bool {
        let mut p = pos.compressed();
        let nm = p.mover[..p.ranks].iter().map(|&c| c as u32).sum();
        let no = p.other[..p.ranks].iter().map(|&c| c as u32).sum();
        let (ranks, field) = (p.ranks, p.field);
        self.search(&mut p.mover, &mut p.other, nm, no, ranks, field)
    }

    /// Every winning move from `pos`: `Some(rank index)` to play that rank,
    /// `None` to pass.
    pub fn winning_moves(&mut self, pos: &Position) -> Vec<Option<usize>> {
        let mut moves = Vec::new();
        if pos.other[..pos.ranks].iter().all(|&c| c == 0) {
            return moves;
        }
        for i in pos.field..pos.ranks {
            if pos.mover[i] == 0 {
                continue;
            }
            let mut next_other = pos.mover;
            next_other[i] -= 1;
            let next = Position {
                mover: pos.other,
                other: next_other,
                ranks: pos.ranks,
                field: i + 1,
            };
            if !self.mover_wins(&next) {
                moves.push(Some(i));
            }
        }
        if pos.field > 0 {
            let next = Position {
                mover: pos.other,
                other: pos.mover,
                ranks: pos.ranks,
                field: 0,
            };
            if !self.mover_wins(&next) {
                moves.push(None);
            }
        }
        moves
    }

    fn search(
        &mut self,
        mover: &mut Counts,
        other: &mut Counts,
        n_mover: u32,
        n_other: u32,
        ranks: usize,
        field: usize,
    ) -> bool {
        if n_other == 0 {
            return false;
        }
        // The mover can play the strongest card whenever any card is playable.
        if n_mover == 1 && mover[field..ranks].iter().any(|&c| c > 0) {
            return true;
        }
        let key = canonical_key(&mover[..ranks], &other[..ranks], field);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        self.positions += 1;
        let mut win = false;
        // Weakest card first: it was the best order in early experiments.
        for i in field..ranks {
            if mover[i] == 0 {
                continue;
            }
            mover[i] -= 1;
            let opponent_wins = self.search(other, mover, n_other, n_mover - 1, ranks, i + 1);
            mover[i] += 1;
            if !opponent_wins {
                win = true;
                break;
            }
        }
        if !win && field > 0 {
            win = !self.search(other, mover, n_other, n_mover, ranks, 0);
        }
        if self.memo.len() >= self.capacity {
            self.memo.clear();
            self.memo_clears += 1;
        }
        self.memo.insert(key, win);
        win
    }
}
