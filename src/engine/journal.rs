//! The checkpoint journal: one line per finished chunk, appended and synced,
//! so a run killed at any moment resumes where it stopped.
//!
//! The first line names what the journal belongs to (config hash, version,
//! shard); a resume refuses a journal of anything else. Every later line is
//! `<crc32 of the JSON, 8 hex digits> <JSON>`, so an edited or corrupted
//! line is refused, naming the file and line, instead of being trusted. A
//! kill can cut the last line short (it then has no newline); that line is
//! dropped and its chunk simply runs again. A header cut short, or an empty
//! file, holds no progress: the run starts over, with a note.
//!
//! A record is a finished chunk, `{"chunk": .., "counts": ..}`, or a
//! recheck it passed, `{"recheck": ..}` (`--recheck N`), sealed alike: only
//! the sitting that finishes the run writes a manifest, and it must name
//! every sitting's rechecks.

use crate::error::{Role, refuse, refuse_unless_file_or_absent};
use crate::export::manifest::RecheckPassed;
use anyhow::Context;
use serde::Serialize;
use serde::de::{DeserializeOwned, IgnoredAny};
use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

#[derive(Serialize, serde::Deserialize, PartialEq, Debug)]
struct Header {
    journal: String,
    fingerprint: String,
}

impl Header {
    /// The header of this version's journal for the run `fingerprint`.
    fn named(fingerprint: &str) -> Header {
        Header {
            journal: "runner checkpoint v2".into(),
            fingerprint: fingerprint.into(),
        }
    }
}

#[derive(Serialize)]
struct RecordOut<'a, C> {
    chunk: u64,
    counts: &'a C,
}

#[derive(serde::Deserialize)]
struct RecordIn<C> {
    chunk: u64,
    counts: C,
}

#[derive(Serialize, serde::Deserialize)]
struct RecheckLine {
    recheck: RecheckPassed,
}

/// How a recheck line starts, as `serde_json` writes [`RecheckLine`]; a
/// chunk's starts `{"chunk":`.
const RECHECK_PREFIX: &[u8] = b"{\"recheck\":";

/// One record line read back.
enum Line<C> {
    Chunk(RecordIn<C>),
    Recheck(RecheckPassed),
}

/// An append-only record of finished chunks and their counts.
///
/// On resume only the chunk numbers are kept in memory; the counts stay in
/// the file and [`Finished::replay`] hands them over one at a time. A study's
/// counts can be tens of kilobytes (the μ table), and a long run has
/// hundreds of thousands of chunks: held all at once they would not fit.
pub struct Journal<C> {
    file: File,
    /// The records read back on resume.
    finished: Finished<C>,
    /// Every chunk in the file: read back or recorded since. A chunk
    /// recorded twice would be counted twice on resume.
    recorded: HashSet<u64>,
    /// Rechecks passed since the journal was read back.
    rechecks_since: Vec<RecheckPassed>,
    /// Asked to resume, it found no journal at its path.
    nothing_to_resume: bool,
}

/// The finished chunks a journal held when it was read, checked line by
/// line, without the means to extend it: what a resume counts before it
/// runs the rest, and what `runner interim` reads, read only, beside the
/// run that may still be writing the file.
pub struct Finished<C> {
    path: PathBuf,
    /// Chunks read back, in file order.
    chunks: Vec<u64>,
    /// Byte range of their records (after the header).
    bytes: std::ops::Range<u64>,
    /// The rechecks it records, in file order.
    rechecks: Vec<RecheckPassed>,
    /// What to do when a record is refused: start over, or, for a
    /// finished shard's kept checkpoint, run that shard again.
    remedy: Remedy,
    _counts: PhantomData<C>,
}

/// What the user is told to do about a journal whose records are refused:
/// every refusal's wording, by the kind of journal, is here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Remedy {
    /// A run's checkpoint: start the run over.
    StartOver,
    /// A finished shard's kept checkpoint: run that shard again.
    RerunShard,
}

