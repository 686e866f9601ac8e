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

use crate::error::refuse;
use anyhow::Context;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
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
            journal: "runner checkpoint v2".into(),
            fingerprint: fingerprint.into(),
        };
        let mut restored = HashMap::new();
        let mut valid_len = 0u64;
        let mut exists = path.exists();
        if resume && exists {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let mut lines = bytes
                .split_inclusive(|&b| b == b'\n')
                .enumerate()
                .peekable();
            let header_line = lines.next().map(|(_, l)| l).unwrap_or_default();
            let whole_header = header_line.ends_with(b"\n");
            match serde_json::from_slice::<Header>(header_line.trim_ascii_end()) {
                _ if !whole_header => {
                    eprintln!(
                        "note: {}: checkpoint header is empty or cut short; no progress to resume, starting over",
                        path.display()
                    );
                    exists = false;
                }
                Ok(found) => {
                    if found != header {
                        return Err(refuse(format!(
                            "{}: checkpoint belongs to another run ({}), not this config and shard ({}); remove it or use another --out",
                            path.display(),
                            found.fingerprint,
                            fingerprint
                        )));
                    }
                    valid_len = header_line.len() as u64;
                    for (n, line) in lines {
                        let torn = !line.ends_with(b"\n");
                        match parse_record::<C>(line.trim_ascii_end()) {
                            Ok(r) => {
                                if restored.insert(r.chunk, r.counts).is_some() {
                                    return Err(refuse(format!(
                                        "{} line {}: chunk {} recorded twice; the checkpoint was edited",
                                        path.display(),
                                        n + 1,
                                        r.chunk
                                    )));
                                }
                                valid_len += line.len() as u64;
                            }
                            // A line cut short by a kill can only be the last one.
                            Err(_) if torn => break,
                            Err(e) => {
                                return Err(refuse(format!(
                                    "{} line {}: {e}; the checkpoint was edited or corrupted (remove it to start over)",
                                    path.display(),
                                    n + 1
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

    /// How many finished chunks were read back on resume.
    pub fn done_count(&self) -> u64 {
        self.restored.len() as u64
    }

    /// Chunks read back on resume; taken once by the engine.
    pub fn take_restored(&mut self) -> HashMap<u64, C> {
        std::mem::take(&mut self.restored)
    }

    /// Appends one finished chunk durably: one write, then a sync.
    pub fn record(&mut self, chunk: u64, counts: &C) -> anyhow::Result<()> {
        let json = serde_json::to_vec(&RecordOut { chunk, counts })?;
        let mut line = format!("{:08x} ", crc32fast::hash(&json)).into_bytes();
        line.extend(json);
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

/// One record line: its checksum checked, then its JSON read.
fn parse_record<C: DeserializeOwned>(line: &[u8]) -> Result<RecordIn<C>, String> {
    let (sum, json) = match line.iter().position(|&b| b == b' ') {
        Some(at) => (&line[..at], &line[at + 1..]),
        None => return Err("no checksum".into()),
    };
    let expected = std::str::from_utf8(sum)
        .ok()
        .and_then(|s| u32::from_str_radix(s, 16).ok())
        .ok_or("no checksum")?;
    if crc32fast::hash(json) != expected {
        return Err("checksum mismatch".into());
    }
    serde_json::from_slice(json).map_err(|e| format!("unreadable counts: {e}"))
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
        f.write_all(b"0badc0de {\"chunk\": 9, \"coun").unwrap();
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

    #[test]
    fn an_edited_or_corrupted_line_is_refused_naming_it() {
        let path = tmp("edited");
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
    fn an_empty_or_torn_header_is_no_progress() {
        let path = tmp("header");
        for text in ["", "{\"journal\": \"runner chec"] {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            let mut j = Journal::<u32>::open(&path, "abc", true).unwrap();
            assert!(j.take_restored().is_empty());
            j.record(4, &1).unwrap();
            drop(j);
            let mut j = Journal::<u32>::open(&path, "abc", true).unwrap();
            assert_eq!(j.take_restored().len(), 1, "{text:?}");
        }
    }
}
