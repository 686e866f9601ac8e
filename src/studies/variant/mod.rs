//! Rule variants of Tanhinmin: 8-cut, 11-back, or both (see
//! [`crate::games::tanhinmin::variant`] for the rules).
//!
//! No formula is known. Every deal is solved by minimax under the variant's
//! rules, and the plain game's μ test is scored as a predictor of the
//! variant's winner: `stats.csv` counts its hits, `mu.csv` gives the
//! variant's winner per (μ0, μ1) at the deal's start, so a reader sees in
//! which part of the table the plain formula stops predicting, and
//! `formula_failures.csv` lists the deals where it fails, smallest cells
//! first.
//!
//! Two configs select it: study `variant` with `[rules] cut` and/or `back`,
//! and the older study `cut` with `[cut] rank`, which is the 8-cut alone
//! and writes the same tables as before.

use crate::config::Config;
use crate::engine::CellResult;
use crate::export::Table;
use crate::games::tanhinmin::formula::{Claim, broken_claim, mu_pair_counts, theorem};
use crate::games::tanhinmin::memo::SharedMemo;
use crate::games::tanhinmin::position::Position;
use crate::games::tanhinmin::variant::{
    Rules, SMALL_VARIANT_CARDS, VARIANT_MAX_CARDS, VariantSolver,
};
use crate::studies::deal_study::columns::{
    deal_run_details, deal_stats_row, hand_text, rate_header_with, rate_text_of,
};
use crate::studies::deal_study::mu::{MU_COLUMNS, MuTable, push_mu_rows};
use crate::studies::deal_study::{
    self, DealInstance, DealSource, DealStudy, Dealt, FailureList, ListedDeal, ListedPlaces,
    Located, SAMPLED_MEMO_CAP_LOG2, memo_budget, memo_size, validate_small_deck,
};
use crate::study::{BuildContext, EstimateBias, KeptMemo, Outline, Study, Summary};
use serde::{Deserialize, Serialize};
use std::io::{self, Read, Write};
use std::ops::RangeInclusive;
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

/// Plain-theorem failures the summary names, per cell; the rest are
/// counted. One is a bug to replay; a flood of them is the same bug.
const SHOWN_PLAIN_FAILURES: usize = 5;

/// The rules a config asks for: `[rules]` (study `variant`) or `[cut]`
/// (study `cut`). Call after validation.
pub fn rules_of(config: &Config) -> Rules {
    match (&config.rules, &config.cut) {
        (Some(r), _) => Rules {
            cut: r.cut,
            back: r.back,
        },
        (None, Some(c)) => Rules {
            cut: Some(c.rank),
            back: None,
        },
        (None, None) => Rules::PLAIN,
    }
}

/// Checks study `cut`: `[cut] rank` and the deals.
pub fn validate_cut(config: &Config) -> Result<(), String> {
    let Some(cut) = &config.cut else {
        return Err("[cut] rank: required by study `cut`".into());
    };
    check_rank("[cut] rank", cut.rank, config)?;
    validate_deals(config)
}

/// Checks study `variant`: `[rules]` names at least one rule, on distinct
/// ranks of the deck, and the deals.
pub fn validate(config: &Config) -> Result<(), String> {
    let Some(rules) = &config.rules else {
        return Err("[rules]: required by study `variant` (cut = 6 for 8-cut, back = 9 for 11-back, or both)".into());
    };
    if rules.cut.is_none() && rules.back.is_none() {
        return Err("[rules]: names no rule; set cut (8-cut), back (11-back) or both".into());
    }
    if let Some(c) = rules.cut {
        check_rank("[rules] cut", c, config)?;
    }
    if let Some(b) = rules.back {
        check_rank("[rules] back", b, config)?;
        if rules.cut == Some(b) {
            return Err(format!(
                "[rules] back: {b} is also the cut rank; a rank has one rule"
            ));
        }
    }
    validate_deals(config)
}

fn check_rank(key: &str, rank: u32, config: &Config) -> Result<(), String> {
    if rank == 0 || rank > config.deck.ranks {
        return Err(format!(
            "{key}: must be between 1 and {} (the strongest rank), got {rank}",
            config.deck.ranks
        ));
    }
    Ok(())
}

/// The deck and cells, and no deal larger than the variant key holds.
fn validate_deals(config: &Config) -> Result<(), String> {
    validate_small_deck(config)?;
    if let Some([a, b]) = config
        .hands
        .sizes
        .iter()
        .find(|&&[a, b]| a + b > VARIANT_MAX_CARDS)
    {
        return Err(format!(
            "[hands] sizes: {a}x{b} is {} cards; a variant study solves deals of at most {VARIANT_MAX_CARDS} (its memo key is 128 bits)",
            a + b
        ));
    }
    Ok(())
}

