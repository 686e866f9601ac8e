//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

pub fn runner() -> Command {
    Command::new(env!("CARGO_BIN_EXE_runner"))
}

/// A fresh, empty directory under the system temp dir, removed when the
/// test is done with it, so that test runs do not pile up directories in
/// /tmp. A failing test leaves it in place, to be looked at.
pub fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("runner-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// See [`scratch`].
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// A runner started by a test and killed when dropped, so that an
/// assertion failing while it runs (or a test that forgets it) cannot
/// leave hours of work going on a core after the test is over.
pub struct Running(Child);

impl Running {
    /// Starts `command`; its pipes are what `command` set up.
    pub fn start(command: &mut Command) -> Running {
        Running(command.spawn().expect("runner starts"))
    }

    /// The output once the run exits, or a failed test (the run killed) if
    /// it is still going after `secs` seconds: what a run that ignores its
    /// stop, hangs, or takes on hours of work it should refuse would do.
    /// The pipes are drained on threads meanwhile, so a chatty run cannot
    /// block on a full pipe and look hung.
    pub fn output_within(mut self, secs: u64, what: &str) -> Output {
        fn drain(pipe: Option<impl Read + Send + 'static>) -> JoinHandle<Vec<u8>> {
            std::thread::spawn(move || {
                let mut bytes = Vec::new();
                if let Some(mut pipe) = pipe {
                    let _ = pipe.read_to_end(&mut bytes);
                }
                bytes
            })
        }
        let stdout = drain(self.stdout.take());
        let stderr = drain(self.stderr.take());
        let deadline = Instant::now() + Duration::from_secs(secs);
        let status = loop {
            if let Some(status) = self.try_wait().expect("the run can be waited for") {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "{what}: still running after {secs} s"
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        Output {
            status,
            stdout: stdout.join().expect("stdout read"),
            stderr: stderr.join().expect("stderr read"),
        }
    }
}

impl std::ops::Deref for Running {
    type Target = Child;
    fn deref(&self) -> &Child {
        &self.0
    }
}

impl std::ops::DerefMut for Running {
    fn deref_mut(&mut self) -> &mut Child {
        &mut self.0
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Killing a run that already ended does nothing.
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn run<S: AsRef<OsStr>>(args: &[S]) -> Output {
    runner().args(args).output().expect("runner starts")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The usual flags of a quiet run of `cfg` into `out`, then `extra`.
pub fn run_args(cfg: &Path, out: &Path, extra: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = [
        "--config",
        &cfg.display().to_string(),
        "--out",
        &out.display().to_string(),
        "-q",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

/// The SHA-256 of files `names` in `dir`, by the system's `sha256sum` (not
/// by the runner's own code), as (name, lowercase hex).
pub fn sha256sum(dir: &Path, names: &[&str]) -> Vec<(String, String)> {
    let o = Command::new("sha256sum")
        .current_dir(dir)
        .arg("--")
        .args(names)
        .output()
        .expect("sha256sum starts");
    assert!(o.status.success(), "sha256sum: {}", stderr(&o));
    String::from_utf8(o.stdout)
        .unwrap()
        .lines()
        .map(|l| {
            let (hex, name) = l.split_once("  ").expect("sha256sum's line");
            (name.to_string(), hex.to_string())
        })
        .collect()
}

/// Replaces table `name` of results directory `dir` by `text` and records
/// its new SHA-256 in the manifest, as a run that computed `text` would
/// have: for tests of what `runner diff` makes of a changed number.
pub fn write_as_if_run(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).unwrap();
    let path = dir.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let (_, hex) = sha256sum(dir, &[name]).remove(0);
    manifest["sha256"][name] = serde_json::Value::String(hex);
    std::fs::write(&path, manifest.to_string()).unwrap();
}

/// Runs every chunk of `study` in this process, on `threads` threads, with
/// no journal, and returns its cells' results.
pub fn run_whole<S: runner::engine::Workload>(
    study: &S,
    threads: usize,
) -> Vec<runner::engine::CellResult<S::Counts>> {
    use runner::engine::{self, Outcome, RunOptions, progress};
    let opts = RunOptions {
        threads,
        progress: progress::Mode::Quiet,
    };
    let plan = engine::Plan::new(study);
    let stop = std::sync::atomic::AtomicBool::new(false);
    match engine::run(study, &plan, engine::Shard::WHOLE, &opts, None, &stop).unwrap() {
        Outcome::Complete(cells) => cells,
        Outcome::Interrupted { .. } => panic!("interrupted"),
    }
}
