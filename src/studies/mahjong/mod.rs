//! The two theorems of seed 004 about recurrence (1), checked exactly:
//!
//! - permutation: permuting the parameters a^(0..d-1) never changes
//!   p^(d)_t, for any t;
//! - uniqueness: two parameter multisets with the same p^(d)_t for every t
//!   are equal up to permutation.
//!
//! Permutation is checked on every ordered tuple against its sorted form.
//! Uniqueness is a search for collisions: every multiset's curve is hashed
//! when the study is built, and an instance fails when another multiset has
//! the same hash *and* an identical exact curve.

use crate::claims::{ClaimSpec, Suite, Verdict};
use crate::config::Config;
pub use crate::config::tables::{MahjongConfig, MahjongRange};
use crate::games::mahjong::recurrence::{Curve, Recurrence};
use hashbrown::HashMap;
use rayon::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Permutation,
    Uniqueness,
}

struct Check {
    kind: Kind,
    s: u32,
    horizon: u32,
    min: u32,
    /// Permutation: number of values per slot; uniqueness: unused.
    base: u32,
    max_d: u32,
    /// Uniqueness: every multiset, and the multisets sharing each hash.
    multisets: Vec<Vec<u32>>,
    by_hash: HashMap<u64, Vec<u32>>,
    hashes: Vec<u64>,
}

/// The mahjong claim suite.
pub struct Mahjong {
    rule: Recurrence,
    checks: Vec<Check>,
    specs: Vec<ClaimSpec>,
}

/// Nondecreasing tuples of length 1..=max_d over min..=max, shorter first,
/// then lexicographic.
fn multisets(min: u32, max: u32, max_d: u32) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    for d in 1..=max_d as usize {
        let mut cur = vec![min; d];
        loop {
            out.push(cur.clone());
            let Some(i) = (0..d).rev().find(|&i| cur[i] < max) else {
                break;
            };
            let v = cur[i] + 1;
            for x in &mut cur[i..] {
                *x = v;
            }
        }
    }
    out
}

fn show(a: &[u32]) -> String {
    let parts: Vec<String> = a.iter().map(|x| x.to_string()).collect();
    format!("({})", parts.join(","))
}

impl Check {
    fn curve(&self, a: &[u32], rule: Recurrence) -> Curve {
        Curve::compute(self.s, a, self.horizon, rule)
    }

    /// Ordered tuple `i`: shorter first, then lexicographic.
    fn tuple(&self, mut i: u64) -> Vec<u32> {
        let base = u64::from(self.base);
        for d in 1..=self.max_d {
            let count = base.pow(d);
            if i < count {
                let mut t = vec![0; d as usize];
                for x in t.iter_mut().rev() {
                    *x = self.min + (i % base) as u32;
                    i /= base;
                }
                return t;
            }
            i -= count;
        }
        panic!("tuple index out of range")
    }

    fn instances(&self) -> u64 {
        match self.kind {
            Kind::Permutation => (1..=self.max_d).map(|d| u64::from(self.base).pow(d)).sum(),
            Kind::Uniqueness => self.multisets.len() as u64,
        }
    }
}

impl Mahjong {
    /// The suite for `cfg`, run with recurrence `rule`.
    pub fn new(cfg: &MahjongConfig, rule: Recurrence) -> Self {
        let mut checks = Vec::new();
        let mut specs = Vec::new();
        for r in &cfg.ranges {
            for &s in &r.tiles {
                let horizon = if r.horizon == 0 { s } else { r.horizon };
                let tag = format!(
                    "S{s}.t{horizon}.d{}.a{}-",
                    r.max_replacements, r.min_effective
                );
                let perm = Check {
                    kind: Kind::Permutation,
                    s,
                    horizon,
                    min: r.min_effective,
                    base: r.permutation_max_effective - r.min_effective + 1,
                    max_d: r.max_replacements,
                    multisets: Vec::new(),
                    by_hash: HashMap::new(),
                    hashes: Vec::new(),
                };
                specs.push(ClaimSpec {
                    suite: "mahjong",
                    id: format!("mahjong.permutation.{tag}{}", r.permutation_max_effective),
                    instances: perm.instances(),
                });
                checks.push(perm);
                let sets = multisets(
                    r.min_effective,
                    r.uniqueness_max_effective,
                    r.max_replacements,
                );
                let mut uniq = Check {
                    kind: Kind::Uniqueness,
                    s,
                    horizon,
                    min: r.min_effective,
                    base: 0,
                    max_d: r.max_replacements,
                    multisets: Vec::new(),
                    by_hash: HashMap::new(),
                    hashes: Vec::new(),
                };
                uniq.hashes = sets
                    .par_iter()
                    .map(|m| uniq.curve(m, Recurrence::Seed).hash())
                    .collect();
                for (i, &h) in uniq.hashes.iter().enumerate() {
                    uniq.by_hash.entry(h).or_default().push(i as u32);
                }
                uniq.multisets = sets;
                specs.push(ClaimSpec {
                    suite: "mahjong",
                    id: format!("mahjong.uniqueness.{tag}{}", r.uniqueness_max_effective),
                    instances: uniq.instances(),
                });
                checks.push(uniq);
            }
        }
        Mahjong {
            rule,
            checks,
            specs,
        }
    }
}