impl Remedy {
    /// The end of a message refusing a record as edited.
    fn edited(self) -> &'static str {
        match self {
            Remedy::StartOver => "the checkpoint was edited (remove it to start over)",
            Remedy::RerunShard => "the shard's kept checkpoint was edited (rerun that shard)",
        }
    }

    /// The end of a message refusing a line whose checksum fails.
    fn damaged(self) -> &'static str {
        match self {
            Remedy::StartOver => "the checkpoint was edited or corrupted (remove it to start over)",
            Remedy::RerunShard => {
                "the shard's kept checkpoint was edited or corrupted (rerun that shard)"
            }
        }
    }

    /// The end of a message refusing a sealed line this build cannot read.
    fn other_build(self) -> &'static str {
        match self {
            Remedy::StartOver => {
                "its checksum holds, so the line was written so: by another build of runner (resume with that build), or edited with its checksum recomputed"
            }
            Remedy::RerunShard => {
                "its checksum holds, so the line was written so: by another build of runner (merge with that build, or rerun that shard), or edited with its checksum recomputed"
            }
        }
    }

    /// The end of a message about a chunk that came out other than its
    /// record when solved again.
    fn differs(self) -> &'static str {
        match self {
            Remedy::StartOver => {
                "the checkpoint was edited, or written by a build whose results differ from this one's; start over with --fresh"
            }
            Remedy::RerunShard => {
                "the shard's kept checkpoint was edited, or written by a build whose results differ from this one's; rerun that shard"
            }
        }
    }

    /// The end of a message refusing a journal of another run.
    fn other_run(self) -> &'static str {
        match self {
            Remedy::StartOver => {
                "give the config the run used, or start over with --fresh or in another directory"
            }
            Remedy::RerunShard => {
                "the shard directory holds another run's records beside its results (rerun that shard)"
            }
        }
    }
}

impl<C: Serialize + DeserializeOwned> Journal<C> {
    /// Opens the journal at `path`. With `resume`, an existing journal with
    /// the same `fingerprint` is checked line by line and extended; without
    /// it, any old journal is replaced.
    pub fn open(path: &Path, fingerprint: &str, resume: bool) -> anyhow::Result<Self> {
        refuse_unless_file_or_absent(path, Role::Written("the checkpoint"))?;
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let header = Header::named(fingerprint);
        let Found {
            restored,
            rechecks,
            header_len,
            valid_len,
            exists,
            torn_header,
        } = read_back::<C>(path, &header, resume, Remedy::StartOver)?;
        if torn_header {
            crate::error::say(format_args!(
                "note: {}: checkpoint header is empty or cut short; no progress to resume, starting over",
                path.display()
            ));
        }
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        // Taken before the file is cut or written: of two processes that
        // open one journal at once, the second is refused before it can
        // cut the first's records. Held as long as the journal is.
        lock_or_refuse(&file, path)?;
        if resume && exists {
            // Drop a torn last line, then append after the good ones.
            file.set_len(valid_len)?;
            file.seek(SeekFrom::End(0))?;
        } else {
            file.set_len(0)?;
            let mut line = serde_json::to_vec(&header)?;
            line.push(b'\n');
            file.write_all(&line)?;
            file.sync_data()?;
        }
        Ok(Journal {
            file,
            recorded: restored.iter().copied().collect(),
            rechecks_since: Vec::new(),
            nothing_to_resume: resume && !exists && !torn_header,
            finished: Finished {
                path: path.to_path_buf(),
                chunks: restored,
                bytes: header_len..valid_len,
                rechecks,
                remedy: Remedy::StartOver,
                _counts: PhantomData,
            },
        })
    }

    /// Says in a note when a resume found no journal, so that a mistyped
    /// output path, or a journal a finished run already removed, does not
    /// redo everything without a word. For the caller to print once every
    /// refusal of its own has passed: a refusal is its one line.
    pub fn note_if_nothing_to_resume(&self) {
        if self.nothing_to_resume {
            crate::error::say(format_args!(
                "note: {}: no checkpoint here, so --resume has nothing to carry on from; starting from the beginning",
                self.finished.path.display()
            ));
        }
    }

    /// Reads the journal at `path` of the run named by `fingerprint`, read
    /// only: `None` if there is none or it holds no progress; refused, as a
    /// resume would refuse it, if it belongs to another run or was edited,
    /// with `remedy` saying what to do about it. A torn last line (a record
    /// being written) is left out, and the file is left as it is.
    pub fn read_only(
        path: &Path,
        fingerprint: &str,
        remedy: Remedy,
    ) -> anyhow::Result<Option<Finished<C>>> {
        refuse_unless_file_or_absent(path, Role::Read("the checkpoint"))?;
        if !path.exists() {
            return Ok(None);
        }
        let found = read_back::<C>(path, &Header::named(fingerprint), true, remedy)?;
        Ok(found.exists.then(|| Finished {
            path: path.to_path_buf(),
            chunks: found.restored,
            bytes: found.header_len..found.valid_len,
            rechecks: found.rechecks,
            remedy,
            _counts: PhantomData,
        }))
    }

