//! The claim studies (seeds 002, 003, 004): each check can fail, known
//! findings are found, and runs are deterministic across threads and shards.

mod common;

use common::{run, run_args, scratch, stderr};
use runner::claims::{self, Suite, Verdict};
use runner::games::mahjong::recurrence::Recurrence;
use runner::studies::impartial::{Impartial, ImpartialConfig, SumRule};
use runner::studies::mahjong::{Mahjong, MahjongConfig, MahjongRange};
use runner::study::BuildContext;

fn quiet() -> BuildContext {
    BuildContext {
        threads: 1,
        inject_fault: false,
        progress: runner::engine::progress::Mode::Quiet,
        stop: Default::default(),
        timing_sample: false,
    }
}

fn small_impartial() -> ImpartialConfig {
    ImpartialConfig {
        birthday: 3,
        random_games: 300,
        random_depth: 5,
        max_heaps: 3,
        max_heap: 6,
        bash_max_n: 60,
        bash_max_m: 6,
        wythoff_max: 300,
        wythoff_float_k: 5000,
        fibonacci_max: 300,
        combinator_max_heap: 8,
    }
}

fn counts(suite: &impl Suite, id: &str) -> claims::ClaimCounts {
    let c = claims::position(suite, id).unwrap_or_else(|| panic!("no claim {id}"));
    claims::check_all(suite, c)
}

#[test]
fn impartial_theorems_hold_and_a_wrong_sum_rule_is_caught() {
    let good = Impartial::new(small_impartial(), 1, SumRule::Xor);
    for id in [
        "grundy.sum_xor",
        "grundy.options_mex",
        "grundy.equiv_sum",
        "grundy.equiv_options",
        "grundy.sum_xor.random",
        "nim.xor",
        "bash.mod",
        "wythoff.exact",
        "fibonacci.losing_iff_fibonacci",
        "misere.standard",
        "dubious.either_both.nim",
        "dubious.alternating.nim",
        "dubious.either_both.outcome_both_losing",
        "dubious.alternating.outcome_height",
    ] {
        let c = counts(&good, id);
        assert!(c.instances > 0, "{id} checked nothing");
        assert_eq!(c.failures, 0, "{id}: {:?}", c.first_failure);
    }
    let bad = Impartial::new(small_impartial(), 1, SumRule::Plus);
    let c = claims::check_all(&bad, 0);
    assert!(c.failures > 0, "G1 + G2 = *(n1 + n2) must be refuted");
    // *1 + *1 is losing, so it is not *2: among the first counterexamples.
    assert!(c.first_failure.unwrap().1.contains("*1"));
}

#[test]
fn impartial_findings_are_found_with_their_smallest_counterexamples() {
    let s = Impartial::new(small_impartial(), 1, SumRule::Xor);
    let first = |id: &str| {
        let c = counts(&s, id);
        assert!(c.failures > 0, "{id} was expected to fail");
        c.first_failure.unwrap().1
    };
    // The notes' floating-point equality misses every losing pair but (0,0).
    assert!(first("wythoff.float_notes").starts_with("(a,b)=(1,2)"));
    assert!(first("wythoff.table_1618").starts_with("k=233"));
    // Anti-nim in the notes' words breaks once a heap may be empty.
    assert!(first("misere.notes").starts_with("heaps [0, 1]"));
    for id in [
        "dubious.either_both.general",
        "dubious.either_both.congruence",
        "dubious.alternating.general",
        "dubious.alternating.congruence",
        "dubious.alternating.outcome_grundy",
    ] {
        first(id);
    }
}

#[test]
fn a_claim_that_holds_reports_no_failure_and_one_that_fails_keeps_the_smallest() {
    let mut a = claims::ClaimCounts::default();
    let mut b = claims::ClaimCounts::default();
    a.record(9, Verdict::Fails("nine".into()));
    a.record(3, Verdict::Holds);
    b.record(4, Verdict::Fails("four".into()));
    b.record(5, Verdict::Vacuous);
    let mut ab = a.clone();
    ab.merge(b.clone());
    let mut ba = b;
    ba.merge(a);
    assert_eq!(ab, ba);
    assert_eq!(ab.first_failure.as_ref().unwrap().1, "four");
    assert_eq!((ab.instances, ab.failures, ab.vacuous), (3, 2, 1));
}

fn small_mahjong() -> MahjongConfig {
    MahjongConfig {
        ranges: vec![
            MahjongRange {
                tiles: vec![136, 40],
                max_replacements: 4,
                horizon: 18,
                min_effective: 1,
                permutation_max_effective: 5,
                uniqueness_max_effective: 8,
            },
            MahjongRange {
                tiles: vec![136],
                max_replacements: 2,
                horizon: 18,
                min_effective: 0,
                permutation_max_effective: 3,
                uniqueness_max_effective: 3,
            },
        ],
    }
}

