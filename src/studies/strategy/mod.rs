//! The Coq proof's winning strategy, checked against the exact minimax along
//! a played-out line of every deal.
//!
//! Tanhinmin.v proves two things: when μ0 > μ1 the move below wins, and when
//! μ0 <= μ1 every move, pass included, loses. At the root and at every
//! position of a line played from it (the winner plays the proof's move, the
//! loser plays its weakest card, or passes when it cannot play), both claims
//! are checked with the minimax, which never consults μ. A failure is
//! written out in full.

use crate::config::Config;
use crate::engine::CellResult;
use crate::export::Table;
use crate::games::cards::{Deal, strengths};
use crate::games::tanhinmin::formula::mu_pair_sorted;
use crate::games::tanhinmin::moves::{Move, hand_after, legal_moves};
use crate::games::tanhinmin::position::Position;
use crate::games::tanhinmin::solver::Solver;
use crate::games::tanhinmin::strategy::{Strategy, proof_move, weakest_move};
use crate::studies::deal_study::columns::{
    deal_run_details, deal_stats_row, rate_header_with, rate_text_of,
};
use crate::studies::deal_study::{
    self, DealInstance, DealSource, DealStudy, Dealt, FailureList, ListedPlaces, Located,
    memo_budget, memo_size,
};
use crate::study::{BuildContext, Outline, Study, Summary};
use serde::{Deserialize, Serialize};
use std::ops::RangeInclusive;
use std::path::Path;

/// The position after `m`, from the next player's side: (their hand, the
/// mover's hand after the move, field). `None` when the move empties the
/// mover's hand, which wins.
fn after(x: &[u32], y: &[u32], m: Move) -> Option<(Vec<u32>, Vec<u32>, u32)> {
    let rest = hand_after(x, m);
    (!rest.is_empty()).then(|| (y.to_vec(), rest, m.field_after() as u32))
}

/// [`after`] as the solver takes it, `Position::from_cards` of its lists,
/// built without them: the line checks a child for every move of a lost
/// position, and the lists' allocations were a third of the study's time
/// (`perf`, 7x7). A test holds the two equal.
fn child_position(x: &[u32], y: &[u32], m: Move) -> Option<Position> {
    let played = match m {
        Move::Play(_) if x.len() == 1 => return None,
        Move::Play(i) => Some(i),
        Move::Pass => None,
    };
    let field = m.field_after() as u32;
    let mut p = Position::from_cards(y, x, field);
    if let Some(i) = played {
        p.other[i] -= 1;
        while p.ranks > 0 && p.mover[p.ranks - 1] == 0 && p.other[p.ranks - 1] == 0 {
            p.ranks -= 1;
        }
        p.field = (field as usize).min(p.ranks);
    }
    Some(p)
}

/// Plays `m` on the line in place: the mover's hand loses the card played
/// and the players change sides. False, the hands untouched, when the move
/// empties the mover's hand, which ends the line.
fn play_on(x: &mut Vec<u32>, y: &mut Vec<u32>, r: &mut u32, m: Move) -> bool {
    if let Move::Play(i) = m {
        if x.len() == 1 {
            return false;
        }
        let at = (x.iter().position(|&c| c == i as u32 + 1))
            .expect("the move plays a card the hand holds");
        x.remove(at);
    }
    std::mem::swap(x, y);
    *r = m.field_after() as u32;
    true
}

fn text(cards: &[u32]) -> String {
    let v: Vec<String> = cards.iter().map(|c| c.to_string()).collect();
    v.join(" ")
}

