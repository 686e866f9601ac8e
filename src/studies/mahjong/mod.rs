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

use crate::claims::{ClaimSpec, Suite, SuiteOutline, Verdict};
use crate::config::Config;
pub use crate::config::tables::{MahjongConfig, MahjongRange};
use crate::engine::progress::Progress;
use crate::games::mahjong::recurrence::{Curve, Recurrence};
use crate::study::BuildContext;
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
    /// Uniqueness: the largest a_i.
    max: u32,
    /// Uniqueness: (curve hash, multiset index) for every multiset, sorted,
    /// so the multisets sharing a hash are adjacent. 16 bytes a multiset is
    /// the whole memory of the search: multisets are rebuilt from their
    /// index rather than stored.
    by_hash: Vec<(u64, u32)>,
}

/// Memory the uniqueness search keeps per multiset (one `by_hash` entry).
pub const BYTES_PER_MULTISET: u64 = 16;
/// Most multisets one range and wall may search.
pub const MAX_MULTISETS_PER_WALL: u128 = 20_000_000;
/// Most multisets all ranges together may search: about 640 MB of
/// `by_hash` entries, the study's whole memory budget.
pub const MAX_MULTISETS_IN_ALL: u128 = 40_000_000;

/// The mahjong claim suite.
pub struct Mahjong {
    rule: Recurrence,
    checks: Vec<Check>,
    specs: Vec<ClaimSpec>,
}

/// Nondecreasing tuples of length `d` over `lo..=max`: C(max - lo + d, d).
fn multisets_of_length(lo: u32, max: u32, d: u32) -> u128 {
    crate::stats::binomial(max - lo + d, d).expect("bounded by validation")
}

/// Number of nondecreasing tuples of length 1..=max_d over min..=max.
fn multiset_count(min: u32, max: u32, max_d: u32) -> Option<u128> {
    (1..=max_d).try_fold(0u128, |acc, d| {
        acc.checked_add(crate::stats::binomial(
            max.checked_sub(min)?.checked_add(d)?,
            d,
        )?)
    })
}

/// Multiset `i` of the order "shorter first, then lexicographic" over
/// nondecreasing tuples of length 1..=max_d with values in min..=max.
fn multiset(min: u32, max: u32, max_d: u32, mut i: u128) -> Vec<u32> {
    for d in 1..=max_d {
        let count = multisets_of_length(min, max, d);
        if i >= count {
            i -= count;
            continue;
        }
        let mut out = Vec::with_capacity(d as usize);
        let mut lo = min;
        for left in (1..=d).rev() {
            // Tuples of length `left` over v..=max that start at or after
            // v: C(max - v + left, left), decreasing in v. The value here is
            // the largest v whose tuples starting before it number <= i.
            let all = multisets_of_length(lo, max, left);
            let (mut a, mut b) = (lo, max);
            while a < b {
                let mid = a + (b - a).div_ceil(2);
                if all - multisets_of_length(mid, max, left) <= i {
                    a = mid;
                } else {
                    b = mid - 1;
                }
            }
            i -= all - multisets_of_length(a, max, left);
            out.push(a);
            lo = a;
        }
        return out;
    }
    panic!("multiset index out of range")
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

    /// Hashes every multiset's curve, in parallel, showing progress.
    fn hash_curves(&mut self, ctx: &BuildContext) {
        let sets = self.instances() as u32;
        let hashing = Progress::start(
            &format!("hashing uniqueness curves, S={}", self.s),
            u64::from(sets),
            0,
            ctx.progress,
        );
        let this = &*self;
        let mut by_hash: Vec<(u64, u32)> = (0..sets)
            .into_par_iter()
            .map(|i| {
                let m = multiset(this.min, this.max, this.max_d, i.into());
                hashing.add(1);
                (this.curve(&m, Recurrence::Seed).hash(), i)
            })
            .collect();
        hashing.finish();
        by_hash.par_sort_unstable();
        self.by_hash = by_hash;
    }

    fn instances(&self) -> u64 {
        match self.kind {
            Kind::Permutation => (1..=self.max_d).map(|d| u64::from(self.base).pow(d)).sum(),
            Kind::Uniqueness => multiset_count(self.min, self.max, self.max_d)
                .expect("bounded by validation") as u64,
        }
    }
}

impl Mahjong {
    /// The suite for `cfg`, run with recurrence `rule`: its claims, then
    /// every uniqueness curve hashed.
    pub fn new(cfg: &MahjongConfig, rule: Recurrence, ctx: &BuildContext) -> Self {
        let mut suite = Mahjong::unhashed(cfg, rule);
        for c in &mut suite.checks {
            if c.kind == Kind::Uniqueness {
                c.hash_curves(ctx);
            }
        }
        suite
    }