/// The deals of a variant: exhaustive cells never merge a special rank.
/// Study `variant` solves one deal per root, 4x (8x8 both rules) to 8x
/// (9x9 11-back) fewer than patterns; study `cut` keeps patterns, so that
/// its `formula_failures.csv` (deals listed in pattern order) is the one
/// it always wrote.
fn variant_source(config: &Config) -> DealSource {
    let special = rules_of(config).special_ranks();
    // `[rules]` is study `variant`'s table, `[cut]` study `cut`'s (as in
    // `rules_of`).
    let source = if config.rules.is_some() {
        DealSource::by_root_with_distinguished_ranks(config, &special)
    } else {
        DealSource::with_distinguished_ranks(config, &special)
    }
    .wanting_memo_scaled(4);
    // Deals past twice SMALL_VARIANT_CARDS cards (26x26) search positions
    // of 30 to 50 cards that the tables are short of room for: on 48
    // 26x26 8-cut deals, 2 GiB ran 1.1x to 1.2x faster than 1 GiB, and
    // 4 GiB no faster than 2 (BENCHMARKS.md, "The plain game's table at
    // 26x26").
    //
    // Smaller deals are the other way round: their small endgames recur
    // from deal to deal, so the shared table works as an endgame table that
    // a long run builds for itself, and wants to be large, though only once
    // there are enough deals to fill it (BENCHMARKS.md, "The memo at 13x13
    // is an endgame table built across deals").
    if source.largest_deal_cards() > 2 * SMALL_VARIANT_CARDS {
        source.wanting_sampled_memo_up_to(SAMPLED_MEMO_CAP_LOG2 + 1)
    } else {
        source.wanting_endgame_table(SAMPLED_MEMO_CAP_LOG2 + 3)
    }
}

/// A deal where the plain μ test misnames the variant's winner.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct VariantFailure {
    /// Global chunk index.
    pub chunk: u64,
    /// Deal within the chunk.
    pub seq: u64,
    /// The first hand, as counts per rank.
    pub first: Vec<u8>,
    /// The second hand, as counts per rank.
    pub second: Vec<u8>,
    /// Does the first player win the variant?
    pub variant_first_wins: bool,
}

impl Located for VariantFailure {
    fn place(&self) -> (u64, u64, u64) {
        (self.chunk, self.seq, 0)
    }
}

/// A deal on which the plain game's minimax and its proved μ test name
/// different winners: a solver bug, named in the summary so that it can be
/// replayed.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PlainTheoremFailure {
    /// Global chunk index.
    pub chunk: u64,
    /// Deal within the chunk.
    pub seq: u64,
    /// The first hand, as counts per rank.
    pub first: Vec<u8>,
    /// The second hand, as counts per rank.
    pub second: Vec<u8>,
    /// Does the first player win the plain game, by its minimax?
    pub plain_first_wins: bool,
    /// μ(X, Y- + {r}) of the deal.
    pub mu0: u32,
    /// μ(Y, X-) of the deal.
    pub mu1: u32,
}

impl Located for PlainTheoremFailure {
    fn place(&self) -> (u64, u64, u64) {
        (self.chunk, self.seq, 0)
    }
}

/// Counts of one cell.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct VariantCounts {
    /// Weighted deals.
    pub deals: u128,
    /// Weighted deals the first player wins.
    pub first_wins: u128,
    /// Deals where the plain game's μ test names the variant's winner.
    pub formula_agree: u128,
    /// Deals where it does not.
    pub formula_disagree: u128,
    /// Deals whose winner differs from the plain game's.
    pub winner_changed: u128,
    /// Deals where the plain game's minimax and the proved μ test name
    /// different winners. `winner_changed` rests on the plain minimax, so
    /// the study checks it against the theorem on every deal: any count here
    /// is a solver bug, and the run exits 1. Chunks recorded before this was
    /// counted read back as 0 here and in `plain_theorem_checked`, and the
    /// summary names them as not checked rather than vouching for them.
    #[serde(default)]
    pub plain_theorem_failures: u128,
    /// Deals checked for `plain_theorem_failures`.
    #[serde(default)]
    pub plain_theorem_checked: u128,
    /// The first of those deals, in (chunk, seq) order. Left out of the
    /// checkpoint when empty, so that a run that passes records what it
    /// recorded before this list existed.
    #[serde(default, skip_serializing_if = "FailureList::is_empty")]
    pub plain_theorem_failed_deals: FailureList<PlainTheoremFailure>,
    /// The first failures, in (chunk, seq) order.
    pub failures: FailureList<VariantFailure>,
    /// The variant's first-player wins by the plain game's (μ0, μ1).
    #[serde(default)]
    pub mu: MuTable,
    /// Positions the variant solver expanded; run detail only.
    #[serde(skip)]
    pub positions: u64,
}

