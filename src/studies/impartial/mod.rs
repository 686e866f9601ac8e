//! Claims about impartial games from seeds 002 (nim and Grundy values,
//! including the two "dubious" combinators) and 003 (Nim, Bash, Wythoff,
//! Fibonacci nim, anti-nim), each checked against brute force.
//!
//! Identifiers, statements and sources of every claim are listed in
//! `configs/README.md`. Instances are numbered smallest first, so the first
//! failure reported is the smallest counterexample in that order.

use crate::claims::{ClaimSpec, Suite, SuiteOutline, Verdict};
use crate::config::Config;
pub use crate::config::tables::ImpartialConfig;
use crate::games::impartial::games::{self, Arena, Compounds, GameId, Sums};
use crate::games::impartial::rules;
use crate::study::BuildContext;

fn check_range(key: &str, v: u64, lo: u64, hi: u64) -> Result<(), String> {
    if v < lo || v > hi {
        return Err(format!(
            "[impartial] {key}: must be between {lo} and {hi}, got {v}"
        ));
    }
    Ok(())
}

/// Which rule the sum claim is checked against. `Plus` is deliberately
/// wrong; it exists to show the check can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SumRule {
    /// The sum's value is the xor of the values (the theorem).
    Xor,
    /// The deliberately wrong sum of the values.
    Plus,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Claim {
    SumXor,
    OptionsMex,
    EquivSum,
    EquivOptions,
    LosingPlusLosing,
    WinningPlusLosing,
    GPlusG,
    EquivSameOutcome,
    SumXorRandom,
    OptionsMexRandom,
    NimXor,
    BashMod,
    WythoffExact,
    WythoffFloatNotes,
    WythoffTable1618,
    WythoffFloatFloor,
    FibonacciLosing,
    MisereNotes,
    MisereStandard,
    BothNim,
    BothGeneral,
    BothCongruence,
    BothOutcome,
    AltNim,
    AltGeneral,
    AltCongruence,
    AltOutcomeGrundy,
    AltOutcomeHeight,
    AltValueHeight,
}

/// The impartial-games claim suite.
pub struct Impartial {
    cfg: ImpartialConfig,
    seed: u64,
    sum_rule: SumRule,
    arena: Arena,
    /// Games of birthday <= cfg.birthday, indexed by option mask over `small`.
    big: Vec<GameId>,
    /// Games of birthday <= cfg.birthday - 1.
    small: Vec<GameId>,
    /// For each game of `small`, the brute-force equivalence class it is in.
    class_of: Vec<Vec<usize>>,
    claims: Vec<(Claim, ClaimSpec)>,
    specs: Vec<ClaimSpec>,
    wythoff_losing: Vec<Vec<bool>>,
    fibonacci_first_wins: Vec<bool>,
}

/// Memory of the largest tables the validated keys allow: Wythoff 5001^2
/// bytes and Fibonacci 20001^2 / 2, with their row headers.
pub const IMPARTIAL_TABLES_BUDGET: u64 = 5001 * (5001 + 24) + 20001 * (20001 / 2 + 24);
/// Per thread: the Bash tables, at most 1000 x 100001 bytes.
pub const IMPARTIAL_BUDGET_PER_THREAD: u64 = 1000 * 100_001;

/// Per-thread memo tables.
pub struct Scratch {
    sums: Sums,
    compounds: Compounds,
    bash: hashbrown::HashMap<u32, Vec<bool>>,
    misere: rules::Misere,
}

