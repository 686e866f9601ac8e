//! Progress: a live bar on a terminal, plain periodic lines in batch logs.

use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A bar if stderr is a terminal, else a line every `secs` seconds.
    Auto {
        /// Seconds between plain lines when stderr is not a terminal.
        secs: u64,
    },
    /// Nothing.
    Quiet,
}

/// The progress of one cell.
pub struct Progress {
    bar: Option<ProgressBar>,
    done: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    printer: Option<JoinHandle<()>>,
    under_way: Option<Arc<UnderWayChunks>>,
}

/// What a progress line calls the items under way: a run's chunks, or a
/// batch file's lines.
pub type ItemName = &'static str;

/// The chunks being worked on, by global index, and when each began. A
/// chunk can take hours (one 26x26 deal under both rules took over three),
/// and a progress line that gives no speed for an hour looks like a hung
/// run; naming the chunks that outlast a line says where it is.
type UnderWayChunks = Mutex<BTreeMap<u64, Instant>>;

/// A chunk being worked on, from [`Progress::begin`] until dropped.
pub struct UnderWay<'a> {
    chunks: Option<&'a UnderWayChunks>,
    chunk: u64,
}

impl Drop for UnderWay<'_> {
    fn drop(&mut self) {
        if let Some(chunks) = self.chunks {
            chunks
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&self.chunk);
        }
    }
}

/// At most this many long chunks are named in a progress line.
const NAMED_CHUNKS: usize = 3;

/// ", under way: chunk 110 for 1h 20m, chunk 631 for 38m 02s": the items
/// of `running` (index, time so far) that have run at least `over`,
/// longest first, at most [`NAMED_CHUNKS`] of them, each called `item`;
/// empty when there are none.
fn under_way_text(running: &[(u64, Duration)], over: Duration, item: ItemName) -> String {
    let mut long: Vec<&(u64, Duration)> = running.iter().filter(|(_, t)| *t >= over).collect();
    if long.is_empty() {
        return String::new();
    }
    long.sort_by_key(|&&(chunk, t)| (std::cmp::Reverse(t), chunk));
    let named: Vec<String> = long
        .iter()
        .take(NAMED_CHUNKS)
        .map(|(chunk, t)| {
            format!(
                "{item} {chunk} for {}",
                crate::export::duration_text(t.as_secs_f64())
            )
        })
        .collect();
    let more = match long.len().saturating_sub(NAMED_CHUNKS) {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    format!(", under way: {}{more}", named.join(", "))
}

/// "progress: 26x26: 860/1000 (86.0%), 0.01/s, eta 3h 53m": `already`
/// restored items and `new` done in the `elapsed` time of this sitting, of
/// `total`. Until an item of this sitting is done there is no speed to
/// give, and the line says when there will be rather than "0/s, eta ?",
/// which reads like a hung run (a resumed run's first hard chunk can take
/// hours).
fn progress_line(label: &str, already: u64, new: u64, total: u64, elapsed: Duration) -> String {
    let n = already + new;
    let share = 100.0 * n as f64 / total.max(1) as f64;
    let rate = new as f64 / elapsed.as_secs_f64();
    if new == 0 || !rate.is_finite() {
        return format!(
            "progress: {label}: {n}/{total} ({share:.1}%), speed and eta once a chunk of this sitting ends"
        );
    }
    let eta = crate::export::duration_text(total.saturating_sub(n) as f64 / rate);
    format!(
        "progress: {label}: {n}/{total} ({share:.1}%), {}/s, eta {eta}",
        crate::export::throughput_text(rate)
    )
}

/// The terminal bar's template. Until a chunk of this sitting has ended
/// (`timed` false) indicatif's speed and eta would read "0/s" and "0s",
/// so the bar says when they will come instead, as [`progress_line`] does.
fn bar_template(timed: bool) -> &'static str {
    if timed {
        "{prefix} [{bar:30}] {human_pos}/{human_len} {per_sec} eta {eta}{msg}"
    } else {
        "{prefix} [{bar:30}] {human_pos}/{human_len} speed and eta once a chunk of this sitting ends{msg}"
    }
}

fn bar_style(timed: bool) -> ProgressStyle {
    ProgressStyle::with_template(bar_template(timed))
        .expect("valid template")
        .progress_chars("=> ")
}

/// [`under_way_text`] for the chunks in `chunks` now.
fn long_chunks_now(chunks: &UnderWayChunks, over: Duration, item: ItemName) -> String {
    let now = Instant::now();
    let running: Vec<(u64, Duration)> = chunks
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .iter()
        .map(|(&chunk, &began)| (chunk, now.saturating_duration_since(began)))
        .collect();
    under_way_text(&running, over, item)
}

impl Progress {
    /// Starts showing progress of `total` items labelled `label`, of which
    /// `already` were done before (restored from a checkpoint): they count
    /// towards the position but not the speed, so the ETA of a resumed run
    /// is not fooled by work it did not do.
    pub fn start(label: &str, total: u64, already: u64, mode: Mode) -> Self {
        Self::start_naming(label, total, already, mode, "chunk")
    }

