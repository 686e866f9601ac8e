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
use super::memo::{MAX_KEY, PrivateMemo, SharedMemo};
use std::sync::Arc;

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

/// Which move the search tries first. Only speed depends on it: every move
/// is still searched until one wins, so the verdict is the same either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoveOrder {
    /// Weakest playable card first, pass last.
    #[default]
    WeakestFirst,
    /// The Coq proof's winning move first (seed 000, Tanhinmin.v), then
    /// weakest first. In a won position the first try then wins at once.
    ProofStrategy,
    /// Among the moves after which the μ test says the opponent loses, the
    /// one that leaves the opponent the fewest replies; then weakest first.
    /// Small refutation trees make small proofs.
    FewestReplies,
}

/// Positions with at most this many cards in all skip the memo.
pub const SMALL_POSITION_CARDS: u32 = 4;

/// A preferred move that is the pass.
pub const PASS: usize = usize::MAX;

/// The move for [`MoveOrder::FewestReplies`]: a rank index, [`PASS`], or
/// `None` when the μ test names no winning move.
///
/// Opponent replies only shrink as the card played gets stronger, so the
/// search for the winning move with the fewest replies runs from the top
/// and stops once replies grow past the best found; ties still go to the
/// weakest card. A position the μ test calls lost has no μ-winning move (by
/// the theorem), so it costs one test instead of one per move. Half the
/// positions of a proof are lost ones. This only orders moves: the search
/// still proves every verdict.
pub fn fewest_replies_move(mover: &[u8], other: &[u8], field: usize) -> Option<usize> {
    if !super::formula::mover_wins_counts(mover, other, field) {
        return None;
    }
    let ranks = mover.len();
    let mut rest = [0u8; MAX_RANKS];
    rest[..ranks].copy_from_slice(mover);
    let mut above = [0u32; MAX_RANKS + 1];
    for i in (0..ranks).rev() {
        above[i] = above[i + 1] + (other[i] > 0) as u32;
    }
    let mut best: Option<(u32, usize)> = None;
    for i in (field..ranks).rev() {
        if mover[i] == 0 {
            continue;
        }
        let replies = above[i + 1];
        if best.is_some_and(|(r, _)| replies > r) {
            break;
        }
        rest[i] -= 1;
        let opponent_wins = super::formula::mover_wins_counts(other, &rest[..ranks], i + 1);
        rest[i] += 1;
        if !opponent_wins {
            best = Some((replies, i));
        }
    }
    if best.is_none() && field > 0 && !super::formula::mover_wins_counts(other, mover, 0) {
        return Some(PASS);
    }
    best.map(|(_, i)| i)
}

/// [`fewest_replies_move`] the obvious way: the μ test after every move.
/// The fast version must choose the same move; tests compare the two.
pub fn fewest_replies_move_plain(mover: &[u8], other: &[u8], field: usize) -> Option<usize> {
    let ranks = mover.len();
    let mut rest = [0u8; MAX_RANKS];
    rest[..ranks].copy_from_slice(mover);
    let mut best: Option<(u32, usize)> = None;
    // Opponent cards above each rank, counted once from the top.
    let mut above = [0u32; MAX_RANKS + 1];
    for i in (0..ranks).rev() {
        above[i] = above[i + 1] + (other[i] > 0) as u32;
    }
    for i in field..ranks {
        if mover[i] == 0 {
            continue;
        }
        rest[i] -= 1;
        let opponent_wins = super::formula::mover_wins_counts(other, &rest[..ranks], i + 1);
        rest[i] += 1;
        let replies = above[i + 1];
        if !opponent_wins && best.is_none_or(|(r, _)| replies < r) {
            best = Some((replies, i));
        }
    }
    if best.is_none() && field > 0 && !super::formula::mover_wins_counts(other, mover, 0) {
        return Some(PASS);
    }
    best.map(|(_, i)| i)
}

/// μ(A, B) on count slices, with `b_below` extra B cards under every rank.
#[inline]
fn mu(a: &[u8], b: &[u8], b_below: u32) -> u32 {
    super::formula::mu_counts(a, b, b_below)
}

/// The winning move that the Coq proof constructs when μ0 > μ1, as a rank
/// index to play; `None` when the proof's test says the position is lost or
/// the move is a pass (then the plain order is used).
pub fn strategy_move(mover: &[u8], other: &[u8], field: usize) -> Option<usize> {
    let ranks = mover.len();
    let low = mover.iter().position(|&c| c > 0)?;
    let playable = (field..ranks).find(|&i| mover[i] > 0)?;
    let (mu0, mu1) = super::formula::mu_pair_counts(mover, other, field);
    if mu0 <= mu1 {
        return None;
    }
    if low < field {
        // Some card cannot be played: play the weakest that can.
        return Some(playable);
    }
    let second = if mover[low] >= 2 {
        low
    } else {
        (low + 1..ranks).find(|&i| mover[i] > 0)?
    };
    let mut x_minus_second = [0u8; MAX_RANKS];
    x_minus_second[..ranks].copy_from_slice(mover);
    x_minus_second[second] -= 1;
    if mu1 == mu(other, &x_minus_second[..ranks], 0) {
        Some(low)
    } else {
        Some(second)
    }
}

