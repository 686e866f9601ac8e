//! The generic engine: cuts a study's work into fixed chunks, runs them on a
//! rayon pool, reports progress, journals finished chunks, and merges counts.
//!
//! It knows nothing about any game. Chunks are fixed by the study and the
//! config alone, never by the thread count or the number of shards, which is
//! what makes results byte-identical for any number of threads or shards.

pub mod chunk_times;
pub mod journal;
pub mod memo_file;
pub mod progress;
pub mod recheck;
pub mod signals;

pub use chunk_times::ChunkTimes;
use journal::{Finished, Journal};
use progress::Progress;
use rayon::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashSet;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// One fixed piece of work: items `start..start + len` of one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Which cell (row of the output) the chunk belongs to.
    pub cell: usize,
    /// Position of the chunk in the whole run, cell-major; seeds random
    /// streams, assigns shards and names the chunk in checkpoints.
    pub global: u64,
    /// First item of the cell that the chunk covers.
    pub start: u64,
    /// Number of items in the chunk.
    pub len: u64,
}

/// Work the engine can run: cells of instances, each evaluated into counts
/// that merge. Everything game-specific lives behind this trait; a
/// study (one layer up) adds how to build it and what to write.
pub trait Workload: Sync {
    /// One thing to check, such as one deal.
    type Instance;
    /// What evaluating instances accumulates. `merge` must not depend on the
    /// order of merging (integer sums; lists kept sorted by chunk), so any
    /// split into threads, shards or resumed runs gives one result. Counts
    /// are serialised for checkpoints and shard files.
    type Counts: Default + Send + Serialize + DeserializeOwned;
    /// Per-thread scratch state, such as a solver, kept across chunks.
    type Worker: Send;

    /// Number of instances in each cell, in output order.
    fn cell_sizes(&self) -> Vec<u64>;
    /// Instances per chunk of `cell`; fixed by the study and the config,
    /// part of its determinism.
    fn chunk_size(&self, cell: usize) -> u64;
    /// A human label for a cell, for progress lines.
    fn cell_label(&self, cell: usize) -> String;
    /// Per-thread scratch, such as a solver: fresh, or one that an
    /// earlier round of the same run handed to [`Self::retire`].
    fn new_worker(&self) -> Self::Worker;
    /// Takes back the workers when a round of chunks ends (the timing
    /// sample, the run, or a stop), so that what they learned (a solver's
    /// memo) can serve the next round or be saved; dropped by default.
    fn retire(&self, workers: Vec<Self::Worker>) {
        drop(workers);
    }
    /// Calls `f` on each instance of the chunk, in a fixed order.
    fn for_each_instance(&self, chunk: &Chunk, f: impl FnMut(&Self::Instance));
    /// Adds one instance to `counts`.
    fn evaluate(
        &self,
        worker: &mut Self::Worker,
        instance: &Self::Instance,
        counts: &mut Self::Counts,
    );
    /// Adds `from` into `into`; must not depend on the order of merging.
    fn merge(into: &mut Self::Counts, from: Self::Counts);
    /// Checks counts read back from a file (a checkpoint) before they are
    /// trusted: could a chunk of `items` instances of `cell` have
    /// produced them? Also asked of several chunks' counts merged, with
    /// their instances added, so a check must hold for any such sum, and of
    /// a cell's counts when the run has done all its chunks, where a study
    /// that knows what a whole cell adds up to can insist on it. The
    /// message says what is impossible.
    fn check_counts(&self, cell: usize, items: u64, counts: &Self::Counts) -> Result<(), String> {
        let _ = (cell, items, counts);
        Ok(())
    }
    /// Checks the instances `counts` lists in full (a study's
    /// counterexamples), read back from a file: could a run of `cell` have
    /// listed them? Asked of each part read back (a checkpoint record, a
    /// shard) through [`check_read_back`], never of a sum of parts, whose
    /// lists are its parts', and only once [`check_listed_places`] has
    /// found each within a chunk of `plan`'s `cell`. None by default.
    fn check_listed(&self, plan: &Plan, cell: usize, counts: &Self::Counts) -> Result<(), String> {
        let _ = (plan, cell, counts);
        Ok(())
    }
    /// Where each instance that `counts` lists in full (a study's
    /// counterexamples) was found, as (global chunk, item within the
    /// chunk): a record or shard read back may list only instances of its
    /// own chunks ([`check_listed_places`]). None by default.
    fn listed_places(counts: &Self::Counts) -> Vec<(u64, u64)> {
        let _ = counts;
        Vec::new()
    }
    /// Drops from `record`, a chunk's counts about to be journalled, what
    /// can no longer reach the cell's result given `before`, the counts of
    /// the cell's chunks journalled before it (or counted from a record
    /// read back): a study that shows only a cell's first counterexamples
    /// need not journal a thousand more for every chunk. Nothing by
    /// default. Merging the trimmed record into `before` must give what
    /// merging it whole would.
    fn trim_record(&self, record: &mut Self::Counts, before: &Self::Counts) {
        let _ = (record, before);
    }
    /// Refuses a record read back whose trimming ([`Self::trim_record`])
    /// `before`, the cell's records before it in the journal, does not
    /// justify: an edited record could otherwise drop counterexamples the
    /// cell should show.
    fn check_trimmed(&self, record: &Self::Counts, before: &Self::Counts) -> Result<(), String> {
        let _ = (record, before);
        Ok(())
    }
    /// Whether `rerun`, a journalled chunk solved again (`--recheck`), is
    /// what its record `recorded` says. By default the two must serialise
    /// alike; a study whose older records lack a count it now keeps (read
    /// back as its default) says here how to compare them.
    fn same_counts(&self, recorded: &Self::Counts, rerun: &Self::Counts) -> bool {
        same_serialisation(recorded, rerun)
    }
}

/// Every check of counts of `cell` read back from a file (a checkpoint
/// record, a shard), which hold `items` instances of the chunks `holds`
/// says are theirs: the counts fit the items
/// ([`Workload::check_counts`]), and what they list in full lies within
/// their chunks ([`check_listed_places`]), and could have been listed
/// there ([`Workload::check_listed`]).
pub fn check_read_back<S: Workload>(
    study: &S,
    plan: &Plan,
    cell: usize,
    items: u64,
    counts: &S::Counts,
    holds: impl Fn(u64) -> bool,
) -> Result<(), String> {
    study.check_counts(cell, items, counts)?;
    check_listed_places::<S>(plan, cell, counts, holds)?;
    study.check_listed(plan, cell, counts)
}