    /// How many finished chunks were read back on resume.
    pub fn done_count(&self) -> u64 {
        self.finished.chunks.len() as u64
    }

    /// Where the journal is, for messages about it.
    pub fn path(&self) -> &Path {
        &self.finished.path
    }

    /// The chunks read back on resume, in the order they were recorded.
    pub fn done_chunks(&self) -> &[u64] {
        &self.finished.chunks
    }

    /// What was read back on resume.
    pub fn finished(&self) -> &Finished<C> {
        &self.finished
    }

    /// Every recheck the journal records: those read back, then those
    /// passed since.
    pub fn rechecks(&self) -> Vec<RecheckPassed> {
        let read = self.finished.rechecks.iter();
        read.chain(&self.rechecks_since).cloned().collect()
    }

    /// Appends one finished chunk durably: one write, then a sync.
    pub fn record(&mut self, chunk: u64, counts: &C) -> anyhow::Result<()> {
        if !self.recorded.insert(chunk) {
            anyhow::bail!(
                "{}: chunk {chunk} was finished twice in one run (a bug); its checkpoint was not extended",
                self.finished.path.display()
            );
        }
        self.append(&serde_json::to_vec(&RecordOut { chunk, counts })?)
    }

    /// Appends a recheck the journal's chunks passed, durably. Its chunks
    /// must be recorded already.
    pub fn record_recheck(&mut self, recheck: RecheckPassed) -> anyhow::Result<()> {
        if let Some(c) = recheck.chunks.iter().find(|c| !self.recorded.contains(c)) {
            anyhow::bail!(
                "{}: chunk {c} was rechecked but is not recorded (a bug); the checkpoint was not extended",
                self.finished.path.display()
            );
        }
        let json = serde_json::to_vec(&RecheckLine {
            recheck: recheck.clone(),
        })?;
        debug_assert!(json.starts_with(RECHECK_PREFIX));
        self.append(&json)?;
        self.rechecks_since.push(recheck);
        Ok(())
    }

    /// Appends one sealed record line, `json`, with one write, then a sync.
    fn append(&mut self, json: &[u8]) -> anyhow::Result<()> {
        self.refuse_if_replaced()?;
        let mut line = format!("{:08x} ", crc32fast::hash(json)).into_bytes();
        line.extend_from_slice(json);
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|_| self.file.sync_data())
            .map_err(|e| {
                anyhow::anyhow!(
                    "cannot write checkpoint {}: {e}; the chunks recorded before are kept, so once that is fixed a rerun with --resume carries on from them",
                    self.finished.path.display()
                )
            })
    }

    /// Fails when the checkpoint's path no longer names the file this
    /// journal writes: `git stash` or `git checkout` of a committed
    /// checkpoint, or an editor saving over it, puts a new file there, and
    /// records appended to the old one would be lost with it while the run
    /// said they were checkpointed. (This happened to the both-rules 26x26
    /// run: 62 deals recorded into a file no longer in the directory.) One
    /// `stat` a chunk, beside the chunk's `fsync`.
    fn refuse_if_replaced(&self) -> anyhow::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let path = &self.finished.path;
            let ours = self.file.metadata()?;
            let same = std::fs::metadata(path)
                .is_ok_and(|there| (there.dev(), there.ino()) == (ours.dev(), ours.ino()));
            if !same {
                anyhow::bail!(
                    "{}: the checkpoint was replaced or removed while this run wrote it (by `git stash` or `git checkout` of a committed checkpoint, or another program); the chunks recorded into the old file since are lost with it, so the run stops here instead of saying they are checkpointed; rerun with --resume to redo them from what the file now holds",
                    path.display()
                );
            }
        }
        Ok(())
    }

    /// Moves the journal to `to` once a shard's outputs are safely
    /// written: its records, each under its checksum, let `runner merge
    /// --recheck` solve the shard's chunks again. (A rename: the records
    /// are already durable.)
    pub fn keep_as(self, to: &Path) -> anyhow::Result<()> {
        let path = self.close();
        std::fs::rename(&path, to)
            .with_context(|| format!("cannot move {} to {}", path.display(), to.display()))
    }

    /// Removes the journal once the run's outputs are safely written.
    pub fn remove(self) -> anyhow::Result<()> {
        let path = self.close();
        std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))
    }

    /// Closes the file (and with it the lock), leaving its path.
    fn close(self) -> PathBuf {
        drop(self.file);
        self.finished.path
    }
}

