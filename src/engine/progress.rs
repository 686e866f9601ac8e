//! Progress: a live bar on a terminal, plain periodic lines in batch logs.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
}

impl Progress {
    /// Starts showing progress of `total` items labelled `label`, of which
    /// `already` were done before (restored from a checkpoint): they count
    /// towards the position but not the speed, so the ETA of a resumed run
    /// is not fooled by work it did not do.
    pub fn start(label: &str, total: u64, already: u64, mode: Mode) -> Self {
        let done = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let mut progress = Progress {
            bar: None,
            done: done.clone(),
            stop: stop.clone(),
            printer: None,
        };
        let Mode::Auto { secs } = mode else {
            return progress;
        };
        if std::io::stderr().is_terminal() {
            // indicatif's estimator would take a restored position for
            // speed; the bar covers only the work left, and says so.
            let bar = ProgressBar::new(total.saturating_sub(already));
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix} [{bar:30}] {human_pos}/{human_len} {per_sec} eta {eta}",
                )
                .expect("valid template")
                .progress_chars("=> "),
            );
            bar.set_prefix(match already {
                0 => label.to_string(),
                _ => format!(
                    "{label} (resumed, {:.1}% done before)",
                    100.0 * already as f64 / total.max(1) as f64
                ),
            });
            progress.bar = Some(bar);
        } else {
            let label = label.to_string();
            let every = Duration::from_secs(secs.max(1));
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
                    let n = already + new;
                    let rate = new as f64 / t.as_secs_f64();
                    let eta = if rate > 0.0 {
                        crate::export::duration_text(total.saturating_sub(n) as f64 / rate)
                    } else {
                        "?".into()
                    };
                    eprintln!(
                        "progress: {label}: {n}/{total} ({:.1}%), {}/s, eta {eta}",
                        100.0 * n as f64 / total.max(1) as f64,
                        crate::export::throughput_text(rate)
                    );
                }
            }));
        }
        progress
    }

    /// Counts `n` more items done.
    pub fn add(&self, n: u64) {
        self.done.fetch_add(n, Ordering::Relaxed);
        if let Some(bar) = &self.bar {
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
