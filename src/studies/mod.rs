//! The registry of studies, and the config checks that need it. A new
//! study is one folder here and one line in [`REGISTRY`].
//!
//! Every study folder imports only the layers below ([`crate::study`],
//! [`crate::claims`], [`deal_study`], the games, config, engine and
//! utilities), never another study and never this registry.

pub mod deal_study;
pub mod impartial;
pub mod mahjong;
pub mod rates;
pub mod score;
pub mod strategy;
pub mod tanhinmin;
pub mod variant;

use crate::claims::{ClaimStudy, Suite};
use crate::config::{Config, Mode, SolverConfig};
use crate::driver::{self, Calibration, RunContext, RunOutcome, ShardResults};
use crate::error::Refused;
use crate::study::{Check, Outline, Study};
use std::path::Path;

/// One study as the top layer sees it: a name, its config checks, and how
/// to run it or merge its shards.
pub struct StudyEntry {
    /// The `[experiment] study` value that selects it.
    pub name: &'static str,
    /// Checks the study's part of a config; returns `"[table] key: problem"`.
    pub validate: fn(&Config) -> Result<(), String>,
    /// What a run will do and hold, from the config alone ([`Study::outline`]).
    pub outline: fn(&Config, usize) -> Outline,
    /// Times a short sample of the run ([`driver::calibrate`]).
    pub calibrate: fn(
        &Config,
        &RunContext,
        std::time::Duration,
        &driver::ToTime,
    ) -> anyhow::Result<Calibration>,
    /// Runs (a shard of) the study.
    pub run: fn(&Config, &RunContext) -> anyhow::Result<RunOutcome>,
    /// Merges the shards of a run.
    pub merge: fn(ShardResults, &RunContext) -> anyhow::Result<Check>,
    /// Writes the tables of a stopped or running run's finished chunks
    /// ([`driver::interim`]), read from the given directories of the run
    /// or its shards.
    pub interim: fn(&Config, &RunContext, &[std::path::PathBuf]) -> anyhow::Result<Check>,
    /// Accepts `mode = "sample"`: draws random deals.
    pub samples: bool,
    /// Reads `[solver]`: searches positions with a memo.
    pub solves: bool,
    /// Can keep its memo over a stop ([`Study::KEEPS_MEMO`], `--keep-memo`).
    pub keeps_memo: bool,
}

/// The registry line of a study of deals, which samples and solves.
const fn entry<S: Study>(
    name: &'static str,
    validate: fn(&Config) -> Result<(), String>,
) -> StudyEntry
where
    S::Counts: serde::de::DeserializeOwned,
{
    StudyEntry {
        name,
        validate,
        outline: S::outline,
        calibrate: driver::calibrate::<S>,
        run: driver::run::<S>,
        merge: driver::merge::<S>,
        interim: driver::interim::<S>,
        samples: true,
        solves: true,
        keeps_memo: S::KEEPS_MEMO,
    }
}

/// The registry line of a claim suite: every instance, no solver.
const fn suite<S: Suite>(name: &'static str) -> StudyEntry {
    StudyEntry {
        samples: false,
        solves: false,
        ..entry::<ClaimStudy<S>>(name, S::validate)
    }
}

/// Every study, by name.
pub const REGISTRY: &[StudyEntry] = &[
    entry::<tanhinmin::Tanhinmin>("tanhinmin", Config::validate_deck_and_hands),
    StudyEntry {
        samples: false,
        solves: false,
        ..entry::<rates::Rates>("rates", Config::validate_exact_cells)
    },
    entry::<strategy::StrategyStudy>("strategy", Config::validate_deck_and_hands),
    entry::<score::ScoreStudy>("score", deal_study::validate_small_deck),
    entry::<variant::VariantStudy>("cut", variant::validate_cut),
    entry::<variant::VariantStudy>("variant", variant::validate),
    suite::<impartial::Impartial>("impartial"),
    suite::<mahjong::Mahjong>("mahjong"),
];

/// [`load_config`] for a run or its scripts: with `keep_memo` (the flag
/// `--keep-memo`), a study that keeps no memo worth saving is refused too,
/// before it is built or scripted.
pub fn load_config_to_run(path: &Path, keep_memo: bool) -> Result<Config, Refused> {
    let config = load_config(path)?;
    if keep_memo {
        check_keep_memo(&config)?;
    }
    Ok(config)
}

/// Refuses `--keep-memo` for `config`'s study if it keeps no memo worth
/// saving.
fn check_keep_memo(config: &Config) -> Result<(), Refused> {
    if find(&config.experiment.study).is_some_and(|e| e.keeps_memo) {
        return Ok(());
    }
    let keeping: Vec<&str> = REGISTRY
        .iter()
        .filter(|e| e.keeps_memo)
        .map(|e| e.name)
        .collect();
    Err(Refused(format!(
        "--keep-memo: study `{}` keeps no memo across deals worth saving; only {} do",
        config.experiment.study,
        keeping.join(", ")
    )))
}

/// The names of every study, in registry order.
pub fn names() -> Vec<&'static str> {
    REGISTRY.iter().map(|e| e.name).collect()
}

/// The study of that name.
pub fn find(name: &str) -> Option<&'static StudyEntry> {
    REGISTRY.iter().find(|e| e.name == name)
}

/// Reads, parses and checks a config file, the study's part included.
pub fn load_config(path: &Path) -> Result<Config, Refused> {
    let config = Config::load(path)?;
    check(&config).map_err(|msg| Refused(format!("{}: {msg}", path.display())))?;
    Ok(config)
}

