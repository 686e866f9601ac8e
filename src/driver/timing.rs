//! Timed samples of a run: `runner plan`'s estimate, and the warning
//! before a run of over an hour.

use super::context::RunContext;
use crate::config::Config;
use crate::engine::{self, ChunkTimes, journal::Journal, progress};
use crate::study::{BuildContext, EstimateBias, Study};
use std::collections::HashSet;
use std::time::Instant;

/// A short timed sample of a run, for `runner plan`'s estimate.
#[derive(Clone, Copy, Debug)]
pub struct Calibration {
    /// Seconds to build the study (tables, memo).
    pub build_seconds: f64,
    /// Chunks run in the sample: evenly spaced over the whole plan, so
    /// every cell is sampled in proportion to its chunks.
    pub chunks_run: u64,
    /// Chunks in the whole run.
    pub chunks_total: u64,
    /// Wall seconds the sample took on the run's threads.
    pub seconds: f64,
    /// The sampled chunks' own times, one by one.
    pub chunk_times: ChunkTimes,
}

impl Calibration {
    /// Estimated wall seconds of the whole run on the same threads.
    pub fn estimate(&self) -> f64 {
        self.build_seconds + self.seconds / self.chunks_run.max(1) as f64 * self.chunks_total as f64
    }
}

/// Which chunks a plan times: the whole run's, or those a stopped run (or
/// one shard of it) has left.
#[derive(Clone, Debug)]
pub struct ToTime {
    /// The shard whose chunks are timed.
    pub shard: engine::Shard,
    /// Chunks its checkpoint has done, left out of the sample and of the
    /// estimate.
    pub done: HashSet<u64>,
}

impl ToTime {
    /// Every chunk of the run.
    pub fn whole_run() -> ToTime {
        ToTime {
            shard: engine::Shard::WHOLE,
            done: HashSet::new(),
        }
    }
}

/// Builds study `S` and times evenly spaced chunks of `what`'s part of its
/// plan, more each round, until a round takes a quarter of `budget` or
/// every chunk has run. Nothing is written.
pub fn calibrate<S: Study>(
    config: &Config,
    ctx: &RunContext,
    budget: std::time::Duration,
    what: &ToTime,
) -> anyhow::Result<Calibration> {
    let built = Instant::now();
    let build = BuildContext {
        timing_sample: true,
        ..ctx.build_context()
    };
    let study = S::build(config, &build)?;
    let build_seconds = built.elapsed().as_secs_f64();
    let plan = engine::Plan::new(&study);
    // The run's memory bounds the sample's (whose memo leaves out the
    // endgame table): a larger allowance only lets a slow first round go
    // untimed, and the plan gives up on a sample that runs too long.
    let warm_up = WarmUp::of_run::<S>(config, ctx.threads);
    let Some(Sample {
        chunks_run,
        seconds,
        chunk_times,
    }) = time_sample(
        &study,
        &plan,
        what.shard,
        SampleKeep::Nothing { skip: &what.done },
        ctx,
        budget,
        warm_up,
    )?
    else {
        anyhow::bail!("stopped during calibration");
    };
    let part = what.shard.chunks_of(&plan);
    let done = (what.done.iter())
        .filter(|&&global| plan.cell_of(global, what.shard).is_some())
        .count() as u64;
    Ok(Calibration {
        build_seconds,
        chunks_run,
        chunks_total: part.saturating_sub(done),
        seconds,
        chunk_times,
    })
}

/// What a timing sample's last round took.
pub(super) struct Sample {
    /// Chunks run in the round.
    pub chunks_run: u64,
    /// The round's wall seconds on the run's threads.
    pub seconds: f64,
    /// Its chunks' own times.
    pub chunk_times: ChunkTimes,
}

/// What a timing sample does with the chunks it runs.
pub(super) enum SampleKeep<'a, C> {
    /// Keeps them for the run: journalled, and kept in the [`engine::Ahead`]
    /// as counts and time the run will count as its own.
    ForTheRun(&'a mut Journal<C>, &'a mut engine::Ahead<C>),
    /// Writes nothing, and leaves out the chunks a stopped run has done.
    Nothing {
        /// Those chunks.
        skip: &'a HashSet<u64>,
    },
}