/// One position where a claim of the proof fails.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StrategyFailure {
    /// Global chunk index.
    pub chunk: u64,
    /// Deal within the chunk.
    pub seq: u64,
    /// Move number on the line (0 is the deal itself).
    pub ply: u32,
    /// The mover's cards.
    pub mover: String,
    /// The other player's cards.
    pub other: String,
    /// The field.
    pub field: u32,
    /// μ(X, Y- + {r}).
    pub mu0: u32,
    /// μ(Y, X-).
    pub mu1: u32,
    /// `winning-move` (μ0 > μ1 but the proof's move loses) or `all-moves-lose`
    /// (μ0 <= μ1 but this move wins).
    pub claim: String,
    /// The move at fault.
    pub bad_move: String,
}

impl Located for StrategyFailure {
    fn place(&self) -> (u64, u64, u64) {
        (self.chunk, self.seq, u64::from(self.ply))
    }
}

/// Counts of one cell.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct StrategyCounts {
    /// Weighted deals.
    pub deals: u128,
    /// Weighted deals the first player wins.
    pub first_wins: u128,
    /// Distinct deals whose lines were played.
    pub lines: u64,
    /// Positions with μ0 > μ1 where the proof's move was checked.
    pub win_positions: u64,
    /// Winning positions where the proof's move lost.
    pub win_failures: u64,
    /// Positions with μ0 <= μ1 where every move was checked.
    pub lose_positions: u64,
    /// Losing positions where some move won.
    pub lose_failures: u64,
    /// Moves checked at losing positions.
    pub lose_moves: u64,
    /// The first failures, in (chunk, seq, ply) order.
    pub failures: FailureList<StrategyFailure>,
}

impl StrategyCounts {
    fn merge(&mut self, from: StrategyCounts) {
        self.deals += from.deals;
        self.first_wins += from.first_wins;
        self.lines += from.lines;
        self.win_positions = self.win_positions.saturating_add(from.win_positions);
        self.win_failures += from.win_failures;
        self.lose_positions = self.lose_positions.saturating_add(from.lose_positions);
        self.lose_failures += from.lose_failures;
        self.lose_moves = self.lose_moves.saturating_add(from.lose_moves);
        self.failures.merge(from.failures);
    }
}

/// The proof's-strategy study.
pub struct StrategyStudy {
    /// The deals.
    pub source: DealSource,
    /// The strategy checked (the proof's, or a wrong one under `--inject-fault`).
    pub strategy: Strategy,
    memo_bytes: usize,
}

/// What the rest of a line checked from one of its positions on, kept
/// only where none of it failed (a failure must be listed at its own place).
#[derive(Clone, Copy, Default)]
struct Tail {
    win_positions: u64,
    lose_positions: u64,
    lose_moves: u64,
}

impl Tail {
    /// What `counts` has checked so far.
    fn of(counts: &StrategyCounts) -> Tail {
        Tail {
            win_positions: counts.win_positions,
            lose_positions: counts.lose_positions,
            lose_moves: counts.lose_moves,
        }
    }

    /// What was checked between `before` and `self`.
    fn since(self, before: Tail) -> Tail {
        Tail {
            win_positions: self.win_positions - before.win_positions,
            lose_positions: self.lose_positions - before.lose_positions,
            lose_moves: self.lose_moves - before.lose_moves,
        }
    }

    fn add(&mut self, other: Tail) {
        self.win_positions += other.win_positions;
        self.lose_positions += other.lose_positions;
        self.lose_moves += other.lose_moves;
    }

    /// Counts this tail's checks into `counts`.
    fn add_to(self, counts: &mut StrategyCounts) {
        counts.win_positions += self.win_positions;
        counts.lose_positions += self.lose_positions;
        counts.lose_moves += self.lose_moves;
    }
}

/// Line tails a thread keeps before it forgets them all: about 4 MiB, a
/// small table that stays in cache. On `configs/strategy.toml` (`-j 2`),
/// 2^16 took 61.4 s, 2^18 64.2 s and 2^20 70.3 s (1.36 GB peak, against
/// 1.07 GB for 2^16), and checking every position 90-99 s (BENCHMARKS.md).
const TAILS_KEPT: usize = 1 << 16;