#[test]
fn mahjong_permutation_holds_and_a_faulty_recurrence_is_caught() {
    let good = Mahjong::new(&small_mahjong(), Recurrence::Seed, &quiet());
    let bad = Mahjong::new(&small_mahjong(), Recurrence::Faulty, &quiet());
    let perm = "mahjong.permutation.S136.t18.d4.a1-5";
    let ok = counts(&good, perm);
    assert!(ok.instances > 600);
    assert_eq!(ok.failures, 0, "{:?}", ok.first_failure);
    let broken = counts(&bad, perm);
    assert!(
        broken.failures > 0,
        "a recurrence that is not symmetric must fail"
    );
    assert!(
        broken.first_failure.unwrap().1.contains("a=(2,1)"),
        "the first unsorted tuple fails first"
    );
    let unique = counts(&good, "mahjong.uniqueness.S136.t18.d4.a1-8");
    assert_eq!(unique.failures, 0, "{:?}", unique.first_failure);
    // With a_i = 0 allowed, every set holding a zero never wins: a collision.
    let zero = counts(&good, "mahjong.uniqueness.S136.t18.d2.a0-3");
    assert!(zero.first_failure.unwrap().1.contains("a=(0) and a=(0,0)"));
}

const IMPARTIAL_TOML: &str = r#"
[experiment]
name = "imp"
study = "impartial"
mode = "exhaustive"
seed = 3
[impartial]
birthday = 3
random_games = 500
random_depth = 5
max_heaps = 3
max_heap = 5
wythoff_max = 40
wythoff_float_k = 70000
fibonacci_max = 200
combinator_max_heap = 6
"#;

#[test]
fn claims_csv_is_identical_for_threads_and_shards_and_a_fault_shows_in_it() {
    let dir = scratch("claims-e2e");
    let cfg = dir.join("imp.toml");
    std::fs::write(&cfg, IMPARTIAL_TOML).unwrap();
    let one = dir.join("one");
    let o = run(&run_args(&cfg, &one, &["-j", "1"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = std::fs::read_to_string(one.join("claims.csv")).unwrap();
    assert!(csv.starts_with("suite,claim,instances,failures,first_failure"));
    assert!(csv.contains("grundy,grundy.sum_xor,"));
    // The summary is a result: stdout, not the diagnostics stream.
    let summary = String::from_utf8_lossy(&o.stdout);
    assert!(summary.contains("fail"), "{summary}");

    let two = dir.join("two");
    assert!(run(&run_args(&cfg, &two, &["-j", "2"])).status.success());
    assert_eq!(
        csv,
        std::fs::read_to_string(two.join("claims.csv")).unwrap()
    );

    let mut shard_dirs = Vec::new();
    for i in 0..3 {
        let d = dir.join(format!("shard{i}"));
        let idx = i.to_string();
        let o = run(&run_args(
            &cfg,
            &d,
            &["--shards", "3", "--shard-index", &idx],
        ));
        assert!(o.status.success(), "{}", stderr(&o));
        shard_dirs.push(d.display().to_string());
    }
    let merged = dir.join("merged");
    let mut args = vec!["merge".to_string()];
    args.extend(shard_dirs);
    args.extend(["--out".to_string(), merged.display().to_string()]);
    let o = run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        csv,
        std::fs::read_to_string(merged.join("claims.csv")).unwrap()
    );

    // A wrong claim is a finding: it shows in claims.csv, and the exit is 0.
    let faulty = dir.join("faulty");
    let o = run(&run_args(&cfg, &faulty, &["--inject-fault"]));
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(faulty.join("claims.csv")).unwrap();
    let row = text
        .lines()
        .find(|l| l.contains("grundy.sum_plus"))
        .expect("injected claim row");
    assert!(row.contains(",fails,"), "{row}");
}

#[test]
fn claim_configs_refuse_bad_values_with_one_line() {
    let dir = scratch("claims-bad");
    let cases = [
        (
            IMPARTIAL_TOML.replace("birthday = 3", "birthday = 6"),
            "[impartial] birthday",
        ),
        (
            format!("{IMPARTIAL_TOML}[hands]\nsizes = [[2, 2]]\n"),
            "[hands]",
        ),
        (
            IMPARTIAL_TOML.replace("max_heap = 5", "max_heap = 5\nheaps = 2"),
            "heaps",
        ),
        (
            "[experiment]\nname = \"m\"\nstudy = \"mahjong\"\nmode = \"exhaustive\"\n[[mahjong.ranges]]\ntiles = [136]\nmax_replacements = 3\nhorizon = 140\npermutation_max_effective = 4\nuniqueness_max_effective = 4\n".to_string(),
            "[mahjong] ranges[0].horizon",
        ),
        // Every value from 0 to u32::MAX: 2^32 values, one past a u32,
        // which once wrapped to none and left the claim untested.
        (
            "[experiment]\nname = \"m\"\nstudy = \"mahjong\"\nmode = \"exhaustive\"\n[[mahjong.ranges]]\ntiles = [136]\nmax_replacements = 1\nhorizon = 18\nmin_effective = 0\npermutation_max_effective = 4294967295\nuniqueness_max_effective = 4\n".to_string(),
            "[mahjong] ranges[0].permutation_max_effective: too many ordered tuples",
        ),
    ];
    for (i, (text, key)) in cases.iter().enumerate() {
        let cfg = dir.join(format!("bad{i}.toml"));
        std::fs::write(&cfg, text).unwrap();
        let o = run(&run_args(&cfg, &dir.join("out"), &[]));
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(key), "expected {key} in {e}");
        assert_eq!(e.trim().lines().count(), 1, "{e}");
    }
    assert!(
        !dir.join("out").exists(),
        "no work before the config is good"
    );
}
