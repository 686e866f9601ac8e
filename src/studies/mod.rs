//! The registry of studies. A new study is one folder here and one line in
//! `REGISTRY`.

pub mod tanhinmin;

use crate::config::Config;
use crate::engine::progress;
use std::path::PathBuf;

/// How one run executes; nothing here changes what it computes, except
/// `inject_fault`, which exists to prove that a study's check can fail.
#[derive(Clone, Debug)]
pub struct RunContext {
    pub config_path: PathBuf,
    pub out_dir: PathBuf,
    pub threads: usize,
    pub progress: progress::Mode,
    /// Swap the study's claim for a deliberately wrong one.
    pub inject_fault: bool,
}

/// A study's entry point: runs the config and returns the process exit code.
pub type RunFn = fn(&Config, &RunContext) -> anyhow::Result<i32>;

pub const REGISTRY: &[(&str, RunFn)] = &[("tanhinmin", tanhinmin::run)];

pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|(n, _)| *n).collect()
}

pub fn is_known(name: &str) -> bool {
    REGISTRY.iter().any(|(n, _)| *n == name)
}

pub fn run(config: &Config, ctx: &RunContext) -> anyhow::Result<i32> {
    let (_, f) = REGISTRY
        .iter()
        .find(|(n, _)| *n == config.experiment.study)
        .expect("study checked when the config was loaded");
    f(config, ctx)
}