impl<C> Finished<C> {
    /// The end of a message refusing one of its records as edited.
    pub fn edited(&self) -> &'static str {
        self.remedy.edited()
    }

    /// The end of a message about a chunk that came out other than its
    /// record when solved again.
    pub fn differs(&self) -> &'static str {
        self.remedy.differs()
    }
}

impl<C: DeserializeOwned> Finished<C> {
    /// The chunks read back, in the order they were recorded.
    pub fn chunks(&self) -> &[u64] {
        &self.chunks
    }

    /// The rechecks read back, in the order they were recorded.
    pub fn rechecks(&self) -> &[RecheckPassed] {
        &self.rechecks
    }

    /// Where the journal is, for messages about it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Hands each chunk read back to `f`, with its counts, in the order
    /// they were recorded. The lines were checked when the journal was
    /// read; one chunk's counts are in memory at a time.
    pub fn replay(&self, mut f: impl FnMut(u64, C) -> anyhow::Result<()>) -> anyhow::Result<()> {
        let cannot_read = || format!("cannot read {}", self.path.display());
        let mut file = File::open(&self.path).with_context(cannot_read)?;
        file.seek(SeekFrom::Start(self.bytes.start))
            .with_context(cannot_read)?;
        let mut reader = BufReader::new(file).take(self.bytes.end - self.bytes.start);
        let mut line = Vec::new();
        let changed = || {
            refuse(format!(
                "{}: changed while it was being read back",
                self.path.display()
            ))
        };
        let mut expected = self.chunks.iter().peekable();
        while let Some(&&want) = expected.peek() {
            line.clear();
            if reader
                .read_until(b'\n', &mut line)
                .with_context(cannot_read)?
                == 0
            {
                return Err(changed());
            }
            // The records read are final (a run only appends), so a change
            // since they were read is refused rather than trusted.
            match parse_record::<C>(line.trim_ascii_end()) {
                Ok(Line::Recheck(_)) => {}
                Ok(Line::Chunk(record)) if record.chunk == want => {
                    expected.next();
                    f(record.chunk, record.counts)?;
                }
                _ => return Err(changed()),
            }
        }
        Ok(())
    }
}

/// What an existing journal holds, read and checked line by line.
struct Found {
    /// Chunks recorded, in file order.
    restored: Vec<u64>,
    /// Rechecks recorded, in file order.
    rechecks: Vec<RecheckPassed>,
    /// Bytes of the header line (0 if there is no whole header).
    header_len: u64,
    /// Bytes of the header and the whole, good records after it.
    valid_len: u64,
    /// Whether the file holds a whole header, so there is progress to keep.
    exists: bool,
    /// The file is empty or its header was cut short: no progress.
    torn_header: bool,
}

/// Refuses, as [`Journal::open`] would, if another process writes the
/// journal at `path`, for a caller that reads the journal first in its own
/// way; holds no lock once it returns.
pub fn refuse_if_another_writes(path: &Path) -> anyhow::Result<()> {
    match File::open(path) {
        Ok(file) => lock_or_refuse(&file, path),
        Err(_) => Ok(()),
    }
}

/// Makes this process the only writer of the journal open as `file`, or
/// refuses: an advisory `flock`, released by the kernel however the
/// process ends. Where the filesystem refuses locks, it goes ahead (the
/// checksummed lines still catch a mixed record).
fn lock_or_refuse(file: &File, path: &Path) -> anyhow::Result<()> {
    match file.try_lock() {
        Ok(()) | Err(std::fs::TryLockError::Error(_)) => Ok(()),
        Err(std::fs::TryLockError::WouldBlock) => Err(refuse(format!(
            "{}: another process is writing this checkpoint; wait for it to finish (or stop it with Ctrl-C), or give another output",
            path.display()
        ))),
    }
}

