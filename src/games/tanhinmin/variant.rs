//! Rule variants of Tanhinmin as a value the one variant solver takes:
//!
//! - **8-cut** (8切り): playing a card of the cut rank clears the field, the
//!   order turns back to normal, and the same player moves again;
//! - **11-back** (Jバック): playing a card of the back rank reverses the
//!   order for the rest of the trick, so a card may be played only if it is
//!   strictly weaker than the field card; playing the back rank again while
//!   reversed turns the order back. A pass clears the field and restores
//!   the normal order;
//! - both at once.
//!
//! Playing one's last card wins, whatever it is. With neither rule the
//! variant is the plain game, and a test holds the two solvers equal there.
//!
//! What carries over from the plain solver ([`super::solver`]), and why:
//! - **The plain solver itself**, where the rules have nothing left to act
//!   on: with no card of a special rank in either hand and the order
//!   normal, the rest of the game is the plain game, and the variant
//!   solver hands the position to a plain solver of its own (μ-guided
//!   order, its own memo), which proves it by search. On 4,000 13x13 deals
//!   this made 8-cut 2.3x faster (its cut cards are tried first, so most
//!   lines soon have none left), 11-back 1.3x and both 1.15x.
//! - **The plain game as a bound** (see [`VariantSolver::special_card_bounds`]):
//!   a cut or back card is never better for its holder than a card nothing
//!   beats, and a cut card never worse than a plain card of its rank. So
//!   in normal order a plain game with one side's special cards made
//!   unbeatable bounds the variant position, and the plain solver proves
//!   that bound; the μ test only picks which bound is worth proving. On
//!   13x13 8-cut deals this made the search 2.2x (100,000 deals) to 2.5x
//!   (20,000) faster; under 11-back, where it needs one side to hold no
//!   back card, 1.12x.
//! - **Canonical keys.** Nobody ever plays on their own card: after a play
//!   the opponent moves, and a cut or a pass clears the field. So adjacent
//!   ranks held by one player only are still interchangeable, *except* a
//!   rule's special rank, whose cards do something the others do not. The
//!   key ([`variant_key`]) writes the plain game's groups, with each
//!   special rank forced into a group of its own and named by its first
//!   card's place, plus the order bit.
//! - **The field as blocked cards, and the memo's field monotonicity.** In
//!   either order a more restrictive field only takes moves away and leaves
//!   the others leading to the same positions (the position after a move
//!   depends on the card played, not on the field it was played on). In
//!   normal order the blocked cards are the mover's weakest; reversed, the
//!   strongest. The key's low bits count them, and the order bit sits above
//!   them, so the shared memo's "lost under a lower block is lost under a
//!   higher one" holds within one order and never mixes the two.
//! - **An empty field is not a field that blocks nothing.** In the plain
//!   game the two share a key: the pass that a field card allows never
//!   changes the winner there. Under 11-back it can: X = {1, 6} and
//!   Y = {1, 6} with back = 6, X to lead, loses, but X facing a 7 passes and
//!   wins (Y must then lead). The key has a field-card bit above the
//!   blocked count, so the memo never answers one from the other. (Found by
//!   the twin test below, as a wrong verdict on [1, 6] against [1, 2, 6, 7].)
//! - **The shared lock-free memo**, kept across deals: yes (its own table;
//!   the plain solver's keys mean something else).
//! - **The card-upgrade pruning of the plain solver** (its wider move
//!   classes and its refutation bound, both from "a card upgraded never
//!   hurts its holder"): **kept under 8-cut for plain cards, and under
//!   11-back for plain cards above the back rank.** The copy argument: the
//!   holder of the stronger card plays it wherever the strategy played the
//!   weaker one; that is legal, leaves the opponent a higher field (only
//!   fewer moves, each to the same position), and changes nothing else.
//!   Under 8-cut it survives for a plain card upgraded to a plain card,
//!   even across the cut rank (a cut card of the opponent's is an ordinary
//!   card to beat). It fails when a cut card is upgraded (it loses its
//!   rule) and under 11-back for cards a reversed trick can take (there a
//!   stronger card is playable in fewer places). A reversed trick starts at
//!   the back rank and only weaker cards follow, so cards above the back
//!   rank are only ever played in normal order, and for them the argument
//!   holds again. Within a reversed trick the pruning is off (a reversed
//!   root, which no game reaches, may have stronger cards in play).
//!   `tests/variants.rs` checks both upgrades on the plain recursion of the
//!   variants, shows the smallest positions where the switched-off
//!   upgrades hurt, and shows the pruning forced on under 11-back gives a
//!   wrong verdict. Above the back rank it made 11-back 1.11x and both
//!   rules 1.14x faster on 4,000 13x13 deals.
//! - **Move classes without upgrades:** adjacent ranks only the mover holds,
//!   none special, lead to the same canonical position whichever card is
//!   played, so one card stands for them under every rule.
//! - **Move order:** the cut card first when the mover holds one (it keeps
//!   the move), then weakest first, the back card last (see
//!   [`move_classes`]; strongest first was 12x slower under 11-back). In
//!   normal order while a back card is held, a weakest class that a
//!   reversed trick cannot beat whole, and a cut card below the back rank,
//!   go after the other low cards (see [`keep_reversed_stoppers`]). Order changes time, never a verdict.