impl Impartial {
    /// The suite for `cfg`; `sum_rule` picks the rule the sum claim is checked against.
    pub fn new(cfg: ImpartialConfig, seed: u64, sum_rule: SumRule) -> Self {
        let mut arena = Arena::new();
        arena.nim(cfg.max_heap.max(cfg.combinator_max_heap).max(16));
        let small = arena.games_up_to_birthday(cfg.birthday - 1);
        let big = arena.games_up_to_birthday(cfg.birthday);
        let mut sums = Sums::default();
        let class_of: Vec<Vec<usize>> = (0..small.len())
            .map(|i| {
                (0..small.len())
                    .filter(|&j| sums.is_losing(&arena, &[small[i], small[j]]))
                    .collect()
            })
            .collect();
        let (ns, nb) = (small.len() as u64, big.len() as u64);
        let pairs = ns * ns + nb * ns;
        let pairs_both_ways = pairs + ns * nb;
        let heaps = |k: u32, m: u32| (1..=k).map(|j| u64::from(m + 1).pow(j)).sum::<u64>();
        let w = u64::from(cfg.wythoff_max);
        use Claim::*;
        let list: Vec<(Claim, &'static str, &'static str, u64)> = vec![
            (SumXor, "grundy", "grundy.sum_xor", pairs),
            (OptionsMex, "grundy", "grundy.options_mex", nb),
            (EquivSum, "grundy", "grundy.equiv_sum", ns.pow(4)),
            (EquivOptions, "grundy", "grundy.equiv_options", nb * 2),
            (
                LosingPlusLosing,
                "grundy",
                "grundy.losing_plus_losing",
                pairs,
            ),
            (
                WinningPlusLosing,
                "grundy",
                "grundy.winning_plus_losing",
                pairs,
            ),
            (GPlusG, "grundy", "grundy.g_plus_g", nb),
            (
                EquivSameOutcome,
                "grundy",
                "grundy.equiv_same_outcome",
                pairs,
            ),
            (
                SumXorRandom,
                "grundy",
                "grundy.sum_xor.random",
                cfg.random_games,
            ),
            (
                OptionsMexRandom,
                "grundy",
                "grundy.options_mex.random",
                cfg.random_games,
            ),
            (NimXor, "nim", "nim.xor", heaps(cfg.max_heaps, cfg.max_heap)),
            (
                BashMod,
                "bash",
                "bash.mod",
                u64::from(cfg.bash_max_m) * u64::from(cfg.bash_max_n + 1),
            ),
            (
                WythoffExact,
                "wythoff",
                "wythoff.exact",
                (w + 1) * (w + 2) / 2,
            ),
            (
                WythoffFloatNotes,
                "wythoff",
                "wythoff.float_notes",
                (w + 1) * (w + 2) / 2,
            ),
            (WythoffTable1618, "wythoff", "wythoff.table_1618", w + 1),
            (
                WythoffFloatFloor,
                "wythoff",
                "wythoff.float_floor",
                cfg.wythoff_float_k,
            ),
            (
                FibonacciLosing,
                "fibonacci",
                "fibonacci.losing_iff_fibonacci",
                u64::from(cfg.fibonacci_max - 1),
            ),
            (
                MisereNotes,
                "misere",
                "misere.notes",
                heaps(cfg.max_heaps, cfg.max_heap),
            ),
            (
                MisereStandard,
                "misere",
                "misere.standard",
                heaps(cfg.max_heaps, cfg.max_heap),
            ),
            (
                BothNim,
                "dubious",
                "dubious.either_both.nim",
                u64::from(cfg.combinator_max_heap + 1).pow(2),
            ),
            (
                BothGeneral,
                "dubious",
                "dubious.either_both.general",
                pairs_both_ways,
            ),
            (
                BothCongruence,
                "dubious",
                "dubious.either_both.congruence",
                ns.pow(4),
            ),
            (
                BothOutcome,
                "dubious",
                "dubious.either_both.outcome_both_losing",
                pairs_both_ways,
            ),
            (
                AltNim,
                "dubious",
                "dubious.alternating.nim",
                u64::from(cfg.combinator_max_heap + 1).pow(2),
            ),
            (
                AltGeneral,
                "dubious",
                "dubious.alternating.general",
                pairs_both_ways,
            ),
            (
                AltCongruence,
                "dubious",
                "dubious.alternating.congruence",
                ns.pow(4),
            ),
            (
                AltOutcomeGrundy,
                "dubious",
                "dubious.alternating.outcome_grundy",
                pairs_both_ways,
            ),
            (
                AltOutcomeHeight,
                "dubious",
                "dubious.alternating.outcome_height",
                pairs_both_ways,
            ),
            (
                AltValueHeight,
                "dubious",
                "dubious.alternating.value_height",
                pairs_both_ways,
            ),
        ];
        let claims: Vec<(Claim, ClaimSpec)> = list
            .into_iter()
            .map(|(c, suite, id, instances)| {
                let id = if c == SumXor && sum_rule == SumRule::Plus {
                    "grundy.sum_plus (injected fault)".to_string()
                } else {
                    id.to_string()
                };
                (
                    c,
                    ClaimSpec {
                        suite,
                        id,
                        instances,
                    },
                )
            })
            .collect();
        let specs = claims.iter().map(|(_, s)| s.clone()).collect();
        Impartial {
            wythoff_losing: rules::wythoff_losing_table(cfg.wythoff_max),
            fibonacci_first_wins: rules::fibonacci_first_player_wins(cfg.fibonacci_max),
            cfg,
            seed,
            sum_rule,
            arena,
            big,
            small,
            class_of,
            claims,
            specs,
        }
    }

