//! The experiment config: TOML read with serde, unknown keys refused, and
//! every value checked before any work starts.
//!
//! Every error is one line naming the file, the key and what is wrong.

pub mod tables;

use crate::error::Refused;
use crate::games::cards::{DealSpace, Deck, MAX_RANKS};
use crate::games::tanhinmin::ordering::MoveOrder;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::{Path, PathBuf};

/// A whole experiment file.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `[experiment]`: what runs.
    pub experiment: Experiment,
    /// `[deck]`: the cards.
    #[serde(default)]
    pub deck: DeckConfig,
    /// The cells of card studies; unused by the claim studies.
    #[serde(default)]
    pub hands: Hands,
    /// `[output]`: where results go.
    #[serde(default)]
    pub output: Output,
    /// `[solver]`: memory and move order (never what is computed).
    #[serde(default)]
    pub solver: SolverConfig,
    /// Ranges of the impartial-games study; defaults when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub impartial: Option<tables::ImpartialConfig>,
    /// The cut rank of the 8-cut variant (study `cut`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<tables::CutConfig>,
    /// The special ranks of a rule variant (study `variant`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<tables::RulesConfig>,
    /// Ranges of the mahjong study; defaults when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mahjong: Option<tables::MahjongConfig>,
}

/// The part of a config that decides the results, and only that: what
/// the config hash covers. The name, the output directory and `[solver]`
/// (memo size, move order) change where results go and how fast they come,
/// never what they are, so shards and resumes that differ in them still
/// belong to one run. The manifest records them apart.
#[derive(Serialize)]
pub struct ResultInputs<'a> {
    study: &'a str,
    mode: Mode,
    seed: u64,
    deals: Option<u64>,
    deck: &'a DeckConfig,
    hands: &'a Hands,
    impartial: &'a Option<tables::ImpartialConfig>,
    cut: &'a Option<tables::CutConfig>,
    /// Absent from the hash when absent, so configs written before
    /// `[rules]` existed keep their hash.
    #[serde(skip_serializing_if = "Option::is_none")]
    rules: &'a Option<tables::RulesConfig>,
    mahjong: &'a Option<tables::MahjongConfig>,
    /// Instances per chunk of each cell: they fix which random stream each
    /// sampled deal comes from.
    chunk_sizes: &'a [u64],
}

impl Config {
    /// One line for pictures and reports: the study, the deck, the starting
    /// field and the mode, e.g. "tanhinmin · 52 cards (13 ranks × 4) · empty
    /// field · every deal (exact)".
    pub fn description(&self) -> String {
        let ranks = self.deck.ranks;
        let deck = match &self.deck.copies {
            Copies::Uniform(c) => {
                format!(
                    "{} cards ({ranks} ranks × {c})",
                    u64::from(ranks) * u64::from(*c)
                )
            }
            Copies::PerRank(v) => {
                let total: u64 = v.iter().map(|&c| u64::from(c)).sum();
                let mut runs: Vec<(u32, usize)> = Vec::new();
                for &c in v {
                    match runs.last_mut() {
                        Some((last, n)) if *last == c => *n += 1,
                        _ => runs.push((c, 1)),
                    }
                }
                let copies: Vec<String> = runs
                    .iter()
                    .map(|&(c, n)| {
                        if n > 1 {
                            format!("{c}×{n}")
                        } else {
                            c.to_string()
                        }
                    })
                    .collect();
                format!(
                    "{total} cards ({ranks} ranks, copies {})",
                    copies.join(", ")
                )
            }
        };
        let field = match self.hands.field {
            0 => "empty field".to_string(),
            f => format!("field card {f}"),
        };
        let mode = match self.experiment.mode {
            Mode::Exhaustive => "every deal (exact)".to_string(),
            Mode::Sample => format!(
                "{} random deals per cell, seed {}",
                self.experiment.deals.unwrap_or(0),
                self.experiment.seed
            ),
        };
        format!("{} · {deck} · {field} · {mode}", self.experiment.study)
    }

