//! The generic engine: cuts a study's work into fixed chunks, runs them on a
//! rayon pool, reports progress and merges counts in chunk order.
//!
//! It knows nothing about any game. Chunks are fixed by the study and the
//! config alone, never by the thread count, which is what makes results
//! byte-identical for any number of threads.

pub mod progress;

use progress::Progress;
use rayon::prelude::*;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// One fixed piece of work: items `start..start + len` of one cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk {
    /// Which cell (row of the output) the chunk belongs to.
    pub cell: usize,
    /// Position of the chunk within its cell.
    pub index: u64,
    /// Position of the chunk in the whole run, cell-major; seeds random streams.
    pub global: u64,
    /// First item of the cell that the chunk covers.
    pub start: u64,
    /// Number of items in the chunk.
    pub len: u64,
}

/// A theorem checked at scale: it produces instances, evaluates each one, and
/// merges counts. Everything game-specific lives behind this trait.
pub trait Study: Sync {
    /// One thing to check, such as one deal.
    type Instance;
    /// What evaluating instances accumulates. Merging must be exact (integer
    /// counts, lists appended in order) so that any split gives one result.
    type Counts: Default + Send;
    /// Per-thread scratch state, such as a memo, kept across chunks.
    type Worker: Send;

    /// Number of instances in each cell, in output order.
    fn cell_sizes(&self) -> Vec<u64>;
    /// Instances per chunk; a constant of the study, part of its determinism.
    fn chunk_size(&self) -> u64;
    /// A human label for a cell, for progress lines.
    fn cell_label(&self, cell: usize) -> String;
    fn new_worker(&self) -> Self::Worker;
    /// Calls `f` on each instance of the chunk, in a fixed order.
    fn for_each_instance(&self, chunk: &Chunk, f: impl FnMut(&Self::Instance));
    fn evaluate(
        &self,
        worker: &mut Self::Worker,
        instance: &Self::Instance,
        counts: &mut Self::Counts,
    );
    /// Folds `from` into `into`; `from` always comes from later chunks.
    fn merge(into: &mut Self::Counts, from: Self::Counts);
}

/// Every chunk of a study, cell by cell.
pub fn plan<S: Study>(study: &S) -> Vec<Chunk> {
    let size = study.chunk_size().max(1);
    let mut chunks = Vec::new();
    let mut global = 0;
    for (cell, &items) in study.cell_sizes().iter().enumerate() {
        let mut start = 0;
        let mut index = 0;
        while start < items {
            let len = size.min(items - start);
            chunks.push(Chunk {
                cell,
                index,
                global,
                start,
                len,
            });
            start += len;
            index += 1;
            global += 1;
        }
    }
    chunks
}

/// Options that change how a run executes but never what it computes.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub threads: usize,
    pub progress: progress::Mode,
}

/// Counts and timing for one cell.
pub struct CellResult<C> {
    pub counts: C,
    pub elapsed: Duration,
    pub items: u64,
}

/// Runs the given chunks (a whole plan, or one shard of it) and returns the
/// merged counts of every cell, in chunk order.
pub fn run<S: Study>(
    study: &S,
    chunks: &[Chunk],
    opts: &RunOptions,
) -> anyhow::Result<Vec<CellResult<S::Counts>>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(opts.threads)
        .build()?;
    // One worker per pool thread, found by the thread's index: rayon's
    // map_init would make fresh workers per job split and lose the memo.
    let workers: Vec<Mutex<S::Worker>> = (0..opts.threads)
        .map(|_| Mutex::new(study.new_worker()))
        .collect();
    let cells = study.cell_sizes().len();
    let mut results = Vec::with_capacity(cells);
    for cell in 0..cells {
        let mine: Vec<&Chunk> = chunks.iter().filter(|c| c.cell == cell).collect();
        let items: u64 = mine.iter().map(|c| c.len).sum();
        let progress = Progress::start(&study.cell_label(cell), items, opts.progress);
        let started = Instant::now();
        let partials: Vec<S::Counts> = pool.install(|| {
            mine.par_iter()
                .map(|chunk| {
                    let slot = rayon::current_thread_index().unwrap_or(0) % workers.len();
                    let mut worker = workers[slot].lock().expect("worker poisoned");
                    let mut counts = S::Counts::default();
                    study.for_each_instance(chunk, |inst| {
                        study.evaluate(&mut worker, inst, &mut counts)
                    });
                    progress.add(chunk.len);
                    counts
                })
                .collect()
        });
        let elapsed = started.elapsed();
        progress.finish();
        let mut merged = S::Counts::default();
        for p in partials {
            S::merge(&mut merged, p);
        }
        results.push(CellResult {
            counts: merged,
            elapsed,
            items,
        });
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A toy study: sums of item indices, to check planning and merging.
    struct Sums(Vec<u64>);

    impl Study for Sums {
        type Instance = u64;
        type Counts = (u64, Vec<u64>);
        type Worker = ();
        fn cell_sizes(&self) -> Vec<u64> {
            self.0.clone()
        }
        fn chunk_size(&self) -> u64 {
            3
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
        }
    }

    #[test]
    fn plan_covers_every_item_once_in_fixed_chunks() {
        let study = Sums(vec![10, 0, 4]);
        let chunks = plan(&study);
        assert_eq!(chunks.len(), 4 + 2);
        assert_eq!(chunks.iter().map(|c| c.len).sum::<u64>(), 14);
        assert!(chunks.iter().enumerate().all(|(i, c)| c.global == i as u64));
    }

    #[test]
    fn merged_counts_keep_order_for_any_thread_count() {
        let study = Sums(vec![50, 7]);
        let chunks = plan(&study);
        for threads in [1, 2, 5] {
            let opts = RunOptions {
                threads,
                progress: progress::Mode::Quiet,
            };
            let out = run(&study, &chunks, &opts).unwrap();
            assert_eq!(out[0].counts.0, (0..50).sum::<u64>());
            assert_eq!(out[0].counts.1, (0..50).collect::<Vec<_>>());
            assert_eq!(out[1].counts.1, (0..7).collect::<Vec<_>>());
        }
    }
}