/// Deals of at most this many cards (13x13 and smaller) keep their
/// largest positions out of the shared table (see `VariantStudy::build`).
const SMALL_DEAL_CARDS: u32 = 26;

/// The largest positions the shared table holds in deals of at most
/// [`SMALL_DEAL_CARDS`]: positions of 15 to 18 cards do recur across
/// 13x13 deals (sending them to the own tables too searched 8% to 30%
/// more positions), larger ones less often.
const SHARED_MAX_CARDS: u32 = 18;

/// Each thread's own table in deals of at most [`SMALL_DEAL_CARDS`]: it
/// holds one deal's positions of more than [`SHARED_MAX_CARDS`] cards,
/// and stays in cache.
const SMALL_DEAL_OWN_BYTES: usize = 2 << 20;

/// In deals of at most [`SMALL_DEAL_CARDS`], the plain game's positions go
/// to a table all threads share, of this fraction of the budget up to
/// [`SMALL_DEAL_PLAIN_MAX_BYTES`]: plain endgames recur across deals, and
/// a thread's own table saw only its own deals (and was emptied whenever
/// it turned over). Its keys (at most 26 cards, and the bounds' extra
/// rank) all fit the shared table, so each thread's own plain table
/// holds nothing and is the smallest there is.
const SMALL_DEAL_PLAIN_SHARE: usize = 8;

/// The plain table of [`SMALL_DEAL_PLAIN_SHARE`] at most: over 1,000,000
/// 13x13 11-back deals, 488 MiB to 1.9 GiB held the same positions, and
/// the larger tables only took room from the variant's and cost more a
/// probe (BENCHMARKS.md, "The plain game's table shared in 13x13 runs").
const SMALL_DEAL_PLAIN_MAX_BYTES: usize = 512 << 20;

/// Each thread's own plain table in deals of at most [`SMALL_DEAL_CARDS`]
/// (see [`SMALL_DEAL_PLAIN_SHARE`]).
const SMALL_DEAL_PLAIN_OWN_BYTES: usize = 64 << 10;

/// How a variant run's memo budget is split between its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MemoSplit {
    /// The variant's table that all threads share.
    shared_bytes: usize,
    /// The largest positions it holds.
    shared_max_cards: u32,
    /// Each thread's own table for the variant's other positions.
    local_bytes: usize,
    /// The plain game's table that all threads share (0: none).
    plain_shared_bytes: usize,
    /// Each thread's own table of the plain game's positions.
    plain_own_bytes: usize,
    /// Deals of more than twice `SMALL_VARIANT_CARDS` cards (26x26).
    large_deals: bool,
}

