//! Solving a few journalled chunks again before a resume trusts the rest
//! (`--recheck N`).
//!
//! A checkpoint's checksums catch a cut or garbled line, and a study's
//! count checks catch counts no chunk could have. Neither can tell a
//! plausible count, edited with its checksum recomputed, from a true one;
//! nor a chunk recorded by a build whose results differ from this one's,
//! since the fingerprint names the crate's version, not its commit. Solving
//! a few chunks again, picked at random where an editor cannot foresee
//! them, and comparing them record for record, can.

use super::journal::Finished;
use super::{Plan, RunOptions, Shard, Workload, into_workers, pool_and_workers, solve_chunk};
use crate::random::{chunk_rng, uniform_below};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// How a recheck ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Rechecked {
    /// Every chunk picked came out as its record says.
    Identical,
    /// A stop was requested before every chunk picked was solved again.
    Stopped,
}

/// Up to `wanted` distinct chunks of `done`, picked at random from
/// `entropy` (a partial Fisher–Yates shuffle), sorted.
pub fn pick(done: &[u64], wanted: u64, entropy: u64) -> Vec<u64> {
    let mut pool = done.to_vec();
    pool.sort_unstable();
    pool.dedup();
    let take = pool
        .len()
        .min(usize::try_from(wanted).unwrap_or(usize::MAX));
    let mut rng = chunk_rng(entropy, 0);
    for i in 0..take {
        let j = i + uniform_below(&mut rng, (pool.len() - i) as u64) as usize;
        pool.swap(i, j);
    }
    pool.truncate(take);
    pool.sort_unstable();
    pool
}

/// Up to `wanted` distinct chunks of `parts` (each one shard's finished
/// chunks), sorted: one from each part first, when `wanted` reaches that
/// far, then the rest at random among all ([`pick`]). A shard whose every
/// record is wrong (written by a node whose build differs) is then found
/// for sure, not with the chance its share of the chunks gives.
pub fn pick_across(parts: &[&[u64]], wanted: u64, entropy: u64) -> Vec<u64> {
    let filled: Vec<&[u64]> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    if wanted < filled.len() as u64 {
        let all: Vec<u64> = filled.concat();
        return pick(&all, wanted, entropy);
    }
    // Shards hold distinct chunks, so one pick of each are distinct too.
    let mut picks: Vec<u64> = filled
        .iter()
        .enumerate()
        .flat_map(|(i, part)| pick(part, 1, entropy ^ (i as u64 + 1)))
        .collect();
    picks.sort_unstable();
    let rest: Vec<u64> = filled
        .concat()
        .into_iter()
        .filter(|c| picks.binary_search(c).is_err())
        .collect();
    picks.extend(pick(&rest, wanted - picks.len() as u64, entropy));
    picks.sort_unstable();
    picks
}

/// A seed no one can foresee: the standard library seeds each
/// `RandomState` from the operating system's randomness.
pub fn unforeseeable_seed() -> u64 {
    use std::hash::BuildHasher;
    std::collections::hash_map::RandomState::new().hash_one(0u8)
}