/// A thread's solver, and the tails of the lines it played.
pub struct Worker {
    solver: Solver,
    /// Failure-free tails by [`line_key`]; `None` for the plain twin,
    /// which checks every position of every line.
    tails: Option<hashbrown::HashMap<u128, Tail>>,
    /// This line's positions so far: key, what each checked, and whether
    /// it failed.
    walked: Vec<(u128, Tail, bool)>,
}

/// Which positions play out the same line with the same checks: the
/// cards in order with their holders, the ranks nobody holds dropped,
/// since every verdict, μ value and move of the line depends on the
/// order of the cards alone; how many of those ranks the field blocks;
/// and whether the field holds a card, which decides whether the pass is
/// a move. (The plain game's canonical key says less: it merges ranks
/// that one player holds side by side, which changes how many moves a
/// position has, and so `lose_moves`.)
fn line_key(x: &[u32], y: &[u32], r: u32) -> u128 {
    // Two bits a card and 8 for the field fit in 128 bits for the most
    // cards a config allows. No leading marker is needed: the first card's
    // pair starts with a 1, so keys of different card counts differ in
    // length.
    assert!(x.len() + y.len() <= crate::config::MAX_CARDS_IN_PLAY as usize);
    const _: () = assert!(2 * crate::config::MAX_CARDS_IN_PLAY + 8 <= 128);
    let p = Position::from_cards(x, y, r).compressed();
    let mut key: u128 = 0;
    for (&mine, &theirs) in p.mover[..p.ranks].iter().zip(&p.other[..p.ranks]) {
        let mut first = 1;
        for holder in
            std::iter::repeat_n(0, mine.into()).chain(std::iter::repeat_n(1, theirs.into()))
        {
            key = key << 2 | first << 1 | holder;
            first = 0;
        }
    }
    (key << 8) | (p.field as u128) << 1 | u128::from(r > 0)
}

impl Worker {
    fn mover_wins(&mut self, x: &[u32], y: &[u32], r: u32) -> bool {
        self.solver.mover_wins(&Position::from_cards(x, y, r))
    }
}

impl StrategyStudy {
    /// The move a line plays at (x, y, r) of μ pair `mu`: the strategy's
    /// where μ says the mover wins, else the weakest (the pass when it
    /// cannot play). The line of a deal is decided by μ alone, so a listed
    /// position can be replayed from its deal without a search.
    fn line_move(&self, x: &[u32], y: &[u32], r: u32, (mu0, mu1): (u32, u32)) -> Move {
        if mu0 > mu1 {
            (self.strategy)(x, y, r)
        } else {
            weakest_move(x, y, r)
        }
    }

    /// The position at move `ply` of the line played from `deal`: (the
    /// mover's cards, the other's, the field), or `None` if the line ends
    /// before it.
    fn on_line(&self, deal: &Deal, ply: u32) -> Option<(Vec<u32>, Vec<u32>, u32)> {
        let ranks = self.source.ranks();
        let mut at = (
            strengths(deal.first.get(..ranks)?),
            strengths(deal.second.get(..ranks)?),
            self.source.field,
        );
        for _ in 0..ply {
            let (x, y, r) = &at;
            let m = self.line_move(x, y, *r, mu_pair_sorted(x, y, *r));
            at = after(x, y, m)?;
        }
        Some(at)
    }

