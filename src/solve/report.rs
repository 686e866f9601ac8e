//! One position solved: the report `runner solve` prints, the checks of
//! a position's cards and rules, and the solvers one thread keeps from
//! position to position. Shared by one position and a batch of them.

use crate::config::MAX_CARDS_IN_PLAY;
use crate::engine::usable_share;
use crate::games::cards::MAX_RANKS;
use crate::games::tanhinmin::dropped_cards::DroppedCardsSolver;
use crate::games::tanhinmin::formula;
use crate::games::tanhinmin::memo::SharedMemo;
use crate::games::tanhinmin::moves::Move;
use crate::games::tanhinmin::ordering::{MoveOrder, cut_guess_mover_wins};
use crate::games::tanhinmin::position::Position;
use crate::games::tanhinmin::score::{Conjecture, ScoreSolver, c1_value, plain_score};
use crate::games::tanhinmin::solver::Solver;
use crate::games::tanhinmin::strategy::proof_move;
use crate::games::tanhinmin::variant::{
    MemoTwin, Rules, SMALL_VARIANT_CARDS, VARIANT_MAX_CARDS, VariantSolver, best_line,
};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The largest card strength a position may hold.
pub(super) const MAX_STRENGTH: u32 = MAX_RANKS as u32;

/// The most cards of a variant position that the variant's plain
/// recursion re-solves as a check, with its table of whole positions
/// ([`MemoTwin`]). Without the table 14 cards took up to a second. With it
/// (measured 2026-12-05 with `runner solve`) 18 cards take at most about 2
/// s: 9 odd strengths against 9 even ones under 11-back, 2.0 s in all.
/// 20 cards of distinct strengths passed 4 million positions in 8 s, and a
/// 13x13 deal settles up to 26 million, 2 GB in a minute and a half: too
/// much for a check nobody asked for.
pub(super) const TWIN_MAX_CARDS: usize = 18;

/// The positions the check may settle before it gives up (and the report
/// says it was not run), so that no position exhausts memory: about 800 MB.
pub(super) const TWIN_MAX_POSITIONS: usize = 4_000_000;

/// Memory a position of the check's table takes, as `--check-positions`
/// budgets it: 80 bytes a position on 13x13 deals (26 million positions,
/// 2.1 GB peak), about 115 where the hands are short; the table's growth
/// doubles it for a moment, so a little more is kept in hand.
pub const TWIN_BYTES_PER_POSITION: u64 = 128;

/// The check `--check-positions` asks for (`positions`), the default
/// without it. Refused in one line under the plain rules, where the proved
/// theorem checks minimax, and where that many positions on each of
/// `threads` threads would take more memory than the machine can give
/// ([`usable_share`], the memos' rule too).
pub fn twin_check(
    positions: Option<u64>,
    rules: Rules,
    threads: usize,
) -> Result<TwinCheck, String> {
    let Some(n) = positions else {
        return Ok(TwinCheck::default());
    };
    if rules == Rules::PLAIN {
        return Err(
            "--check-positions: only with --cut or --back; under the plain rules the proved theorem checks minimax"
                .to_string(),
        );
    }
    let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
    let bytes = n
        .checked_mul(TWIN_BYTES_PER_POSITION)
        .and_then(|b| b.checked_mul(threads as u64));
    let available = crate::engine::available_memory();
    match (bytes, available) {
        (Some(b), Some(a)) if b > usable_share(a) => Err(format!(
            "--check-positions: {n} positions on {threads} thread(s) take about {:.1} GiB ({TWIN_BYTES_PER_POSITION} bytes each), more than the {:.1} GiB this machine can give (three quarters of the {:.1} GiB available)",
            gib(b),
            gib(usable_share(a)),
            gib(a)
        )),
        (None, _) => Err(format!(
            "--check-positions: {n} positions is more than any machine's memory holds"
        )),
        _ => usize::try_from(n)
            .map(TwinCheck::within)
            .map_err(|_| format!("--check-positions: {n} is too large for this machine")),
    }
}

/// Which variant positions the variant's plain recursion ([`MemoTwin`])
/// solves again as a check of minimax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TwinCheck {
    /// Positions of more cards are not checked.
    max_cards: usize,
    /// The check gives up once it would settle more positions than this.
    max_positions: usize,
}

