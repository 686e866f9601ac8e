//! Helpers shared by the end-to-end tests.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

pub fn runner() -> Command {
    Command::new(env!("CARGO_BIN_EXE_runner"))
}

/// A fresh, empty directory under the system temp dir.
pub fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("runner-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn run(args: &[&str]) -> Output {
    runner().args(args).output().expect("runner starts")
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}
