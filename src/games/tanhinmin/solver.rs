//! Exact memoized minimax over canonical positions ([`super::position`]).
//! Never decides by μ: the formula only orders moves ([`super::ordering`]).
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

use super::memo::{PrivateMemo, SharedMemo, Tables};
use super::moves::{Move, Outcome, RefutationBound};
use super::ordering::{
    MoveOrder, fewest_replies_move, fewest_replies_move_if_won, fewest_replies_packed, losing_move,
};
use super::packed::{self, MAX_PACKED_RANKS};
use super::position::{Position, canonical_key, key_of};
use super::strategy::proof_move_counts;
use crate::games::cards::{Hand, MAX_RANKS};
use std::sync::Arc;

/// Positions with at most this many cards in all skip the memo.
pub const SMALL_POSITION_CARDS: u32 = 4;

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
    /// The position has no preferred move. The bytes of real moves are
    /// [`Move::to_byte`]'s, all below this one.
    const NO_MOVE: u8 = Outcome::NO_MOVE;

    fn known(preferred: Option<Move>) -> Hint {
        Hint {
            preferred: preferred.map_or(Self::NO_MOVE, Move::to_byte),
            ..Self::UNKNOWN
        }
    }

    /// `None` when unknown, else the preferred move.
    fn get(self) -> Option<Option<Move>> {
        match self.preferred {
            u8::MAX => None,
            Self::NO_MOVE => Some(None),
            b => Some(Some(Move::from_byte(b))),
        }
    }
}

/// Memoized minimax solver. The memo is kept across deals, since most
/// positions recur under the canonical key; when a bucket is full its
/// smallest position is evicted, which costs time but never changes a
/// verdict.
pub struct Solver {
    /// The table shared by all threads, for keys that fit in 63 bits
    /// (positions of up to 28 cards), and this solver's own for larger
    /// keys or when nothing is shared.
    memo: Tables,
    order: MoveOrder,
    /// Positions expanded by search (memo misses), for the run report.
    pub positions: u64,
    /// Entries of the private memo evicted to make room.
    pub memo_evictions: u64,
}

impl Solver {
    /// A solver with a private memo of `memo_bytes` that tries the weakest
    /// card first: the order that never consults the formula, for studies
    /// (cut, strategy) that compare against the plain game's verdict.
    pub fn new(memo_bytes: usize) -> Self {
        Self::with_order(memo_bytes, MoveOrder::WeakestFirst)
    }

    /// A solver over a memo shared with other threads; keys too long for it
    /// go to a private memo of `local_bytes`.
    pub fn with_shared(shared: Arc<SharedMemo>, local_bytes: usize, order: MoveOrder) -> Self {
        Solver {
            memo: Tables::new(Some(shared), local_bytes),
            ..Self::with_order(0, order)
        }
    }

    /// A solver with a private memo of `memo_bytes` and the move order `order`.
    pub fn with_order(memo_bytes: usize, order: MoveOrder) -> Self {
        Solver {
            memo: Tables::new(None, memo_bytes),
            order,
            positions: 0,
            memo_evictions: 0,
        }
    }

    /// This solver's own memo (a run keeping its memo over a stop writes
    /// it out and reads it back).
    pub fn private_memo(&self) -> &PrivateMemo {
        self.memo.own()
    }

    /// See [`Tables::forget_own_if_turned_over`].
    pub fn forget_own_if_turned_over(&self) -> bool {
        self.memo.forget_own_if_turned_over()
    }

    /// Entries in the private memo (a scan; for tests).
    pub fn memo_len(&self) -> usize {
        self.memo.own().len()
    }

    /// Does the player to move win? `pos` need not be compressed.
    pub fn mover_wins(&mut self, pos: &Position) -> bool {
        let mut p = pos.compressed();
        let nm = p.mover[..p.ranks].iter().map(|&c| c as u32).sum();
        let no = p.other[..p.ranks].iter().map(|&c| c as u32).sum();
        let (ranks, field) = (p.ranks, p.field);
        self.outcome_in(&mut p.mover, &mut p.other, nm, no, ranks, field)
            .win
    }

    /// The search on count arrays as they are, also for a search nested in
    /// another game's (the card-count thresholds, the variants once no
    /// special card is left): ranks nobody holds may stay, so a winning
    /// move's byte indexes these arrays. The arrays are restored before it
    /// returns.
    pub(crate) fn outcome_in(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        n_mover: u32,
        n_other: u32,
        ranks: usize,
        field: usize,
    ) -> Outcome {
        self.search_hinted(mover, other, n_mover, n_other, ranks, field, Hint::UNKNOWN)
    }