impl Default for TwinCheck {
    /// Positions of up to 18 cards, within 4 million positions: at most
    /// a couple of seconds.
    fn default() -> Self {
        TwinCheck {
            max_cards: TWIN_MAX_CARDS,
            max_positions: TWIN_MAX_POSITIONS,
        }
    }
}

impl TwinCheck {
    /// `--check-positions N`: positions of any size, within `positions`
    /// positions (a 13x13 deal takes up to about 30 million), for a
    /// researcher who wants a verdict checked before citing it.
    pub fn within(positions: usize) -> Self {
        TwinCheck {
            max_cards: usize::MAX,
            max_positions: positions,
        }
    }

    /// What the check covers, for a reader: "positions of up to 18 cards
    /// that it settles within 4000000 positions".
    pub fn scope(&self) -> String {
        let within = match self.max_positions {
            1 => "1 position".to_string(),
            n => format!("{n} positions"),
        };
        if self.max_cards == usize::MAX {
            format!("positions it settles within {within}")
        } else {
            format!(
                "positions of up to {} cards that it settles within {within}",
                self.max_cards
            )
        }
    }

    /// The twin's verdict on a variant position, or `None` where the check
    /// does not reach.
    fn verdict(
        &self,
        x: &[u32],
        y: &[u32],
        field: u32,
        reversed: bool,
        rules: Rules,
    ) -> Option<bool> {
        (x.len() + y.len() <= self.max_cards)
            .then(|| MemoTwin::new(rules, self.max_positions).wins(x, y, field, reversed))
            .flatten()
    }
}

/// One position solved both ways, as printed or as `--json`; read back
/// from a batch's checkpoint (`--batch --out --resume`).
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct SolveReport {
    /// The first player's cards, sorted.
    pub first: Vec<u32>,
    /// The second player's cards, sorted.
    pub second: Vec<u32>,
    /// The field (0: empty).
    pub field: u32,
    /// Does the first player (to move) win by minimax?
    pub minimax_first_wins: bool,
    /// ... and by the formula?
    pub formula_first_wins: bool,
    /// μ(X, Y- + {r}).
    pub mu0: u32,
    /// μ(Y, X-).
    pub mu1: u32,
    /// Card strengths to play, or "pass"; `None` when only the verdict
    /// was asked for (`--verdicts-only`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winning_moves: Option<Vec<String>>,
    /// Under the plain rules, when the theorem says the mover wins: the
    /// move the Coq proof's strategy plays (Tanhinmin.v), which must be
    /// among `winning_moves`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub proof_move: Option<String>,
    /// The variant played, when a rule is on (then `minimax_first_wins`
    /// is the variant's verdict and `formula_first_wins` the plain μ
    /// test's prediction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variant: Option<VariantReport>,
    /// The card-count value, with `--score`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub card_count: Option<CardCountReport>,
    /// A line of best play, with `--line` (never in a batch, so never
    /// read back).
    #[serde(skip_serializing_if = "Option::is_none", skip_deserializing)]
    pub line: Option<LineReport>,
}

/// What `runner solve --line` adds: one game played to its end, the
/// winner ending it in the fewest moves it can force and the loser holding
/// out for the most (first in move order among equals). Found by an
/// exhaustive recursion of its own, so its winner is one more check of
/// the verdict.
#[derive(Serialize, Debug, PartialEq)]
pub struct LineReport {
    /// Does the first player win the line?
    pub first_wins: bool,
    /// Its moves, first to last.
    pub moves: Vec<LineStep>,
}

/// One move of a line.
#[derive(Serialize, Debug, PartialEq)]
pub struct LineStep {
    /// "first" (the player to move at the start) or "second".
    pub player: &'static str,
    /// A card strength, or "pass".
    #[serde(rename = "move")]
    pub mv: String,
    /// What the move does besides: `wins` (the player's last card), `cut`
    /// (the field clears and the same player moves again), `reverses` or
    /// `restores` (the order), `clears` (a pass: the field clears, and
    /// the order turns normal); none for a plain play.
    pub effect: Option<&'static str>,
}

/// The line of best play of a checked position (see [`LineReport`]).
pub fn line_report(x: &[u32], y: &[u32], field: u32, reversed: bool, rules: Rules) -> LineReport {
    let line = best_line(x, y, field, reversed, rules);
    let mut order = reversed;
    let moves = line
        .moves
        .iter()
        .map(|step| {
            let effect = match (&step.after, step.mv) {
                (None, _) => Some("wins"),
                (Some(_), Move::Pass) => Some("clears"),
                (Some(a), _) if a.mover_again => Some("cut"),
                (Some(a), _) if a.reversed != order => {
                    Some(if a.reversed { "reverses" } else { "restores" })
                }
                _ => None,
            };
            if let Some(a) = &step.after {
                order = a.reversed;
            }
            LineStep {
                player: if step.by_first { "first" } else { "second" },
                mv: step.mv.to_string(),
                effect,
            }
        })
        .collect();
    LineReport {
        first_wins: line.first_wins,
        moves,
    }
}