/// Refuses counts of `cell` read back (a checkpoint record, a shard) that
/// list an instance ([`Workload::listed_places`]) outside the chunks they
/// are the counts of (`holds`, given a global chunk of the cell) or past
/// its chunk's end: a forged place would change which counterexamples a
/// table shows first.
pub fn check_listed_places<S: Workload>(
    plan: &Plan,
    cell: usize,
    counts: &S::Counts,
    holds: impl Fn(u64) -> bool,
) -> Result<(), String> {
    let range = plan.cell_range(cell);
    for (global, item) in S::listed_places(counts) {
        if !range.contains(&global) || !holds(global) {
            return Err(format!(
                "an instance listed in full is placed in chunk {global}, not one of these counts' chunks"
            ));
        }
        let len = plan.chunk(cell, global).len;
        if item >= len {
            return Err(format!(
                "an instance listed in full is placed at item {item} of chunk {global}, which holds {len}"
            ));
        }
    }
    Ok(())
}

/// Whether two counts serialise alike: what the checkpoint holds of them,
/// the default of [`Workload::same_counts`].
pub fn same_serialisation<C: Serialize>(recorded: &C, rerun: &C) -> bool {
    matches!(
        (serde_json::to_value(recorded), serde_json::to_value(rerun)),
        (Ok(a), Ok(b)) if a == b
    )
}

/// Every chunk of a workload, cell by cell, computed from the chunk index
/// rather than listed: a plan of 10^12 items takes the memory of a plan of
/// 10^6.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Per cell: (items, chunk size, global index of its first chunk).
    cells: Vec<(u64, u64, u64)>,
    /// Chunks in all.
    total: u64,
}

impl Plan {
    /// The plan of `study`'s cells.
    pub fn new<S: Workload>(study: &S) -> Plan {
        let sizes = study.cell_sizes();
        Plan::from_sizes(
            sizes
                .iter()
                .enumerate()
                .map(|(cell, &items)| (items, study.chunk_size(cell))),
        )
    }

    /// The plan of cells given as (items, chunk size).
    pub fn from_sizes(sizes: impl IntoIterator<Item = (u64, u64)>) -> Plan {
        let mut cells = Vec::new();
        let mut global = 0u64;
        for (items, size) in sizes {
            let size = size.max(1);
            cells.push((items, size, global));
            // Validation bounds every cell far below 2^64 chunks in all.
            global = global.saturating_add(items.div_ceil(size));
        }
        Plan {
            cells,
            total: global,
        }
    }

    /// Chunks in the whole plan.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// A plan with no chunk.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// Number of cells.
    pub fn cells(&self) -> usize {
        self.cells.len()
    }

    /// The global indices of `cell`'s chunks.
    pub fn cell_range(&self, cell: usize) -> std::ops::Range<u64> {
        let (items, size, first) = self.cells[cell];
        first..first + items.div_ceil(size)
    }

    /// The cell of global chunk `global`, if it is a chunk of the plan
    /// and of `shard`.
    pub fn cell_of(&self, global: u64, shard: Shard) -> Option<usize> {
        (0..self.cells())
            .find(|&c| self.cell_range(c).contains(&global))
            .filter(|_| shard.holds(global))
    }

    /// The chunk with global index `global` of `cell`.
    pub fn chunk(&self, cell: usize, global: u64) -> Chunk {
        let (items, size, first) = self.cells[cell];
        let start = (global - first) * size;
        Chunk {
            cell,
            global,
            start,
            len: size.min(items - start),
        }
    }

    /// Items in `shard`'s chunks of `cell`, by arithmetic rather than by
    /// visiting them: a sampled cell may have 2^52 chunks, and a sum over
    /// them kept a run busy for hours before its first chunk, deaf to
    /// SIGTERM. Only a cell's last chunk can be short, and it can only be
    /// the shard's last.
    pub fn items_of(&self, cell: usize, shard: Shard) -> u64 {
        let (_, size, _) = self.cells[cell];
        let (first, count) = shard.first_and_count(self.cell_range(cell));
        match count.checked_sub(1) {
            None => 0,
            Some(full) => full * size + self.chunk(cell, first + full * shard.count).len,
        }
    }

    /// Every chunk in order (for tests and small plans).
    pub fn chunks(&self) -> impl Iterator<Item = Chunk> + '_ {
        (0..self.cells.len())
            .flat_map(move |cell| self.cell_range(cell).map(move |g| self.chunk(cell, g)))
    }
}

/// Which chunks one process runs: shard `index` of `count` takes every chunk
/// whose global index is `index` modulo `count`. Round robin keeps shards
/// balanced when cells differ in cost, and the shards of any count
/// partition the plan.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Shards of the whole run.
    pub count: u64,
    /// This one, below `count`.
    pub index: u64,
}

impl Shard {
    /// The whole run as one shard.
    pub const WHOLE: Shard = Shard { count: 1, index: 0 };

    /// Whether global chunk `global` is this shard's.
    pub fn holds(self, global: u64) -> bool {
        global % self.count == self.index
    }

    /// This shard's first global chunk index within `range`, and how many
    /// of the range's chunks are this shard's (they are `count` apart).
    pub fn first_and_count(self, range: std::ops::Range<u64>) -> (u64, u64) {
        let offset = (self.index % self.count + self.count - range.start % self.count) % self.count;
        let first = range.start.saturating_add(offset);
        let n = if first >= range.end {
            0
        } else {
            (range.end - first).div_ceil(self.count)
        };
        (first, n)
    }

    /// This shard's global chunk indices within `range`, lazily.
    pub fn within(self, range: std::ops::Range<u64>) -> impl Iterator<Item = u64> {
        let (first, n) = self.first_and_count(range);
        (0..n).map(move |k| first + k * self.count)
    }

