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
//!
//! Two orderings of positions prune the search. Each is proved by letting a
//! player copy a strategy from the other position move for move, and
//! `tests/solver.rs` checks both on the plain recursion:
//! - a card upgraded never hurts its holder: the stronger card can be
//!   played wherever the weaker one was, and leaves the opponent no more
//!   replies (used by [`Solver`]'s `refute_all`);
//! - a higher field never helps the mover: it only takes moves away (used by
//!   the memo, see [`super::memo`]).

use super::MAX_RANKS;
use super::formula;
use super::memo::{MAX_KEY, PrivateMemo, SharedMemo};
use super::packed::{self, MAX_PACKED_RANKS};
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
/// of the last non-empty rank), read from [`KEY_STEPS`] when both counts are
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
fn key_of(mover: &[u8], other: &[u8], field: usize, cards: u32) -> u128 {
    if cards <= SMALL_KEY_CARDS {
        canonical_key_small(mover, other, field) as u128
    } else {
        canonical_key(mover, other, field)
    }
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
    /// one that leaves the opponent the fewest replies, ties to the
    /// strongest card; then weakest first. Small refutation trees make small
    /// proofs.
    FewestReplies,
    /// For tests only (no config can name it): first a move the μ test says
    /// loses, so that the search's recovery from a wrong first guess runs.
    #[serde(skip)]
    LosingFirst,
}

/// Positions with at most this many cards in all skip the memo.
pub const SMALL_POSITION_CARDS: u32 = 4;

/// A preferred move that is the pass.
pub const PASS: usize = usize::MAX;

/// The move for [`MoveOrder::FewestReplies`]: a rank index, [`PASS`], or
/// `None` when the μ test names no winning move.
///
/// Opponent replies only shrink as the card played gets stronger, so the
/// strongest card after which the μ test says the opponent loses leaves the
/// fewest replies, and the scan stops at the first such card from the top.
/// Ties go to that strongest card on purpose: the cards tied with it form a
/// run with no opponent card between, and the only other position they can
/// lead to is playing the run's weakest card where it shares a rank with an
/// opponent card. Keeping that card and spending one the opponent cannot
/// match gave 38% smaller proofs at 26 cards (BENCHMARKS.md).
///
/// A position the μ test calls lost has no μ-winning move (by the theorem),
/// so it costs one test instead of one per move. Half the positions of a
/// proof are lost ones. This only orders moves: the search still proves
/// every verdict.
pub fn fewest_replies_move(mover: &[u8], other: &[u8], field: usize) -> Option<usize> {
    if mover.len() <= MAX_PACKED_RANKS {
        let (m, o) = (packed::pack(mover), packed::pack(other));
        packed::mover_wins(m, o, field)
            .then(|| fewest_replies_packed(m, o, field, mover.len()))
            .flatten()
    } else {
        formula::mover_wins_counts(mover, other, field)
            .then(|| fewest_replies_scan(WalkedHands { mover, other }, field, mover.len()))
            .flatten()
    }
}

/// [`fewest_replies_move`] without its first μ test, for positions the
/// caller expects to be won: every reply to a move of a lost position. In a
/// won position it names the same move; elsewhere it may name any move,
/// which costs time only.
pub fn fewest_replies_move_if_won(mover: &[u8], other: &[u8], field: usize) -> Option<usize> {
    if mover.len() <= MAX_PACKED_RANKS {
        fewest_replies_packed(packed::pack(mover), packed::pack(other), field, mover.len())
    } else {
        fewest_replies_scan(WalkedHands { mover, other }, field, mover.len())
    }
}

/// [`fewest_replies_move_if_won`] on packed hands of `ranks <=
/// MAX_PACKED_RANKS` ranks, so that a caller trying several moves packs
/// once.
#[inline]
fn fewest_replies_packed(mover: u128, other: u128, field: usize, ranks: usize) -> Option<usize> {
    let hands = PackedHands {
        mover,
        other,
        mu0_common: None,
    };
    fewest_replies_scan(hands, field, ranks)
}