    /// Pair `i`: first all (small, small), then (big, small), then (small, big).
    fn pair(&self, i: u64) -> (GameId, GameId) {
        let (ns, nb) = (self.small.len() as u64, self.big.len() as u64);
        if i < ns * ns {
            return (self.small[(i / ns) as usize], self.small[(i % ns) as usize]);
        }
        let j = i - ns * ns;
        if j < nb * ns {
            return (self.big[(j / ns) as usize], self.small[(j % ns) as usize]);
        }
        let k = j - nb * ns;
        (self.small[(k / nb) as usize], self.big[(k % nb) as usize])
    }

    /// Quadruple `i` of games of `small`, as indices into `small`.
    fn quadruple(&self, i: u64) -> [usize; 4] {
        let n = self.small.len() as u64;
        [
            (i / (n * n * n)) as usize,
            (i / (n * n) % n) as usize,
            (i / n % n) as usize,
            (i % n) as usize,
        ]
    }

    fn equivalent(&self, a: usize, b: usize) -> bool {
        self.class_of[a].contains(&b)
    }

    fn show(&self, g: GameId) -> String {
        self.arena.show(g)
    }

    fn show_pair(&self, a: GameId, b: GameId) -> String {
        format!("G1={} G2={}", self.show(a), self.show(b))
    }

    fn check_sum_rule(&self, sums: &mut Sums, a: &Arena, g: GameId, h: GameId) -> Verdict {
        let (x, y) = (a.grundy(g), a.grundy(h));
        let claimed = match self.sum_rule {
            SumRule::Xor => x ^ y,
            SumRule::Plus => x + y,
        };
        let Some(heap) = a.nim_id(claimed) else {
            return Verdict::Fails(format!(
                "G={} H={}: claimed value *{claimed} is beyond the heaps made",
                a.show(g),
                a.show(h)
            ));
        };
        if sums.is_losing(a, &[g, h, heap]) {
            Verdict::Holds
        } else {
            Verdict::Fails(format!(
                "G={} H={}: G+H is not equivalent to *{claimed}",
                a.show(g),
                a.show(h)
            ))
        }
    }