    /// What decides this config's results, given the study's chunk sizes.
    pub fn result_inputs<'a>(&'a self, chunk_sizes: &'a [u64]) -> ResultInputs<'a> {
        let e = &self.experiment;
        ResultInputs {
            study: &e.study,
            mode: e.mode,
            seed: e.seed,
            deals: e.deals,
            deck: &self.deck,
            hands: &self.hands,
            impartial: &self.impartial,
            cut: &self.cut,
            rules: &self.rules,
            mahjong: &self.mahjong,
            chunk_sizes,
        }
    }
}

/// `[experiment]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Experiment {
    /// Names the results directory; letters, digits, `-`, `_`, `.`.
    pub name: String,
    /// Which study runs; see `studies::REGISTRY`.
    #[serde(default = "default_study")]
    pub study: String,
    /// Every deal of each cell, or a random sample of them.
    pub mode: Mode,
    /// Seeds every chunk's random stream in sample mode.
    #[serde(default)]
    pub seed: u64,
    /// Deals per cell in sample mode; ignored in exhaustive mode.
    pub deals: Option<u64>,
}

fn default_study() -> String {
    "tanhinmin".into()
}

/// How a study's deals are produced.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Every deal, each with its weight.
    Exhaustive,
    /// Uniformly random deals, `[experiment] deals` per cell.
    Sample,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Mode::Exhaustive => "exhaustive",
            Mode::Sample => "sample",
        })
    }
}

/// `[deck]`: ranks, and copies of each.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DeckConfig {
    /// Number of ranks; rank `i` has strength `i`.
    pub ranks: u32,
    /// Copies of each rank.
    pub copies: Copies,
}

impl Default for DeckConfig {
    fn default() -> Self {
        DeckConfig {
            ranks: 13,
            copies: Copies::Uniform(4),
        }
    }
}

/// One count for every rank, or one entry per rank.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum Copies {
    /// The same count for every rank.
    Uniform(u32),
    /// One count per rank, weakest first.
    PerRank(Vec<u32>),
}

/// `[hands]`: the cells and the starting field.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Hands {
    /// Cells as `[n_first, n_second]`; a cell of any other length is
    /// refused, not cut to two.
    #[serde(deserialize_with = "cells")]
    pub sizes: Vec<[u32; 2]>,
    /// Strength of the card on the field at the start; 0 is an empty field.
    #[serde(default)]
    pub field: u32,
}

/// Reads `[hands] sizes`, refusing a cell that is not a pair.
fn cells<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<[u32; 2]>, D::Error> {
    let raw: Vec<Vec<u32>> = Vec::deserialize(d)?;
    raw.into_iter()
        .enumerate()
        .map(|(i, cell)| match cell[..] {
            [a, b] => Ok([a, b]),
            _ => Err(serde::de::Error::custom(format!(
                "sizes[{i}] has {} numbers; a cell is [n_first, n_second]",
                cell.len()
            ))),
        })
        .collect()
}

/// `[output]`.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// Defaults to `results/<experiment.name>`.
    pub dir: Option<PathBuf>,
}

/// `[solver]`: how fast, never what.
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SolverConfig {
    /// Memory budget for the minimax memo, in MiB, shared by all threads.
    /// Absent: sized automatically by the run (see `deal_study::memo_size`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memo_mb: Option<u64>,
    /// Which move the minimax tries first; never changes a verdict.
    #[serde(default)]
    pub order: MoveOrder,
    /// How study `score` proves each deal's value; never changes a value.
    /// Absent: [`ScoreMethod::DroppedCards`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_method: Option<ScoreMethod>,
}

/// How study `score` answers its two questions per deal, "can the player
/// to move reach C1's value v?" and "v + 1?" (`[solver] score_method`).
/// Every method proves the values it writes, and they write the same
/// tables; they differ in speed and in what the check rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScoreMethod {
    /// Each question is one plain search on the hands the dropped-cards
    /// lemma names ([`crate::games::tanhinmin::dropped_cards`]): the
    /// fastest, and the default.
    #[default]
    DroppedCards,
    /// Each question is a search of the card-count game itself with the
    /// threshold in its memo keys, which knows nothing of the lemma: a
    /// check that rests on neither the lemma nor its proof.
    Threshold,
    /// No questions: the full-value minimax on every deal, the plain twin
    /// of both (slow: 300 10x10 deals took 8.6 minutes).
    FullValue,
}

