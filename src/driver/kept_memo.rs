//! A stopped run's memo (`--keep-memo`): written beside the checkpoint,
//! read back by `--resume`, removed once its run is finished or gone.

use super::context::RunContext;
use crate::engine::{memo_file, progress};
use crate::study::{KeptMemo, Study};
use std::path::Path;
use std::time::Instant;

/// Reads the memo a stopped run kept at `path` back into a study that
/// keeps one, on a resume; any other run of such a study starts without
/// it, and a memo left there (of a run started over) is removed, since it
/// is not this run's. Other studies leave the path alone.
pub(super) fn read_kept_memo<S: Study>(
    study: &S,
    path: &Path,
    run_name: &str,
    ctx: &RunContext,
) -> anyhow::Result<()> {
    let Some(memo) = study.kept_memo() else {
        return Ok(());
    };
    if !ctx.resume {
        return memo_file::remove(path);
    }
    let started = Instant::now();
    let keys = memo.key_encoding();
    if let Some(bytes) = memo_file::read(path, run_name, memo_keys(memo, &keys), |r| {
        memo.read_memo(r)
    })? && !matches!(ctx.progress, progress::Mode::Quiet)
    {
        crate::error::say(format_args!(
            "read the kept memo back from {} ({}, {:.0} s)",
            path.display(),
            crate::export::size_text(bytes),
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(())
}

/// Writes the memo of a study that keeps one to `path`, on a stop with
/// `--keep-memo`, and says so in a line (see [`memo_file::write_on_stop`]);
/// the run still ends as interrupted.
pub(super) fn write_kept_memo<S: Study>(study: &S, path: &Path, run_name: &str) {
    let Some(memo) = study.kept_memo() else {
        return;
    };
    let keys = memo.key_encoding();
    memo_file::write_on_stop(path, run_name, memo_keys(memo, &keys), "deals", |w| {
        memo.write_memo(w)
    });
}

/// The key encodings of `memo`, framed for its file; `current` is
/// [`KeptMemo::key_encoding`], computed once.
fn memo_keys<'a>(memo: &dyn KeptMemo, current: &'a str) -> memo_file::KeyEncoding<'a> {
    memo_file::KeyEncoding {
        current,
        of_memos_without_keys: memo.key_encoding_of_memos_without_keys(),
    }
}