    /// Plays the line of one deal and checks every position on it.
    pub fn check_deal(
        &self,
        w: &mut Worker,
        inst: &DealInstance,
        counts: &mut StrategyCounts,
    ) -> bool {
        let ranks = self.source.ranks();
        let (mut x, mut y) = (
            strengths(&inst.deal.first[..ranks]),
            strengths(&inst.deal.second[..ranks]),
        );
        let mut r = self.source.field;
        let root_wins = w.mover_wins(&x, &y, r);
        let mut ply = 0;
        w.walked.clear();
        let mut rest = Tail::default();
        loop {
            let key = w.tails.as_ref().map(|_| line_key(&x, &y, r));
            if let (Some(key), Some(tails)) = (key, &w.tails)
                && let Some(&tail) = tails.get(&key)
            {
                tail.add_to(counts);
                rest = tail;
                break;
            }
            let before = Tail::of(counts);
            let failures_before = counts.win_failures + counts.lose_failures;
            let (mu0, mu1) = mu_pair_sorted(&x, &y, r);
            let fail = |claim: &str, m: Move, counts: &mut StrategyCounts| {
                counts.failures.push(|| StrategyFailure {
                    chunk: inst.chunk,
                    seq: inst.seq,
                    ply,
                    mover: text(&x),
                    other: text(&y),
                    field: r,
                    mu0,
                    mu1,
                    claim: claim.into(),
                    bad_move: m.to_string(),
                });
            };
            let next_move = self.line_move(&x, &y, r, (mu0, mu1));
            if mu0 > mu1 {
                counts.win_positions += 1;
                let m = next_move;
                let wins = match child_position(&x, &y, m) {
                    None => true,
                    Some(child) => !w.solver.mover_wins(&child),
                };
                if !wins {
                    counts.win_failures += 1;
                    fail("winning-move", m, counts);
                }
            } else {
                counts.lose_positions += 1;
                let moves = legal_moves(&x, r);
                let mut failed = None;
                for &m in &moves {
                    counts.lose_moves += 1;
                    let loses = match child_position(&x, &y, m) {
                        None => false,
                        Some(child) => w.solver.mover_wins(&child),
                    };
                    if !loses && failed.is_none() {
                        failed = Some(m);
                    }
                }
                if let Some(m) = failed {
                    counts.lose_failures += 1;
                    fail("all-moves-lose", m, counts);
                }
            }
            if let Some(key) = key {
                let checked = Tail::of(counts).since(before);
                let failed = counts.win_failures + counts.lose_failures != failures_before;
                w.walked.push((key, checked, failed));
            }
            if !play_on(&mut x, &mut y, &mut r, next_move) {
                break;
            }
            ply += 1;
        }
        if let Some(tails) = &mut w.tails {
            if tails.len() + w.walked.len() > TAILS_KEPT {
                tails.clear();
            }
            for &(key, checked, failed) in w.walked.iter().rev() {
                if failed {
                    break;
                }
                rest.add(checked);
                tails.insert(key, rest);
            }
        }
        root_wins
    }
}

impl DealStudy for StrategyStudy {
    fn failure_lists(c: &StrategyCounts) -> Vec<&dyn ListedPlaces> {
        vec![&c.failures]
    }

    fn failure_lists_mut(c: &mut StrategyCounts) -> Vec<&mut dyn ListedPlaces> {
        vec![&mut c.failures]
    }