/// Reads back the journal at `path` if `resume` asks for it: refuses a
/// journal of another run (by `header`) and any edited or corrupted line,
/// drops a torn last line, and takes an empty or torn header for no
/// progress. Writes nothing.
fn read_back<C: DeserializeOwned>(
    path: &Path,
    header: &Header,
    resume: bool,
    remedy: Remedy,
) -> anyhow::Result<Found> {
    let mut restored = Vec::new();
    let mut rechecks = Vec::new();
    let mut header_len = 0u64;
    let mut valid_len = 0u64;
    let mut exists = path.exists();
    let mut torn_header = false;
    if resume && exists {
        let cannot_read = || format!("cannot read {}", path.display());
        let mut reader = BufReader::new(File::open(path).with_context(cannot_read)?);
        let mut line = Vec::new();
        reader
            .read_until(b'\n', &mut line)
            .with_context(cannot_read)?;
        let whole_header = line.ends_with(b"\n");
        match serde_json::from_slice::<Header>(line.trim_ascii_end()) {
            _ if !whole_header => {
                exists = false;
                torn_header = true;
            }
            Ok(found) => {
                if found != *header {
                    return Err(refuse(format!(
                        "{}: checkpoint belongs to another run ({}), not this config and shard ({}): the config, the shard, or how this build cuts the work into chunks differs; {}",
                        path.display(),
                        found.fingerprint,
                        header.fingerprint,
                        remedy.other_run()
                    )));
                }
                header_len = line.len() as u64;
                valid_len = header_len;
                let mut seen = HashSet::new();
                for n in 2.. {
                    line.clear();
                    if reader
                        .read_until(b'\n', &mut line)
                        .with_context(cannot_read)?
                        == 0
                    {
                        break;
                    }
                    let torn = !line.ends_with(b"\n");
                    match parse_record::<C>(line.trim_ascii_end()) {
                        Ok(Line::Recheck(r)) => {
                            if let Some(c) = r.chunks.iter().find(|&c| !seen.contains(c)) {
                                return Err(refuse(format!(
                                    "{} line {n}: a recheck of chunk {c}, which no line before it records; {}",
                                    path.display(),
                                    remedy.edited()
                                )));
                            }
                            rechecks.push(r);
                            valid_len += line.len() as u64;
                        }
                        Ok(Line::Chunk(r)) => {
                            if !seen.insert(r.chunk) {
                                return Err(refuse(format!(
                                    "{} line {n}: chunk {} recorded twice; {}",
                                    path.display(),
                                    r.chunk,
                                    remedy.edited()
                                )));
                            }
                            restored.push(r.chunk);
                            valid_len += line.len() as u64;
                        }
                        // A line cut short by a kill can only be the last one.
                        Err(_) if torn => break,
                        Err(e) => {
                            return Err(refuse(format!(
                                "{} line {n}: {}",
                                path.display(),
                                e.with(remedy)
                            )));
                        }
                    }
                }
            }
            Err(e) => {
                return Err(refuse(format!(
                    "{} line 1: not a runner checkpoint: {e}",
                    path.display()
                )));
            }
        }
    }
    Ok(Found {
        restored,
        rechecks,
        header_len,
        valid_len,
        exists,
        torn_header,
    })
}

/// What a journal holds, for `runner plan`.
#[derive(Debug, PartialEq)]
pub struct Held {
    /// Finished chunks, by global index.
    pub done: std::collections::HashSet<u64>,
    /// The rechecks it passed, in file order.
    pub rechecks: Vec<RecheckPassed>,
}

/// What the journal at `path` holds for the run named by `fingerprint`,
/// read only (for `runner plan`): `None` if there is no journal or it
/// holds no progress; refused, as a resume would refuse it, if it belongs
/// to another run or was edited.
pub fn held(path: &Path, fingerprint: &str) -> anyhow::Result<Option<Held>> {
    refuse_unless_file_or_absent(path, Role::Read("the checkpoint"))?;
    if !path.exists() {
        return Ok(None);
    }
    let found =
        read_back::<IgnoredAny>(path, &Header::named(fingerprint), true, Remedy::StartOver)?;
    Ok(found.exists.then_some(Held {
        done: found.restored.into_iter().collect(),
        rechecks: found.rechecks,
    }))
}

/// The run named in the header of the journal at `path`, read only (for
/// `runner plan`, which must say whose checkpoint it is before it can count
/// it): `None` if there is no journal or its header is not whole or not a
/// runner checkpoint's.
pub fn fingerprint_of(path: &Path) -> anyhow::Result<Option<String>> {
    refuse_unless_file_or_absent(path, Role::Read("the checkpoint"))?;
    let Ok(file) = File::open(path) else {
        return Ok(None);
    };
    let mut line = Vec::new();
    // A header is one short line; reading at most 64 KiB of it keeps an
    // unrelated huge file from being read whole.
    BufReader::new(file.take(64 << 10))
        .read_until(b'\n', &mut line)
        .with_context(|| format!("cannot read {}", path.display()))?;
    if !line.ends_with(b"\n") {
        return Ok(None);
    }
    Ok(serde_json::from_slice::<Header>(line.trim_ascii_end())
        .ok()
        .map(|h| h.fingerprint))
}