impl MemoSplit {
    /// The split of `budget` bytes for `threads` threads, in deals of at
    /// most `largest` cards. The tables never sum to more than `budget`.
    fn of(budget: usize, threads: usize, largest: u32) -> MemoSplit {
        let share = budget / threads;
        // The plain game's canonical positions recur across deals far more
        // than a variant's (no special rank to track), and its table is
        // fixed-size and touched all over: on configs/cut.toml 64 MiB per
        // thread ran in 4.2 s and 0.85 GB, 512 MiB in 6.3 s and 1.76 GB.
        // Deals past twice SMALL_VARIANT_CARDS cards (26x26) are another
        // matter: there the plain game takes over in positions of 30 to 50
        // cards, few of which recur, and the table is short of room, not
        // of cleared pages: a quarter of the share (128 MiB per thread of
        // 1 GiB) made 48 26x26 8-cut deals 1.2x to 1.3x faster than 64 MiB,
        // and the 256 MiB of the automatic 2 GiB 1.3x to 1.5x (BENCHMARKS.md,
        // "The plain game's table at 26x26").
        // Deals of at most SMALL_DEAL_CARDS cards (13x13) share one plain
        // table between the threads instead (SMALL_DEAL_PLAIN_SHARE): over
        // the 1,000,000 13x13 deals, 8-cut ran 2.84x faster and 11-back
        // 1.16x (BENCHMARKS.md, "The plain game's table shared in 13x13
        // runs"); exhaustive runs up to 8x8 took the same time.
        // The variant's private tables hold the keys past 63 bits
        // (positions of more than SMALL_VARIANT_CARDS cards). A deal's
        // positions peak at about half its cards, so past twice that many
        // cards they are most of the search and take three quarters of the
        // rest (8-cut, 24 26x26 deals, 2 threads, the automatic 1 GiB: 1.3x
        // to 2.2x faster, 1.6x in all). In smaller deals they are a deal's
        // first few plies, which recur in no other deal: 64 MiB a thread
        // holds them, and the rest goes to the shared table, the one that
        // later deals hit (13x13 11-back, 300,000 deals, 8 GiB: the same
        // positions with a quarter of the share or 64 MiB, 4.4 GB of peak
        // memory against 5.3).
        // Deals of at most SMALL_DEAL_CARDS cards (13x13) keep their
        // positions of more than SHARED_MAX_CARDS cards, each deal's first
        // few plies, in a table of the thread's own so small that it stays
        // in cache: later deals seldom meet them, and in the shared table
        // of gigabytes each cost a probe past the TLB and took a slot from
        // the small positions that do recur (13x13 11-back: 1.25x over
        // 200,000 deals; 1.10x over 1,000,000, where the search expands
        // 10% more positions but each costs less; BENCHMARKS.md, "A deal's
        // largest positions kept out of the shared table").
        let large = largest > 2 * SMALL_VARIANT_CARDS;
        let small = largest <= SMALL_DEAL_CARDS;
        let shared_max_cards = if small {
            SHARED_MAX_CARDS
        } else {
            SMALL_VARIANT_CARDS
        };
        let plain_shared_bytes = if small {
            (budget / SMALL_DEAL_PLAIN_SHARE).min(SMALL_DEAL_PLAIN_MAX_BYTES)
        } else {
            0
        };
        let plain_own_bytes = if large {
            share / 4
        } else if small {
            (share / 4).min(SMALL_DEAL_PLAIN_OWN_BYTES)
        } else {
            (share / 4).min(64 << 20)
        };
        let local_bytes = if large {
            (share - plain_own_bytes) / 4 * 3
        } else if small {
            ((share - plain_own_bytes) / 4).min(SMALL_DEAL_OWN_BYTES)
        } else {
            ((share - plain_own_bytes) / 4).min(64 << 20)
        };
        let shared_bytes = budget - threads * (plain_own_bytes + local_bytes) - plain_shared_bytes;
        MemoSplit {
            shared_bytes,
            shared_max_cards,
            local_bytes,
            plain_shared_bytes,
            plain_own_bytes,
            large_deals: large,
        }
    }
}

/// A rule-variant study.
pub struct VariantStudy {
    /// The deals.
    pub source: DealSource,
    /// The variant's rules.
    pub rules: Rules,
    /// The variant's table, shared by all threads and kept across deals.
    shared: Arc<SharedMemo>,
    /// Each thread's own table for keys too long for the shared one.
    local_bytes: usize,
    /// The largest positions the shared table holds; larger ones go to
    /// each thread's own.
    shared_max_cards: u32,
    /// Deals of more than twice `SMALL_VARIANT_CARDS` cards (26x26): the
    /// split of the memo and the emptying of own tables between deals
    /// depend on it.
    large_deals: bool,
    /// Each thread's own table of the plain game's positions.
    plain_own_bytes: usize,
    /// The plain game's table that all threads share, in deals of at most
    /// [`SMALL_DEAL_CARDS`] (see [`SMALL_DEAL_PLAIN_SHARE`]).
    plain_shared: Option<Arc<SharedMemo>>,
    /// The run's stop request, which a deal's search polls.
    stop: Arc<AtomicBool>,
    /// Worker threads, each with a solver.
    threads: usize,
    /// The plain game's theorem that the plain minimax is checked against
    /// (a broken one under `--inject-fault`).
    plain_claim: Claim,
    /// Solvers of workers the engine retired, or read back from a kept
    /// memo, for the next workers: their private tables hold what the
    /// large positions took to prove.
    parked: Mutex<Vec<VariantSolver>>,
}

impl DealStudy for VariantStudy {
    fn failure_lists(c: &VariantCounts) -> Vec<&dyn ListedPlaces> {
        vec![&c.failures, &c.plain_theorem_failed_deals]
    }

    fn failure_lists_mut(c: &mut VariantCounts) -> Vec<&mut dyn ListedPlaces> {
        vec![&mut c.failures, &mut c.plain_theorem_failed_deals]
    }

