//! What every study of dealt cards shares: which deals a config's cells
//! hold and how they are cut into chunks ([`DealSource`]), the blanket impl
//! that makes every [`DealStudy`] an engine workload, the one memory policy
//! of their solvers ([`memo_budget`]), the bounded list of failures they
//! keep ([`FailureList`]), and their shared table columns ([`columns`]).
//!
//! This is not a study: it sits below the studies, and any of them may use
//! it.

pub mod columns;
pub mod mu;

use crate::config::{Config, Mode};
use crate::engine::{Chunk, Plan, Workload, usable_share};
use crate::games::cards::{Deal, DealSpace, Dealer, Deck, MAX_RANKS};
use crate::games::tanhinmin::position::{PACKED_MAX_COPIES, PACKED_MAX_RANKS};
use crate::games::tanhinmin::roots::RootSpace;
use crate::random::chunk_rng;
use crate::study::{CellOutline, EstimateBias, Outline};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::ops::RangeInclusive;

/// A deal and where it sits in the run.
pub struct DealInstance {
    /// Global chunk index.
    pub chunk: u64,
    /// Position of the deal in its chunk.
    pub seq: u64,
    /// The deal.
    pub deal: Deal,
}

/// Distinct deals (rank patterns) per chunk in exhaustive mode.
pub const EXHAUSTIVE_CHUNK: u64 = 1 << 16;
/// Roots per chunk in exhaustive mode when deals are grouped by root
/// ([`RootSpace`]): a root stands for a dozen patterns or more, so chunks
/// are smaller to keep a few hundred of them in an 8x8 run. Part of the
/// config hash, so a checkpoint or shard of a pattern run never resumes or
/// merges into a root run.
pub const ROOT_CHUNK: u64 = 1 << 13;
/// Deals per chunk in sample mode for deals of up to 20 cards in all. Part
/// of the random stream's definition: changing it changes which deals a seed
/// draws.
pub const SAMPLE_CHUNK: u64 = 1 << 12;

/// Deals per chunk when sampling deals of `cards` cards in all. Solving
/// costs grow about 2^(cards / 2) per deal, so larger deals get smaller
/// chunks (halved every two cards past 20, down to one deal): every chunk
/// then costs about the same, and a run of a few large deals still spreads
/// over all threads.
pub fn sample_chunk(cards: u32) -> u64 {
    let halvings = cards.saturating_sub(20).div_ceil(2);
    (SAMPLE_CHUNK >> halvings.min(63)).max(1)
}

/// The deals of a config's cells, enumerated or sampled, for any study
/// that evaluates deals: one cell per `[hands] sizes` entry.
pub struct DealSource {
    /// Exhaustive or sampled.
    pub mode: Mode,
    /// Seed of the random streams.
    pub seed: u64,
    /// The deck.
    pub deck: Deck,
    /// The cells, as [n_first, n_second].
    pub cells: Vec<[u32; 2]>,
    /// The starting field.
    pub field: u32,
    /// Deals per cell in sample mode.
    pub deals_per_cell: u64,
    /// Rank patterns or roots of each cell in exhaustive mode.
    spaces: Vec<Option<Space>>,
    /// How many times larger (as a power of two) an automatic memo this
    /// source's study wants than the plain game's: a variant's positions
    /// share less across deals (see [`DealSource::wanting_memo_scaled`]).
    memo_scale_log2: u32,
    /// The largest automatic memo of a sampled run, as a power of two
    /// (see [`DealSource::wanting_sampled_memo_up_to`]).
    sampled_memo_cap_log2: u32,
    /// The largest automatic memo a long sampled run may grow to, as a
    /// power of two, or 0 (see [`DealSource::wanting_endgame_table`]).
    endgame_table_cap_log2: u32,
}

/// How an exhaustive cell lists its deals.
enum Space {
    /// Every rank pattern, each with its weight.
    Patterns(DealSpace),
    /// Every canonical root of the plain game, each with the weight of all
    /// its patterns.
    Roots(RootSpace),
}

impl DealSource {
    /// The deals of `config`'s cells.
    pub fn new(config: &Config) -> Self {
        Self::with_distinguished_ranks(config, &[])
    }

    /// The same deals, for a study whose search wants an automatic memo
    /// `2^log2` times the plain game's. Measured on the 8-cut + 11-back
    /// variant, every 7x7 deal: 64 MiB (the plain game's size) searched
    /// 497M positions in 86 s, 1 GiB 46M positions in 27 s.
    pub fn wanting_memo_scaled(mut self, log2: u32) -> Self {
        self.memo_scale_log2 = log2;
        self
    }

    /// The same deals, for a study whose sampled runs want an automatic
    /// memo of up to `2^log2` bytes rather than [`SAMPLED_MEMO_CAP_LOG2`]:
    /// a study that measured more memory paying for itself there.
    pub fn wanting_sampled_memo_up_to(mut self, log2: u32) -> Self {
        self.sampled_memo_cap_log2 = log2;
        self
    }

    /// The same deals, for a study whose sampled runs solve the same small
    /// endgames deal after deal, so that its shared memo, kept across
    /// deals, is an endgame table the run builds: a long run's automatic
    /// memo grows by 2^(cards / 2) bytes a deal (8 KiB at 13x13) past the
    /// usual size, up to `2^cap_log2` bytes. Measured on 13x13 11-back
    /// deals (BENCHMARKS.md): at 20,000 deals a larger memo finds nothing
    /// more and its pages cost time; at 300,000, 4 GiB ran 1.4x faster
    /// than 1 GiB; at 1,000,000, 8 GiB searched a third of the positions.
    pub fn wanting_endgame_table(mut self, cap_log2: u32) -> Self {
        self.endgame_table_cap_log2 = cap_log2;
        self
    }

    /// Deals for rules that single out ranks (by strength), such as the cut
    /// and back ranks of the variants: exhaustive patterns never move them.
    pub fn with_distinguished_ranks(config: &Config, ranks: &[u32]) -> Self {
        Self::build(config, ranks, false)
    }