    /// Claims about Grundy values and sums (seed 002).
    fn check_value_claim(&self, s: &mut Scratch, claim: usize, i: u64) -> Verdict {
        use Claim::*;
        let a = &self.arena;
        match self.claims[claim].0 {
            SumXor => {
                let (g, h) = self.pair(i);
                self.check_sum_rule(&mut s.sums, a, g, h)
            }
            OptionsMex => {
                let g = self.big[i as usize];
                let values: Vec<u32> = a.options(g).iter().map(|&o| a.grundy(o)).collect();
                let m = games::mex(&values);
                let heap = a.nim_id(m).expect("heaps made up to 16");
                verdict(s.sums.is_losing(a, &[g, heap]), &|| {
                    format!("G={}: G is not equivalent to *{m}", a.show(g))
                })
            }
            EquivSum => {
                let [p, q, r, t] = self.quadruple(i);
                // A = p, A' = q, B = r, B' = t.
                if !(self.equivalent(p, q) && self.equivalent(r, t)) {
                    return Verdict::Vacuous;
                }
                let g = |x: usize| self.small[x];
                verdict(s.sums.is_losing(a, &[g(p), g(r), g(q), g(t)]), &|| {
                    format!(
                        "A={} A'={} B={} B'={}",
                        a.show(g(p)),
                        a.show(g(q)),
                        a.show(g(r)),
                        a.show(g(t))
                    )
                })
            }
            EquivOptions => {
                let mask = i / 2;
                let shift = (i % 2 + 1) as usize;
                let mut replaced = 0u64;
                for bit in 0..self.small.len() {
                    if mask >> bit & 1 == 1 {
                        let class = &self.class_of[bit];
                        let at = class.iter().position(|&x| x == bit).expect("own class");
                        replaced |= 1 << class[(at + shift) % class.len()];
                    }
                }
                let (g, h) = (self.big[mask as usize], self.big[replaced as usize]);
                verdict(s.sums.is_losing(a, &[g, h]), &|| {
                    format!("G={} G'={}", a.show(g), a.show(h))
                })
            }
            LosingPlusLosing => {
                let (g, h) = self.pair(i);
                if !(s.sums.is_losing(a, &[g]) && s.sums.is_losing(a, &[h])) {
                    return Verdict::Vacuous;
                }
                verdict(s.sums.is_losing(a, &[g, h]), &|| self.show_pair(g, h))
            }
            WinningPlusLosing => {
                let (g, h) = self.pair(i);
                if s.sums.is_losing(a, &[g]) == s.sums.is_losing(a, &[h]) {
                    return Verdict::Vacuous;
                }
                verdict(!s.sums.is_losing(a, &[g, h]), &|| self.show_pair(g, h))
            }
            GPlusG => {
                let g = self.big[i as usize];
                verdict(s.sums.is_losing(a, &[g, g]), &|| format!("G={}", a.show(g)))
            }
            EquivSameOutcome => {
                let (g, h) = self.pair(i);
                if !s.sums.is_losing(a, &[g, h]) {
                    return Verdict::Vacuous;
                }
                verdict(
                    s.sums.is_losing(a, &[g]) == s.sums.is_losing(a, &[h]),
                    &|| self.show_pair(g, h),
                )
            }
            SumXorRandom | OptionsMexRandom => {
                let mut local = Arena::new();
                local.nim(1 << 5);
                let mut rng = crate::random::chunk_rng(self.seed ^ claim as u64, i);
                let g = rules::random_game(&mut local, &mut rng, self.cfg.random_depth);
                let h = rules::random_game(&mut local, &mut rng, self.cfg.random_depth);
                // A fresh memo: ids of the local arena mean nothing elsewhere.
                let mut sums = Sums::default();
                if self.claims[claim].0 == SumXorRandom {
                    return self.check_sum_rule(&mut sums, &local, g, h);
                }
                let heap = local.nim_id(local.grundy(g)).expect("heaps made up to 32");
                verdict(sums.is_losing(&local, &[g, heap]), &|| {
                    format!(
                        "G={}: not equivalent to *{}",
                        local.show(g),
                        local.grundy(g)
                    )
                })
            }
            other => unreachable!("{other:?} is not checked here"),
        }
    }