/// Runs evenly spaced chunks of `run_shard`'s part of `plan` quietly, more
/// each round, until a round takes a quarter of `budget` or every chunk has
/// run; returns what the last round took, or `None` if a stop was
/// requested meanwhile. With [`SampleKeep::ForTheRun`], the chunks run
/// are journalled and kept, so the run counts them instead of doing them
/// again (a chunk of a 26x26 deal under 11-back can take an hour); with
/// [`SampleKeep::Nothing`], nothing is written.
pub(super) fn time_sample<S: Study>(
    study: &S,
    plan: &engine::Plan,
    run_shard: engine::Shard,
    mut keep: SampleKeep<'_, S::Counts>,
    ctx: &RunContext,
    budget: std::time::Duration,
    warm_up: WarmUp,
) -> anyhow::Result<Option<Sample>> {
    let total = run_shard.chunks_of(plan);
    let opts = engine::RunOptions {
        threads: ctx.threads,
        progress: progress::Mode::Quiet,
    };
    let mut wanted = (ctx.threads as u64 * 2).max(1);
    let started = Instant::now();
    for round in 0.. {
        let stride = (total / wanted.min(total.max(1))).max(1);
        // Every stride-th chunk of the run's shard. Round 0 and later rounds
        // sample different chunks (a different offset), so a chunk is never
        // timed with its answers already in the memo.
        let shard = engine::Shard {
            count: run_shard.count * stride,
            index: run_shard.index + run_shard.count * ((round as u64 * 7919) % stride),
        };
        let timer = Instant::now();
        let (chunks_run, chunk_times) = match &mut keep {
            SampleKeep::ForTheRun(journal, ahead) => {
                let before = ahead.len();
                if !engine::run_ahead(study, plan, shard, &opts, journal, ahead, &ctx.stop)? {
                    return Ok(None);
                }
                (ahead.len() - before, ahead.last_part_times())
            }
            SampleKeep::Nothing { skip } => {
                match engine::run_sample(study, plan, shard, &opts, skip, &ctx.stop)? {
                    Some(ran) => ran,
                    None => return Ok(None),
                }
            }
        };
        let seconds = timer.elapsed().as_secs_f64();
        let warmed = warm_up.round_is_timed(round, seconds, budget);
        // A round whose chunks were all done before (beside a checkpoint)
        // timed nothing, however long the rounds before it took.
        let timed_some = chunks_run > 0;
        if stride == 1
            || (warmed
                && timed_some
                && (seconds * 4.0 >= budget.as_secs_f64() || started.elapsed() >= budget))
        {
            return Ok(Some(Sample {
                chunks_run,
                seconds,
                chunk_times,
            }));
        }
        // Aim the next round at a quarter of the budget.
        let per_chunk = seconds / chunks_run.max(1) as f64;
        let target = (budget.as_secs_f64() / 4.0 / per_chunk.max(1e-6)) as u64;
        wanted = target.clamp(wanted * 2, wanted * 16);
    }
    unreachable!("the rounds above end by returning")
}

/// Seconds of a sample's first round that may be the first touches of a
/// memo of one GiB: the kernel clears a fresh page at its first touch,
/// about 2 s a GiB on the project VM, and more on a busy machine that
/// compacts memory for 2 MiB pages (an 8 GiB memo's first round took 7 to
/// 16 s). Three times the quiet rate.
const FIRST_TOUCH_SECS_PER_GIB: f64 = 6.0;

/// How long a sample's first round may take and still be only a warm-up:
/// the first touches of the run's memory (see [`WarmUp::round_is_timed`]).
#[derive(Clone, Copy, Debug)]
pub(super) struct WarmUp {
    /// Seconds.
    seconds: f64,
}

impl WarmUp {
    /// The warm-up of a run of study `S` from `config` on `threads`: the
    /// first touches of the tables and memo its outline states.
    pub(super) fn of_run<S: Study>(config: &Config, threads: usize) -> WarmUp {
        WarmUp::of_memory(S::outline(config, threads).memory)
    }

    /// The warm-up of a run holding `bytes` of tables and memo.
    pub(super) fn of_memory(bytes: u64) -> WarmUp {
        WarmUp {
            seconds: bytes as f64 / f64::from(1u32 << 30) * FIRST_TOUCH_SECS_PER_GIB,
        }
    }