    /// Deals of the plain game grouped by canonical root in exhaustive mode:
    /// one instance per root, weighted by all its patterns. Only for a study
    /// whose every result is the same on all patterns of a root: the plain
    /// game's verdict and μ pair (tested in `games::tanhinmin::roots` and
    /// `tests/exhaustive.rs`), and the card-count game's value and C1's,
    /// since merging a run changes no card count (`tests/variants.rs`).
    /// Decks with unequal copies inside a segment keep patterns.
    pub fn by_root(config: &Config) -> Self {
        Self::build(config, &[], true)
    }

    /// Deals grouped by root with `ranks` as segments of their own, for a
    /// study whose results are the same on all patterns of such a root: a
    /// rule variant, whose key keeps each special rank apart and otherwise
    /// merges runs as the plain key does (`games::tanhinmin::variant`), so
    /// the variant's verdict, the plain verdict and the μ pair agree on all
    /// of a root's patterns (`tests/variants.rs` holds the tables equal).
    pub fn by_root_with_distinguished_ranks(config: &Config, ranks: &[u32]) -> Self {
        Self::build(config, ranks, true)
    }

    fn build(config: &Config, ranks: &[u32], roots: bool) -> Self {
        let mut boundaries = vec![config.hands.field as usize];
        for &r in ranks {
            boundaries.extend([r as usize - 1, r as usize]);
        }
        let deck = Deck {
            copies: config.copies(),
        };
        let cells = config.hands.sizes.clone();
        let spaces = cells
            .iter()
            .map(|&[a, b]| match config.experiment.mode {
                Mode::Exhaustive => Some(
                    roots
                        .then(|| RootSpace::new(&deck, a, b, &boundaries))
                        .flatten()
                        .map(Space::Roots)
                        .unwrap_or_else(|| {
                            Space::Patterns(
                                DealSpace::with_boundaries(&deck, a, b, &boundaries)
                                    .expect("checked by config"),
                            )
                        }),
                ),
                Mode::Sample => None,
            })
            .collect();
        DealSource {
            mode: config.experiment.mode,
            seed: config.experiment.seed,
            deck,
            cells,
            field: config.hands.field,
            deals_per_cell: config.experiment.deals.unwrap_or(0),
            spaces,
            memo_scale_log2: 0,
            sampled_memo_cap_log2: SAMPLED_MEMO_CAP_LOG2,
            endgame_table_cap_log2: 0,
        }
    }

    /// Ranks of the deck.
    pub fn ranks(&self) -> usize {
        self.deck.copies.len()
    }

    /// Cards in the largest deal of any cell (both hands together): what
    /// sizes the memo and decides where its positions fall.
    pub fn largest_deal_cards(&self) -> u32 {
        self.cells.iter().map(|&[a, b]| a + b).max().unwrap_or(0)
    }

    /// The physical deals that `items` deals of `cell` can stand for: a
    /// sampled deal is one, an exhaustive pattern or root any number (none
    /// for an impossible pattern), but all of a cell's together exactly its
    /// physical deals. Counts read back from a file, and a cell's counts at
    /// the end of a run, are checked against it; the bound also keeps their
    /// sums from overflowing (see [`Config::validate_enumerable`]).
    pub fn deals_of_items(&self, cell: usize, items: u64) -> RangeInclusive<u128> {
        let Some(space) = &self.spaces[cell] else {
            return u128::from(items)..=u128::from(items);
        };
        let [a, b] = self.cells[cell];
        // Checked by the config for every exhaustive cell.
        let all = self.deck.physical_deals(a, b).unwrap_or(u128::MAX / 2);
        let patterns = match space {
            Space::Patterns(space) => space.len(),
            Space::Roots(space) => space.len(),
        };
        match items {
            0 => 0..=0,
            _ if items == patterns => all..=all,
            _ => 0..=all,
        }
    }

    /// Distinct deals (exhaustive) or sampled deals per cell.
    pub fn cell_sizes(&self) -> Vec<u64> {
        self.spaces
            .iter()
            .map(|s| match s {
                Some(Space::Patterns(space)) => space.len(),
                Some(Space::Roots(space)) => space.len(),
                None => self.deals_per_cell,
            })
            .collect()
    }

    /// Deals per chunk of `cell`.
    pub fn chunk_size(&self, cell: usize) -> u64 {
        match (self.mode, &self.spaces[cell]) {
            (Mode::Exhaustive, Some(Space::Roots(_))) => ROOT_CHUNK,
            (Mode::Exhaustive, _) => EXHAUSTIVE_CHUNK,
            (Mode::Sample, _) => {
                let [a, b] = self.cells[cell];
                sample_chunk(a + b)
            }
        }
    }

    /// A cell as shown in progress lines.
    pub fn cell_label(&self, cell: usize) -> String {
        let [a, b] = self.cells[cell];
        format!("{a}x{b} field {}", self.field)
    }

    /// Calls `f` on each deal of the chunk, in a fixed order.
    pub fn for_each_deal(&self, chunk: &Chunk, mut f: impl FnMut(&DealInstance)) {
        let mut item = DealInstance {
            chunk: chunk.global,
            seq: 0,
            deal: Deal {
                first: [0; MAX_RANKS],
                second: [0; MAX_RANKS],
                weight: 0,
            },
        };
        match &self.spaces[chunk.cell] {
            Some(Space::Patterns(space)) => {
                space.for_each_in_range(chunk.start, chunk.start + chunk.len, |deal| {
                    item.deal.clone_from(deal);
                    f(&item);
                    item.seq += 1;
                });
            }
            Some(Space::Roots(space)) => {
                space.for_each_in_range(chunk.start, chunk.start + chunk.len, |deal, _| {
                    item.deal.clone_from(deal);
                    f(&item);
                    item.seq += 1;
                });
            }
            None => {
                let [a, b] = self.cells[chunk.cell];
                let mut rng = chunk_rng(self.seed, chunk.global);
                let mut dealer = Dealer::new(&self.deck);
                for _ in 0..chunk.len {
                    item.deal = dealer.deal(&mut rng, a as usize, b as usize);
                    f(&item);
                    item.seq += 1;
                }
            }
        }
    }
}

