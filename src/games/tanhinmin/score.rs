//! The card-count game: the plain game scored by the cards left in the
//! loser's hand, and conjecture C1's closed form for its value.
//!
//! When a player empties their hand, the score is the number of cards left
//! in the loser's hand, positive for the player to move at the root if they
//! win. Each player maximises their own score. Pass on an empty field is
//! not allowed, as in the plain game.
//!
//! Conjecture C1 (found by brute force, unpublished), with T(X, Y, r) the
//! theorem's test μ(X, Y- + {r}) > μ(Y, X-) and top_k(H) the k strongest
//! cards of H:
//! - if T(X, Y, r), the value is |Y| - b* + 1, b* the smallest b with
//!   T(X, top_b(Y), r);
//! - otherwise it is -(|X| - a* + 1), a* the smallest a for which
//!   T(top_a(X), Y, r) fails.

use super::formula::mover_wins_sorted;
use super::memo::{BoundedMemo, BucketMemo, FIELD_BITS, Tables};
use super::moves::{
    ClassRules, Move, Outcome, RefutationBound, hand_after, legal_moves, move_classes,
};
use super::ordering::{MoveOrder, mu_guesses_mover_wins};
use super::position::{Position, SMALL_KEY_CARDS, canonical_key, key_of};
use super::solver::{SMALL_POSITION_CARDS, Solver};
use crate::games::cards::{Hand, MAX_RANKS};
use crate::games::stop::{POSITIONS_PER_POLL, StopPoll};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Memoised card-count minimax on canonical positions.
pub struct ScoreSolver {
    memo: BoundedMemo<i8>,
    /// Positions expanded (memo misses), for run details.
    pub positions: u64,
}

impl ScoreSolver {
    /// A solver with a memo of about `memo_bytes`.
    pub fn new(memo_bytes: usize) -> Self {
        ScoreSolver {
            memo: BoundedMemo::with_bytes(memo_bytes),
            positions: 0,
        }
    }

    /// The score for the player to move in `p` (both hands non-empty).
    pub fn score(&mut self, p: &Position) -> i32 {
        let c = p.compressed();
        // The canonical key merges runs of one owner's ranks: those
        // positions are the same game with the same card counts, so the
        // same score, and they share one memo entry.
        let key = canonical_key(&c.mover[..c.ranks], &c.other[..c.ranks], c.field);
        if let Some(v) = self.memo.get(key) {
            return i32::from(v);
        }
        self.positions += 1;
        let nm: u32 = c.mover[..c.ranks].iter().map(|&v| u32::from(v)).sum();
        let no: u32 = c.other[..c.ranks].iter().map(|&v| u32::from(v)).sum();
        let mut best = i32::MIN;
        for i in c.field..c.ranks {
            if c.mover[i] == 0 {
                continue;
            }
            if nm == 1 {
                best = best.max(no as i32);
                continue;
            }
            let mut child = Position {
                mover: c.other,
                other: c.mover,
                ranks: c.ranks,
                field: i + 1,
            };
            child.other[i] -= 1;
            best = best.max(-self.score(&child));
        }
        if c.field > 0 {
            let child = Position {
                mover: c.other,
                other: c.mover,
                ranks: c.ranks,
                field: 0,
            };
            best = best.max(-self.score(&child));
        }
        self.memo.insert(key, best as i8);
        best
    }
}

/// Bits of a threshold in a memo key: thresholds run from -63 to 64.
const THRESHOLD_BITS: u32 = 7;

/// The threshold searches' table shared by all threads (keys of up to 63
/// bits). The threshold is its ranked quantity: "reaches v" implies
/// "reaches every lower v", so the searches at `v` and `v + 1` (which ask
/// every position at adjacent thresholds) answer each other's positions
/// whenever the verdict carries over.
pub type ThresholdShared = BucketMemo<std::sync::atomic::AtomicU64, THRESHOLD_BITS>;