    /// Does round `round` of a sample, which took `seconds`, time the run?
    /// The first round pays for the first touches of the memo, which the
    /// real run pays once, not per chunk: at 13x13 under 11-back the memo
    /// is 8 GiB, its first round took 7 to 16 s on the project VM against
    /// about 6 s for twice its chunks after it, and timed on it, a run
    /// that took 11 minutes was said to take 1 h 38 min. So a first round
    /// times the run alone only when it took longer than those touches can
    /// explain, and at least ten times the budget: its chunks are then slow
    /// (26x26 deals under both rules take minutes to hours), and another
    /// round would cost minutes more, each round waiting for its slowest
    /// chunk with a core idle.
    fn round_is_timed(self, round: usize, seconds: f64, budget: std::time::Duration) -> bool {
        round > 0 || seconds >= (10.0 * budget.as_secs_f64()).max(self.seconds)
    }
}

/// Runs an action on another thread if it is still alive after a time
/// limit; dropping it first cancels the action. For work that cannot be cut
/// short (a chunk runs to its end) but must not leave the user waiting in
/// silence.
pub struct Deadline {
    /// Dropped with the deadline, which wakes the watcher and cancels it.
    _alive: std::sync::mpsc::Sender<()>,
}

impl Deadline {
    /// Starts the clock: `on_late` runs once `limit` has passed, unless the
    /// deadline was dropped before.
    pub fn start(limit: std::time::Duration, on_late: impl FnOnce() + Send + 'static) -> Deadline {
        let (alive, watched) = std::sync::mpsc::channel::<()>();
        std::thread::spawn(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) = watched.recv_timeout(limit) {
                on_late();
            }
        });
        Deadline { _alive: alive }
    }
}

/// A sample of the run that takes longer than this says so.
pub(super) const SLOW_SAMPLE_NOTE_AFTER: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs shorter than this get no warning before they start.
pub(super) const LONG_RUN_SECONDS: f64 = 3600.0;

/// Plans of fewer chunks are not timed before the run: they are short, and
/// timing them would cost a noticeable share of the run.
pub(super) const TIMED_PLAN_CHUNKS: u64 = 512;

/// Before a run that is not quiet, times a short sample of it (at most about
/// a second) and, if the chunks this shard still has to do will take over an
/// hour, says so in one line, with what to do about it. The sample's chunks
/// are journalled and returned, for the run to count.
pub(super) fn warn_if_long<S: Study>(
    study: &S,
    plan: &engine::Plan,
    shard: engine::Shard,
    journal: &mut Journal<S::Counts>,
    ctx: &RunContext,
    warm_up: WarmUp,
    bias: Option<EstimateBias>,
) -> anyhow::Result<engine::Ahead<S::Counts>> {
    let mut ahead = engine::Ahead::new(plan.cells());
    // A resumed run was timed when it first started, and its progress line
    // gives the time left. Timing it again would cost the most where it
    // tells the least: the sample runs in rounds that each wait for their
    // slowest chunk, and the chunks a long run has left are often its
    // slowest (a resumed 26x26 run under both rules spent a whole sitting
    // in its sample, one core idle at each round's end).
    if matches!(ctx.progress, progress::Mode::Quiet)
        || plan.len() < TIMED_PLAN_CHUNKS
        || journal.done_count() > 0
    {
        return Ok(ahead);
    }
    // The sample runs whole chunks, and a chunk can take minutes (one
    // 26x26 deal under 11-back took over an hour): say what is going on
    // rather than stay silent until it ends.
    // Saying how many chunks there are lets a user who wrote a run far too
    // big for a machine (an exhaustive 26x26, say) see it at once.
    let chunks = crate::export::grouped(shard.chunks_of(plan));
    let slow = Deadline::start(SLOW_SAMPLE_NOTE_AFTER, move || {
        eprintln!(
            "note: timing a sample of the run before it starts; this takes a while (its chunks are slow, or a memo of gigabytes is filling its fresh pages), and the run has {chunks} chunks (the sample's are checkpointed and count toward the run; Ctrl-C stops it; `runner plan` sizes a run without starting it)"
        );
    });
    let sample = time_sample(
        study,
        plan,
        shard,
        SampleKeep::ForTheRun(&mut *journal, &mut ahead),
        ctx,
        std::time::Duration::from_millis(1000),
        warm_up,
    )?;
    drop(slow);
    // A stop during the sample leaves the flag set: the run that follows
    // starts no chunk and ends as interrupted, with exit status 4.
    let Some(Sample {
        chunks_run: sampled,
        seconds,
        ..
    }) = sample
    else {
        return Ok(ahead);
    };
    let remaining = shard
        .chunks_of(plan)
        .saturating_sub(journal.done_count() + ahead.len());
    let estimate = seconds / sampled.max(1) as f64 * remaining as f64;
    if let Some(line) = long_run_note(estimate, bias, ctx.threads) {
        eprintln!("{line}");
    }
    Ok(ahead)
}

