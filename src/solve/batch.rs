//! `runner solve --batch FILE`: every position of a CSV file, solved as
//! `runner solve` solves one, written as one CSV row each. For a list of
//! positions from a paper, or a second implementation's: one process, the
//! solvers' memos shared from row to row, and a table to diff.

use super::batch_memo;
use super::batch_rows::{Row, parse};
use super::recorded::{self, Comparison};
use super::report::{SolveReport, Solvers, TwinCheck, check_rule_flags, twin_check};
use crate::cli::SolveArgs;
use crate::engine::journal::Journal;
use crate::engine::progress::{Mode, Progress};
use crate::error::{Role, refuse, refuse_unless_file_or_absent};
use crate::exit;
use crate::games::tanhinmin::variant::Rules;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A batch file is read whole before any work, so it is bounded: a
/// million positions of 26 cards a hand fit many times over.
const MAX_BATCH_BYTES: u64 = 256 << 20;

/// Seconds between progress lines when stderr is not a terminal, as a
/// run's default.
const PROGRESS_SECS: u64 = 5;

/// The CSV of the solved rows: a header, then one row a position, in the
/// file's order. Its last column says how the row's recorded cells
/// compared (blank where it recorded none), so that the table read back as
/// a batch file is itself a regression check.
pub fn table(
    reports: &[SolveReport],
    comparisons: &[Comparison],
    rules: Rules,
    score: bool,
) -> Vec<u8> {
    let variant = rules != Rules::PLAIN;
    let mut out = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["first", "second", "field"];
    if variant {
        header.extend([
            "reversed",
            "minimax_first_wins",
            "mu_test_first_wins",
            "mu0",
            "mu1",
            "plain_first_wins",
            "twin_first_wins",
        ]);
    } else {
        header.extend([
            "minimax_first_wins",
            "formula_first_wins",
            "mu0",
            "mu1",
            "proof_move",
        ]);
    }
    if score {
        header.extend(["card_count", "c1"]);
    }
    header.extend(["check", "winning_moves", "recorded"]);
    out.write_record(&header).expect("writes to memory");
    let cards = |h: &[u32]| h.iter().map(u32::to_string).collect::<Vec<_>>().join(" ");
    let maybe = |b: Option<bool>| b.map_or(String::new(), |b| b.to_string());
    for (r, compared) in reports.iter().zip(comparisons) {
        let mut row = vec![cards(&r.first), cards(&r.second), r.field.to_string()];
        match &r.variant {
            Some(v) => row.extend([
                v.reversed.to_string(),
                r.minimax_first_wins.to_string(),
                r.formula_first_wins.to_string(),
                r.mu0.to_string(),
                r.mu1.to_string(),
                maybe(v.plain_first_wins),
                maybe(v.twin_first_wins),
            ]),
            None => row.extend([
                r.minimax_first_wins.to_string(),
                r.formula_first_wins.to_string(),
                r.mu0.to_string(),
                r.mu1.to_string(),
                r.proof_move.clone().unwrap_or_default(),
            ]),
        }
        if let Some(c) = &r.card_count {
            row.extend([c.value.to_string(), c.c1.to_string()]);
        }
        row.push(if r.checks_hold() { "passed" } else { "failed" }.to_string());
        row.push(
            r.winning_moves
                .as_ref()
                .map_or(String::new(), |w| w.join(" ")),
        );
        row.push(compared.cell());
        out.write_record(&row).expect("writes to memory");
    }
    out.into_inner().expect("writes to memory")
}