/// A deal a study lists in full, as [`DealStudy::listed_deals`] gives it.
pub struct ListedDeal<'a> {
    /// Its global chunk.
    pub chunk: u64,
    /// Its place within the chunk.
    pub seq: u64,
    /// The first hand, as counts per rank.
    pub first: &'a [u8],
    /// The second hand.
    pub second: &'a [u8],
    /// The physical deals it stands for, where the study lists them.
    pub weight: Option<u128>,
}

impl<'a> ListedDeal<'a> {
    /// A listed deal without its weight.
    pub fn of(chunk: u64, seq: u64, first: &'a [u8], second: &'a [u8]) -> Self {
        ListedDeal {
            chunk,
            seq,
            first,
            second,
            weight: None,
        }
    }
}

/// A study that evaluates the deals of a config's cells. Every such study
/// is an engine [`Workload`] through the impl below, so
/// it only says what a worker is and what one deal adds to the counts.
pub trait DealStudy: Sync {
    /// What evaluating deals accumulates; serialised for checkpoints and
    /// shards. Cloned to compare a trimmed record with its chunk again.
    type Counts: Clone + Default + Send + serde::Serialize + serde::de::DeserializeOwned;
    /// Per-thread scratch, such as a solver.
    type Worker: Send;
    /// The deals to evaluate.
    fn source(&self) -> &DealSource;
    /// Per-thread scratch; see [`Workload::new_worker`].
    fn new_worker(&self) -> Self::Worker;
    /// See [`Workload::retire`].
    fn retire(&self, workers: Vec<Self::Worker>) {
        drop(workers);
    }
    /// Adds one deal to `counts`.
    fn evaluate(&self, worker: &mut Self::Worker, deal: &DealInstance, counts: &mut Self::Counts);
    /// Must not depend on the order of merging.
    fn merge(into: &mut Self::Counts, from: Self::Counts);
    /// Could `counts` come from `items` deals standing for `deals`
    /// physical deals ([`DealSource::deals_of_items`])? See
    /// [`Workload::check_counts`].
    fn check_counts(
        &self,
        cell: usize,
        items: u64,
        deals: &RangeInclusive<u128>,
        counts: &Self::Counts,
    ) -> Result<(), String> {
        let _ = (cell, items, deals, counts);
        Ok(())
    }
    /// Is each failure `counts` lists the failure it is listed as, by the
    /// study's formula (never a search)? See [`Workload::check_listed`].
    /// The deals of [`Self::listed_deals`] are the deals dealt at their
    /// places by then, and `dealt` holds the deal dealt at the place of
    /// every failure of [`Self::failure_lists`], for a study that lists
    /// positions reached from a deal rather than the deal itself.
    fn check_listed(&self, counts: &Self::Counts, dealt: &Dealt) -> Result<(), String> {
        let _ = (counts, dealt);
        Ok(())
    }
    /// See [`Workload::same_counts`].
    fn same_counts(&self, recorded: &Self::Counts, rerun: &Self::Counts) -> bool {
        crate::engine::same_serialisation(recorded, rerun)
    }
    /// Every deal `counts` lists in full, its failures, with where it was
    /// found: [`Workload::check_listed`] refuses a deal that is not the one
    /// its place deals (a checkpoint or shard edited with its checksum
    /// recomputed), before it is shown as a counterexample.
    fn listed_deals(counts: &Self::Counts) -> Vec<ListedDeal<'_>> {
        let _ = counts;
        Vec::new()
    }
    /// The lists of failures `counts` keeps, each as its places: the
    /// engine checks where they lie ([`Workload::listed_places`]) and trims
    /// checkpoint records by them ([`Workload::trim_record`]). None by
    /// default; [`Self::failure_lists_mut`] must give the same lists in
    /// the same order.
    fn failure_lists(counts: &Self::Counts) -> Vec<&dyn ListedPlaces> {
        let _ = counts;
        Vec::new()
    }
    /// [`Self::failure_lists`], to trim.
    fn failure_lists_mut(counts: &mut Self::Counts) -> Vec<&mut dyn ListedPlaces> {
        let _ = counts;
        Vec::new()
    }
}

impl<T: DealStudy> Workload for T {
    type Instance = DealInstance;
    type Counts = T::Counts;
    type Worker = T::Worker;

    fn cell_sizes(&self) -> Vec<u64> {
        self.source().cell_sizes()
    }

    fn chunk_size(&self, cell: usize) -> u64 {
        self.source().chunk_size(cell)
    }

    fn cell_label(&self, cell: usize) -> String {
        self.source().cell_label(cell)
    }

    fn new_worker(&self) -> T::Worker {
        DealStudy::new_worker(self)
    }

    fn retire(&self, workers: Vec<T::Worker>) {
        DealStudy::retire(self, workers)
    }

    fn for_each_instance(&self, chunk: &Chunk, f: impl FnMut(&DealInstance)) {
        self.source().for_each_deal(chunk, f);
    }

    fn evaluate(&self, worker: &mut T::Worker, deal: &DealInstance, counts: &mut T::Counts) {
        DealStudy::evaluate(self, worker, deal, counts)
    }

    fn merge(into: &mut T::Counts, from: T::Counts) {
        <T as DealStudy>::merge(into, from)
    }

    fn check_counts(&self, cell: usize, items: u64, counts: &T::Counts) -> Result<(), String> {
        let deals = self.source().deals_of_items(cell, items);
        DealStudy::check_counts(self, cell, items, &deals, counts)
    }

