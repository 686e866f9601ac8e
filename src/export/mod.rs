//! Outputs: CSV tables, SVG pictures, the HTML report and the run manifest,
//! always written atomically.
//!
//! A file is written next to its final name and renamed into place, so a run
//! killed at any moment leaves either the old file or the new one, never a
//! truncated one.

pub mod manifest;
pub mod plot;
pub mod report;
pub mod table;

use crate::error::{Role, refuse_unless_file_or_absent};
use anyhow::Context;
use std::io::Write;
use std::path::Path;

/// Writes `bytes` to `path` through a temporary file and a rename. Only a
/// regular file (or nothing) at `path` is replaced; anything else there is
/// refused (see [`crate::error::refuse_unless_file_or_absent`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    write_atomic_with(path, |out| Ok(out.write_all(bytes)?))
}

/// As [`write_atomic`], with the contents streamed by `write` (through a
/// buffer): for files too large to hold in memory first, such as a kept
/// memo of gigabytes.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    refuse_unless_file_or_absent(path, Role::Written("an output file"))?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty());
    if let Some(dir) = dir {
        // A directory that cannot be made is a bad path the user gave
        // (exit 2), not a failure while writing.
        std::fs::create_dir_all(dir).map_err(|e| {
            crate::error::refuse(format!(
                "{}: cannot create the output directory: {e}",
                dir.display()
            ))
        })?;
    }
    let name = path
        .file_name()
        .with_context(|| format!("{} has no file name", path.display()))?;
    let tmp = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let result = (|| -> anyhow::Result<()> {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&tmp)?);
        write(&mut out)?;
        let f = out.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write {}", path.display()))
}

/// How long an input that is not a regular file may take to arrive: a
/// pipe (`--config <(…)`) brings it at once, and a FIFO nobody writes to
/// would otherwise hold the command forever.
const PIPE_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Reads at most `limit` bytes of UTF-8 text, refusing a longer file as
/// not `what` ("a config"): `/dev/zero` must not fill the memory. A pipe
/// or FIFO is read on a thread of its own and given up after
/// 10 s (the thread is left blocked; the process ends soon after).
pub fn read_text_limited(path: &Path, limit: u64, what: &'static str) -> std::io::Result<String> {
    if std::fs::metadata(path)?.is_file() {
        return read_text(path, limit, what);
    }
    let (sender, receiver) = std::sync::mpsc::channel();
    let owned = path.to_owned();
    std::thread::spawn(move || sender.send(read_text(&owned, limit, what)));
    receiver.recv_timeout(PIPE_WAIT).unwrap_or_else(|_| {
        Err(std::io::Error::other(format!(
            "nothing to read after {} s (a FIFO that nobody writes to?)",
            PIPE_WAIT.as_secs()
        )))
    })
}

fn read_text(path: &Path, limit: u64, what: &str) -> std::io::Result<String> {
    use std::io::Read;
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(limit + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "longer than {} KiB; not {what}",
            limit >> 10
        )));
    }
    Ok(text)
}

/// Reads a file of a results directory. Only a regular file is read: a
/// FIFO in its place would wait forever for a writer.
pub fn read_result_file(path: &Path) -> anyhow::Result<Vec<u8>> {
    refuse_unless_file_or_absent(path, Role::Read("read as a result file"))?;
    std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))
}

/// A size for messages: MiB (rounded up, so nothing reads as 0), GiB
/// from 10 GiB, TiB from 10 TiB (a typed budget can be that large).
pub fn size_text(bytes: u64) -> String {
    if bytes >= 10 << 40 {
        format!("{:.1} TiB", bytes as f64 / (1u64 << 40) as f64)
    } else if bytes >= 10 << 30 {
        format!("{:.1} GiB", bytes as f64 / f64::from(1u32 << 30))
    } else {
        format!("{} MiB", bytes.div_ceil(1 << 20))
    }
}

/// A throughput for run tables and progress lines: whole numbers from 100 up, three
/// significant digits below, so that a slow cell (26-card deals run at
/// about one every two seconds) does not read as 0.
pub fn throughput_text(per_s: f64) -> String {
    if per_s >= 100.0 || per_s <= 0.0 {
        format!("{per_s:.0}")
    } else {
        let decimals = (2 - per_s.abs().log10().floor() as i32).clamp(0, 9) as usize;
        format!("{per_s:.decimals$}")
    }
}