/// Solves every row, in parallel, each worker keeping its solvers;
/// `progress` counts the rows and names those under way by their line.
#[cfg(test)]
fn solve_rows(
    rows: &[Row],
    rules: Rules,
    score: bool,
    twin: TwinCheck,
    moves: bool,
    progress: &Progress,
) -> Vec<SolveReport> {
    let nothing_done = rows.iter().map(|_| None).collect();
    let how = How {
        rules,
        largest_cards: largest_cards(rows),
        threads: rayon::current_num_threads(),
        score,
        twin,
        moves,
        keep_memo: false,
    };
    let never = Arc::new(AtomicBool::new(false));
    let parked = Mutex::new(Vec::new());
    solve_rest(
        rows,
        nothing_done,
        how,
        progress,
        &|_, _| Ok(()),
        &never,
        &parked,
    )
    .expect("nothing to record, nothing to stop")
    .expect("never stopped")
}

/// How every row of a batch is solved.
#[derive(Clone, Copy)]
struct How {
    rules: Rules,
    /// The most cards a row holds, and the threads: what the tables are
    /// sized by (see [`Solvers::for_positions`]).
    largest_cards: usize,
    threads: usize,
    score: bool,
    twin: TwinCheck,
    moves: bool,
    /// Do the rows under way give up at a stop, their tables kept
    /// (`--keep-memo`), rather than finish first?
    keep_memo: bool,
}

/// A thread's solvers for the rows of a batch solved `how`: with
/// `--keep-memo` their variant search gives up when `stop` is set.
fn new_solvers(how: How, stop: &Arc<AtomicBool>) -> Solvers {
    let solvers = Solvers::for_positions(how.rules, how.largest_cards, how.threads)
        .checking(how.twin)
        .with_moves(how.moves);
    if how.keep_memo {
        solvers.stopping_on(stop.clone())
    } else {
        solvers
    }
}

/// The most cards a row holds.
fn largest_cards(rows: &[Row]) -> usize {
    rows.iter()
        .map(|r| r.first.len() + r.second.len())
        .max()
        .unwrap_or(0)
}

/// Solves the rows not `done` (by index), in parallel, those with the most
/// cards first, handing each report to `record` as it is made (the
/// checkpoint); `None` once `stop` is set, after which no row starts (the
/// rows under way finish and are recorded, or with `how.keep_memo` give
/// up). The solvers, whose memos carry from row to row, are taken from
/// `parked` and left there.
fn solve_rest(
    rows: &[Row],
    done: Vec<Option<SolveReport>>,
    how: How,
    progress: &Progress,
    record: &(dyn Fn(usize, &SolveReport) -> anyhow::Result<()> + Sync),
    stop: &Arc<AtomicBool>,
    parked: &Mutex<Vec<Solvers>>,
) -> anyhow::Result<Option<Vec<SolveReport>>> {
    let mut rest: Vec<usize> = (0..rows.len()).filter(|&i| done[i].is_none()).collect();
    // The rows with the most cards start first (the rest in the file's
    // order), so that a long row is not left to run alone at the end while
    // the other threads idle.
    rest.sort_by_key(|&i| std::cmp::Reverse(rows[i].first.len() + rows[i].second.len()));
    // One rayon job a row: rows of one batch can differ a thousandfold
    // (a 26x26 11-back row of 30 minutes among rows of seconds), and rows
    // queued in a job behind a long one cannot be taken by an idle thread
    // (the 11-back 26x26 table ran its last 8 rows on one thread). A job
    // takes the next row of `rest` when it starts, not the row of its own
    // place, so rows start in `rest`'s order whichever thread runs which
    // job. The solvers, whose memos carry from row to row, are parked
    // between rows rather than made per job: at most one a thread is ever
    // made.
    let next = AtomicUsize::new(0);
    let solved: Vec<Option<(usize, SolveReport)>> = (0..rest.len())
        .into_par_iter()
        .with_max_len(1)
        .map(|_| {
            if stop.load(Ordering::SeqCst) {
                return Ok(None);
            }
            let i = rest[next.fetch_add(1, Ordering::SeqCst)];
            let parked_one = parked.lock().expect("no thread panics holding it").pop();
            let mut solvers = parked_one.unwrap_or_else(|| new_solvers(how, stop));
            let row = &rows[i];
            let under_way = progress.begin(row.line);
            let solved = solvers.try_report(&row.first, &row.second, row.field, row.reversed);
            let solved = solved.map(|mut r| {
                if how.score {
                    r.card_count = Some(solvers.card_count(&r.first, &r.second, r.field));
                }
                r
            });
            drop(under_way);
            parked
                .lock()
                .expect("no thread panics holding it")
                .push(solvers);
            // Only solvers stopping on `stop` give up.
            let Some(r) = solved else {
                return Ok(None);
            };
            record(i, &r)?;
            progress.add(1);
            Ok(Some((i, r)))
        })
        .collect::<anyhow::Result<_>>()?;
    // A stop that came once every row had started (and finished) stops
    // nothing: the table is whole.
    if solved.iter().any(Option::is_none) {
        return Ok(None);
    }
    let mut reports = done;
    for (i, r) in solved.into_iter().flatten() {
        reports[i] = Some(r);
    }
    Ok(Some(
        reports
            .into_iter()
            .map(|r| r.expect("every row solved or read back"))
            .collect(),
    ))
}