    fn check_listed(&self, plan: &Plan, cell: usize, counts: &T::Counts) -> Result<(), String> {
        let source = self.source();
        let sizes = source.cells[cell];
        let copies = &source.deck.copies;
        let cards = |hand: &[u8]| hand.iter().map(|&c| u32::from(c)).sum::<u32>();
        let listed = T::listed_deals(counts);
        for ListedDeal { first, second, .. } in &listed {
            let held = [cards(first), cards(second)];
            if first.len() != copies.len() || second.len() != copies.len() {
                return Err(format!(
                    "a deal listed in full has hands of {} and {} ranks, not the deck's {}",
                    first.len(),
                    second.len(),
                    copies.len()
                ));
            } else if held != sizes {
                return Err(format!(
                    "a deal listed in full has hands of {} and {} cards, not the cell's {} and {}",
                    held[0], held[1], sizes[0], sizes[1]
                ));
            } else if (first.iter().zip(*second).zip(copies))
                .any(|((&a, &b), &n)| u32::from(a) + u32::from(b) > n)
            {
                return Err(
                    "a deal listed in full holds more cards of a rank than the deck".into(),
                );
            }
        }
        let places =
            (listed.iter().map(|d| (d.chunk, d.seq))).chain(<T as Workload>::listed_places(counts));
        let dealt = Dealt::deal_again(source, plan, cell, places);
        check_dealt(&dealt, &listed)?;
        // The study's own check comes after, so that it may solve the
        // listed deals by formula.
        DealStudy::check_listed(self, counts, &dealt)
    }

    /// A trimmed record is compared with its chunk solved again and
    /// trimmed at the same places.
    fn same_counts(&self, recorded: &T::Counts, rerun: &T::Counts) -> bool {
        let bounds: Vec<_> = (T::failure_lists(recorded).iter())
            .map(|list| list.kept_before())
            .collect();
        if bounds.iter().all(Option::is_none) {
            return DealStudy::same_counts(self, recorded, rerun);
        }
        let mut trimmed = rerun.clone();
        for (list, bound) in T::failure_lists_mut(&mut trimmed).into_iter().zip(bounds) {
            if let Some(bound) = bound {
                list.keep_before(bound);
            }
        }
        DealStudy::same_counts(self, recorded, &trimmed)
    }

    fn listed_places(counts: &T::Counts) -> Vec<(u64, u64)> {
        (T::failure_lists(counts).iter())
            .flat_map(|list| list.places())
            .map(|(chunk, seq, _)| (chunk, seq))
            .collect()
    }

    fn trim_record(&self, record: &mut T::Counts, before: &T::Counts) {
        let sums = T::failure_lists(before);
        for (list, sum) in T::failure_lists_mut(record).into_iter().zip(sums) {
            trim_list(list, sum);
        }
    }

    fn check_trimmed(&self, record: &T::Counts, before: &T::Counts) -> Result<(), String> {
        let sums = T::failure_lists(before);
        (T::failure_lists(record).into_iter().zip(sums))
            .try_for_each(|(list, sum)| check_list_trim(list, sum))
    }
}

/// The deals dealt at some places of a cell, dealt again to check what a
/// checkpoint or shard lists there.
pub struct Dealt {
    deals: BTreeMap<(u64, u64), Deal>,
}

impl Dealt {
    /// The deals at `places` of `cell`, places within their chunks of
    /// `plan` ([`crate::engine::check_listed_places`]). Each chunk named
    /// is dealt again once, as far as its last place (a few milliseconds
    /// at most; chunks that list nothing, most of a trimmed checkpoint's,
    /// cost nothing): a chunk's first deals are the same however long it
    /// is.
    pub fn deal_again(
        source: &DealSource,
        plan: &Plan,
        cell: usize,
        places: impl IntoIterator<Item = (u64, u64)>,
    ) -> Dealt {
        let mut seqs_of_chunk: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for (chunk, seq) in places {
            seqs_of_chunk.entry(chunk).or_default().push(seq);
        }
        let mut deals = BTreeMap::new();
        for (global, mut seqs) in seqs_of_chunk {
            seqs.sort_unstable();
            seqs.dedup();
            let last = seqs.last().copied().unwrap_or(0);
            let chunk = plan.chunk(cell, global);
            let upto = Chunk {
                len: chunk.len.min(last + 1),
                ..chunk
            };
            // Deals come in order of their place, so the next one wanted
            // is the only one to look for.
            let mut next = seqs.iter().peekable();
            source.for_each_deal(&upto, |dealt| {
                if next.next_if_eq(&&dealt.seq).is_some() {
                    deals.insert((global, dealt.seq), dealt.deal.clone());
                }
            });
        }
        Dealt { deals }
    }

    /// The deal dealt at deal `seq` of global chunk `chunk`, if it was
    /// asked for and the chunk holds it.
    pub fn at(&self, chunk: u64, seq: u64) -> Option<&Deal> {
        self.deals.get(&(chunk, seq))
    }
}

/// Whether each of `listed` is the deal dealt at its place: a forged
/// counterexample moved to another deal of its chunk would change which
/// failures a cell shows first.
fn check_dealt(dealt: &Dealt, listed: &[ListedDeal]) -> Result<(), String> {
    for deal in listed {
        let same = dealt.at(deal.chunk, deal.seq).is_some_and(|d| {
            d.first.get(..deal.first.len()) == Some(deal.first)
                && d.second.get(..deal.second.len()) == Some(deal.second)
                && deal.weight.is_none_or(|w| w == d.weight)
        });
        if !same {
            return Err(format!(
                "the deal listed in full at chunk {} deal {} is not the deal dealt there",
                deal.chunk, deal.seq
            ));
        }
    }
    Ok(())
}

/// Trims a chunk's `list` by `sum`, the same list of the cell's chunks
/// journalled before it: once `sum` is full, a failure placed after its
/// last one can never be among the cell's first, since merging more
/// chunks only brings earlier failures in.
pub fn trim_list(list: &mut dyn ListedPlaces, sum: &dyn ListedPlaces) {
    if let Some(bound) = sum.full_up_to() {
        list.keep_before(bound);
    }
}