/// Most cards in play whose threshold key fits the private memo's 127 bits:
/// a leading bit, two bits a card, the threshold and the field. Larger
/// deals (the config allows 60 cards) use the full-value minimax.
pub const THRESHOLD_MAX_CARDS: u32 = (127 - 1 - THRESHOLD_BITS - FIELD_BITS) / 2;
const _: () = assert!(1 + 2 * THRESHOLD_MAX_CARDS + THRESHOLD_BITS + FIELD_BITS <= 127);

/// Moves whose children's keys are built and prefetched up front.
const PREFETCHED_MOVES: usize = 16;

/// The canonical key of a position with the threshold `v` folded in just
/// above the field bits, where the threshold tables read it as their ranked
/// quantity ([`ThresholdShared`]); the memo's field rule (a higher field
/// only takes moves from the mover) still applies below it.
fn threshold_key(key: u128, v: i32) -> u128 {
    let field_mask = (1u128 << FIELD_BITS) - 1;
    let v = (v + 63).clamp(0, 127) as u128;
    ((key >> FIELD_BITS) << (THRESHOLD_BITS + FIELD_BITS)) | (v << FIELD_BITS) | (key & field_mask)
}

/// The card-count game as win/lose questions: can the player to move
/// guarantee a score of at least `v`? Two such questions, at `v` and
/// `v + 1`, prove the value is exactly `v`, and each is a plain boolean
/// search: a move that answers "yes" ends the scan, where the full-value
/// minimax of [`ScoreSolver`] must try every move. The closed form (C1)
/// only picks `v`; the searches decide.
///
/// The card-count study answers these questions faster by the plain game
/// ([`super::dropped_cards`]); this search of the card-count game itself,
/// which knows nothing of that lemma, is its twin in the tests.
///
/// Where the answer is the plain game's (a threshold of at most 1 for a
/// mover who wins, of at least 0 for one who loses), a plain solver of its
/// own proves it instead; see its `search`.
///
/// Memo entries are canonical keys with the threshold folded in, in the
/// shared lock-free table kept across deals when they fit 63 bits (up to
/// 24 cards), else in a private table of the thread. Both tables rank the
/// threshold like the field, so an entry also answers lower thresholds
/// when won and higher ones when lost (5% fewer positions on 5,000 13x13
/// deals; under 1% on 200 26x26 deals).
pub struct ThresholdSolver {
    memo: Tables<THRESHOLD_BITS>,
    /// The plain game's solver: a score of at least 1 is a win (see
    /// [`Self::search`]).
    plain: Solver,
    /// Positions expanded (memo misses), the plain game's searches
    /// included, for run details.
    pub positions: u64,
    /// The run's stop request, which the search looks at (see
    /// [`Self::try_reaches`]).
    stop: StopPoll,
}

impl ThresholdSolver {
    /// A solver using `shared` for its threshold entries, a private table
    /// of `private_bytes` for keys too long for it, and one of
    /// `plain_bytes` for the plain game's entries.
    pub fn new(
        shared: std::sync::Arc<ThresholdShared>,
        private_bytes: usize,
        plain_bytes: usize,
    ) -> Self {
        ThresholdSolver {
            memo: Tables::new(Some(shared), private_bytes),
            plain: Solver::with_order(plain_bytes, MoveOrder::default()),
            positions: 0,
            stop: StopPoll::never(),
        }
    }

    /// The same solver, giving up its search when `stop` becomes true (a
    /// 26x26 deal's searches can take minutes).
    pub fn with_stop(self, stop: Arc<AtomicBool>) -> Self {
        self.with_stop_polled_every(stop, POSITIONS_PER_POLL)
    }

    /// As [`Self::with_stop`], looking at `stop` every `positions`
    /// positions: for tests that make small searches give up.
    #[doc(hidden)]
    pub fn with_stop_polled_every(self, stop: Arc<AtomicBool>, positions: u32) -> Self {
        ThresholdSolver {
            stop: StopPoll::on(stop, positions),
            ..self
        }
    }