    /// Every winning move from `pos`, weakest card first, the pass last.
    pub fn winning_moves(&mut self, pos: &Position) -> Vec<Move> {
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
                moves.push(Move::Play(i));
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
                moves.push(Move::Pass);
            }
        }
        moves
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
    ) -> Option<Move> {
        match self.order {
            MoveOrder::WeakestFirst => None,
            MoveOrder::ProofStrategy => proof_move_counts(mover, other, field),
            MoveOrder::FewestReplies if expect_win => match packed {
                Some((m, o)) => fewest_replies_packed(m, o, field, mover.len()),
                None => fewest_replies_move_if_won(mover, other, field),
            },
            MoveOrder::FewestReplies => fewest_replies_move(mover, other, field),
            MoveOrder::LosingFirst => losing_move(mover, other, field),
        }
    }

    /// The search, with the preferred move already worked out by the caller
    /// when it is known ([`Hint::UNKNOWN`] when not).
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
        mover: &mut Hand,
        other: &mut Hand,
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
        if let Some(m) = preferred {
            // The guess leaves a position believed lost, so its own guess
            // would be "no move": skip working it out.
            let child = Hint {
                key: hint.key_after_preferred,
                ..Hint::known(None)
            };
            let win = !self
                .play(mover, other, n_mover, n_other, ranks, m, child)
                .win;
            if win {
                return Outcome {
                    win,
                    by: m.to_byte(),
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

    /// Plays `m` and returns what the
    /// opponent's search proved: the mover wins by the move when the
    /// opponent does not.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn play(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        n_mover: u32,
        n_other: u32,
        ranks: usize,
        m: Move,
        hint: Hint,
    ) -> Outcome {
        match m {
            Move::Pass => self.search_hinted(other, mover, n_other, n_mover, ranks, 0, hint),
            Move::Play(i) => {
                mover[i] -= 1;
                let reply =
                    self.search_hinted(other, mover, n_other, n_mover - 1, ranks, i + 1, hint);
                mover[i] += 1;
                reply
            }
        }
    }

    /// Tries every move but `skip`, weakest card first and the pass last,
    /// until one wins, and names it.
    #[allow(clippy::too_many_arguments)]
    fn refute_all(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        n_mover: u32,
        n_other: u32,
        ranks: usize,
        field: usize,
        skip: Option<Move>,
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
                    moves[count] = Move::Play(i).to_byte();
                    count += 1;
                    i
                }
            };
            if skip == Some(Move::Play(i)) && (i == first || other[first] == 0) {
                count -= 1;
            }
        }
        if field > 0 && skip != Some(Move::Pass) {
            moves[count] = Move::PASS_BYTE;
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
                    Move::from_byte(moves[k]),
                    packed_hands,
                );
            }
        }
        // See [`RefutationBound`].
        let mut refuted = RefutationBound::default();
        for k in 0..count {
            let m = Move::from_byte(moves[k]);
            if let Move::Play(i) = m
                && refuted.refutes(i)
            {
                continue;
            }
            let reply = self.play(mover, other, n_mover, n_other, ranks, m, hints[k]);
            if !reply.win {
                return Outcome::won_by(moves[k]);
            }
            if m != Move::Pass {
                refuted.learn(reply.by);
            }
        }
        Outcome::decided(false)
    }

    /// After the mover plays `m`, the opponent's preferred answer; when it
    /// names a move, the position that answer leads to is prefetched.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn prefetch_reply(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        n_mover: u32,
        n_other: u32,
        ranks: usize,
        m: Move,
        packed_hands: Option<(u128, u128)>,
    ) -> Hint {
        let reply_field = m.field_after();
        if let Move::Play(i) = m {
            mover[i] -= 1;
        }
        // The replying side's hands: the opponent's, and the mover's less
        // the card played.
        let reply_hands = packed_hands.map(|(mine, theirs)| match m {
            Move::Pass => (theirs, mine),
            Move::Play(i) => (theirs, mine - packed::card(i)),
        });
        let reply = self.preferred_move(
            &other[..ranks],
            &mover[..ranks],
            reply_field,
            true,
            reply_hands,
        );
        let cards_after = n_mover + n_other
            - matches!(m, Move::Play(_)) as u32
            - matches!(reply, Some(Move::Play(_))) as u32;
        let mut hint = Hint::known(reply);
        if let Some(answer) = reply
            && cards_after > SMALL_POSITION_CARDS
        {
            let key = match answer {
                Move::Pass => key_of(&mover[..ranks], &other[..ranks], 0, cards_after),
                Move::Play(j) => {
                    other[j] -= 1;
                    let key = key_of(&mover[..ranks], &other[..ranks], j + 1, cards_after);
                    other[j] += 1;
                    key
                }
            };
            self.prefetch(key);
            hint.key_after_preferred = key;
        }
        if let Move::Play(i) = m {
            mover[i] += 1;
        }
        hint
    }

    #[inline]
    fn prefetch(&self, key: u128) {
        self.memo.prefetch(key);
    }

    #[inline]
    fn lookup(&self, key: u128) -> Option<bool> {
        self.memo.get(key)
    }

    #[inline]
    fn store(&mut self, key: u128, win: bool) {
        self.memo_evictions += u64::from(self.memo.insert(key, win));
    }
}
