//! A stopped run's memo on disk (`--keep-memo`).
//!
//! A stop abandons the instances under way and a resume starts them over,
//! so an instance longer than every sitting (a batch job's time limit, a
//! working day) would never finish. A study that keeps a memo across
//! instances can write it out when the run stops, and the resumed run
//! reads it back before any chunk starts: what the abandoned instances
//! proved is then found instead of proved again.
//!
//! The study says what its tables hold; this file only frames the bytes.
//! A first line names the format, a second the run (the checkpoint's
//! fingerprint: config, version, shard), a third how the study's keys name
//! positions (a fingerprint the study computes from its key functions:
//! builds of one version can differ there), then come the study's bytes
//! and a CRC-32 of them. A memo is trusted with verdicts, so one of
//! another run or key encoding, or damaged, is refused rather than read:
//! deleting it loses only time.

use crate::error::{Role, refuse, refuse_unless_file_or_absent};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::Path;

/// The first line of a kept memo.
const FORMAT: &str = "runner kept memo 2";

/// The first line of a kept memo written before memos named their key
/// encoding: it has no third line.
const FORMAT_WITHOUT_KEYS: &str = "runner kept memo 1";

/// How a study's memo keys name positions, for [`write()`] and [`read()`].
#[derive(Clone, Copy, Debug)]
pub struct KeyEncoding<'a> {
    /// This build's encoding.
    pub current: &'a str,
    /// The encoding memos of the format without a key line were written
    /// with, if the study knows it: such a memo is read only when it is
    /// this build's.
    pub of_memos_without_keys: Option<&'a str>,
}

/// What a file that does not start as a kept memo is said to be.
const NOT_A_MEMO: &str = "not a memo kept by this runner";

/// Writes a kept memo for the run `run` to `path` atomically: `body`
/// writes the study's tables. Returns the file's size in bytes.
pub fn write(
    path: &Path,
    run: &str,
    keys: KeyEncoding,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> anyhow::Result<u64> {
    crate::export::write_atomic_with(path, |out| {
        writeln!(out, "{FORMAT}\n{run}\n{}", keys.current)?;
        let mut sealed = Crc {
            inner: out,
            crc: crc32fast::Hasher::new(),
        };
        body(&mut sealed)?;
        let crc = sealed.crc.finalize();
        out.write_all(&crc.to_le_bytes())?;
        Ok(())
    })?;
    Ok(std::fs::metadata(path)?.len())
}

/// [`write()`] on a stop, saying in one line what became of the memo; the
/// `work` under way (`deals`, `rows`) is what `--resume` carries on with
/// it. The checkpoint is whole either way: a memo that cannot be written
/// (a full disk) costs the next sitting time, not results, so the stop
/// goes on.
pub fn write_on_stop(
    path: &Path,
    run: &str,
    keys: KeyEncoding,
    work: &str,
    body: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) {
    let started = std::time::Instant::now();
    match write(path, run, keys, body) {
        Ok(bytes) => crate::error::say(format_args!(
            "kept the memo in {} ({}, {:.0} s); --resume reads it back and carries on the {work} under way",
            path.display(),
            crate::export::size_text(bytes),
            started.elapsed().as_secs_f64()
        )),
        Err(e) => crate::error::say(format_args!(
            "could not write the memo: {e:#}; the checkpoint is whole, and --resume starts the {work} under way over"
        )),
    }
}

/// Reads the kept memo at `path` into the study through `body`, if there
/// is one; returns its size in bytes, or `None` if there is no file. A
/// memo of another run, or one damaged or cut short, is refused (exit 2)
/// with a line saying to delete it.
pub fn read(
    path: &Path,
    run: &str,
    keys: KeyEncoding,
    body: impl FnOnce(&mut dyn Read) -> io::Result<()>,
) -> anyhow::Result<Option<u64>> {
    refuse_unless_file_or_absent(path, Role::Read("read as a kept memo"))?;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(refuse(format!("{}: cannot read: {e}", path.display()))),
    };
    let size = file.metadata()?.len();
    let unusable = |what: String| {
        refuse(format!(
            "{}: {what}; delete it to resume without it (what was under way then starts over)",
            path.display()
        ))
    };
    let mut input = BufReader::with_capacity(1 << 20, file);
    let format = header_line(&mut input).map_err(|e| unusable(e.to_string()))?;
    if format != FORMAT && format != FORMAT_WITHOUT_KEYS {
        return Err(unusable(NOT_A_MEMO.into()));
    }
    let found = header_line(&mut input).map_err(|e| unusable(e.to_string()))?;
    if found != run {
        return Err(unusable(format!(
            "the memo of another run ({found}; this run is {run})"
        )));
    }
    let found_keys = if format == FORMAT {
        Some(header_line(&mut input).map_err(|e| unusable(e.to_string()))?)
    } else {
        keys.of_memos_without_keys.map(str::to_owned)
    };
    if found_keys.as_deref() != Some(keys.current) {
        return Err(unusable(format!(
            "written by a build of runner whose memo keys name positions differently (keys {}; this build's are {}), so its verdicts would be another position's",
            found_keys.as_deref().unwrap_or("not recorded"),
            keys.current
        )));
    }
    let mut sealed = Crc {
        inner: &mut input,
        crc: crc32fast::Hasher::new(),
    };
    let damaged = |e: io::Error| {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            unusable("it ends early (cut short)".into())
        } else {
            unusable(format!("damaged: {e}"))
        }
    };
    body(&mut sealed).map_err(damaged)?;
    let crc = sealed.crc.finalize();
    let mut stored = [0u8; 4];
    input.read_exact(&mut stored).map_err(damaged)?;
    if u32::from_le_bytes(stored) != crc {
        return Err(unusable(
            "its checksum does not match (damaged or edited)".into(),
        ));
    }
    if input.read(&mut [0u8; 1])? != 0 {
        return Err(unusable("bytes follow its end (damaged or edited)".into()));
    }
    Ok(Some(size))
}