impl SolveReport {
    /// Does every check hold? Under the plain rules minimax and the
    /// theorem agree, and the proof's move (when the theorem says the
    /// mover wins) is a winning one; under a variant minimax and the variant's plain
    /// recursion (the μ test is only a predictor there); with the card
    /// count, C1 and the value (and its twin); with a line, its winner and
    /// minimax.
    pub fn checks_hold(&self) -> bool {
        let verdict = match &self.variant {
            None => {
                self.minimax_first_wins == self.formula_first_wins
                    && self
                        .proof_move
                        .as_ref()
                        .zip(self.winning_moves.as_ref())
                        .is_none_or(|(m, moves)| moves.contains(m))
            }
            Some(v) => v
                .twin_first_wins
                .is_none_or(|t| t == self.minimax_first_wins),
        };
        let count = self
            .card_count
            .as_ref()
            .is_none_or(|c| c.value == c.c1 && c.twin.is_none_or(|t| t == c.value));
        let line = self
            .line
            .as_ref()
            .is_none_or(|l| l.first_wins == self.minimax_first_wins);
        verdict && count && line
    }
}

/// What `runner solve` adds under a variant's rules.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct VariantReport {
    /// The rules' name: "8-cut", "11-back" or "8-cut + 11-back".
    pub rules: String,
    /// Strength of the cut rank, if on.
    pub cut: Option<u32>,
    /// Strength of the back rank, if on.
    pub back: Option<u32>,
    /// Was the order reversed?
    pub reversed: bool,
    /// Does the first player win the plain game from here (normal order
    /// only)?
    pub plain_first_wins: Option<bool>,
    /// The variant's plain recursion, on positions of at most 18 cards
    /// that it settles within 4 million positions (`TWIN_MAX_CARDS`,
    /// `TWIN_MAX_POSITIONS`).
    pub twin_first_wins: Option<bool>,
    /// Under 8-cut alone, the guess that orders the search's moves: the μ
    /// test read on the game's "may be played on" graph.
    pub cut_guess_first_wins: Option<bool>,
}

/// What `runner solve --score` adds: the card-count game's value.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct CardCountReport {
    /// The value by search: the cards left in the loser's hand, positive
    /// when the player to move wins.
    pub value: i32,
    /// Conjecture C1's value.
    pub c1: i32,
    /// How the search proved it: `c1-window` (the value is at least C1's
    /// and not more, two plain searches by the dropped-cards lemma, as the
    /// card-count study proves it) or `full-minimax` (C1's window missed).
    pub proved_by: String,
    /// The scored game's plain recursion (no memo), on positions of at
    /// most 12 cards.
    pub twin: Option<i32>,
}

/// The most cards on which `--score` also runs the scored game's plain
/// recursion (no memo, exponential) as a check.
const SCORE_TWIN_MAX_CARDS: usize = 12;

/// The card-count value of (X, Y, r), on sorted lists, proved as the
/// card-count study proves it: C1 only picks the window.
pub fn card_count(x: &[u32], y: &[u32], field: u32) -> CardCountReport {
    card_count_by(x, y, field, c1_value)
}

/// [`card_count`] with the window picked by `conjecture`: the tests give a
/// wrong one, to show the searches, not the closed form, decide the value.
fn card_count_by(x: &[u32], y: &[u32], field: u32, conjecture: Conjecture) -> CardCountReport {
    ScoreSolvers::new().card_count(x, y, field, conjecture)
}

/// The card-count game's solvers: the window's threshold searches and the
/// full-value minimax. Their memos hold values of positions, whatever
/// position asked, so they are kept from position to position.
struct ScoreSolvers {
    window: DroppedCardsSolver,
    /// Made only when C1's window first misses.
    full: Option<ScoreSolver>,
}

impl ScoreSolvers {
    fn new() -> Self {
        ScoreSolvers {
            window: DroppedCardsSolver::new(
                std::sync::Arc::new(SharedMemo::with_bytes(64 << 20)),
                64 << 20,
                MoveOrder::default(),
            ),
            full: None,
        }
    }