    /// The classic games of seed 003 against their closed forms.
    fn check_classic_claim(&self, s: &mut Scratch, claim: usize, i: u64) -> Verdict {
        use Claim::*;
        let a = &self.arena;
        match self.claims[claim].0 {
            NimXor => {
                let heaps = rules::heap_tuple(i, self.cfg.max_heaps, self.cfg.max_heap);
                let comps: Vec<GameId> = heaps.iter().map(|&h| a.nim_id(h).unwrap()).collect();
                let xor = heaps.iter().fold(0, |x, &h| x ^ h);
                let first_wins = !s.sums.is_losing(a, &comps);
                verdict(first_wins == (xor != 0), &|| format!("heaps {heaps:?}"))
            }
            BashMod => {
                let n_count = self.cfg.bash_max_n + 1;
                let m = (i / u64::from(n_count)) as u32 + 1;
                let n = (i % u64::from(n_count)) as u32;
                let max_n = self.cfg.bash_max_n;
                let table = s
                    .bash
                    .entry(m)
                    .or_insert_with(|| rules::bash_losing_table(max_n, m));
                verdict(table[n as usize] == n.is_multiple_of(m + 1), &|| {
                    format!("n={n} m={m}")
                })
            }
            WythoffExact | WythoffFloatNotes => {
                let (x, y) = rules::ordered_pair(i);
                let losing = self.wythoff_losing[x as usize][y as usize];
                let predicted = if self.claims[claim].0 == WythoffExact {
                    x == rules::floor_k_phi(y - x)
                } else {
                    rules::notes_float_wythoff_losing(x, y)
                };
                verdict(predicted == losing, &|| {
                    format!(
                        "(a,b)=({x},{y}): brute force says {}, formula says {}",
                        outcome(losing),
                        outcome(predicted)
                    )
                })
            }
            WythoffTable1618 => {
                let exact = rules::floor_k_phi(i);
                let table = i * 1618 / 1000;
                verdict(exact == table, &|| {
                    format!("k={i}: floor(k*1.618)={table} but floor(k*phi)={exact}")
                })
            }
            WythoffFloatFloor => {
                let exact = rules::floor_k_phi(i);
                let float = rules::float_floor_k_phi(i);
                verdict(exact == float, &|| {
                    format!("k={i}: f64 floor gives {float}, exact floor(k*phi)={exact}")
                })
            }
            FibonacciLosing => {
                let n = i as u32 + 2;
                let loses = !self.fibonacci_first_wins[n as usize];
                let fib = rules::is_fibonacci(u64::from(n));
                verdict(loses == fib, &|| {
                    format!(
                        "n={n}: first player {}, n is {}a Fibonacci number",
                        if loses { "loses" } else { "wins" },
                        if fib { "" } else { "not " }
                    )
                })
            }
            MisereNotes | MisereStandard => {
                let heaps = rules::heap_tuple(i, self.cfg.max_heaps, self.cfg.max_heap);
                if heaps.iter().all(|&h| h == 0) {
                    // No stone is ever taken, so "whoever takes the last
                    // stone loses" does not decide the game.
                    return Verdict::Vacuous;
                }
                let first_wins = !s.misere.is_losing(&heaps);
                let predicted = if self.claims[claim].0 == MisereNotes {
                    rules::misere_notes_first_wins(&heaps)
                } else {
                    rules::misere_standard_first_wins(&heaps)
                };
                verdict(first_wins == predicted, &|| {
                    format!(
                        "heaps {heaps:?}: first player {} by brute force, rule says {}",
                        wins(first_wins),
                        wins(predicted)
                    )
                })
            }
            other => unreachable!("{other:?} is not checked here"),
        }
    }