/// Refuses a path where a kept memo could not be written (a directory, a
/// device), before the checkpoint of the run or batch that may keep one
/// opens: a refusal then leaves nothing behind that asks for `--resume`.
pub fn refuse_unfit_path(path: &Path) -> anyhow::Result<()> {
    refuse_unless_file_or_absent(path, Role::Written("the kept memo"))
}

/// Removes a kept memo, once the run or batch it belongs to is finished
/// or started over; none there is nothing to do. Something other than a
/// file is left in place (removing a device node as root would break the
/// machine) and is a fault, not a refusal: [`refuse_unfit_path`] refused
/// it before the work, so it was put there since.
pub fn remove(path: &Path) -> anyhow::Result<()> {
    if let Ok(meta) = std::fs::metadata(path)
        && !meta.is_file()
    {
        anyhow::bail!(
            "cannot remove the kept memo {}: it is no longer a regular file, so it was left in place",
            path.display()
        );
    }
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => {
            Err(anyhow::Error::new(e).context(format!("cannot remove {}", path.display())))
        }
        _ => Ok(()),
    }
}

/// One header line, without its newline; at most a few hundred bytes, so a
/// file of something else is not read whole looking for one.
fn header_line(input: &mut impl BufRead) -> io::Result<String> {
    let mut line = Vec::new();
    input.take(512).read_until(b'\n', &mut line)?;
    let not_a_memo = || io::Error::new(io::ErrorKind::InvalidData, NOT_A_MEMO);
    if line.pop() != Some(b'\n') {
        return Err(not_a_memo());
    }
    String::from_utf8(line).map_err(|_| not_a_memo())
}

/// A reader or writer that keeps a CRC-32 of the bytes through it.
struct Crc<'a, T: ?Sized> {
    inner: &'a mut T,
    crc: crc32fast::Hasher,
}