/// Whether a record's `list` read back was trimmed as [`trim_list`] would
/// by `sum`, its cell's records before it: it keeps nothing past its
/// bound, and `sum` is full up to the bound at the latest. (Whether it
/// kept every failure before the bound only solving the chunk again can
/// tell, as for an untrimmed list: `--recheck`.)
pub fn check_list_trim(list: &dyn ListedPlaces, sum: &dyn ListedPlaces) -> Result<(), String> {
    let Some(bound) = list.kept_before() else {
        return Ok(());
    };
    let (chunk, seq, _) = bound;
    if list.places().iter().any(|&place| place >= bound) {
        Err(format!(
            "it keeps a failure placed after chunk {chunk} deal {seq}, where it says it keeps only those before"
        ))
    } else if sum.full_up_to().is_none_or(|full| full > bound) {
        Err(format!(
            "it keeps only its failures before chunk {chunk} deal {seq}, but the records before it do not list {} failures up to there",
            FailureList::<Place>::LIMIT
        ))
    } else {
        Ok(())
    }
}

/// The memo bytes a run of `source` can use: `[solver] memo_mb`, capped by
/// a rough need. A small run cannot fill a large memo, and the tables are
/// fixed-size with random bucket order, so every page of one would be
/// touched; the need is 16 bytes times 2^(cards / 2) per deal (positions per
/// deal grow about that fast), never below 16 MiB.
///
/// Every deal study sizes its solvers from this one figure: shared tables
/// take it whole, per-thread tables split it by the thread count.
///
/// A budget above three quarters of the memory the machine has available
/// is cut to that, with a one-line note: a memo only changes speed, and an
/// allocation the machine cannot give would abort the run.
///
/// A study built only to time a sample (`timing_sample`, from
/// [`crate::study::BuildContext::timing_sample`]) gets no endgame table:
/// its few thousand deals fill none, and its pages would cost the plan
/// gigabytes and seconds.
pub fn memo_budget(config: &Config, source: &DealSource, timing_sample: bool) -> usize {
    let (bytes, note) = sized_memo(config, source, !timing_sample);
    if let Some(note) = note {
        crate::error::say(note);
    }
    bytes
}

/// [`memo_budget`] without printing: the bytes, and the note to print if
/// the machine could not give what the config asks.
pub fn memo_size(config: &Config, source: &DealSource) -> (usize, Option<String>) {
    sized_memo(config, source, true)
}

/// [`memo_size`], with or without the endgame table a long run grows.
fn sized_memo(
    config: &Config,
    source: &DealSource,
    endgame_table: bool,
) -> (usize, Option<String>) {
    let need: usize = source
        .cells
        .iter()
        .zip(source.cell_sizes())
        .map(|(&[a, b], n)| (n as usize).saturating_mul(16usize << ((a + b) / 2).min(40)))
        .fold(0usize, |acc, x| acc.saturating_add(x));
    let asked = memo_budget_bytes(config, source, endgame_table) as usize;
    let budget = asked.min(need.max(16 << 20));
    match crate::engine::available_memory() {
        Some(free) if budget as u64 > usable_share(free) && config.solver.memo_mb.is_none() => (
            usable_share(free).max(16 << 20).min(budget as u64) as usize,
            None,
        ),
        Some(free) if budget as u64 > usable_share(free) => {
            let cut = usable_share(free).max(16 << 20).min(budget as u64) as usize;
            let note = format!(
                "note: [solver] memo_mb = {} is more than this machine can give ({} MiB available); using {} MiB",
                config.solver.memo_mb.unwrap_or_default(),
                free >> 20,
                cut >> 20
            );
            (cut, Some(note))
        }
        _ => (budget, None),
    }
}

/// The automatic memo a long sampled run of a study wanting an endgame
/// table grows to ([`DealSource::wanting_endgame_table`]), or 0.
fn endgame_table_bytes(source: &DealSource) -> u64 {
    if source.endgame_table_cap_log2 == 0 {
        return 0;
    }
    let per_deal = 1u64 << (source.largest_deal_cards() / 2).min(40);
    let deals: u64 = source.cell_sizes().iter().sum();
    deals
        .saturating_mul(per_deal)
        .min(1 << source.endgame_table_cap_log2)
}

/// The largest automatic memo of a sampled run, as a power of two: 1 GiB,
/// unless the study asks for more ([`DealSource::wanting_sampled_memo_up_to`]).
pub const SAMPLED_MEMO_CAP_LOG2: u32 = 30;

/// `[solver] memo_mb` in bytes, or when absent the automatic size.
///
/// The automatic size follows the best settings measured on the shipped
/// configs (BENCHMARKS.md): an exhaustive run shares its memo across every
/// pattern, and the positions worth keeping grow about 4x per card each,
/// so 2^(12 + cards) bytes (256 MiB at 8x8, 1 GiB at 9x9, 4 GiB at 10x10);
/// a sampled run reuses little between deals, so 2^(16 + cards / 2) bytes,
/// at most 1 GiB (512 MiB at 13x13) unless its study measured more paying
/// off ([`SAMPLED_MEMO_CAP_LOG2`]), or a long run of a study that wants an
/// endgame table ([`DealSource::wanting_endgame_table`]). Larger costs time
/// clearing pages (about 2 s a GiB) and buys no speed.
fn memo_budget_bytes(config: &Config, source: &DealSource, endgame_table: bool) -> u64 {
    if let Some(mb) = config.solver.memo_mb {
        return mb.saturating_mul(1 << 20);
    }
    let cards = source.largest_deal_cards();
    let log2 = match source.mode {
        Mode::Exhaustive => (12 + cards + source.memo_scale_log2).min(32),
        Mode::Sample => (16 + cards / 2 + source.memo_scale_log2).min(source.sampled_memo_cap_log2),
    };
    let grown = match source.mode {
        Mode::Sample if endgame_table => endgame_table_bytes(source),
        _ => 0,
    };
    (1u64 << log2).max(grown).max(16 << 20)
}

