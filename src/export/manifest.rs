//! The run manifest: how and where a run happened, kept apart from the
//! deterministic results so that two runs of one config diff cleanly.

use crate::error::refuse;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The manifest's file name in a results directory.
pub const FILE_NAME: &str = "manifest.json";

/// `manifest.json`: run details kept apart from the deterministic tables.
#[derive(Serialize)]
pub struct Manifest<'a, C: Serialize> {
    /// Always `runner`.
    pub tool: &'static str,
    /// The crate version.
    pub version: &'static str,
    /// The git commit the binary was built from (`-modified` if the tree
    /// had uncommitted changes, `unknown` without git).
    pub git_commit: &'static str,
    /// The command line, as run.
    pub command_line: Vec<String>,
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
    /// Start time, ISO 8601 in UTC.
    pub started: String,
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
    /// The SHA-256 of each output a later command reads (see
    /// [`hashes_of`]), as `sha256sum` prints it: a table edited after the
    /// run, or left by another run that was killed while writing, no
    /// longer matches, and `plot`, `report`, `table`, `diff` and `compare` refuse it.
    pub sha256: BTreeMap<String, String>,
    /// Set when the tables are a stopped or running run's chunks so far
    /// (`runner interim`), not a finished run's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interim: Option<Interim>,
    /// The rechecks (`--resume --recheck N`) the run's checkpoint passed,
    /// in every sitting: only the last sitting writes a manifest, so the
    /// checkpoint journals them for it. A merge lists its shards'.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rechecks: Vec<RecheckPassed>,
}

/// A recheck a checkpoint passed: which of its chunks were solved again,
/// when, and by which build. A reader of a run resumed over many sittings
/// can then see that its records were spot-checked, and by what.
#[derive(Serialize, serde::Deserialize, Clone, Debug, PartialEq)]
pub struct RecheckPassed {
    /// When the recheck started, ISO 8601 in UTC.
    pub started: String,
    /// The chunks solved again, each found as recorded.
    pub chunks: Vec<u64>,
    /// How many chunks the checkpoint held then.
    pub of_chunks: u64,
    /// The commit of the build that solved them again (see [`GIT_COMMIT`]).
    pub git_commit: String,
    /// Wall time of the recheck.
    pub seconds: f64,
    /// In a merge's manifest, the shard whose checkpoint passed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard_index: Option<u64>,
}

impl RecheckPassed {
    /// This recheck as a reader wants it: "at 2026-12-04T03:00:00Z, chunks
    /// 40, 213, 353 of 901, build abc (175.7 s)", after "shard 1, " in a
    /// merge's. The seconds were rounded to tenths when recorded.
    pub fn describe(&self) -> String {
        let shard = match self.shard_index {
            Some(index) => format!("shard {index}, "),
            None => String::new(),
        };
        let chunks: Vec<String> = self.chunks.iter().map(u64::to_string).collect();
        format!(
            "{shard}at {}, chunks {} of {}, build {} ({:.1} s)",
            self.started,
            chunks.join(", "),
            self.of_chunks,
            self.git_commit,
            self.seconds
        )
    }
}

/// One line saying whether a checkpoint's records were spot-checked, and
/// when last: `runner plan` prints it for a checkpoint, `runner interim`
/// for the checkpoints its tables come from, so that a reader of figures
/// so far sees what vouches for them without opening the manifest.
///
/// "Last" is the latest by start time, not the last listed: the rechecks
/// of several shards come shard by shard, and a lower shard may have been
/// rechecked later. The times are ISO 8601 in UTC, all of one width, so
/// they order as text.
pub fn rechecks_line(rechecks: &[RecheckPassed]) -> String {
    match rechecks.iter().max_by(|a, b| a.started.cmp(&b.started)) {
        None => "rechecked: never; --resume --recheck N first solves N of its chunks again, picked at random, and refuses it if one differs from its record".into(),
        Some(last) => format!(
            "rechecked: {} time{}, last at {}: {} of its {} chunks then solved again by the build of {}, each as recorded",
            rechecks.len(),
            if rechecks.len() == 1 { "" } else { "s" },
            last.started,
            last.chunks.len(),
            super::grouped(last.of_chunks),
            last.git_commit
        ),
    }
}