    /// The card-count value of (X, Y, r), on sorted lists, with the window
    /// picked by `conjecture`.
    fn card_count(
        &mut self,
        x: &[u32],
        y: &[u32],
        field: u32,
        conjecture: Conjecture,
    ) -> CardCountReport {
        let pos = position_of(x, y, field);
        let c1 = conjecture(x, y, field);
        let (value, proved_by) = if self.window.proves_value(&pos, c1) {
            (c1, "c1-window")
        } else {
            let full = self.full.get_or_insert_with(|| ScoreSolver::new(256 << 20));
            (full.score(&pos), "full-minimax")
        };
        CardCountReport {
            value,
            c1,
            proved_by: proved_by.to_string(),
            twin: (x.len() + y.len() <= SCORE_TWIN_MAX_CARDS).then(|| plain_score(x, y, field)),
        }
    }
}

/// The position (X, Y, r) of sorted lists, with the field given a rank of
/// its own so that it keeps its strength when above every card.
fn position_of(x: &[u32], y: &[u32], field: u32) -> Position {
    let mut pos = Position::from_cards(x, y, field);
    pos.ranks = pos.ranks.max(field as usize);
    pos.field = field as usize;
    pos
}

/// What the parts of a position are called where it was given: flags on
/// the command line, columns in a batch file. Messages name the part at
/// fault by these.
#[derive(Clone, Copy)]
pub struct Names {
    first: &'static str,
    second: &'static str,
    field: &'static str,
    reversed: &'static str,
}

/// A position given by `runner solve`'s flags.
pub const FLAGS: Names = Names {
    first: "--first",
    second: "--second",
    field: "--field",
    reversed: "--reversed",
};

/// A position given as a row of a batch file (`runner solve --batch`).
pub const COLUMNS: Names = Names {
    first: "column first",
    second: "column second",
    field: "column field",
    reversed: "column reversed",
};

/// Checks a position's cards; the message names the part at fault.
pub fn check(first: &[u32], second: &[u32], field: u32, names: Names) -> Result<(), String> {
    for (name, hand) in [(names.first, first), (names.second, second)] {
        if hand.is_empty() {
            return Err(format!("{name}: needs at least one card"));
        }
        if let Some(bad) = hand.iter().find(|&&c| c == 0 || c > MAX_STRENGTH) {
            return Err(format!(
                "{name}: card strength {bad} is outside 1..={MAX_STRENGTH}"
            ));
        }
    }
    let both = format!("{} and {}", names.first, names.second);
    if first.len() + second.len() > MAX_CARDS_IN_PLAY as usize {
        return Err(format!(
            "{both}: more than {MAX_CARDS_IN_PLAY} cards in all"
        ));
    }
    if field > MAX_STRENGTH {
        return Err(format!(
            "{}: {field} is outside 0..={MAX_STRENGTH}",
            names.field
        ));
    }
    Ok(())
}

/// Checks the rules of a variant position on top of [`check`].
pub fn check_rules(
    first: &[u32],
    second: &[u32],
    field: u32,
    rules: Rules,
    reversed: bool,
    names: Names,
) -> Result<(), String> {
    check(first, second, field, names)?;
    check_rule_flags(rules)?;
    if reversed && rules.back.is_none() {
        return Err(format!(
            "{}: only an 11-back trick is reversed; give --back",
            names.reversed
        ));
    }
    if reversed && field == 0 {
        return Err(format!(
            "{}: a reversed trick has a card on the field; give {}",
            names.reversed, names.field
        ));
    }
    // The order turns at the back card and only weaker cards follow it,
    // and a cut card clears the field, restoring the order: no reversed
    // trick has a field above the back rank, or of the cut rank. Solving
    // one would answer a position no game reaches.
    if let Some(back) = rules.back.filter(|&back| reversed && field > back) {
        return Err(format!(
            "{}: {field} is above the back rank {back}, and a reversed trick only goes down from it",
            names.field
        ));
    }
    if let Some(cut) = rules.cut.filter(|&cut| reversed && field == cut) {
        return Err(format!(
            "{}: {cut} is the cut rank, which clears the field and ends the reversal",
            names.field
        ));
    }
    let special = rules != Rules::PLAIN;
    if special && first.len() + second.len() > VARIANT_MAX_CARDS as usize {
        return Err(format!(
            "{} and {}: more than {VARIANT_MAX_CARDS} cards in all, the most a variant position holds",
            names.first, names.second
        ));
    }
    Ok(())
}