/// Where a batch writing its table to `out` keeps the rows it has
/// finished, until the table is written.
fn checkpoint_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".checkpoint.jsonl");
    PathBuf::from(name)
}

/// What names a batch's checkpoint: the file's text and everything that
/// decides its rows. A resume refuses a checkpoint of anything else.
fn fingerprint(text: &str, how: How, check_positions: Option<u64>) -> String {
    format!(
        "solve --batch {} cut {:?} back {:?} score {} moves {} check-positions {:?} version {}",
        crate::export::manifest::sha256_hex(text.as_bytes()),
        how.rules.cut,
        how.rules.back,
        how.score,
        how.moves,
        check_positions,
        env!("CARGO_PKG_VERSION")
    )
}

/// What a checkpoint's batch (fingerprint `found`) was started with that
/// this one (`wanted`) is not, in the flags' terms: "it was started with
/// --back 9 where this batch has --cut 6". `None` if nothing differs or
/// either is not a fingerprint [`fingerprint`] writes (one of another
/// version's format).
/// The fingerprint itself stays as it was written, so that checkpoints
/// made before this change still resume.
fn what_differs(found: &str, wanted: &str) -> Option<String> {
    let (found, wanted) = (fingerprint_fields(found)?, fingerprint_fields(wanted)?);
    if found.len() != wanted.len() {
        return None;
    }
    let (mut was, mut is) = (Vec::new(), Vec::new());
    for ((name, a), (name_b, b)) in found.iter().zip(&wanted) {
        if name != name_b {
            return None;
        }
        if a != b {
            was.push(field_in_flags(name, a)?);
            is.push(field_in_flags(name, b)?);
        }
    }
    if was.is_empty() {
        return None;
    }
    Some(format!(
        "it was started with {} where this batch has {}",
        was.join(", "),
        is.join(", ")
    ))
}

/// The (name, value) fields of a fingerprint, the input's hash first, or
/// `None` if `text` is not one.
fn fingerprint_fields(text: &str) -> Option<Vec<(&str, &str)>> {
    let rest = text.strip_prefix("solve --batch ")?;
    let (hash, rest) = rest.split_once(' ')?;
    let words: Vec<&str> = rest.split(' ').collect();
    if !words.len().is_multiple_of(2) {
        return None;
    }
    let mut fields = vec![("input", hash)];
    fields.extend(words.chunks(2).map(|pair| (pair[0], pair[1])));
    Some(fields)
}

