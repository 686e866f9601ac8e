//! The fast variant solver: memoised search with the plain game's
//! machinery where it still holds (see the module comment of `variant`).

use super::key::{SMALL_VARIANT_CARDS, VARIANT_MAX_CARDS, first_key_of, variant_key};
use super::rules::{Rules, variant_moves};
use crate::games::cards::{Hand, MAX_RANKS};
use crate::games::stop::{POSITIONS_PER_POLL, StopPoll};
use crate::games::tanhinmin::formula::mover_wins_counts;
use crate::games::tanhinmin::memo::{PrivateMemo, SharedMemo, Tables};
use crate::games::tanhinmin::moves::{
    ClassRules, Move, Outcome, RefutationBound, keep_reversed_stoppers, move_classes,
};
use crate::games::tanhinmin::ordering::{MoveOrder, cut_guess_mover_wins};
use crate::games::tanhinmin::position::Position;
use crate::games::tanhinmin::solver::{SMALL_POSITION_CARDS, Solver};
use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// When [`VariantSolver::expand`] builds the keys of the children still to
/// search and prefetches their buckets: at most once a position, and never
/// where the children are too small to look at the memo.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ChildPrefetch {
    /// Before the next child (under 8-cut alone, from the start).
    Due,
    /// Once a child tried has failed (with a back rule: the first child
    /// tried usually wins, and then the others' keys were built for
    /// nothing).
    OnceAChildFails,
    /// Done, or not worth it.
    Never,
}

/// Moves whose children's keys are built and prefetched up front.
pub(super) const PREFETCHED_MOVES: usize = 16;

/// Does either hand hold a card of rank index `i` (`NO_RANK` for a rule
/// that is off, which no hand holds)?
#[inline]
pub(super) fn either_holds(mover: &Hand, other: &Hand, i: usize) -> bool {
    mover.get(i).is_some_and(|&c| c > 0) || other.get(i).is_some_and(|&c| c > 0)
}

/// The rank indices a card may be played from: in normal order those above
/// the field card (`field` is its index plus one, 0 for none), reversed
/// those below it.
pub(super) fn playable_ranks(field: usize, reversed: bool, ranks: usize) -> std::ops::Range<usize> {
    match (field, reversed) {
        (0, _) => 0..ranks,
        (f, false) => f..ranks,
        (f, true) => 0..f - 1,
    }
}

/// Memoised minimax of a variant on count arrays, over a memo shared by
/// all threads (keys of up to 63 bits) and a private one for longer keys.
pub struct VariantSolver {
    rules: Rules,
    /// The plain game's solver, for the positions where no special card is
    /// left and the order is normal: the rest of the game is the plain
    /// game there (see [`Self::search`]).
    plain: Solver,
    /// The variant's verdicts: the table shared by all threads for keys
    /// that fit it, this solver's own for the rest.
    memo: Tables,
    /// The special ranks as indices, and from which rank a card upgraded
    /// never hurts its holder under these rules (every rank without a back
    /// rule, above the back rank with one), which licenses the wider move
    /// classes and the refutation bound there.
    classes: ClassRules,
    /// Positions expanded (memo misses), for run details.
    pub positions: u64,
    /// Tests only: the plain game's bounds leave the special cards as
    /// plain cards of their rank instead of making the holder's unbeatable
    /// (see [`Self::special_card_bounds`]).
    broken_bounds: bool,
    /// The run's stop request, which the search looks at (see
    /// [`Self::try_mover_wins`]).
    stop: StopPoll,
    /// Under 8-cut alone: try first the move [`cut_guess_mover_wins`]
    /// calls winning. (With 11-back too, where nobody holds a back card
    /// and the order is normal, it changed nothing: 4,000 13x13 deals,
    /// 57.6M positions and 10.8-11.1 s either way.)
    cut_guided: bool,
    /// Tests only: the guess negated, so that the first move tried is
    /// mostly a losing one (see [`Self::with_guess_inverted`]).
    guess_inverted: bool,
}

impl VariantSolver {
    /// A solver with only private memos: `memo_bytes` for its own
    /// positions and `plain_bytes` for the plain game's.
    pub fn new(rules: Rules, memo_bytes: usize, plain_bytes: usize) -> Self {
        VariantSolver {
            rules,
            plain: Solver::with_order(plain_bytes, MoveOrder::default()),
            memo: Tables::new(None, memo_bytes),
            classes: ClassRules {
                cut: Rules::index(rules.cut),
                back: Rules::index(rules.back),
                upgrades_from: rules.back.map_or(0, |b| b as usize),
            },
            positions: 0,
            broken_bounds: false,
            stop: StopPoll::never(),
            cut_guided: rules.cut.is_some() && rules.back.is_none(),
            guess_inverted: false,
        }
    }