/// What the fewest-replies scan asks of a position, in either hand form.
trait ScannedHands {
    /// Bit `i` set when the mover holds rank `i`.
    fn mover_ranks(&self) -> u64;
    /// Does the μ test say the opponent wins after the mover plays `rank`?
    fn opponent_wins_after_play(&mut self, rank: usize) -> bool;
    /// ... and after the mover passes?
    fn opponent_wins_after_pass(&mut self) -> bool;
}

/// Count slices and the greedy μ walk: decks of any size.
struct WalkedHands<'a> {
    mover: &'a [u8],
    other: &'a [u8],
}

impl ScannedHands for WalkedHands<'_> {
    fn mover_ranks(&self) -> u64 {
        self.mover
            .iter()
            .enumerate()
            .fold(0u64, |m, (i, &n)| m | (((n > 0) as u64) << i))
    }
    fn opponent_wins_after_play(&mut self, rank: usize) -> bool {
        formula::opponent_wins_after_play(self.mover, self.other, rank)
    }
    fn opponent_wins_after_pass(&mut self) -> bool {
        formula::mover_wins_counts(self.other, self.mover, 0)
    }
}

/// Packed hands and Hall's μ (see [`packed`]).
struct PackedHands {
    mover: u128,
    other: u128,
    mu0_common: Option<u32>,
}

impl ScannedHands for PackedHands {
    #[inline]
    fn mover_ranks(&self) -> u64 {
        packed::held_ranks(self.mover) as u64
    }
    #[inline]
    fn opponent_wins_after_play(&mut self, rank: usize) -> bool {
        packed::opponent_wins_after_play(self.mover, self.other, rank, &mut self.mu0_common)
    }
    #[inline]
    fn opponent_wins_after_pass(&mut self) -> bool {
        packed::mover_wins(self.other, self.mover, 0)
    }
}

/// The scan of [`fewest_replies_move_if_won`]: the mover's playable ranks
/// from the strongest down, to the first that the μ test says wins.
#[inline(always)]
fn fewest_replies_scan(mut hands: impl ScannedHands, field: usize, ranks: usize) -> Option<usize> {
    debug_assert!(ranks <= 64);
    let mut playable = hands.mover_ranks() & !((1u64 << field.min(63)) - 1);
    if field >= 64 {
        playable = 0;
    }
    while playable != 0 {
        let i = 63 - playable.leading_zeros() as usize;
        playable ^= 1 << i;
        if !hands.opponent_wins_after_play(i) {
            return Some(i);
        }
    }
    (field > 0 && !hands.opponent_wins_after_pass()).then_some(PASS)
}

/// [`fewest_replies_move`] the obvious way: the μ test after every move,
/// then the fewest replies (opponent ranks above the card), ties to the
/// strongest card. The fast version must choose the same move; tests compare
/// the two.
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
        if !opponent_wins && best.is_none_or(|(r, _)| replies <= r) {
            best = Some((replies, i));
        }
    }
    if best.is_none() && field > 0 && !super::formula::mover_wins_counts(other, mover, 0) {
        return Some(PASS);
    }
    best.map(|(_, i)| i)
}