use super::formula::mover_wins_counts;
use super::memo::{PrivateMemo, SharedMemo, Tables};
use super::moves::{
    ClassRules, Move, Outcome, RefutationBound, hand_after, keep_reversed_stoppers, legal_moves,
    move_classes,
};
use super::ordering::{MoveOrder, cut_guess_mover_wins};
use super::position::{Position, SMALL_KEY_CARDS, canonical_key, canonical_key_small};
use super::solver::{SMALL_POSITION_CARDS, Solver};
use crate::games::cards::{Hand, MAX_RANKS};
use crate::games::stop::{POSITIONS_PER_POLL, StopPoll};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The rules of a variant: strengths (1 = weakest) of the special ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Rules {
    /// Strength of the cut rank (8-cut), if the rule is on.
    pub cut: Option<u32>,
    /// Strength of the back rank (11-back), if the rule is on.
    pub back: Option<u32>,
}

impl Rules {
    /// The plain game.
    pub const PLAIN: Rules = Rules {
        cut: None,
        back: None,
    };

    /// A short name for tables and pictures: "plain", "8-cut", "11-back",
    /// "8-cut + 11-back" (the names of the card games, whatever the
    /// strengths).
    pub fn name(&self) -> &'static str {
        match (self.cut, self.back) {
            (None, None) => "plain",
            (Some(_), None) => "8-cut",
            (None, Some(_)) => "11-back",
            (Some(_), Some(_)) => "8-cut + 11-back",
        }
    }

    /// The strengths of the ranks the rules single out (cut, then back):
    /// exhaustive deals keep each one apart from its neighbours.
    pub fn special_ranks(&self) -> Vec<u32> {
        self.cut.into_iter().chain(self.back).collect()
    }

    fn index(strength: Option<u32>) -> usize {
        strength.map_or(NO_RANK, |s| s as usize - 1)
    }
}

/// A rank index no position has.
const NO_RANK: usize = usize::MAX;

/// Moves whose children's keys are built and prefetched up front.
const PREFETCHED_MOVES: usize = 16;

/// Most cards a variant key holds: a leading bit, two bits a card, 6 bits
/// each for the two special ranks' places, one for the order, one for a
/// field card, 6 for the blocked cards: 1 + 2 * 53 + 20 = 127.
pub const VARIANT_MAX_CARDS: u32 = 53;

/// Bits under the hands in a variant key: cut place, back place, order
/// bit, field-card bit, blocked cards.
const TAIL_BITS: u32 = 6 + 6 + 1 + 1 + 6;
const _: () = assert!(1 + 2 * VARIANT_MAX_CARDS + TAIL_BITS <= 128);