    /// The two "dubious" combinators of seed 002.
    fn check_dubious_claim(&self, s: &mut Scratch, claim: usize, i: u64) -> Verdict {
        use Claim::*;
        let a = &self.arena;
        match self.claims[claim].0 {
            BothNim | AltNim => {
                let n = u64::from(self.cfg.combinator_max_heap + 1);
                let (n1, n2) = ((i / n) as u32, (i % n) as u32);
                let (g, h) = (a.nim_id(n1).unwrap(), a.nim_id(n2).unwrap());
                let both = self.claims[claim].0 == BothNim;
                let (value, claimed) = if both {
                    (s.compounds.either_or_both(a, g, h), n1 + n2)
                } else {
                    (s.compounds.alternating(a, g, h), alternating_claim(n1, n2))
                };
                verdict(value == claimed, &|| {
                    format!("*{n1} and *{n2}: value {value}, claimed {claimed}")
                })
            }
            BothGeneral | AltGeneral => {
                s.compounds.clear_if_large();
                let (g, h) = self.pair(i);
                let (n1, n2) = (a.grundy(g), a.grundy(h));
                let (value, claimed) = if self.claims[claim].0 == BothGeneral {
                    (s.compounds.either_or_both(a, g, h), n1 + n2)
                } else {
                    (s.compounds.alternating(a, g, h), alternating_claim(n1, n2))
                };
                verdict(value == claimed, &|| {
                    format!(
                        "{} (values {n1}, {n2}): value {value}, claimed {claimed}",
                        self.show_pair(g, h)
                    )
                })
            }
            BothCongruence | AltCongruence => {
                let [p, q, r, t] = self.quadruple(i);
                if !(self.equivalent(p, q) && self.equivalent(r, t)) {
                    return Verdict::Vacuous;
                }
                let g = |x: usize| self.small[x];
                let (x, y) = if self.claims[claim].0 == BothCongruence {
                    (
                        s.compounds.either_or_both(a, g(p), g(r)),
                        s.compounds.either_or_both(a, g(q), g(t)),
                    )
                } else {
                    (
                        s.compounds.alternating(a, g(p), g(r)),
                        s.compounds.alternating(a, g(q), g(t)),
                    )
                };
                verdict(x == y, &|| {
                    format!(
                        "A={} A'={} B={} B'={}: compound values {x} and {y}",
                        a.show(g(p)),
                        a.show(g(q)),
                        a.show(g(r)),
                        a.show(g(t))
                    )
                })
            }
            BothOutcome => {
                s.compounds.clear_if_large();
                let (g, h) = self.pair(i);
                let losing = s.compounds.either_or_both(a, g, h) == 0;
                let predicted = s.sums.is_losing(a, &[g]) && s.sums.is_losing(a, &[h]);
                verdict(losing == predicted, &|| self.show_pair(g, h))
            }
            AltValueHeight => {
                s.compounds.clear_if_large();
                let (g, h) = self.pair(i);
                let (h1, h2) = (a.height(g), a.height(h));
                let value = s.compounds.alternating(a, g, h);
                let claimed = alternating_claim(h1, h2);
                verdict(value == claimed, &|| {
                    format!(
                        "{} (heights {h1}, {h2}): value {value}, height formula {claimed}",
                        self.show_pair(g, h)
                    )
                })
            }
            AltOutcomeGrundy | AltOutcomeHeight => {
                s.compounds.clear_if_large();
                let (g, h) = self.pair(i);
                let losing = s.compounds.alternating(a, g, h) == 0;
                let predicted = if self.claims[claim].0 == AltOutcomeGrundy {
                    a.grundy(g) <= a.grundy(h)
                } else {
                    a.height(g) <= a.height(h)
                };
                verdict(losing == predicted, &|| {
                    format!(
                        "{}: brute force says {}, rule says {}",
                        self.show_pair(g, h),
                        outcome(losing),
                        outcome(predicted)
                    )
                })
            }
            other => unreachable!("{other:?} is not checked here"),
        }
    }
}

impl Suite for Impartial {
    type Scratch = Scratch;