impl<T: Write + ?Sized> Write for Crc<'_, T> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(bytes)?;
        self.crc.update(&bytes[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<T: Read + ?Sized> Read for Crc<'_, T> {
    fn read(&mut self, bytes: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(bytes)?;
        self.crc.update(&bytes[..n]);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("memo-file-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("memo.bin")
    }

    /// Removes the directory [`scratch`] made for `path`.
    fn remove_scratch(path: &Path) {
        std::fs::remove_dir_all(path.parent().expect("a scratch directory")).unwrap();
    }

    const KEYS: KeyEncoding = KeyEncoding {
        current: "keys 1",
        of_memos_without_keys: None,
    };

    fn read_back(path: &Path, run: &str) -> anyhow::Result<Vec<u8>> {
        read_back_with(path, run, KEYS)
    }

    fn read_back_with(path: &Path, run: &str, keys: KeyEncoding) -> anyhow::Result<Vec<u8>> {
        let mut got = Vec::new();
        read(path, run, keys, |r| {
            let mut n = [0u8; 1];
            r.read_exact(&mut n)?;
            got.resize(n[0] as usize, 0);
            r.read_exact(&mut got)
        })?;
        Ok(got)
    }

    /// What is written is read back by the same run; another run's memo,
    /// a flipped byte, a cut-short file and trailing bytes are refused,
    /// each as a refusal (exit 2) naming the file.
    #[test]
    fn a_memo_is_read_back_only_whole_and_by_its_own_run() {
        let path = scratch("round");
        let body: Vec<u8> = (0..200u8).collect();
        let size = write(&path, "config abc version 1 shard 0 of 1", KEYS, |w| {
            w.write_all(&[body.len() as u8])?;
            w.write_all(&body)
        })
        .unwrap();
        assert_eq!(size, std::fs::metadata(&path).unwrap().len());
        assert_eq!(
            read_back(&path, "config abc version 1 shard 0 of 1").unwrap(),
            body
        );
        let refused = |bytes: &[u8], run: &str| {
            std::fs::write(&path, bytes).unwrap();
            let e = read_back(&path, run).unwrap_err();
            assert!(e.downcast_ref::<crate::error::Refused>().is_some(), "{e}");
            assert!(e.to_string().contains("memo.bin"), "{e}");
            e.to_string()
        };
        let good = std::fs::read(&path).unwrap();
        let other = refused(&good, "config def version 1 shard 0 of 1");
        assert!(other.contains("another run"), "{other}");
        let mut flipped = good.clone();
        let middle = good.len() - 50;
        flipped[middle] ^= 4;
        assert!(refused(&flipped, "config abc version 1 shard 0 of 1").contains("checksum"));
        assert!(
            refused(&good[..good.len() - 2], "config abc version 1 shard 0 of 1")
                .contains("ends early")
        );
        let mut longer = good.clone();
        longer.push(0);
        assert!(refused(&longer, "config abc version 1 shard 0 of 1").contains("bytes follow"));
        assert!(refused(b"{\"not\": 1}", "x").contains("not a memo kept by this runner"));
        // Written by a build whose keys name positions otherwise.
        let other_keys = KeyEncoding {
            current: "keys 2",
            ..KEYS
        };
        std::fs::write(&path, &good).unwrap();
        let e = read_back_with(&path, "config abc version 1 shard 0 of 1", other_keys)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("memo.bin") && e.contains("keys 1") && e.contains("keys 2"),
            "{e}"
        );
        std::fs::remove_file(&path).unwrap();
        assert!(
            read(&path, "x", KEYS, |_| panic!("nothing to read"))
                .unwrap()
                .is_none()
        );
        remove_scratch(&path);
    }

    /// A memo of the first format, which named no key encoding, is read
    /// only by a build whose study says its keys are still the ones those
    /// memos were written with.
    #[test]
    fn a_memo_that_names_no_key_encoding_is_read_only_if_the_keys_are_those_it_had() {
        let path = scratch("unnamed");
        let run = "config abc version 1 shard 0 of 1";
        let mut old = format!("{FORMAT_WITHOUT_KEYS}\n{run}\n").into_bytes();
        let body = [3u8, 7, 8, 9];
        old.extend(body);
        old.extend(crc32fast::hash(&body).to_le_bytes());
        std::fs::write(&path, &old).unwrap();
        let known = |current, of_old| KeyEncoding {
            current,
            of_memos_without_keys: of_old,
        };
        let got = read_back_with(&path, run, known("keys 1", Some("keys 1"))).unwrap();
        assert_eq!(got, [7, 8, 9]);
        for keys in [known("keys 2", Some("keys 1")), known("keys 1", None)] {
            let e = read_back_with(&path, run, keys).unwrap_err().to_string();
            assert!(e.contains("name positions differently"), "{keys:?}: {e}");
        }
        remove_scratch(&path);
    }

    /// A directory at the memo's path is refused before the work (exit 2)
    /// and, put there since, is left in place by the removal at the end,
    /// as a fault (exit 3): the input was fine when the work began.
    #[test]
    fn a_memo_path_that_is_not_a_file_is_refused_first_and_left_in_place_last() {
        let path = scratch("not-a-file");
        assert!(refuse_unfit_path(&path).is_ok());
        std::fs::write(&path, b"kept").unwrap();
        assert!(refuse_unfit_path(&path).is_ok());
        remove(&path).unwrap();
        assert!(!path.exists());
        remove(&path).unwrap();

        std::fs::create_dir(&path).unwrap();
        let refused = refuse_unfit_path(&path).unwrap_err();
        assert!(crate::error::is_refused(&refused), "{refused}");
        assert!(refused.to_string().contains("memo.bin"), "{refused}");
        let fault = remove(&path).unwrap_err();
        assert!(!crate::error::is_refused(&fault), "{fault}");
        assert!(fault.to_string().contains("left in place"), "{fault}");
        assert!(path.is_dir());
        remove_scratch(&path);
    }
}