    fn listed_deals(c: &VariantCounts) -> Vec<ListedDeal<'_>> {
        let failures =
            (c.failures.iter()).map(|f| ListedDeal::of(f.chunk, f.seq, &f.first, &f.second));
        let plain = (c.plain_theorem_failed_deals.iter())
            .map(|f| ListedDeal::of(f.chunk, f.seq, &f.first, &f.second));
        failures.chain(plain).collect()
    }

    type Counts = VariantCounts;
    type Worker = VariantWorker;

    fn source(&self) -> &DealSource {
        &self.source
    }

    fn new_worker(&self) -> Self::Worker {
        let parked = self.parked.lock().expect("parked solvers poisoned").pop();
        VariantWorker {
            variant: parked.unwrap_or_else(|| self.new_solver()),
        }
    }

    fn retire(&self, workers: Vec<Self::Worker>) {
        let mut parked = self.parked.lock().expect("parked solvers poisoned");
        parked.extend(workers.into_iter().map(|w| w.variant));
    }

    fn evaluate(&self, w: &mut Self::Worker, inst: &DealInstance, c: &mut VariantCounts) {
        let ranks = self.source.ranks();
        let d = &inst.deal;
        let field = self.source.field as usize;
        let p = Position {
            mover: d.first,
            other: d.second,
            ranks,
            field,
        };
        // Deals of this size share few positions, so what a thread's own
        // tables hold of earlier deals only crowds this one's out (see
        // `Tables::forget_own_if_turned_over`). The shared table holds the
        // small positions, which recur.
        if self.large_deals {
            w.variant.forget_own_memos_if_turned_over();
        }
        let before = w.variant.positions;
        // Given up on a stop request: the engine abandons the chunk.
        let Some(variant) = w.variant.try_mover_wins(&p) else {
            return;
        };
        c.positions += w.variant.positions - before;
        let plain = w.variant.plain_mover_wins(&p);
        let (mu0, mu1) = mu_pair_counts(&d.first[..ranks], &d.second[..ranks], field);
        let formula = mu0 > mu1;
        c.deals += d.weight;
        if variant {
            c.first_wins += d.weight;
        }
        c.mu.add(mu0, mu1, d.weight, if variant { d.weight } else { 0 });
        if variant != plain {
            c.winner_changed += d.weight;
        }
        c.plain_theorem_checked += d.weight;
        if plain != (self.plain_claim)(mu0, mu1) {
            c.plain_theorem_failures += d.weight;
            c.plain_theorem_failed_deals.push(|| PlainTheoremFailure {
                chunk: inst.chunk,
                seq: inst.seq,
                first: d.first[..ranks].to_vec(),
                second: d.second[..ranks].to_vec(),
                plain_first_wins: plain,
                mu0,
                mu1,
            });
        }
        if formula == variant {
            c.formula_agree += d.weight;
        } else {
            c.formula_disagree += d.weight;
            c.failures.push(|| VariantFailure {
                chunk: inst.chunk,
                seq: inst.seq,
                first: d.first[..ranks].to_vec(),
                second: d.second[..ranks].to_vec(),
                variant_first_wins: variant,
            });
        }
    }

    fn merge(into: &mut VariantCounts, from: VariantCounts) {
        into.deals += from.deals;
        into.first_wins += from.first_wins;
        into.formula_agree += from.formula_agree;
        into.formula_disagree += from.formula_disagree;
        into.winner_changed += from.winner_changed;
        into.plain_theorem_failures += from.plain_theorem_failures;
        into.plain_theorem_checked += from.plain_theorem_checked;
        into.positions = into.positions.saturating_add(from.positions);
        into.failures.merge(from.failures);
        into.plain_theorem_failed_deals
            .merge(from.plain_theorem_failed_deals);
        into.mu.merge(from.mu);
    }

    fn check_counts(
        &self,
        cell: usize,
        _items: u64,
        deals: &RangeInclusive<u128>,
        c: &VariantCounts,
    ) -> Result<(), String> {
        deal_study::check_claim_counts(
            c.deals,
            deals,
            c.first_wins,
            c.formula_agree,
            c.formula_disagree,
            c.failures.len(),
        )?;
        if c.winner_changed > c.deals {
            Err("more deals with the winner changed than deals".into())
        } else if c.plain_theorem_failures > c.plain_theorem_checked
            || c.plain_theorem_checked > c.deals
        {
            Err("more plain-theorem failures than deals checked, or more checked than deals".into())
        } else if c.plain_theorem_failed_deals.len() as u128 > c.plain_theorem_failures {
            Err("more plain-theorem failures listed than counted".into())
        } else {
            (c.mu).check_fits(c.deals, c.first_wins, self.source.cells[cell])
        }
    }

    fn check_listed(&self, c: &VariantCounts, _dealt: &Dealt) -> Result<(), String> {
        if c.failures.iter().any(|f| {
            let (mu0, mu1) = mu_pair_counts(&f.first, &f.second, self.source.field as usize);
            (mu0 > mu1) == f.variant_first_wins
        }) {
            Err("a deal listed as a failure of the μ test is one it predicts".into())
        } else if c.plain_theorem_failed_deals.iter().any(|f| {
            let mu = mu_pair_counts(&f.first, &f.second, self.source.field as usize);
            mu != (f.mu0, f.mu1) || (self.plain_claim)(f.mu0, f.mu1) == f.plain_first_wins
        }) {
            Err("a deal listed as a failure of the plain theorem is not one".into())
        } else {
            Ok(())
        }
    }

    /// Chunks recorded before the plain minimax was checked against the
    /// theorem read back with no deal checked; solved again, they are
    /// compared without that check's counts (the summary names such deals
    /// as not checked, so nothing is vouched for that was not).
    fn same_counts(&self, recorded: &VariantCounts, rerun: &VariantCounts) -> bool {
        if recorded.plain_theorem_checked == 0 && rerun.plain_theorem_checked > 0 {
            let mut unchecked = rerun.clone();
            unchecked.plain_theorem_checked = 0;
            unchecked.plain_theorem_failures = 0;
            unchecked.plain_theorem_failed_deals = FailureList::default();
            return crate::engine::same_serialisation(recorded, &unchecked);
        }
        crate::engine::same_serialisation(recorded, rerun)
    }
}