    /// The same solver, giving up its search when `stop` becomes true:
    /// a 26x26 deal under 11-back can take an hour, and a stop (Ctrl-C, or
    /// SIGTERM at a batch job's time limit) should not wait for it.
    pub fn with_stop(self, stop: Arc<AtomicBool>) -> Self {
        self.with_stop_polled_every(stop, POSITIONS_PER_POLL)
    }

    /// As [`Self::with_stop`], looking at `stop` every `positions`
    /// positions: for tests that make small searches give up.
    #[doc(hidden)]
    pub fn with_stop_polled_every(self, stop: Arc<AtomicBool>, positions: u32) -> Self {
        VariantSolver {
            stop: StopPoll::on(stop, positions),
            ..self
        }
    }

    /// The same solver, giving up its searches once they have searched
    /// about `positions` positions between them (see
    /// [`StopPoll::within`]): it then answers through the `try_` methods
    /// only.
    pub fn within_positions(self, positions: u64) -> Self {
        VariantSolver {
            stop: StopPoll::within(positions),
            ..self
        }
    }

    /// A solver over `shared` (which must hold keys of these rules only),
    /// with a private memo of `local_bytes` for keys too long for it and
    /// one of `plain_bytes` for the plain game's positions.
    pub fn with_shared(
        rules: Rules,
        shared: Arc<SharedMemo>,
        local_bytes: usize,
        plain_bytes: usize,
    ) -> Self {
        VariantSolver {
            memo: Tables::new(Some(shared), local_bytes),
            ..Self::new(rules, 0, plain_bytes)
        }
    }

    /// The same solver, its plain game's verdicts kept in `table`, which
    /// the solvers of other threads share and which outlives the deal,
    /// with an own table of `own_bytes` for plain keys too long for it.
    pub fn sharing_plain_positions(self, table: Arc<SharedMemo>, own_bytes: usize) -> Self {
        VariantSolver {
            plain: Solver::with_shared(table, own_bytes, MoveOrder::default()),
            ..self
        }
    }

    /// The same solver, keeping the verdicts of positions of more than
    /// `cards` cards in its own table, not the shared one (see
    /// [`Tables::sharing_keys_below`]).
    pub fn sharing_positions_up_to(self, cards: u32) -> Self {
        VariantSolver {
            memo: self.memo.sharing_keys_below(first_key_of(cards + 1)),
            ..self
        }
    }

    /// The same solver, its own table for the variant's long keys evicting
    /// the entry whose search took the fewest positions rather than the
    /// one with the fewest cards (see [`crate::games::tanhinmin::memo::BucketMemo::with_costs`]): for
    /// deals whose search is many times their tables (26x26).
    pub fn evicting_by_cost(self) -> Self {
        let own_bytes = self.memo.own().bytes();
        VariantSolver {
            memo: Tables::with_own_costs(self.memo.shared().cloned(), own_bytes),
            ..self
        }
    }

    /// This solver's own tables: the variant's keys too long for the
    /// shared table, then the plain game's positions. They hold verdicts
    /// under these rules only, whatever the deal, so a run keeping its
    /// memo over a stop writes them out and reads them back, each kind
    /// into its own kind.
    pub fn own_memos(&self) -> [&PrivateMemo; 2] {
        [self.memo.own(), self.plain.private_memo()]
    }

    /// Writes the [`Self::own_memos`] of `solvers`, for
    /// [`Self::read_own_memos_into`]: how many solvers, then each one's two
    /// tables. A search stopped mid-position stored nothing wrong (it
    /// stops storing the moment it gives up), so a stopped run or batch
    /// keeps what its positions under way proved.
    pub fn write_own_memos(solvers: &[&VariantSolver], out: &mut dyn Write) -> io::Result<()> {
        out.write_all(&(solvers.len() as u32).to_le_bytes())?;
        for solver in solvers {
            for memo in solver.own_memos() {
                memo.write_entries(out)?;
            }
        }
        Ok(())
    }

    /// Reads what [`Self::write_own_memos`] wrote into every solver of
    /// `into`, each kind of table into its own kind: a position under way
    /// at the stop may resume on any thread, and where two verdicts
    /// collide the larger position is kept. Returns the verdicts read.
    pub fn read_own_memos_into(into: &[&VariantSolver], input: &mut dyn Read) -> io::Result<u64> {
        let mut count = [0u8; 4];
        input.read_exact(&mut count)?;
        let mut read = 0;
        for _ in 0..u32::from_le_bytes(count) {
            for kind in 0..2 {
                let tables: Vec<&PrivateMemo> = into.iter().map(|s| s.own_memos()[kind]).collect();
                read += PrivateMemo::read_entries_into(&tables, input)?;
            }
        }
        Ok(read)
    }

    /// Offers every verdict in `from`'s [`Self::own_memos`] to this
    /// solver's, which must play the same rules: a position that outgrew
    /// `from`'s tables carries on in these with what it proved there.
    pub fn take_verdicts_of(&self, from: &VariantSolver) {
        assert_eq!(self.rules, from.rules, "verdicts of other rules");
        for (into, from) in self.own_memos().into_iter().zip(from.own_memos()) {
            from.offer_entries_to(into);
        }
    }