    /// [`Self::start`], naming the items under way `item` ("line 17 for
    /// 12m 03s").
    pub fn start_naming(label: &str, total: u64, already: u64, mode: Mode, item: ItemName) -> Self {
        let done = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let mut progress = Progress {
            bar: None,
            done: done.clone(),
            stop: stop.clone(),
            printer: None,
            under_way: None,
        };
        let Mode::Auto { secs } = mode else {
            return progress;
        };
        let under_way = Arc::new(UnderWayChunks::default());
        progress.under_way = Some(under_way.clone());
        let every = Duration::from_secs(secs.max(1));
        if std::io::stderr().is_terminal() {
            // indicatif's estimator would take a restored position for
            // speed; the bar covers only the work left, and says so.
            let bar = ProgressBar::new(total.saturating_sub(already));
            bar.set_style(bar_style(false));
            bar.set_prefix(match already {
                0 => label.to_string(),
                _ => format!(
                    "{label} (resumed, {:.1}% done before)",
                    100.0 * already as f64 / total.max(1) as f64
                ),
            });
            // The bar moves only when a chunk ends; a thread of its own
            // names the long chunks while none does.
            let shown = bar.clone();
            progress.printer = Some(std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    shown.set_message(long_chunks_now(&under_way, every, item));
                }
            }));
            progress.bar = Some(bar);
        } else {
            let label = label.to_string();
            progress.printer = Some(std::thread::spawn(move || {
                let started = Instant::now();
                let mut next = every;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    let t = started.elapsed();
                    if t < next {
                        continue;
                    }
                    next += every;
                    let new = done.load(Ordering::Relaxed);
                    eprintln!(
                        "{}{}",
                        progress_line(&label, already, new, total, t),
                        long_chunks_now(&under_way, every, item)
                    );
                }
            }));
        }
        progress
    }

    /// Marks chunk `chunk` (its global index) as being worked on until the
    /// guard is dropped: once it has run longer than the interval between
    /// progress lines, the lines name it with its time so far.
    pub fn begin(&self, chunk: u64) -> UnderWay<'_> {
        let chunks = self.under_way.as_deref();
        if let Some(chunks) = chunks {
            chunks
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(chunk, Instant::now());
        }
        UnderWay { chunks, chunk }
    }

    /// Counts `n` more items done.
    pub fn add(&self, n: u64) {
        let before = self.done.fetch_add(n, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
            if before == 0 && n > 0 {
                bar.set_style(bar_style(true));
            }
            bar.inc(n);
        }
    }

    /// Ends the display.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(h) = self.printer.take() {
            let _ = h.join();
        }
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_chunks_that_outlast_a_line_are_named_longest_first() {
        let s = Duration::from_secs;
        let over = s(5);
        assert_eq!(under_way_text(&[], over, "chunk"), "");
        assert_eq!(under_way_text(&[(7, s(4))], over, "chunk"), "");
        assert_eq!(
            under_way_text(
                &[(110, s(4_800)), (3, s(2)), (631, s(2_282))],
                over,
                "chunk"
            ),
            ", under way: chunk 110 for 1h 20m, chunk 631 for 38m 02s"
        );
        assert_eq!(
            under_way_text(&[(17, s(723))], over, "line"),
            ", under way: line 17 for 12m 03s"
        );
        assert_eq!(
            under_way_text(
                &[(1, s(10)), (2, s(40)), (3, s(30)), (4, s(20)), (5, s(5))],
                over,
                "chunk"
            ),
            ", under way: chunk 2 for 40s, chunk 3 for 30s, chunk 4 for 20s and 2 more"
        );
    }

    #[test]
    fn a_line_gives_no_speed_before_a_chunk_of_this_sitting_ends() {
        let s = Duration::from_secs;
        assert_eq!(
            progress_line("26x26", 856, 0, 1000, s(1_800)),
            "progress: 26x26: 856/1000 (85.6%), speed and eta once a chunk of this sitting ends"
        );
        // The restored 856 count towards the position, not the speed.
        let line = progress_line("26x26", 856, 4, 1000, s(400));
        assert!(
            line.starts_with("progress: 26x26: 860/1000 (86.0%), "),
            "{line}"
        );
        assert!(line.ends_with("/s, eta 3h 53m"), "{line}");
    }

    #[test]
    fn the_bar_gives_no_speed_before_a_chunk_of_this_sitting_ends() {
        let untimed = bar_template(false);
        assert!(!untimed.contains("per_sec") && !untimed.contains("{eta}"));
        assert!(untimed.contains("speed and eta once a chunk of this sitting ends"));
        assert!(bar_template(true).contains("{per_sec} eta {eta}"));
        // Both parse (a bad template would panic at the first chunk's end).
        let _ = (bar_style(false), bar_style(true));
    }

    #[test]
    fn a_chunk_is_named_while_under_way_and_forgotten_when_done() {
        let progress = Progress {
            bar: None,
            done: Arc::default(),
            stop: Arc::default(),
            printer: None,
            under_way: Some(Arc::default()),
        };
        let chunks = progress.under_way.clone().unwrap();
        {
            let _first = progress.begin(4);
            let _second = progress.begin(9);
            assert_eq!(
                long_chunks_now(&chunks, Duration::ZERO, "chunk"),
                ", under way: chunk 4 for 0s, chunk 9 for 0s"
            );
        }
        assert_eq!(long_chunks_now(&chunks, Duration::ZERO, "chunk"), "");
        // Quiet: nothing is kept.
        let quiet = Progress::start("cell", 10, 0, Mode::Quiet);
        let _chunk = quiet.begin(1);
        assert!(quiet.under_way.is_none());
    }
}