/// Most cards whose [`variant_key`] fits 63 bits: a leading bit, two bits
/// a card and the tail.
pub const SMALL_VARIANT_CARDS: u32 = (63 - 1 - TAIL_BITS) / 2;

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
/// [`super::position::canonical_key`]) with each special rank in a group
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
/// of the keys of fixed positions, by [`variant_key`] at both widths under
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

/// Does either hand hold a card of rank index `i` (`NO_RANK` for a rule
/// that is off, which no hand holds)?
#[inline]
fn either_holds(mover: &Hand, other: &Hand, i: usize) -> bool {
    mover.get(i).is_some_and(|&c| c > 0) || other.get(i).is_some_and(|&c| c > 0)
}

/// The rank indices a card may be played from: in normal order those above
/// the field card (`field` is its index plus one, 0 for none), reversed
/// those below it.
fn playable_ranks(field: usize, reversed: bool, ranks: usize) -> std::ops::Range<usize> {
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

    /// This solver's own tables: the variant's keys too long for the
    /// shared table, then the plain game's positions. They hold verdicts
    /// under these rules only, whatever the deal, so a run keeping its
    /// memo over a stop writes them out and reads them back, each kind
    /// into its own kind.
    pub fn own_memos(&self) -> [&PrivateMemo; 2] {
        [self.memo.own(), self.plain.private_memo()]
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
                        self.mover_wins_in(&Position { field, ..rest }, order)
                    } else {
                        let reply = Position {
                            mover: p.other,
                            other: rest.mover,
                            field,
                            ranks: p.ranks,
                        };
                        !self.mover_wins_in(&reply, order)
                    }
                }
                Move::Pass => {
                    let reply = Position {
                        mover: p.other,
                        other: p.mover,
                        field: 0,
                        ranks: p.ranks,
                    };
                    !self.mover_wins_in(&reply, false)
                }
            };
            if won {
                wins.push(m);
            }
        }
        wins
    }

    /// As [`Self::mover_wins`], or `None` when a stop was requested before
    /// the search finished. Nothing the search stored is wrong: it stops
    /// storing the moment it gives up.
    pub fn try_mover_wins(&mut self, p: &Position) -> Option<bool> {
        self.try_mover_wins_in(p, false)
    }

    fn try_mover_wins_in(&mut self, p: &Position, reversed: bool) -> Option<bool> {
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
        if !reversed
            && !either_holds(mover, other, self.classes.cut)
            && !either_holds(mover, other, self.classes.back)
        {
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
            self.remember(key, verdict.win);
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
        // there is no guess, the first child tried usually wins, and the
        // other prefetches only cost: without them 26x26 11-back and
        // both-rules deals ran 1.1-1.6x faster and 13x13 deals 1.08-1.14x
        // (BENCHMARKS.md, "Prefetch only where every child is searched").
        let mut keys = [0u128; PREFETCHED_MOVES];
        if self.cut_guided && nm + no - 1 > SMALL_POSITION_CARDS {
            for (k, &m) in moves[..count.min(PREFETCHED_MOVES)].iter().enumerate() {
                if guess == Some(m) {
                    continue;
                }
                let i = usize::from(m);
                mover[i] -= 1;
                let (again, after, order) = self.after_play(i, reversed);
                let (m, o) = if again {
                    (&*mover, &*other)
                } else {
                    (&*other, &*mover)
                };
                keys[k] = self.key(&m[..ranks], &o[..ranks], after, order, nm + no - 1);
                mover[i] += 1;
                self.memo.prefetch(keys[k]);
            }
        }
        // The refutation bound ([`RefutationBound`]) holds among the
        // cards that can be upgraded (see the module comment), which are
        // tried weakest first; the guessed card, tried out of that order,
        // teaches it nothing.
        let mut refuted = RefutationBound::default();
        for (k, &m) in moves[..count].iter().enumerate() {
            if guess == Some(m) {
                continue;
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
        }
        if field > 0
            && guess != Some(Move::PASS_BYTE)
            && !self.search(other, mover, no, nm, ranks, 0, false, 0).win
        {
            return Outcome::won_by(Move::PASS_BYTE);
        }
        Outcome::decided(false)
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

    fn remember(&self, key: u128, wins: bool) {
        if !self.stop.gave_up() {
            self.memo.insert(key, wins);
        }
    }
}

/// The legal moves of a variant on a sorted hand: plays strictly above the
/// field card (normal) or strictly below it (reversed), one per distinct
/// strength, weakest first, then the pass when the field holds a card.
pub fn variant_moves(hand: &[u32], field: u32, reversed: bool) -> Vec<Move> {
    if !reversed || field == 0 {
        return legal_moves(hand, field);
    }
    let mut moves: Vec<Move> = Vec::with_capacity(hand.len() + 1);
    for &c in hand {
        if c < field && moves.last() != Some(&Move::play_strength(c)) {
            moves.push(Move::play_strength(c));
        }
    }
    moves.push(Move::Pass);
    moves
}

/// The plain twin on sorted lists of strengths, without memo: does the
/// player holding `x` to move, against `y`, on field `field` (0 = empty)
/// in the given order, win under `rules`?
pub fn plain_variant_wins(x: &[u32], y: &[u32], field: u32, reversed: bool, rules: Rules) -> bool {
    variant_moves(x, field, reversed)
        .into_iter()
        .any(|m| plain_variant_move_wins(x, y, reversed, rules, m))
}

/// The plain twin's verdict on one legal move `m` of the player holding
/// `x` against `y` in the given order: does it win?
pub fn plain_variant_move_wins(
    x: &[u32],
    y: &[u32],
    reversed: bool,
    rules: Rules,
    m: Move,
) -> bool {
    match m {
        Move::Play(_) if x.len() == 1 => true,
        Move::Play(i) if Some(i as u32 + 1) == rules.cut => {
            plain_variant_wins(&hand_after(x, m), y, 0, false, rules)
        }
        Move::Play(i) => {
            let order = reversed ^ (Some(i as u32 + 1) == rules.back);
            !plain_variant_wins(y, &hand_after(x, m), i as u32 + 1, order, rules)
        }
        Move::Pass => !plain_variant_wins(y, x, 0, false, rules),
    }
}

#[cfg(test)]
mod tests {

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
    use super::*;
    use crate::games::tanhinmin::reference::plain_mover_wins;
    use crate::random::{chunk_rng, uniform_below};

    #[test]
    fn back_reverses_the_trick_and_a_pass_restores_it() {
        assert_eq!(
            variant_moves(&[1, 2, 2, 5, 7], 5, true),
            vec![Move::Play(0), Move::Play(1), Move::Pass]
        );
        assert_eq!(
            variant_moves(&[1, 7], 5, false),
            vec![Move::Play(6), Move::Pass]
        );
        // X = {2, 9}, Y = {5}, back = 9. Plain: X leads 9, Y cannot beat
        // it and passes, and X's 2 is the last card: X wins. With 11-back
        // the 9 reverses the order, Y's 5 is now playable and is Y's last
        // card; leading 2 loses to the 5 as well: X loses.
        let rules = Rules {
            cut: None,
            back: Some(9),
        };
        assert!(plain_mover_wins(&[2, 9], &[5], 0));
        assert!(!plain_variant_wins(&[2, 9], &[5], 0, false, rules));
        assert!(
            !VariantSolver::new(rules, 1 << 16, 1 << 16).mover_wins(&Position::from_cards(
                &[2, 9],
                &[5],
                0
            ))
        );
    }

    /// How often `guess` names the 8-cut winner (by the variant's plain
    /// recursion) of 3,000 random positions: 9 ranks of 4 cards, the cut
    /// on rank 5, 1 to 6 cards a hand, an empty field or a plain card.
    fn cut_hit_rate(guess: impl Fn(&[u8], &[u8], usize, usize) -> bool) -> f64 {
        const RANKS: usize = 9;
        const CUT: u32 = 5;
        let rules = Rules {
            cut: Some(CUT),
            back: None,
        };
        let mut rng = chunk_rng(8, 0);
        let cases = 3000;
        let mut hits = 0;
        for _ in 0..cases {
            let mut deck: Vec<u32> = (1..=RANKS as u32).flat_map(|r| [r; 4]).collect();
            let mut draw = |n: u64| -> Vec<u32> {
                let mut hand: Vec<u32> = (0..n)
                    .map(|_| {
                        let at = uniform_below(&mut rng, deck.len() as u64) as usize;
                        deck.swap_remove(at)
                    })
                    .collect();
                hand.sort();
                hand
            };
            let (nx, ny) = (1 + (hits % 6) as u64, 1 + ((hits / 6) % 6) as u64);
            let (x, y) = (draw(nx), draw(ny));
            let field = uniform_below(&mut rng, RANKS as u64 + 1) as u32;
            let field = if field == CUT { 0 } else { field };
            let counts = |h: &[u32]| {
                let mut c = [0u8; RANKS];
                h.iter().for_each(|&s| c[s as usize - 1] += 1);
                c
            };
            let truth = plain_variant_wins(&x, &y, field, false, rules);
            let said = guess(&counts(&x), &counts(&y), field as usize, CUT as usize - 1);
            hits += usize::from(said == truth);
        }
        hits as f64 / cases as f64
    }

    #[test]
    fn the_cut_guess_names_the_winner_of_nearly_every_position() {
        let rate = cut_hit_rate(cut_guess_mover_wins);
        assert!(rate > 0.99, "the cut guess is right on {rate}");
        // Blind to the cut, the plain μ test is wrong far more often; so is
        // the guess with the cut cards read as the weakest when X- and Y-
        // drop one, which a wrong reading of the graph would give.
        let plain =
            cut_hit_rate(|m, o, f, _| crate::games::tanhinmin::formula::mover_wins_counts(m, o, f));
        assert!(plain < 0.97, "the plain μ test is right on {plain}");
        let cut_as_weakest = cut_hit_rate(|m, o, f, cut| {
            let drop_weakest = |h: &[u8]| {
                let mut b = h.to_vec();
                if b[cut] > 0 {
                    b[cut] -= 1;
                } else if let Some(w) = b.iter().position(|&c| c > 0) {
                    b[w] -= 1;
                }
                b[cut] = 0;
                b
            };
            let mut y_side = drop_weakest(o);
            let below = if f == 0 { 1 } else { 0 };
            if f > 0 {
                y_side[f - 1] += 1;
            }
            crate::games::tanhinmin::formula::mu_counts(m, &y_side, below)
                > crate::games::tanhinmin::formula::mu_counts(o, &drop_weakest(m), 0)
        });
        assert!(
            cut_as_weakest < 0.97,
            "cut as weakest is right on {cut_as_weakest}"
        );
        eprintln!("hit rates: cut guess {rate}, plain μ {plain}, cut as weakest {cut_as_weakest}");
    }

    /// Sorted hands of strengths 1..=7 with duplicates, a field, an order
    /// (reversed only on a field card) and rules with distinct special ranks.
    fn case() -> impl proptest::strategy::Strategy<Value = (Vec<u32>, Vec<u32>, u32, bool, Rules)> {
        use proptest::prelude::*;
        (
            proptest::collection::vec(1u32..8, 1..6),
            proptest::collection::vec(1u32..8, 1..6),
            0u32..8,
            any::<bool>(),
            proptest::option::of(1u32..8),
            proptest::option::of(1u32..8),
        )
            .prop_map(|(mut x, mut y, r, rev, cut, back)| {
                x.sort();
                y.sort();
                let back = back.filter(|&b| Some(b) != cut);
                (x, y, r, rev && r > 0, Rules { cut, back })
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        #[test]
        fn memo_solver_equals_plain_recursion((x, y, r, rev, rules) in case()) {
            let p = Position::from_cards(&x, &y, r);
            let mut p7 = p.clone();
            p7.ranks = 7;
            p7.field = r as usize;
            let want = plain_variant_wins(&x, &y, r, rev, rules);
            let mut private = VariantSolver::new(rules, 1 << 16, 1 << 16);
            proptest::prop_assert_eq!(private.mover_wins_in(&p7, rev), want);
            // A shared table of four buckets: most entries are evicted.
            let tiny = Arc::new(SharedMemo::with_bytes(256));
            let mut shared = VariantSolver::with_shared(rules, tiny, 1 << 12, 1 << 12);
            proptest::prop_assert_eq!(shared.mover_wins_in(&p7, rev), want);
        }

        #[test]
        fn the_cut_guess_only_orders_moves(
            mut x in proptest::collection::vec(1u32..8, 1..7),
            mut y in proptest::collection::vec(1u32..8, 1..7),
            r in 0u32..8,
            cut in 1u32..8,
            back in proptest::option::of(1u32..8),
            rev: bool,
        ) {
            x.sort();
            y.sort();
            // Under 8-cut alone, and with 11-back too (which the guess
            // leaves alone).
            let back = back.filter(|&b| b != cut);
            let r = if r == cut { 0 } else { r };
            let rev = rev && r > 0 && back.is_some();
            let rules = Rules { cut: Some(cut), back };
            let mut p = Position::from_cards(&x, &y, r);
            p.ranks = 7;
            p.field = r as usize;
            let want = plain_variant_wins(&x, &y, r, rev, rules);
            let mut guided = VariantSolver::new(rules, 1 << 16, 1 << 16);
            proptest::prop_assert_eq!(guided.mover_wins_in(&p, rev), want);
            let mut misled = VariantSolver::new(rules, 1 << 16, 1 << 16).with_guess_inverted();
            proptest::prop_assert_eq!(misled.mover_wins_in(&p, rev), want);
        }

        #[test]
        fn winning_moves_equal_the_plain_recursion_move_by_move((x, y, r, rev, rules) in case()) {
            let mut p = Position::from_cards(&x, &y, r);
            p.ranks = 7;
            p.field = r as usize;
            let want: Vec<Move> = variant_moves(&x, r, rev)
                .into_iter()
                .filter(|&m| plain_variant_move_wins(&x, &y, rev, rules, m))
                .collect();
            let mut solver = VariantSolver::new(rules, 1 << 16, 1 << 16);
            proptest::prop_assert_eq!(solver.winning_moves_in(&p, rev), want.clone());
            proptest::prop_assert_eq!(solver.mover_wins_in(&p, rev), !want.is_empty());
        }

        #[test]
        fn without_rules_it_is_the_plain_game(
            mut x in proptest::collection::vec(1u32..8, 1..6),
            mut y in proptest::collection::vec(1u32..8, 1..6),
            r in 0u32..8,
        ) {
            x.sort();
            y.sort();
            let want = plain_mover_wins(&x, &y, r);
            proptest::prop_assert_eq!(plain_variant_wins(&x, &y, r, false, Rules::PLAIN), want);
            let mut p = Position::from_cards(&x, &y, r);
            p.ranks = 7;
            p.field = r as usize;
            proptest::prop_assert_eq!(VariantSolver::new(Rules::PLAIN, 1 << 16, 1 << 16).mover_wins(&p), want);
        }

        #[test]
        fn a_special_rank_nobody_holds_changes_nothing(
            mut x in proptest::collection::vec(1u32..7, 1..6),
            mut y in proptest::collection::vec(1u32..7, 1..6),
            r in 0u32..7,
        ) {
            x.sort();
            y.sort();
            let rules = Rules { cut: Some(7), back: Some(8) };
            proptest::prop_assert_eq!(plain_variant_wins(&x, &y, r, false, rules), plain_mover_wins(&x, &y, r));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]

        /// The 64-bit key is the wide key, bit for bit, on positions of up
        /// to its card limit: random counts (up to 5 a rank, so a rank can
        /// hold most of the cards), fields, orders and special ranks.
        #[test]
        fn the_small_key_is_the_wide_key(
            mover in proptest::collection::vec(0u8..6, 1..14),
            other in proptest::collection::vec(0u8..6, 1..14),
            field in 0usize..15,
            reversed: bool,
            cut in 0usize..16,
            back in 0usize..16,
        ) {
            let ranks = mover.len().min(other.len());
            let (mut m, mut o) = (mover[..ranks].to_vec(), other[..ranks].to_vec());
            // Cards taken from the strongest ranks down to the limit.
            let mut cards: u32 = m.iter().chain(&o).map(|&c| u32::from(c)).sum();
            for i in (0..ranks).rev() {
                for hand in [&mut m, &mut o] {
                    while cards > SMALL_VARIANT_CARDS && hand[i] > 0 {
                        hand[i] -= 1;
                        cards -= 1;
                    }
                }
            }
            let (m, o) = (&m[..], &o[..]);
            let field = field.min(ranks);
            let reversed = reversed && field > 0;
            let cut = if cut < ranks { cut } else { NO_RANK };
            let back = if back < ranks && back != cut { back } else { NO_RANK };
            proptest::prop_assert_eq!(
                u128::from(variant_key::<u64>(m, o, field, reversed, cut, back)),
                variant_key::<u128>(m, o, field, reversed, cut, back)
            );
        }
    }

    #[test]
    fn the_cut_can_change_the_winner() {
        // X = {1, 8}, Y = {9}: in the plain game X must lead 1 or 8; Y beats
        // either and wins. With 8 as the cut, X plays 8, clears the field and
        // then plays 1 to win.
        let rules = Rules {
            cut: Some(8),
            back: None,
        };
        assert!(!plain_mover_wins(&[1, 8], &[9], 0));
        assert!(plain_variant_wins(&[1, 8], &[9], 0, false, rules));
    }

    #[test]
    fn under_back_an_empty_field_is_not_a_field_that_blocks_nothing() {
        let rules = Rules {
            cut: None,
            back: Some(6),
        };
        assert!(!plain_variant_wins(&[1, 6], &[1, 6], 0, false, rules));
        assert!(plain_variant_wins(&[1, 6], &[1, 6], 7, false, rules));
        let (m, o) = ([1u8, 0, 0, 0, 0, 1, 0], [1u8, 0, 0, 0, 0, 1, 0]);
        assert_ne!(
            variant_key::<u128>(&m, &o, 0, false, NO_RANK, 5),
            variant_key::<u128>(&m, &o, 7, false, NO_RANK, 5) & !63
        );
    }

    #[test]
    fn keys_keep_special_ranks_apart_from_their_run() {
        let rules_cut = Rules::index(Some(2));
        // Mover holds ranks 1, 2, 3 (2 is the cut), the opponent rank 4.
        let m = [1u8, 1, 1, 0];
        let o = [0u8, 0, 0, 1];
        let with_cut = variant_key::<u128>(&m, &o, 0, false, rules_cut, NO_RANK);
        let plain = variant_key::<u128>(&m, &o, 0, false, NO_RANK, NO_RANK);
        assert_ne!(with_cut, plain);
        // Without special ranks, a run of one owner's ranks is one group:
        // {1, 2, 3} and {1, 1, 2} are the same game and the same key.
        let m2 = [2u8, 1, 0, 0];
        assert_eq!(
            plain,
            variant_key::<u128>(&m2, &o, 0, false, NO_RANK, NO_RANK)
        );
    }
}