/// Memoized minimax solver. The memo is kept across deals, since most
/// positions recur under the canonical key; when a bucket is full its
/// smallest position is evicted, which costs time but never changes a
/// verdict.
pub struct Solver {
    /// The table shared by all threads, for keys that fit in 63 bits
    /// (positions of up to 28 cards).
    shared: Option<Arc<SharedMemo>>,
    /// This solver's own memo, for larger keys or when nothing is shared.
    private: PrivateMemo,
    order: MoveOrder,
    /// Positions expanded by search (memo misses), for the run report.
    pub positions: u64,
    /// Entries of the private memo evicted to make room.
    pub memo_evictions: u64,
    /// Positions where a preferred first move was tried, and where it won.
    pub preferred_tries: u64,
    pub preferred_wins: u64,
}

impl Solver {
    pub fn new(memo_bytes: usize) -> Self {
        Self::with_order(memo_bytes, MoveOrder::default())
    }

    /// A solver over a memo shared with other threads; keys too long for it
    /// go to a private memo of `local_bytes`.
    pub fn with_shared(shared: Arc<SharedMemo>, local_bytes: usize, order: MoveOrder) -> Self {
        let mut s = Self::with_order(local_bytes, order);
        s.shared = Some(shared);
        s
    }

    pub fn with_order(memo_bytes: usize, order: MoveOrder) -> Self {
        Solver {
            shared: None,
            private: PrivateMemo::with_bytes(memo_bytes),
            order,
            positions: 0,
            memo_evictions: 0,
            preferred_tries: 0,
            preferred_wins: 0,
        }
    }

    /// Entries in the private memo (a scan; for tests).
    pub fn memo_len(&self) -> usize {
        self.private.len()
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
        // Small positions are re-solved rather than looked up: their subtrees
        // cost less than the cache miss of a memo probe.
        let memoize = n_mover + n_other > SMALL_POSITION_CARDS;
        let key = if memoize {
            canonical_key(&mover[..ranks], &other[..ranks], field)
        } else {
            0
        };
        // The probe is usually a cache miss. Choosing the first move needs
        // only the hands, so that work runs while the bucket is on its way
        // (measured: ~20% more deals/s at 13 cards, wasted work on hits
        // included).
        if memoize {
            self.prefetch(key);
        }
        let preferred = match self.order {
            MoveOrder::WeakestFirst => None,
            MoveOrder::ProofStrategy => strategy_move(&mover[..ranks], &other[..ranks], field),
            MoveOrder::FewestReplies => {
                fewest_replies_move(&mover[..ranks], &other[..ranks], field)
            }
        };
        if memoize && let Some(v) = self.lookup(key) {
            return v;
        }
        self.positions += 1;
        let mut win = false;
        if let Some(i) = preferred {
            if i == PASS {
                win = !self.search(other, mover, n_other, n_mover, ranks, 0);
            } else {
                mover[i] -= 1;
                win = !self.search(other, mover, n_other, n_mover - 1, ranks, i + 1);
                mover[i] += 1;
            }
            self.preferred_tries += 1;
            self.preferred_wins += win as u64;
        }
        // Then weakest card first: it was the best plain order in early experiments.
        let mut i = field;
        while !win && i < ranks {
            let skip = mover[i] == 0
                || Some(i) == preferred
                // Within a run of the mover's cards with no opponent card
                // between, every card leads to the same canonical position.
                || (i > field && other[i] == 0 && other[i - 1] == 0 && mover[i - 1] > 0);
            if !skip {
                mover[i] -= 1;
                win = !self.search(other, mover, n_other, n_mover - 1, ranks, i + 1);
                mover[i] += 1;
            }
            i += 1;
        }
        if !win && field > 0 && preferred != Some(PASS) {
            win = !self.search(other, mover, n_other, n_mover, ranks, 0);
        }
        if memoize {
            self.store(key, win);
        }
        win
    }

    #[inline]
    fn prefetch(&self, key: u128) {
        match &self.shared {
            Some(shared) if key <= MAX_KEY as u128 => shared.prefetch(key),
            _ => self.private.prefetch(key),
        }
    }

    #[inline]
    fn lookup(&self, key: u128) -> Option<bool> {
        match &self.shared {
            Some(shared) if key <= MAX_KEY as u128 => shared.get(key),
            _ => self.private.get(key),
        }
    }

    #[inline]
    fn store(&mut self, key: u128, win: bool) {
        match &self.shared {
            Some(shared) if key <= MAX_KEY as u128 => {
                shared.insert(key, win);
            }
            _ => self.memo_evictions += self.private.insert(key, win) as u64,
        }
    }
}