/// The weakest move after which the μ test says the opponent wins, for
/// [`MoveOrder::LosingFirst`].
fn losing_move(mover: &[u8], other: &[u8], field: usize) -> Option<usize> {
    if other.iter().all(|&c| c == 0) {
        return None;
    }
    let card = (field..mover.len())
        .find(|&i| mover[i] > 0 && super::formula::opponent_wins_after_play(mover, other, i));
    let pass = field > 0 && super::formula::mover_wins_counts(other, mover, 0);
    card.or(pass.then_some(PASS))
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

/// What a caller already knows of a position: its preferred move (one
/// byte; rank indices are below 64) and canonical keys it has built. Every
/// refuted position fills an array of these, one per move; the keys were
/// built there to prefetch memo buckets, and are not built twice.
#[derive(Clone, Copy)]
struct Hint {
    preferred: u8,
    /// This position's canonical key, 0 when not known.
    key: u128,
    /// The key of the position the preferred move leads to, 0 when not
    /// known.
    key_after_preferred: u128,
}

impl Hint {
    const UNKNOWN: Hint = Hint {
        preferred: u8::MAX,
        key: 0,
        key_after_preferred: 0,
    };
    const NO_MOVE: u8 = u8::MAX - 1;
    const PASS_MOVE: u8 = u8::MAX - 2;

    fn known(preferred: Option<usize>) -> Hint {
        Hint {
            preferred: preferred.map_or(Self::NO_MOVE, Self::move_byte),
            ..Self::UNKNOWN
        }
    }

    /// `None` when unknown, else the preferred move.
    fn get(self) -> Option<Option<usize>> {
        match self.preferred {
            u8::MAX => None,
            Self::NO_MOVE => Some(None),
            b => Some(Some(Self::byte_move(b))),
        }
    }

    /// A move (rank index or [`PASS`]) in one byte, as hints and move lists
    /// store it.
    fn move_byte(m: usize) -> u8 {
        if m == PASS { Self::PASS_MOVE } else { m as u8 }
    }

    fn byte_move(b: u8) -> usize {
        if b == Self::PASS_MOVE {
            PASS
        } else {
            b as usize
        }
    }
}

const _: () = assert!(MAX_RANKS < Hint::PASS_MOVE as usize);

/// What a search proved: whether its mover wins, and the move it won by
/// ([`Hint::move_byte`]), or [`Hint::NO_MOVE`] when the verdict came from
/// the memo or a shortcut. A caller refuting several moves reuses a
/// winning reply it knows.
#[derive(Clone, Copy)]
struct Outcome {
    win: bool,
    by: u8,
}

impl Outcome {
    /// A verdict whose winning move, if any, is not known.
    fn decided(win: bool) -> Outcome {
        Outcome {
            win,
            by: Hint::NO_MOVE,
        }
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
        self.search_hinted(mover, other, n_mover, n_other, ranks, field, Hint::UNKNOWN)
            .win
    }

    /// The first move to try, if the move order names one. `expect_win`:
    /// the position is a reply to a move of a position believed lost, so
    /// it is believed won. `packed`: the two hands already packed (see
    /// [`packed`]), when the caller has them.
    #[inline(always)]
    fn preferred_move(
        &self,
        mover: &[u8],
        other: &[u8],
        field: usize,
        expect_win: bool,
        packed: Option<(u128, u128)>,
    ) -> Option<usize> {
        match self.order {
            MoveOrder::WeakestFirst => None,
            MoveOrder::ProofStrategy => strategy_move(mover, other, field),
            MoveOrder::FewestReplies if expect_win => match packed {
                Some((m, o)) => fewest_replies_packed(m, o, field, mover.len()),
                None => fewest_replies_move_if_won(mover, other, field),
            },
            MoveOrder::FewestReplies => fewest_replies_move(mover, other, field),
            MoveOrder::LosingFirst => losing_move(mover, other, field),
        }
    }

    /// [`Self::search`] with the preferred move already worked out by the
    /// caller, when it is known.
    ///
    /// Positions with a preferred move are not memoized when the move wins
    /// (always, while the theorem holds): such a position costs one probe
    /// of its child, the same as a memo hit, and the table keeps its room
    /// for positions whose every move must be refuted. Those are the
    /// expensive ones; before refuting their moves one by one, the search
    /// works out each reply's preferred answer and prefetches the position
    /// it leads to, so the memo's cache misses overlap instead of queueing
    /// (measured in BENCHMARKS.md).
    #[allow(clippy::too_many_arguments)]
    fn search_hinted(
        &mut self,
        mover: &mut Counts,
        other: &mut Counts,
        n_mover: u32,
        n_other: u32,
        ranks: usize,
        field: usize,
        hint: Hint,
    ) -> Outcome {
        if n_other == 0 {
            return Outcome::decided(false);
        }
        // The mover can play the strongest card whenever any card is playable.
        if n_mover == 1 && mover[field..ranks].iter().any(|&c| c > 0) {
            return Outcome::decided(true);
        }
        let preferred = match hint.get() {
            Some(known) => known,
            None => self.preferred_move(&mover[..ranks], &other[..ranks], field, false, None),
        };
        self.positions += 1;
        if let Some(i) = preferred {
            // The guess leaves a position believed lost, so its own guess
            // would be "no move": skip working it out.
            let child = Hint {
                key: hint.key_after_preferred,
                ..Hint::known(None)
            };
            let win = !self
                .play(mover, other, n_mover, n_other, ranks, i, child)
                .win;
            self.preferred_tries += 1;
            self.preferred_wins += win as u64;
            if win {
                return Outcome {
                    win,
                    by: Hint::move_byte(i),
                };
            }
        }
        // Small positions are re-solved rather than looked up: their subtrees
        // cost less than the cache miss of a memo probe.
        if n_mover + n_other <= SMALL_POSITION_CARDS {
            return self.refute_all(mover, other, n_mover, n_other, ranks, field, preferred);
        }
        let key = if hint.key != 0 {
            hint.key
        } else {
            key_of(&mover[..ranks], &other[..ranks], field, n_mover + n_other)
        };
        debug_assert_eq!(key, canonical_key(&mover[..ranks], &other[..ranks], field));
        if let Some(v) = self.lookup(key) {
            self.positions -= 1;
            return Outcome::decided(v);
        }
        let outcome = self.refute_all(mover, other, n_mover, n_other, ranks, field, preferred);
        self.store(key, outcome.win);
        outcome
    }

    /// Plays rank index `i` (or passes, for [`PASS`]) and returns what the
    /// opponent's search proved: the mover wins by the move when the
    /// opponent does not.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn play(
        &mut self,
        mover: &mut Counts,
        other: &mut Counts,
        n_mover: u32,
        n_other: u32,
        ranks: usize,
        i: usize,
        hint: Hint,
    ) -> Outcome {
        if i == PASS {
            self.search_hinted(other, mover, n_other, n_mover, ranks, 0, hint)
        } else {
            mover[i] -= 1;
            let reply = self.search_hinted(other, mover, n_other, n_mover - 1, ranks, i + 1, hint);
            mover[i] += 1;
            reply
        }
    }

    /// Tries every move but `skip`, weakest card first and the pass last,
    /// until one wins, and names it.
    #[allow(clippy::too_many_arguments)]
    fn refute_all(
        &mut self,
        mover: &mut Counts,
        other: &mut Counts,
        n_mover: u32,
        n_other: u32,
        ranks: usize,
        field: usize,
        skip: Option<usize>,
    ) -> Outcome {
        let mut moves = [0u8; MAX_RANKS + 1];
        let mut count = 0;
        // Cards with no opponent card between them leave the opponent the
        // same replies, and the weaker one keeps the stronger card in hand:
        // a card upgraded is never worse for its holder (a strategy for the
        // weaker hand works for the stronger one, card for card), so the
        // weakest card of each such class wins whenever any card of it wins,
        // and one move stands for the class. A class whose weakest card
        // leads where `skip` leads was searched already: `skip` is that card,
        // or lies in the run of mover-only ranks that it starts.
        let mut class_first: Option<usize> = None;
        for i in field..ranks {
            if other[i] > 0 {
                class_first = None;
            }
            if mover[i] == 0 {
                continue;
            }
            let first = match class_first {
                Some(first) => first,
                None => {
                    class_first = Some(i);
                    moves[count] = Hint::move_byte(i);
                    count += 1;
                    i
                }
            };
            if Some(i) == skip && (i == first || other[first] == 0) {
                count -= 1;
            }
        }
        if field > 0 && skip != Some(PASS) {
            moves[count] = Hint::move_byte(PASS);
            count += 1;
        }
        // Hints are 48 bytes: filling an array for 64 ranks costs more than
        // a small position's whole search, so decks of up to 16 ranks use a
        // short one.
        let mut short_hints = [Hint::UNKNOWN; MAX_PACKED_RANKS + 1];
        let mut long_hints = Vec::new();
        let hints: &mut [Hint] = if count <= short_hints.len() {
            &mut short_hints[..count]
        } else {
            long_hints.resize(count, Hint::UNKNOWN);
            &mut long_hints
        };
        if self.order != MoveOrder::WeakestFirst && n_mover > 1 {
            let packed_hands = (ranks <= MAX_PACKED_RANKS)
                .then(|| (packed::pack(&mover[..ranks]), packed::pack(&other[..ranks])));
            for k in 0..count {
                hints[k] = self.prefetch_reply(
                    mover,
                    other,
                    n_mover,
                    n_other,
                    ranks,
                    Hint::byte_move(moves[k]),
                    packed_hands,
                );
            }
        }
        // A card refuted by the reply `b` (the position after both is lost
        // for the mover) refutes every stronger card below `b` too: after
        // it `b` is still a legal reply, and it leaves the same position
        // but for a weaker card in the mover's hand. A pass refutes every
        // stronger card. Cards are tried weakest first, so one bound holds
        // all that earlier refutations settle.
        let mut refuted_below = 0usize;
        for k in 0..count {
            let m = Hint::byte_move(moves[k]);
            if m != PASS && m < refuted_below {
                continue;
            }
            let reply = self.play(mover, other, n_mover, n_other, ranks, m, hints[k]);
            if !reply.win {
                return Outcome {
                    win: true,
                    by: moves[k],
                };
            }
            if m != PASS {
                match reply.by {
                    Hint::NO_MOVE => {}
                    Hint::PASS_MOVE => refuted_below = usize::MAX,
                    reply => refuted_below = refuted_below.max(reply as usize),
                }
            }
        }
        Outcome::decided(false)
    }

    /// After the mover plays `i`, the opponent's preferred answer; when it
    /// names a move, the position that answer leads to is prefetched.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn prefetch_reply(
        &mut self,
        mover: &mut Counts,
        other: &mut Counts,
        n_mover: u32,
        n_other: u32,
        ranks: usize,
        i: usize,
        packed_hands: Option<(u128, u128)>,
    ) -> Hint {
        let reply_field = if i == PASS { 0 } else { i + 1 };
        if i != PASS {
            mover[i] -= 1;
        }
        // The replying side's hands: the opponent's, and the mover's less
        // the card played.
        let reply_hands = packed_hands.map(|(m, o)| (o, m - packed::card(i)));
        let reply = self.preferred_move(
            &other[..ranks],
            &mover[..ranks],
            reply_field,
            true,
            reply_hands,
        );
        let cards_after =
            n_mover + n_other - (i != PASS) as u32 - matches!(reply, Some(j) if j != PASS) as u32;
        let mut hint = Hint::known(reply);
        if let Some(j) = reply
            && cards_after > SMALL_POSITION_CARDS
        {
            let key = if j == PASS {
                key_of(&mover[..ranks], &other[..ranks], 0, cards_after)
            } else {
                other[j] -= 1;
                let key = key_of(&mover[..ranks], &other[..ranks], j + 1, cards_after);
                other[j] += 1;
                key
            };
            self.prefetch(key);
            hint.key_after_preferred = key;
        }
        if i != PASS {
            mover[i] += 1;
        }
        hint
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