/// Checks `--cut` and `--back`, which hold for every position solved.
pub fn check_rule_flags(rules: Rules) -> Result<(), String> {
    for (flag, rank) in [("--cut", rules.cut), ("--back", rules.back)] {
        if let Some(r) = rank
            && !(1..=MAX_STRENGTH).contains(&r)
        {
            return Err(format!("{flag}: rank {r} is outside 1..={MAX_STRENGTH}"));
        }
    }
    if rules.cut.is_some() && rules.cut == rules.back {
        return Err("--cut/--back: the two rules need different ranks".into());
    }
    Ok(())
}

/// Solves one position by minimax and by the formula.
pub fn report(first: &[u32], second: &[u32], field: u32) -> SolveReport {
    report_under(first, second, field, Rules::PLAIN, false)
}

/// Solves one position under `rules` (checked by [`check_rules`]) by
/// minimax, beside the plain game's μ test.
pub fn report_under(
    first: &[u32],
    second: &[u32],
    field: u32,
    rules: Rules,
    reversed: bool,
) -> SolveReport {
    report_one(Solvers::new(rules), first, second, field, reversed)
}

/// Solves one position with `solvers` as [`Solvers::new`] made them (their
/// twin check and moves set as wanted). A variant position past
/// `LARGE_POSITION_CARDS` is tried on those small tables within
/// `SMALL_TABLES_POSITIONS` first, and carried on with a batch's large
/// tables ([`Solvers::for_positions`]), from the verdicts the small ones
/// hold, if that was not enough: most 26x26 positions take a second,
/// which a large table's first-touched pages would make up to 1.6x
/// slower, while some take minutes to hours, which the large tables make
/// up to 1.9x faster (BENCHMARKS.md, "One position carried on to large
/// tables").
pub fn report_one(
    solvers: Solvers,
    first: &[u32],
    second: &[u32],
    field: u32,
    reversed: bool,
) -> SolveReport {
    report_within(
        solvers,
        SMALL_TABLES_POSITIONS,
        (first, second, field, reversed),
    )
    .0
}

/// [`report_one`] with the small tables' budget given; also says, when the
/// position was carried on to the large tables, how many verdicts they
/// took from the small ones.
fn report_within(
    solvers: Solvers,
    small_tables_positions: u64,
    (first, second, field, reversed): (&[u32], &[u32], u32, bool),
) -> (SolveReport, Option<usize>) {
    let cards = first.len() + second.len();
    if solvers.variant.is_none() || cards <= LARGE_POSITION_CARDS {
        let mut solvers = solvers;
        return (solvers.report(first, second, field, reversed), None);
    }
    let (rules, twin, moves) = (solvers.rules, solvers.twin, solvers.moves);
    let mut small = solvers.within_positions(small_tables_positions);
    if let Some(r) = small.try_report(first, second, field, reversed) {
        return (r, None);
    }
    let mut large = Solvers::for_positions(rules, cards, 1)
        .checking(twin)
        .with_moves(moves);
    // The search carries on from what it proved: a position just past the
    // budget costs little more than on the small tables alone.
    let mut carried = 0;
    if let (Some(into), Some(from)) = (&large.variant, &small.variant) {
        into.take_verdicts_of(from);
        carried = into.own_memos().iter().map(|m| m.len()).sum();
    }
    drop(small);
    (large.report(first, second, field, reversed), Some(carried))
}

/// The positions a variant search of one position gets on the small tables
/// before it carries on in large ones (see [`report_one`]): some seconds of
/// search (26x26 11-back positions of 6 to 8 s reach it, ones of 1 to 4 s
/// do not).
const SMALL_TABLES_POSITIONS: u64 = 8_000_000;

/// The solvers of one thread, kept from position to position: their memos
/// hold verdicts of positions under these rules, whatever position asked,
/// so a batch of positions shares what each search proved.
pub struct Solvers {
    rules: Rules,
    plain: Solver,
    variant: Option<VariantSolver>,
    score: Option<ScoreSolvers>,
    twin: TwinCheck,
    /// Are the winning moves solved, or only the verdict?
    moves: bool,
}

/// A batch of positions of more cards than this (26x26 deals) is solved
/// with the tables a run gives such deals ([`LARGE_SHARE`]).
const LARGE_POSITION_CARDS: usize = 2 * SMALL_VARIANT_CARDS as usize;