/// The warning before a run of the chunks estimated to take `estimate`
/// seconds, if it is long. A run whose estimate errs short is judged, and
/// described, by its worst measured overrun too: a 26x26 11-back run
/// estimated at 20 minutes took 82.
fn long_run_note(estimate: f64, bias: Option<EstimateBias>, threads: usize) -> Option<String> {
    let duration = crate::export::duration_text;
    let longest = EstimateBias::at_worst(bias, estimate);
    let threads = crate::export::threads_text(threads);
    let how_long = if EstimateBias::errs_short(bias) {
        format!(
            "about {} to {} on {threads} (timed on a sample, which rarely meets the slowest of these deals)",
            duration(estimate),
            duration(longest),
        )
    } else {
        format!(
            "about {} on {threads} (timed on a sample)",
            duration(estimate)
        )
    };
    (longest > LONG_RUN_SECONDS).then(|| {
        format!(
            "note: this run will take {how_long}; Ctrl-C checkpoints it and --resume continues, and `runner plan` gives a cluster recipe"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_run_whose_estimate_errs_short_is_warned_of_by_its_measured_overrun() {
        let short = Some(EstimateBias::ErrsShort {
            note: "n",
            measured: 4.4,
        });
        // 20 minutes: no warning, unless the estimate errs short, where
        // 4.4 times it is 88 minutes.
        assert_eq!(long_run_note(1200.0, None, 2), None);
        assert_eq!(
            long_run_note(1200.0, Some(EstimateBias::ErrsLong("n")), 2),
            None
        );
        let line = long_run_note(1200.0, short, 2).unwrap();
        assert!(
            line.starts_with("note: this run will take about 20m 00s to 1h 28m"),
            "{line}"
        );
        assert_eq!(long_run_note(600.0, short, 2), None);
        let line = long_run_note(7200.0, None, 2).unwrap();
        assert!(
            line.starts_with(
                "note: this run will take about 2h 00m on 2 threads (timed on a sample);"
            ),
            "{line}"
        );
    }

    #[test]
    fn a_first_round_times_the_run_only_when_the_memos_first_touches_cannot_explain_it() {
        let second = Duration::from_secs(1);
        // 13x13 under 11-back, a budget of 1 s, 7.8 GiB of memo: a first
        // round of 16 s was the memo's first touches, not the run's pace.
        let large = WarmUp::of_memory(7813 << 20);
        assert!(!large.round_is_timed(0, 16.0, second));
        assert!(!large.round_is_timed(0, 45.0, second));
        assert!(large.round_is_timed(0, 50.0, second));
        // 26x26 under both rules, a 2 GiB memo: chunks of minutes to hours.
        // A first round of 15 s is theirs, and another round could wait
        // hours for its slowest chunk.
        let small = WarmUp::of_memory(2 << 30);
        assert!(small.round_is_timed(0, 15.0, second));
        assert!(!small.round_is_timed(0, 9.0, second));
        // A large budget asks for more before a first round is taken alone.
        assert!(!small.round_is_timed(0, 120.0, Duration::from_secs(20)));
        assert!(small.round_is_timed(0, 200.0, Duration::from_secs(20)));
        // Every later round times the run.
        assert!(large.round_is_timed(1, 0.5, second));
        assert!(small.round_is_timed(1, 0.5, second));
    }
}