/// Largest number of cards in play (both hands), bounded by the memo key.
pub const MAX_CARDS_IN_PLAY: u32 = 60;

impl Config {
    /// Reads, parses and checks a config file.
    pub fn load(path: &Path) -> Result<Config, Refused> {
        let shown = path.display();
        let text = crate::export::read_text_limited(path, MAX_CONFIG_BYTES, "a config")
            .map_err(|e| Refused(format!("{shown}: cannot read config: {e}")))?;
        Config::parse(&text, &shown.to_string())
    }

    /// Parses and checks config text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Config, Refused> {
        let config: Config =
            toml::from_str(text).map_err(|e| Refused(describe_toml_error(origin, text, &e)))?;
        config
            .validate()
            .map_err(|msg| Refused(format!("{origin}: {msg}")))?;
        Ok(config)
    }

    /// Copies per rank, expanded.
    pub fn copies(&self) -> Vec<u32> {
        match &self.deck.copies {
            Copies::Uniform(c) => vec![*c; self.deck.ranks as usize],
            Copies::PerRank(v) => v.clone(),
        }
    }

    /// Where the run writes: `[output] dir`, else `results/<name>`.
    pub fn output_dir(&self) -> PathBuf {
        self.output
            .dir
            .clone()
            .unwrap_or_else(|| Path::new("results").join(&self.experiment.name))
    }

    /// The checks of studies dealt from a deck of ranks: deck, hands and
    /// whether exhaustive cells are small enough to enumerate.
    pub fn validate_deck_and_hands(config: &Config) -> Result<(), String> {
        Config::validate_deck_and_cells(config)?;
        Config::validate_enumerable(config)
    }

    /// Deck and hands are well formed: ranks, copies, cell sizes, field.
    pub fn validate_deck_and_cells(config: &Config) -> Result<(), String> {
        let ranks = config.deck.ranks;
        if ranks == 0 {
            return Err("[deck] ranks: must be at least 1".into());
        }
        if ranks as usize > MAX_RANKS {
            return Err(format!(
                "[deck] ranks: {ranks} is more than the {MAX_RANKS} supported"
            ));
        }
        match &config.deck.copies {
            Copies::Uniform(0) => return Err("[deck] copies: must be at least 1".into()),
            Copies::Uniform(c) if *c > 255 => {
                return Err(format!("[deck] copies: {c} is more than the 255 supported"));
            }
            Copies::PerRank(v) if v.len() != ranks as usize => {
                return Err(format!(
                    "[deck] copies: has {} entries but [deck] ranks is {ranks}",
                    v.len()
                ));
            }
            Copies::PerRank(v) => {
                if let Some(i) = v.iter().position(|&c| c == 0 || c > 255) {
                    return Err(format!(
                        "[deck] copies[{i}]: must be between 1 and 255, got {}",
                        v[i]
                    ));
                }
            }
            Copies::Uniform(_) => {}
        }
        let deck_size: u32 = config.copies().iter().sum();
        let h = &config.hands;
        if h.sizes.is_empty() {
            return Err("[hands] sizes: must list at least one cell".into());
        }
        for (i, &[a, b]) in h.sizes.iter().enumerate() {
            // A cell listed twice gives two rows of the same sizes (the
            // same deals when exhaustive, two samples otherwise), which
            // `diff`, `plot` and `compare`, keyed by the sizes, cannot tell
            // apart.
            if let Some(first) = h.sizes[..i].iter().position(|&c| c == [a, b]) {
                return Err(format!(
                    "[hands] sizes[{i}]: [{a}, {b}] is listed already, as sizes[{first}]; for more deals, raise [experiment] deals"
                ));
            }
            if a == 0 || b == 0 {
                return Err(format!(
                    "[hands] sizes[{i}]: both hands need at least one card, got [{a}, {b}]"
                ));
            }
            if u64::from(a) + u64::from(b) > u64::from(deck_size) {
                return Err(format!(
                    "[hands] sizes[{i}]: {a} + {b} cards is more than the {deck_size}-card deck holds"
                ));
            }
            if u64::from(a) + u64::from(b) > u64::from(MAX_CARDS_IN_PLAY) {
                return Err(format!(
                    "[hands] sizes[{i}]: {a} + {b} cards is more than the {MAX_CARDS_IN_PLAY} the solver supports"
                ));
            }
        }
        if h.field > ranks {
            return Err(format!(
                "[hands] field: {} is above the strongest rank ({ranks})",
                h.field
            ));
        }
        Ok(())
    }

    /// Deck and hands are well formed, and every cell's number of physical
    /// deals fits the exact u128 counts (for studies that count every deal,
    /// such as the rates DP).
    pub fn validate_exact_cells(config: &Config) -> Result<(), String> {
        Config::validate_deck_and_cells(config)?;
        let deck = Deck {
            copies: config.copies(),
        };
        let deck_size = deck.cards();
        for (i, &[a, b]) in config.hands.sizes.iter().enumerate() {
            if deck.physical_deals(a, b).is_none() {
                return Err(format!(
                    "[hands] sizes[{i}]: [{a}, {b}] from a {deck_size}-card deck has more deals than exact 128-bit counts hold"
                ));
            }
        }
        Ok(())
    }

    /// In exhaustive mode, every cell's deals can be enumerated.
    pub fn validate_enumerable(config: &Config) -> Result<(), String> {
        let h = &config.hands;
        if config.experiment.mode == Mode::Exhaustive {
            let deck = Deck {
                copies: config.copies(),
            };
            for (i, &[a, b]) in h.sizes.iter().enumerate() {
                // Half of u128: two counts of a cell, each at most its
                // physical deals, can then be added without overflow, so a
                // checkpoint's counts are checked before their sum can wrap.
                if deck.physical_deals(a, b).is_none_or(|n| n > u128::MAX / 2)
                    || DealSpace::new(&deck, a, b, h.field).is_none()
                {
                    return Err(format!(
                        "[hands] sizes[{i}]: [{a}, {b}] has too many deals to enumerate; use mode = \"sample\""
                    ));
                }
            }
        }
        Ok(())
    }

    /// Refuses card-game tables in a study that does not read them, so a
    /// config meant for another study fails loudly instead of being ignored.
    pub fn refuse_card_tables(config: &Config) -> Result<(), String> {
        if !config.hands.sizes.is_empty() || config.hands.field != 0 {
            return Err(format!(
                "[hands]: not used by study `{}`; remove it",
                config.experiment.study
            ));
        }
        if config.deck != DeckConfig::default() {
            return Err(format!(
                "[deck]: not used by study `{}`; remove it",
                config.experiment.study
            ));
        }
        Ok(())
    }

    /// The checks that need no study: a name, deals in sample mode, a
    /// memo. Each study checks the rest through the registry in `studies`.
    fn validate(&self) -> Result<(), String> {
        let e = &self.experiment;
        if e.name.trim().is_empty() {
            return Err("[experiment] name: must not be empty".into());
        }
        if e.name == "."
            || e.name == ".."
            || !e
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(format!(
                "[experiment] name: `{}` must be a plain name (letters, digits, `-`, `_`, `.`), since it names the results directory",
                e.name.escape_debug()
            ));
        }
        if self
            .output
            .dir
            .as_ref()
            .is_some_and(|d| d.as_os_str().is_empty())
        {
            return Err("[output] dir: must not be empty; leave it out for results/<name>".into());
        }
        if e.mode == Mode::Sample {
            match e.deals {
                None => return Err("[experiment] deals: required in sample mode".into()),
                Some(0) => return Err("[experiment] deals: must be at least 1".into()),
                Some(_) => {}
            }
        }
        if self.solver.memo_mb == Some(0) {
            return Err("[solver] memo_mb: must be at least 1".into());
        }
        Ok(())
    }
}