/// One fingerprint field as a reader knows it: the flag that set it.
fn field_in_flags(name: &str, value: &str) -> Option<String> {
    let optional = |flag: &str| match value {
        "None" => Some(format!("no {flag}")),
        _ => Some(format!(
            "{flag} {}",
            value.strip_prefix("Some(")?.strip_suffix(')')?
        )),
    };
    match (name, value) {
        ("input", hash) => Some(format!(
            "the batch text of SHA-256 {}…",
            hash.get(..12).unwrap_or(hash)
        )),
        ("cut", _) => optional("--cut"),
        ("back", _) => optional("--back"),
        ("check-positions", _) => optional("--check-positions"),
        ("score", "true") => Some("--score".into()),
        ("score", "false") => Some("no --score".into()),
        ("moves", "true") => Some("no --verdicts-only".into()),
        ("moves", "false") => Some("--verdicts-only".into()),
        ("version", v) => Some(format!("version {v}")),
        _ => None,
    }
}

/// Opens the checkpoint at `path` and reads back the rows it holds, each
/// checked to be a row of `rows`. A checkpoint already there is refused
/// unless `resume`: it may hold hours of rows.
fn open_checkpoint(
    path: &Path,
    fingerprint: &str,
    resume: bool,
    rows: &[Row],
) -> anyhow::Result<(Journal<SolveReport>, Vec<Option<SolveReport>>)> {
    crate::error::refuse_unless_file_or_absent(
        path,
        crate::error::Role::Written("the checkpoint"),
    )?;
    // Before anything else is said of the checkpoint: two batches given
    // one --out would both append to it.
    crate::engine::journal::refuse_if_another_writes(path)?;
    if !resume && path.exists() {
        return Err(crate::error::refuse(format!(
            "{}: a stopped batch's checkpoint is there; add --resume to carry on from its rows, or remove it to start over",
            path.display()
        )));
    }
    if resume
        && let Some(found) = crate::engine::journal::fingerprint_of(path)?
        && found != fingerprint
    {
        let how = what_differs(&found, fingerprint).unwrap_or_else(|| {
            format!("another file or text, --cut, --back, --score, --verdicts-only, --check-positions or version: {found}")
        });
        return Err(crate::error::refuse(format!(
            "{}: the checkpoint belongs to another batch ({how}); give the flags it was started with, or remove it to start over",
            path.display()
        )));
    }
    // The journal locks the file as it opens it, and holds the lock until
    // the process ends.
    let journal = Journal::<SolveReport>::open(path, fingerprint, resume)?;
    let mut done: Vec<Option<SolveReport>> = rows.iter().map(|_| None).collect();
    journal.finished().replay(|i, report| {
        let sorted = |h: &[u32]| {
            let mut h = h.to_vec();
            h.sort_unstable();
            h
        };
        let row = usize::try_from(i).ok().and_then(|i| rows.get(i));
        let fits = row.is_some_and(|row| {
            (sorted(&row.first), sorted(&row.second), row.field)
                == (report.first.clone(), report.second.clone(), report.field)
        });
        if !fits || done[i as usize].is_some() {
            return Err(crate::error::refuse(format!(
                "{}: record of row {i} is not that row of the batch, or is there twice; remove the checkpoint to start over",
                path.display()
            )));
        }
        done[i as usize] = Some(report);
        Ok(())
    })?;
    journal.note_if_nothing_to_resume();
    Ok((journal, done))
}

/// Sets `stop` on SIGINT or SIGTERM: no row starts after it, and the
/// rows finished are in the checkpoint; the rows under way finish, or with
/// the tables `kept` there give up; a second signal ends the process at
/// once (a torn last record is dropped on resume).
fn stop_on_signals(
    stop: Arc<AtomicBool>,
    checkpoint: PathBuf,
    kept: Option<PathBuf>,
) -> std::io::Result<()> {
    let named = checkpoint.clone();
    crate::engine::signals::stop_on_signals(
        stop,
        move |name| match &kept {
            Some(memo) => crate::error::say(format_args!(
                "{name}: the rows under way stop, and their tables go to {} (again to stop at once)",
                memo.display()
            )),
            None => crate::error::say(format_args!(
                "{name}: no new row starts; the rows under way finish into {} (again to stop at once)",
                named.display()
            )),
        },
        move |name| {
            crate::error::say(format_args!(
                "{name} again: stopping now; the rows finished are in {}, for --resume",
                checkpoint.display()
            ));
            std::process::exit(exit::INTERRUPTED);
        },
    )
}

