//! The checkpoint journal: one line per finished chunk, appended and synced,
//! so a run killed at any moment resumes where it stopped.
//!
//! The first line names what the journal belongs to (config hash, version,
//! shard); a resume refuses a journal of anything else. A kill can cut the
//! last line short; that line is dropped and its chunk simply runs again.

use anyhow::{Context, bail};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::marker::PhantomData;
use std::path::{Path, PathBuf};

#[derive(Serialize, serde::Deserialize, PartialEq, Debug)]
struct Header {
    journal: String,
    fingerprint: String,
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

/// An append-only record of finished chunks and their counts.
pub struct Journal<C> {
    file: File,
    path: PathBuf,
    restored: HashMap<u64, C>,
    _counts: PhantomData<C>,
}

impl<C: Serialize + DeserializeOwned> Journal<C> {
    /// Opens the journal at `path`. With `resume`, an existing journal with
    /// the same `fingerprint` is read back and extended; without it, any old
    /// journal is replaced.
    pub fn open(path: &Path, fingerprint: &str, resume: bool) -> anyhow::Result<Self> {
        if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let header = Header {
            journal: "runner checkpoint v1".into(),
            fingerprint: fingerprint.into(),
        };
        let mut restored = HashMap::new();
        let mut valid_len = 0u64;
        let exists = path.exists();
        if resume && exists {
            let reader = BufReader::new(
                File::open(path).with_context(|| format!("cannot read {}", path.display()))?,
            );
            let mut lines = reader.split(b'\n').peekable();
            let first = lines.next().transpose()?.unwrap_or_default();
            let found: Header = serde_json::from_slice(&first)
                .with_context(|| format!("{}: not a runner checkpoint", path.display()))?;
            if found != header {
                bail!(
                    "{}: checkpoint belongs to another run ({}), not this config and shard ({}); remove it or use another --out",
                    path.display(),
                    found.fingerprint,
                    fingerprint
                );
            }
            valid_len = first.len() as u64 + 1;
            while let Some(line) = lines.next() {
                let line = line?;
                let last = lines.peek().is_none();
                match serde_json::from_slice::<RecordIn<C>>(&line) {
                    Ok(r) => {
                        restored.insert(r.chunk, r.counts);
                        valid_len += line.len() as u64 + 1;
                    }
                    // A line cut short by a kill can only be the last one.
                    Err(_) if last => break,
                    Err(e) => bail!("{}: corrupt checkpoint line: {e}", path.display()),
                }
            }
        }
        let mut file = OpenOptions::new()
            .create(true)
            .read(true)
            .write(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("cannot open {}", path.display()))?;
        if resume && exists {
            // Drop a torn last line, then append after the good ones.
            file.set_len(valid_len)?;
            use std::io::Seek;
            file.seek(std::io::SeekFrom::End(0))?;
        } else {
            file.set_len(0)?;
            let mut line = serde_json::to_vec(&header)?;
            line.push(b'\n');
            file.write_all(&line)?;
            file.sync_data()?;
        }
        Ok(Journal {
            file,
            path: path.to_path_buf(),
            restored,
            _counts: PhantomData,
        })
    }

    /// Chunks read back on resume; taken once by the engine.
    pub fn take_restored(&mut self) -> HashMap<u64, C> {
        std::mem::take(&mut self.restored)
    }

    /// Appends one finished chunk durably: one write, then a sync.
    pub fn record(&mut self, chunk: u64, counts: &C) -> anyhow::Result<()> {
        let mut line = serde_json::to_vec(&RecordOut { chunk, counts })?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .and_then(|_| self.file.sync_data())
            .with_context(|| format!("cannot write checkpoint {}", self.path.display()))
    }

    /// Removes the journal once the run's outputs are safely written.
    pub fn remove(self) -> anyhow::Result<()> {
        drop(self.file);
        std::fs::remove_file(&self.path)
            .with_context(|| format!("cannot remove {}", self.path.display()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("runner-journal-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir.join("checkpoint.jsonl")
    }

    #[test]
    fn resume_reads_back_finished_chunks_and_drops_a_torn_line() {
        let path = tmp("torn");
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", false).unwrap();
        j.record(3, &vec![1, 2]).unwrap();
        j.record(0, &vec![7]).unwrap();
        drop(j);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"chunk\": 9, \"coun").unwrap();
        drop(f);
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", true).unwrap();
        let got = j.take_restored();
        assert_eq!(got.len(), 2);
        assert_eq!(got[&3], vec![1, 2]);
        j.record(9, &vec![5]).unwrap();
        drop(j);
        let mut j = Journal::<Vec<u32>>::open(&path, "abc", true).unwrap();
        assert_eq!(j.take_restored().len(), 3);
    }

    #[test]
    fn resume_refuses_another_runs_journal() {
        let path = tmp("other");
        Journal::<u32>::open(&path, "abc", false)
            .unwrap()
            .record(1, &5)
            .unwrap();
        let err = Journal::<u32>::open(&path, "xyz", true)
            .err()
            .unwrap()
            .to_string();
        assert!(err.contains("another run"), "{err}");
    }

    #[test]
    fn without_resume_an_old_journal_is_replaced() {
        let path = tmp("fresh");
        Journal::<u32>::open(&path, "abc", false)
            .unwrap()
            .record(1, &5)
            .unwrap();
        let mut j = Journal::<u32>::open(&path, "abc", false).unwrap();
        assert!(j.take_restored().is_empty());
        drop(j);
        let mut j = Journal::<u32>::open(&path, "abc", true).unwrap();
        assert!(j.take_restored().is_empty());
    }
}
