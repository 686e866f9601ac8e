//! The run manifest: how and where a run happened, kept apart from the
//! deterministic results so that two runs of one config diff cleanly.

use serde::Serialize;
use std::path::Path;

/// `manifest.json`: run details kept apart from the deterministic tables.
#[derive(Serialize)]
pub struct Manifest<'a, C: Serialize> {
    /// Always `runner`.
    pub tool: &'static str,
    /// The crate version.
    pub version: &'static str,
    /// `[experiment] study`.
    pub study: &'a str,
    /// The config file as named on the command line.
    pub config_path: String,
    /// FNV-1a 64 of the normalised config, to tell runs of one config apart
    /// from runs of another.
    pub config_hash: String,
    /// The config echo.
    pub config: &'a C,
    /// `[experiment] seed`.
    pub seed: u64,
    /// Instances per chunk, one entry per cell.
    pub chunk_sizes: Vec<u64>,
    /// Chunks run (this shard's, or all for a merge).
    pub chunks: u64,
    /// Shards of the whole run, and which one this is (0 for a merge).
    pub shards: u64,
    /// Which shard this is.
    pub shard_index: u64,
    /// Shard result files a merge read.
    pub merged_from: Vec<String>,
    /// Worker threads.
    pub threads: usize,
    /// Start time, seconds since the Unix epoch.
    pub started_unix: u64,
    /// Wall time of the run.
    pub elapsed_s: f64,
    /// The machine it ran on.
    pub host: String,
    /// Peak resident memory, where the OS reports it.
    pub peak_rss_mb: Option<f64>,
    /// What the run's check concluded: `passed` or `failed` (a shard
    /// always passes; its check is made at the merge).
    pub check: &'static str,
    /// Files written, in order.
    pub outputs: Vec<String>,
}

impl<C: Serialize> Manifest<'_, C> {
    /// Writes the manifest as pretty JSON, atomically.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        super::write_atomic(path, text.as_bytes())
    }
}

/// Stable hash of a config's result inputs: serialised to JSON in field
/// order (so comments and key order in the file do not matter), then
/// FNV-1a 64.
pub fn config_hash<C: Serialize>(config: &C) -> String {
    // JSON, not TOML: TOML has no integers past i64, and a hash of an
    // empty string would make every such config look alike.
    let text = serde_json::to_string(config).expect("plain data serialises");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The machine's name, for the manifest only.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .or_else(|_| std::env::var("HOSTNAME"))
        .unwrap_or_else(|_| "unknown".into())
}

/// Peak resident memory of this process in MiB (Linux), from VmHWM.
pub fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some((kb / 1024.0 * 10.0).round() / 10.0)
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}