/// What an interim directory's tables cover (`runner interim`).
#[derive(Serialize, serde::Deserialize, Clone, Debug)]
pub struct Interim {
    /// The checkpoints (and finished shards' `partial.json`) read.
    pub from: Vec<String>,
    /// Its finished chunks, counted in the tables.
    pub chunks_done: u64,
    /// The chunks of the whole run, every shard's, also when only some
    /// of its shards are given.
    pub chunks_total: u64,
    /// Which chunks, as ranges of global indices ("0-80, 250").
    pub chunks: String,
}

impl Interim {
    /// "234 of 1000 chunks": how much of its run the tables count, as
    /// pictures, notes and refusals say it.
    pub fn share(&self) -> String {
        format!("{} of {} chunks", self.chunks_done, self.chunks_total)
    }
}

/// The interim mark of the results in `dir` (tables of a run's chunks so
/// far, written by `runner interim`): `None` for a finished run's or a
/// merge's results, and where no manifest can be read (the commands that
/// need one say so themselves).
pub fn interim_of(dir: &Path) -> Option<Interim> {
    Recorded::read(dir).ok()??.interim()
}

/// [`interim_of`] for a manifest already read.
pub fn interim_in(manifest: &serde_json::Value) -> Option<Interim> {
    serde_json::from_value(manifest.get("interim")?.clone()).ok()
}

/// A results directory's manifest, read once by a command that reads the
/// results back (`plot`, `report`, `table`, `diff`, `compare`): the hash check, the
/// note on tables it cannot vouch for and the interim mark all come from
/// the one read, so they describe the same file.
pub struct Recorded {
    dir: PathBuf,
    /// The parse error when the file is not JSON (damaged, or edited).
    json: Result<serde_json::Value, String>,
}

impl Recorded {
    /// The manifest of `dir`; `None` when there is none (tables made by
    /// hand), an error when it is there but cannot be read.
    pub fn read(dir: &Path) -> anyhow::Result<Option<Self>> {
        let path = dir.join(FILE_NAME);
        if !path.exists() {
            return Ok(None);
        }
        let bytes = super::read_result_file(&path)?;
        Ok(Some(Self {
            dir: dir.to_path_buf(),
            json: serde_json::from_slice(&bytes).map_err(|e| e.to_string()),
        }))
    }

    /// The manifest as JSON, or why it is not JSON.
    pub fn json(&self) -> Result<&serde_json::Value, &str> {
        self.json.as_ref().map_err(String::as_str)
    }

    /// The interim mark (see [`interim_of`]).
    pub fn interim(&self) -> Option<Interim> {
        interim_in(self.json().ok()?)
    }

    fn path(&self) -> PathBuf {
        self.dir.join(FILE_NAME)
    }

    /// Refuses a file of the directory whose SHA-256 is not the one the
    /// manifest records. A file the manifest names but that is gone is left
    /// to the command that needs it; a manifest from before hashes were
    /// recorded, or one that is not JSON (which `report` and `diff` refuse
    /// themselves, and `plot` reads without), has nothing to check.
    pub fn check_hashes(&self) -> anyhow::Result<()> {
        let Some(recorded) = self.json().ok().and_then(|m| m.get("sha256")) else {
            return Ok(());
        };
        let not_a_table = || {
            refuse(format!(
                "{}: sha256 is not a table of file names and hashes",
                self.path().display()
            ))
        };
        for (name, want) in recorded.as_object().ok_or_else(not_a_table)? {
            let want = want.as_str().ok_or_else(not_a_table)?;
            // Only a plain name in this directory: a manifest edited to name
            // `../x` must not make the check read elsewhere.
            if Path::new(name).file_name() != Some(std::ffi::OsStr::new(name)) {
                return Err(not_a_table());
            }
            let file = self.dir.join(name);
            if !file.exists() {
                continue;
            }
            if sha256_hex(&super::read_result_file(&file)?) != want {
                return Err(refuse(format!(
                    "{}: not the file its run wrote (its SHA-256 differs from the one {FILE_NAME} records): edited since, or left by another run",
                    file.display()
                )));
            }
        }
        Ok(())
    }