    /// How many of `plan`'s chunks are this shard's.
    pub fn chunks_of(self, plan: &Plan) -> u64 {
        (0..plan.cells())
            .map(|cell| self.first_and_count(plan.cell_range(cell)).1)
            .sum()
    }
}

/// Memory the OS says a new allocation can take without swapping
/// (`MemAvailable` of /proc/meminfo), or `None` where it does not say.
pub fn available_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// The share of `available` memory ([`available_memory`]) that the
/// runner's tables may take: three quarters, leaving the rest to the OS,
/// the page cache and whatever else the process holds. One rule for the
/// solvers' memos and `runner solve`'s check.
pub fn usable_share(available: u64) -> u64 {
    available / 4 * 3
}

/// The worker threads a run uses: `requested`, or one per core. Results
/// are the same for any count, so far more threads than cores only cost
/// memory (a worker and its memo each) and start-up time; a count past
/// eight per core (at least 64) is refused as a slip rather than honoured.
/// `runner plan` and a run share this, so the plan never accepts a count
/// the run would refuse.
pub fn worker_threads(requested: Option<u16>) -> Result<usize, String> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = requested.map_or(cores, usize::from);
    let most = (cores * 8).max(64);
    if threads > most {
        return Err(format!(
            "--threads: {threads} is more than {most} ({cores} cores here); results are identical for any count"
        ));
    }
    Ok(threads)
}

/// Options that change how a run executes but never what it computes.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Worker threads.
    pub threads: usize,
    /// How progress is shown.
    pub progress: progress::Mode,
}

/// Counts and timing for one cell.
pub struct CellResult<C> {
    /// The cell's merged counts.
    pub counts: C,
    /// Wall time spent on the cell in this process.
    pub elapsed: Duration,
    /// Instances evaluated in this process (not restored from a checkpoint).
    pub items: u64,
    /// The times of the chunks solved in this process, one by one.
    pub chunk_times: ChunkTimes,
}

/// What a run produced: every cell, or an interruption.
pub enum Outcome<C> {
    /// Every cell's counts.
    Complete(Vec<CellResult<C>>),
    /// A stop was requested; finished chunks are in the journal.
    Interrupted {
        /// Chunks finished (here or restored).
        chunks_done: usize,
        /// Chunks in the run (or shard).
        chunks_total: usize,
    },
}

/// Chunks a run did before it started, in its timing sample: recorded in
/// its journal like any other, with their counts (run details included,
/// which a journal does not keep) and their time held here, so the run
/// counts them as its own instead of doing them again.
pub struct Ahead<C> {
    chunks: HashSet<u64>,
    cells: Vec<CellResult<C>>,
    /// The chunk times of the last part run ahead ([`run_ahead`]).
    last_part: ChunkTimes,
}

impl<C: Default> Ahead<C> {
    /// How many chunks were done ahead.
    pub fn len(&self) -> u64 {
        self.chunks.len() as u64
    }

    /// No chunk done ahead.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// The times of the chunks the last [`run_ahead`] solved.
    pub fn last_part_times(&self) -> ChunkTimes {
        self.last_part
    }

    /// None yet, for a plan of `cells` cells.
    pub fn new(cells: usize) -> Self {
        Ahead {
            chunks: HashSet::new(),
            cells: (0..cells)
                .map(|_| CellResult {
                    counts: C::default(),
                    elapsed: Duration::ZERO,
                    items: 0,
                    chunk_times: ChunkTimes::default(),
                })
                .collect(),
            last_part: ChunkTimes::default(),
        }
    }
}

/// Runs `shard`'s chunks of `plan`. Chunks already in `journal` are not run
/// again; every chunk finished here is added to it before it counts. When
/// `stop` becomes true no new chunk starts.
pub fn run<S: Workload>(
    study: &S,
    plan: &Plan,
    shard: Shard,
    opts: &RunOptions,
    journal: Option<&mut Journal<S::Counts>>,
    stop: &AtomicBool,
) -> anyhow::Result<Outcome<S::Counts>> {
    let ahead = Ahead::new(plan.cells());
    run_chunks(
        study,
        plan,
        shard,
        opts,
        journal,
        Chunks::AllBut(ahead),
        stop,
    )
}

/// As [`run`], after `ahead`: its chunks (which must be in `journal`) are
/// counted from memory, with their time, as done in this process.
pub fn run_after<S: Workload>(
    study: &S,
    plan: &Plan,
    shard: Shard,
    opts: &RunOptions,
    journal: &mut Journal<S::Counts>,
    ahead: Ahead<S::Counts>,
    stop: &AtomicBool,
) -> anyhow::Result<Outcome<S::Counts>> {
    run_chunks(
        study,
        plan,
        shard,
        opts,
        Some(journal),
        Chunks::AllBut(ahead),
        stop,
    )
}

/// Runs `part`'s chunks of `plan` ahead of the run whose journal is
/// `journal` (`part` must lie within the run's shard): chunks already
/// journalled or in `ahead` are skipped, and every chunk finished here is
/// journalled and added to `ahead`, for [`run_after`]. Returns false if a
/// stop was requested.
pub fn run_ahead<S: Workload>(
    study: &S,
    plan: &Plan,
    part: Shard,
    opts: &RunOptions,
    journal: &mut Journal<S::Counts>,
    ahead: &mut Ahead<S::Counts>,
    stop: &AtomicBool,
) -> anyhow::Result<bool> {
    let outcome = run_chunks(
        study,
        plan,
        part,
        opts,
        Some(journal),
        Chunks::Ahead(ahead),
        stop,
    )?;
    Ok(matches!(outcome, Outcome::Complete(_)))
}

/// Runs `part`'s chunks of `plan` but those in `skip`, writing nothing: a
/// timing sample of what a stopped run has left (`runner plan` beside its
/// checkpoint). Returns how many chunks ran and their times, or `None` if a
/// stop was requested.
pub fn run_sample<S: Workload>(
    study: &S,
    plan: &Plan,
    part: Shard,
    opts: &RunOptions,
    skip: &HashSet<u64>,
    stop: &AtomicBool,
) -> anyhow::Result<Option<(u64, ChunkTimes)>> {
    // Chunks done ahead are skipped; those this sample runs join them.
    let mut ahead = Ahead::<S::Counts>::new(plan.cells());
    ahead.chunks = skip.clone();
    let outcome = run_chunks(
        study,
        plan,
        part,
        opts,
        None,
        Chunks::Ahead(&mut ahead),
        stop,
    )?;
    let ran = ahead.len() - skip.len() as u64;
    Ok(matches!(outcome, Outcome::Complete(_)).then_some((ran, ahead.last_part)))
}