/// One thread's tables for a batch of positions past
/// [`LARGE_POSITION_CARDS`], laid out as a run lays out its share at
/// 26x26: a quarter for the plain game (under a variant it takes over in
/// positions of 30 to 50 cards, few of which recur), and under a variant
/// the rest for the variant's own table of long keys, which evicts by
/// search cost. Against the small tables (64 MiB for the plain game, 256
/// MiB for the variant's), the 107 26x26 8-cut rows of
/// `results/variant-cut-26/formula_failures.csv` ran 1.23x faster, 4
/// 11-back rows of `results/variant-back-26/` 1.37x, and 60 random plain
/// 26x26 deals 1.40x with their winning moves (BENCHMARKS.md, "`runner
/// solve --batch` with a run's tables at 26x26").
const LARGE_SHARE: usize = 1 << 30;

impl Solvers {
    /// Solvers for positions under `rules`, with tables for positions of a
    /// few dozen cards.
    pub fn new(rules: Rules) -> Self {
        Solvers {
            rules,
            plain: Solver::with_order(64 << 20, MoveOrder::default()),
            variant: (rules != Rules::PLAIN)
                .then(|| VariantSolver::new(rules, 256 << 20, 64 << 20)),
            score: None,
            twin: TwinCheck::default(),
            moves: true,
        }
    }

    /// Solvers for a batch of positions of at most `cards` cards under
    /// `rules`, one of `threads` alike: positions past
    /// `LARGE_POSITION_CARDS` get a run's tables for them
    /// (`LARGE_SHARE` a thread, or what three quarters of the
    /// memory available gives each thread, if less), since their searches
    /// are many times the small tables. (The plain game's table beside a
    /// variant's, for the plain verdict of each row, stays small.) One
    /// position starts on the small tables instead (see [`report_one`]).
    pub fn for_positions(rules: Rules, cards: usize, threads: usize) -> Self {
        let share = crate::engine::available_memory()
            .map_or(LARGE_SHARE as u64, |a| {
                usable_share(a) / threads.max(1) as u64
            })
            .min(LARGE_SHARE as u64) as usize;
        if cards <= LARGE_POSITION_CARDS || share < 320 << 20 {
            return Self::new(rules);
        }
        Solvers {
            rules,
            plain: Solver::with_order(
                if rules == Rules::PLAIN {
                    share / 4
                } else {
                    64 << 20
                },
                MoveOrder::default(),
            ),
            variant: (rules != Rules::PLAIN)
                .then(|| VariantSolver::new(rules, share / 4 * 3, share / 4).evicting_by_cost()),
            score: None,
            twin: TwinCheck::default(),
            moves: true,
        }
    }

    /// The same solvers, checking variant verdicts as `twin` says.
    pub fn checking(self, twin: TwinCheck) -> Self {
        Solvers { twin, ..self }
    }

    /// The same solvers, listing each position's winning moves or, without
    /// `moves`, solving its verdict only (`--verdicts-only`): listing them
    /// solves every move of the position, each a search as long as the
    /// verdict's (a 26x26 8-cut row took about 6 s with them).
    pub fn with_moves(self, moves: bool) -> Self {
        Solvers { moves, ..self }
    }

    /// The same solvers, whose variant search gives up when `stop` becomes
    /// true: a batch keeping its tables over a stop (`--keep-memo`) stops a
    /// row of hours at once, and answers through [`Self::try_report`].
    pub(super) fn stopping_on(self, stop: Arc<AtomicBool>) -> Self {
        Solvers {
            variant: self.variant.map(|v| v.with_stop(stop)),
            ..self
        }
    }

    /// The variant's solver, whose own tables a batch keeps over a stop.
    pub(super) fn variant_solver(&self) -> Option<&VariantSolver> {
        self.variant.as_ref()
    }

    /// The same solvers, whose variant search gives up once it has
    /// searched about `positions` positions: they answer through
    /// [`Self::try_report`] only.
    pub(super) fn within_positions(self, positions: u64) -> Self {
        Solvers {
            variant: self.variant.map(|v| v.within_positions(positions)),
            ..self
        }
    }

    /// The card-count value of a plain position (see [`card_count`]); the
    /// solvers are made on first use.
    pub fn card_count(&mut self, x: &[u32], y: &[u32], field: u32) -> CardCountReport {
        self.score
            .get_or_insert_with(ScoreSolvers::new)
            .card_count(x, y, field, c1_value)
    }