/// The shared table, then how many solvers' own tables follow, and each
/// solver's ([`VariantSolver::own_memos`]). Every solver's tables are read
/// into every solver: a deal under way at the stop may resume on any
/// thread, and reading keeps the larger positions where two collide. The
/// plain game's table that small deals share is not kept: its endgames
/// are quick to prove again, and the memo is kept for 26x26 deals.
impl KeptMemo for VariantStudy {
    fn write_memo(&self, out: &mut dyn Write) -> io::Result<()> {
        self.shared.write_entries(out)?;
        let parked = self.parked.lock().expect("parked solvers poisoned");
        let solvers: Vec<&VariantSolver> = parked.iter().collect();
        VariantSolver::write_own_memos(&solvers, out)
    }

    fn key_encoding(&self) -> String {
        crate::games::tanhinmin::variant::memo_key_encoding_named()
    }

    /// The keys of every build from `--keep-memo`'s first (f85953e) to the
    /// one that began naming them: the key functions did not change between.
    fn key_encoding_of_memos_without_keys(&self) -> Option<&'static str> {
        Some("variant keys b56cc78e")
    }

    fn read_memo(&self, input: &mut dyn Read) -> io::Result<()> {
        SharedMemo::read_entries_into(&[&self.shared], input)?;
        let mut parked = self.parked.lock().expect("parked solvers poisoned");
        while parked.len() < self.threads {
            let solver = self.new_solver();
            parked.push(solver);
        }
        let solvers: Vec<&VariantSolver> = parked.iter().collect();
        VariantSolver::read_own_memos_into(&solvers, input)?;
        Ok(())
    }
}

/// A thread's solver: the variant's, whose plain game's solver also tells
/// when the rules changed the winner.
pub struct VariantWorker {
    variant: VariantSolver,
}

impl VariantStudy {
    fn new_solver(&self) -> VariantSolver {
        let solver = VariantSolver::with_shared(
            self.rules,
            self.shared.clone(),
            self.local_bytes,
            self.plain_own_bytes,
        )
        .sharing_positions_up_to(self.shared_max_cards)
        .with_stop(self.stop.clone());
        let solver = match &self.plain_shared {
            Some(table) => solver.sharing_plain_positions(table.clone(), self.plain_own_bytes),
            None => solver,
        };
        if self.large_deals {
            solver.evicting_by_cost()
        } else {
            solver
        }
    }

    /// The rules as the summary names them, e.g. "cut 6" or "cut 6, back 9".
    fn rule_text(&self) -> String {
        let mut parts = Vec::new();
        if let Some(c) = self.rules.cut {
            parts.push(format!("cut {c}"));
        }
        if let Some(b) = self.rules.back {
            parts.push(format!("back {b}"));
        }
        parts.join(", ")
    }
}

/// Under `runner plan`'s estimate of a sampled 11-back run of deals so
/// large that each is a chunk of its own. The memo note of smaller runs
/// (an estimate that errs long) does not hold there: such deals take from
/// under a second to over half an hour each, and a sample of a few mostly
/// misses the slow ones that make up much of the run (BENCHMARKS.md, "The
/// plan's estimate of a 26x26 11-back run").
const BACK_DEALS_VARY_NOTE: &str = "note: deals this large under 11-back take from under a second to over half an hour each, and a sample of a few mostly misses the slow ones, so a run can take several times this (the 1,000 deals of configs/variant-back-26.toml took 82 minutes on the project VM's 2 threads, against estimates of 19 to 20); the cluster line plans on 4.4 times the estimate and keeps the memo of a task stopped at its limit (--keep-memo), so that resubmitting it carries its deals under way on";