    /// Can the player to move in `p` (both hands non-empty) guarantee a
    /// score of at least `v`? For a solver without a stop token
    /// ([`Self::with_stop`]).
    /// At most [`THRESHOLD_MAX_CARDS`] cards; larger positions would
    /// alias in the memo, so they are refused by a panic here and kept away
    /// by the caller.
    pub fn reaches(&mut self, p: &Position, v: i32) -> bool {
        assert!(
            !self.stop.can_give_up(),
            "a solver that can give up answers through try_reaches"
        );
        self.try_reaches(p, v)
            .expect("a search without a stop token never gives up")
    }

    /// As [`Self::reaches`], or `None` when a stop was requested before the
    /// search finished. Nothing the search stored is wrong: it stops
    /// storing the moment it gives up.
    pub fn try_reaches(&mut self, p: &Position, v: i32) -> Option<bool> {
        let (mut mover, mut other) = (p.mover, p.other);
        let nm: u32 = mover[..p.ranks].iter().map(|&x| u32::from(x)).sum();
        let no: u32 = other[..p.ranks].iter().map(|&x| u32::from(x)).sum();
        assert!(
            nm + no <= THRESHOLD_MAX_CARDS,
            "{} cards is more than a threshold key holds",
            nm + no
        );
        self.stop.start();
        let plain_before = self.plain.positions;
        let reached = self
            .search(&mut mover, &mut other, nm, no, p.ranks, p.field, v, 0)
            .win;
        self.positions += self.plain.positions - plain_before;
        (!self.stop.gave_up()).then_some(reached)
    }

    /// The search on count arrays, changed in place and restored. Ranks
    /// nobody holds may stay in the arrays: the canonical key skips them,
    /// and rank indices then mean the same at every depth, which the
    /// refutation bound needs.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        nm: u32,
        no: u32,
        ranks: usize,
        field: usize,
        v: i32,
        known_key: u128,
    ) -> Outcome {
        if self.stop.gave_up() {
            return Outcome::decided(false);
        }
        // The mover's score lies in [-nm, no]: a winner gains the loser's
        // cards, a loser loses at most all of their own.
        if v > no as i32 {
            return Outcome::decided(false);
        }
        if v <= -(nm as i32) {
            return Outcome::decided(true);
        }
        if nm == 1
            && let Some(i) = (field..ranks).find(|&i| mover[i] > 0)
        {
            // The last card wins, scoring `no >= v`.
            return Outcome::won_by(i as u8);
        }
        // No score is 0 (the loser keeps a card), so "at least 1" is "wins"
        // and "at least 0" too: where the mover wins, every threshold of at
        // most 1 is reached; where the mover loses, no threshold of at least
        // 0 is. The plain game's search decides those (fast: its μ-guided
        // order finds a winning move first), and only the winner's margin
        // and the loser's loss are left to this search. The μ test only
        // picks which search to run: when it guesses wrong, the plain answer
        // may not settle the threshold and this search goes on.
        // Above 28 cards the plain entries go to a private table, and the
        // plain searches cost more than they save (26x26: 0.9x).
        let settles = |win: bool| (win && v <= 1) || (!win && v >= 0);
        if (SMALL_POSITION_CARDS + 1..=SMALL_KEY_CARDS).contains(&(nm + no))
            && settles(mu_guesses_mover_wins(
                &mover[..ranks],
                &other[..ranks],
                field,
            ))
        {
            let plain = self.plain.outcome_in(mover, other, nm, no, ranks, field);
            if settles(plain.win) {
                return plain;
            }
        }
        // Small positions are re-solved rather than looked up: their
        // subtrees cost less than the cache miss of a memo probe.
        let key = (nm + no > SMALL_POSITION_CARDS).then(|| {
            if known_key != 0 {
                known_key
            } else {
                threshold_key(key_of(&mover[..ranks], &other[..ranks], field, nm + no), v)
            }
        });
        if let Some(key) = key
            && let Some(answer) = self.recall(key)
        {
            return Outcome::decided(answer);
        }
        self.positions += 1;
        self.stop.tick();
        // Mover's score >= v exactly when some move leaves the opponent unable
        // to reach 1 - v (their score is minus the mover's). One card per move
        // class, weakest first, with the refutation bound: "a card upgraded
        // never hurts its holder" holds in the card-count game too (the holder
        // of the stronger card copies the strategy and ends every line with
        // the same counts). Weakest first: measured on 5,000 sampled 13x13
        // deals, trying the strongest first was 14x slower.
        let answer = 'decided: {
            let mut moves = [0u8; MAX_RANKS];
            let count = move_classes(mover, other, field..ranks, ClassRules::PLAIN, &mut moves);
            // Every child's key, its bucket prefetched so the misses
            // overlap, and handed down so the child does not build it again.
            let mut keys = [0u128; PREFETCHED_MOVES];
            if nm + no - 1 > SMALL_POSITION_CARDS {
                for (k, &m) in moves[..count.min(PREFETCHED_MOVES)].iter().enumerate() {
                    let i = usize::from(m);
                    mover[i] -= 1;
                    let child = key_of(&other[..ranks], &mover[..ranks], i + 1, nm + no - 1);
                    mover[i] += 1;
                    keys[k] = threshold_key(child, 1 - v);
                    self.prefetch(keys[k]);
                }
            }
            let mut refuted = RefutationBound::default();
            for (k, &m) in moves[..count].iter().enumerate() {
                let i = usize::from(m);
                if refuted.refutes(i) {
                    continue;
                }
                let known = keys.get(k).copied().unwrap_or(0);
                mover[i] -= 1;
                let reply = self.search(other, mover, no, nm - 1, ranks, i + 1, 1 - v, known);
                mover[i] += 1;
                if !reply.win {
                    break 'decided Outcome::won_by(m);
                }
                refuted.learn(reply.by);
            }
            if field > 0 && !self.search(other, mover, no, nm, ranks, 0, 1 - v, 0).win {
                break 'decided Outcome::won_by(Move::PASS_BYTE);
            }
            Outcome::decided(false)
        };
        if let Some(key) = key {
            self.remember(key, answer.win);
        }
        answer
    }

    fn prefetch(&self, key: u128) {
        self.memo.prefetch(key);
    }

    fn recall(&self, key: u128) -> Option<bool> {
        self.memo.get(key)
    }

    fn remember(&self, key: u128, win: bool) {
        if !self.stop.gave_up() {
            self.memo.insert(key, win);
        }
    }
}