    /// The claims of `cfg`, before any curve is hashed.
    fn unhashed(cfg: &MahjongConfig, rule: Recurrence) -> Self {
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
                    base: (r.permutation_max_effective - r.min_effective)
                        .checked_add(1)
                        .expect("bounded by validation"),
                    max_d: r.max_replacements,
                    max: 0,
                    by_hash: Vec::new(),
                };
                specs.push(ClaimSpec {
                    suite: "mahjong",
                    id: format!("mahjong.permutation.{tag}{}", r.permutation_max_effective),
                    instances: perm.instances(),
                });
                checks.push(perm);
                let uniq = Check {
                    kind: Kind::Uniqueness,
                    s,
                    horizon,
                    min: r.min_effective,
                    base: 0,
                    max_d: r.max_replacements,
                    max: r.uniqueness_max_effective,
                    by_hash: Vec::new(),
                };
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
        let mut all_sets: u128 = 0;
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
            // In u64: 0..=u32::MAX is 2^32 values, one past a u32.
            let values = u64::from(r.permutation_max_effective) - u64::from(r.min_effective) + 1;
            let tuples = values.checked_pow(r.max_replacements);
            if tuples.is_none_or(|n| n > 500_000_000) {
                return Err(format!(
                    "{}: too many ordered tuples to check (over 500 million)",
                    key("permutation_max_effective")
                ));
            }
            let sets = multiset_count(
                r.min_effective,
                r.uniqueness_max_effective,
                r.max_replacements,
            );
            if sets.is_none_or(|n| n > MAX_MULTISETS_PER_WALL) {
                return Err(format!(
                    "{}: too many multisets to search (over {MAX_MULTISETS_PER_WALL})",
                    key("uniqueness_max_effective")
                ));
            }
            all_sets += sets.unwrap_or(0) * r.tiles.len() as u128;
            if all_sets > MAX_MULTISETS_IN_ALL {
                return Err(format!(
                    "{}: the ranges together search more than {MAX_MULTISETS_IN_ALL} multisets, \
                     which at {BYTES_PER_MULTISET} bytes each is past the study's memory budget",
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

    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self> {
        let rule = if ctx.inject_fault {
            Recurrence::Faulty
        } else {
            Recurrence::Seed
        };
        Ok(Mahjong::new(
            &config.mahjong.clone().unwrap_or_default(),
            rule,
            ctx,
        ))
    }

    fn claims(&self) -> &[ClaimSpec] {
        &self.specs
    }

    fn outline(config: &Config, _threads: usize) -> SuiteOutline {
        let suite = Mahjong::unhashed(
            &config.mahjong.clone().unwrap_or_default(),
            Recurrence::Seed,
        );
        let memory = suite
            .checks
            .iter()
            .filter(|c| c.kind == Kind::Uniqueness)
            .map(|c| c.instances() * BYTES_PER_MULTISET)
            .sum();
        SuiteOutline {
            claims: suite.specs,
            memory,
            budget_key: "[mahjong] ranges (uniqueness_max_effective, max_replacements)",
            budget: MAX_MULTISETS_IN_ALL as u64 * BYTES_PER_MULTISET,
        }
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
                let me = multiset(c.min, c.max, c.max_d, i.into());
                let mine = c.curve(&me, Recurrence::Seed);
                let hash = mine.hash();
                let start = c.by_hash.partition_point(|&(h, _)| h < hash);
                for &(h, j) in &c.by_hash[start..] {
                    if h != hash {
                        break;
                    }
                    if u64::from(j) == i {
                        continue;
                    }
                    let other = multiset(c.min, c.max, c.max_d, j.into());
                    if c.curve(&other, Recurrence::Seed) == mine {
                        return Verdict::Fails(format!(
                            "S={} t<={}: a={} and a={} give identical p^(d)_t",
                            c.s,
                            c.horizon,
                            show(&me),
                            show(&other)
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

    /// The plain twin of [`multiset`]: every nondecreasing tuple, listed.
    fn multisets_listed(min: u32, max: u32, max_d: u32) -> Vec<Vec<u32>> {
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

    #[test]
    fn multisets_are_counted_and_unranked_like_the_listing() {
        // C(n + d - 1, d) multisets of size d from n values.
        let m = multisets_listed(1, 4, 3);
        assert_eq!(m.len(), 4 + 10 + 20);
        assert_eq!(m[4], vec![1, 1]);
        for (min, max, d) in [
            (1, 4, 3),
            (0, 0, 4),
            (0, 7, 5),
            (3, 9, 2),
            (1, 1, 1),
            (2, 30, 3),
        ] {
            let listed = multisets_listed(min, max, d);
            assert_eq!(multiset_count(min, max, d), Some(listed.len() as u128));
            for (i, want) in listed.iter().enumerate() {
                assert_eq!(
                    &multiset(min, max, d, i as u128),
                    want,
                    "{min}..={max} d<={d} #{i}"
                );
            }
        }
    }
}