    /// A listed position is a line's, not a deal: it is replayed from the
    /// deal dealt at its place, by μ alone, and must be the position the
    /// line reaches at its move; then its μ pair must fail the claim it
    /// names (`winning-move` where μ0 > μ1, `all-moves-lose` where μ0 <=
    /// μ1), and its move must be the strategy's or, for `all-moves-lose`,
    /// one of the mover's. Whether that move really wins or loses only a
    /// search can tell: `--recheck`.
    fn check_listed(&self, c: &StrategyCounts, dealt: &Dealt) -> Result<(), String> {
        for f in &c.failures {
            let place = format!("chunk {} deal {} move {}", f.chunk, f.seq, f.ply);
            let Some(deal) = dealt.at(f.chunk, f.seq) else {
                return Err(format!(
                    "the strategy failure listed at {place} is at no deal of its chunk"
                ));
            };
            let Some((x, y, r)) = self.on_line(deal, f.ply) else {
                return Err(format!(
                    "the strategy failure listed at {place} lies past the end of the line played from its deal"
                ));
            };
            if text(&x) != f.mover || text(&y) != f.other || r != f.field {
                return Err(format!(
                    "the strategy failure listed at {place} is not the position the line reaches there"
                ));
            }
            let mover_should_win = match f.claim.as_str() {
                "winning-move" => true,
                "all-moves-lose" => false,
                other => {
                    return Err(format!(
                        "a position listed as a strategy failure names the claim `{}`, not one the study checks",
                        crate::error::on_one_line(other)
                    ));
                }
            };
            let mu = mu_pair_sorted(&x, &y, r);
            if mu != (f.mu0, f.mu1) || (f.mu0 > f.mu1) != mover_should_win {
                return Err(
                    "a position listed as a strategy failure is not one by its μ pair".into(),
                );
            }
            let named = |m: &Move| m.to_string() == f.bad_move;
            let move_fits = if mover_should_win {
                named(&self.line_move(&x, &y, r, mu))
            } else {
                legal_moves(&x, r).iter().any(named)
            };
            if !move_fits {
                return Err(format!(
                    "the strategy failure listed at {place} names a move its claim never checks there"
                ));
            }
        }
        Ok(())
    }

    type Counts = StrategyCounts;
    type Worker = Worker;

    fn source(&self) -> &DealSource {
        &self.source
    }

    fn new_worker(&self) -> Worker {
        Worker {
            solver: Solver::new(self.memo_bytes),
            tails: Some(hashbrown::HashMap::new()),
            walked: Vec::new(),
        }
    }

    fn evaluate(&self, w: &mut Worker, inst: &DealInstance, counts: &mut StrategyCounts) {
        let wins = self.check_deal(w, inst, counts);
        counts.deals += inst.deal.weight;
        counts.lines += 1;
        if wins {
            counts.first_wins += inst.deal.weight;
        }
    }

    fn merge(into: &mut StrategyCounts, from: StrategyCounts) {
        into.merge(from);
    }

    fn check_counts(
        &self,
        _cell: usize,
        items: u64,
        deals: &RangeInclusive<u128>,
        c: &StrategyCounts,
    ) -> Result<(), String> {
        deal_study::check_deals(c.deals, deals)?;
        let problem = if c.first_wins > c.deals {
            "more first-player wins than deals"
        } else if c.lines > items {
            "more deals played than the chunk holds"
        } else if c.win_failures > c.win_positions || c.lose_failures > c.lose_positions {
            "more failed positions than positions checked"
        } else if c.failures.len() as u128
            > u128::from(c.win_failures) + u128::from(c.lose_failures)
        {
            "more failures listed than counted"
        } else {
            return Ok(());
        };
        Err(problem.into())
    }
}

/// Columns of `stats.csv` after the rate columns.
pub const STRATEGY_COLUMNS: &[&str] = &[
    "lines",
    "win_positions",
    "win_failures",
    "lose_positions",
    "lose_moves",
    "lose_failures",
];

impl Study for StrategyStudy {
    fn outline(config: &Config, _threads: usize) -> Outline {
        let source = DealSource::new(config);
        deal_study::outline(config, &source, memo_size(config, &source))
    }

    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self> {
        let source = DealSource::new(config);
        let memo_bytes = memo_budget(config, &source, ctx.timing_sample) / ctx.threads.max(1);
        Ok(StrategyStudy {
            source,
            strategy: if ctx.inject_fault {
                weakest_move
            } else {
                proof_move
            },
            memo_bytes,
        })
    }

