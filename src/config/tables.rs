//! The tables of a config that belong to one study: `[impartial]`,
//! `[mahjong]` and `[cut]`. Their types live here, with the rest of the
//! config, so that the config never imports a study; each study checks its
//! own table's values when the registry validates a config.

use serde::{Deserialize, Serialize};

/// `[impartial]`: how far each family is enumerated.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct ImpartialConfig {
    /// All games of birthday at most this are enumerated (1..=4); pairs use
    /// one game of this birthday and one of a day less.
    pub birthday: u32,
    /// Random games deeper than the enumeration, per random claim.
    pub random_games: u64,
    /// Levels of the random games' option DAG.
    pub random_depth: u32,
    /// Nim and anti-nim: up to this many heaps (1..=4) ...
    pub max_heaps: u32,
    /// ... of up to this many stones each.
    pub max_heap: u32,
    /// Bash game: n = 0..=bash_max_n, m = 1..=bash_max_m.
    pub bash_max_n: u32,
    /// ... and m = 1..=bash_max_m.
    pub bash_max_m: u32,
    /// Wythoff: all pairs a <= b <= wythoff_max against brute force.
    pub wythoff_max: u32,
    /// Wythoff: k = 0..wythoff_float_k for the floating-point floor formula.
    pub wythoff_float_k: u64,
    /// Fibonacci nim: n = 2..=fibonacci_max.
    pub fibonacci_max: u32,
    /// The dubious combinators on nim heaps *n1, *n2 with n <= this.
    pub combinator_max_heap: u32,
}

impl Default for ImpartialConfig {
    fn default() -> Self {
        ImpartialConfig {
            birthday: 4,
            random_games: 20_000,
            random_depth: 6,
            max_heaps: 4,
            max_heap: 10,
            bash_max_n: 200,
            bash_max_m: 20,
            wythoff_max: 400,
            wythoff_float_k: 1 << 26,
            fibonacci_max: 2000,
            combinator_max_heap: 24,
        }
    }
}

/// `[cut]`: the variant's rule.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CutConfig {
    /// Strength of the cut rank (6 is the 8 in a 3-to-2 deck).
    pub rank: u32,
}

/// `[rules]`: the special ranks of study `variant`, as strengths (1 is the
/// weakest rank; in a deck running 3 to 2, the 8 is 6 and the Jack 9).
#[derive(Clone, Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RulesConfig {
    /// 8-cut: a card of this rank clears the field and its player moves again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<u32>,
    /// 11-back: a card of this rank reverses the order for the rest of the trick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub back: Option<u32>,
}

/// `[mahjong]`: the ranges to check.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MahjongConfig {
    /// The ranges, each checked in full.
    pub ranges: Vec<MahjongRange>,
}

/// One range: every wall size in `tiles`, replacement counts d up to
/// `max_replacements`, and draws t up to `horizon` (0: up to S).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MahjongRange {
    /// Wall sizes S.
    pub tiles: Vec<u32>,
    /// Largest number of replacements d.
    pub max_replacements: u32,
    /// Largest number of draws t checked (0: up to S).
    pub horizon: u32,
    /// Smallest a_i; 0 is allowed but means a hand that can never advance.
    #[serde(default = "one")]
    pub min_effective: u32,
    /// Largest a_i for the permutation check (ordered tuples: (n)^d of them).
    pub permutation_max_effective: u32,
    /// Largest a_i for the uniqueness search (multisets).
    pub uniqueness_max_effective: u32,
}

fn one() -> u32 {
    1
}

impl Default for MahjongConfig {
    fn default() -> Self {
        MahjongConfig {
            ranges: vec![MahjongRange {
                tiles: vec![136],
                max_replacements: 4,
                horizon: 18,
                min_effective: 1,
                permutation_max_effective: 6,
                uniqueness_max_effective: 10,
            }],
        }
    }
}