/// The plain twin: the same scored game on sorted lists, no memo.
pub fn plain_score(x: &[u32], y: &[u32], r: u32) -> i32 {
    legal_moves(x, r)
        .into_iter()
        .map(|m| match m {
            Move::Play(_) if x.len() == 1 => y.len() as i32,
            Move::Play(i) => -plain_score(y, &hand_after(x, m), i as u32 + 1),
            Move::Pass => -plain_score(y, x, 0),
        })
        .max()
        .unwrap_or(i32::MIN)
}

/// Conjecture C1's value of (X, Y, r), on sorted lists.
pub fn c1_value(x: &[u32], y: &[u32], r: u32) -> i32 {
    let top = |h: &[u32], k: usize| h[h.len() - k..].to_vec();
    if mover_wins_sorted(x, y, r) {
        let b = (1..=y.len())
            .find(|&b| mover_wins_sorted(x, &top(y, b), r))
            .expect("b = |Y| satisfies T");
        (y.len() - b + 1) as i32
    } else {
        let a = (1..=x.len())
            .find(|&a| !mover_wins_sorted(&top(x, a), y, r))
            .expect("a = |X| fails T");
        -((x.len() - a + 1) as i32)
    }
}

/// A deliberately wrong C1 (off by one for winners), to show it is caught.
pub fn c1_off_by_one(x: &[u32], y: &[u32], r: u32) -> i32 {
    let v = c1_value(x, y, r);
    if v > 0 { v + 1 } else { v }
}