/// "1 thread", "2 threads": a count with its noun, as a person writes it.
pub fn threads_text(threads: usize) -> String {
    match threads {
        1 => "1 thread".into(),
        n => format!("{n} threads"),
    }
}

/// A duration as a person reads it: "45s", "12m 05s", "3h 20m", "6d 22h".
/// Progress ETAs of long runs read as days and hours, not 598274s.
pub fn duration_text(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "?".into();
    }
    let s = secs.round() as u64;
    let (d, h, m, s) = (s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60);
    if d > 0 {
        format!("{d}d {h}h")
    } else if h > 0 {
        format!("{h}h {m:02}m")
    } else if m > 0 {
        format!("{m}m {s:02}s")
    } else {
        format!("{s}s")
    }
}

/// Groups the digits of a whole number written in decimal, 1234567 as
/// "1,234,567"; other text (a fraction, an empty cell) is returned as it
/// is. Counts of deals pass 2^64, so this works on their text.
pub fn grouped_digits(digits: &str) -> String {
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return digits.to_string();
    }
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A count, 1234567 as "1,234,567" ([`grouped_digits`] of its decimal).
pub fn grouped(n: impl Into<u128>) -> String {
    grouped_digits(&n.into().to_string())
}

/// A CSV table built in memory, then written atomically.
pub struct Table {
    writer: csv::Writer<Vec<u8>>,
}

impl Table {
    /// A table with this header row.
    pub fn new(header: &[&str]) -> Self {
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(header).expect("writing to memory");
        Table { writer }
    }

    /// Appends one row.
    pub fn row<I, S>(&mut self, fields: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        self.writer.write_record(fields).expect("writing to memory");
    }

    /// The CSV text.
    pub fn into_bytes(self) -> Vec<u8> {
        self.writer.into_inner().expect("flushing to memory")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_days_hours_minutes() {
        assert_eq!(duration_text(0.4), "0s");
        assert_eq!(duration_text(45.0), "45s");
        assert_eq!(duration_text(725.0), "12m 05s");
        assert_eq!(duration_text(12_000.0), "3h 20m");
        assert_eq!(duration_text(598_274.0), "6d 22h");
        assert_eq!(duration_text(f64::INFINITY), "?");
    }

    #[test]
    fn sizes_read_in_the_unit_that_keeps_them_short() {
        assert_eq!(size_text(0), "0 MiB");
        assert_eq!(size_text(1), "1 MiB");
        assert_eq!(size_text(512 << 20), "512 MiB");
        assert_eq!(size_text(10 << 30), "10.0 GiB");
        // The largest `[solver] memo_mb` a user typed in a fuzz run read
        // as "97656250.0 GiB".
        assert_eq!(size_text(99_999_999_999 << 20), "95367.4 TiB");
        assert_eq!(size_text(u64::MAX), "16777216.0 TiB");
    }

    #[test]
    fn digits_are_grouped_in_threes() {
        assert_eq!(
            grouped_digits("133374313242220050"),
            "133,374,313,242,220,050"
        );
        assert_eq!(grouped_digits("999"), "999");
        assert_eq!(grouped_digits("1/2"), "1/2");
        assert_eq!(grouped_digits(""), "");
    }

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0u64), "0");
        assert_eq!(grouped(999u64), "999");
        assert_eq!(grouped(1000u64), "1,000");
        assert_eq!(grouped(28_905_388u64), "28,905,388");
        assert_eq!(grouped(u128::MAX), grouped_digits(&u128::MAX.to_string()));
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp_files() {
        let dir = std::env::temp_dir().join(format!("runner-atomic-{}", std::process::id()));
        let path = dir.join("a.csv");
        write_atomic(&path, b"one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn rates_keep_three_significant_digits_below_one_hundred() {
        assert_eq!(super::throughput_text(2_970_000.4), "2970000");
        assert_eq!(super::throughput_text(123.6), "124");
        assert_eq!(super::throughput_text(15.734), "15.7");
        assert_eq!(super::throughput_text(0.46512), "0.465");
        assert_eq!(super::throughput_text(0.0241), "0.0241");
        assert_eq!(super::throughput_text(0.0), "0");
    }
}