/// `runner solve --batch`: reads and checks the whole file, then solves;
/// returns the exit status (1 when any row's check fails, or a row records
/// a verdict the solvers no longer give).
pub fn main(args: &SolveArgs, path: &Path) -> i32 {
    match run(args, path) {
        Ok(Ended::Solved { all_hold: true }) => exit::OK,
        Ok(Ended::Solved { all_hold: false }) => exit::CHECK_FAILED,
        Ok(Ended::Stopped) => exit::INTERRUPTED,
        Ok(Ended::StdoutClosed) => exit::RUNTIME,
        Err(e) => {
            exit::say_error(format_args!("{e:#}"));
            exit::of_error(&e)
        }
    }
}

/// How a batch ended, for [`main`] to give its status.
enum Ended {
    /// Every row solved and the table written: did every check hold and
    /// every recorded verdict agree?
    Solved { all_hold: bool },
    /// Stopped before every row was solved (a signal, or the tests'
    /// `--stop-after-rows`); the rows finished are in the checkpoint.
    Stopped,
    /// Standard output closed before the table was written (a pipe to
    /// `head`): nothing more to say.
    StdoutClosed,
}

/// What [`check_flags`] found usable.
struct Checked {
    threads: usize,
    twin: TwinCheck,
    /// Where a stopped batch keeps its memo: beside `--out`, if given.
    memo: Option<PathBuf>,
}

/// The flags a batch is refused for before it reads its file; refused
/// here, nothing is left behind.
fn check_flags(args: &SolveArgs, rules: Rules) -> anyhow::Result<Checked> {
    let threads = crate::engine::worker_threads(args.threads).map_err(refuse)?;
    check_rule_flags(rules).map_err(refuse)?;
    let twin = twin_check(args.check_positions, rules, threads).map_err(refuse)?;
    if args.resume && args.out.is_none() {
        return Err(refuse(
            "--resume: only with --out FILE, beside which a batch keeps the rows it finished (FILE.checkpoint.jsonl); a batch printed to stdout keeps none",
        ));
    }
    if args.keep_memo && args.out.is_none() {
        return Err(refuse(
            "--keep-memo: only with --out FILE, beside which a stopped batch keeps its tables (FILE.memo.bin); a batch printed to stdout keeps none",
        ));
    }
    if args.keep_memo && rules == Rules::PLAIN {
        return Err(refuse(
            "--keep-memo: only with --cut or --back; plain positions take seconds, so a stopped batch finishes the rows under way instead",
        ));
    }
    let mut memo = None;
    if let Some(out) = &args.out {
        refuse_unless_file_or_absent(out, Role::Written("the batch's table"))?;
        // A directory that cannot be made is refused now, not after the
        // work.
        if let Some(dir) = out.parent()
            && !dir.as_os_str().is_empty()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            return Err(refuse(format!(
                "--out: cannot create the directory {}: {e}",
                dir.display()
            )));
        }
        let path = batch_memo::memo_path(out);
        crate::engine::memo_file::refuse_unfit_path(&path)?;
        memo = Some(path);
    }
    Ok(Checked {
        threads,
        twin,
        memo,
    })
}