/// The outline of a deal study over `source` whose memory is its memo
/// (`memo_bytes` from [`memo_size`]; 0 for a study with none).
pub fn outline(config: &Config, source: &DealSource, memo: (usize, Option<String>)) -> Outline {
    let sizes = source.cell_sizes();
    Outline {
        cells: sizes
            .iter()
            .enumerate()
            .map(|(cell, &items)| CellOutline {
                label: source.cell_label(cell),
                items,
                chunk_size: source.chunk_size(cell),
            })
            .collect(),
        memory: memo.0 as u64,
        budget_key: if config.solver.memo_mb.is_some() {
            "[solver] memo_mb"
        } else {
            "[solver] memo_mb (automatic)"
        },
        budget: memo_budget_bytes(config, source, true),
        notes: memo.1.into_iter().collect(),
        estimate_bias: (source.mode == Mode::Sample && memo.0 > 0)
            .then_some(EstimateBias::ErrsLong(MEMO_WARMS_NOTE)),
    }
}

/// Under `runner plan`'s estimate of a sampled deal study with a memo. Its
/// sample is a few evenly spaced chunks on a fresh memo, but a sampled run
/// keeps its memo from deal to deal, and many deals share their endgames,
/// so the estimate runs high (BENCHMARKS.md, "The timed estimate of a
/// sampled run").
const MEMO_WARMS_NOTE: &str = "note: timed on a fresh memo; a sampled run keeps its memo from deal to deal and speeds up as it fills, so a long run can take less than this (the shipped 13x13 runs of 1,000,000 deals took 40% to 95% of their estimates)";

/// The config checks of a deal study whose solver keys positions by
/// packed counts (the card-count and cut solvers): at most
/// [`PACKED_MAX_RANKS`] ranks of at most [`PACKED_MAX_COPIES`] copies.
pub fn validate_small_deck(config: &Config) -> Result<(), String> {
    Config::validate_deck_and_hands(config)?;
    if config.deck.ranks > PACKED_MAX_RANKS {
        return Err(format!(
            "[deck] ranks: {} is more than the {PACKED_MAX_RANKS} study `{}` supports",
            config.deck.ranks, config.experiment.study
        ));
    }
    if let Some(c) = config.copies().iter().find(|&&c| c > PACKED_MAX_COPIES) {
        return Err(format!(
            "[deck] copies: {c} is more than the {PACKED_MAX_COPIES} per rank study `{}` supports",
            config.experiment.study
        ));
    }
    Ok(())
}

/// Where a failure was found: (chunk, deal within the chunk, step within
/// the deal). Failures are kept in this order, which fixes which ones are
/// written whatever the threads, shards or resumes.
pub trait Located {
    /// (global chunk index, sequence number within the chunk, step within
    /// the deal: 0 for studies that check a deal once).
    fn place(&self) -> (u64, u64, u64);
}

/// The sums every chunk of a study that checks a claim deal by deal must
/// satisfy: the deals its deals stand for ([`check_deals`]), no more first-player
/// wins than deals, every deal either agreeing
/// with the claim or not, and no more failures listed than counted. For
/// [`DealStudy::check_counts`]: a checkpoint record edited with its checksum
/// recomputed is refused when it breaks one of them, instead of being
/// counted into a rate outside [0, 1] or a table that does not add up.
pub fn check_claim_counts(
    deals: u128,
    expected: &RangeInclusive<u128>,
    first_wins: u128,
    agree: u128,
    disagree: u128,
    listed: usize,
) -> Result<(), String> {
    check_deals(deals, expected)?;
    let problem = if first_wins > deals {
        "more first-player wins than deals"
    } else if agree.checked_add(disagree) != Some(deals) {
        "agreeing and disagreeing deals do not add up to the deals"
    } else if listed as u128 > disagree {
        "more failures listed than counted"
    } else {
        return Ok(());
    };
    Err(problem.into())
}

/// Whether `deals` physical deals are what the deals counted stand for
/// ([`DealSource::deals_of_items`]).
pub fn check_deals(deals: u128, expected: &RangeInclusive<u128>) -> Result<(), String> {
    if deals > *expected.end() {
        Err(format!(
            "{deals} deals counted, more than the {} its deals stand for",
            expected.end()
        ))
    } else if deals < *expected.start() {
        Err(format!(
            "{deals} deals counted, fewer than the {} its deals stand for",
            expected.start()
        ))
    } else {
        Ok(())
    }
}

/// Where a failure was found, as [`Located::place`] gives it.
pub type Place = (u64, u64, u64);

/// The first [`FailureList::LIMIT`] failures of a cell in (chunk, seq)
/// order; a study counts all of them elsewhere.
///
/// A chunk's checkpoint record may keep fewer than its chunk found
/// ([`FailureList::keep_before`]): a sampled variant cell can fail on most
/// of its deals, and a record keeping a thousand failures for every chunk
/// grew a 90-second run's checkpoint to 2.18 GB, though the cell shows
/// only its first thousand.
#[derive(Clone, Debug, PartialEq)]
pub struct FailureList<T> {
    kept: Vec<T>,
    /// In a trimmed checkpoint record only: the record keeps just its
    /// failures placed before this. `None` in a sum and in a record that
    /// keeps all its chunk's failures.
    before: Option<Place>,
}

impl<T> Default for FailureList<T> {
    fn default() -> Self {
        FailureList {
            kept: Vec::new(),
            before: None,
        }
    }
}

/// A trimmed record's list as written: an untrimmed list (every sum, and
/// every record older than trimming) stays a plain JSON list.
#[derive(Serialize)]
struct TrimmedOut<'a, T> {
    kept_before: Place,
    failures: &'a [T],
}