/// Parses and checks config text, the study's part included; `origin`
/// names it in errors.
pub fn parse_config(text: &str, origin: &str) -> Result<Config, Refused> {
    let config = Config::parse(text, origin)?;
    check(&config).map_err(|msg| Refused(format!("{origin}: {msg}")))?;
    Ok(config)
}

/// The study exists, the config sets nothing the study would ignore, and
/// the study's own checks pass.
fn check(config: &Config) -> Result<(), String> {
    let study = &config.experiment.study;
    let Some(entry) = find(study) else {
        let guess = crate::error::did_you_mean(study, &names())
            .map(|g| format!("; did you mean `{g}`?"))
            .unwrap_or_default();
        return Err(format!(
            "[experiment] study: unknown study `{study}`, expected one of: {}{guess}",
            names().join(", ")
        ));
    };
    refuse_unused(config, entry)?;
    (entry.validate)(config)
}

/// A key or table the study does not read is refused, naming it: a config
/// written for another study must fail loudly, not run as something else.
fn refuse_unused(config: &Config, entry: &StudyEntry) -> Result<(), String> {
    let unused = |what: &str| {
        Err(format!(
            "{what}: not used by study `{}`; remove it",
            entry.name
        ))
    };
    // The tables that belong to one study, and the study.
    for (table, owner, present) in [
        ("cut", "cut", config.cut.is_some()),
        ("rules", "variant", config.rules.is_some()),
        ("impartial", "impartial", config.impartial.is_some()),
        ("mahjong", "mahjong", config.mahjong.is_some()),
    ] {
        if present && owner != entry.name {
            return unused(&format!("[{table}]"));
        }
    }
    let e = &config.experiment;
    if e.mode == Mode::Sample && !entry.samples {
        return Err(format!(
            "[experiment] mode: study `{}` checks every instance; use mode = \"exhaustive\"",
            entry.name
        ));
    }
    if e.mode == Mode::Exhaustive && e.deals.is_some() {
        return unused("[experiment] deals (only sample mode draws deals)");
    }
    if !entry.solves && config.solver != SolverConfig::default() {
        return unused("[solver]");
    }
    if config.solver.score_method.is_some() && entry.name != "score" {
        return unused("[solver] score_method");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const GOOD: &str = r#"
[experiment]
name = "t"
mode = "exhaustive"
[deck]
ranks = 13
copies = 4
[hands]
sizes = [[2, 2]]
"#;

    fn err(text: &str) -> String {
        parse_config(text, "c.toml").unwrap_err().0
    }

    #[test]
    fn good_config_parses_with_defaults() {
        let c = parse_config(GOOD, "c.toml").unwrap();
        assert_eq!(c.copies(), vec![4; 13]);
        assert_eq!(c.hands.field, 0);
        assert_eq!(c.output_dir(), PathBuf::from("results/t"));
        assert_eq!(c.experiment.study, "tanhinmin");
    }

    /// A misspelt study is answered with the one meant.
    #[test]
    fn a_misspelt_study_is_answered_with_the_one_meant() {
        let text = GOOD.replace("name = \"t\"", "name = \"t\"\nstudy = \"stratgy\"");
        assert!(
            err(&text).ends_with("; did you mean `strategy`?"),
            "{}",
            err(&text)
        );
        let text = GOOD.replace("name = \"t\"", "name = \"t\"\nstudy = \"chess\"");
        assert!(!err(&text).contains("did you mean"), "{}", err(&text));
    }

    #[test]
    fn per_rank_copies_parse() {
        let text = GOOD.replace("copies = 4", "copies = [4,4,4,4,4,4,4,4,4,4,4,4,2]");
        let c = parse_config(&text, "c.toml").unwrap();
        assert_eq!(c.copies().iter().sum::<u32>(), 50);
    }

    #[test]
    fn errors_name_file_key_and_problem_on_one_line() {
        let cases = [
            (
                GOOD.replace("sizes = [[2, 2]]", "sizes = [[30, 30]]"),
                "[hands] sizes[0]",
            ),
            (GOOD.replace("ranks = 13", "ranks = 0"), "[deck] ranks"),
            (GOOD.replace("copies = 4", "copies = -1"), "[deck] copies"),
            (GOOD.replace("exhaustive", "bogus"), "[experiment] mode"),
            (
                GOOD.replace("name = \"t\"", "name = \"t\"\ncolour = 3"),
                "colour",
            ),
            (
                GOOD.replace("copies = 4", "copies = [4, 4]"),
                "[deck] copies",
            ),
            (
                GOOD.replace("sizes = [[2, 2]]", "sizes = [[2, 2]]\nfield = 14"),
                "[hands] field",
            ),
            (GOOD.replace("exhaustive", "sample"), "[experiment] deals"),
            (
                GOOD.replace("sizes = [[2, 2]]", "sizes = [[0, 2]]"),
                "[hands] sizes[0]",
            ),
            (
                format!("{GOOD}[solver]\nscore_method = \"threshold\"\n"),
                "[solver] score_method",
            ),
            (
                format!("{GOOD}[solver]\nscore_method = \"fast\"\n").replace(
                    "mode = \"exhaustive\"",
                    "study = \"score\"\nmode = \"exhaustive\"",
                ),
                "score_method",
            ),
        ];
        for (text, key) in cases {
            let e = err(&text);
            assert!(e.starts_with("c.toml: "), "{e}");
            assert!(e.contains(key), "expected {key} in: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
        }
    }
}