/// serde's message in a researcher's words: the kinds it expects named as
/// TOML names them, not as Rust types (`u64`, `a sequence`), and a value
/// it quotes in its own long spelling (`1e99` as a hundred digits) given
/// as `typed`, what the file says, when that is short.
fn in_plain_words(message: &str, typed: Option<&str>) -> String {
    let mut plain = message
        .replace(" as i128,", ",")
        .replace("invalid type: sequence,", "invalid type: a list,")
        .replace("invalid type: map,", "invalid type: a table,");
    for (rust, toml) in [
        ("expected u8", "expected a whole number from 0 to 255"),
        ("expected u16", "expected a whole number from 0 to 65535"),
        (
            "expected u32",
            "expected a whole number from 0 to 4294967295",
        ),
        (
            "expected u64",
            "expected a whole number from 0 to 18446744073709551615",
        ),
        (
            "expected usize",
            "expected a whole number from 0 to 18446744073709551615",
        ),
        ("expected i32", "expected a whole number"),
        ("expected i64", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected a sequence", "expected a list, [...]"),
        ("expected a map", "expected a table"),
    ] {
        if let Some(rest) = plain.strip_suffix(rust) {
            plain = format!("{rest}{toml}");
        }
    }
    // A table named by its Rust struct: "expected struct Experiment".
    if let Some((rest, name)) = plain.rsplit_once("expected struct ")
        && name.chars().all(|c| c.is_ascii_alphanumeric())
    {
        plain = format!("{rest}expected a table");
    }
    // serde calls a value of a fixed set a "variant", as is one study here.
    if let Some(rest) = plain.strip_prefix("unknown variant `") {
        plain = format!("unknown value `{rest}");
    }
    if let Some(guess) = guessed_name(&plain) {
        plain = format!("{plain}; did you mean `{guess}`?");
    }
    const LONGEST_QUOTED: usize = 40;
    let typed = typed
        .map(str::trim)
        .filter(|t| (1..=LONGEST_QUOTED).contains(&t.len()) && !t.contains(['\n', '`']));
    if let (Some(typed), Some((before, rest))) = (typed, plain.split_once('`'))
        && let Some((quoted, after)) = rest.split_once('`')
        && quoted.len() > LONGEST_QUOTED
    {
        plain = format!("{before}`{typed}`{after}");
    }
    plain
}

/// Of "unknown field `dealz`, expected one of `name`, …, `deals`" (or an
/// unknown value), the name meant, if one is near.
fn guessed_name(message: &str) -> Option<&str> {
    let rest = message
        .strip_prefix("unknown field `")
        .or_else(|| message.strip_prefix("unknown value `"))?;
    let (typed, expected) = rest.split_once('`')?;
    crate::error::did_you_mean(typed, expected.split('`').skip(1).step_by(2))
}

/// A config is a few hundred bytes; anything past this is not one (and
/// `/dev/zero` must not fill the memory).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Turns a TOML or serde error into one line: file, table and key, line, message.
fn describe_toml_error(origin: &str, text: &str, err: &toml::de::Error) -> String {
    let message = err.message().trim().replace('\n', " ");
    let Some(span) = err.span() else {
        return format!("{origin}: {}", in_plain_words(&message, None));
    };
    let start = span.start.min(text.len());
    let typed = text.get(start..span.end.min(text.len()));
    let message = in_plain_words(&message, typed);
    let line_no = text[..start].matches('\n').count() + 1;
    let line = text.lines().nth(line_no - 1).unwrap_or("");
    let table = text
        .lines()
        .take(line_no)
        .filter_map(|l| {
            let t = l.trim();
            (t.starts_with('[') && !t.contains('=')).then(|| t.to_string())
        })
        .last();
    let key = line
        .split_once('=')
        .map(|(k, _)| k.trim().to_string())
        .filter(|k| !k.is_empty() && !k.starts_with('['));
    // toml says "duplicate key" of a table given twice too.
    let message = match (&key, message.as_str()) {
        (Some(_), "duplicate key") => "set twice; keep one".to_string(),
        (None, "duplicate key") => "this table is given twice; merge them into one".to_string(),
        _ => message,
    };
    let place = match (table, key) {
        (Some(t), Some(k)) => format!("{t} {k}"),
        (Some(t), None) => t,
        (None, Some(k)) => k,
        (None, None) => String::new(),
    };
    if place.is_empty() {
        format!("{origin}: line {line_no}: {message}")
    } else {
        format!("{origin}: {place} (line {line_no}): {message}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str) -> String {
        Config::parse(text, "c.toml").unwrap_err().0
    }

    const HEAD: &str =
        "[experiment]\nname = \"x\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 1\n";

    /// A mistyped value is named in TOML's words with the range it may
    /// take, and quoted as the file spells it, not as a hundred digits.
    #[test]
    fn a_value_of_the_wrong_kind_is_named_in_tomls_words() {
        let cases = [
            (
                "deals = 1e99\n",
                "`1e99`, expected a whole number from 0 to 18446744073709551615",
            ),
            (
                "deals = 1.5\n",
                "`1.5`, expected a whole number from 0 to 18446744073709551615",
            ),
            (
                "deals = 18446744073709551616\n",
                "`18446744073709551616`, expected a whole number",
            ),
            (
                "deals = 4\n[rules]\nback = -3\n",
                "`-3`, expected a whole number from 0 to 4294967295",
            ),
            ("deals = 4\n[hands]\nsizes = 13\n", "expected a list, [...]"),
            (
                "deals = [1]\n",
                "invalid type: a list, expected a whole number",
            ),
            (
                "deals = { a = 1 }\n",
                "invalid type: a table, expected a whole number",
            ),
            (
                "dealz = 4\n",
                "unknown field `dealz`, expected one of `name`, `study`, `mode`, `seed`, `deals`; did you mean `deals`?",
            ),
            ("deals = 4\n[rulez]\nback = 9\n", "; did you mean `rules`?"),
            (
                "deals = 4\n[hands]\nsizes = [[3, 3]]\nsize = 2\n",
                "did you mean `sizes`?",
            ),
            (
                "deals = 4\nseed = 2\n",
                "[experiment] seed (line 7): set twice; keep one",
            ),
            (
                "deals = 4\n[hands]\nsizes = [[3, 3]]\n[hands]\n",
                "[hands] (line 9): this table is given twice; merge them into one",
            ),
        ];
        for (tail, want) in cases {
            let line = refusal(&format!("{HEAD}{tail}"));
            assert!(line.contains(want), "{tail:?}: {line}");
            assert!(
                !line.contains("u64") && !line.contains("u32") && !line.contains("i128"),
                "{line}"
            );
            assert!(line.len() < 240 && !line.contains('\n'), "{line}");
        }
    }

    /// A value of a fixed set is an unknown value, not serde's "variant",
    /// with the one meant; a word near none of the names gets no guess.
    #[test]
    fn a_misspelt_name_is_answered_with_the_one_meant() {
        let mode = refusal(&HEAD.replace("\"sample\"", "\"samples\""));
        assert!(
            mode.ends_with(
                "unknown value `samples`, expected `exhaustive` or `sample`; did you mean `sample`?"
            ),
            "{mode}"
        );
        let far = refusal(&format!("{HEAD}deals = 4\n[hands]\ncolour = 2\n"));
        assert!(
            far.contains("unknown field `colour`") && !far.contains("did you mean"),
            "{far}"
        );
    }

    /// A table given a value is named as a table, not as a Rust struct.
    #[test]
    fn a_table_given_a_value_is_named_as_a_table() {
        let line = refusal("experiment = 5\n");
        assert!(
            line.ends_with("invalid type: integer `5`, expected a table"),
            "{line}"
        );
    }

    /// A quoted value is replaced only when serde's spelling is long and
    /// the file's is short; otherwise serde's message stands.
    #[test]
    fn a_quoted_value_is_replaced_only_when_long() {
        let long = format!(
            "invalid type: floating point `{}.0`, expected u64",
            "1".repeat(60)
        );
        assert_eq!(
            in_plain_words(&long, Some(" 1.1e59 ")),
            "invalid type: floating point `1.1e59`, expected a whole number from 0 to 18446744073709551615"
        );
        assert!(in_plain_words(&long, Some(&"9".repeat(41))).contains(&"1".repeat(60)));
        assert_eq!(
            in_plain_words(
                "invalid type: boolean `true`, expected a string",
                Some("true")
            ),
            "invalid type: boolean `true`, expected a string"
        );
    }
}