/// That run's time over its plans' estimates: 82 minutes against four
/// plans of 18m 39s to 19m 55s, so 4.1 to 4.4 times; the worst is kept.
const BACK_DEALS_MEASURED_OVERRUN: f64 = 4.4;

impl Study for VariantStudy {
    fn outline(config: &Config, _threads: usize) -> Outline {
        let source = variant_source(config);
        let mut outline = deal_study::outline(config, &source, memo_size(config, &source));
        let one_deal_chunks = (0..source.cells.len()).any(|cell| source.chunk_size(cell) == 1);
        if outline.estimate_bias.is_some() && rules_of(config).back.is_some() && one_deal_chunks {
            outline.estimate_bias = Some(EstimateBias::ErrsShort {
                note: BACK_DEALS_VARY_NOTE,
                measured: BACK_DEALS_MEASURED_OVERRUN,
            });
        }
        outline
    }

    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self> {
        let source = variant_source(config);
        let budget = memo_budget(config, &source, ctx.timing_sample);
        let threads = ctx.threads.max(1);
        let split = MemoSplit::of(budget, threads, source.largest_deal_cards());
        Ok(VariantStudy {
            source,
            rules: rules_of(config),
            shared: Arc::new(SharedMemo::grouped(split.shared_bytes)),
            local_bytes: split.local_bytes,
            shared_max_cards: split.shared_max_cards,
            large_deals: split.large_deals,
            plain_own_bytes: split.plain_own_bytes,
            plain_shared: (split.plain_shared_bytes > 0)
                .then(|| Arc::new(SharedMemo::grouped(split.plain_shared_bytes))),
            stop: ctx.stop.clone(),
            threads,
            plain_claim: if ctx.inject_fault {
                broken_claim
            } else {
                theorem
            },
            parked: Mutex::new(Vec::new()),
        })
    }

    const KEEPS_MEMO: bool = true;

    fn kept_memo(&self) -> Option<&dyn KeptMemo> {
        Some(self)
    }

    fn tables(&self, cells: &[&VariantCounts]) -> Vec<(&'static str, Vec<u8>)> {
        let mut stats = Table::new(&rate_header_with(&[
            "formula_agree",
            "formula_disagree",
            "winner_changed",
        ]));
        let mut fails = Table::new(&[
            "n_first",
            "n_second",
            "field",
            "first",
            "second",
            "variant_winner",
            "formula_says",
        ]);
        let field = self.source.field.to_string();
        let who = |first: bool| if first { "first" } else { "second" };
        for (&[a, b], c) in self.source.cells.iter().zip(cells) {
            stats.row(deal_stats_row(
                &self.source,
                [a, b],
                c.first_wins,
                c.deals,
                [
                    c.formula_agree.to_string(),
                    c.formula_disagree.to_string(),
                    c.winner_changed.to_string(),
                ],
            ));
            for f in &c.failures {
                fails.row([
                    a.to_string(),
                    b.to_string(),
                    field.clone(),
                    hand_text(&f.first),
                    hand_text(&f.second),
                    who(f.variant_first_wins).to_string(),
                    who(!f.variant_first_wins).to_string(),
                ]);
            }
        }
        let mut mu = Table::new(MU_COLUMNS);
        for (&cell, c) in self.source.cells.iter().zip(cells) {
            push_mu_rows(&mut mu, cell, self.source.field, &c.mu);
        }
        vec![
            ("stats.csv", stats.into_bytes()),
            ("mu.csv", mu.into_bytes()),
            ("formula_failures.csv", fails.into_bytes()),
        ]
    }

    fn run_details(&self, cells: &[CellResult<VariantCounts>]) -> Vec<u8> {
        deal_run_details(&self.source, cells, |c| c.positions)
    }

