//! The registry of studies. A new study is one folder here and one line in
//! `REGISTRY`.

pub mod cut;
pub mod impartial;
pub mod mahjong;
pub mod rates;
pub mod score;
pub mod strategy;
pub mod tanhinmin;

use crate::claims;
use crate::config::Config;
use crate::driver;
use crate::engine::progress;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

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
    /// (shard count, shard index), or `None` for the whole run.
    pub shard: Option<(u64, u64)>,
    /// Continue from the checkpoint in the output directory, if any.
    pub resume: bool,
    /// Set by SIGINT/SIGTERM: start no new chunk, checkpoint, and exit.
    pub stop: Arc<AtomicBool>,
}

type ShardResults = Vec<(PathBuf, serde_json::Value)>;

pub struct StudyEntry {
    pub name: &'static str,
    /// Checks the study's part of a config; returns "[table] key: problem".
    pub validate: fn(&Config) -> Result<(), String>,
    pub run: fn(&Config, &RunContext) -> anyhow::Result<i32>,
    pub merge: fn(ShardResults, &RunContext) -> anyhow::Result<i32>,
}

pub const REGISTRY: &[StudyEntry] = &[
    StudyEntry {
        name: "tanhinmin",
        validate: Config::validate_deck_and_hands,
        run: driver::run::<tanhinmin::Tanhinmin>,
        merge: driver::merge::<tanhinmin::Tanhinmin>,
    },
    StudyEntry {
        name: "rates",
        validate: Config::validate_deck_and_cells,
        run: driver::run::<rates::Rates>,
        merge: driver::merge::<rates::Rates>,
    },
    StudyEntry {
        name: "strategy",
        validate: Config::validate_deck_and_hands,
        run: driver::run::<strategy::StrategyStudy>,
        merge: driver::merge::<strategy::StrategyStudy>,
    },
    StudyEntry {
        name: "score",
        validate: score::validate_small_deck,
        run: driver::run::<score::ScoreStudy>,
        merge: driver::merge::<score::ScoreStudy>,
    },
    StudyEntry {
        name: "cut",
        validate: cut::validate,
        run: driver::run::<cut::CutStudy>,
        merge: driver::merge::<cut::CutStudy>,
    },
    claims::entry::<impartial::Impartial>("impartial"),
    claims::entry::<mahjong::Mahjong>("mahjong"),
];

pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|e| e.name).collect()
}

pub fn find(name: &str) -> Option<&'static StudyEntry> {
    REGISTRY.iter().find(|e| e.name == name)
}

pub fn is_known(name: &str) -> bool {
    find(name).is_some()
}

pub fn run(config: &Config, ctx: &RunContext) -> anyhow::Result<i32> {
    let entry = find(&config.experiment.study).expect("study checked when the config was loaded");
    (entry.run)(config, ctx)
}