impl<T: Serialize> Serialize for FailureList<T> {
    fn serialize<S: serde::Serializer>(&self, out: S) -> Result<S::Ok, S::Error> {
        match self.before {
            None => self.kept.serialize(out),
            Some(kept_before) => TrimmedOut {
                kept_before,
                failures: &self.kept,
            }
            .serialize(out),
        }
    }
}

/// Reads either form without buffering the list: a buffered untagged
/// enum cannot hold a u128 (a failure's weight), and would copy a record's
/// thousand failures once more.
impl<'de, T: Deserialize<'de>> Deserialize<'de> for FailureList<T> {
    fn deserialize<D: serde::Deserializer<'de>>(input: D) -> Result<Self, D::Error> {
        use serde::de::{Error, MapAccess, SeqAccess, Visitor};
        struct Either<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for Either<T> {
            type Value = FailureList<T>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of failures, or {\"kept_before\": [chunk, deal, step], \"failures\": [...]}")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut kept = Vec::new();
                while let Some(failure) = seq.next_element()? {
                    kept.push(failure);
                }
                Ok(FailureList { kept, before: None })
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let (mut before, mut kept) = (None, None);
                while let Some(key) = map.next_key::<String>()? {
                    match key.as_str() {
                        "kept_before" if before.is_none() => before = Some(map.next_value()?),
                        "failures" if kept.is_none() => kept = Some(map.next_value()?),
                        _ => return Err(A::Error::custom(format!("unexpected key `{key}`"))),
                    }
                }
                match (before, kept) {
                    (Some(before), Some(kept)) => Ok(FailureList {
                        kept,
                        before: Some(before),
                    }),
                    _ => Err(A::Error::custom(
                        "a trimmed list needs kept_before and failures",
                    )),
                }
            }
        }
        input.deserialize_any(Either(std::marker::PhantomData))
    }
}

impl<T> FailureList<T> {
    /// Failures written out in full per cell.
    pub const LIMIT: usize = 1000;
}

impl<T: Located> FailureList<T> {
    /// Keeps the failure `make` builds, unless the list is full. Within one
    /// chunk failures arrive in order, so the first ones are the ones kept.
    pub fn push(&mut self, make: impl FnOnce() -> T) {
        if self.kept.len() < Self::LIMIT {
            self.kept.push(make());
        }
    }

    /// Adds another part's failures: sorting then cutting keeps the same
    /// rows whatever the merge order. The result is a sum, never trimmed:
    /// a trimmed part dropped only failures its earlier records outrank.
    pub fn merge(&mut self, from: FailureList<T>) {
        self.kept.extend(from.kept);
        self.kept.sort_by_key(Located::place);
        self.kept.truncate(Self::LIMIT);
        self.before = None;
    }

    /// The kept failures, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.kept.iter()
    }

    /// How many are kept.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// No failure kept.
    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }
}

/// What [`DealStudy::failure_lists`] gives of each of a study's lists,
/// whatever its failures' type: the places that the engine checks and
/// trims by.
pub trait ListedPlaces {
    /// Where each kept failure was found.
    fn places(&self) -> Vec<Place>;
    /// Of a full list (a sum of records), the place of its last failure:
    /// no failure placed after it can reach the cell's list any more,
    /// since merging only ever brings earlier ones in.
    fn full_up_to(&self) -> Option<Place>;
    /// Of a trimmed record, the place it keeps failures before.
    fn kept_before(&self) -> Option<Place>;
    /// Drops the failures placed at or after `bound`, and when any were
    /// dropped, says so: the record then keeps only those before `bound`.
    fn keep_before(&mut self, bound: Place);
}

impl<T: Located> ListedPlaces for FailureList<T> {
    fn places(&self) -> Vec<Place> {
        self.kept.iter().map(Located::place).collect()
    }

    fn full_up_to(&self) -> Option<Place> {
        (self.kept.len() >= Self::LIMIT)
            .then(|| self.kept.last().map(Located::place))
            .flatten()
    }

    fn kept_before(&self) -> Option<Place> {
        self.before
    }

    fn keep_before(&mut self, bound: Place) {
        let had = self.kept.len();
        self.kept.retain(|f| f.place() < bound);
        if self.kept.len() < had {
            self.before = Some(self.before.map_or(bound, |b| b.min(bound)));
        }
    }
}

