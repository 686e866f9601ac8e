//! The output directory of a run, merge or interim: one writer at a time,
//! nothing unfit or foreign in the way, nothing stale left behind.

use super::context::{MEMO_FILE, PARTIAL_FILE, SHARD_CHUNKS_FILE};
use crate::config::Config;
use crate::error::{Role, refuse, refuse_unless_file_or_absent};
use crate::export::{manifest, plot};
use crate::study::Study;
use std::path::Path;

/// Makes this process the only runner writing to `dir` until the returned
/// handle is dropped (at the latest, when the process exits, however it
/// ends), or refuses if another holds it.
///
/// Why: two runs started on one `--out` by mistake would both append to
/// the checkpoint, delete each other's temporary files and race on every
/// table. The lock is an advisory `flock` on the directory itself, so it
/// leaves no lock file behind in results that are committed, and the
/// kernel releases it when a run is killed, so it never goes stale.
pub(super) fn lock_out_dir(dir: &Path) -> anyhow::Result<std::fs::File> {
    if dir.exists() && !dir.is_dir() {
        return Err(refuse(format!(
            "{}: the output directory is a file",
            dir.display()
        )));
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        refuse(format!(
            "{}: cannot create the output directory: {e}",
            dir.display()
        ))
    })?;
    let handle = std::fs::File::open(dir).map_err(|e| {
        refuse(format!(
            "{}: cannot open the output directory: {e}",
            dir.display()
        ))
    })?;
    match handle.try_lock() {
        Ok(()) => Ok(handle),
        Err(std::fs::TryLockError::WouldBlock) => Err(refuse(format!(
            "{}: another runner is writing to this directory; wait for it to finish (or stop it with Ctrl-C), or choose another directory",
            dir.display()
        ))),
        // Some network filesystems refuse flock on a read-only handle
        // (NFS emulates it with byte-range locks). A cluster run there must
        // still go ahead: the lock guards against a mistake, it is not what
        // makes outputs whole (atomic renames and the journal do that).
        Err(std::fs::TryLockError::Error(e)) => {
            crate::error::say(format_args!(
                "note: {}: cannot lock the output directory ({e}); make sure no other run writes to it",
                dir.display()
            ));
            Ok(handle)
        }
    }
}

/// Refuses, before any work, an output directory where a file the run
/// will write exists as something other than a regular file (a FIFO, a
/// device, a directory). [`write_atomic`](crate::export::write_atomic) refuses it too, but only when
/// the run gets there, hours of work later.
///
/// The tables' names come from the study's tables of empty counts (every
/// study writes the same files whatever its counts); a shard of many
/// writes no tables; a shard keeps its checkpoint as [`SHARD_CHUNKS_FILE`];
/// a study that keeps its memo over a stop writes [`MEMO_FILE`] too. (The
/// checkpoint is [`Journal::open`](crate::engine::journal::Journal::open)'s to check.)
pub(super) fn refuse_unfit_outputs<S: Study>(
    study: &S,
    dir: &Path,
    with_tables: bool,
    shard: bool,
) -> anyhow::Result<()> {
    let mut names = vec![PARTIAL_FILE, "run.csv", "manifest.json"];
    if shard {
        names.push(SHARD_CHUNKS_FILE);
    }
    if with_tables {
        let empty: Vec<S::Counts> = study
            .cell_sizes()
            .iter()
            .map(|_| S::Counts::default())
            .collect();
        let cells: Vec<&S::Counts> = empty.iter().collect();
        names.extend(study.tables(&cells).into_iter().map(|(name, _)| name));
        names.extend(plot::PICTURE_NAMES);
    }
    for name in names {
        refuse_unless_file_or_absent(&dir.join(name), Role::Written("written"))?;
    }
    // Before the checkpoint is opened (and written), so that the refusal
    // leaves nothing that asks the next run for --resume.
    if study.kept_memo().is_some() {
        crate::engine::memo_file::refuse_unfit_path(&dir.join(MEMO_FILE))?;
    }
    Ok(())
}

/// Refuses an output directory that holds another experiment's results
/// (its `manifest.json` names another `[experiment] name`): a mistyped
/// `--out` would overwrite them, and leave the files this run does not
/// write beside its own. The same experiment rerun, with its config
/// edited or not, writes over its own results as before.
pub(super) fn refuse_another_experiments_results(
    config: &Config,
    dir: &Path,
) -> anyhow::Result<()> {
    let path = dir.join(manifest::FILE_NAME);
    if !path.exists() {
        return Ok(());
    }
    let recorded =
        serde_json::from_slice::<serde_json::Value>(&crate::export::read_result_file(&path)?)
            .ok()
            .and_then(|m| m["config"]["experiment"]["name"].as_str().map(String::from));
    match recorded {
        Some(name) if name != config.experiment.name => Err(refuse(format!(
            "{}: holds the results of experiment `{name}`, not `{}`; write to another directory, or remove this one to reuse it",
            dir.display(),
            config.experiment.name
        ))),
        _ => Ok(()),
    }
}

/// Removes the temporary files that a killed run of this directory left
/// behind while writing its outputs (`.NAME.PID.tmp` of another process).
pub(super) fn remove_stale_temp_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mine = format!(".{}.tmp", std::process::id());
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') && name.ends_with(".tmp") && !name.ends_with(&mine) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Are `a` and `b` one directory (by their canonical paths, where both
/// exist; else by the paths as given)?
pub(super) fn same_directory(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Refuses a directory holding a finished run's results (a manifest
/// without the interim mark): interim tables would replace them.
pub(super) fn refuse_finished_results(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(manifest::FILE_NAME);
    if !path.exists() {
        return Ok(());
    }
    let interim =
        serde_json::from_slice::<serde_json::Value>(&crate::export::read_result_file(&path)?)
            .is_ok_and(|m| m.get("interim").is_some());
    if interim {
        Ok(())
    } else {
        Err(refuse(format!(
            "{}: holds a finished run's results; interim tables go to a directory of their own",
            dir.display()
        )))
    }
}