/// A journal's finished chunks, merged into their cells.
pub struct Restored<C> {
    /// Per cell, the merged counts of its finished chunks.
    pub counts: Vec<C>,
    /// Per cell, the instances those chunks hold.
    pub items: Vec<u64>,
    /// Per cell, which chunks (global indices) they are.
    pub chunks: Vec<HashSet<u64>>,
}

impl<C: Default> Restored<C> {
    /// Nothing finished, for a plan of `cells` cells.
    fn none(cells: usize) -> Self {
        Restored {
            counts: (0..cells).map(|_| C::default()).collect(),
            items: vec![0; cells],
            chunks: (0..cells).map(|_| HashSet::new()).collect(),
        }
    }
}

/// Merges the chunks `finished` holds into their cells of `plan`, as a
/// resume counts them (merges are order-independent). Each must be a chunk
/// of `shard`, with counts such a chunk can have, and the chunks of a cell
/// must add up to counts their instances can have: a record edited with
/// its checksum recomputed is refused, naming the journal, instead of
/// being counted into a rate outside [0, 1].
pub fn restore<S: Workload>(
    study: &S,
    plan: &Plan,
    shard: Shard,
    finished: &Finished<S::Counts>,
) -> anyhow::Result<Restored<S::Counts>> {
    let cells = plan.cells();
    let mut restored = Restored::none(cells);
    let path = finished.path().display();
    finished.replay(|global, counts| {
        let Some(cell) = plan.cell_of(global, shard) else {
            return Err(crate::error::refuse(format!(
                "{path}: chunk {global} is not a chunk of this run's shard; {}",
                finished.edited()
            )));
        };
        let len = plan.chunk(cell, global).len;
        if let Err(problem) = check_read_back(study, plan, cell, len, &counts, |g| g == global)
            .and_then(|()| study.check_trimmed(&counts, &restored.counts[cell]))
        {
            return Err(crate::error::refuse(format!(
                "{path}: chunk {global}: {problem}; {}",
                finished.edited()
            )));
        }
        S::merge(&mut restored.counts[cell], counts);
        restored.items[cell] += len;
        restored.chunks[cell].insert(global);
        // Each record may fit its chunk while together they claim more
        // deals than the cell has. Checked after every merge, so no sum
        // grows past twice a cell's bound.
        if let Err(problem) = study.check_counts(cell, restored.items[cell], &restored.counts[cell])
        {
            return Err(crate::error::refuse(format!(
                "{path}: the chunks of cell {cell} up to chunk {global}: {problem}; {}",
                finished.edited()
            )));
        }
        Ok(())
    })?;
    Ok(restored)
}

/// Which chunks [`run_chunks`] runs, and what it counts.
enum Chunks<'a, C> {
    /// Every chunk of the shard: those journalled before are read back and
    /// counted, those in the [`Ahead`] counted from it, the rest run.
    AllBut(Ahead<C>),
    /// The chunks of a part of the shard that are neither journalled nor
    /// ahead already; each one run is added to the [`Ahead`].
    Ahead(&'a mut Ahead<C>),
}

