//! Solving chunks again from their records (`--recheck N`): a resume's
//! of its checkpoint, a merge's of its shards' kept records.

use super::context::RunContext;
use crate::engine::{self, journal};
use crate::export::manifest;
use crate::study::Study;

/// How [`solve_again`] ended.
pub(super) enum Solved {
    /// There was no finished chunk to solve.
    Nothing,
    /// A stop came first.
    Stopped,
    /// Every chunk picked came out as recorded.
    AsRecorded(manifest::RecheckPassed),
}

/// Solves `ctx.recheck` of the chunks that `parts` (each a shard's
/// records) hold again, picked at random, one from each shard first
/// ([`engine::recheck::pick_across`]), and refuses
/// the records if one differs ([`engine::recheck`]). Says which it solves
/// (`whose` chunks: "the checkpoint's"), even when quiet: the user asked
/// for the check, and its line is its verdict.
pub(super) fn solve_again<S: Study>(
    study: &S,
    plan: &engine::Plan,
    parts: &[(engine::Shard, &journal::Finished<S::Counts>)],
    whose: &str,
    opts: &engine::RunOptions,
    ctx: &RunContext,
) -> anyhow::Result<Solved> {
    let seed = engine::recheck::unforeseeable_seed();
    let each: Vec<&[u64]> = parts.iter().map(|(_, f)| f.chunks()).collect();
    let done = each.iter().map(|c| c.len() as u64).sum::<u64>();
    let picks = engine::recheck::pick_across(&each, ctx.recheck, seed);
    if picks.is_empty() {
        eprintln!("--recheck: {whose} records hold no finished chunk; nothing to solve again");
        return Ok(Solved::Nothing);
    }
    let mut named: Vec<String> = picks.iter().take(10).map(|c| c.to_string()).collect();
    if picks.len() > named.len() {
        named.push(format!("and {} more", picks.len() - named.len()));
    }
    eprintln!(
        "--recheck: solving {} of {whose} {} chunks again ({})",
        picks.len(),
        crate::export::grouped(done),
        named.join(", ")
    );
    let started = std::time::Instant::now();
    let started_unix = manifest::unix_now();
    for &(shard, finished) in parts {
        let own: Vec<u64> = picks.iter().copied().filter(|&g| shard.holds(g)).collect();
        if own.is_empty() {
            continue;
        }
        let found = engine::recheck::recheck(study, plan, shard, finished, &own, opts, &ctx.stop)?;
        if found == engine::recheck::Rechecked::Stopped {
            return Ok(Solved::Stopped);
        }
    }
    let seconds = started.elapsed().as_secs_f64();
    eprintln!(
        "--recheck: each of the {} came out as recorded ({seconds:.1} s)",
        picks.len()
    );
    Ok(Solved::AsRecorded(manifest::RecheckPassed {
        started: manifest::iso_utc(started_unix),
        of_chunks: done,
        chunks: picks,
        git_commit: manifest::GIT_COMMIT.into(),
        seconds: (seconds * 10.0).round() / 10.0,
        shard_index: None,
    }))
}