/// Why a record line was not read.
enum BadLine {
    /// Its checksum is missing or does not match: damaged or edited.
    Damaged(&'static str),
    /// Its checksum holds but this build cannot read its JSON: written by
    /// another build (a newer one's kind of record, say), or edited with
    /// its checksum recomputed.
    Unreadable(String),
}

impl BadLine {
    /// Why the line was refused, and what to do about it.
    fn with(&self, remedy: Remedy) -> String {
        match self {
            BadLine::Damaged(why) => format!("{why}; {}", remedy.damaged()),
            BadLine::Unreadable(why) => format!("{why}; {}", remedy.other_build()),
        }
    }
}

/// One record line: its checksum checked, then its JSON read.
fn parse_record<C: DeserializeOwned>(line: &[u8]) -> Result<Line<C>, BadLine> {
    let (sum, json) = match line.iter().position(|&b| b == b' ') {
        Some(at) => (&line[..at], &line[at + 1..]),
        None => return Err(BadLine::Damaged("no checksum")),
    };
    let expected = std::str::from_utf8(sum)
        .ok()
        .and_then(|s| u32::from_str_radix(s, 16).ok())
        .ok_or(BadLine::Damaged("no checksum"))?;
    if crc32fast::hash(json) != expected {
        return Err(BadLine::Damaged("checksum mismatch"));
    }
    if json.starts_with(RECHECK_PREFIX) {
        return serde_json::from_slice::<RecheckLine>(json)
            .map(|l| Line::Recheck(l.recheck))
            .map_err(|e| BadLine::Unreadable(format!("unreadable recheck: {e}")));
    }
    serde_json::from_slice(json)
        .map(Line::Chunk)
        .map_err(|e| BadLine::Unreadable(format!("a record this build cannot read: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything `replay` hands over, by chunk.
    fn restored<C: Serialize + DeserializeOwned>(
        j: &Journal<C>,
    ) -> std::collections::HashMap<u64, C> {
        let mut all = std::collections::HashMap::new();
        j.finished()
            .replay(|chunk, counts| {
                assert!(all.insert(chunk, counts).is_none());
                Ok(())
            })
            .unwrap();
        all
    }

    /// A journal path in a fresh directory, and a guard that removes the
    /// directory when the test is done with it (kept if the test fails,
    /// to be looked at).
    fn tmp(name: &str) -> (RemovedOnDrop, PathBuf) {
        let dir =
            std::env::temp_dir().join(format!("runner-journal-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let path = dir.join("checkpoint.jsonl");
        (RemovedOnDrop(dir), path)
    }

    struct RemovedOnDrop(PathBuf);

    /// A journal "abc" of chunks 3 ([1, 2]) and 0 ([7]), then a line cut
    /// short as a kill leaves it.
    fn two_chunks_and_a_torn_line(path: &Path) {
        let mut j = Journal::<Vec<u32>>::open(path, "abc", false).unwrap();
        j.record(3, &vec![1, 2]).unwrap();
        j.record(0, &vec![7]).unwrap();
        drop(j);
        let mut f = OpenOptions::new().append(true).open(path).unwrap();
        f.write_all(b"0badc0de {\"chunk\": 9, \"coun").unwrap();
    }

    impl Drop for RemovedOnDrop {
        fn drop(&mut self) {
            if !std::thread::panicking() {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn resume_reads_back_finished_chunks_and_drops_a_torn_line() {
        let (_dir, path) = tmp("torn");
        two_chunks_and_a_torn_line(&path);
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", true).unwrap();
        let got = restored(&j);
        assert_eq!(got.len(), 2);
        assert_eq!(got[&3], vec![1, 2]);
        j.record(9, &vec![5]).unwrap();
        drop(j);
        let j = Journal::<Vec<u32>>::open(&path, "abc", true).unwrap();
        assert_eq!(restored(&j).len(), 3);
    }

    fn passed(chunks: &[u64]) -> RecheckPassed {
        RecheckPassed {
            started: "2026-12-04T03:00:00Z".into(),
            chunks: chunks.to_vec(),
            of_chunks: 2,
            git_commit: "abc".into(),
            seconds: 1.5,
            shard_index: None,
        }
    }

    /// A recheck line between chunk records is read back as a recheck, not
    /// a chunk: a resume, a replay and `runner plan`'s count skip it, and
    /// the journal names it after more chunks are recorded.
    #[test]
    fn a_recheck_line_is_kept_apart_from_the_chunks() {
        let (_dir, path) = tmp("recheck");
        two_chunks_and_a_torn_line(&path);
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", true).unwrap();
        j.record_recheck(passed(&[0, 3])).unwrap();
        j.record(9, &vec![5]).unwrap();
        assert_eq!(j.rechecks(), vec![passed(&[0, 3])]);
        let err = j.record_recheck(passed(&[4])).err().unwrap();
        assert!(err.to_string().contains("chunk 4"), "{err}");
        drop(j);
        assert_eq!(held(&path, "abc").unwrap().map(|h| h.done.len()), Some(3));
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", true).unwrap();
        assert_eq!(j.done_chunks(), [3, 0, 9]);
        assert_eq!(restored(&j)[&9], vec![5]);
        assert_eq!(j.finished().rechecks(), [passed(&[0, 3])]);
        j.record_recheck(passed(&[9])).unwrap();
        assert_eq!(j.rechecks(), vec![passed(&[0, 3]), passed(&[9])]);
    }

    /// A line whose checksum holds but whose record this build cannot read
    /// (a kind of record a newer build writes) is refused without calling
    /// the checkpoint corrupted: the build that wrote it can resume it.
    #[test]
    fn a_sealed_record_of_an_unknown_kind_names_another_build() {
        let (_dir, path) = tmp("unknown-kind");
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", false).unwrap();
        j.record(0, &vec![1]).unwrap();
        drop(j);
        let json = r#"{"pause":{"started":"2027-01-01T00:00:00Z"}}"#;
        let line = format!("{:08x} {json}\n", crc32fast::hash(json.as_bytes()));
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(line.as_bytes()).unwrap();
        drop(f);
        let err = Journal::<Vec<u32>>::open(&path, "abc", true).err().unwrap();
        assert!(crate::error::is_refused(&err), "{err}");
        let said = err.to_string();
        assert!(
            said.contains("line 3: a record this build cannot read")
                && said.contains("another build of runner")
                && !said.contains("corrupted"),
            "{said}"
        );
    }

    /// A recheck line edited (its checksum then wrong), or sealed again
    /// naming a chunk no line before it records, is refused as an edited
    /// chunk record is.
    #[test]
    fn an_edited_recheck_line_is_refused() {
        let (_dir, path) = tmp("recheck-edited");
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", false).unwrap();
        j.record(0, &vec![1]).unwrap();
        j.record_recheck(passed(&[0])).unwrap();
        drop(j);
        let good = std::fs::read_to_string(&path).unwrap();
        let json = serde_json::to_string(&RecheckLine {
            recheck: passed(&[0, 1]),
        })
        .unwrap();
        let sealed = format!("{:08x} {json}", crc32fast::hash(json.as_bytes()));
        let recheck_line = good.lines().nth(2).unwrap();
        for (what, bad, said) in [
            (
                "chunks edited",
                good.replacen("\"chunks\":[0]", "\"chunks\":[1]", 1),
                "checksum mismatch",
            ),
            (
                "sealed again",
                good.replacen(recheck_line, &sealed, 1),
                "a recheck of chunk 1",
            ),
        ] {
            assert_ne!(bad, good, "{what}");
            std::fs::write(&path, &bad).unwrap();
            let err = Journal::<Vec<u32>>::open(&path, "abc", true).err().unwrap();
            assert!(crate::error::is_refused(&err), "{what}");
            assert!(
                err.to_string().contains("line 3") && err.to_string().contains(said),
                "{what}: {err}"
            );
        }
    }

    #[test]
    fn a_journal_changed_after_it_was_read_is_refused_on_replay() {
        let (_dir, path) = tmp("changed");
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", false).unwrap();
        j.record(0, &vec![1]).unwrap();
        j.record(1, &vec![2]).unwrap();
        drop(j);
        let j = Journal::<Vec<u32>>::open(&path, "abc", true).unwrap();
        assert_eq!(j.done_count(), 2);
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replacen("[1]", "[7]", 1)).unwrap();
        let err = j.finished().replay(|_, _| Ok(())).err().unwrap();
        assert!(crate::error::is_refused(&err), "{err}");
    }

    #[test]
    fn resume_refuses_another_runs_journal() {
        let (_dir, path) = tmp("other");
        Journal::<u32>::open(&path, "abc", false)
            .unwrap()
            .record(1, &5)
            .unwrap();
        let err = Journal::<u32>::open(&path, "xyz", true)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("another run"), "{err}");
        // A newer build may cut the same config otherwise: say how to go on.
        assert!(err.contains("--fresh"), "{err}");
    }

    /// Two writers of one journal (two batches started at once on one
    /// `--out`): the second is refused before it cuts the file, and the
    /// first's records stay.
    #[test]
    fn a_second_writer_is_refused_before_it_cuts_the_journal() {
        let (_dir, path) = tmp("two-writers");
        let mut first = Journal::<u32>::open(&path, "abc", false).unwrap();
        first.record(1, &5).unwrap();
        for resume in [false, true] {
            let e = Journal::<u32>::open(&path, "abc", resume).err().unwrap();
            assert!(format!("{e:#}").contains("another process"), "{e:#}");
        }
        first.record(2, &6).unwrap();
        drop(first);
        let j = Journal::<u32>::open(&path, "abc", true).unwrap();
        assert_eq!(restored(&j), [(1, 5), (2, 6)].into_iter().collect());
    }

    #[test]
    fn without_resume_an_old_journal_is_replaced() {
        let (_dir, path) = tmp("fresh");
        Journal::<u32>::open(&path, "abc", false)
            .unwrap()
            .record(1, &5)
            .unwrap();
        let j = Journal::<u32>::open(&path, "abc", false).unwrap();
        assert!(restored(&j).is_empty());
        drop(j);
        let j = Journal::<u32>::open(&path, "abc", true).unwrap();
        assert!(restored(&j).is_empty());
    }

    #[test]
    fn an_edited_or_corrupted_line_is_refused_naming_it() {
        let (_dir, path) = tmp("edited");
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", false).unwrap();
        j.record(0, &vec![10, 2]).unwrap();
        j.record(1, &vec![7]).unwrap();
        drop(j);
        let good = std::fs::read_to_string(&path).unwrap();
        for (what, bad) in [
            ("count edited", good.replacen("[10,2]", "[110,2]", 1)),
            (
                "checksum lost",
                good.replacen(" {\"chunk\":1", "{\"chunk\":1", 1),
            ),
            ("chunk duplicated", {
                let line = good.lines().nth(1).unwrap().to_string();
                format!("{good}{line}\n")
            }),
        ] {
            assert_ne!(bad, good, "{what}");
            std::fs::write(&path, &bad).unwrap();
            let err = Journal::<Vec<u32>>::open(&path, "abc", true).err().unwrap();
            assert!(crate::error::is_refused(&err), "{what}");
            assert!(err.to_string().contains("line "), "{what}: {err}");
        }
    }

    #[test]
    fn held_reads_without_writing_and_refuses_what_a_resume_refuses() {
        let (_dir, path) = tmp("done");
        assert!(
            held(&path, "abc").unwrap().map(|h| h.done.len()).is_none(),
            "no journal"
        );
        drop(Journal::<Vec<u32>>::open(&path, "abc", false).unwrap());
        assert_eq!(held(&path, "abc").unwrap().map(|h| h.done.len()), Some(0));
        two_chunks_and_a_torn_line(&path);
        let before = std::fs::read(&path).unwrap();
        assert_eq!(
            held(&path, "abc").unwrap().map(|h| h.done.len()),
            Some(2),
            "torn line"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before, "nothing written");
        let err = held(&path, "xyz").err().unwrap();
        assert!(err.to_string().contains("another run"), "{err}");
        let text = String::from_utf8(before).unwrap();
        std::fs::write(&path, text.replacen("[7]", "[8]", 1)).unwrap();
        let err = held(&path, "abc").err().unwrap();
        assert!(crate::error::is_refused(&err), "{err}");
        std::fs::write(&path, "").unwrap();
        assert!(
            held(&path, "abc").unwrap().map(|h| h.done.len()).is_none(),
            "empty"
        );
    }

    #[test]
    fn an_empty_or_torn_header_is_no_progress() {
        let (_dir, path) = tmp("header");
        for text in ["", "{\"journal\": \"runner chec"] {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            let mut j = Journal::<u32>::open(&path, "abc", true).unwrap();
            assert!(restored(&j).is_empty());
            j.record(4, &1).unwrap();
            drop(j);
            let j = Journal::<u32>::open(&path, "abc", true).unwrap();
            assert_eq!(restored(&j).len(), 1, "{text:?}");
        }
    }
}