    fn tables(&self, cells: &[&StrategyCounts]) -> Vec<(&'static str, Vec<u8>)> {
        let mut stats = Table::new(&rate_header_with(STRATEGY_COLUMNS));
        let mut failures = Table::new(&[
            "n_first", "n_second", "ply", "mover", "other", "field", "mu0", "mu1", "claim",
            "bad_move",
        ]);
        for (&[a, b], c) in self.source.cells.iter().zip(cells) {
            stats.row(deal_stats_row(
                &self.source,
                [a, b],
                c.first_wins,
                c.deals,
                [
                    c.lines.to_string(),
                    c.win_positions.to_string(),
                    c.win_failures.to_string(),
                    c.lose_positions.to_string(),
                    c.lose_moves.to_string(),
                    c.lose_failures.to_string(),
                ],
            ));
            for f in &c.failures {
                failures.row([
                    a.to_string(),
                    b.to_string(),
                    f.ply.to_string(),
                    f.mover.clone(),
                    f.other.clone(),
                    f.field.to_string(),
                    f.mu0.to_string(),
                    f.mu1.to_string(),
                    f.claim.clone(),
                    f.bad_move.clone(),
                ]);
            }
        }
        vec![
            ("stats.csv", stats.into_bytes()),
            ("strategy_failures.csv", failures.into_bytes()),
        ]
    }

    fn run_details(&self, cells: &[CellResult<StrategyCounts>]) -> Vec<u8> {
        deal_run_details(&self.source, cells, |c| c.win_positions + c.lose_positions)
    }