    /// Empties each of [`Self::own_memos`] that has turned over (see
    /// [`Tables::forget_own_if_turned_over`]). Between deals only.
    pub fn forget_own_memos_if_turned_over(&self) {
        self.memo.forget_own_if_turned_over();
        self.plain.forget_own_if_turned_over();
    }

    /// Does the player to move in `p` win the plain game? By the plain
    /// solver this one hands its plain positions to, so the two share
    /// what they learn.
    pub fn plain_mover_wins(&mut self, p: &Position) -> bool {
        self.plain.mover_wins(p)
    }

    /// The same solver with the upgrade pruning on for every rank whatever
    /// the rules: wrong under 11-back, for tests that show the plain twin
    /// catches it.
    #[doc(hidden)]
    pub fn with_upgrade_pruning_forced(self) -> Self {
        VariantSolver {
            classes: ClassRules {
                upgrades_from: 0,
                ..self.classes
            },
            ..self
        }
    }

    /// The same solver with the bounds of [`Self::special_card_bounds`]
    /// broken: the special cards stay plain in both, so both are the plain
    /// game. Wrong wherever the rules change the winner, for a test that
    /// shows the plain twin catches it.
    #[doc(hidden)]
    pub fn with_plain_bounds_broken(self) -> Self {
        VariantSolver {
            broken_bounds: true,
            ..self
        }
    }

    /// The same solver with the guess that orders its moves under 8-cut
    /// negated: the verdicts must not change, only the time, which a test
    /// checks against the plain twin.
    #[doc(hidden)]
    pub fn with_guess_inverted(self) -> Self {
        VariantSolver {
            guess_inverted: true,
            ..self
        }
    }

    /// The rules this solver plays.
    pub fn rules(&self) -> Rules {
        self.rules
    }

    /// Does the player to move in `p` win, the order being normal (both
    /// hands non-empty, at most [`VARIANT_MAX_CARDS`] cards)? For a solver
    /// without a stop token ([`Self::with_stop`]).
    pub fn mover_wins(&mut self, p: &Position) -> bool {
        self.mover_wins_in(p, false)
    }

    /// As [`Self::mover_wins`], with the order reversed if `reversed` (then
    /// the field must hold a card).
    pub fn mover_wins_in(&mut self, p: &Position, reversed: bool) -> bool {
        assert!(
            !self.stop.can_give_up(),
            "a solver that can give up answers through try_mover_wins"
        );
        self.try_mover_wins_in(p, reversed)
            .expect("a search without a stop token never gives up")
    }

    /// The moves that win `p` (in the given order) for the player to move,
    /// in [`variant_moves`] order: each child solved by this solver. For a
    /// solver without a stop token.
    pub fn winning_moves_in(&mut self, p: &Position, reversed: bool) -> Vec<Move> {
        assert!(
            !self.stop.can_give_up(),
            "a solver that can give up answers through try_winning_moves_in"
        );
        self.try_winning_moves_in(p, reversed)
            .expect("a search without a stop token never gives up")
    }

    /// As [`Self::winning_moves_in`], or `None` when the solver gave up
    /// (a stop, or its budget spent) before every move was solved.
    pub fn try_winning_moves_in(&mut self, p: &Position, reversed: bool) -> Option<Vec<Move>> {
        let x: Vec<u32> = (0..p.ranks)
            .flat_map(|i| std::iter::repeat_n(i as u32 + 1, usize::from(p.mover[i])))
            .collect();
        let mut wins = Vec::new();
        for m in variant_moves(&x, p.field as u32, reversed) {
            let won = match m {
                Move::Play(_) if x.len() == 1 => true,
                Move::Play(i) => {
                    let mut rest = p.clone();
                    rest.mover[i] -= 1;
                    let (again, field, order) = self.after_play(i, reversed);
                    if again {
                        self.try_mover_wins_in(&Position { field, ..rest }, order)?
                    } else {
                        let reply = Position {
                            mover: p.other,
                            other: rest.mover,
                            field,
                            ranks: p.ranks,
                        };
                        !self.try_mover_wins_in(&reply, order)?
                    }
                }
                Move::Pass => {
                    let reply = Position {
                        mover: p.other,
                        other: p.mover,
                        field: 0,
                        ranks: p.ranks,
                    };
                    !self.try_mover_wins_in(&reply, false)?
                }
            };
            if won {
                wins.push(m);
            }
        }
        Some(wins)
    }

    /// As [`Self::mover_wins`], or `None` when a stop was requested before
    /// the search finished. Nothing the search stored is wrong: it stops
    /// storing the moment it gives up.
    pub fn try_mover_wins(&mut self, p: &Position) -> Option<bool> {
        self.try_mover_wins_in(p, false)
    }