fn run_chunks<S: Workload>(
    study: &S,
    plan: &Plan,
    shard: Shard,
    opts: &RunOptions,
    journal: Option<&mut Journal<S::Counts>>,
    chunks: Chunks<'_, S::Counts>,
    stop: &AtomicBool,
) -> anyhow::Result<Outcome<S::Counts>> {
    let (pool, workers) = pool_and_workers(study, opts.threads)?;
    let cells = plan.cells();
    // Done ahead: counted from memory (in a run), or skipped (ahead of it).
    let (ahead_chunks, mut ahead_cells, into_ahead) = match chunks {
        Chunks::AllBut(a) => (a.chunks, a.cells, None),
        Chunks::Ahead(a) => (a.chunks.clone(), Vec::new(), Some(a)),
    };
    let counting = into_ahead.is_none();
    let Restored {
        counts: merged_by_cell,
        items: restored_items,
        chunks: mut done_before,
    } = match journal.as_deref() {
        Some(j) if counting => restore(study, plan, shard, j.finished())?,
        _ => Restored::none(cells),
    };
    for &global in &ahead_chunks {
        if let Some(cell) = plan.cell_of(global, shard) {
            done_before[cell].insert(global);
        }
    }
    if let Some(j) = journal.as_deref().filter(|_| !counting) {
        for &global in j.done_chunks() {
            if let Some(cell) = plan.cell_of(global, shard) {
                done_before[cell].insert(global);
            }
        }
    }
    let journal = journal.map(Mutex::new);
    let mut results = Vec::with_capacity(cells);
    let mut chunks_done = 0;
    let chunks_total = shard.chunks_of(plan);
    let mut into_ahead = into_ahead;
    if let Some(ahead) = into_ahead.as_deref_mut() {
        ahead.last_part = ChunkTimes::default();
    }
    for (cell, (mut merged, done_before)) in merged_by_cell.into_iter().zip(done_before).enumerate()
    {
        chunks_done += done_before.len();
        let restored_items = restored_items[cell];
        let all_items = plan.items_of(cell, shard);
        // In a run, the chunks done ahead count as done here; ahead of it,
        // only the chunks run count.
        let mut elapsed_ahead = Duration::ZERO;
        let mut items_ahead = 0;
        let mut times_ahead = ChunkTimes::default();
        if let Some(done) = ahead_cells.get_mut(cell) {
            S::merge(&mut merged, std::mem::take(&mut done.counts));
            elapsed_ahead = done.elapsed;
            items_ahead = done.items;
            times_ahead = done.chunk_times;
        }
        let progress = Progress::start(
            &study.cell_label(cell),
            all_items,
            restored_items + items_ahead,
            opts.progress,
        );
        let started = Instant::now();
        let merged = Mutex::new(merged);
        let done_here = std::sync::atomic::AtomicUsize::new(0);
        let items_here = std::sync::atomic::AtomicU64::new(0);
        let chunk_times = Mutex::new(times_ahead);
        // Ahead of a run, which chunks ran, for the run to skip.
        let ran = Mutex::new(Vec::new());
        // This shard's chunks of the cell, as arithmetic on indices: no
        // list of them is ever built.
        let (first, count) = shard.first_and_count(plan.cell_range(cell));
        // A u64 range is not an indexed parallel iterator; a usize one is.
        let count = usize::try_from(count)?;
        // One job per chunk (`with_max_len(1)`): rayon otherwise cuts the
        // range into a few long runs that a thread works through alone, so
        // an idle thread cannot take over a chunk still waiting in another's
        // run. With chunks of uneven cost (26x26 deals differ 60x), one
        // thread then finished the last 105 of 1,000 chunks by itself.
        let outcome: Result<(), Halt> = pool.install(|| {
            (0..count)
                .into_par_iter()
                .with_max_len(1)
                .try_for_each(|k| {
                    let global = first + k as u64 * shard.count;
                    if stop.load(Ordering::Relaxed) {
                        return Err(Halt::Stopped);
                    }
                    if done_before.contains(&global) {
                        return Ok(());
                    }
                    let chunk = &plan.chunk(cell, global);
                    let _under_way = progress.begin(global);
                    let began = Instant::now();
                    let mut counts = solve_chunk(study, &workers, chunk, stop);
                    if stop.load(Ordering::Relaxed) {
                        return Err(Halt::Stopped);
                    }
                    let took = began.elapsed();
                    // One lock over trimming, journalling and merging: a
                    // record is trimmed only by counts journalled before it,
                    // which a resume then reads back before it.
                    // Trimming leaves the sum as it would be untrimmed.
                    let mut sum = merged.lock().expect("counts poisoned");
                    study.trim_record(&mut counts, &sum);
                    if let Some(j) = &journal {
                        j.lock()
                            .expect("journal poisoned")
                            .record(chunk.global, &counts)
                            .map_err(Halt::Failed)?;
                    }
                    S::merge(&mut sum, counts);
                    drop(sum);
                    done_here.fetch_add(1, Ordering::Relaxed);
                    chunk_times.lock().expect("chunk times poisoned").add(took);
                    items_here.fetch_add(chunk.len, Ordering::Relaxed);
                    if !counting {
                        ran.lock().expect("chunk list poisoned").push(chunk.global);
                    }
                    progress.add(chunk.len);
                    Ok(())
                })
        });
        progress.finish();
        if let Err(Halt::Failed(error)) = outcome {
            return Err(error);
        }
        chunks_done += done_here.load(Ordering::Relaxed);
        let result = CellResult {
            counts: merged.into_inner().expect("counts poisoned"),
            elapsed: started.elapsed() + elapsed_ahead,
            items: items_here.load(Ordering::Relaxed) + items_ahead,
            chunk_times: chunk_times.into_inner().expect("chunk times poisoned"),
        };
        // A cell run to its end must hold counts its items can produce,
        // exactly where the study knows them (every deal of the cell): a
        // chunk lost or counted twice between checkpoint, memory and run
        // would otherwise give a rate over the wrong deals, without a word.
        if counting
            && outcome.is_ok()
            && let Err(problem) = study.check_counts(cell, all_items, &result.counts)
        {
            anyhow::bail!(
                "{}: the counts of its {all_items} items do not fit them: {problem}; nothing was written (a bug in runner: please report it)",
                study.cell_label(cell)
            );
        }
        // Ahead of a run, what was done is kept even when a stop cut the
        // round short: it is journalled already.
        if let Some(ahead) = into_ahead.as_deref_mut() {
            ahead
                .chunks
                .extend(ran.into_inner().expect("chunk list poisoned"));
            let into = &mut ahead.cells[cell];
            S::merge(&mut into.counts, result.counts);
            into.elapsed += result.elapsed;
            into.items += result.items;
            into.chunk_times.merge(&result.chunk_times);
            ahead.last_part.merge(&result.chunk_times);
        } else {
            results.push(result);
        }
        // A stop that came after the cell's last chunk was journalled cut
        // nothing short: the cell is whole, and the next cell (if any) sees
        // the stop before its first chunk.
        if matches!(outcome, Err(Halt::Stopped)) {
            study.retire(into_workers(workers));
            return Ok(Outcome::Interrupted {
                chunks_done,
                chunks_total: chunks_total as usize,
            });
        }
    }
    study.retire(into_workers(workers));
    Ok(Outcome::Complete(results))
}

/// Why a cell's walk over its chunks ended early. A stop ends it as an
/// error would, at once: returning `Ok` for each chunk left instead walked
/// every remaining index, and a sampled cell can have 2^52 of them, so a
/// stopped run of that size never exited.
enum Halt {
    /// A stop was requested (SIGTERM, SIGINT).
    Stopped,
    /// Writing the journal failed.
    Failed(anyhow::Error),
}

/// A pool of `threads` threads and one worker for each, found by the
/// thread's index: rayon's map_init would make fresh workers per job split
/// and lose their memos.
fn pool_and_workers<S: Workload>(
    study: &S,
    threads: usize,
) -> anyhow::Result<(rayon::ThreadPool, Vec<Mutex<S::Worker>>)> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()?;
    let workers = (0..threads)
        .map(|_| Mutex::new(study.new_worker()))
        .collect();
    Ok((pool, workers))
}

/// Evaluates `chunk`'s instances, called on a thread of the pool whose
/// workers are `workers`. A stop request abandons the chunk between
/// instances (it is redone on resume), so a long chunk does not hold up a
/// stop; the caller checks `stop` before trusting the counts.
fn solve_chunk<S: Workload>(
    study: &S,
    workers: &[Mutex<S::Worker>],
    chunk: &Chunk,
    stop: &AtomicBool,
) -> S::Counts {
    let slot = rayon::current_thread_index().unwrap_or(0) % workers.len();
    let mut counts = S::Counts::default();
    let mut worker = workers[slot].lock().expect("worker poisoned");
    study.for_each_instance(chunk, |inst| {
        if !stop.load(Ordering::Relaxed) {
            study.evaluate(&mut worker, inst, &mut counts)
        }
    });
    counts
}