    /// A one-line note when the manifest records no SHA-256s (a run from
    /// before runner kept them), or is not JSON (damaged, or edited), which
    /// [`Recorded::check_hashes`] therefore cannot check: a reader should
    /// know that an edit to the tables since the run would go unnoticed.
    /// `None` when the hashes are recorded.
    pub fn unchecked_note(&self) -> Option<String> {
        let path = self.path();
        let Ok(manifest) = self.json() else {
            return Some(format!(
                "note: {} is not JSON (damaged, or edited), so the tables are not checked against the run",
                path.display()
            ));
        };
        manifest.get("sha256").is_none().then(|| {
            format!(
                "note: {} records no SHA-256 of the tables (its run predates them), so they are not checked against the run; rerun the config for a manifest that records them",
                path.display()
            )
        })
    }
}

impl<C: Serialize> Manifest<'_, C> {
    /// Writes the manifest as pretty JSON, atomically.
    pub fn write(&self, path: &Path) -> anyhow::Result<()> {
        let mut text = serde_json::to_string_pretty(self)?;
        text.push('\n');
        super::write_atomic(path, text.as_bytes())
    }
}

/// Does the manifest record the SHA-256 of output `name`? The tables, run
/// details and shard counts, which commands read back; not the pictures,
/// which `runner plot` redraws (a newer drawing is not a changed result),
/// nor the manifest itself.
fn records_hash_of(name: &str) -> bool {
    name != FILE_NAME && !name.ends_with(".svg")
}

/// The SHA-256 of `bytes` in lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The SHA-256 of each output in `outputs` whose hash the manifest records,
/// read back from `dir` as written.
pub fn hashes_of(dir: &Path, outputs: &[String]) -> anyhow::Result<BTreeMap<String, String>> {
    outputs
        .iter()
        .filter(|name| records_hash_of(name))
        .map(|name| {
            let bytes = super::read_result_file(&dir.join(name))?;
            Ok((name.clone(), sha256_hex(&bytes)))
        })
        .collect()
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

/// The git commit this binary was built from (see build.rs).
pub const GIT_COMMIT: &str = env!("RUNNER_GIT_COMMIT");

/// `unix` seconds as ISO 8601 UTC, such as `2026-11-23T21:33:34Z`.
pub fn iso_utc(unix: u64) -> String {
    let (days, secs) = (unix / 86_400, unix % 86_400);
    // Days to a civil date (Howard Hinnant's algorithm, proleptic Gregorian).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// Seconds since the Unix epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_times_match_known_dates() {
        assert_eq!(iso_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(iso_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(iso_utc(1_795_469_614), "2026-11-23T21:33:34Z");
        assert_eq!(iso_utc(4_107_542_399), "2100-02-28T23:59:59Z");
    }

    fn recheck(started: &str, commit: &str) -> RecheckPassed {
        RecheckPassed {
            started: started.into(),
            chunks: vec![1, 2],
            of_chunks: 1_000,
            git_commit: commit.into(),
            seconds: 1.0,
            shard_index: None,
        }
    }

    #[test]
    fn the_rechecks_line_names_the_latest_recheck_not_the_last_listed() {
        assert!(rechecks_line(&[]).starts_with("rechecked: never; "));
        // Shard 0 rechecked after shard 1: listed shard by shard, the
        // later one comes first.
        let listed = [
            recheck("2026-12-04T05:00:00Z", "later"),
            recheck("2026-12-03T23:59:59Z", "earlier"),
        ];
        let line = rechecks_line(&listed);
        assert!(
            line.starts_with(
                "rechecked: 2 times, last at 2026-12-04T05:00:00Z: 2 of its 1,000 chunks"
            ),
            "{line}"
        );
        assert!(
            line.ends_with("by the build of later, each as recorded"),
            "{line}"
        );
    }
}