impl Suite for Mahjong {
    type Scratch = ();

    fn validate(config: &Config) -> Result<(), String> {
        Config::refuse_card_tables(config)?;
        let cfg = config.mahjong.clone().unwrap_or_default();
        if cfg.ranges.is_empty() {
            return Err("[mahjong] ranges: must list at least one range".into());
        }
        for (i, r) in cfg.ranges.iter().enumerate() {
            let key = |k: &str| format!("[mahjong] ranges[{i}].{k}");
            if r.tiles.is_empty() {
                return Err(format!(
                    "{}: must list at least one wall size",
                    key("tiles")
                ));
            }
            if !(1..=8).contains(&r.max_replacements) {
                return Err(format!(
                    "{}: must be between 1 and 8, got {}",
                    key("max_replacements"),
                    r.max_replacements
                ));
            }
            for (k, v) in [
                ("permutation_max_effective", r.permutation_max_effective),
                ("uniqueness_max_effective", r.uniqueness_max_effective),
            ] {
                if v < r.min_effective {
                    return Err(format!(
                        "{}: {v} is below min_effective ({})",
                        key(k),
                        r.min_effective
                    ));
                }
            }
            let tuples = u64::from(r.permutation_max_effective - r.min_effective + 1)
                .checked_pow(r.max_replacements);
            if tuples.is_none_or(|n| n > 500_000_000) {
                return Err(format!(
                    "{}: too many ordered tuples to check (over 500 million)",
                    key("permutation_max_effective")
                ));
            }
            let span = u64::from(r.uniqueness_max_effective - r.min_effective);
            let sets = crate::stats::binomial(
                (span + u64::from(r.max_replacements)) as u32,
                r.max_replacements,
            );
            if sets.is_none_or(|n| n > 20_000_000) {
                return Err(format!(
                    "{}: too many multisets to search (over 20 million)",
                    key("uniqueness_max_effective")
                ));
            }
            for &s in &r.tiles {
                if s == 0 || s > 1000 {
                    return Err(format!("{}: {s} must be between 1 and 1000", key("tiles")));
                }
                let horizon = if r.horizon == 0 { s } else { r.horizon };
                if horizon > s {
                    return Err(format!(
                        "{}: {horizon} draws is more than the {s} tiles of the wall",
                        key("horizon")
                    ));
                }
            }
        }
        Ok(())
    }

    fn build(config: &Config, inject_fault: bool) -> anyhow::Result<Self> {
        let rule = if inject_fault {
            Recurrence::Faulty
        } else {
            Recurrence::Seed
        };
        Ok(Mahjong::new(
            &config.mahjong.clone().unwrap_or_default(),
            rule,
        ))
    }

    fn claims(&self) -> &[ClaimSpec] {
        &self.specs
    }

    fn new_scratch(&self) {}

    fn check(&self, _: &mut (), claim: usize, i: u64) -> Verdict {
        let c = &self.checks[claim];
        match c.kind {
            Kind::Permutation => {
                let tuple = c.tuple(i);
                let mut sorted = tuple.clone();
                sorted.sort_unstable();
                if sorted == tuple {
                    // Compared with itself; still counted, as every other
                    // order of the multiset is compared with it.
                    return Verdict::Holds;
                }
                let (x, y) = (c.curve(&tuple, self.rule), c.curve(&sorted, self.rule));
                match x.first_difference(&y) {
                    None => Verdict::Holds,
                    Some(t) => Verdict::Fails(format!(
                        "S={} a={} vs a={}: p^(d)_{t} differs",
                        c.s,
                        show(&tuple),
                        show(&sorted)
                    )),
                }
            }
            Kind::Uniqueness => {
                let me = &c.multisets[i as usize];
                let mine = c.curve(me, Recurrence::Seed);
                let group = &c.by_hash[&c.hashes[i as usize]];
                for &j in group {
                    if j as u64 == i {
                        continue;
                    }
                    let other = &c.multisets[j as usize];
                    if c.curve(other, Recurrence::Seed) == mine {
                        return Verdict::Fails(format!(
                            "S={} t<={}: a={} and a={} give identical p^(d)_t",
                            c.s,
                            c.horizon,
                            show(me),
                            show(other)
                        ));
                    }
                }
                Verdict::Holds
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn multisets_are_counted_right() {
        // C(n + d - 1, d) multisets of size d from n values.
        let m = multisets(1, 4, 3);
        assert_eq!(m.len(), 4 + 10 + 20);
        assert_eq!(m[4], vec![1, 1]);
        assert!(m.iter().all(|v| v.windows(2).all(|w| w[0] <= w[1])));
    }
}