/// Solves `picks` (sorted), chunks `finished` holds, again on fresh workers (handed
/// to [`Workload::retire`] after, as any round's are) and compares each
/// with its record by [`Workload::same_counts`]. A chunk that differs is
/// refused, naming the checkpoint and the chunk: the rest of that file
/// cannot be trusted either.
pub fn recheck<S: Workload>(
    study: &S,
    plan: &Plan,
    shard: Shard,
    finished: &Finished<S::Counts>,
    picks: &[u64],
    opts: &RunOptions,
    stop: &AtomicBool,
) -> anyhow::Result<Rechecked> {
    let mut recorded: HashMap<u64, S::Counts> = HashMap::new();
    finished.replay(|global, counts| {
        if picks.binary_search(&global).is_ok() {
            recorded.insert(global, counts);
        }
        Ok(())
    })?;
    let path = finished.path().display();
    let mut chunks = Vec::with_capacity(picks.len());
    for &global in picks {
        // As a resume's count of the records would refuse it, after this.
        let cell = plan.cell_of(global, shard).ok_or_else(|| {
            crate::error::refuse(format!(
                "{path}: chunk {global} is not a chunk of this run's shard; {}",
                finished.edited()
            ))
        })?;
        anyhow::ensure!(
            recorded.contains_key(&global),
            "chunk {global} is not a recorded chunk of {path} (a bug)"
        );
        chunks.push(plan.chunk(cell, global));
    }
    let (pool, workers) = pool_and_workers(study, opts.threads)?;
    let rerun = Mutex::new(Vec::with_capacity(chunks.len()));
    pool.install(|| {
        chunks.par_iter().with_max_len(1).for_each(|chunk| {
            if stop.load(Ordering::Relaxed) {
                return;
            }
            let counts = solve_chunk(study, &workers, chunk, stop);
            if !stop.load(Ordering::Relaxed) {
                rerun
                    .lock()
                    .expect("list poisoned")
                    .push((chunk.global, counts));
            }
        })
    });
    study.retire(into_workers(workers));
    let mut differing: Vec<u64> = rerun
        .into_inner()
        .expect("list poisoned")
        .into_iter()
        .filter(|(global, counts)| !study.same_counts(&recorded[global], counts))
        .map(|(global, _)| global)
        .collect();
    differing.sort_unstable();
    if let Some(first) = differing.first() {
        return Err(crate::error::refuse(format!(
            "{path}: chunk {first} came out differently when solved again ({} of {} rechecked chunks did); {}",
            differing.len(),
            picks.len(),
            finished.differs()
        )));
    }
    if stop.load(Ordering::Relaxed) {
        return Ok(Rechecked::Stopped);
    }
    Ok(Rechecked::Identical)
}

#[cfg(test)]
mod tests {
    use super::{pick, pick_across};

    /// One chunk of each shard first, then any: a shard is never left out
    /// when there are picks enough for each.
    #[test]
    fn picks_across_shards_reach_every_shard_when_they_can() {
        let shards: Vec<Vec<u64>> = (0..5u64)
            .map(|s| (0..40).map(|k| k * 5 + s).collect())
            .collect();
        let parts: Vec<&[u64]> = shards.iter().map(Vec::as_slice).collect();
        for seed in 0..50 {
            for wanted in [5u64, 7, 12] {
                let picks = pick_across(&parts, wanted, seed);
                assert_eq!(picks.len() as u64, wanted, "{picks:?}");
                assert!(picks.windows(2).all(|w| w[0] < w[1]), "{picks:?}");
                for s in 0..5 {
                    assert!(picks.iter().any(|c| c % 5 == s), "shard {s}: {picks:?}");
                }
            }
            let few = pick_across(&parts, 3, seed);
            assert_eq!(few.len(), 3);
            assert!(few.iter().all(|c| *c < 200), "{few:?}");
        }
        // An empty shard is no part; more wanted than there are: all.
        let with_empty = [&[3u64, 9][..], &[], &[4]];
        assert_eq!(pick_across(&with_empty, 2, 1).len(), 2);
        assert_eq!(pick_across(&with_empty, 10, 1), vec![3, 4, 9]);
        assert!(pick_across(&[], 4, 0).is_empty());
        // One part: distinct chunks of it.
        let one = pick_across(&parts[..1], 6, 9);
        assert_eq!(one.len(), 6);
        assert!(one.iter().all(|c| parts[0].contains(c)), "{one:?}");
    }

    #[test]
    fn picks_are_distinct_chunks_of_the_checkpoint_and_vary_with_the_seed() {
        let done: Vec<u64> = (0..50).map(|k| k * 3 + 1).collect();
        let a = pick(&done, 5, 1);
        assert_eq!(a.len(), 5);
        assert!(a.windows(2).all(|w| w[0] < w[1]), "{a:?}");
        assert!(a.iter().all(|c| done.contains(c)), "{a:?}");
        let seen: std::collections::HashSet<Vec<u64>> =
            (0..20).map(|seed| pick(&done, 5, seed)).collect();
        assert!(seen.len() > 15, "20 seeds gave {} picks", seen.len());
        assert_eq!(pick(&done, 500, 7), done, "more wanted than done: all");
        assert_eq!(pick(&[4, 4, 2], 9, 0), vec![2, 4]);
        assert!(pick(&[], 3, 0).is_empty());
        assert!(pick(&done, 0, 0).is_empty());
    }
}
