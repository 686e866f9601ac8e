//! Sharding, merging, and resuming after kills: all must reproduce the
//! single-machine run byte for byte.

mod common;

use common::{Running, run, run_args, runner, scratch, stderr};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

fn ok(o: &Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

const DETERMINISTIC: [&str; 3] = ["stats.csv", "mu.csv", "disagreements.csv"];

fn tables(dir: &Path) -> Vec<Vec<u8>> {
    DETERMINISTIC
        .iter()
        .map(|f| std::fs::read(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}")))
        .collect()
}

fn write_config(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    path
}

const EXHAUSTIVE: &str = "[experiment]\nname = \"e\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[5, 5], [6, 4], [2, 2]]\nfield = 4\n";
const SAMPLE: &str = "[experiment]\nname = \"s\"\nmode = \"sample\"\nseed = 3\ndeals = 30000\n[hands]\nsizes = [[6, 6], [3, 5]]\n";
/// Deals of 23 cards are sampled in chunks of 1,024, so the first cell has
/// two chunks of different lengths and the second one chunk of 1,100.
const SAMPLE_LARGE: &str = "[experiment]\nname = \"l\"\nmode = \"sample\"\nseed = 5\ndeals = 1100\n[hands]\nsizes = [[11, 12], [4, 4]]\n";

/// Every 3x3 deal a u64 counts: 2^52 chunks, a run that never ends.
const ENDLESS: &str = "[experiment]\nname = \"huge\"\nmode = \"sample\"\nseed = 1\ndeals = 18446744073709551615\n[hands]\nsizes = [[3, 3]]\n";

fn single(cfg: &Path, out: &Path, extra: &[&str]) {
    ok(&run(&run_args(cfg, out, extra)));
}

#[test]
fn shards_merge_to_the_single_machine_run() {
    for (label, body) in [
        ("exhaustive", EXHAUSTIVE),
        ("sample", SAMPLE),
        ("sample-large", SAMPLE_LARGE),
    ] {
        let dir = scratch(label);
        let cfg = write_config(&dir, "c.toml", body);
        let whole = dir.join("whole");
        single(&cfg, &whole, &[]);
        for n in [1u64, 3, 7] {
            let mut shard_dirs = Vec::new();
            for i in 0..n {
                let out = dir.join(format!("n{n}-{i}"));
                let (ns, is) = (n.to_string(), i.to_string());
                single(
                    &cfg,
                    &out,
                    &["--shards", &ns, "--shard-index", &is, "-j", "1"],
                );
                shard_dirs.push(out.to_str().unwrap().to_string());
            }
            let merged = dir.join(format!("merged-{n}"));
            let mut args = vec!["merge".to_string()];
            args.extend(shard_dirs.iter().cloned());
            args.extend(["--out".into(), merged.to_str().unwrap().into()]);
            ok(&runner().args(&args).output().unwrap());
            assert_eq!(tables(&merged), tables(&whole), "{label}: {n} shards");
        }
    }
}

/// The rates study is one item a cell, so most shards of a run (and most
/// rounds of `runner plan`'s timing sample) are dealt no chunk of a given
/// cell. Such a shard counts nothing there; until this was fixed it was
/// refused as "a bug in runner" (exit 3), and so was the plan.
#[test]
fn a_rates_run_shards_merges_and_plans() {
    const RATES: &str = "[experiment]\nname = \"r\"\nstudy = \"rates\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[1, 1], [2, 2], [3, 3], [5, 4], [9, 9]]\nfield = 7\n";
    let dir = scratch("rates-shards");
    let cfg = write_config(&dir, "r.toml", RATES);
    let whole = dir.join("whole");
    single(&cfg, &whole, &[]);
    let mut args = vec!["merge".to_string()];
    for i in 0..3 {
        let out = dir.join(format!("s{i}"));
        let index = i.to_string();
        single(&cfg, &out, &["--shards", "3", "--shard-index", &index]);
        args.push(out.to_str().unwrap().into());
    }
    let merged = dir.join("merged");
    args.extend(["--out".into(), merged.to_str().unwrap().into()]);
    ok(&runner().args(&args).output().unwrap());
    let rates = |d: &Path| std::fs::read(d.join("rates.csv")).unwrap();
    assert_eq!(rates(&merged), rates(&whole));
    let o = run(&[
        "plan",
        "--config",
        cfg.to_str().unwrap(),
        "--calibrate-secs",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("time: about"));
}

#[test]
fn shards_that_differ_only_in_speed_settings_merge() {
    // The config hash covers what decides the results; memo size, move
    // order, name and output dir only change speed or place.
    let dir = scratch("speed-settings");
    let fast = write_config(
        &dir,
        "a.toml",
        &format!("{SAMPLE}[solver]\nmemo_mb = 64\norder = \"fewest-replies\"\n"),
    );
    let slow = write_config(
        &dir,
        "b.toml",
        &format!(
            "{}[solver]\nmemo_mb = 16\norder = \"weakest-first\"\n",
            SAMPLE.replace("name = \"s\"", "name = \"other\"")
        ),
    );
    let whole = dir.join("whole");
    single(&fast, &whole, &[]);
    let (a, b) = (dir.join("a"), dir.join("b"));
    single(
        &fast,
        &a,
        &["--shards", "2", "--shard-index", "0", "-j", "2"],
    );
    single(
        &slow,
        &b,
        &["--shards", "2", "--shard-index", "1", "-j", "1"],
    );
    let merged = dir.join("merged");
    ok(&merge_into(&[&a, &b], &merged));
    assert_eq!(tables(&merged), tables(&whole));
    // A setting that decides the results (the seed) still keeps shards apart.
    let other_seed = write_config(&dir, "c.toml", &SAMPLE.replace("seed = 3", "seed = 4"));
    let c = dir.join("c");
    single(&other_seed, &c, &["--shards", "2", "--shard-index", "1"]);
    let o = runner()
        .args([
            "merge",
            a.to_str().unwrap(),
            c.to_str().unwrap(),
            "--out",
            dir.join("m2").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("config_hash"), "{}", stderr(&o));
}

#[test]
fn shard_index_comes_from_slurm_when_not_given() {
    let dir = scratch("slurm-env");
    let cfg = write_config(&dir, "c.toml", SAMPLE);
    let out = dir.join("s1");
    let o = runner()
        .args(run_args(&cfg, &out, &["--shards", "2"]))
        .env("SLURM_ARRAY_TASK_ID", "1")
        .env("SLURM_ARRAY_TASK_COUNT", "1")
        .output()
        .unwrap();
    ok(&o);
    let partial: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("partial.json")).unwrap()).unwrap();
    assert_eq!(partial["shard_index"], 1);
    assert_eq!(
        partial["shards"], 2,
        "the count comes from the flag, not SLURM_ARRAY_TASK_COUNT"
    );
    let o = runner()
        .args(run_args(&cfg, &out, &["--shards", "2"]))
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn merge_refuses_missing_duplicated_and_mismatched_shards() {
    let dir = scratch("refuse");
    let cfg = write_config(&dir, "c.toml", SAMPLE);
    let other = write_config(&dir, "d.toml", &SAMPLE.replace("seed = 3", "seed = 4"));
    let shard = |cfg: &Path, n: &str, i: &str| {
        let out = dir.join(format!(
            "{}-{n}-{i}",
            cfg.file_stem().unwrap().to_string_lossy()
        ));
        single(cfg, &out, &["--shards", n, "--shard-index", i]);
        out.to_str().unwrap().to_string()
    };
    let (a0, a1, a2) = (
        shard(&cfg, "3", "0"),
        shard(&cfg, "3", "1"),
        shard(&cfg, "3", "2"),
    );
    let b2 = shard(&other, "3", "2");
    let c1 = shard(&cfg, "2", "1");
    let out = dir.join("merged");
    let merge = |dirs: &[&str]| {
        let mut args = vec!["merge"];
        args.extend_from_slice(dirs);
        args.extend(["--out", out.to_str().unwrap()]);
        run(&args)
    };
    for (dirs, words) in [
        (
            vec![a0.as_str(), a1.as_str()],
            "missing shard(s) 2 of 3; resubmit just those with `sbatch --array=2 scripts/slurm/",
        ),
        (
            vec![a0.as_str(), a1.as_str(), a1.as_str(), a2.as_str()],
            "given twice",
        ),
        (
            vec![a0.as_str(), a1.as_str(), b2.as_str()],
            "different runs",
        ),
        (
            vec![a0.as_str(), c1.as_str(), a2.as_str()],
            "different runs",
        ),
        (vec![dir.join("nope").to_str().unwrap()], "cannot read"),
    ] {
        let o = merge(&dirs);
        assert_eq!(o.status.code(), Some(2), "{words}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(words), "expected `{words}` in: {err}");
        assert!(!out.join("stats.csv").exists());
    }
    ok(&merge(&[&a2, &a0, &a1]));
}

/// A run with a fault injected (`--inject-fault`) counts failures of a
/// wrong claim. Its checkpoint must not be resumed by a run without the
/// flag, nor the reverse, nor read by `runner interim`, nor its shards
/// merged: each is refused in one line naming the flag, not taken for an
/// edit or for results.
#[cfg(unix)]
#[test]
fn a_run_with_a_fault_injected_is_never_resumed_or_merged_as_results() {
    let dir = scratch("fault-injected");
    let cfg = write_config(
        &dir,
        "c.toml",
        "[experiment]\nname = \"f\"\nstudy = \"strategy\"\nmode = \"sample\"\nseed = 1\ndeals = 100000000\n[hands]\nsizes = [[6, 6]]\n",
    );
    let faulty = dir.join("faulty");
    stopped_after_chunks_with(&cfg, &faulty, &["--inject-fault"], 1);
    resume_is_refused(
        &cfg,
        &faulty,
        "it was started with --inject-fault",
        "resumed without the flag",
    );
    let interim = dir.join("interim");
    let o = run(&[
        "interim",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        faulty.to_str().unwrap(),
        "--to",
        interim.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("it was started with --inject-fault"), "{err}");
    let plain = dir.join("plain");
    stopped_after_chunks_with(&cfg, &plain, &[], 1);
    resume_with_is_refused(
        &cfg,
        &plain,
        &["--inject-fault"],
        "it was started without --inject-fault",
        "resumed with the flag",
    );
    let small = write_config(
        &dir,
        "s.toml",
        "[experiment]\nname = \"s\"\nstudy = \"strategy\"\nmode = \"sample\"\nseed = 1\ndeals = 2000\n[hands]\nsizes = [[5, 5]]\n",
    );
    let mut shard_dirs = Vec::new();
    for i in ["0", "1"] {
        let out = dir.join(format!("shard{i}"));
        single(
            &small,
            &out,
            &["--shards", "2", "--shard-index", i, "--inject-fault"],
        );
        shard_dirs.push(out.to_str().unwrap().to_string());
    }
    let merged = dir.join("merged");
    let o = run(&[
        "merge",
        &shard_dirs[0],
        &shard_dirs[1],
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("a shard run with --inject-fault"), "{err}");
    assert!(!merged.join("stats.csv").exists());
}

/// A run slow enough to be killed part way: sampled 9-card deals on one
/// thread, several seconds even on a fast day (800,000 deals once took 1.7 s,
/// too short for the last kill to land).
const SLOW: &str = "[experiment]\nname = \"k\"\nmode = \"sample\"\nseed = 11\ndeals = 4000000\n[hands]\nsizes = [[9, 9]]\n[solver]\nmemo_mb = 256\n";

#[test]
fn killed_runs_resume_to_the_identical_result() {
    let dir = scratch("kill");
    let cfg = write_config(&dir, "c.toml", SLOW);
    let whole = dir.join("whole");
    single(&cfg, &whole, &["-j", "2"]);
    let out = dir.join("resumed");
    let mut interrupted = 0;
    for delay_ms in [150u64, 400, 700, 1000] {
        let mut child = Running::start(
            runner()
                .args(run_args(&cfg, &out, &["-j", "1", "--resume"]))
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        std::thread::sleep(Duration::from_millis(delay_ms));
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL: no chance to clean up
            interrupted += 1;
        }
        child.wait().unwrap();
        for f in DETERMINISTIC {
            if let Ok(bytes) = std::fs::read(out.join(f)) {
                assert_eq!(
                    bytes,
                    std::fs::read(whole.join(f)).unwrap(),
                    "a table on disk is complete or absent"
                );
            }
        }
    }
    assert!(
        interrupted >= 2,
        "the run was killed part way at least twice"
    );
    assert!(out.join("checkpoint.jsonl").exists());
    single(&cfg, &out, &["-j", "2", "--resume"]);
    assert_eq!(tables(&out), tables(&whole));
    assert!(
        !out.join("checkpoint.jsonl").exists(),
        "the checkpoint is removed once results are written"
    );
}

/// A run whose files cannot grow past `kib` KiB (as on a full disk): the
/// shell ignores SIGXFSZ, so a write past the limit fails with EFBIG, as
/// one on a full disk fails with ENOSPC.
#[cfg(unix)]
fn run_with_file_size_limit(cfg: &Path, out: &Path, kib: u32) -> Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("trap '' XFSZ; ulimit -f {kib}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_runner"))
        .args(run_args(cfg, out, &["-j", "2"]))
        .output()
        .expect("bash starts")
}

#[cfg(unix)]
#[test]
fn a_disk_that_fills_keeps_the_checkpoint_and_says_how_to_finish() {
    let dir = scratch("full-disk");
    let cfg = write_config(&dir, "c.toml", EXHAUSTIVE);
    let whole = dir.join("whole");
    single(&cfg, &whole, &[]);
    // 1 KiB: the checkpoint itself cannot grow; 6 KiB: it holds every
    // chunk, but the pictures (tens of KiB) cannot be written.
    for (kib, problem, next) in [
        (1, "cannot write checkpoint", "carries on from them"),
        (6, "cannot write", "every chunk is done"),
    ] {
        let out = dir.join(format!("limit-{kib}"));
        let o = run_with_file_size_limit(&cfg, &out, kib);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(3), "{err}");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        for part in [problem, next, "--resume"] {
            assert!(err.contains(part), "{part:?} in {err}");
        }
        assert!(
            !out.join("manifest.json").exists(),
            "no manifest for results not all written"
        );
        for f in DETERMINISTIC {
            if let Ok(bytes) = std::fs::read(out.join(f)) {
                assert_eq!(bytes, std::fs::read(whole.join(f)).unwrap(), "{f} whole");
            }
        }
        single(&cfg, &out, &["--resume"]);
        assert_eq!(tables(&out), tables(&whole), "limit {kib} KiB");
        assert!(!out.join("checkpoint.jsonl").exists());
    }
}

/// Starts a run with its stderr piped, to be signalled and then waited for.
fn start(cfg: &Path, out: &Path, extra: &[&str]) -> Running {
    Running::start(
        runner()
            .args(run_args(cfg, out, extra))
            .stderr(Stdio::piped()),
    )
}

/// Sends `signal` ("TERM", "INT") to `child`, as a batch scheduler or
/// Ctrl-C would; whether `kill` found the process.
fn send(child: &Child, signal: &str) -> bool {
    Command::new("kill")
        .args([format!("-{signal}"), child.id().to_string()])
        .status()
        .unwrap()
        .success()
}

/// Stops `child` with `signal` ("TERM", "INT"), failing the test if it had
/// already ended; its output once it exits, within a minute.
fn stopped(child: Running, signal: &str) -> Output {
    assert!(send(&child, signal), "the run had ended before SIG{signal}");
    child.output_within(60, &format!("stopped with SIG{signal}"))
}

/// Starts a run that shows progress (so it first times a sample of its
/// chunks), on one thread, with stderr piped.
fn start_with_progress(cfg: &Path, out: &Path) -> Running {
    Running::start(
        runner()
            .args(["--config", cfg.to_str().unwrap(), "--out"])
            .arg(out)
            .args(["--progress-secs", "1", "-j", "1"])
            .stderr(Stdio::piped())
            .stdout(Stdio::null()),
    )
}

#[cfg(unix)]
#[test]
fn a_signal_while_the_run_times_its_sample_is_an_interrupted_run() {
    // A run that is not quiet first times a sample of its chunks, to warn
    // if it will take hours. Here the sample lasts well over a second (600
    // chunks of one 24x24 8-cut deal each, one thread), so the signal at
    // one second lands in it. It once ended the run as a fault (exit 3,
    // "stopped during calibration") instead of as interrupted.
    let dir = scratch("term-calibration");
    let cfg = write_config(
        &dir,
        "c.toml",
        "[experiment]\nname = \"c\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 26\ndeals = 600\n[rules]\ncut = 6\n[hands]\nsizes = [[24, 24]]\n[solver]\nmemo_mb = 64\n",
    );
    let child = start_with_progress(&cfg, &dir.join("out"));
    std::thread::sleep(Duration::from_millis(1000));
    let o = stopped(child, "INT");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(!err.contains("error"), "{err}");
    assert!(err.contains("--resume"), "{err}");
}

/// A config of `deals` 26x26 11-back deals of seed 26, one deal a chunk:
/// deal 0 takes about 5 s on one thread, deal 1 over an hour.
fn eleven_back_26(dir: &Path, deals: u32) -> PathBuf {
    write_config(
        dir,
        "c.toml",
        &format!(
            "[experiment]\nname = \"c\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 26\ndeals = {deals}\n[rules]\nback = 9\n[hands]\nsizes = [[26, 26]]\n[solver]\nmemo_mb = 256\n"
        ),
    )
}

/// The first line `child` writes to stderr that is `wanted`, read on
/// another thread so that a silent run fails the test after a minute
/// instead of holding it for hours; `None` when there is no such line by
/// then, or the run ended first.
fn first_stderr_line(
    child: &mut Child,
    wanted: impl Fn(&str) -> bool + Send + 'static,
) -> Option<String> {
    use std::io::BufRead;
    let stderr = child.stderr.take().unwrap();
    let (line_tx, line_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if wanted(&line) {
                let _ = line_tx.send(line);
                break;
            }
        }
    });
    line_rx.recv_timeout(Duration::from_secs(60)).ok()
}

/// A chunk can take hours (a 26x26 deal under both rules took over three),
/// and a line that gives no speed for an hour looks like a hung run: the
/// progress lines name the chunks that have outlasted a line, with their
/// time so far.
#[test]
fn progress_lines_name_a_chunk_that_outlasts_them() {
    // 11-back at 26x26, one deal a chunk: deal 0 takes about 5 s on one
    // thread, longer than the 1 s between lines. Fewer than 512 chunks, so
    // the run times no sample first.
    let dir = scratch("long-chunk");
    let cfg = eleven_back_26(&dir, 100);
    let mut child = start_with_progress(&cfg, &dir.join("out"));
    let named = first_stderr_line(&mut child, |line| line.contains("under way"));
    let _ = child.kill();
    let _ = child.wait();
    let named =
        named.expect("no progress line named a chunk within a minute, or the run ended first");
    assert!(
        named.starts_with("progress: 26x26 field 0: ") && named.contains(", under way: chunk "),
        "{named}"
    );
    let (_, time) = named.split_once(" for ").expect("the chunk's time so far");
    assert!(time.ends_with('s') || time.ends_with('m'), "{named}");
}

#[test]
fn a_slow_sample_before_the_run_says_so_instead_of_staying_silent() {
    // 11-back at 26x26: the sample's second deal (of 1,000, seed 26) took
    // over an hour on one thread, so the note's 10 s come first anywhere.
    let dir = scratch("slow-sample");
    let cfg = eleven_back_26(&dir, 1000);
    let mut child = start_with_progress(&cfg, &dir.join("out"));
    let first = first_stderr_line(&mut child, |_| true);
    // The sample's chunks are journalled as they finish, so a resume does
    // not do them again: the first (deal 0, about 5 s alone) shows up in
    // the checkpoint while the sample still runs.
    let journal = dir.join("out").join("checkpoint.jsonl");
    let records = || {
        std::fs::read_to_string(&journal)
            .map(|j| j.lines().skip(1).map(str::to_owned).collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let waited = std::time::Instant::now();
    while records().is_empty() && waited.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = child.kill();
    let _ = child.wait();
    let first = first.expect("no line within a minute, or the run ended first");
    assert!(
        first.starts_with("note: timing a sample of the run before it starts"),
        "{first}"
    );
    // One deal per chunk here, so the note says how big the run is.
    assert!(first.contains("the run has 1,000 chunks"), "{first}");
    let records = records();
    assert!(
        records.first().is_some_and(|r| r.contains("{\"chunk\":")),
        "{records:?}"
    );
}

/// A run that is not quiet times a sample of its chunks first (plans of 512
/// chunks or more). Those chunks are journalled and counted by the run, not
/// done again: the tables equal a quiet run's byte for byte, whole or
/// sharded, and `run.csv` counts every deal once. (Here the sample grows
/// until it is the whole run: its chunks are that fast.)
#[test]
fn the_run_counts_the_chunks_of_its_timing_sample_once() {
    let dir = scratch("sample-counted");
    let cfg = write_config(
        &dir,
        "c.toml",
        "[experiment]\nname = \"c\"\nmode = \"sample\"\nseed = 3\ndeals = 1100000\n[hands]\nsizes = [[3, 3], [4, 4]]\n",
    );
    for shard in [None, Some(["--shards", "2", "--shard-index", "1"])] {
        let shard_args: Vec<&str> = shard.into_iter().flatten().collect();
        let (quiet, timed) = (dir.join("quiet"), dir.join("timed"));
        let _ = std::fs::remove_dir_all(&quiet);
        let _ = std::fs::remove_dir_all(&timed);
        let q = run(&run_args(&cfg, &quiet, &shard_args));
        assert!(q.status.success(), "{}", stderr(&q));
        // Not quiet (progress shown, if rarely), so the sample runs first.
        let t = runner()
            .args(["--config", cfg.to_str().unwrap(), "--out"])
            .arg(&timed)
            .args(["--progress-secs", "600"])
            .args(&shard_args)
            .output()
            .unwrap();
        assert!(t.status.success(), "{}", stderr(&t));
        for file in ["partial.json", "stats.csv", "mu.csv"] {
            if shard.is_some() && file != "partial.json" {
                continue;
            }
            assert_eq!(
                std::fs::read(quiet.join(file)).unwrap(),
                std::fs::read(timed.join(file)).unwrap(),
                "{file}, {shard:?}"
            );
        }
        let details = std::fs::read_to_string(timed.join("run.csv")).unwrap();
        let evaluated: u64 = details
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(3).unwrap().parse::<u64>().unwrap())
            .sum();
        let deals = if shard.is_some() {
            1_100_000
        } else {
            2_200_000
        };
        assert_eq!(evaluated, deals, "{details}");
    }
}

/// Starts `cfg` into `out` with `extra` and waits until its checkpoint
/// holds `chunks` chunks (its header is line 1); returns the run and its
/// checkpoint. Fails the test saying so when the run ends first (at once,
/// not after the wait), or after 120 s (loaded CI machines have taken over
/// 30 s for a first chunk); the run is then killed as the guard drops. A
/// silent return would surface later as an unreadable index error.
fn started_until_chunks(
    cfg: &Path,
    out: &Path,
    extra: &[&str],
    chunks: usize,
) -> (Running, PathBuf) {
    let mut child = start(cfg, out, extra);
    let journal = out.join("checkpoint.jsonl");
    wait_for_checkpointed_chunks(&mut child, &journal, chunks);
    (child, journal)
}

fn wait_for_checkpointed_chunks(child: &mut Child, journal: &Path, chunks: usize) {
    let mut lines = 0;
    for _ in 0..2400 {
        lines = std::fs::read_to_string(journal).map_or(0, |t| t.lines().count());
        if lines > chunks {
            return;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "{}: the run ended ({status}) with {} chunks checkpointed, waiting for {chunks}",
                journal.display(),
                lines.saturating_sub(1)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "{}: {} chunks checkpointed after 120 s, waiting for {chunks}",
        journal.display(),
        lines.saturating_sub(1)
    );
}

/// Resuming another run's checkpoint is refused before any work, naming
/// what differs in the flags that would continue it: the shard, the config,
/// the version that wrote it.
#[cfg(unix)]
#[test]
fn another_runs_checkpoint_is_refused_naming_what_differs() {
    let dir = scratch("another-run");
    let cfg = write_config(&dir, "c.toml", SLOW);
    let out = dir.join("out");
    let shard = ["--shards", "2", "--shard-index", "1"];
    let journal = stopped_after_chunks_with(&cfg, &out, &shard, 1);
    let before = std::fs::read(&journal).unwrap();
    let refused = |cfg: &Path, extra: &[&str]| {
        let o = run(&run_args(cfg, &out, &[&["--resume"][..], extra].concat()));
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert_eq!(
            std::fs::read(&journal).unwrap(),
            before,
            "the checkpoint was changed"
        );
        err
    };
    let err = refused(&cfg, &[]);
    assert!(
        err.contains("the checkpoint belongs to another run (it is shard 1 of 2's, where this run is the whole run: give --shards 2 --shard-index 1)"),
        "{err}"
    );
    let other = write_config(&dir, "d.toml", &SLOW.replace("seed = 11", "seed = 12"));
    let err = refused(&other, &shard);
    assert!(
        err.contains("(it was started from another config (or by a build that cuts the work into other chunks))"),
        "{err}"
    );
    let text = String::from_utf8(before.clone()).unwrap();
    let version = format!(" version {} ", env!("CARGO_PKG_VERSION"));
    assert!(text.lines().next().unwrap().contains(&version), "{text}");
    std::fs::write(&journal, text.replacen(&version, " version 0.0.1 ", 1)).unwrap();
    let err = {
        let o = run(&run_args(&cfg, &out, &[&["--resume"][..], &shard].concat()));
        assert_eq!(o.status.code(), Some(2));
        stderr(&o)
    };
    assert!(
        err.contains("(it was written by runner 0.0.1, and this is runner"),
        "{err}"
    );
    // The flags it names continue the run.
    std::fs::write(&journal, &before).unwrap();
    single(&cfg, &out, &[&shard[..], &["--resume"]].concat());
    assert!(out.join("partial.json").exists());
}

/// A checkpoint replaced under a running run (as `git stash` or `git
/// checkout` of a committed checkpoint does: a new file at the path) is
/// noticed at the next chunk: the run stops with an error naming it,
/// instead of appending to the old file, now in no directory, and saying
/// on exit that its chunks were checkpointed.
#[cfg(unix)]
#[test]
fn a_checkpoint_replaced_under_the_run_stops_it_with_an_error() {
    let dir = scratch("replaced-checkpoint");
    let cfg = write_config(&dir, "c.toml", SLOW);
    let out = dir.join("out");
    let (child, journal) = started_until_chunks(&cfg, &out, &["-j", "1"], 1);
    let copy = out.join("checkpoint.copy");
    std::fs::copy(&journal, &copy).unwrap();
    std::fs::rename(&copy, &journal).unwrap();
    let o = child.output_within(60, "a run whose checkpoint was replaced");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(
        err.contains("checkpoint.jsonl") && err.contains("was replaced or removed"),
        "{err}"
    );
    assert!(!err.contains("checkpointed in"), "{err}");
}

/// Runs `cfg` into `out` on one thread until its checkpoint holds `chunks`
/// chunks, then stops it with SIGTERM (exit 4); returns the checkpoint.
fn stopped_after_chunks(cfg: &Path, out: &Path, chunks: usize) -> PathBuf {
    stopped_after_chunks_with(cfg, out, &[], chunks)
}

/// [`stopped_after_chunks`] with more flags (a shard's).
fn stopped_after_chunks_with(cfg: &Path, out: &Path, flags: &[&str], chunks: usize) -> PathBuf {
    let mut extra = flags.to_vec();
    extra.extend(["-j", "1"]);
    let (child, journal) = started_until_chunks(cfg, out, &extra, chunks);
    assert_eq!(stopped(child, "TERM").status.code(), Some(4));
    journal
}

/// Resumes the run of `cfg` in `out` and asserts that its checkpoint is
/// refused (exit 2) for `problem`; `what` names the case. Accepted, such a
/// resume would run for hours, so a minute decides.
fn resume_is_refused(cfg: &Path, out: &Path, problem: &str, what: &str) {
    resume_with_is_refused(cfg, out, &[], problem, what);
}

/// [`resume_is_refused`] with more flags (those the run was started with).
fn resume_with_is_refused(cfg: &Path, out: &Path, flags: &[&str], problem: &str, what: &str) {
    let resumed = start(cfg, out, &[&["--resume", "-j", "1"][..], flags].concat());
    let o = resumed.output_within(60, &format!("{what}: resumed"));
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert!(
        err.contains("checkpoint.jsonl") && err.contains(problem),
        "{what}: {err}"
    );
}

/// A checkpoint line holding `record` under its checksum, as a run writes
/// one: an edit sealed this way passes every check but the counts' own.
fn sealed_line(record: &serde_json::Value) -> String {
    let json = record.to_string();
    format!("{:08x} {json}", crc32fast::hash(json.as_bytes()))
}

/// Checkpoint line `line` with its record changed by `edit`, sealed again.
fn resealed(line: &str, edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let (_, record) = line.split_once(' ').expect("a checksummed record");
    let mut v: serde_json::Value = serde_json::from_str(record).unwrap();
    edit(&mut v);
    sealed_line(&v)
}

#[cfg(unix)]
#[test]
fn sigterm_checkpoints_and_exits_with_its_own_code() {
    let dir = scratch("term");
    let cfg = write_config(&dir, "c.toml", SLOW);
    let out = dir.join("out");
    // Not a fixed delay: on a busy machine 400 ms once held no chunk.
    let (child, _) = started_until_chunks(&cfg, &out, &["-j", "1"], 1);
    let o = stopped(child, "TERM");
    assert_eq!(
        o.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
    assert!(out.join("checkpoint.jsonl").exists());
    assert!(!out.join("stats.csv").exists(), "no partial tables");
    // `runner plan` says what the checkpoint holds, and leaves it as it was.
    let journal = std::fs::read(out.join("checkpoint.jsonl")).unwrap();
    let recorded = journal.iter().filter(|&&b| b == b'\n').count() - 1;
    assert!(recorded > 0, "the run finished chunks before the stop");
    let plan = |out: &Path| plan_without_timing(&cfg, out);
    let said = plan(&out);
    assert!(
        said.contains(&format!("checkpoint: {recorded} of ")) && said.contains(" chunks done in "),
        "{said}"
    );
    assert!(
        said.contains("rechecked: never; --resume --recheck N"),
        "{said}"
    );
    // Timed, the plan samples the chunks left alone, and says what a task
    // that continues the checkpoint needs rather than a fresh run's recipe.
    let total = count_between(
        &said,
        &format!("checkpoint: {recorded} of "),
        " chunks done",
    );
    let timed = plan_timed(&cfg, &out, "1");
    let time_left = timed
        .lines()
        .find(|l| l.starts_with("time left: about"))
        .unwrap_or_else(|| panic!("{timed}"));
    let timed_of = count_between(time_left, " of ", " chunks left in ");
    assert_eq!(timed_of, total - recorded as u64, "{time_left}");
    assert!(
        timed.contains(
            "cluster: a task that continues this checkpoint (with --resume) wants --time "
        ) && !timed.contains("cluster: runner slurm")
            && !timed.contains("the kept memo carries"),
        "{timed}"
    );
    // The interim command it prints runs as printed, and counts those chunks.
    let printed = said
        .lines()
        .find_map(|l| l.strip_prefix("interim: `runner "))
        .and_then(|l| l.split('`').next())
        .unwrap_or_else(|| panic!("no interim command: {said}"));
    let to = out.with_extension("interim");
    let args: Vec<String> = printed
        .split(' ')
        .map(|a| {
            if a == "DIR" {
                to.display().to_string()
            } else {
                a.to_string()
            }
        })
        .collect();
    let o = run(&args);
    ok(&o);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains(&format!("interim: {recorded} of ")),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(
        std::fs::read(out.join("checkpoint.jsonl")).unwrap(),
        journal
    );
    assert!(!plan(&dir.join("elsewhere")).contains("checkpoint"));
    // A rerun without --resume would throw the finished chunks away: it is
    // refused before any work, and says how to go on.
    let o = run(&run_args(&cfg, &out, &[]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("add --resume to continue, or --fresh to start over"),
        "{}",
        stderr(&o)
    );
    assert!(
        out.join("checkpoint.jsonl").exists(),
        "the checkpoint is kept"
    );
    let whole = dir.join("whole");
    single(&cfg, &whole, &[]);
    single(&cfg, &out, &["--resume"]);
    assert_eq!(tables(&out), tables(&whole));
    // --fresh starts over and gives the same tables.
    let fresh = dir.join("fresh");
    let (child, _) = started_until_chunks(&cfg, &fresh, &["-j", "1"], 1);
    assert_eq!(stopped(child, "TERM").status.code(), Some(4));
    single(&cfg, &fresh, &["--fresh"]);
    assert_eq!(tables(&fresh), tables(&whole));
}

/// The count (digits in threes, as the runner writes them) between the
/// first `before` in `text` and the `after` that follows it.
fn count_between(text: &str, before: &str, after: &str) -> u64 {
    text.split_once(before)
        .and_then(|(_, rest)| rest.split_once(after))
        .and_then(|(n, _)| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no count between {before:?} and {after:?} in {text}"))
}

/// What `runner plan` prints for `cfg` run into `out`, without timing a
/// sample.
fn plan_without_timing(cfg: &Path, out: &Path) -> String {
    plan_timed(cfg, out, "0")
}

/// What `runner plan` prints for `cfg` run into `out`, timing a sample for
/// `calibrate_secs`.
fn plan_timed(cfg: &Path, out: &Path, calibrate_secs: &str) -> String {
    let o = run(&[
        "plan",
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--calibrate-secs",
        calibrate_secs,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8(o.stdout).unwrap()
}

/// A stopped shard's checkpoint is named as that shard's by `runner plan`,
/// with the flags that continue it, not refused as another run's.
#[cfg(unix)]
#[test]
fn plan_names_the_shard_a_checkpoint_belongs_to() {
    let dir = scratch("plan-shard");
    let cfg = write_config(&dir, "c.toml", SLOW);
    let out = dir.join("out");
    let shard = ["--shards", "2", "--shard-index", "1"];
    let (child, _) = started_until_chunks(&cfg, &out, &[&shard[..], &["-j", "1"]].concat(), 1);
    assert_eq!(stopped(child, "TERM").status.code(), Some(4));
    let journal = std::fs::read_to_string(out.join("checkpoint.jsonl")).unwrap();
    let recorded = journal.lines().count() - 1;
    let said = plan_without_timing(&cfg, &out);
    assert!(
        said.contains(&format!("checkpoint: {recorded} of "))
            && said.contains(" chunks of shard 1 of 2 done in ")
            && said.contains("add --shards 2 --shard-index 1 --resume"),
        "{said}"
    );
    // The flags it names continue the run.
    single(&cfg, &out, &[&shard[..], &["--resume"]].concat());
    assert!(out.join("partial.json").exists());
    assert!(!out.join("checkpoint.jsonl").exists());
}

#[test]
fn slurm_scripts_are_written_for_a_config() {
    let dir = scratch("scripts");
    let cfg = write_config(&dir, "c.toml", SAMPLE);
    // `runner slurm` for a config, 5 shards, the scripts in `dir/to`.
    let slurm = |cfg: &Path, to: &str, extra: &[&str]| {
        let to = dir.join(to);
        let mut args = vec![
            "slurm",
            "--config",
            cfg.to_str().unwrap(),
            "--shards",
            "5",
            "--dir",
            to.to_str().unwrap(),
        ];
        args.extend(extra);
        run(&args)
    };
    let read = |script: &str| std::fs::read_to_string(dir.join(script)).unwrap();
    ok(&slurm(&cfg, "s", &[]));
    let array = read("s/array.sbatch");
    assert!(array.contains("#SBATCH --array=0-4"));
    assert!(array.contains("--shards 5"));
    assert!(array.contains("--resume"));
    assert!(!array.contains("{{"), "every placeholder filled");
    let merge = read("s/merge.sbatch");
    assert!(merge.contains(" merge "));
    // Without --merge-recheck the merge only sums: one CPU, half an hour.
    assert!(!merge.contains("--recheck"), "{merge}");
    assert!(merge.contains("#SBATCH --cpus-per-task=1\n"), "{merge}");
    assert!(merge.contains("#SBATCH --time=00:30:00\n"), "{merge}");
    assert!(!merge.contains("{{"), "every placeholder filled");
    let submit = read("s/submit.sh");
    assert!(submit.contains("--dependency=afterok"));
    assert!(!array.contains("--resume --keep-memo") && !array.contains("#SBATCH --signal"));
    // --keep-memo: the tasks keep their memo over a stop, and are signalled
    // ahead of the time limit to write it; refused for a study without one.
    let o = slurm(&cfg, "plain", &["--keep-memo"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--keep-memo: study `tanhinmin`"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.join("plain").exists());
    let variant = write_config(
        &dir,
        "v.toml",
        "[experiment]\nname = \"v\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 1\ndeals = 10\n[rules]\nback = 9\n[hands]\nsizes = [[13, 13]]\n",
    );
    ok(&slurm(&variant, "v", &["--keep-memo"]));
    let array = read("v/array.sbatch");
    assert!(array.contains("--resume --keep-memo"), "{array}");
    assert!(array.contains("#SBATCH --signal=B:TERM@300"), "{array}");
    assert!(!array.contains("--keep-memo --recheck"), "{array}");
    ok(&slurm(&variant, "r", &["--keep-memo", "--recheck", "3"]));
    let rechecked = read("r/array.sbatch");
    assert!(
        rechecked.contains("--resume --keep-memo --recheck 3\n"),
        "{rechecked}"
    );
    // --merge-recheck: the merge job solves chunks again, so it asks for
    // an array task's CPUs, memory and time, and runs on all its CPUs.
    let sized = ["--cpus", "3", "--mem", "5G", "--time", "02:00:00"];
    ok(&slurm(
        &cfg,
        "m",
        &[&sized[..], &["--merge-recheck", "7"]].concat(),
    ));
    let merge = read("m/merge.sbatch");
    assert!(
        merge.contains(" --recheck 7 -j \"${SLURM_CPUS_PER_TASK:-3}\"\n"),
        "{merge}"
    );
    for request in ["--cpus-per-task=3\n", "--mem=5G\n", "--time=02:00:00\n"] {
        assert!(merge.contains(&format!("#SBATCH {request}")), "{merge}");
    }
    let array = read("m/array.sbatch");
    assert!(
        array.trim_end().ends_with("--resume"),
        "only the merge rechecks: {array}"
    );
    let o = slurm(&cfg, "zero", &["--merge-recheck", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    for script in ["m/merge.sbatch", "v/array.sbatch"] {
        let check = Command::new("bash")
            .arg("-n")
            .arg(dir.join(script))
            .status()
            .unwrap();
        assert!(check.success(), "{script}");
    }
}

/// Hostile values never reach a shell: quotes, `$`, backticks and newlines
/// in a name, a directory or a flag are refused; other odd characters are
/// quoted, and the scripts (checked with `bash -n`, then run with `sbatch`
/// and the runner replaced by stubs) execute nothing they name.
#[test]
fn slurm_scripts_quote_or_refuse_hostile_values() {
    let dir = scratch("hostile");
    let cfg = write_config(&dir, "c.toml", SAMPLE);
    let slurm = |extra: &[&str]| {
        let mut args = vec!["slurm", "--config", cfg.to_str().unwrap(), "--shards", "2"];
        args.extend(extra);
        run(&args)
    };
    let refused = [
        vec!["--dir", "/tmp/x", "--time", "1:00\ntouch PWNED"],
        vec!["--dir", "/tmp/x", "--mem", "8G$(touch PWNED)"],
        vec![
            "--dir",
            "/tmp/x",
            "--sbatch-options",
            "--comment=`touch PWNED`",
        ],
        vec!["--dir", "/tmp/x", "--runner", "/bin/\"x"],
    ];
    for extra in &refused {
        let o = slurm(extra);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("cannot quote safely"), "{}", stderr(&o));
    }
    // A config whose output dir holds `$(...)` is refused too.
    let evil = write_config(
        &dir,
        "evil.toml",
        &SAMPLE.replace(
            "[experiment]",
            "[output]\ndir = \"out$(touch PWNED)\"\n[experiment]",
        ),
    );
    let o = run(&["slurm", "--config", evil.to_str().unwrap(), "--shards", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    // A --dir that is a file, or cannot be made, is a bad flag (exit 2,
    // one line), not an I/O failure.
    let a_file = dir.join("a-file");
    std::fs::write(&a_file, "x").unwrap();
    for bad in [a_file.to_str().unwrap(), "/proc/no-such-dir"] {
        let o = slurm(&["--dir", bad]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{bad}: {err}");
        assert!(
            err.trim().lines().count() == 1 && err.contains("--dir"),
            "{err}"
        );
    }

    // Odd but harmless characters are quoted, and nothing runs from them.
    let odd = dir.join("odd dir; touch PWNED & (x)");
    std::fs::create_dir_all(&odd).unwrap();
    let stubs = dir.join("stubs");
    std::fs::create_dir_all(&stubs).unwrap();
    let calls = dir.join("calls.txt");
    let write_exec = |path: &std::path::Path, text: &str| {
        std::fs::write(path, text).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    // sbatch runs the script at once as array task 0 and prints a job id.
    write_exec(
        &stubs.join("sbatch"),
        "#!/bin/bash\nscript=\"${@: -1}\"\nSLURM_ARRAY_TASK_ID=0 bash \"$script\" >/dev/null\necho 42\n",
    );
    let fake_runner = stubs.join("fake-runner");
    write_exec(
        &fake_runner,
        &format!(
            "#!/bin/bash\nprintf '%s\\n' \"$@\" >> '{}'\n",
            calls.display()
        ),
    );
    let scripts = odd.join("scripts");
    // Run from the odd directory, so the working directory the scripts
    // `cd` to, and the output directory under it, hold the odd characters.
    let o = runner()
        .args([
            "slurm",
            "--config",
            cfg.to_str().unwrap(),
            "--shards",
            "2",
            "--dir",
            scripts.to_str().unwrap(),
            "--runner",
            fake_runner.to_str().unwrap(),
            "--sbatch-options",
            "--partition=short",
        ])
        .current_dir(&odd)
        .output()
        .unwrap();
    ok(&o);
    for name in ["array.sbatch", "merge.sbatch", "submit.sh"] {
        let check = std::process::Command::new("bash")
            .args(["-n", scripts.join(name).to_str().unwrap()])
            .status()
            .unwrap();
        assert!(check.success(), "{name} is not valid bash");
    }
    let array = std::fs::read_to_string(scripts.join("array.sbatch")).unwrap();
    assert!(array.contains("#SBATCH --partition=short"));
    let path = format!("{}:{}", stubs.display(), std::env::var("PATH").unwrap());
    // The line it prints is the command, pasted as printed.
    let said = String::from_utf8(o.stdout.clone()).unwrap();
    let submit_line = said
        .lines()
        .find_map(|l| l.strip_prefix("submit with: "))
        .unwrap_or_else(|| panic!("{said}"));
    let submitted = std::process::Command::new("bash")
        .args(["-c", submit_line])
        .current_dir(&odd)
        .env("PATH", &path)
        .output()
        .unwrap();
    assert!(
        submitted.status.success(),
        "{}",
        String::from_utf8_lossy(&submitted.stderr)
    );
    let recorded = std::fs::read_to_string(&calls).unwrap();
    assert!(recorded.contains("--shards"), "{recorded}");
    assert!(recorded.contains("merge"), "{recorded}");
    assert!(
        recorded.contains(&format!("{}/results/s/shard-000-of-002", odd.display())),
        "{recorded}"
    );
    for place in [&*dir, &odd, &scripts, &std::env::current_dir().unwrap()] {
        assert!(
            !place.join("PWNED").exists(),
            "a command ran in {}",
            place.display()
        );
    }
}

/// A shard result or checkpoint edited by hand is refused (exit 2, naming
/// the file), never merged or resumed into a wrong number.
#[test]
fn edited_shard_results_and_checkpoints_are_refused() {
    let dir = scratch("tamper");
    let cfg = write_config(&dir, "c.toml", SAMPLE);
    let shard = |i: &str| {
        let out = dir.join(format!("s{i}"));
        single(&cfg, &out, &["--shards", "2", "--shard-index", i]);
        out
    };
    let (s0, s1) = (shard("0"), shard("1"));
    let merge = |a: &Path| {
        run(&[
            "merge",
            a.to_str().unwrap(),
            s1.to_str().unwrap(),
            "--out",
            dir.join("m").to_str().unwrap(),
        ])
    };
    ok(&merge(&s0));
    let original = std::fs::read_to_string(s0.join("partial.json")).unwrap();
    let deals = original.find("\"deals\":").unwrap();
    let edits = [
        // 100 more deals in a cell.
        {
            let end = original[deals + 8..].find(',').unwrap() + deals + 8;
            let n: u128 = original[deals + 8..end].parse().unwrap();
            format!("{}{}{}", &original[..deals + 8], n + 100, &original[end..])
        },
        // The config echo edited (a seed), hash left alone.
        original.replacen("\"seed\":3", "\"seed\":4", 1),
    ];
    for edited in edits {
        assert_ne!(edited, original);
        std::fs::write(s0.join("partial.json"), &edited).unwrap();
        let o = merge(&s0);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("partial.json"), "{}", stderr(&o));
        assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    }
    // More wins than deals in a cell, with the checksum recomputed as the
    // runner computes it (a CRC catches damage, not intent): refused by
    // the counts' own check, not merged into a rate above 1.
    let mut v: serde_json::Value = serde_json::from_str(&original).unwrap();
    let deals = v["cells"][0]["deals"].as_u64().unwrap();
    v["cells"][0]["first_wins"] = serde_json::json!(deals + 1);
    v["checksum"] = serde_json::json!("");
    let sum = format!("{:08x}", crc32fast::hash(&serde_json::to_vec(&v).unwrap()));
    v["checksum"] = serde_json::json!(sum);
    std::fs::write(s0.join("partial.json"), serde_json::to_vec(&v).unwrap()).unwrap();
    let o = merge(&s0);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("partial.json") && err.contains("more first-player wins than deals"),
        "{err}"
    );
    std::fs::write(s0.join("partial.json"), &original).unwrap();
    ok(&merge(&s0));

    // A checkpoint with a count edited in its first record.
    let slow = write_config(&dir, "slow.toml", SLOW);
    let out = dir.join("interrupted");
    let mut child = Running::start(
        runner()
            .args(run_args(&slow, &out, &["-j", "1"]))
            .stderr(Stdio::null()),
    );
    let journal = out.join("checkpoint.jsonl");
    wait_for_checkpointed_chunks(&mut child, &journal, 1);
    let o = stopped(child, "TERM");
    assert_eq!(o.status.code(), Some(4), "interrupted");
    let text = std::fs::read_to_string(&journal).unwrap();
    let at = text.find("\"deals\":").expect("a chunk was checkpointed");
    let edited = format!("{}\"deals\":1{}", &text[..at], &text[at + 8..]);
    std::fs::write(&journal, edited).unwrap();
    let o = run(&run_args(&slow, &out, &["--resume"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("checkpoint.jsonl line 2"),
        "{}",
        stderr(&o)
    );
}

/// A checkpoint record edited with its checksum recomputed (a CRC catches
/// damage, not intent) is still refused on resume when its counts could not
/// come from any chunk, for every study that checks a claim deal by deal:
/// never counted into a rate above 1 or a table that does not add up.
#[cfg(unix)]
#[test]
fn checkpoint_counts_that_cannot_be_are_refused_even_with_a_good_checksum() {
    let dir = scratch("impossible-counts");
    let studies = [
        (
            "variant",
            "[rules]\ncut = 6\nback = 9\n[hands]\nsizes = [[13, 13]]\n",
            vec![
                ("first_wins", "more first-player wins than deals"),
                ("winner_changed", "winner changed than deals"),
            ],
        ),
        (
            "score",
            "[hands]\nsizes = [[13, 13]]\n",
            vec![
                ("first_wins", "more first-player wins than deals"),
                // A sampled deal stands for one deal.
                ("deals", "more than the"),
            ],
        ),
        (
            "strategy",
            "[hands]\nsizes = [[8, 8]]\n",
            vec![
                ("first_wins", "more first-player wins than deals"),
                ("lines", "more deals played than the chunk holds"),
            ],
        ),
    ];
    for (study, rest, edits) in studies {
        let cfg = write_config(
            &dir,
            &format!("{study}.toml"),
            &format!(
                "[experiment]\nname = \"{study}\"\nstudy = \"{study}\"\nmode = \"sample\"\nseed = 1\ndeals = 100000000\n{rest}"
            ),
        );
        let out = dir.join(study);
        let journal = stopped_after_chunks(&cfg, &out, 1);
        let text = std::fs::read_to_string(&journal).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        let first = lines[1].clone();
        for (field, problem) in edits {
            lines[1] = resealed(&first, |v| {
                let deals = v["counts"]["deals"].as_u64().unwrap();
                v["counts"][field] = serde_json::json!(deals + 1);
            });
            std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
            resume_is_refused(&cfg, &out, problem, &format!("{study} {field}"));
        }
        // A counterexample listed in full that no deal of the cell can be:
        // a card added to its first hand.
        if study == "variant" {
            lines[1] = resealed(&first, |v| {
                let hand = &mut v["counts"]["failures"][0]["first"];
                let rank = (0..13).find(|&r| hand[r] == 0).expect("a rank not held");
                hand[rank] = serde_json::json!(1);
            });
            std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
            let problem =
                "a deal listed in full has hands of 14 and 13 cards, not the cell's 13 and 13";
            resume_is_refused(&cfg, &out, problem, "variant failure");
        }
    }
}

/// A counterexample a checkpoint record lists must be one by the study's
/// own formula: a record edited with its checksum recomputed so that a
/// listed deal agrees with the claim, or names another μ pair or C1 value,
/// is refused on resume, not written as a counterexample; so is one placed
/// outside its chunk, or at a place that dealt another deal, or a strategy
/// failure that is not the position its deal's line reaches. The plain
/// theorem and C1 have none, so their runs plant a broken claim
/// (`--inject-fault`) to list some.
#[cfg(unix)]
#[test]
fn listed_counterexamples_that_are_none_are_refused_even_with_a_good_checksum() {
    let dir = scratch("false-counterexamples");
    // (study, the config after its [experiment] table, the run's flags)
    type Run = (&'static str, &'static str, &'static [&'static str]);
    // (the list, the edit of its first deal, the refusal expected)
    type Edit = (&'static str, fn(&mut serde_json::Value), &'static str);
    let studies: [(Run, Edit); 12] = [
        (
            (
                "variant",
                "[rules]\ncut = 6\nback = 9\n[hands]\nsizes = [[13, 13]]\n",
                &[],
            ),
            (
                "failures",
                |f| {
                    f["variant_first_wins"] =
                        serde_json::json!(!f["variant_first_wins"].as_bool().unwrap())
                },
                "a deal listed as a failure of the μ test is one it predicts",
            ),
        ),
        (
            (
                "tanhinmin",
                "[hands]\nsizes = [[9, 9]]\n",
                &["--inject-fault"],
            ),
            (
                "disagreements",
                |d| d["minimax"] = d["formula"].clone(),
                "a deal listed as a disagreement is not one by its μ pair",
            ),
        ),
        (
            (
                "tanhinmin",
                "[hands]\nsizes = [[9, 9]]\n",
                &["--inject-fault"],
            ),
            (
                "disagreements",
                |d| d["mu0"] = serde_json::json!(d["mu0"].as_u64().unwrap() + 1),
                "a deal listed as a disagreement is not one by its μ pair",
            ),
        ),
        (
            ("score", "[hands]\nsizes = [[7, 7]]\n", &["--inject-fault"]),
            (
                "failures",
                |f| f["score"] = f["c1"].clone(),
                "a deal listed as a failure of C1 is not one by its C1 value",
            ),
        ),
        (
            (
                "tanhinmin",
                "[hands]\nsizes = [[9, 9]]\n",
                &["--inject-fault"],
            ),
            (
                "disagreements",
                |d| d["chunk"] = serde_json::json!(999_999),
                "is placed in chunk 999999, not one of these counts' chunks",
            ),
        ),
        (
            (
                "tanhinmin",
                "[hands]\nsizes = [[9, 9]]\n",
                &["--inject-fault"],
            ),
            (
                "disagreements",
                |d| d["seq"] = serde_json::json!(4096),
                "is placed at item 4096 of chunk 0, which holds 4096",
            ),
        ),
        (
            (
                "tanhinmin",
                "[hands]\nsizes = [[9, 9]]\n",
                &["--inject-fault"],
            ),
            (
                "disagreements",
                |d| d["seq"] = serde_json::json!(d["seq"].as_u64().unwrap() + 1),
                "is not the deal dealt there",
            ),
        ),
        (
            (
                "tanhinmin",
                "[hands]\nsizes = [[9, 9]]\n",
                &["--inject-fault"],
            ),
            (
                "disagreements",
                |d| d["weight"] = serde_json::json!(2),
                "is not the deal dealt there",
            ),
        ),
        (
            (
                "strategy",
                "[hands]\nsizes = [[6, 6]]\n",
                &["--inject-fault"],
            ),
            (
                "failures",
                |f| f["mu0"] = serde_json::json!(f["mu0"].as_u64().unwrap() + 1),
                "a position listed as a strategy failure is not one by its μ pair",
            ),
        ),
        (
            (
                "strategy",
                "[hands]\nsizes = [[6, 6]]\n",
                &["--inject-fault"],
            ),
            (
                "failures",
                |f| f["ply"] = serde_json::json!(f["ply"].as_u64().unwrap() + 1),
                "is not the position the line reaches there",
            ),
        ),
        (
            (
                "strategy",
                "[hands]\nsizes = [[6, 6]]\n",
                &["--inject-fault"],
            ),
            (
                "failures",
                |f| f["ply"] = serde_json::json!(40),
                "lies past the end of the line played from its deal",
            ),
        ),
        (
            (
                "strategy",
                "[hands]\nsizes = [[6, 6]]\n",
                &["--inject-fault"],
            ),
            (
                "failures",
                |f| f["bad_move"] = serde_json::json!("99"),
                "names a move its claim never checks there",
            ),
        ),
    ];
    for (n, ((study, rest, flags), (list, edit, problem))) in studies.into_iter().enumerate() {
        let cfg = write_config(
            &dir,
            &format!("{study}{n}.toml"),
            &format!(
                "[experiment]\nname = \"{study}\"\nstudy = \"{study}\"\nmode = \"sample\"\nseed = 1\ndeals = 100000000\n{rest}"
            ),
        );
        let out = dir.join(format!("{study}{n}"));
        let journal = stopped_after_chunks_with(&cfg, &out, flags, 1);
        let text = std::fs::read_to_string(&journal).unwrap();
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        lines[1] = resealed(&lines[1], |v| edit(&mut v["counts"][list][0]));
        std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
        resume_with_is_refused(&cfg, &out, flags, problem, &format!("{study} {problem}"));
        // Unedited, the same checkpoint resumes: stopped once it has added
        // a chunk, so that its signal handler is in place.
        std::fs::write(&journal, &text).unwrap();
        let recorded = text.lines().count() - 1;
        let (child, _) = started_until_chunks(
            &cfg,
            &out,
            &[&["--resume", "-j", "1"][..], flags].concat(),
            recorded + 1,
        );
        assert_eq!(stopped(child, "TERM").status.code(), Some(4), "{study}");
    }
}

/// A sampled 11-back cell at 7x7 fails the μ test on about one deal in
/// nine, and records that each kept a thousand failures grew a 90-second
/// run's checkpoint to 2.18 GB, though the cell shows only its first
/// thousand. Once the records before it list a thousand, a record keeps
/// only the failures that could still be shown, and says where it cut: a
/// cut its earlier records do not justify is refused, and a true one
/// passes `--recheck`.
#[cfg(unix)]
#[test]
fn records_keep_only_the_failures_their_cell_can_still_show() {
    let dir = scratch("trimmed-records");
    let cfg = write_config(
        &dir,
        "v.toml",
        "[experiment]\nname = \"v\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 1\ndeals = 100000000\n[rules]\nback = 9\n[hands]\nsizes = [[7, 7]]\n",
    );
    let out = dir.join("v");
    let journal = stopped_after_chunks_with(&cfg, &out, &[], 8);
    let text = std::fs::read_to_string(&journal).unwrap();
    let lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let failures_of = |line: &str| -> serde_json::Value {
        let (_, record) = line.split_once(' ').unwrap();
        let v: serde_json::Value = serde_json::from_str(record).unwrap();
        v["counts"]["failures"].clone()
    };
    // One thread runs the chunks in order: the first few fill the list.
    let records = &lines[1..];
    let whole = records.iter().filter(|l| failures_of(l).is_array()).count();
    assert!(
        (2..=4).contains(&whole),
        "{whole} of {} whole",
        records.len()
    );
    for line in &records[whole..] {
        let failures = failures_of(line);
        assert!(failures["kept_before"].is_array(), "{failures}");
        assert_eq!(failures["failures"], serde_json::json!([]));
        assert!(line.len() < 2_000, "{} bytes", line.len());
    }
    // (the edit of the first record's list, the refusal expected)
    type Forgery = (fn(&mut serde_json::Value), &'static str);
    let forgeries: [Forgery; 2] = [
        (
            |f| *f = serde_json::json!({"kept_before": [0, 0, 0], "failures": []}),
            "it keeps only its failures before chunk 0 deal 0, but the records before it do not list 1000 failures up to there",
        ),
        (
            |f| *f = serde_json::json!({"kept_before": [0, 1, 0], "failures": f.clone()}),
            "it keeps a failure placed after chunk 0 deal 1, where it says it keeps only those before",
        ),
    ];
    for (edit, problem) in forgeries {
        let mut forged = lines.clone();
        forged[1] = resealed(&forged[1], |v| edit(&mut v["counts"]["failures"]));
        std::fs::write(&journal, forged.join("\n") + "\n").unwrap();
        resume_is_refused(&cfg, &out, problem, problem);
    }
    // Unedited, every record solved again comes out as recorded.
    std::fs::write(&journal, &text).unwrap();
    let (child, _) = started_until_chunks(
        &cfg,
        &out,
        &["--resume", "-j", "1", "--recheck", "1000000"],
        records.len() + 1,
    );
    let o = stopped(child, "TERM");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "each of the {} came out as recorded",
            records.len()
        )),
        "{}",
        stderr(&o)
    );
}

/// The deals of an exhaustive chunk are weighted, so one record's deals
/// are bounded only by its cell's physical deals: records or shards that
/// each fit can add up to more than the cell has, or, near 2^127, wrap a
/// 128-bit sum into a small plausible number. Every record is checked, and
/// so is every sum as it grows; a forged count is refused, not merged.
#[cfg(unix)]
#[test]
fn counts_that_add_up_to_more_deals_than_the_cell_has_are_refused() {
    let dir = scratch("more-than-the-cell");
    // C(52, 6) C(46, 6): the physical deals of 6x6.
    let cell_deals: u128 = 20_358_520 * 9_366_819;
    let with = |mut v: serde_json::Value, deals: u128| {
        v["deals"] = serde_json::to_value(deals).unwrap();
        v
    };
    // Two shards, each claiming the whole cell.
    let cfg = write_config(
        &dir,
        "s6.toml",
        "[experiment]\nname = \"s\"\nstudy = \"strategy\"\nmode = \"exhaustive\"\nseed = 1\n[hands]\nsizes = [[6, 6]]\n",
    );
    let shards: Vec<PathBuf> = ["0", "1"]
        .iter()
        .map(|i| {
            let out = dir.join(format!("s{i}"));
            single(&cfg, &out, &["--shards", "2", "--shard-index", i]);
            out
        })
        .collect();
    let merged = dir.join("m");
    let merge = || {
        let mut args: Vec<&str> = vec!["merge"];
        args.extend(shards.iter().map(|s| s.to_str().unwrap()));
        args.extend(["--out", merged.to_str().unwrap()]);
        run(&args)
    };
    ok(&merge());
    let originals: Vec<String> = shards
        .iter()
        .map(|s| std::fs::read_to_string(s.join("partial.json")).unwrap())
        .collect();
    let forge = |shard: usize, deals: u128| {
        let mut v: serde_json::Value = serde_json::from_str(&originals[shard]).unwrap();
        v["cells"][0] = with(v["cells"][0].take(), deals);
        v["checksum"] = serde_json::json!("");
        let sum = format!("{:08x}", crc32fast::hash(&serde_json::to_vec(&v).unwrap()));
        v["checksum"] = serde_json::json!(sum);
        std::fs::write(shards[shard].join("partial.json"), v.to_string()).unwrap();
    };
    let deals_of = |shard: usize| {
        let v: serde_json::Value = serde_json::from_str(&originals[shard]).unwrap();
        v["cells"][0]["deals"].to_string().parse::<u128>().unwrap()
    };
    let (deals0, deals1) = (deals_of(0), deals_of(1));
    assert_eq!(deals0 + deals1, cell_deals);
    for (deals, problem) in [
        ([1 << 127, 1 << 127], "more than the"),
        ([cell_deals, cell_deals], "more than the"),
        // Each fits; the cell is then one deal short.
        ([deals0 - 1, deals1], "fewer than the"),
    ] {
        forge(0, deals[0]);
        forge(1, deals[1]);
        let o = merge();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{deals:?}: {err}");
        assert!(
            err.contains("partial.json") && err.contains(problem),
            "{deals:?}: {err}"
        );
    }

    // Two checkpoint records, each claiming the whole cell.
    let cfg = write_config(
        &dir,
        "s7.toml",
        "[experiment]\nname = \"s7\"\nstudy = \"strategy\"\nmode = \"exhaustive\"\nseed = 1\n[hands]\nsizes = [[7, 7]]\n",
    );
    let cell_deals: u128 = 133_784_560 * 45_379_620; // C(52, 7) C(45, 7)
    let out = dir.join("s7");
    let journal = stopped_after_chunks(&cfg, &out, 2);
    let original = std::fs::read_to_string(&journal).unwrap();
    for (deals, problem) in [
        (1 << 127, "more than the"),
        (cell_deals, "the chunks of cell 0 up to chunk"),
    ] {
        let mut lines: Vec<String> = original.lines().map(str::to_owned).collect();
        for line in &mut lines[1..3] {
            *line = resealed(line, |v| v["counts"] = with(v["counts"].take(), deals));
        }
        std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
        resume_is_refused(&cfg, &out, problem, &format!("{deals} deals a chunk"));
    }
}

/// Copies directory `from` (a stopped run's output) to `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// `checkpoint`'s text with the counts of its record `from` copied into
/// record `into` (1-based lines), sealed again: a forgery every count check
/// passes, since the counts are those of a real chunk of the same size.
fn counts_copied(checkpoint: &str, from: usize, into: usize) -> String {
    let mut lines: Vec<String> = checkpoint.lines().map(str::to_owned).collect();
    let (_, source) = lines[from].split_once(' ').unwrap();
    let source: serde_json::Value = serde_json::from_str(source).unwrap();
    lines[into] = resealed(&lines[into], |v| v["counts"] = source["counts"].clone());
    lines.join("\n") + "\n"
}

/// Asserts that `o`, a resume with `--recheck`, passed with `chunks` chunks solved again.
fn passed_recheck_of(o: &Output, chunks: u32) {
    ok(o);
    let said = format!("--recheck: each of the {chunks} came out as recorded");
    assert!(stderr(o).contains(&said), "{}", stderr(o));
}

/// Resumes the run of `cfg` in `out` on two threads with `--recheck n`.
fn resumed_with_recheck(cfg: &Path, out: &Path, n: &str) -> Output {
    run(&run_args(
        cfg,
        out,
        &["--resume", "--recheck", n, "-j", "2"],
    ))
}

/// `--recheck N` solves N of a checkpoint's chunks again before the resume
/// trusts it. A record given another real chunk's counts, sealed again,
/// passes every other check: resumed without a recheck it finishes with a
/// wrong rate and exit 0. Rechecked, it is refused (exit 2) before any new
/// work, naming the checkpoint and the chunk, and the file is left as it
/// was; an honest checkpoint passes the recheck and resumes to the
/// single run's tables.
#[cfg(unix)]
#[test]
fn a_recheck_catches_a_forged_record_that_every_count_check_passes() {
    let dir = scratch("recheck");
    let cfg = write_config(&dir, "c.toml", SLOW);
    let whole = dir.join("whole");
    single(&cfg, &whole, &["-j", "2"]);
    let stopped = dir.join("stopped");
    let journal = stopped_after_chunks(&cfg, &stopped, 3);
    let honest = std::fs::read_to_string(&journal).unwrap();
    let first_wins = |line: &str| {
        let (_, record) = line.split_once(' ').unwrap();
        let v: serde_json::Value = serde_json::from_str(record).unwrap();
        v["counts"]["first_wins"].clone()
    };
    let lines: Vec<&str> = honest.lines().collect();
    let other = (2..lines.len())
        .find(|&k| first_wins(lines[k]) != first_wins(lines[1]))
        .expect("two chunks of 4,096 deals with different first-player wins");
    let forged = counts_copied(&honest, other, 1);

    let honest_dir = dir.join("honest");
    copy_dir(&stopped, &honest_dir);
    let o = resumed_with_recheck(&cfg, &honest_dir, "2");
    passed_recheck_of(&o, 2);
    assert_eq!(tables(&honest_dir), tables(&whole));

    let unchecked = dir.join("unchecked");
    copy_dir(&stopped, &unchecked);
    std::fs::write(unchecked.join("checkpoint.jsonl"), &forged).unwrap();
    ok(&run(&run_args(&cfg, &unchecked, &["--resume", "-j", "2"])));
    assert_ne!(
        tables(&unchecked)[0],
        tables(&whole)[0],
        "the forged record changes the rate when nothing solves it again"
    );

    let rechecked = dir.join("rechecked");
    copy_dir(&stopped, &rechecked);
    std::fs::write(rechecked.join("checkpoint.jsonl"), &forged).unwrap();
    let o = resumed_with_recheck(&cfg, &rechecked, "1000");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    let chunk_of = |line: &str| {
        let (_, record) = line.split_once(' ').unwrap();
        let v: serde_json::Value = serde_json::from_str(record).unwrap();
        v["chunk"].as_u64().unwrap()
    };
    assert!(
        err.contains("checkpoint.jsonl")
            && err.contains(&format!(
                "chunk {} came out differently",
                chunk_of(lines[1])
            )),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(rechecked.join("checkpoint.jsonl")).unwrap(),
        forged
    );
    assert!(!rechecked.join("stats.csv").exists());

    // A record of a chunk outside the run, sealed again, is refused as a
    // resume refuses it, not taken for a bug of the recheck.
    let mut outside: Vec<String> = honest.lines().map(str::to_owned).collect();
    outside[1] = resealed(&outside[1], |v| {
        v["chunk"] = serde_json::json!(1_000_000_000)
    });
    std::fs::write(
        rechecked.join("checkpoint.jsonl"),
        outside.join("\n") + "\n",
    )
    .unwrap();
    let o = resumed_with_recheck(&cfg, &rechecked, "1000");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("chunk 1000000000 is not a chunk of this run's shard"),
        "{}",
        stderr(&o)
    );

    let o = run(&run_args(&cfg, &rechecked, &["--recheck", "2"]));
    assert_eq!(o.status.code(), Some(2), "--recheck without --resume");
    assert!(stderr(&o).contains("--resume"), "{}", stderr(&o));
}

/// A recheck passed in one sitting is journalled with the checkpoint, so
/// the manifest of the sitting that finishes the run, and an interim's,
/// name it: which chunks were solved again, of how many, and by which
/// build. The line changes no count: the run still ends with the single
/// run's tables.
#[cfg(unix)]
#[test]
fn an_earlier_sittings_recheck_reaches_the_manifest() {
    let dir = scratch("recheck-manifest");
    let cfg = write_config(&dir, "c.toml", SLOW);
    let whole = dir.join("whole");
    single(&cfg, &whole, &["-j", "2"]);
    let out = dir.join("out");
    let journal = stopped_after_chunks(&cfg, &out, 3);
    // The stop can come a chunk or two after the third.
    let done = std::fs::read_to_string(&journal).unwrap().lines().count() - 1;
    // Past the recheck's line and one new chunk.
    let resume = ["--resume", "--recheck", "2", "-j", "1"];
    let (child, _) = started_until_chunks(&cfg, &out, &resume, done + 2);
    let o = stopped(child, "TERM");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    let said = stderr(&o);
    let named = said
        .split(&format!(
            "--recheck: solving 2 of the checkpoint's {done} chunks again ("
        ))
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("{said}"));
    let picked: Vec<u64> = named.split(", ").map(|c| c.parse().unwrap()).collect();
    let text = std::fs::read_to_string(&journal).unwrap();
    let first_sittings: Vec<u64> = text
        .lines()
        .skip(1)
        .take(done)
        .map(|line| {
            let v: serde_json::Value =
                serde_json::from_str(line.split_once(' ').unwrap().1).unwrap();
            v["chunk"].as_u64().unwrap()
        })
        .collect();
    assert!(
        picked.iter().all(|c| first_sittings.contains(c)),
        "{picked:?} of {first_sittings:?}"
    );
    let expect_recheck = |manifest: &serde_json::Value, what: &str| {
        let rechecks = manifest["rechecks"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: {manifest}"));
        assert_eq!(rechecks.len(), 1, "{what}: {manifest}");
        let r = &rechecks[0];
        assert_eq!(r["chunks"], serde_json::json!(picked), "{what}");
        assert_eq!(r["of_chunks"], done, "{what}");
        assert!(
            r["git_commit"].as_str().is_some_and(|c| !c.is_empty()),
            "{what}"
        );
        assert!(
            r["started"].as_str().is_some_and(|t| t.ends_with('Z')),
            "{what}"
        );
    };

    let to = dir.join("interim");
    let interim = run_interim(&cfg, &[&out], &to);
    ok(&interim);
    expect_recheck(&manifest_of(&to), "interim");
    let names_the_recheck = |said: &str| {
        assert!(
            said.contains("rechecked: 1 time, last at ")
                && said.contains(&format!(": 2 of its {done} chunks then solved again")),
            "{said}"
        );
    };
    names_the_recheck(&String::from_utf8_lossy(&interim.stdout));
    names_the_recheck(&plan_without_timing(&cfg, &out));

    ok(&run(&run_args(&cfg, &out, &["--resume", "-j", "2"])));
    assert_eq!(tables(&out), tables(&whole));
    expect_recheck(&manifest_of(&out), "finished run");
    assert!(
        manifest_of(&whole).get("rechecks").is_none(),
        "a run never rechecked names none"
    );
}

/// A results directory's `manifest.json`, parsed.
fn manifest_of(dir: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
}

/// `runner merge SHARDS... --out OUT`.
fn merge_into(shards: &[&Path], out: &Path) -> Output {
    let mut args: Vec<&str> = vec!["merge"];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    args.extend(["--out", out.to_str().unwrap()]);
    run(&args)
}

/// A shard resumed with `--recheck` lists the recheck in its own
/// manifest, and `runner merge` lists every shard's, each marked with its
/// shard, in the merged manifest; a shard never rechecked adds none.
#[cfg(unix)]
#[test]
fn a_merge_lists_the_rechecks_of_its_shards() {
    let dir = scratch("recheck-merge");
    let cfg = write_config(&dir, "c.toml", SLOW);
    let (first, second) = (dir.join("shard0"), dir.join("shard1"));
    let shard = |i: &'static str| ["--shards", "2", "--shard-index", i];
    stopped_after_chunks_with(&cfg, &first, &shard("0"), 2);
    let mut resume = shard("0").to_vec();
    resume.extend(["--resume", "--recheck", "1", "-j", "2"]);
    passed_recheck_of(&run(&run_args(&cfg, &first, &resume)), 1);
    single(&cfg, &second, &shard("1"));
    let own = manifest_of(&first)["rechecks"].clone();
    assert_eq!(own.as_array().map(Vec::len), Some(1), "{own}");
    assert!(own[0].get("shard_index").is_none(), "{own}");
    let merged = dir.join("merged");
    ok(&merge_into(&[&first, &second], &merged));
    let listed = manifest_of(&merged)["rechecks"].clone();
    let mut expected = own.clone();
    expected[0]["shard_index"] = serde_json::json!(0);
    assert_eq!(listed, expected);
    // `runner interim` over the finished shards reads them from the same
    // manifests (it once said "rechecked: never" of a finished run).
    let so_far = dir.join("interim");
    let o = run_interim(&cfg, &[&first, &second], &so_far);
    ok(&o);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(said.contains("rechecked: 1 time, last at "), "{said}");
    assert_eq!(manifest_of(&so_far)["rechecks"], expected);
}

/// `runner merge --recheck N` solves chunks of the shards again, from the
/// records a finished shard keeps beside its `partial.json`
/// (`chunks.jsonl`; a whole run keeps none). A shard forged the way a
/// resume would write it from a forged record (another real chunk's
/// counts, sealed again) passes every count check and merges to a wrong
/// rate without the recheck; with it, a chunk solved again differs from its
/// record. Its `partial.json` beside the honest records no longer adds up
/// to them. A shard without records is refused, saying how to go on.
#[cfg(unix)]
#[test]
fn a_merge_recheck_catches_a_forged_shard_result() {
    let dir = scratch("merge-recheck");
    let cfg = write_config(&dir, "c.toml", SAMPLE);
    let whole = dir.join("whole");
    single(&cfg, &whole, &[]);
    assert!(!whole.join("chunks.jsonl").exists() && !whole.join("checkpoint.jsonl").exists());
    let shard_flags = |i: &'static str| ["--shards", "2", "--shard-index", i];
    let (s0, s1) = (dir.join("s0"), dir.join("s1"));
    single(&cfg, &s0, &shard_flags("0"));
    single(&cfg, &s1, &shard_flags("1"));
    let merged_rechecking = |first: &Path, n: &str, out: &str| {
        let out = dir.join(out);
        let o = run(&[
            "merge",
            first.to_str().unwrap(),
            s1.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--recheck",
            n,
            "-j",
            "2",
        ]);
        (o, out)
    };

    // Honest: every chunk of both shards solved again, as recorded.
    let (o, merged) = merged_rechecking(&s0, "1000", "merged");
    passed_recheck_of(&o, 16);
    assert_eq!(tables(&merged), tables(&whole));
    let listed = manifest_of(&merged)["rechecks"].clone();
    assert_eq!(
        listed[0]["chunks"].as_array().map(Vec::len),
        Some(16),
        "{listed}"
    );
    assert_eq!(listed[0]["of_chunks"], 16, "{listed}");
    // Two picks for two shards: one chunk of each (chunks are dealt round
    // robin, so shard 0 holds the even ones).
    for round in 0..5 {
        let (o, merged) = merged_rechecking(&s0, "2", &format!("merged-two-{round}"));
        passed_recheck_of(&o, 2);
        let picked = manifest_of(&merged)["rechecks"][0]["chunks"].clone();
        let parity: Vec<u64> = (0..2).map(|i| picked[i].as_u64().unwrap() % 2).collect();
        assert!(parity.contains(&0) && parity.contains(&1), "{picked}");
    }

    // Shard 0's records hold chunks 0, 2, 4 and 6 of the first cell, each
    // of 4,096 deals: chunk 0 given chunk 2's counts (or 4's, should they
    // be equal), then the shard's results written from them by a resume.
    let honest = std::fs::read_to_string(s0.join("chunks.jsonl")).unwrap();
    let record = |line: &str| -> serde_json::Value {
        serde_json::from_str(line.split_once(' ').unwrap().1).unwrap()
    };
    let lines: Vec<&str> = honest.lines().collect();
    let line_of = |chunk: u64| {
        (1..lines.len())
            .find(|&k| record(lines[k])["chunk"] == chunk)
            .unwrap()
    };
    let into = line_of(0);
    let from = [2, 4]
        .map(line_of)
        .into_iter()
        .find(|&k| record(lines[k])["counts"] != record(lines[into])["counts"])
        .unwrap();
    let forged_dir = dir.join("forged");
    copy_dir(&s0, &forged_dir);
    std::fs::remove_file(forged_dir.join("chunks.jsonl")).unwrap();
    std::fs::write(
        forged_dir.join("checkpoint.jsonl"),
        counts_copied(&honest, from, into),
    )
    .unwrap();
    let mut resume = shard_flags("0").to_vec();
    resume.push("--resume");
    single(&cfg, &forged_dir, &resume);
    ok(&merge_into(&[&forged_dir, &s1], &dir.join("unchecked")));
    assert_ne!(
        tables(&dir.join("unchecked"))[0],
        tables(&whole)[0],
        "the forged shard changes the rate when nothing solves it again"
    );
    let (o, out) = merged_rechecking(&forged_dir, "1000", "caught");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("chunks.jsonl: chunk 0 came out differently")
            && err.contains("rerun that shard")
            && err.lines().count() == 2,
        "{err}"
    );
    assert!(!out.join("stats.csv").exists());

    // Refused in one line, before anything is solved or written.
    let refused = |(o, out): (Output, PathBuf), said: &str| {
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(
            err.contains(said) && err.trim().lines().count() == 1,
            "{err}"
        );
        assert!(!out.join("stats.csv").exists());
    };
    // Records refused line by line (a checksum that fails, a chunk twice)
    // say what to do about a shard, not about a run's checkpoint.
    let damaged_dir = dir.join("damaged");
    copy_dir(&s0, &damaged_dir);
    let flipped = honest.replacen("\"chunk\":0", "\"chunk\":8", 1);
    let twice = format!("{honest}{}\n", lines[into]);
    for (records, said) in [
        (
            flipped,
            "checksum mismatch; the shard's kept checkpoint was edited or corrupted (rerun that shard)",
        ),
        (
            twice,
            "recorded twice; the shard's kept checkpoint was edited (rerun that shard)",
        ),
    ] {
        std::fs::write(damaged_dir.join("chunks.jsonl"), records).unwrap();
        let first = damaged_dir.clone();
        refused(merged_rechecking(&first, "1", "damaged-out"), said);
    }
    // The forged partial.json beside the honest records.
    std::fs::copy(forged_dir.join("partial.json"), s0.join("partial.json")).unwrap();
    refused(
        merged_rechecking(&s0, "1", "mismatched"),
        "chunks.jsonl: its records do not add up to the partial.json beside it",
    );
    // No records: refused by --recheck, merged without it.
    std::fs::remove_file(forged_dir.join("chunks.jsonl")).unwrap();
    refused(
        merged_rechecking(&forged_dir, "1", "none"),
        "chunks.jsonl: not there, so --recheck cannot solve shard 0's chunks again",
    );
    ok(&merge_into(&[&forged_dir, &s1], &dir.join("unrechecked")));
}

/// A stop during the recheck (whose chunks can take as long as any) is an
/// interrupted run like any other: exit 4 within seconds, saying so, with
/// the checkpoint left as it was. Chunk 1 of the 11-back 26x26 config
/// takes over an hour; its record here is chunk 0's counts, so the stop
/// comes long before the recheck could find it forged.
#[cfg(unix)]
#[test]
fn a_stop_during_the_recheck_leaves_the_checkpoint_as_it_was() {
    let dir = scratch("recheck-stop");
    let cfg = eleven_back_26(&dir, 2);
    let out = dir.join("out");
    let journal = stopped_after_chunks(&cfg, &out, 1);
    let text = std::fs::read_to_string(&journal).unwrap();
    let first = text.lines().nth(1).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.push(resealed(first, |v| v["chunk"] = serde_json::json!(1)));
    let checkpoint = lines.join("\n") + "\n";
    std::fs::write(&journal, &checkpoint).unwrap();
    // Stderr goes to a file, read as it grows: a pipe closed after the
    // line wanted would end the run by SIGPIPE at its next line.
    let said = dir.join("stderr.txt");
    let child = Running::start(
        runner()
            .args(run_args(
                &cfg,
                &out,
                &["--resume", "--recheck", "2", "-j", "1"],
            ))
            .stderr(std::fs::File::create(&said).unwrap()),
    );
    let solving = "--recheck: solving 2 of the checkpoint's 2 chunks again (0, 1)";
    for _ in 0..1200 {
        if std::fs::read_to_string(&said).unwrap().contains(solving) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        std::fs::read_to_string(&said).unwrap().contains(solving),
        "{}",
        std::fs::read_to_string(&said).unwrap()
    );
    let o = stopped(child, "TERM");
    let err = std::fs::read_to_string(&said).unwrap();
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(err.contains("interrupted during the recheck"), "{err}");
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), checkpoint);
}

/// A stop during `runner merge --recheck` (whose chunks can take as long
/// as any) ends the merge within seconds, as an interrupted run (exit 4),
/// with nothing written. Shard 1 of the 11-back 26x26 config holds chunk
/// 1, which takes over an hour; its kept record here is chunk 0's counts,
/// written by a resume of a checkpoint holding only that record, so the
/// shard looks finished and its records add up to its results.
#[cfg(unix)]
#[test]
fn a_stop_during_a_merge_recheck_writes_nothing() {
    let dir = scratch("merge-recheck-stop");
    let cfg = eleven_back_26(&dir, 2);
    let shard = |i: &'static str| ["--shards", "2", "--shard-index", i, "-j", "1"];
    let (s0, s1) = (dir.join("s0"), dir.join("s1"));
    single(&cfg, &s0, &shard("0"));
    let kept = std::fs::read_to_string(s0.join("chunks.jsonl")).unwrap();
    let mut lines = kept.lines();
    let header = lines
        .next()
        .unwrap()
        .replace("shard 0 of 2", "shard 1 of 2");
    let record = resealed(lines.next().unwrap(), |v| v["chunk"] = serde_json::json!(1));
    std::fs::create_dir_all(&s1).unwrap();
    std::fs::write(s1.join("checkpoint.jsonl"), format!("{header}\n{record}\n")).unwrap();
    single(&cfg, &s1, &[&shard("1")[..], &["--resume"]].concat());
    assert!(s1.join("chunks.jsonl").exists());
    let merged = dir.join("merged");
    let said = dir.join("stderr.txt");
    let child = Running::start(
        runner()
            .args(["merge", s0.to_str().unwrap(), s1.to_str().unwrap(), "--out"])
            .arg(&merged)
            .args(["--recheck", "2", "-j", "1"])
            .stderr(std::fs::File::create(&said).unwrap()),
    );
    let solving = "--recheck: solving 2 of the shards' 2 chunks again (0, 1)";
    for _ in 0..1200 {
        if std::fs::read_to_string(&said).unwrap().contains(solving) {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let err = std::fs::read_to_string(&said).unwrap();
    assert!(err.contains(solving), "{err}");
    let o = stopped(child, "TERM");
    let err = std::fs::read_to_string(&said).unwrap();
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(
        err.contains("SIGTERM: stopping the recheck; nothing is written")
            && err.contains("error: the merge was stopped during its recheck; nothing was written"),
        "{err}"
    );
    assert!(!merged.join("stats.csv").exists() && !merged.join("manifest.json").exists());
}

/// Variant chunks recorded before the plain minimax was checked against
/// the theorem (the first 300-odd of the committed both-rules 26x26
/// checkpoint) lack that check's counts. Solved again they are compared
/// without them, so a recheck passes them; a forged one is still refused.
#[cfg(unix)]
#[test]
fn a_recheck_passes_variant_records_from_before_the_plain_theorem_check() {
    let dir = scratch("recheck-variant");
    let cfg = write_config(
        &dir,
        "v.toml",
        "[experiment]\nname = \"v\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 1\ndeals = 2000\n[rules]\ncut = 6\nback = 9\n[hands]\nsizes = [[13, 13]]\n",
    );
    let whole = dir.join("whole");
    single(&cfg, &whole, &["-j", "2"]);
    let stopped = dir.join("stopped");
    let journal = stopped_after_chunks(&cfg, &stopped, 2);
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for line in &mut lines[1..] {
        *line = resealed(line, |v| {
            let counts = v["counts"].as_object_mut().unwrap();
            assert!(counts.remove("plain_theorem_checked").is_some());
            assert!(counts.remove("plain_theorem_failures").is_some());
        });
    }
    let legacy = lines.join("\n") + "\n";
    std::fs::write(&journal, &legacy).unwrap();
    let forged_dir = dir.join("forged");
    copy_dir(&stopped, &forged_dir);
    let o = resumed_with_recheck(&cfg, &stopped, "1000");
    passed_recheck_of(&o, 2);
    assert_eq!(
        std::fs::read(stopped.join("stats.csv")).unwrap(),
        std::fs::read(whole.join("stats.csv")).unwrap()
    );

    std::fs::write(
        forged_dir.join("checkpoint.jsonl"),
        counts_copied(&legacy, 2, 1),
    )
    .unwrap();
    let o = resumed_with_recheck(&cfg, &forged_dir, "1000");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("came out differently"),
        "{}",
        stderr(&o)
    );
}

/// A run of every deal a u64 counts (2^52 chunks) starts at once and
/// stops at once. Before, a sum over its chunks, to size the progress bar,
/// kept it busy for hours before the first chunk; and a stopped run walked
/// every chunk index left before exiting, which never ended.
#[cfg(unix)]
#[test]
fn a_run_of_u64_max_deals_starts_and_stops_at_once() {
    let dir = scratch("u64-max");
    let cfg = write_config(&dir, "c.toml", ENDLESS);
    let out = dir.join("out");
    let (child, journal) = started_until_chunks(&cfg, &out, &["-j", "1"], 1);
    let lines = std::fs::read_to_string(&journal).map_or(0, |j| j.lines().count());
    let o = stopped(child, "TERM");
    assert!(lines >= 2, "no chunk checkpointed: {}", stderr(&o));
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("of 4,503,599,627,370,496 chunks done"),
        "{}",
        stderr(&o)
    );
}

/// SIGTERM in the middle of a chunk that would run for a long time (13x13
/// deals of the 8-cut + 11-back variant on one thread, about a hundredth
/// of a second each, 4,096 to a chunk: about 40 s; the card-count deals
/// used before became fast enough to finish the whole run before the
/// signal) stops the run after the deal under way, not after the chunk;
/// stale temp files of a killed run are removed when the directory is run
/// again.
#[cfg(unix)]
#[test]
fn sigterm_stops_within_a_long_chunk_and_stale_temp_files_go() {
    let dir = scratch("long-chunk");
    let cfg = write_config(
        &dir,
        "c.toml",
        "[experiment]\nname = \"long\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 1\ndeals = 5000\n[rules]\ncut = 6\nback = 9\n[hands]\nsizes = [[13, 13]]\n[solver]\nmemo_mb = 64\n",
    );
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let stale = out.join(".stats.csv.999999999.tmp");
    std::fs::write(&stale, "half a table").unwrap();
    let child = start(&cfg, &out, &["-j", "1"]);
    std::thread::sleep(Duration::from_millis(1500));
    let sent = std::time::Instant::now();
    let o = stopped(child, "TERM");
    // A liveness bound, not a speed target: the chunk alone takes about
    // 40 s, one deal well under a second.
    assert!(
        sent.elapsed() < Duration::from_secs(60),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(!stale.exists(), "the stale temp file was removed");
    assert!(out.join("checkpoint.jsonl").exists());
}

/// SIGTERM in the middle of one deal that runs for hours (26x26 deal 954
/// of seed 26 under both rules, alone in its shard, on one thread; it was
/// still unproved after 8 hours of sittings of the committed run, while
/// the 11-back deal this test used first now takes 3 to 5 s, so the stop
/// sometimes came after it had finished) stops the run in seconds: the
/// variant search polls the stop request and gives up, storing nothing
/// from then on, and the chunk is
/// abandoned (it is redone on resume). Before, a stop waited for the deal
/// under way, so SIGTERM at a batch job's time limit was ignored until the
/// scheduler killed the job.
#[cfg(unix)]
#[test]
fn sigterm_stops_inside_one_long_deal() {
    let dir = scratch("long-deal");
    let cfg = write_config(
        &dir,
        "c.toml",
        "[experiment]\nname = \"c\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 26\ndeals = 1000\n[rules]\ncut = 6\nback = 9\n[hands]\nsizes = [[26, 26]]\n[solver]\nmemo_mb = 256\n",
    );
    let out = dir.join("out");
    let child = start(
        &cfg,
        &out,
        &["-j", "1", "--shards", "1000", "--shard-index", "954"],
    );
    std::thread::sleep(Duration::from_millis(3000));
    let sent = std::time::Instant::now();
    send(&child, "TERM");
    // A run that ignores the signal fails this test after two minutes
    // instead of holding it for an hour.
    let o = child.output_within(120, "stopped with SIGTERM inside one long deal");
    // A liveness bound, not a speed target: the deal alone takes an hour.
    assert!(
        sent.elapsed() < Duration::from_secs(120),
        "{:?}",
        sent.elapsed()
    );
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("0 of 1 chunks done"), "{}", stderr(&o));
    let journal = std::fs::read_to_string(out.join("checkpoint.jsonl")).unwrap();
    assert_eq!(journal.lines().count(), 1, "only the header: {journal}");
}

/// The positions a finished run's `run.csv` says it searched.
fn positions_searched(out: &Path) -> u64 {
    let details = std::fs::read_to_string(out.join("run.csv")).unwrap();
    let row = details.lines().nth(1).expect("a row");
    row.rsplit(',').next().unwrap().parse().unwrap()
}

/// A deal stopped part way keeps what it proved with `--keep-memo`: the
/// memo written at the stop is read back by `--resume`, and the resumed
/// deal searches fewer positions than the whole deal did, with results
/// byte-identical to an unstopped run. (The first 26x26 deal of seed 26
/// under 11-back, alone in its shard, about 4 s on one thread.) A memo
/// damaged or of another run is refused before any work, and one is
/// removed once its run is finished; a study that keeps no memo refuses
/// the flag.
#[cfg(unix)]
#[test]
fn a_kept_memo_carries_a_deal_under_way_over_a_stop() {
    let dir = scratch("keep-memo");
    let cfg = eleven_back_26(&dir, 1000);
    let flags = ["-j", "1", "--shards", "1000", "--shard-index", "0"];
    let whole = dir.join("whole");
    let began = std::time::Instant::now();
    single(&cfg, &whole, &flags);
    // Stopped halfway through the deal by the clock of its whole run, so
    // the stop still lands inside it when the search gets faster (the deal
    // took about 4 s on 2026-12-03).
    let halfway = began.elapsed() / 2;
    let out = dir.join("out");
    let child = start(&cfg, &out, &[&flags[..], &["--keep-memo"]].concat());
    std::thread::sleep(halfway);
    let o = stopped(child, "TERM");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("0 of 1 chunks done"), "{}", stderr(&o));
    assert!(stderr(&o).contains("kept the memo in"), "{}", stderr(&o));
    let memo = out.join("memo.bin");
    let kept = std::fs::read(&memo).unwrap();
    let said = plan_without_timing(&cfg, &out);
    assert!(
        said.contains("kept memo: ") && said.contains("memo.bin"),
        "{said}"
    );
    // Its sample of the deal left cannot use the kept memo, and says so.
    let timed = plan_timed(&cfg, &out, "1");
    assert!(
        timed.contains("time left: ")
            && timed.contains("note: the time left is timed on a fresh memo"),
        "{timed}"
    );
    assert_eq!(
        std::fs::read(&memo).unwrap(),
        kept,
        "the plan leaves the memo"
    );

    // Damaged, or another run's: refused, and left for the user to delete.
    let mut flipped = kept.clone();
    let middle = kept.len() / 2;
    flipped[middle] ^= 1;
    std::fs::write(&memo, &flipped).unwrap();
    let resume = [&flags[..], &["--resume"]].concat();
    let o = run(&run_args(&cfg, &out, &resume));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("memo.bin") && stderr(&o).contains("delete it"),
        "{}",
        stderr(&o)
    );
    let body = std::fs::read_to_string(&cfg).unwrap();
    let other_cfg = write_config(&dir, "other.toml", &body.replace("1000", "999"));
    let other = dir.join("other");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("memo.bin"), &kept).unwrap();
    let o = run(&run_args(&other_cfg, &other, &resume));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the memo of another run"),
        "{}",
        stderr(&o)
    );

    // Read back whole: the deal carries on from what it proved.
    std::fs::write(&memo, &kept).unwrap();
    single(&cfg, &out, &resume);
    assert_eq!(
        std::fs::read(out.join("partial.json")).unwrap(),
        std::fs::read(whole.join("partial.json")).unwrap()
    );
    assert!(!memo.exists(), "a finished run removes its memo");
    let (resumed, unstopped) = (positions_searched(&out), positions_searched(&whole));
    assert!(
        resumed < unstopped,
        "the resumed deal searched {resumed} positions, the whole deal {unstopped}"
    );

    // A memo that cannot be written (here a directory is in its way, as a
    // full disk would fail it) leaves the checkpoint whole and the run
    // interrupted, with a line saying so.
    let blocked = dir.join("blocked");
    let child = start(&cfg, &blocked, &[&flags[..], &["--keep-memo"]].concat());
    std::thread::sleep(halfway / 2);
    std::fs::create_dir_all(blocked.join("memo.bin")).unwrap();
    let o = stopped(child, "TERM");
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("could not write the memo"),
        "{}",
        stderr(&o)
    );
    assert!(blocked.join("checkpoint.jsonl").is_file());

    // A run started over removes a memo left in its directory (it is not
    // its own); a study that keeps none leaves the name alone.
    let quick_variant = write_config(
        &dir,
        "quick.toml",
        "[experiment]\nname = \"q\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 1\ndeals = 20\n[rules]\nback = 9\n[hands]\nsizes = [[8, 8]]\n",
    );
    let plain_cfg = write_config(&dir, "plain.toml", SAMPLE);
    for (cfg, kept) in [(&quick_variant, false), (&plain_cfg, true)] {
        let stale = dir.join(format!("stale-{kept}"));
        std::fs::create_dir_all(&stale).unwrap();
        std::fs::write(stale.join("memo.bin"), b"left over").unwrap();
        single(cfg, &stale, &[]);
        assert_eq!(stale.join("memo.bin").exists(), kept, "{}", cfg.display());
    }

    let o = run(&run_args(&plain_cfg, &dir.join("plain"), &["--keep-memo"]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--keep-memo: study `tanhinmin`"),
        "{}",
        stderr(&o)
    );
}

/// A checkpoint of the unsharded run of `cfg` whose records are the given
/// chunks, each with the counts the one-chunk shard `--shards 3
/// --shard-index chunk` computed (its `partial.json`): what a stopped run
/// that had finished those chunks leaves. `cells` maps a chunk to its cell.
fn checkpoint_of_chunks(dir: &Path, cfg: &Path, chunks: &[(u64, usize)]) -> String {
    checkpoint_of_shard(dir, cfg, chunks, "shard 0 of 1")
}

/// As [`checkpoint_of_chunks`], for the shard `shard` ("shard 1 of 3") of
/// the run.
fn checkpoint_of_shard(dir: &Path, cfg: &Path, chunks: &[(u64, usize)], shard: &str) -> String {
    let mut hash = String::new();
    let mut lines = Vec::new();
    for &(chunk, cell) in chunks {
        let out = dir.join(format!("one-chunk-{chunk}"));
        let index = chunk.to_string();
        single(
            cfg,
            &out,
            &["--shards", "3", "--shard-index", &index, "-j", "1"],
        );
        let partial: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("partial.json")).unwrap()).unwrap();
        hash = partial["config_hash"].as_str().unwrap().to_string();
        lines.push(sealed_line(
            &serde_json::json!({"chunk": chunk, "counts": partial["cells"][cell]}),
        ));
    }
    let header = serde_json::json!({
        "journal": "runner checkpoint v2",
        "fingerprint": format!("config {hash} version {} {shard}", env!("CARGO_PKG_VERSION")),
    });
    format!("{header}\n{}\n", lines.join("\n"))
}

/// `runner interim --config cfg --out outs... --to to`.
fn run_interim(cfg: &Path, outs: &[&Path], to: &Path) -> Output {
    let mut args = vec!["interim".to_string(), "--config".into()];
    args.push(cfg.display().to_string());
    args.push("--out".into());
    args.extend(outs.iter().map(|d| d.display().to_string()));
    args.push("--to".into());
    args.push(to.display().to_string());
    run(&args)
}

/// `runner interim` counts exactly the chunks a checkpoint holds, through
/// the same tables a run writes: over every chunk its tables are the
/// finished run's byte for byte, and over some of them they count those
/// chunks' deals. It reads the checkpoint only, refuses to write where its
/// tables could pass for a finished run's, and refuses an edited record as
/// a resume does.
#[test]
fn interim_tables_count_the_checkpointed_chunks_only() {
    let dir = scratch("interim-chunks");
    // Three chunks: 1,024 and 76 deals of 11x12, then 1,100 of 4x4.
    let cfg = write_config(&dir, "c.toml", SAMPLE_LARGE);
    let whole = dir.join("whole");
    single(&cfg, &whole, &[]);
    let stopped = dir.join("stopped");
    std::fs::create_dir_all(&stopped).unwrap();
    let journal = stopped.join("checkpoint.jsonl");
    let interim = |to: &Path| run_interim(&cfg, &[&stopped], to);

    // Every chunk: the finished run's tables.
    let all = checkpoint_of_chunks(&dir, &cfg, &[(0, 0), (1, 0), (2, 1)]);
    std::fs::write(&journal, &all).unwrap();
    let to_all = dir.join("interim-all");
    let o = interim(&to_all);
    ok(&o);
    assert_eq!(tables(&to_all), tables(&whole), "interim over every chunk");
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("interim: 3 of 3 chunks (0-2)"), "{stdout}");
    assert!(stdout.contains("rechecked: never; "), "{stdout}");
    assert!(
        stderr(&o).contains("every chunk of the run is done"),
        "{}",
        stderr(&o)
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(to_all.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["interim"]["chunks_done"], 3);
    assert_eq!(std::fs::read_to_string(&journal).unwrap(), all, "read only");
    assert_eq!(
        std::fs::read_dir(&stopped).unwrap().count(),
        1,
        "nothing written beside the checkpoint"
    );

    // Chunks 0 and 2: 1,024 deals of the first cell, all 1,100 of the second.
    let some = checkpoint_of_chunks(&dir, &cfg, &[(0, 0), (2, 1)]);
    std::fs::write(&journal, &some).unwrap();
    let to_some = dir.join("interim-some");
    let o = interim(&to_some);
    ok(&o);
    let stats = std::fs::read_to_string(to_some.join("stats.csv")).unwrap();
    let deals: Vec<&str> = stats
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(3).unwrap())
        .collect();
    assert_eq!(deals, ["1024", "1100"], "{stats}");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("interim: 2 of 3 chunks (0, 2)"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let svg = std::fs::read_to_string(to_some.join("rates.svg")).unwrap();
    assert!(
        svg.contains("(interim: 2 of 3 chunks)"),
        "the picture says so"
    );

    // The commands that read results say so too: `compare` refuses interim
    // tables unless asked, then marks their points.
    let picture = dir.join("compared").join("rates.svg");
    std::fs::create_dir_all(picture.parent().unwrap()).unwrap();
    let compare = |extra: &[&str], series: &Path| {
        let mut args = vec!["compare", "--out", picture.to_str().unwrap()];
        args.extend(extra);
        let series = format!("so-far={}", series.display());
        args.push(&series);
        run(&args)
    };
    let o = compare(&[], &to_some);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds interim tables (2 of 3 chunks")
            && stderr(&o).contains("--interim"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(!picture.exists());
    ok(&compare(&["--interim"], &to_some));
    let points = std::fs::read_to_string(picture.with_extension("csv")).unwrap();
    let mut lines = points.lines();
    assert!(lines.next().unwrap().ends_with(",interim"), "{points}");
    let row = lines.next().unwrap();
    assert!(
        row.starts_with("so-far,4,4,1100,") && row.ends_with(",2 of 3 chunks"),
        "{points}"
    );
    let drawn = std::fs::read_to_string(&picture).unwrap();
    assert!(drawn.contains("so-far (4x4 interim)"), "the legend says so");
    assert!(drawn.contains("interim, from runs not finished: so-far 4x4 (2 of 3 chunks)"));
    ok(&compare(&["--interim"], &whole));
    let points = std::fs::read_to_string(picture.with_extension("csv")).unwrap();
    assert!(points.lines().nth(1).unwrap().ends_with(','), "{points}");
    // `table` refuses them unless asked, then marks them above the table.
    let o = run(&["table".as_ref(), to_some.as_os_str()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("interim tables (2 of 3 chunks") && stderr(&o).contains("--interim"),
        "{}",
        stderr(&o)
    );
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(o.stdout.is_empty(), "no table printed");
    let o = run(&["table".as_ref(), to_some.as_os_str(), "--interim".as_ref()]);
    ok(&o);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("(interim: 2 of 3 chunks)"),
        "{text}"
    );
    assert!(
        text.contains("| 4 | 4 | 0 | 1100 |"),
        "the 1,100 deals so far: {text}"
    );
    // `diff` notes them, and compares their rates with the finished run's
    // by the test (byte for byte they must differ: fewer deals), noting
    // that the two share deals.
    let o = run(&["diff".as_ref(), whole.as_os_str(), to_some.as_os_str()]);
    assert!(
        stderr(&o).contains("holds interim tables (2 of 3 chunks")
            && stderr(&o).contains("count some of the same deals"),
        "{}",
        stderr(&o)
    );
    ok(&o);
    let said = String::from_utf8_lossy(&o.stdout);
    assert!(
        said.contains("stats.csv 4x4 field 0: ") && said.contains("two-proportion p = "),
        "{said}"
    );
    let merged = dir.join("merged");
    let o = run(&[
        "merge".as_ref(),
        to_some.as_os_str(),
        "--out".as_ref(),
        merged.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("holds interim tables (2 of 3 chunks"),
        "{}",
        stderr(&o)
    );

    // Never the run's own directory, nor a finished run's results.
    for (to, problem) in [
        (&stopped, "the output directory of a run given with --out"),
        (&whole, "a finished run's results"),
    ] {
        let o = interim(to);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(problem), "{}", stderr(&o));
    }
    assert_eq!(
        tables(&whole),
        tables(&to_all),
        "the finished run's tables untouched"
    );

    // A record edited with its checksum recomputed: more first-player wins
    // than deals is refused, as a resume refuses it.
    let mut lines: Vec<String> = some.lines().map(String::from).collect();
    lines[1] = resealed(&lines[1], |v| {
        v["counts"]["first_wins"] = serde_json::json!(5000)
    });
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    let o = interim(&dir.join("interim-edited"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("was edited"), "{}", stderr(&o));

    // No checkpoint at all: one line saying where it looked.
    std::fs::remove_file(&journal).unwrap();
    let o = interim(&dir.join("interim-none"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("no checkpoint"), "{}", stderr(&o));
}

/// `runner interim` beside a run still under way: it counts the records
/// finished when it read the file and leaves the run to go on and stop as
/// usual.
#[cfg(unix)]
#[test]
fn interim_reads_the_checkpoint_of_a_run_under_way() {
    let dir = scratch("interim-live");
    let cfg = write_config(&dir, "c.toml", ENDLESS);
    let out = dir.join("out");
    let (child, journal) = started_until_chunks(&cfg, &out, &["-j", "1"], 2);
    let to = dir.join("interim");
    let o = run_interim(&cfg, &[&out], &to);
    // `runner table` on the run's own directory, which holds no tables yet,
    // says how to see them so far.
    let asked = run(&["table".as_ref(), out.as_os_str()]);
    let run_stopped = stopped(child, "TERM");
    assert_eq!(asked.status.code(), Some(2), "{}", stderr(&asked));
    assert!(
        stderr(&asked).contains("checkpoint of a run not finished")
            && stderr(&asked).contains("runner interim"),
        "{}",
        stderr(&asked)
    );
    ok(&o);
    assert_eq!(
        run_stopped.status.code(),
        Some(4),
        "{}",
        stderr(&run_stopped)
    );
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(to.join("manifest.json")).unwrap()).unwrap();
    let done = manifest["interim"]["chunks_done"].as_u64().unwrap() as usize;
    assert!(done >= 2, "{manifest}");
    // The deals of the first `done` records, as the file holds them.
    let checkpoint = std::fs::read_to_string(&journal).unwrap();
    let (deals, wins) = checkpoint
        .lines()
        .skip(1)
        .take(done)
        .map(|line| {
            let (_, json) = line.split_once(' ').unwrap();
            let v: serde_json::Value = serde_json::from_str(json).unwrap();
            let n = |k: &str| v["counts"][k].as_u64().unwrap();
            (n("deals"), n("first_wins"))
        })
        .fold((0, 0), |(d, w), (a, b)| (d + a, w + b));
    let stats = std::fs::read_to_string(to.join("stats.csv")).unwrap();
    let row: Vec<&str> = stats.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[3], deals.to_string(), "{stats}");
    assert_eq!(row[4], wins.to_string(), "{stats}");
}

/// `runner interim` over a sharded run: finished shards count by their
/// `partial.json`, a stopped one by its checkpoint; all of them together
/// give the single run's tables, and a shard given twice is refused.
#[test]
fn interim_counts_finished_and_stopped_shards_together() {
    let dir = scratch("interim-shards");
    let cfg = write_config(&dir, "c.toml", SAMPLE_LARGE);
    let whole = dir.join("whole");
    single(&cfg, &whole, &[]);
    // Shards 0 and 2 of 3 finished; shard 1 stopped after its one chunk.
    let shard = |i: &str| {
        let out = dir.join(format!("shard-{i}"));
        single(
            &cfg,
            &out,
            &["--shards", "3", "--shard-index", i, "-j", "1"],
        );
        out
    };
    let (s0, s2) = (shard("0"), shard("2"));
    let s1 = dir.join("shard-1-stopped");
    std::fs::create_dir_all(&s1).unwrap();
    let journal = checkpoint_of_shard(&dir, &cfg, &[(1, 0)], "shard 1 of 3");
    std::fs::write(s1.join("checkpoint.jsonl"), journal).unwrap();
    let interim = |dirs: &[&Path], to: &Path| run_interim(&cfg, dirs, to);
    let all = dir.join("interim-all");
    let o = interim(&[&s0, &s1, &s2], &all);
    ok(&o);
    assert_eq!(tables(&all), tables(&whole), "every shard: the single run");
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("interim: 3 of 3 chunks (0-2)"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let two = dir.join("interim-two");
    let o = interim(&[&s0, &s2], &two);
    ok(&o);
    assert!(!stderr(&o).contains("every chunk"), "{}", stderr(&o));
    // Counted against the whole run's chunks, not only the shards given.
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("interim: 2 of 3 chunks (0, 2)"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let stats = std::fs::read_to_string(two.join("stats.csv")).unwrap();
    let deals: Vec<&str> = stats
        .lines()
        .skip(1)
        .map(|row| row.split(',').nth(3).unwrap())
        .collect();
    assert_eq!(deals, ["1024", "1100"], "{stats}");
    let o = interim(&[&s0, &s2, &s0], &dir.join("interim-twice"));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("given twice"), "{}", stderr(&o));
}

/// Rerunning a config into its own results directory (the regression
/// check) rewrites them, and says so at the start, so that a wrong --out is
/// noticed before hours of work, not after; a first run says nothing.
#[test]
fn a_rerun_into_finished_results_says_it_replaces_them() {
    let dir = scratch("rerun-note");
    let cfg = write_config(&dir, "e.toml", EXHAUSTIVE);
    let out = dir.join("out");
    let first = run(&run_args(&cfg, &out, &[]));
    ok(&first);
    let note =
        "holds the results of an earlier run of `e`; this run replaces them when it finishes";
    assert!(!stderr(&first).contains(note), "{}", stderr(&first));
    let again = run(&run_args(&cfg, &out, &[]));
    ok(&again);
    assert!(stderr(&again).contains(note), "{}", stderr(&again));
}