    fn summary(&self, cells: &[&StrategyCounts], out_dir: &Path) -> Summary {
        let mut lines = Vec::new();
        let mut failures = 0;
        for (&[a, b], c) in self.source.cells.iter().zip(cells) {
            failures += c.win_failures + c.lose_failures;
            lines.push(format!(
                "{a}x{b}: first player wins {}; {} winning positions checked ({} fail), {} losing positions with {} moves checked ({} fail)",
                rate_text_of(self.source.mode, c.first_wins, c.deals),
                c.win_positions,
                c.win_failures,
                c.lose_positions,
                c.lose_moves,
                c.lose_failures
            ));
        }
        let dir = out_dir.display();
        Summary::checked(
            lines,
            failures > 0,
            format!(
                "error: the proof's strategy failed at {failures} positions; see {dir}/strategy_failures.csv"
            ),
            format!("the proof's strategy held everywhere; results in {dir}"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::reference::plain_mover_wins;

    fn wins_after(x: &[u32], y: &[u32], m: Move) -> bool {
        match after(x, y, m) {
            None => true,
            Some((nx, ny, nr)) => !plain_mover_wins(&nx, &ny, nr),
        }
    }

    proptest::proptest! {
        #[test]
        fn proof_move_wins_exactly_when_the_test_says_so(
            mut x in proptest::collection::vec(1u32..7, 1..6),
            mut y in proptest::collection::vec(1u32..7, 1..6),
            r in 0u32..7,
        ) {
            x.sort();
            y.sort();
            let (mu0, mu1) = mu_pair_sorted(&x, &y, r);
            if mu0 > mu1 {
                proptest::prop_assert!(wins_after(&x, &y, proof_move(&x, &y, r)));
            } else {
                for m in legal_moves(&x, r) {
                    proptest::prop_assert!(!wins_after(&x, &y, m), "{:?} wins", m);
                }
            }
        }
    }

    proptest::proptest! {
        /// The line's fast steps against [`after`], which builds the lists.
        #[test]
        fn a_child_built_in_place_is_the_one_after_builds(
            mut x in proptest::collection::vec(1u32..9, 1..7),
            mut y in proptest::collection::vec(1u32..9, 1..7),
            r in 0u32..9,
        ) {
            x.sort();
            y.sort();
            for m in legal_moves(&x, r) {
                let slow = after(&x, &y, m);
                proptest::prop_assert_eq!(
                    child_position(&x, &y, m),
                    slow.as_ref().map(|(a, b, f)| Position::from_cards(a, b, *f))
                );
                let (mut a, mut b, mut f) = (x.clone(), y.clone(), r);
                let went_on = play_on(&mut a, &mut b, &mut f, m);
                proptest::prop_assert_eq!(went_on.then_some((a, b, f)), slow);
            }
        }
    }

    /// The line tails a worker keeps against its plain twin, a worker that
    /// checks every position: the same counts and the same failures listed,
    /// for the proof's strategy and for a wrong one (whose tails fail).
    #[test]
    fn kept_line_tails_count_what_checking_every_position_counts() {
        let text = "[experiment]\nname = \"t\"\nstudy = \"strategy\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[5, 5], [4, 6], [6, 3]]\n";
        let config = Config::parse(text, "t.toml").unwrap();
        for inject_fault in [false, true] {
            let ctx = BuildContext {
                threads: 1,
                inject_fault,
                progress: crate::engine::progress::Mode::Quiet,
                stop: Default::default(),
                timing_sample: false,
            };
            let study = StrategyStudy::build(&config, &ctx).unwrap();
            let plan = crate::engine::Plan::new(&study);
            let mut fast = DealStudy::new_worker(&study);
            let mut plain = Worker {
                tails: None,
                ..DealStudy::new_worker(&study)
            };
            for cell in 0..plan.cells() {
                let (mut a, mut b) = (StrategyCounts::default(), StrategyCounts::default());
                for global in plan.cell_range(cell) {
                    study
                        .source
                        .for_each_deal(&plan.chunk(cell, global), |deal| {
                            DealStudy::evaluate(&study, &mut fast, deal, &mut a);
                            DealStudy::evaluate(&study, &mut plain, deal, &mut b);
                        });
                }
                assert!(fast.tails.as_ref().is_some_and(|t| !t.is_empty()));
                assert_eq!(
                    serde_json::to_string(&a).unwrap(),
                    serde_json::to_string(&b).unwrap(),
                    "cell {cell}, fault {inject_fault}"
                );
                assert_eq!(a.win_failures + a.lose_failures > 0, inject_fault);
            }
        }
    }

    /// At the most cards a config allows, every card's holder and the field
    /// still reach the key: no bit is shifted out of the 128.
    #[test]
    fn line_keys_of_the_most_cards_allowed_tell_every_position_apart() {
        let n = crate::config::MAX_CARDS_IN_PLAY;
        let mut keys = std::collections::HashMap::new();
        let mut state = 0x9e37_79b9_7f4a_7c15_u64;
        for trial in 0..2_000u32 {
            if trial % 4 == 0 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
            }
            // Cards 1..=n, each held by one side: the first and last
            // card's holders take all four ways for each random rest.
            let holder = |c: u32| match c {
                1 => trial & 1,
                _ if c == n => trial >> 1 & 1,
                _ => (state >> (c % 61)) as u32 & 1,
            };
            let x: Vec<u32> = (1..=n).filter(|&c| holder(c) == 0).collect();
            let y: Vec<u32> = (1..=n).filter(|&c| holder(c) == 1).collect();
            for r in [0, 1, n / 2, n] {
                let key = line_key(&x, &y, r);
                let position = (x.clone(), y.clone(), r);
                if let Some(earlier) = keys.insert(key, position.clone()) {
                    assert_eq!(earlier, position, "two positions share key {key:#x}");
                }
            }
        }
        assert!(keys.len() > 4_000);
    }

    #[test]
    fn the_weakest_card_is_not_always_winning() {
        // X = 1 1 3 4, Y = 1 2 3 5 (the Coq README's example): X wins, but
        // only by playing its second card... or so the check must be able to
        // say; find any position where the weakest card loses a won game.
        let mut found = false;
        for a in 1..6u32 {
            for b in a..6 {
                for c in 1..6u32 {
                    for d in c..6 {
                        let (x, y) = (vec![a, b], vec![c, d]);
                        let (mu0, mu1) = mu_pair_sorted(&x, &y, 0);
                        if mu0 > mu1 && !wins_after(&x, &y, weakest_move(&x, &y, 0)) {
                            found = true;
                        }
                    }
                }
            }
        }
        assert!(found);
    }
}