    /// Solves one position (checked by [`check_rules`]) by minimax, beside
    /// the plain game's μ test.
    pub fn report(
        &mut self,
        first: &[u32],
        second: &[u32],
        field: u32,
        reversed: bool,
    ) -> SolveReport {
        self.try_report(first, second, field, reversed)
            .expect("solvers without a budget never give up")
    }

    /// As [`Self::report`], or `None` when the variant search gave up
    /// (see [`Self::within_positions`] and [`Self::stopping_on`]); then
    /// nothing else was solved.
    pub(super) fn try_report(
        &mut self,
        first: &[u32],
        second: &[u32],
        field: u32,
        reversed: bool,
    ) -> Option<SolveReport> {
        let rules = self.rules;
        let mut x = first.to_vec();
        let mut y = second.to_vec();
        x.sort_unstable();
        y.sort_unstable();
        let pos = position_of(&x, &y, field);
        let (mu0, mu1) = formula::mu_pair_sorted(&x, &y, field);
        // The variant's search first: if it gives up, nothing else has
        // been spent.
        let searched = match &mut self.variant {
            None => None,
            Some(s) => Some(if self.moves {
                let moves = s.try_winning_moves_in(&pos, reversed)?;
                (!moves.is_empty(), Some(moves))
            } else {
                (s.try_mover_wins_in(&pos, reversed)?, None)
            }),
        };
        let plain = (!reversed).then(|| self.plain.mover_wins(&pos));
        let (minimax, moves, variant) = match searched {
            None => {
                let win = plain.expect("the plain game is never reversed");
                let moves = self.moves.then(|| self.plain.winning_moves(&pos));
                (win, moves, None)
            }
            Some((verdict, moves)) => {
                let twin = self.twin.verdict(&x, &y, field, reversed, rules);
                let report = VariantReport {
                    rules: rules.name().to_string(),
                    cut: rules.cut,
                    back: rules.back,
                    reversed,
                    plain_first_wins: plain,
                    twin_first_wins: twin,
                    cut_guess_first_wins: match rules {
                        Rules {
                            cut: Some(cut),
                            back: None,
                        } if !reversed => Some(cut_guess_mover_wins(
                            &pos.mover[..pos.ranks.max(cut as usize)],
                            &pos.other[..pos.ranks.max(cut as usize)],
                            pos.field,
                            cut as usize - 1,
                        )),
                        _ => None,
                    },
                };
                (verdict, moves, Some(report))
            }
        };
        let proof_move =
            (rules == Rules::PLAIN && mu0 > mu1).then(|| proof_move(&x, &y, field).to_string());
        Some(SolveReport {
            first: x,
            second: y,
            field,
            minimax_first_wins: minimax,
            formula_first_wins: mu0 > mu1,
            mu0,
            mu1,
            winning_moves: moves.map(|moves| moves.into_iter().map(|m| m.to_string()).collect()),
            proof_move,
            variant,
            card_count: None,
            line: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::score::c1_off_by_one;
    use crate::random::{chunk_rng, uniform_below};

    /// A batch of positions past [`LARGE_POSITION_CARDS`] gets a run's
    /// tables for them (the plain game's larger, or the variant's larger
    /// and evicting by search cost); those give the small tables' reports
    /// (verdicts, winning moves, checks) under every rule set (on
    /// 15x15 deals, so that the test is quick: the layout is chosen by the
    /// cards the batch says it holds).
    #[test]
    fn large_tables_give_the_small_tables_verdicts() {
        let mut rng = chunk_rng(44, 0);
        for rules in std::iter::once(Rules::PLAIN).chain(Rules::SHIPPED) {
            let mut large = Solvers::for_positions(rules, LARGE_POSITION_CARDS + 1, 1);
            let mut small = Solvers::new(rules);
            let own = |s: &Solvers| match &s.variant {
                Some(v) => v.own_memos()[0].bytes(),
                None => s.plain.private_memo().bytes(),
            };
            assert!(own(&large) > own(&small), "{rules:?}");
            let same = Solvers::for_positions(rules, LARGE_POSITION_CARDS, 1);
            assert_eq!(own(&same), own(&small), "{rules:?}");
            for _ in 0..8 {
                let mut deck: Vec<u32> = (1..=13).flat_map(|r| [r; 4]).collect();
                for i in (1..deck.len()).rev() {
                    deck.swap(i, uniform_below(&mut rng, i as u64 + 1) as usize);
                }
                let (mut x, mut y) = (deck[..15].to_vec(), deck[15..30].to_vec());
                x.sort_unstable();
                y.sort_unstable();
                let a = small.report(&x, &y, 0, false);
                let b = large.report(&x, &y, 0, false);
                assert_eq!(a, b, "{x:?} {y:?} {rules:?}");
            }
        }
    }

    /// One variant position past [`LARGE_POSITION_CARDS`] is tried on the
    /// small tables within a budget, and carried on to the large ones, with
    /// the verdicts proved so far, when the budget runs out: the report is
    /// the one the small tables give without a budget, verdict and winning
    /// moves alike. (A budget of one look gives up after 65,536 positions,
    /// which most 22x21 deals need more than; with the winning moves, it
    /// is spent over the moves' searches.)
    #[test]
    fn one_large_position_carried_on_to_large_tables_gives_the_same_report() {
        let mut rng = chunk_rng(45, 0);
        let cases = Rules::SHIPPED
            .iter()
            .map(|&rules| (rules, false))
            .chain([(Rules::SHIPPED[1], true)]);
        for (rules, moves) in cases {
            let solvers = || Solvers::new(rules).with_moves(moves);
            let mut carried_once = false;
            for _ in 0..6 {
                let mut deck: Vec<u32> = (1..=13).flat_map(|r| [r; 4]).collect();
                for i in (1..deck.len()).rev() {
                    deck.swap(i, uniform_below(&mut rng, i as u64 + 1) as usize);
                }
                let (x, y) = (&deck[..22], &deck[22..43]);
                let alone = solvers().report(x, y, 0, false);
                let (r, carried) = report_within(solvers(), 1, (x, y, 0, false));
                assert_eq!(r, alone, "{x:?} {y:?} {rules:?}");
                let Some(n) = carried else { continue };
                assert!(n > 1000, "{n} verdicts carried");
                let (r, carried) = report_within(solvers(), u64::MAX, (x, y, 0, false));
                assert_eq!((r, carried), (alone, None), "{x:?} {y:?} {rules:?}");
                carried_once = true;
                break;
            }
            assert!(carried_once, "{rules:?}: no deal outgrew the budget");
        }
    }

    /// Random sorted hands of 1 to 6 cards of strengths 1 to 7, and a field.
    fn random_position(rng: &mut impl rand_xoshiro::rand_core::Rng) -> (Vec<u32>, Vec<u32>, u32) {
        let hand = |rng: &mut _| {
            let n = 1 + uniform_below(rng, 6) as usize;
            let mut h: Vec<u32> = (0..n).map(|_| 1 + uniform_below(rng, 7) as u32).collect();
            h.sort_unstable();
            h
        };
        let (x, y) = (hand(rng), hand(rng));
        (x, y, uniform_below(rng, 8) as u32)
    }

    /// `--score`'s value is the scored game's plain recursion's, on many
    /// random positions, fields above every card included.
    #[test]
    fn the_card_count_is_the_plain_recursions() {
        let mut rng = chunk_rng(19, 0);
        for _ in 0..400 {
            let (x, y, r) = random_position(&mut rng);
            let c = card_count(&x, &y, r);
            let plain = plain_score(&x, &y, r);
            assert_eq!(c.value, plain, "{x:?} {y:?} {r}");
            assert_eq!(c.twin, Some(plain));
            assert_eq!(c.c1, c1_value(&x, &y, r));
        }
    }

    /// A wrong conjecture picks a wrong window: the searches refuse it,
    /// the full minimax finds the true value, and the report shows the two
    /// apart (which `runner solve --score` turns into exit 1).
    #[test]
    fn a_wrong_conjecture_is_caught_not_believed() {
        let mut rng = chunk_rng(19, 1);
        let mut caught = 0;
        for _ in 0..200 {
            let (x, y, r) = random_position(&mut rng);
            let c = card_count_by(&x, &y, r, c1_off_by_one);
            assert_eq!(c.value, plain_score(&x, &y, r), "{x:?} {y:?} {r}");
            if c.c1 != c1_value(&x, &y, r) {
                assert_eq!(c.proved_by, "full-minimax");
                assert_ne!(c.value, c.c1);
                caught += 1;
            }
        }
        assert!(caught > 20, "only {caught} positions had a wrong window");
    }
}