/// [`main`]'s work: refuses bad flags and rows before any is solved, then
/// solves the rest (resuming from the checkpoint), writes the table and
/// says how the checks went.
fn run(args: &SolveArgs, path: &Path) -> anyhow::Result<Ended> {
    let rules = Rules {
        cut: args.cut,
        back: args.back,
    };
    let origin = path.display().to_string();
    let Checked {
        threads,
        twin,
        memo,
    } = check_flags(args, rules)?;
    let text = crate::export::read_text_limited(path, MAX_BATCH_BYTES, "a batch of positions")
        .map_err(|e| refuse(format!("{origin}: cannot read: {e}")))?;
    let rows = parse(&origin, &text, rules).map_err(refuse)?;
    let how = How {
        rules,
        largest_cards: largest_cards(&rows),
        threads,
        score: args.score,
        twin,
        moves: !args.verdicts_only,
        keep_memo: args.keep_memo,
    };
    // With --out, each finished row is journalled beside the table, so a
    // batch of hour-long rows stopped at any moment keeps what it did.
    let named = fingerprint(&text, how, args.check_positions);
    let checkpoint = match &args.out {
        Some(out) => {
            let path = checkpoint_path(out);
            let (journal, done) = open_checkpoint(&path, &named, args.resume, &rows)?;
            Some((path, journal, done))
        }
        None => None,
    };
    let stop = Arc::new(AtomicBool::new(false));
    // Before the kept tables are read back (up to a minute for gigabytes),
    // so that a signal then still stops the batch as it says, keeping them.
    if let Some((path, _, _)) = &checkpoint {
        let keeps = memo.clone().filter(|_| args.keep_memo);
        stop_on_signals(stop.clone(), path.clone(), keeps)
            .map_err(|e| anyhow::anyhow!("cannot install signal handlers: {e}"))?;
    }
    let kept = match memo.as_deref() {
        Some(memo) => {
            batch_memo::solvers_to_start_with(memo, &named, args.resume, args.quiet, || {
                (0..threads).map(|_| new_solvers(how, &stop)).collect()
            })?
        }
        None => Vec::new(),
    };
    let parked = Mutex::new(kept);
    let started = std::time::Instant::now();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| anyhow::anyhow!("cannot start {threads} threads: {e}"))?;
    let mode = if args.quiet {
        Mode::Quiet
    } else {
        Mode::Auto {
            secs: PROGRESS_SECS,
        }
    };
    let (journal, done, read_back) = match checkpoint {
        Some((_, journal, done)) => {
            let read_back = done.iter().filter(|r| r.is_some()).count() as u64;
            (Some(Mutex::new(journal)), done, read_back)
        }
        None => (None, rows.iter().map(|_| None).collect(), 0),
    };
    let in_checkpoint = AtomicU64::new(read_back);
    let record = |i: usize, r: &SolveReport| -> anyhow::Result<()> {
        if let Some(journal) = &journal {
            journal
                .lock()
                .expect("no thread panics holding the checkpoint")
                .record(i as u64, r)?;
            let now = in_checkpoint.fetch_add(1, Ordering::SeqCst) + 1;
            if args.stop_after_rows.is_some_and(|n| now >= n) {
                stop.store(true, Ordering::SeqCst);
            }
        }
        Ok(())
    };
    let progress = Progress::start_naming(&origin, rows.len() as u64, read_back, mode, "line");
    let solved = pool.install(|| solve_rest(&rows, done, how, &progress, &record, &stop, &parked));
    progress.finish();
    let journal = journal.map(|j| j.into_inner().expect("no thread panics holding it"));
    let Some(reports) = solved? else {
        if let Some(journal) = &journal {
            if let (true, Some(memo)) = (args.keep_memo, &memo) {
                let solvers = parked.into_inner().expect("no thread panics holding it");
                batch_memo::write(memo, &named, &solvers);
            }
            crate::error::say(format_args!(
                "stopped: {} of {} rows are in {}; rerun with --resume to carry on",
                in_checkpoint.load(Ordering::SeqCst),
                rows.len(),
                journal.path().display()
            ));
        }
        return Ok(Ended::Stopped);
    };
    let comparisons: Vec<Comparison> = rows
        .iter()
        .zip(&reports)
        .map(|(row, r)| recorded::compare(&row.recorded, r))
        .collect();
    let csv = table(&reports, &comparisons, rules, args.score);
    match &args.out {
        Some(out) => {
            crate::export::write_atomic(out, &csv)?;
            if let Some(journal) = journal {
                journal.remove()?;
            }
            if let Some(memo) = &memo {
                crate::engine::memo_file::remove(memo)?;
            }
        }
        None => {
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            if stdout.write_all(&csv).and_then(|_| stdout.flush()).is_err() {
                return Ok(Ended::StdoutClosed);
            }
        }
    }
    let failed = reports.iter().filter(|r| !r.checks_hold()).count();
    let differ = comparisons
        .iter()
        .filter(|c| !c.differences.is_empty())
        .count();
    let mut line = summary(&reports, rules, twin, failed, read_back, started.elapsed());
    let mut present: Vec<usize> = rows
        .iter()
        .flat_map(|r| r.recorded.iter().map(|&(column, _)| column))
        .collect();
    present.sort_unstable();
    present.dedup();
    let lines: Vec<u64> = rows.iter().map(|r| r.line).collect();
    if let Some(text) = recorded::summary(&present, &lines, &comparisons, rules == Rules::PLAIN) {
        line += "; ";
        line += &text;
    }
    crate::error::say(line);
    Ok(Ended::Solved {
        all_hold: failed == 0 && differ == 0,
    })
}