    /// The formula is not claimed for the variant, so its failures are a
    /// measurement, not an error. The plain game's theorem is claimed: the
    /// plain minimax behind `winner_changed` must agree with it on every
    /// deal, or the run fails (exit 1).
    fn summary(&self, cells: &[&VariantCounts], out_dir: &Path) -> Summary {
        let mut lines = Vec::new();
        for (&[a, b], c) in self.source.cells.iter().zip(cells) {
            // The plain game's first player wins exactly where μ0 > μ1 (the
            // theorem, checked on these very deals below), so the μ table
            // gives the plain rate on the same deals to compare with.
            let plain_first_wins: u128 =
                c.mu.entries()
                    .filter(|&(mu0, mu1, _, _)| mu0 > mu1)
                    .map(|(_, _, deals, _)| deals)
                    .sum();
            lines.push(format!(
                "{a}x{b} {}: first player wins {} (plain game on the same deals: {}); the plain formula predicts {} of {} deals ({}; {} fail), winner changed by the rules in {}",
                self.rule_text(),
                rate_text_of(self.source.mode, c.first_wins, c.deals),
                rate_text_of(self.source.mode, plain_first_wins, c.deals),
                c.formula_agree,
                c.deals,
                rate_text_of(self.source.mode, c.formula_agree, c.deals),
                c.formula_disagree,
                c.winner_changed
            ));
        }
        lines.push(format!("results in {}", out_dir.display()));
        let checked: u128 = cells.iter().map(|c| c.plain_theorem_checked).sum();
        let failed: u128 = cells.iter().map(|c| c.plain_theorem_failures).sum();
        let deals: u128 = cells.iter().map(|c| c.deals).sum();
        let unchecked = if checked < deals {
            format!(
                " ({} more, recorded by an older version, were not checked)",
                deals - checked
            )
        } else {
            String::new()
        };
        let all = if checked == deals { "all " } else { "the " };
        // The deals themselves, for replaying the bug; the first few are
        // enough to start from.
        let who = |first: bool| if first { "first" } else { "second" };
        for (&[a, b], c) in self.source.cells.iter().zip(cells) {
            for f in c
                .plain_theorem_failed_deals
                .iter()
                .take(SHOWN_PLAIN_FAILURES)
            {
                lines.push(format!(
                    "plain-theorem failure: {a}x{b}, field {}, first hand [{}], second hand [{}]: the plain minimax says {} wins, μ0 = {}, μ1 = {}",
                    self.source.field,
                    hand_text(&f.first),
                    hand_text(&f.second),
                    who(f.plain_first_wins),
                    f.mu0,
                    f.mu1
                ));
            }
        }
        Summary::checked(
            lines,
            failed > 0,
            format!(
                "the plain game's minimax and its proved μ test disagree on {failed} of {checked} deals: the plain solver or the claim is wrong{unchecked}"
            ),
            format!(
                "the plain game's minimax agrees with its proved μ test on {all}{checked} deals checked{unchecked}"
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline_of(rules: &str, cards: u32) -> Outline {
        let text = format!(
            "[experiment]\nname = \"t\"\nstudy = \"variant\"\nmode = \"sample\"\ndeals = 1000\n[rules]\n{rules}\n[hands]\nsizes = [[{cards}, {cards}]]\n"
        );
        let config = Config::parse(&text, "t.toml").unwrap();
        <VariantStudy as Study>::outline(&config, 2)
    }

    /// Whatever the budget (from the 16 MiB floor up), thread count and
    /// deal size, the tables fit the budget and each has room; the plain
    /// game's positions are shared between threads in deals of at most 26
    /// cards only.
    #[test]
    fn the_memo_split_fits_the_budget() {
        for budget_mb in [16usize, 17, 100, 1563, 7813, 16384] {
            for threads in [1, 2, 3, 64, 1024, 4096] {
                for largest in [2, 16, 26, 27, 42, 43, 52] {
                    let budget = budget_mb << 20;
                    let split = MemoSplit::of(budget, threads, largest);
                    let used = split.shared_bytes
                        + split.plain_shared_bytes
                        + threads * (split.local_bytes + split.plain_own_bytes);
                    let case = format!("{budget_mb} MiB, {threads} threads, {largest} cards");
                    assert!(used <= budget, "{case}: {split:?}");
                    assert!(split.shared_bytes >= budget / 8, "{case}: {split:?}");
                    assert_eq!(split.plain_shared_bytes > 0, largest <= 26, "{case}");
                    assert_eq!(split.large_deals, largest > 42, "{case}");
                }
            }
        }
    }

    #[test]
    fn a_plan_of_large_11_back_deals_warns_that_its_estimate_can_run_short() {
        // A 26x26 11-back run took 4 times its plan's estimate: its deals
        // are chunks of their own, and a few take much of the time.
        let bias = |rules, cards| outline_of(rules, cards).estimate_bias;
        let short = Some(EstimateBias::ErrsShort {
            note: BACK_DEALS_VARY_NOTE,
            measured: BACK_DEALS_MEASURED_OVERRUN,
        });
        assert_eq!(bias("back = 9", 26), short);
        assert_eq!(bias("back = 9\ncut = 6", 26), short);
        // Smaller deals share chunks and endgames, and 8-cut's deals are
        // alike: there the memo's note holds (the run errs short of the
        // estimate, not past it).
        for (rules, cards) in [("back = 9", 13), ("cut = 6", 26), ("cut = 6", 13)] {
            let Some(EstimateBias::ErrsLong(said)) = bias(rules, cards) else {
                panic!("{rules} at {cards}: {:?}", bias(rules, cards));
            };
            assert!(said.contains("fresh memo"), "{said}");
        }
    }
}
