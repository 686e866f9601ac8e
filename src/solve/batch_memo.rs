//! A stopped batch's tables (`runner solve --batch F --out FILE
//! --keep-memo`): written to `FILE.memo.bin` when the batch stops, read
//! back by `--resume`, removed once the batch finishes or starts over.
//!
//! A stop abandons the rows under way, and a resume starts them over. Some
//! rows of the runner's own 26x26 tables under both variant rules take
//! hours, longer than a sitting or a batch job's time limit: without their
//! tables they would never finish. The file is framed as a run's kept memo
//! (`engine/memo_file.rs`: format, whose batch, which key encoding,
//! checksum), so a memo of another batch, or a damaged one, is refused
//! rather than trusted with verdicts.

use super::report::Solvers;
use crate::engine::memo_file;
use crate::games::tanhinmin::variant::{VariantSolver, memo_key_encoding_named};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where a batch writing its table to `out` keeps its tables over a stop.
pub(super) fn memo_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".memo.bin");
    PathBuf::from(name)
}

/// The variant solvers of `solvers` (every batch that keeps its tables
/// plays a variant: `--keep-memo` is refused under the plain rules).
fn variant_solvers(solvers: &[Solvers]) -> Vec<&VariantSolver> {
    solvers.iter().filter_map(Solvers::variant_solver).collect()
}

/// The framing's key line: a batch's tables are a variant run's own tables.
fn keys(current: &str) -> memo_file::KeyEncoding<'_> {
    memo_file::KeyEncoding {
        current,
        of_memos_without_keys: None,
    }
}

/// The solvers a batch starts with: on a resume, `make`'s (one a thread)
/// with the tables kept at `path` read back into them, if any are kept
/// there (whether or not this sitting keeps its own: they only save
/// time); otherwise none, and tables left at `path` by a batch started
/// over are removed. Says so in a line unless `quiet`.
pub(super) fn solvers_to_start_with(
    path: &Path,
    batch: &str,
    resume: bool,
    quiet: bool,
    make: impl FnOnce() -> Vec<Solvers>,
) -> anyhow::Result<Vec<Solvers>> {
    if !resume {
        memo_file::remove(path)?;
        return Ok(Vec::new());
    }
    if !path.exists() {
        return Ok(Vec::new());
    }
    let solvers = make();
    if let Some(line) = read_back(path, batch, &solvers)?
        && !quiet
    {
        crate::error::say(line);
    }
    Ok(solvers)
}

/// Reads the tables a stopped batch named `batch` (its checkpoint's
/// fingerprint) kept at `path` into every one of `solvers`, if there are
/// any; returns the line that says so. A memo of another batch, or damaged,
/// is refused (exit 2) with a line saying to delete it.
pub(super) fn read_back(
    path: &Path,
    batch: &str,
    solvers: &[Solvers],
) -> anyhow::Result<Option<String>> {
    let started = Instant::now();
    let current = memo_key_encoding_named();
    let into = variant_solvers(solvers);
    let mut verdicts = 0;
    let size = memo_file::read(path, batch, keys(&current), |input| {
        verdicts = VariantSolver::read_own_memos_into(&into, input)?;
        Ok(())
    })?;
    Ok(size.map(|bytes| {
        format!(
            "read the kept memo back from {} ({}, {verdicts} verdicts, {:.0} s)",
            path.display(),
            crate::export::size_text(bytes),
            started.elapsed().as_secs_f64()
        )
    }))
}

/// Writes the tables of `solvers` to `path` for the batch named `batch`, on
/// a stop with `--keep-memo`, and says so in a line (see
/// [`memo_file::write_on_stop`]).
pub(super) fn write(path: &Path, batch: &str, solvers: &[Solvers]) {
    let current = memo_key_encoding_named();
    let from = variant_solvers(solvers);
    memo_file::write_on_stop(path, batch, keys(&current), "rows", |out| {
        VariantSolver::write_own_memos(&from, out)
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::variant::Rules;
    use crate::random::{chunk_rng, uniform_below};

    fn positions(s: &Solvers) -> u64 {
        s.variant_solver().expect("a variant's solvers").positions
    }

    /// A position given up partway (a budget of positions stands in for
    /// the stop), its tables written and read back into the fresh solvers
    /// of two threads: each gives the report of a search never stopped,
    /// from fewer positions than that search took, under every shipped
    /// rule set. A memo of another batch is refused, and so is one
    /// damaged, naming the file.
    #[test]
    fn tables_kept_over_a_stop_carry_a_position_on() {
        let dir = std::env::temp_dir().join(format!("batch-memo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = memo_path(&dir.join("table.csv"));
        let mut rng = chunk_rng(61, 0);
        for rules in Rules::SHIPPED {
            let solvers = || Solvers::new(rules).with_moves(false);
            // A deal long enough to give up at the budget's first look
            // (after POSITIONS_PER_POLL), short enough for a test.
            let (x, y, whole, took, stopped) = loop {
                let mut deck: Vec<u32> = (1..=13).flat_map(|r| [r; 4]).collect();
                for i in (1..deck.len()).rev() {
                    deck.swap(i, uniform_below(&mut rng, i as u64 + 1) as usize);
                }
                let (x, y) = (deck[..20].to_vec(), deck[20..40].to_vec());
                let mut alone = solvers();
                let whole = alone.report(&x, &y, 0, false);
                let mut stopped = solvers().within_positions(1);
                if positions(&alone) < 2_000_000 && stopped.try_report(&x, &y, 0, false).is_none() {
                    break (x, y, whole, positions(&alone), stopped);
                }
            };
            write(&path, "batch A", std::slice::from_ref(&stopped));
            let fresh = [solvers(), solvers()];
            let said = read_back(&path, "batch A", &fresh).unwrap().unwrap();
            assert!(said.contains("verdicts"), "{said}");
            for mut resumed in fresh {
                assert_eq!(resumed.report(&x, &y, 0, false), whole, "{rules:?}");
                assert!(
                    positions(&resumed) < took,
                    "{rules:?}: {} positions carried on, {took} whole",
                    positions(&resumed)
                );
            }
            let other = read_back(&path, "batch B", &[solvers()]).unwrap_err();
            assert!(format!("{other:#}").contains("the memo of another run"));
            let mut bytes = std::fs::read(&path).unwrap();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 1;
            std::fs::write(&path, &bytes).unwrap();
            let damaged = format!(
                "{:#}",
                read_back(&path, "batch A", &[solvers()]).unwrap_err()
            );
            assert!(damaged.contains(&path.display().to_string()), "{damaged}");
        }
        std::fs::remove_file(&path).unwrap();
        assert!(read_back(&path, "batch A", &[]).unwrap().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