impl<'a, T> IntoIterator for &'a FailureList<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.kept.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_chunks_shrink_with_deal_size() {
        assert_eq!(sample_chunk(2), SAMPLE_CHUNK);
        assert_eq!(sample_chunk(20), SAMPLE_CHUNK);
        assert_eq!(sample_chunk(21), SAMPLE_CHUNK / 2);
        assert_eq!(sample_chunk(26), 512);
        assert_eq!(sample_chunk(52), 1);
        assert_eq!(sample_chunk(u32::MAX), 1);
        assert!((1..60).all(|c| sample_chunk(c + 1) <= sample_chunk(c)));
    }

    fn sampled(cards: u32, deals: u64) -> Config {
        let text = format!(
            "[experiment]\nname = \"t\"\nmode = \"sample\"\ndeals = {deals}\n[hands]\nsizes = [[{cards}, {cards}]]\n"
        );
        Config::parse(&text, "t.toml").unwrap()
    }

    /// The automatic memo of a study wanting an endgame table grows with a
    /// long run's deals (8 KiB a 13x13 deal) up to its cap, and no sooner
    /// than the usual size is passed; other studies' stays as it was, and
    /// `[solver] memo_mb` still decides when given.
    #[test]
    fn a_long_run_wanting_an_endgame_table_grows_its_memo_up_to_the_cap() {
        let auto = |deals: u64, endgame: bool| {
            let config = sampled(13, deals);
            let source = DealSource::new(&config);
            let source = if endgame {
                source.wanting_endgame_table(33)
            } else {
                source
            };
            memo_budget_bytes(&config, &source, true)
        };
        // 2^(16 + cards / 2), 26 cards: 512 MiB, which 65,536 deals reach.
        let usual = 1u64 << (16 + 26 / 2);
        for deals in [1, 4_000, 65_536] {
            assert_eq!(auto(deals, true), usual, "{deals} deals");
        }
        assert_eq!(auto(65_537, true), 65_537 << 13);
        assert_eq!(auto(300_000, true), 300_000 << 13);
        assert_eq!(auto(1_000_000, true), 1_000_000 << 13);
        assert_eq!(auto(10_000_000, true), 1 << 33);
        assert_eq!(auto(u64::MAX, true), 1 << 33);
        for deals in [1, 300_000, 10_000_000] {
            assert_eq!(auto(deals, false), usual, "{deals} deals");
        }
        let mut given = sampled(13, 10_000_000);
        given.solver.memo_mb = Some(100);
        let source = DealSource::new(&given).wanting_endgame_table(33);
        assert_eq!(memo_budget_bytes(&given, &source, true), 100 << 20);
        assert_eq!(memo_budget_bytes(&given, &source, false), 100 << 20);
    }

    /// A study built only to time a sample (`runner plan`) gets the usual
    /// memo, not the endgame table its run would grow to.
    #[test]
    fn a_timing_sample_grows_no_endgame_table() {
        let config = sampled(13, 1_000_000);
        let source = DealSource::new(&config).wanting_endgame_table(33);
        let usual = 1u64 << (16 + 26 / 2);
        assert_eq!(memo_budget_bytes(&config, &source, false), usual);
        assert_eq!(memo_budget_bytes(&config, &source, true), 1_000_000 << 13);
        // At most: a machine short of memory cuts either.
        assert!(memo_budget(&config, &source, true) as u64 <= usual);
        let (run, _) = memo_size(&config, &source);
        assert_eq!(memo_budget(&config, &source, false), run);
    }

    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    struct At(u64, u64);
    impl Located for At {
        fn place(&self) -> (u64, u64, u64) {
            (self.0, self.1, 0)
        }
    }

    /// Records trimmed as the engine trims them, against the sum of those
    /// journalled before, merge into the sum that every untrimmed record
    /// gives (the plain twin), in any order of arrival; replayed in that
    /// order, each passes the check, which refuses a trim its earlier
    /// records do not justify.
    #[test]
    fn trimmed_records_merge_into_the_untrimmed_sum_and_forged_trims_are_refused() {
        use crate::random::{chunk_rng, uniform_below};
        let mut trimmed_some = 0;
        for case in 0..200 {
            let mut rng = chunk_rng(case, 0);
            let chunks = 1 + uniform_below(&mut rng, 12);
            let records: Vec<FailureList<At>> = (0..chunks)
                .map(|chunk| {
                    let mut list = FailureList::default();
                    let mut seq = 0;
                    for _ in 0..uniform_below(&mut rng, 900) {
                        seq += 1 + uniform_below(&mut rng, 3);
                        list.push(|| At(chunk, seq));
                    }
                    list
                })
                .collect();
            let mut order: Vec<usize> = (0..records.len()).collect();
            for i in 0..order.len() {
                let j = i + uniform_below(&mut rng, (order.len() - i) as u64) as usize;
                order.swap(i, j);
            }
            let mut plain = FailureList::default();
            let mut sum = FailureList::default();
            let mut journal = Vec::new();
            for &i in &order {
                plain.merge(records[i].clone());
                let mut record = records[i].clone();
                trim_list(&mut record, &sum);
                trimmed_some += usize::from(record.kept_before().is_some());
                journal.push(record.clone());
                sum.merge(record);
            }
            assert_eq!(sum, plain, "case {case}");
            let mut replayed = FailureList::default();
            for record in journal {
                assert_eq!(check_list_trim(&record, &replayed), Ok(()), "case {case}");
                // A record trimmed again at its last kept failure's place
                // keeps less than its bound says; a sum that is not yet
                // full justifies no trim at all.
                if let Some(&At(chunk, seq)) = record.iter().last() {
                    let mut forged = record.clone();
                    forged.before = Some((chunk, seq, 0));
                    assert!(check_list_trim(&forged, &replayed).is_err());
                }
                if replayed.len() < FailureList::<At>::LIMIT {
                    let mut forged = record.clone();
                    forged.kept.clear();
                    forged.before = Some((0, 0, 0));
                    assert!(check_list_trim(&forged, &replayed).is_err());
                }
                replayed.merge(record);
            }
        }
        assert!(trimmed_some > 100, "only {trimmed_some} records trimmed");
    }

    #[test]
    fn a_trimmed_list_reads_back_as_written_and_an_untrimmed_one_as_a_plain_list() {
        let mut list: FailureList<At> = FailureList::default();
        list.push(|| At(3, 4));
        assert_eq!(serde_json::to_string(&list).unwrap(), "[[3,4]]");
        list.before = Some((3, 9, 0));
        let text = serde_json::to_string(&list).unwrap();
        assert_eq!(text, r#"{"kept_before":[3,9,0],"failures":[[3,4]]}"#);
        assert_eq!(
            serde_json::from_str::<FailureList<At>>(&text).unwrap(),
            list
        );
        for bad in [
            r#"{"kept_before":3,"failures":[]}"#,
            r#"{"failures":[]}"#,
            r#"{"kept_before":[1,2,3],"failures":[],"more":1}"#,
        ] {
            assert!(
                serde_json::from_str::<FailureList<At>>(bad).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn failure_lists_keep_the_first_in_order_whatever_the_merge_order() {
        let part = |chunk: u64| {
            let mut l = FailureList::default();
            for seq in 0..700 {
                l.push(|| At(chunk, seq));
            }
            l
        };
        let mut ab = part(0);
        ab.merge(part(1));
        let mut ba = part(1);
        ba.merge(part(0));
        assert_eq!(ab, ba);
        assert_eq!(ab.len(), FailureList::<At>::LIMIT);
        assert_eq!(ab.iter().last(), Some(&At(1, 299)));
    }
}