/// The line on stderr after a batch: how many rows, and what held.
fn summary(
    reports: &[SolveReport],
    rules: Rules,
    twin: TwinCheck,
    failed: usize,
    read_back: u64,
    elapsed: std::time::Duration,
) -> String {
    let n = reports.len();
    let mut timing = format!(
        "{n} position{} in {:.1} s",
        if n == 1 { "" } else { "s" },
        elapsed.as_secs_f64()
    );
    if read_back > 0 {
        timing += &format!(" ({read_back} read back from the checkpoint)");
    }
    let checks = if rules == Rules::PLAIN {
        if failed == 0 {
            "minimax and the theorem agree on every one".to_string()
        } else {
            format!("{failed} FAIL their check (rows with check = failed)")
        }
    } else {
        let right = reports
            .iter()
            .filter(|r| r.minimax_first_wins == r.formula_first_wins)
            .count();
        let twinned = reports
            .iter()
            .filter(|r| {
                r.variant
                    .as_ref()
                    .is_some_and(|v| v.twin_first_wins.is_some())
            })
            .count();
        let held = match (failed, twinned) {
            (0, 0) => format!(
                "the variant's plain recursion checked none (it checks {})",
                twin.scope()
            ),
            (0, t) => format!(
                "the variant's plain recursion agrees with minimax on all {t} it checked ({})",
                twin.scope()
            ),
            (f, _) => format!("{f} FAIL their check (rows with check = failed)"),
        };
        format!(
            "{} rules; {held}; the plain μ test predicted the winner of {right} of {n}",
            rules.name()
        )
    };
    format!("{timing}: {checks}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::tanhinmin::variant::plain_variant_wins;

    /// A refused checkpoint names, in flags, what its batch had that this
    /// one has not; a fingerprint of another format is left to the caller.
    #[test]
    fn a_checkpoint_of_another_batch_is_named_by_its_flags() {
        let how = |cut, back, score, moves| How {
            rules: Rules { cut, back },
            largest_cards: 4,
            threads: 1,
            score,
            twin: TwinCheck::default(),
            moves,
            keep_memo: false,
        };
        let started = fingerprint("a,b\n", how(None, Some(9), false, true), None);
        let again = fingerprint("a,b\n", how(None, Some(9), false, true), None);
        assert_eq!(what_differs(&started, &again), None, "nothing differs");
        let other = fingerprint("a,b\n", how(Some(6), None, true, false), Some(5));
        assert_eq!(
            what_differs(&started, &other).unwrap(),
            "it was started with no --cut, --back 9, no --score, no --verdicts-only, no --check-positions where this batch has --cut 6, no --back, --score, --verdicts-only, --check-positions 5"
        );
        let edited = fingerprint("a,c\n", how(None, Some(9), false, true), None);
        let said = what_differs(&started, &edited).unwrap();
        assert!(
            said.starts_with("it was started with the batch text of SHA-256 "),
            "{said}"
        );
        assert!(what_differs("solve --batch 00 cut", &other).is_none());
        assert!(what_differs("something else", &other).is_none());
        let longer = format!("{started} memo true");
        assert!(what_differs(&longer, &other).is_none(), "a field more");
    }
    use crate::random::{chunk_rng, uniform_below};
    use crate::solve::report::report_under;

    /// Every row's verdict is the one `runner solve` gives it alone, and
    /// the one `--verdicts-only` gives it, for every rule set, on many
    /// random positions solved by shared solvers in parallel; under a
    /// variant the twin agrees on each.
    #[test]
    fn a_batch_gives_each_position_the_verdict_it_has_alone() {
        let mut rng = chunk_rng(29, 0);
        for rules in [
            Rules::PLAIN,
            Rules {
                cut: Some(4),
                back: None,
            },
            Rules {
                cut: Some(4),
                back: Some(6),
            },
        ] {
            let rows: Vec<Row> = (0..150)
                .map(|_| {
                    let hand = |rng: &mut _| {
                        let n = 1 + uniform_below(rng, 6) as usize;
                        (0..n).map(|_| 1 + uniform_below(rng, 8) as u32).collect()
                    };
                    Row {
                        first: hand(&mut rng),
                        second: hand(&mut rng),
                        field: uniform_below(&mut rng, 9) as u32,
                        reversed: false,
                        line: 0,
                        recorded: Vec::new(),
                    }
                })
                .collect();
            let quiet = Progress::start("rows", rows.len() as u64, 0, Mode::Quiet);
            let reports = solve_rows(
                &rows,
                rules,
                rules == Rules::PLAIN,
                TwinCheck::default(),
                true,
                &quiet,
            );
            let verdicts = solve_rows(&rows, rules, false, TwinCheck::default(), false, &quiet);
            for (row, (r, v)) in rows.iter().zip(reports.iter().zip(&verdicts)) {
                // The verdict alone, by one search, is the one the
                // winning moves give.
                assert_eq!(v.minimax_first_wins, r.minimax_first_wins, "{row:?}");
                assert_eq!(v.winning_moves, None);
                assert!(v.checks_hold(), "{row:?}");
                let alone = report_under(&row.first, &row.second, row.field, rules, false);
                assert_eq!(r.minimax_first_wins, alone.minimax_first_wins);
                assert_eq!(r.winning_moves, alone.winning_moves);
                assert_eq!(
                    r.minimax_first_wins,
                    plain_variant_wins(&r.first, &r.second, row.field, false, rules)
                );
                assert!(r.checks_hold(), "{row:?}");
                if let Some(c) = &r.card_count {
                    assert_eq!(Some(c.value), c.twin);
                }
            }
            let nothing_recorded: Vec<Comparison> =
                rows.iter().map(|_| Comparison::default()).collect();
            let csv = String::from_utf8(table(
                &reports,
                &nothing_recorded,
                rules,
                rules == Rules::PLAIN,
            ))
            .unwrap();
            assert_eq!(csv.lines().count(), rows.len() + 1);
            assert!(csv.lines().skip(1).all(|l| l.contains(",passed,")), "{csv}");
            // Read back as a batch file, the table records every verdict,
            // and each agrees.
            let again = parse("t.csv", &csv, rules).unwrap();
            for (row, r) in again.iter().zip(&reports) {
                let c = recorded::compare(&row.recorded, r);
                assert!(c.compared.contains(&"minimax_first_wins"), "{c:?}");
                assert_eq!(c.cell(), "agrees", "{row:?}");
            }
        }
    }
}
