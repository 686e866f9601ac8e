//! The generic engine: cuts a study's work into fixed chunks, runs them on a
//! rayon pool, reports progress, journals finished chunks, and merges counts.
//!
//! It knows nothing about any game. Chunks are fixed by the study and the
//! config alone, never by the thread count or the number of shards, which is
//! what makes results byte-identical for any number of threads or shards.

pub mod journal;
pub mod progress;

use journal::Journal;
use progress::Progress;
use rayon::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
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
    /// Fresh per-thread scratch, such as a solver.
    fn new_worker(&self) -> Self::Worker;
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
}

/// Every chunk of a study, cell by cell.
pub fn plan<S: Workload>(study: &S) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut global = 0;
    for (cell, &items) in study.cell_sizes().iter().enumerate() {
        let size = study.chunk_size(cell).max(1);
        let mut start = 0;
        while start < items {
            let len = size.min(items - start);
            chunks.push(Chunk {
                cell,
                global,
                start,
                len,
            });
            start += len;
            global += 1;
        }
    }
    chunks
}

/// Shard `index` of `count`: every chunk whose global index is `index`
/// modulo `count`. Round robin keeps shards balanced when cells differ in
/// cost, and the shards of any count partition the plan.
pub fn shard(chunks: &[Chunk], count: u64, index: u64) -> Vec<Chunk> {
    chunks
        .iter()
        .filter(|c| c.global % count == index)
        .copied()
        .collect()
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

/// Runs the given chunks (a whole plan, or one shard of it). Chunks already
/// in `journal` are not run again; every chunk finished here is added to it
/// before it counts. When `stop` becomes true no new chunk starts.
pub fn run<S: Workload>(
    study: &S,
    chunks: &[Chunk],
    opts: &RunOptions,
    mut journal: Option<&mut Journal<S::Counts>>,
    stop: &AtomicBool,
) -> anyhow::Result<Outcome<S::Counts>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()?;
    // One worker per pool thread, found by the thread's index: rayon's
    // map_init would make fresh workers per job split and lose their memos.
    let workers: Vec<Mutex<S::Worker>> = (0..opts.threads)
        .map(|_| Mutex::new(study.new_worker()))
        .collect();
    let mut restored: HashMap<u64, S::Counts> = match journal.as_mut() {
        Some(j) => j.take_restored(),
        None => HashMap::new(),
    };
    let journal = journal.map(Mutex::new);
    let cells = study.cell_sizes().len();
    let mut results = Vec::with_capacity(cells);
    let mut chunks_done = 0;
    for cell in 0..cells {
        let mine: Vec<&Chunk> = chunks.iter().filter(|c| c.cell == cell).collect();
        let mut merged = S::Counts::default();
        let mut todo = Vec::new();
        let mut restored_items = 0;
        for c in &mine {
            match restored.remove(&c.global) {
                Some(counts) => {
                    S::merge(&mut merged, counts);
                    restored_items += c.len;
                    chunks_done += 1;
                }
                None => todo.push(*c),
            }
        }
        let items: u64 = todo.iter().map(|c| c.len).sum();
        let progress = Progress::start(
            &study.cell_label(cell),
            items + restored_items,
            opts.progress,
        );
        progress.add(restored_items);
        let started = Instant::now();
        let merged = Mutex::new(merged);
        let done_here = std::sync::atomic::AtomicUsize::new(0);
        let outcome: anyhow::Result<()> = pool.install(|| {
            todo.par_iter().try_for_each(|chunk| {
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
                let slot = rayon::current_thread_index().unwrap_or(0) % workers.len();
                let mut counts = S::Counts::default();
                {
                    let mut worker = workers[slot].lock().expect("worker poisoned");
                    study.for_each_instance(chunk, |inst| {
                        study.evaluate(&mut worker, inst, &mut counts)
                    });
                }
                if let Some(j) = &journal {
                    j.lock()
                        .expect("journal poisoned")
                        .record(chunk.global, &counts)?;
                }
                S::merge(&mut merged.lock().expect("counts poisoned"), counts);
                done_here.fetch_add(1, Ordering::Relaxed);
                progress.add(chunk.len);
                Ok(())
            })
        });
        progress.finish();
        outcome?;
        chunks_done += done_here.load(Ordering::Relaxed);
        if stop.load(Ordering::Relaxed) {
            return Ok(Outcome::Interrupted {
                chunks_done,
                chunks_total: chunks.len(),
            });
        }
        results.push(CellResult {
            counts: merged.into_inner().expect("counts poisoned"),
            elapsed: started.elapsed(),
            items,
        });
    }
    Ok(Outcome::Complete(results))
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
        let chunks = plan(&study);
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
        let chunks = plan(&study);
        for n in [1, 3, 7, 40] {
            let mut all: Vec<u64> = (0..n)
                .flat_map(|i| shard(&chunks, n, i))
                .map(|c| c.global)
                .collect();
            all.sort();
            assert_eq!(
                all,
                (0..chunks.len() as u64).collect::<Vec<_>>(),
                "{n} shards"
            );
        }
    }

    #[test]
    fn merged_counts_are_the_same_for_any_thread_count() {
        let study = Sums(vec![50, 7]);
        let chunks = plan(&study);
        for threads in [1, 2, 5] {
            let Outcome::Complete(out) = run(
                &study,
                &chunks,
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

    #[test]
    fn a_stop_request_starts_no_chunk() {
        let study = Sums(vec![50]);
        let chunks = plan(&study);
        let out = run(&study, &chunks, &quiet(2), None, &AtomicBool::new(true)).unwrap();
        assert!(matches!(out, Outcome::Interrupted { chunks_done: 0, .. }));
    }
}