fn into_workers<W>(workers: Vec<Mutex<W>>) -> Vec<W> {
    workers
        .into_iter()
        .map(|w| w.into_inner().expect("worker poisoned"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy study: sums of item indices, to check planning and merging.
    struct Sums(Vec<u64>);

    impl Workload for Sums {
        type Instance = u64;
        type Counts = (u64, Vec<u64>);
        type Worker = ();
        fn cell_sizes(&self) -> Vec<u64> {
            self.0.clone()
        }
        fn chunk_size(&self, cell: usize) -> u64 {
            3 + cell as u64
        }
        fn cell_label(&self, cell: usize) -> String {
            format!("cell {cell}")
        }
        fn new_worker(&self) {}
        fn for_each_instance(&self, chunk: &Chunk, mut f: impl FnMut(&u64)) {
            for i in chunk.start..chunk.start + chunk.len {
                f(&i);
            }
        }
        fn evaluate(&self, _: &mut (), inst: &u64, counts: &mut (u64, Vec<u64>)) {
            counts.0 += inst;
            counts.1.push(*inst);
        }
        fn merge(into: &mut (u64, Vec<u64>), from: (u64, Vec<u64>)) {
            into.0 += from.0;
            into.1.extend(from.1);
            into.1.sort();
        }
    }

    fn quiet(threads: usize) -> RunOptions {
        RunOptions {
            threads,
            progress: progress::Mode::Quiet,
        }
    }

    #[test]
    fn plan_covers_every_item_once_in_fixed_chunks() {
        let study = Sums(vec![10, 0, 4]);
        let chunks: Vec<Chunk> = Plan::new(&study).chunks().collect();
        // Chunk sizes are 3 + cell: 10 items in chunks of 3, 4 items in one of 5.
        assert_eq!(chunks.len(), 4 + 1);
        assert_eq!(chunks.iter().map(|c| c.len).sum::<u64>(), 14);
        let lens: Vec<(usize, u64, u64)> =
            chunks.iter().map(|c| (c.cell, c.start, c.len)).collect();
        assert_eq!(
            lens,
            [(0, 0, 3), (0, 3, 3), (0, 6, 3), (0, 9, 1), (2, 0, 4)]
        );
        assert!(chunks.iter().enumerate().all(|(i, c)| c.global == i as u64));
    }

    #[test]
    fn shards_partition_the_plan() {
        let study = Sums(vec![50, 7, 31]);
        let plan = Plan::new(&study);
        for n in [1, 3, 7, 40] {
            let mut all: Vec<u64> = Vec::new();
            let mut counted = 0;
            for index in 0..n {
                let shard = Shard { count: n, index };
                let before = all.len();
                for cell in 0..plan.cells() {
                    all.extend(shard.within(plan.cell_range(cell)));
                }
                assert_eq!((all.len() - before) as u64, shard.chunks_of(&plan));
                counted += shard.chunks_of(&plan);
            }
            all.sort();
            assert_eq!(all, (0..plan.len()).collect::<Vec<_>>(), "{n} shards");
            assert_eq!(counted, plan.len());
        }
    }

    #[test]
    fn a_shards_items_are_its_chunks_lengths_summed() {
        let mut rng = crate::random::chunk_rng(19, 0);
        let mut below = |n: u64| crate::random::uniform_below(&mut rng, n);
        for _ in 0..2000 {
            let cells: Vec<(u64, u64)> = (0..1 + below(4))
                .map(|_| (below(200), 1 + below(20)))
                .collect();
            let plan = Plan::from_sizes(cells);
            let count = 1 + below(12);
            let shard = Shard {
                count,
                index: below(count),
            };
            for cell in 0..plan.cells() {
                let summed: u64 = shard
                    .within(plan.cell_range(cell))
                    .map(|g| plan.chunk(cell, g).len)
                    .sum();
                assert_eq!(plan.items_of(cell, shard), summed, "{plan:?} {shard:?}");
            }
        }
        // A cell of every item a u64 counts, in chunks of 4,096: answered
        // at once, where a sum over its chunks would take hours.
        let plan = Plan::from_sizes([(u64::MAX, 4096)]);
        let last = plan.chunk(0, plan.len() - 1);
        assert_eq!(last.start + last.len, u64::MAX);
        assert_eq!(plan.items_of(0, Shard::WHOLE), u64::MAX);
        let halves = [0, 1].map(|index| plan.items_of(0, Shard { count: 2, index }));
        assert_eq!(halves[0].checked_add(halves[1]), Some(u64::MAX));
    }

    #[test]
    fn merged_counts_are_the_same_for_any_thread_count() {
        let study = Sums(vec![50, 7]);
        let plan = Plan::new(&study);
        for threads in [1, 2, 5] {
            let Outcome::Complete(out) = run(
                &study,
                &plan,
                Shard::WHOLE,
                &quiet(threads),
                None,
                &AtomicBool::new(false),
            )
            .unwrap() else {
                panic!("not interrupted");
            };
            assert_eq!(out[0].counts.0, (0..50).sum::<u64>());
            assert_eq!(out[0].counts.1, (0..50).collect::<Vec<_>>());
            assert_eq!(out[1].counts.1, (0..7).collect::<Vec<_>>());
        }
    }

    /// Counts one per instance, but loses instance `lost` (a bug planted
    /// in the study's evaluation, as a chunk lost or counted twice between
    /// checkpoint and run would be in the engine).
    struct Tally {
        lost: Option<u64>,
    }

    impl Workload for Tally {
        type Instance = u64;
        type Counts = u64;
        type Worker = ();
        fn cell_sizes(&self) -> Vec<u64> {
            vec![20]
        }
        fn chunk_size(&self, _cell: usize) -> u64 {
            3
        }
        fn cell_label(&self, _cell: usize) -> String {
            "the cell".into()
        }
        fn new_worker(&self) {}
        fn for_each_instance(&self, chunk: &Chunk, mut f: impl FnMut(&u64)) {
            (chunk.start..chunk.start + chunk.len).for_each(|i| f(&i));
        }
        fn evaluate(&self, _: &mut (), inst: &u64, counts: &mut u64) {
            *counts += u64::from(self.lost != Some(*inst));
        }
        fn merge(into: &mut u64, from: u64) {
            *into += from;
        }
        fn check_counts(&self, _cell: usize, items: u64, counts: &u64) -> Result<(), String> {
            (*counts == items)
                .then_some(())
                .ok_or(format!("{counts} counted"))
        }
    }

    #[test]
    fn a_cell_whose_counts_do_not_fit_its_items_is_an_error_not_a_result() {
        for (lost, fits) in [(None, true), (Some(7), false), (Some(19), false)] {
            let study = Tally { lost };
            let plan = Plan::new(&study);
            let stop = AtomicBool::new(false);
            match run(&study, &plan, Shard::WHOLE, &quiet(2), None, &stop) {
                Ok(Outcome::Complete(out)) => {
                    assert!(fits, "{lost:?}");
                    assert_eq!(out[0].counts, 20);
                }
                Err(e) => {
                    assert!(!fits, "{lost:?}: {e}");
                    assert!(
                        e.to_string().contains(
                            "the cell: the counts of its 20 items do not fit them: 19 counted"
                        ),
                        "{e}"
                    );
                }
                Ok(_) => panic!("not interrupted"),
            }
        }
    }

    #[test]
    fn a_stop_request_starts_no_chunk() {
        let study = Sums(vec![50]);
        let plan = Plan::new(&study);
        let out = run(
            &study,
            &plan,
            Shard::WHOLE,
            &quiet(2),
            None,
            &AtomicBool::new(true),
        )
        .unwrap();
        assert!(matches!(out, Outcome::Interrupted { chunks_done: 0, .. }));
    }

    /// The stop of [`StopAfterMerging`]'s runs, set as its last chunk is
    /// merged: a stop that arrives once nothing is left to do.
    static STOP_AFTER_MERGING: AtomicBool = AtomicBool::new(false);

    /// Counts its items, in one cell of `items` or two, and requests a stop
    /// as it merges the `items`th.
    struct StopAfterMerging {
        cells: Vec<u64>,
    }

    impl Workload for StopAfterMerging {
        type Instance = u64;
        type Counts = u64;
        type Worker = ();
        fn cell_sizes(&self) -> Vec<u64> {
            self.cells.clone()
        }
        fn chunk_size(&self, _cell: usize) -> u64 {
            4
        }
        fn cell_label(&self, cell: usize) -> String {
            format!("cell {cell}")
        }
        fn new_worker(&self) {}
        fn for_each_instance(&self, chunk: &Chunk, mut f: impl FnMut(&u64)) {
            (chunk.start..chunk.start + chunk.len).for_each(|i| f(&i));
        }
        fn evaluate(&self, _: &mut (), _: &u64, counts: &mut u64) {
            *counts += 1;
        }
        fn merge(into: &mut u64, from: u64) {
            *into += from;
            if *into == 10 {
                STOP_AFTER_MERGING.store(true, Ordering::SeqCst);
            }
        }
    }

    #[test]
    fn a_stop_after_the_last_chunk_cuts_nothing_short() {
        // One thread, so that the 10th item is merged last in its cell.
        for (cells, whole) in [(vec![10], true), (vec![10, 8], false)] {
            STOP_AFTER_MERGING.store(false, Ordering::SeqCst);
            let study = StopAfterMerging {
                cells: cells.clone(),
            };
            let plan = Plan::new(&study);
            let out = run(
                &study,
                &plan,
                Shard::WHOLE,
                &quiet(1),
                None,
                &STOP_AFTER_MERGING,
            )
            .unwrap();
            match out {
                Outcome::Complete(out) => {
                    assert!(whole, "{cells:?}: a cell left undone");
                    assert_eq!(out[0].counts, 10);
                }
                // The second cell saw the stop before its first chunk.
                Outcome::Interrupted {
                    chunks_done,
                    chunks_total,
                } => {
                    assert!(!whole, "{cells:?}: the whole run, called interrupted");
                    assert_eq!((chunks_done, chunks_total), (3, 5));
                }
            }
        }
    }

    /// Counts that are the places of the instances they list.
    struct Listing;

    impl Workload for Listing {
        type Instance = u64;
        type Counts = Vec<(u64, u64)>;
        type Worker = ();
        fn cell_sizes(&self) -> Vec<u64> {
            vec![10, 7]
        }
        fn chunk_size(&self, _cell: usize) -> u64 {
            4
        }
        fn cell_label(&self, cell: usize) -> String {
            format!("cell {cell}")
        }
        fn new_worker(&self) {}
        fn for_each_instance(&self, _: &Chunk, _: impl FnMut(&u64)) {}
        fn evaluate(&self, _: &mut (), _: &u64, _: &mut Vec<(u64, u64)>) {}
        fn merge(into: &mut Vec<(u64, u64)>, from: Vec<(u64, u64)>) {
            into.extend(from);
        }
        fn listed_places(counts: &Vec<(u64, u64)>) -> Vec<(u64, u64)> {
            counts.clone()
        }
    }

    #[test]
    fn listed_instances_must_lie_in_the_counts_own_chunks() {
        // Cell 0 is chunks 0-2 (4, 4 and 2 items), cell 1 chunks 3-4 (4
        // and 3); shard 1 of 2 holds chunks 1 and 3.
        let plan = Plan::new(&Listing);
        let shard = Shard { count: 2, index: 1 };
        let of_shard = |g: u64| shard.holds(g);
        let check = |cell, places: Vec<(u64, u64)>| {
            check_listed_places::<Listing>(&plan, cell, &places, of_shard)
        };
        assert_eq!(check(0, vec![(1, 0), (1, 3)]), Ok(()));
        assert_eq!(check(1, vec![(3, 2)]), Ok(()));
        assert_eq!(check(0, vec![]), Ok(()));
        for (cell, place, problem) in [
            (0, (0, 0), "placed in chunk 0, not one of"),
            (0, (2, 0), "placed in chunk 2, not one of"),
            (0, (3, 0), "placed in chunk 3, not one of"),
            (1, (1, 0), "placed in chunk 1, not one of"),
            (1, (u64::MAX, 0), "not one of"),
            (0, (1, 4), "placed at item 4 of chunk 1, which holds 4"),
            (1, (3, 4), "placed at item 4 of chunk 3, which holds 4"),
        ] {
            let good = if cell == 0 { (1, 1) } else { (3, 1) };
            let said = check(cell, vec![good, place]).unwrap_err();
            assert!(said.contains(problem), "{place:?}: {said}");
        }
        // A record holds one chunk's instances only.
        let one = check_listed_places::<Listing>(&plan, 0, &vec![(1, 1)], |g| g == 0);
        assert!(one.is_err());
    }

    #[test]
    fn a_plan_of_a_trillion_items_is_as_small_as_any() {
        let study = Sums(vec![1_000_000_000_000, 5]);
        let plan = Plan::new(&study);
        // Chunks of 3 items in cell 0, of 4 in cell 1.
        assert_eq!(plan.len(), 1_000_000_000_000u64.div_ceil(3) + 2);
        let last = plan.chunk(0, plan.cell_range(0).end - 1);
        assert_eq!(last.start + last.len, 1_000_000_000_000);
        assert_eq!(plan.chunk(1, plan.cell_range(1).start).len, 4);
        assert_eq!(plan.chunk(1, plan.cell_range(1).start + 1).len, 1);
        let shard = Shard {
            count: 1000,
            index: 999,
        };
        assert_eq!(shard.within(plan.cell_range(1)).count() as u64, {
            let g = plan.cell_range(1).start;
            u64::from(g % 1000 == 999)
        });
    }

    /// One cell of six one-item chunks, each sleeping its item's
    /// milliseconds: chunks whose times are known, up to the scheduler.
    struct Sleeps(Vec<u64>);

    impl Workload for Sleeps {
        type Instance = u64;
        type Counts = u64;
        type Worker = ();
        fn cell_sizes(&self) -> Vec<u64> {
            vec![self.0.len() as u64]
        }
        fn chunk_size(&self, _cell: usize) -> u64 {
            1
        }
        fn cell_label(&self, _cell: usize) -> String {
            "sleeps".into()
        }
        fn new_worker(&self) {}
        fn for_each_instance(&self, chunk: &Chunk, mut f: impl FnMut(&u64)) {
            f(&self.0[chunk.start as usize]);
        }
        fn evaluate(&self, _: &mut (), millis: &u64, counts: &mut u64) {
            std::thread::sleep(Duration::from_millis(*millis));
            *counts += 1;
        }
        fn merge(into: &mut u64, from: u64) {
            *into += from;
        }
    }

    #[test]
    fn each_chunks_time_is_counted_once_and_the_slow_one_stands_out() {
        let study = Sleeps(vec![2, 2, 300, 2, 2, 2]);
        let plan = Plan::new(&study);
        let stop = AtomicBool::new(false);
        let Outcome::Complete(out) =
            run(&study, &plan, Shard::WHOLE, &quiet(2), None, &stop).unwrap()
        else {
            panic!("not interrupted");
        };
        let times = out[0].chunk_times;
        assert_eq!(times.count(), 6);
        assert!(times.slowest_secs() >= 0.3, "{times:?}");
        // Five of about 2 ms and one of 300: a typical chunk is under 10 ms
        // however slow the scheduler, the mean over 50.
        assert!(times.typical_secs() < 0.3 / 6.0, "{times:?}");
        assert!(times.mean_secs() >= 0.3 / 6.0, "{times:?}");
        // Run ahead of the run in two parts, then the rest: each part's
        // times are its own, and the run counts all six once.
        let path =
            std::env::temp_dir().join(format!("runner-chunk-times-{}.jsonl", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut journal = Journal::<u64>::open(&path, "sleeps", false).unwrap();
        let mut ahead = Ahead::new(plan.cells());
        let mut run_half = |index| {
            let half = Shard { count: 2, index };
            assert!(
                run_ahead(
                    &study,
                    &plan,
                    half,
                    &quiet(2),
                    &mut journal,
                    &mut ahead,
                    &stop
                )
                .unwrap()
            );
            ahead.last_part_times()
        };
        // Chunks 0, 2 and 4, the slow one among them; then 1, 3 and 5.
        let first = run_half(0);
        assert_eq!(first.count(), 3);
        assert!(first.slowest_secs() >= 0.3);
        let second = run_half(1);
        assert_eq!(second.count(), 3);
        assert!(second.slowest_secs() < 0.3);
        let Outcome::Complete(out) = run_after(
            &study,
            &plan,
            Shard::WHOLE,
            &quiet(2),
            &mut journal,
            ahead,
            &stop,
        )
        .unwrap() else {
            panic!("not interrupted");
        };
        assert_eq!((out[0].counts, out[0].chunk_times.count()), (6, 6));
        assert!(out[0].chunk_times.slowest_secs() >= 0.3);
        drop(journal);
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_sample_of_what_a_run_has_left_skips_the_chunks_done() {
        let study = Sleeps(vec![2, 2, 300, 2, 2, 2]);
        let plan = Plan::new(&study);
        let stop = AtomicBool::new(false);
        let sample = |part, skip: &[u64]| {
            let skip = skip.iter().copied().collect();
            run_sample(&study, &plan, part, &quiet(2), &skip, &stop)
                .unwrap()
                .unwrap()
        };
        // Nothing done: all six, the slow one among them.
        let (ran, times) = sample(Shard::WHOLE, &[]);
        assert_eq!((ran, times.count()), (6, 6));
        assert!(times.slowest_secs() >= 0.3, "{times:?}");
        // The slow chunk done: five run, none slow.
        let (ran, times) = sample(Shard::WHOLE, &[2]);
        assert_eq!((ran, times.count()), (5, 5));
        assert!(times.slowest_secs() < 0.3, "{times:?}");
        // Within a part: chunks 1, 3 and 5, of which 3 is done (and 0,
        // done too, is not the part's).
        let (ran, _) = sample(Shard { count: 2, index: 1 }, &[0, 3]);
        assert_eq!(ran, 2);
        // Everything done: nothing runs.
        assert_eq!(sample(Shard::WHOLE, &[0, 1, 2, 3, 4, 5]).0, 0);
    }
}