    /// As [`Self::try_mover_wins`], with the order reversed if `reversed`.
    pub fn try_mover_wins_in(&mut self, p: &Position, reversed: bool) -> Option<bool> {
        assert!(
            !reversed || p.field > 0,
            "a reversed order needs a field card"
        );
        let (mut mover, mut other) = (p.mover, p.other);
        let nm = mover[..p.ranks].iter().map(|&c| u32::from(c)).sum();
        let no = other[..p.ranks].iter().map(|&c| u32::from(c)).sum();
        assert!(
            nm + no <= VARIANT_MAX_CARDS,
            "validation refuses larger deals"
        );
        self.stop.start();
        // This deal's costs outrank earlier deals' where the own table
        // keeps costs.
        self.memo.next_epoch();
        let win = self
            .search(
                &mut mover, &mut other, nm, no, p.ranks, p.field, reversed, 0,
            )
            .win;
        (!self.stop.gave_up()).then_some(win)
    }

    /// The search on count arrays, changed in place and restored;
    /// `known_key` is the position's key when the caller built it, else 0.
    #[allow(clippy::too_many_arguments)]
    fn search(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        nm: u32,
        no: u32,
        ranks: usize,
        field: usize,
        reversed: bool,
        known_key: u128,
    ) -> Outcome {
        let playable = playable_ranks(field, reversed, ranks);
        if self.stop.gave_up() {
            return Outcome::decided(false);
        }
        if nm == 1
            && let Some(i) = playable.clone().find(|&i| mover[i] > 0)
        {
            return Outcome::won_by(i as u8);
        }
        // With no special card left and the order normal, every rule has
        // nothing left to act on: the rest is the plain game, and the plain
        // solver (its μ-guided order, its own memo) proves it much faster.
        // Its winning move indexes these arrays, as the refutation bound
        // needs, and is a plain card or the pass.
        if self.is_plain(mover, other, reversed) {
            return self.plain_outcome(mover, other, nm, no, ranks, field);
        }
        // Small positions are re-solved rather than looked up: their
        // subtrees cost less than the cache miss of a memo probe.
        let key = (nm + no > SMALL_POSITION_CARDS).then(|| {
            if known_key != 0 {
                known_key
            } else {
                self.key(&mover[..ranks], &other[..ranks], field, reversed, nm + no)
            }
        });
        if let Some(key) = key
            && let Some(win) = self.memo.get(key)
        {
            return Outcome::decided(win);
        }
        let positions_before = self.positions;
        self.positions += 1;
        self.stop.tick();
        let verdict = 'decided: {
            if !reversed
                && let Some(bound) = self.special_card_bounds(mover, other, nm, no, ranks, field)
            {
                break 'decided bound;
            }
            self.expand(mover, other, nm, no, ranks, field, reversed)
        };
        if let Some(key) = key {
            self.remember(key, verdict.win, self.positions - positions_before);
        }
        verdict
    }

    /// The position decided by the plain game, when that can be done (in
    /// normal order).
    ///
    /// A cut or back card is no better for its holder than a card nothing
    /// beats: that card is playable wherever the special one is, and leaves
    /// the rival only the pass, which the rival also has after a cut (the
    /// field clears for its player) or a back card (the field clears and
    /// the order turns normal). A cut card is no worse than a plain card of
    /// its rank, which gives the rival that pass and other moves besides;
    /// nothing plain bounds a back card from below, since reversed it is
    /// answered by the cards a plain one is not. (Each by copying a
    /// strategy card for card; the game the cards are copied into has no
    /// back card left, so no reversed trick.) So, the rival holding no back
    /// card, the plain game with the mover's special cards made unbeatable
    /// and the rival's cut cards made plain is at least as good for the
    /// mover as this one: a loss there is a loss here. And, the mover
    /// holding no back card, the plain game the other way round is at most
    /// as good: a win there is a win here, by the same first move.
    ///
    /// Each bound is a search of the plain solver, which proves its
    /// verdict. The μ test only chooses whether to try it: a bound is
    /// searched only where the test says it settles the position, since
    /// searching one that does not cost more than it saved (measured in
    /// BENCHMARKS.md).
    ///
    /// Bounds are tried at every size. Before 8-cut's moves were ordered
    /// by its own guess ([`cut_guess_mover_wins`]), they were limited to
    /// positions of 26 cards: on 6 26x26 deals, bounds everywhere searched
    /// 207M positions against 84M without. With the guess, 48 26x26 deals
    /// took 45.3 s with bounds everywhere, 53.7 s up to 36 cards and
    /// 72.1 s up to 26 (BENCHMARKS.md); 11-back deals search the same
    /// positions either way. Were the test wrong, a bound would only be tried in
    /// vain or not tried, never give a wrong verdict.
    #[allow(clippy::too_many_arguments)]
    fn special_card_bounds(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        nm: u32,
        no: u32,
        ranks: usize,
        field: usize,
    ) -> Option<Outcome> {
        // The unbeatable cards go to a rank above every rank.
        let top = ranks;
        if top >= MAX_RANKS {
            return None;
        }
        debug_assert!(mover[top] == 0 && other[top] == 0);
        let (cut, back) = (self.classes.cut, self.classes.back);
        let special = [cut, back].map(|i| (i < ranks).then_some(i));
        let broken = self.broken_bounds;
        let mut bound = |unbeatable: &mut Hand, rival: &mut Hand, mover_first: bool| {
            if rival.get(back).is_some_and(|&c| c > 0) {
                return None;
            }
            let held = special.map(|i| i.map_or(0, |i| unbeatable[i]));
            if !broken {
                for i in special.into_iter().flatten() {
                    unbeatable[top] += unbeatable[i];
                    unbeatable[i] = 0;
                }
            }
            let (m, o) = if mover_first {
                (&mut *unbeatable, &mut *rival)
            } else {
                (&mut *rival, &mut *unbeatable)
            };
            // Settles the position if the mover loses when the unbeatable
            // cards are theirs, or wins when they are the rival's.
            let settles = mover_wins_counts(&m[..=top], &o[..=top], field) != mover_first;
            let outcome = settles.then(|| self.plain_outcome(m, o, nm, no, ranks + 1, field));
            unbeatable[top] = 0;
            for (i, n) in special.into_iter().zip(held) {
                if let Some(i) = i {
                    unbeatable[i] = n;
                }
            }
            outcome.filter(|o| o.win != mover_first)
        };
        bound(mover, other, true).or_else(|| bound(other, mover, false))
    }

    /// The plain solver's outcome of a plain position, its positions
    /// counted as this solver's.
    fn plain_outcome(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        nm: u32,
        no: u32,
        ranks: usize,
        field: usize,
    ) -> Outcome {
        let before = self.plain.positions;
        let outcome = self.plain.outcome_in(mover, other, nm, no, ranks, field);
        self.positions += self.plain.positions - before;
        outcome
    }

    /// Tries the moves of a position no rule of thumb decided.
    #[allow(clippy::too_many_arguments)]
    fn expand(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        nm: u32,
        no: u32,
        ranks: usize,
        field: usize,
        reversed: bool,
    ) -> Outcome {
        let playable = playable_ranks(field, reversed, ranks);
        // One move per class of moves that lead to the same position (or,
        // where cards can be upgraded, to a position no better than the
        // class's weakest card leads to), the cut card first: see
        // [`move_classes`]. The plain game's μ test is not used to guess a
        // move here: tried as a first guess (the strongest card it calls
        // winning, else the pass), it searched 8% more positions under
        // 8-cut and 22% more under 11-back on 4,000 13x13 deals.
        // No upgrade within a reversed trick: there a stronger card is
        // playable in fewer places. (In a game, a reversed trick starts
        // at the back rank and only weaker cards follow, so it never
        // holds an upgradable card; a reversed root may.)
        let classes = if reversed {
            ClassRules {
                upgrades_from: usize::MAX,
                ..self.classes
            }
        } else {
            self.classes
        };
        let mut moves = [0u8; MAX_RANKS];
        let count = move_classes(mover, other, playable, classes, &mut moves);
        if !reversed && either_holds(mover, other, self.classes.back) {
            keep_reversed_stoppers(&mut moves[..count], mover, other, classes);
        }
        // Under 8-cut alone, the move a guess at the winner calls winning
        // is tried first (see [`cut_guess_mover_wins`]); it only orders
        // the moves, and every other move is still searched if it fails.
        // It usually wins, so the other children's keys wait until then.
        let guess = if self.cut_guided {
            self.guessed_winning_move(mover, other, nm, ranks, field, &moves[..count])
        } else {
            None
        };
        if let Some(g) = guess {
            let reply = if g == Move::PASS_BYTE {
                self.search(other, mover, no, nm, ranks, 0, false, 0)
            } else {
                self.reply_to_card(mover, other, nm, no, ranks, reversed, g, 0)
            };
            if !reply.win {
                return Outcome::won_by(g);
            }
        }
        // Under 8-cut alone, every child's key, its bucket prefetched so
        // the misses overlap, and handed down so the child does not build
        // it again: 10-12% faster on 4,000 13x13 8-cut deals, though the
        // keys of moves the refutation bound then skips are built for
        // nothing. There the guess has failed or called the position lost
        // by now, so every child is likely searched. With a back rule
        // there is no guess and the first child tried usually wins (97% of
        // the positions won on 20,000 13x13 11-back deals), so prefetching
        // every child up front only cost: without it 26x26 11-back and
        // both-rules deals ran 1.1-1.6x faster and 13x13 deals 1.08-1.14x
        // (BENCHMARKS.md, "Prefetch only where every child is searched").
        // But once the first child tried has failed, the position is
        // almost surely lost and every other child will be searched: the
        // rest are prefetched then, so their misses overlap the first
        // child's search and each other (BENCHMARKS.md, "Prefetch the
        // rest once the first child fails").
        let mut keys = [0u128; PREFETCHED_MOVES];
        let mut pass_key = 0;
        let mut prefetch = if nm + no - 1 <= SMALL_POSITION_CARDS {
            ChildPrefetch::Never
        } else if self.cut_guided {
            ChildPrefetch::Due
        } else {
            ChildPrefetch::OnceAChildFails
        };
        // The refutation bound ([`RefutationBound`]) holds among the
        // cards that can be upgraded (see the module comment), which are
        // tried weakest first; the guessed card, tried out of that order,
        // teaches it nothing.
        let mut refuted = RefutationBound::default();
        for (k, &m) in moves[..count].iter().enumerate() {
            if guess == Some(m) {
                continue;
            }
            if prefetch == ChildPrefetch::Due {
                pass_key = self.prefetch_children(
                    mover,
                    other,
                    nm + no,
                    ranks,
                    field,
                    reversed,
                    &moves[..count],
                    k,
                    guess,
                    &mut keys,
                );
                prefetch = ChildPrefetch::Never;
            }
            let known = keys.get(k).copied().unwrap_or(0);
            let i = usize::from(m);
            let upgradable = classes.upgradable(i);
            if upgradable && refuted.refutes(i) {
                continue;
            }
            let reply = self.reply_to_card(mover, other, nm, no, ranks, reversed, m, known);
            if !reply.win {
                return Outcome::won_by(m);
            }
            if upgradable {
                refuted.learn(reply.by);
            }
            if prefetch == ChildPrefetch::OnceAChildFails {
                prefetch = ChildPrefetch::Due;
            }
        }
        if field > 0
            && guess != Some(Move::PASS_BYTE)
            && !self
                .search(other, mover, no, nm, ranks, 0, false, pass_key)
                .win
        {
            return Outcome::won_by(Move::PASS_BYTE);
        }
        Outcome::decided(false)
    }

    /// Builds the keys of the positions after the cards `moves[from..]`
    /// (but `skip`), writing them to `keys` by their index in `moves`, and
    /// the key after the pass, which it returns (0 on an empty field), and
    /// starts loading their buckets, so that the misses of the children
    /// still to search overlap each other and the search before them. A
    /// key is 0 where the child will not look at this memo (the plain game
    /// takes it over). `cards` is the position's; it must be more than
    /// one past [`SMALL_POSITION_CARDS`], where the children look.
    #[allow(clippy::too_many_arguments)]
    fn prefetch_children(
        &self,
        mover: &mut Hand,
        other: &Hand,
        cards: u32,
        ranks: usize,
        field: usize,
        reversed: bool,
        moves: &[u8],
        from: usize,
        skip: Option<u8>,
        keys: &mut [u128; PREFETCHED_MOVES],
    ) -> u128 {
        debug_assert!(cards - 1 > SMALL_POSITION_CARDS);
        let later = moves.iter().enumerate().take(PREFETCHED_MOVES).skip(from);
        for (k, &m) in later.filter(|&(_, &m)| skip != Some(m)) {
            let i = usize::from(m);
            mover[i] -= 1;
            let (again, after, order) = self.after_play(i, reversed);
            let (m, o) = if again {
                (&*mover, other)
            } else {
                (other, &*mover)
            };
            keys[k] = self.key_unless_plain(m, o, ranks, after, order, cards - 1);
            mover[i] += 1;
            if keys[k] != 0 {
                self.memo.prefetch(keys[k]);
            }
        }
        if field == 0 {
            return 0;
        }
        let pass_key = self.key_unless_plain(other, mover, ranks, 0, false, cards);
        if pass_key != 0 {
            self.memo.prefetch(pass_key);
        }
        pass_key
    }

    /// [`Self::key`] of a position of `cards` cards, or 0 where the search
    /// hands it to the plain game ([`Self::is_plain`]) and builds none.
    #[inline]
    fn key_unless_plain(
        &self,
        mover: &Hand,
        other: &Hand,
        ranks: usize,
        field: usize,
        reversed: bool,
        cards: u32,
    ) -> u128 {
        if self.is_plain(mover, other, reversed) {
            0
        } else {
            self.key(&mover[..ranks], &other[..ranks], field, reversed, cards)
        }
    }

    /// Is the rest of the game from here the plain game? So when no card
    /// of a special rank is left and the order is normal: every rule has
    /// nothing left to act on.
    #[inline]
    fn is_plain(&self, mover: &Hand, other: &Hand, reversed: bool) -> bool {
        !reversed
            && !either_holds(mover, other, self.classes.cut)
            && !either_holds(mover, other, self.classes.back)
    }

    /// What the player who answers a card of rank index `m` proves (after
    /// a cut, the mover moves again: the opposite of what the mover
    /// proves). `known` is the key of the position after it, or 0.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn reply_to_card(
        &mut self,
        mover: &mut Hand,
        other: &mut Hand,
        nm: u32,
        no: u32,
        ranks: usize,
        reversed: bool,
        m: u8,
        known: u128,
    ) -> Outcome {
        let i = usize::from(m);
        mover[i] -= 1;
        let (again, after, order) = self.after_play(i, reversed);
        let reply = if again {
            let own = self.search(mover, other, nm - 1, no, ranks, after, order, known);
            Outcome::decided(!own.win)
        } else {
            self.search(other, mover, no, nm - 1, ranks, after, order, known)
        };
        mover[i] += 1;
        reply
    }

    /// The move of `moves` (or the pass) after which
    /// [`cut_guess_mover_wins`] calls the mover the winner: the cut card,
    /// which keeps the move, else the strongest such card, which leaves
    /// the opponent the fewest replies (as the plain game's fewest-replies
    /// order does), else the pass. On 10 26x26 deals this searched 40M
    /// positions where the first such card in the search's order searched
    /// 74M, and the cut card last 45M (BENCHMARKS.md).
    #[allow(clippy::too_many_arguments)]
    fn guessed_winning_move(
        &self,
        mover: &mut Hand,
        other: &Hand,
        nm: u32,
        ranks: usize,
        field: usize,
        moves: &[u8],
    ) -> Option<u8> {
        let cut = self.classes.cut;
        let inverted = self.guess_inverted;
        let guess = |m: &Hand, o: &Hand, field: usize| {
            cut_guess_mover_wins(&m[..ranks], &o[..ranks], field, cut) != inverted
        };
        // A position guessed lost has no move guessed winning, but for the
        // guess's misses: one guess instead of one per move.
        if !guess(mover, other, field) {
            return None;
        }
        let mut wins_by = |m: u8| {
            let i = usize::from(m);
            mover[i] -= 1;
            let wins = if i == cut {
                nm == 1 || guess(mover, other, 0)
            } else {
                !guess(other, mover, i + 1)
            };
            mover[i] += 1;
            wins
        };
        // The search's order puts the cut card first, then weakest first.
        let (cuts, cards) = match moves.split_first() {
            Some((&m, rest)) if usize::from(m) == cut => (Some(m), rest),
            _ => (None, moves),
        };
        if let Some(m) = cuts.filter(|&m| wins_by(m)) {
            return Some(m);
        }
        if let Some(&m) = cards.iter().rev().find(|&&m| wins_by(m)) {
            return Some(m);
        }
        (field > 0 && !guess(other, mover, 0)).then_some(Move::PASS_BYTE)
    }

    /// Where playing a card of rank index `i` leads: whether the same
    /// player moves again (the cut: the field clears and the order turns
    /// normal), the field card after it, and the order (a back card turns
    /// it). The one statement of the rules' effects, for the search and
    /// for the keys it prefetches.
    #[inline]
    fn after_play(&self, i: usize, reversed: bool) -> (bool, usize, bool) {
        if i == self.classes.cut {
            (true, 0, false)
        } else {
            (false, i + 1, reversed ^ (i == self.classes.back))
        }
    }

    /// [`variant_key`] of a position of `cards` cards, in 64-bit arithmetic
    /// when it fits ([`SMALL_VARIANT_CARDS`]): the same bits, but a variable
    /// shift of a u128 costs several instructions, and the key is built for
    /// nearly every position (it was 19% of an 8-cut search). Tests hold
    /// the two equal.
    #[inline]
    fn key(&self, mover: &[u8], other: &[u8], field: usize, reversed: bool, cards: u32) -> u128 {
        let (cut, back) = (self.classes.cut, self.classes.back);
        if cards <= SMALL_VARIANT_CARDS {
            u128::from(variant_key::<u64>(mover, other, field, reversed, cut, back))
        } else {
            variant_key::<u128>(mover, other, field, reversed, cut, back)
        }
    }

    /// Stores a verdict whose search took `positions` positions.
    fn remember(&self, key: u128, wins: bool, positions: u64) {
        if !self.stop.gave_up() {
            self.memo.insert_costed(key, wins, positions);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::moves::hand_after;
    use crate::games::tanhinmin::variant::plain_variant_wins;
    use crate::random::{chunk_rng, uniform_below};

    /// The key the child of a move builds for itself, the child made from
    /// lists of strengths as the plain twin makes it (its own statement of
    /// the rules), over 7 ranks; 0 where the child is the plain game.
    fn childs_own_key(
        solver: &VariantSolver,
        x: &[u32],
        y: &[u32],
        reversed: bool,
        m: Move,
    ) -> u128 {
        let rules = solver.rules();
        let (mover, other, field, order) = match m {
            Move::Pass => (y.to_vec(), x.to_vec(), 0, false),
            Move::Play(i) if Some(i as u32 + 1) == rules.cut => {
                (hand_after(x, m), y.to_vec(), 0, false)
            }
            Move::Play(i) => {
                let order = reversed ^ (Some(i as u32 + 1) == rules.back);
                (y.to_vec(), hand_after(x, m), i + 1, order)
            }
        };
        let mut child = Position::from_cards(&mover, &other, 0);
        child.ranks = 7;
        let cards = (mover.len() + other.len()) as u32;
        solver.key_unless_plain(&child.mover, &child.other, 7, field, order, cards)
    }

    /// Every key a position hands down to its children and its pass is
    /// the key the child would build itself. A wrong key handed down
    /// stores and reads verdicts under another position's name, which the
    /// twin tests' small searches rarely expose (a key handed down with
    /// its order bit flipped passed them), so it is checked directly.
    #[test]
    fn keys_handed_to_the_children_are_their_own() {
        let mut rng = chunk_rng(19, 0);
        let mut checked = 0;
        for _ in 0..20_000 {
            let hand = |rng: &mut _| {
                let n = 1 + uniform_below(rng, 8);
                let mut h: Vec<u32> = (0..n).map(|_| 1 + uniform_below(rng, 7) as u32).collect();
                h.sort();
                h
            };
            let (x, y) = (hand(&mut rng), hand(&mut rng));
            if x.len() + y.len() < SMALL_POSITION_CARDS as usize + 2 {
                continue;
            }
            let field = uniform_below(&mut rng, 8) as u32;
            let reversed = field > 0 && uniform_below(&mut rng, 2) == 1;
            let special =
                |rng: &mut _| (uniform_below(rng, 3) > 0).then(|| 1 + uniform_below(rng, 7) as u32);
            let cut = special(&mut rng);
            let back = special(&mut rng).filter(|&b| Some(b) != cut);
            let solver = VariantSolver::new(Rules { cut, back }, 1 << 12, 1 << 12);
            let mut p = Position::from_cards(&x, &y, 0);
            p.ranks = 7;
            let cards: Vec<Move> = variant_moves(&x, field, reversed)
                .into_iter()
                .filter(|&m| m != Move::Pass)
                .collect();
            let moves: Vec<u8> = cards
                .iter()
                .map(|&m| match m {
                    Move::Play(i) => i as u8,
                    Move::Pass => unreachable!(),
                })
                .collect();
            let from = uniform_below(&mut rng, moves.len() as u64 + 1) as usize;
            let mut keys = [0u128; PREFETCHED_MOVES];
            let pass_key = solver.prefetch_children(
                &mut p.mover,
                &p.other,
                (x.len() + y.len()) as u32,
                7,
                field as usize,
                reversed,
                &moves,
                from,
                None,
                &mut keys,
            );
            for (k, &m) in cards.iter().enumerate() {
                let want = if k < from {
                    0
                } else {
                    childs_own_key(&solver, &x, &y, reversed, m)
                };
                assert_eq!(
                    keys[k], want,
                    "{x:?} {y:?} field {field} reversed {reversed} {m:?}"
                );
                checked += usize::from(want != 0);
            }
            let want_pass = if field > 0 {
                childs_own_key(&solver, &x, &y, reversed, Move::Pass)
            } else {
                0
            };
            assert_eq!(pass_key, want_pass, "{x:?} {y:?} field {field} pass");
            assert_eq!(
                p,
                {
                    let mut q = Position::from_cards(&x, &y, 0);
                    q.ranks = 7;
                    q
                },
                "the hands are given back as they were"
            );
        }
        assert!(checked > 10_000, "only {checked} keys checked");
    }

    /// Verdicts taken from another solver's tables (into tables of another
    /// size and eviction, as a position carried on to a batch's tables
    /// has) answer each position as the solver that proved them did,
    /// without a search. Checked against the variant's plain recursion, so
    /// a verdict carried wrong (its bit flipped, say) fails here.
    #[test]
    fn verdicts_taken_from_another_solver_answer_as_it_proved_them() {
        let mut rng = chunk_rng(46, 0);
        for rules in Rules::SHIPPED {
            let mut from = VariantSolver::new(rules, 1 << 20, 1 << 20);
            let mut positions = Vec::new();
            while positions.len() < 200 {
                let hand = |rng: &mut _| {
                    let n = 4 + uniform_below(rng, 3);
                    let mut h: Vec<u32> =
                        (0..n).map(|_| 1 + uniform_below(rng, 13) as u32).collect();
                    h.sort();
                    h
                };
                let (x, y) = (hand(&mut rng), hand(&mut rng));
                let p = Position::from_cards(&x, &y, 0);
                let win = from.mover_wins(&p);
                assert_eq!(win, plain_variant_wins(&x, &y, 0, false, rules));
                positions.push((p, win));
            }
            let into = VariantSolver::new(rules, 1 << 24, 1 << 22).evicting_by_cost();
            into.take_verdicts_of(&from);
            let mut into = into;
            for (p, win) in &positions {
                assert_eq!(into.mover_wins(p), *win, "{p:?} {rules:?}");
            }
            // (A root the memo skips or a bound settles is searched again.)
            assert!(
                into.positions * 20 < from.positions,
                "{} positions searched again of {}: the verdicts were not taken",
                into.positions,
                from.positions
            );
        }
    }
}