    fn validate(config: &Config) -> Result<(), String> {
        Config::refuse_card_tables(config)?;
        let c = config.impartial.clone().unwrap_or_default();
        check_range("birthday", c.birthday.into(), 1, 4)?;
        check_range("random_games", c.random_games, 0, 100_000_000)?;
        check_range("random_depth", c.random_depth.into(), 1, 12)?;
        check_range(
            "max_heaps",
            c.max_heaps.into(),
            1,
            games::MAX_COMPONENTS as u64,
        )?;
        check_range("max_heap", c.max_heap.into(), 0, 40)?;
        check_range("bash_max_n", c.bash_max_n.into(), 0, 100_000)?;
        check_range("bash_max_m", c.bash_max_m.into(), 1, 1000)?;
        check_range("wythoff_max", c.wythoff_max.into(), 0, 5000)?;
        check_range("wythoff_float_k", c.wythoff_float_k, 0, 1 << 40)?;
        check_range("fibonacci_max", c.fibonacci_max.into(), 2, 20_000)?;
        check_range("combinator_max_heap", c.combinator_max_heap.into(), 0, 64)?;
        Ok(())
    }

    fn build(config: &Config, ctx: &BuildContext) -> anyhow::Result<Self> {
        let rule = if ctx.inject_fault {
            SumRule::Plus
        } else {
            SumRule::Xor
        };
        Ok(Impartial::new(
            config.impartial.clone().unwrap_or_default(),
            config.experiment.seed,
            rule,
        ))
    }

    fn claims(&self) -> &[ClaimSpec] {
        &self.specs
    }

    fn outline(config: &Config, threads: usize) -> SuiteOutline {
        let c = config.impartial.clone().unwrap_or_default();
        // Building the arena and the tables takes a few seconds at most.
        let suite = Impartial::new(c.clone(), config.experiment.seed, SumRule::Xor);
        let (w, f) = (u64::from(c.wythoff_max) + 1, u64::from(c.fibonacci_max) + 1);
        let bash = u64::from(c.bash_max_m) * (u64::from(c.bash_max_n) + 1);
        // Vec<Vec<bool>> rows carry 24 bytes of header each.
        let memory = w * (w + 24) + f * (f / 2 + 24) + threads as u64 * bash;
        SuiteOutline {
            claims: suite.specs,
            memory,
            budget_key: "[impartial] wythoff_max, fibonacci_max, bash_max_n x bash_max_m",
            budget: IMPARTIAL_BUDGET_PER_THREAD * threads.max(1) as u64 + IMPARTIAL_TABLES_BUDGET,
        }
    }

    fn new_scratch(&self) -> Scratch {
        Scratch {
            sums: Sums::default(),
            compounds: Compounds::default(),
            bash: hashbrown::HashMap::new(),
            misere: rules::Misere::default(),
        }
    }

    fn check(&self, s: &mut Scratch, claim: usize, i: u64) -> Verdict {
        use Claim::*;
        match self.claims[claim].0 {
            SumXor | OptionsMex | EquivSum | EquivOptions | LosingPlusLosing
            | WinningPlusLosing | GPlusG | EquivSameOutcome | SumXorRandom | OptionsMexRandom => {
                self.check_value_claim(s, claim, i)
            }
            NimXor | BashMod | WythoffExact | WythoffFloatNotes | WythoffTable1618
            | WythoffFloatFloor | FibonacciLosing | MisereNotes | MisereStandard => {
                self.check_classic_claim(s, claim, i)
            }
            BothNim | BothGeneral | BothCongruence | BothOutcome | AltNim | AltGeneral
            | AltCongruence | AltOutcomeGrundy | AltOutcomeHeight | AltValueHeight => {
                self.check_dubious_claim(s, claim, i)
            }
        }
    }
}

/// `Holds` when `holds`, else a failure described by `what` (built only
/// then: descriptions print whole games).
fn verdict(holds: bool, what: &dyn Fn() -> String) -> Verdict {
    if holds {
        Verdict::Holds
    } else {
        Verdict::Fails(what())
    }
}

/// The notes' value of `*n1 X *n2`.
fn alternating_claim(n1: u32, n2: u32) -> u32 {
    if n1 <= n2 { 0 } else { n2 + 1 }
}

fn outcome(losing: bool) -> &'static str {
    if losing { "losing" } else { "winning" }
}

fn wins(w: bool) -> &'static str {
    if w { "wins" } else { "loses" }
}