/// A closed form for the value, on sorted lists (C1, or a deliberately wrong one).
pub type Conjecture = fn(&[u32], &[u32], u32) -> i32;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cards::MAX_RANKS;
    use crate::games::tanhinmin::reference::plain_mover_wins;

    fn position(x: &[u32], y: &[u32], r: u32) -> Position {
        let mut p = Position::from_cards(x, y, r);
        p.field = r as usize;
        p.ranks = p.ranks.max(r as usize);
        p
    }

    proptest::proptest! {
        #[test]
        fn memo_solver_equals_plain_recursion_and_sign_is_the_winner(
            mut x in proptest::collection::vec(1u32..8, 1..6),
            mut y in proptest::collection::vec(1u32..8, 1..6),
            r in 0u32..8,
        ) {
            x.sort();
            y.sort();
            let plain = plain_score(&x, &y, r);
            let mut s = ScoreSolver::new(1 << 20);
            proptest::prop_assert_eq!(s.score(&position(&x, &y, r)), plain);
            proptest::prop_assert_eq!(plain > 0, plain_mover_wins(&x, &y, r));
            proptest::prop_assert!(plain != 0);
        }
    }

    proptest::proptest! {
        #[test]
        fn threshold_searches_answer_exactly_when_the_value_reaches_the_threshold(
            mut x in proptest::collection::vec(1u32..9, 1..7),
            mut y in proptest::collection::vec(1u32..9, 1..7),
            r in 0u32..9,
        ) {
            x.sort();
            y.sort();
            let value = plain_score(&x, &y, r);
            let shared = std::sync::Arc::new(ThresholdShared::with_bytes(1 << 16));
            let mut t = ThresholdSolver::new(shared, 1 << 16, 1 << 16);
            let p = position(&x, &y, r);
            for v in -(x.len() as i32) - 1..=y.len() as i32 + 1 {
                proptest::prop_assert_eq!(t.reaches(&p, v), value >= v, "v = {}", v);
            }
        }
    }

    #[test]
    fn threshold_keys_of_the_largest_positions_lose_no_bit() {
        // Every card the mover's, the largest field, at both ends of v.
        let n = THRESHOLD_MAX_CARDS as usize;
        let mut mover = [0u8; crate::games::cards::MAX_RANKS];
        mover[..n / 4].fill(4);
        mover[n / 4] = (n % 4) as u8;
        let other = [0u8; crate::games::cards::MAX_RANKS];
        let ranks = n / 4 + 1;
        let key = canonical_key(&mover[..ranks], &other[..ranks], ranks);
        for v in [-63, 0, 64] {
            let folded = threshold_key(key, v);
            assert!(folded < 1 << 127);
            assert_eq!(folded >> (THRESHOLD_BITS + FIELD_BITS), key >> FIELD_BITS);
            assert_eq!(folded & 63, key & 63);
        }
    }

    #[test]
    fn threshold_memo_keys_keep_hands_thresholds_and_fields_apart() {
        let keys: std::collections::HashSet<u128> =
            [0b1101u128 << 6, 0b1110 << 6, (0b1101 << 6) | 3]
                .iter()
                .flat_map(|&k| (-5..=5).map(move |v| threshold_key(k, v)))
                .collect();
        assert_eq!(keys.len(), 33);
    }

    #[test]
    fn c1_examples() {
        // One card each: the mover plays it and wins with Y's one card left.
        assert_eq!(c1_value(&[1], &[2], 0), 1);
        assert_eq!(plain_score(&[1], &[2], 0), 1);
        // The off-by-one version disagrees there.
        assert_ne!(c1_off_by_one(&[1], &[2], 0), plain_score(&[1], &[2], 0));
    }

    #[test]
    fn pack_is_injective_on_small_positions() {
        let mut seen = std::collections::HashSet::new();
        for m in 0..64u32 {
            for o in 0..64u32 {
                for f in 0..3 {
                    let mut p = Position {
                        mover: [0; MAX_RANKS],
                        other: [0; MAX_RANKS],
                        ranks: 2,
                        field: f,
                    };
                    p.mover[0] = (m & 7) as u8;
                    p.mover[1] = (m >> 3) as u8;
                    p.other[0] = (o & 7) as u8;
                    p.other[1] = (o >> 3) as u8;
                    assert!(seen.insert(crate::games::tanhinmin::position::pack_position(&p)));
                }
            }
        }
    }
}
