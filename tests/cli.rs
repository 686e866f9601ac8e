//! End-to-end tests of the `runner` binary.

mod common;

use common::{Running, run, run_args, runner, scratch, stderr};
use std::path::{Path, PathBuf};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let header = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap().iter().map(String::from).collect())
        .collect();
    (header, rows)
}

fn binomial(n: u128, k: u128) -> u128 {
    (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
}

#[test]
fn quick_config_writes_correct_stats() {
    let out = scratch("quick");
    let o = run(&[
        "--config",
        repo("configs/quick.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (header, rows) = read_csv(&out.join("stats.csv"));
    assert_eq!(
        header[..11],
        [
            "n_first",
            "n_second",
            "field",
            "deals",
            "first_wins",
            "first_win_rate",
            "exact_fraction",
            "ci95_low",
            "ci95_high",
            "agree",
            "disagree"
        ]
    );
    assert_eq!(rows.len(), 5);
    for row in &rows {
        let (a, b): (u128, u128) = (row[0].parse().unwrap(), row[1].parse().unwrap());
        let deals: u128 = row[3].parse().unwrap();
        assert_eq!(
            deals,
            binomial(52, a) * binomial(52 - a, b),
            "every physical deal is counted once"
        );
        assert_eq!(row[9], row[3], "all deals agree");
        assert_eq!(row[10], "0");
        assert_eq!(row[5], row[7]);
        assert_eq!(row[5], row[8]);
    }
    let two = rows.iter().find(|r| r[0] == "2" && r[1] == "2").unwrap();
    assert_eq!(two[6], "661/1225");
    assert_eq!(two[5], "0.539591837");
    let one = rows.iter().find(|r| r[0] == "1" && r[1] == "1").unwrap();
    assert_eq!(one[6], "1/1", "with one card each the mover always wins");

    // The (mu0, mu1) table adds up to the deals, and mu0 > mu1 is exactly where the first player wins.
    let (_, mu_rows) = read_csv(&out.join("mu.csv"));
    for row in &rows {
        let cell: Vec<&Vec<String>> = mu_rows
            .iter()
            .filter(|m| m[0] == row[0] && m[1] == row[1])
            .collect();
        let total: u128 = cell.iter().map(|m| m[5].parse::<u128>().unwrap()).sum();
        assert_eq!(total.to_string(), row[3]);
        for m in cell {
            let (mu0, mu1): (u32, u32) = (m[3].parse().unwrap(), m[4].parse().unwrap());
            let expected_wins = if mu0 > mu1 { &m[5] } else { "0" };
            assert_eq!(m[6], expected_wins);
        }
    }
    let (_, dis) = read_csv(&out.join("disagreements.csv"));
    assert!(dis.is_empty());
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["check"], "passed");
    assert_eq!(manifest["config"]["experiment"]["name"], "quick");
    assert!(manifest["config_hash"].as_str().unwrap().len() == 16);
    // Provenance: the commit, the command line, and a readable start time.
    assert!(!manifest["git_commit"].as_str().unwrap().is_empty());
    assert!(manifest["command_line"].as_array().unwrap().len() > 1);
    let started = manifest["started"].as_str().unwrap();
    assert!(
        started.len() == 20 && started.ends_with('Z') && &started[10..11] == "T",
        "{started}"
    );
    let leftovers: Vec<_> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_wrong_formula_makes_the_run_fail_with_the_deals_written_out() {
    let out = scratch("fault");
    let o = run(&[
        "run",
        "--config",
        repo("configs/quick.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
        "--inject-fault",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let summary = String::from_utf8_lossy(&o.stdout);
    assert!(summary.contains("disagreed"), "{summary}");
    let (_, rows) = read_csv(&out.join("stats.csv"));
    assert!(
        rows.iter().any(|r| r[10] != "0"),
        "stats are still written and count the disagreements"
    );
    let (header, dis) = read_csv(&out.join("disagreements.csv"));
    assert!(!dis.is_empty());
    let mu0 = header.iter().position(|h| h == "mu0").unwrap();
    let mu1 = header.iter().position(|h| h == "mu1").unwrap();
    for d in &dis {
        assert_eq!(d[mu0], d[mu1], ">= and > differ only on ties");
    }
    // Each written deal really is a case where >= is wrong: replay it with `solve`.
    let d = &dis[0];
    let first = d[3].replace(' ', ",");
    let second = d[4].replace(' ', ",");
    let o = run(&[
        "solve", "--first", &first, "--second", &second, "--field", &d[2], "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["minimax_first_wins"], false);
    assert_eq!(v["mu0"], v["mu1"]);
}

#[test]
fn results_are_identical_for_any_thread_count() {
    let cfg_dir = scratch("threads-cfg");
    let cfg = cfg_dir.join("s.toml");
    std::fs::write(
        &cfg,
        "[experiment]\nname = \"s\"\nmode = \"sample\"\nseed = 7\ndeals = 40000\n[hands]\nsizes = [[5, 5], [6, 4]]\nfield = 3\n",
    )
    .unwrap();
    let mut outputs = Vec::new();
    for threads in ["1", "2", "3"] {
        let out = scratch(&format!("threads-{threads}"));
        let o = run(&run_args(&cfg, &out, &["-j", threads]));
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let files: Vec<Vec<u8>> = ["stats.csv", "mu.csv", "disagreements.csv"]
            .iter()
            .map(|f| std::fs::read(out.join(f)).unwrap())
            .collect();
        outputs.push(files);
    }
    assert_eq!(outputs[0], outputs[1]);
    assert_eq!(outputs[0], outputs[2]);
}

#[test]
fn sample_mode_gives_wilson_intervals_and_no_fraction() {
    let dir = scratch("sample");
    let cfg = dir.join("s.toml");
    std::fs::write(&cfg, "[experiment]\nname = \"s\"\nmode = \"sample\"\nseed = 1\ndeals = 20000\n[hands]\nsizes = [[2, 2]]\n").unwrap();
    let out = dir.join("out");
    let o = run(&run_args(&cfg, &out, &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (_, rows) = read_csv(&out.join("stats.csv"));
    let r = &rows[0];
    assert_eq!(r[3], "20000");
    assert_eq!(r[6], "", "no exact fraction when sampling");
    let (rate, lo, hi): (f64, f64, f64) = (
        r[5].parse().unwrap(),
        r[7].parse().unwrap(),
        r[8].parse().unwrap(),
    );
    assert!(lo < rate && rate < hi);
    assert!(hi - lo < 0.02);
    // The exact 2x2 rate is 661/1225; a 95% interval from 20000 deals should cover it.
    let exact = 661.0 / 1225.0;
    assert!(lo <= exact && exact <= hi, "[{lo}, {hi}] misses {exact}");
}

#[test]
fn bad_configs_fail_fast_with_one_line_naming_file_and_key() {
    let dir = scratch("bad");
    let cases = [
        (
            "big.toml",
            "[experiment]\nname = \"b\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[30, 30]]\n",
            "[hands] sizes[0]",
        ),
        (
            "ranks.toml",
            "[experiment]\nname = \"b\"\nmode = \"exhaustive\"\n[deck]\nranks = 0\ncopies = 4\n[hands]\nsizes = [[1, 1]]\n",
            "[deck] ranks",
        ),
        (
            "neg.toml",
            "[experiment]\nname = \"b\"\nmode = \"sample\"\nseed = -4\ndeals = 5\n[hands]\nsizes = [[1, 1]]\n",
            "seed",
        ),
        (
            "mode.toml",
            "[experiment]\nname = \"b\"\nmode = \"guess\"\n[hands]\nsizes = [[1, 1]]\n",
            "mode",
        ),
        (
            "key.toml",
            "[experiment]\nname = \"b\"\nmode = \"exhaustive\"\nspeed = 3\n[hands]\nsizes = [[1, 1]]\n",
            "speed",
        ),
    ];
    for (file, text, key) in cases {
        let cfg = dir.join(file);
        std::fs::write(&cfg, text).unwrap();
        let out = dir.join(format!("out-{file}"));
        let o = run(&[
            "--config",
            cfg.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(2), "{file}");
        let err = stderr(&o);
        assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
        assert!(err.contains(file) && err.contains(key), "{file}: {err}");
        assert!(!out.exists(), "no work started for {file}");
    }
    let o = run(&["--config", dir.join("missing.toml").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("missing.toml"));
}

#[test]
fn help_version_and_bad_flags() {
    let o = run(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let help = String::from_utf8_lossy(&o.stdout);
    for word in [
        "--config",
        "--threads",
        "--out",
        "solve",
        "run",
        "Exit codes",
    ] {
        assert!(help.contains(word), "help mentions {word}");
    }
    let o = run(&["--version"]);
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("runner "));
    assert_eq!(
        run(&["--config", "x.toml", "--threads", "0"]).status.code(),
        Some(2)
    );
    assert_eq!(run(&["--bogus"]).status.code(), Some(2));
    assert_eq!(run::<&str>(&[]).status.code(), Some(2));
}

#[test]
fn solve_prints_both_verdicts_and_the_winning_moves() {
    let o = run(&["solve", "--first", "1,1,3,4", "--second", "1,2,3,5"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("mu0 = 3, mu1 = 2"), "{text}");
    assert!(text.contains("minimax:  the player to move wins"), "{text}");
    let o = run(&[
        "solve", "--first", "1,1,3,4", "--second", "1,2,3,5", "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["mu0"], 3);
    assert_eq!(v["mu1"], 2);
    let moves: Vec<String> = v["winning_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert!(!moves.is_empty());
    // Every listed move must really win: after it, the opponent must lose.
    for m in &moves {
        let card: u32 = m.parse().unwrap();
        let mut rest = vec![1, 1, 3, 4];
        rest.remove(rest.iter().position(|&c| c == card).unwrap());
        let rest: Vec<String> = rest.iter().map(|c| c.to_string()).collect();
        let o = run(&[
            "solve",
            "--first",
            "1,2,3,5",
            "--second",
            &rest.join(","),
            "--field",
            m,
            "--json",
        ]);
        let after: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(after["minimax_first_wins"], false, "after playing {m}");
    }
    // With a field the pass is a move: here it is the only winning one
    // (the opponent must then lead a 1, and the 2 goes out on it).
    let o = run(&[
        "solve", "--first", "2", "--second", "1,1", "--field", "3", "--json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["winning_moves"], serde_json::json!(["pass"]));
    assert_eq!(
        run(&["solve", "--first", "0,1", "--second", "1"])
            .status
            .code(),
        Some(2)
    );
    // A hand copied from a results table, quoted: refused, saying how to
    // write it. Unquoted, or with commas, it is the same position.
    let o = run(&[
        "solve", "--first", "9 10", "--second", "11,11", "--back", "9",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("write a hand as 9,10 or as 9 10"),
        "{}",
        stderr(&o)
    );
    let spaced = run(&[
        "solve", "--first", "9", "10", "--second", "11", "11", "--back", "9",
    ]);
    let commas = run(&[
        "solve", "--first", "9,10", "--second", "11,11", "--back", "9",
    ]);
    assert_eq!(spaced.status.code(), Some(0), "{}", stderr(&spaced));
    assert_eq!(spaced.stdout, commas.stdout);
}

/// `--score` adds the card-count value, proved by search beside C1's, and
/// checked by the scored game's plain recursion on small positions.
#[test]
fn solve_gives_the_card_count_value_beside_c1() {
    // X must pass on the 3; Y leads a 1, and X's 2 goes out on it with Y
    // holding the other 1.
    let v = solve_json(&["--first", "2", "--second", "1,1", "--field", "3", "--score"]);
    assert_eq!(v["card_count"]["value"], 1);
    assert_eq!(v["card_count"]["c1"], 1);
    assert_eq!(v["card_count"]["twin"], 1);
    assert_eq!(v["card_count"]["proved_by"], "c1-window");
    // X's one card goes out at once, and Y holds both of theirs.
    let v = solve_json(&["--first", "1", "--second", "5,6", "--score"]);
    assert_eq!(v["card_count"]["value"], 2);
    // A loser's value is negative: whichever card X leads, Y's 6 goes out
    // on it, with X holding the other.
    let v = solve_json(&["--first", "1,2", "--second", "6", "--score"]);
    assert_eq!(v["card_count"]["value"], -1);
    assert_eq!(v["card_count"]["value"], v["card_count"]["twin"]);
    let o = run(&[
        "solve", "--first", "1,1,3,4", "--second", "1,2,3,5", "--score",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("card count: +1 by search"), "{text}");
    assert!(text.contains("C1 gives +1: agree"), "{text}");
    // The card-count game is the plain game's: no rule flags with it.
    let o = run(&[
        "solve", "--first", "1", "--second", "2", "--score", "--cut", "6",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(v.get("variant").is_none());
}

#[test]
fn solve_shows_a_line_of_best_play() {
    // X = {2, 5} against {1, 3}: X leads 2 (5 wins as quickly, later in
    // order), Y's best is the 3 (the pass would do as well, and comes
    // after), and X's 5 goes out on it.
    let v = solve_json(&["--first", "2,5", "--second", "1,3", "--line"]);
    let moves = v["line"]["moves"].as_array().unwrap();
    let shown: Vec<(&str, &str)> = moves
        .iter()
        .map(|m| (m["player"].as_str().unwrap(), m["move"].as_str().unwrap()))
        .collect();
    assert_eq!(shown, [("first", "2"), ("second", "3"), ("first", "5")]);
    assert_eq!(moves[2]["effect"], "wins");
    assert_eq!(v["line"]["first_wins"], true);
    // Under both rules: the cut card moves again, the back card reverses,
    // and the line's winner is minimax's.
    let v = solve_json(&[
        "--first", "2,6,9", "--second", "1,3,7,9", "--cut", "6", "--back", "9", "--line",
    ]);
    let moves = v["line"]["moves"].as_array().unwrap();
    let last = moves.last().unwrap();
    assert_eq!(last["effect"], "wins");
    let winner = if v["minimax_first_wins"] == true {
        "first"
    } else {
        "second"
    };
    assert_eq!(last["player"], winner);
    assert!(moves.iter().any(|m| m["effect"] == "cut"), "{moves:?}");
    let o = run(&[
        "solve", "--first", "1,1,3,4", "--second", "1,2,3,5", "--line",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("the first player wins"), "{text}");
    assert!(text.contains("the last card, and wins"), "{text}");
    // The whole game tree is searched, so big positions are refused in
    // one line, and the card-count game has lines of its own.
    let seventeen = "1,2,3,4,5,6,7,8,9";
    let o = run(&[
        "solve",
        "--first",
        seventeen,
        "--second",
        "1,2,3,4,5,6,7,8",
        "--line",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("at most 16"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1);
    let o = run(&[
        "solve", "--first", "1", "--second", "2", "--line", "--score",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn solve_batch_solves_a_file_of_positions_as_solve_does_each() {
    let dir = scratch("batch");
    let file = dir.join("positions.csv");
    std::fs::write(
        &file,
        "first,second,field\n1 1 3 4,1 2 3 5,0\n2 5,1 3,\n1 2,6,0\n\"1,3,5\",\"2,4\",4\n",
    )
    .unwrap();
    let path = file.display().to_string();
    let o = run(&["solve", "--batch", &path, "--score"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stderr(&o).contains("4 positions"), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "first,second,field,minimax_first_wins,formula_first_wins,mu0,mu1,proof_move,card_count,c1,check,winning_moves,recorded"
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4);
    // Each row is what `runner solve` says of that position alone.
    for (row, (first, second, field)) in rows.iter().zip([
        ("1,1,3,4", "1,2,3,5", "0"),
        ("2,5", "1,3", "0"),
        ("1,2", "6", "0"),
        ("1,3,5", "2,4", "4"),
    ]) {
        let alone = solve_json(&[
            "--first", first, "--second", second, "--field", field, "--score",
        ]);
        assert_eq!(row[0], first.replace(',', " "));
        assert_eq!(row[3], alone["minimax_first_wins"].to_string());
        assert_eq!(row[5], alone["mu0"].to_string());
        let proof = alone
            .get("proof_move")
            .map_or(String::new(), |m| m.as_str().unwrap().into());
        assert_eq!(row[7], proof);
        assert_eq!(row[8], alone["card_count"]["value"].to_string());
        assert_eq!(row[10], "passed");
        let moves: Vec<String> = alone["winning_moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m.as_str().unwrap().to_string())
            .collect();
        assert_eq!(row[11], moves.join(" "));
        if !proof.is_empty() {
            assert!(moves.contains(&proof), "the proof's move wins: {row:?}");
        }
    }
    assert_eq!(rows[2][8], "-1", "Y's 6 goes out on either lead");
    assert_eq!(rows[0][7], "1", "the proof plays the weakest card here");
    // --out writes the same table; one thread or two, the same bytes.
    let out1 = dir.join("one.csv");
    let out2 = dir.join("two.csv");
    for (out, j) in [(&out1, "1"), (&out2, "2")] {
        let o = run(&[
            "solve",
            "--batch",
            &path,
            "--score",
            "--out",
            &out.display().to_string(),
            "-j",
            j,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(o.stdout.is_empty());
    }
    assert_eq!(std::fs::read(&out1).unwrap(), text.as_bytes());
    assert_eq!(std::fs::read(&out2).unwrap(), text.as_bytes());
    // The table read back as a batch file is a regression check: every
    // verdict it records is solved again and agrees. With one card count
    // changed, and the hands named as the plain study's
    // `disagreements.csv` names them, the row is caught by its line.
    let o = run(&["solve", "--batch", &out1.display().to_string(), "--score"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the recorded minimax_first_wins, formula_first_wins, mu0, mu1, proof_move, card_count, c1, winning_moves agree on all 4 rows"),
        "{}",
        stderr(&o)
    );
    let changed = text
        .replacen("first,second,", "first_hand,second_hand,", 1)
        .replacen(",-1,", ",-2,", 1);
    std::fs::write(&out1, &changed).unwrap();
    let o = run(&["solve", "--batch", &out1.display().to_string(), "--score"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("what is solved DIFFERS from what is recorded on 1 of 4 rows (line 4: card_count recorded `-2`, solved `-1`)"),
        "{}",
        stderr(&o)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains(",differs: card_count\n"));
    // Without --score the card count is not solved, so not compared, and
    // the summary says so; nor, with --verdicts-only, are the winning
    // moves, whose cells are left blank.
    let o = run(&[
        "solve",
        "--batch",
        &out1.display().to_string(),
        "--verdicts-only",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not compared: card_count (solved with --score), c1 (solved with --score), winning_moves (solved without --verdicts-only)"),
        "{}",
        stderr(&o)
    );
    let verdicts_only = String::from_utf8(o.stdout).unwrap();
    assert_eq!(verdicts_only.lines().count(), 5);
    for (line, full) in verdicts_only.lines().zip(text.lines()).skip(1) {
        // The same row up to the card count, which is not asked for, and
        // the winning moves, which are blank.
        let cells: Vec<&str> = line.split(',').collect();
        let full: Vec<&str> = full.split(',').collect();
        assert_eq!(cells[..8], full[..8], "{line}");
        assert_eq!(cells[8..], ["passed", "", "agrees"], "{line}");
    }
    // One position too: the verdict, and no moves.
    for (first, second, rules) in [
        ("1,1,3,4", "1,2,3,5", &[][..]),
        ("1,3,5,7,9,11", "2,4,6,8,10,12", &["--back", "9"]),
        ("2,5,6,9", "1,3,4,6,8", &["--cut", "6"]),
    ] {
        let mut args = vec!["--first", first, "--second", second];
        args.extend_from_slice(rules);
        let full = solve_json(&args);
        args.push("--verdicts-only");
        let alone = solve_json(&args);
        assert_eq!(alone["minimax_first_wins"], full["minimax_first_wins"]);
        assert!(full.get("winning_moves").is_some());
        assert!(alone.get("winning_moves").is_none(), "{alone}");
    }
    let o = run(&[
        "solve",
        "--first",
        "1,1,3,4",
        "--second",
        "1,2,3,5",
        "--verdicts-only",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("winning moves: not solved (--verdicts-only)")
    );
    let o = run(&["solve", "--first", "1", "--second", "2", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    // Under a variant: the rules' columns, and the twin's check.
    let o = run(&["solve", "--batch", &path, "--back", "4"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("first,second,field,reversed,minimax_first_wins,mu_test_first_wins"));
    assert!(stderr(&o).contains("11-back rules"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the variant's plain recursion agrees with minimax on all 4 it checked (positions of up to 18 cards"),
        "{}",
        stderr(&o)
    );
    let o = run(&[
        "solve",
        "--batch",
        &path,
        "--back",
        "4",
        "--check-positions",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the variant's plain recursion checked none (it checks positions it settles within 1 position)"),
        "{}",
        stderr(&o)
    );
    // A bad row is refused in one line naming the file, the line and the
    // column, before any work; so are a missing file and mixed flags.
    std::fs::write(&file, "first,second\n1 2,3\n1 0,3\n").unwrap();
    let o = run(&["solve", "--batch", &path]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("{path}: line 3: column second"))
            || stderr(&o).contains(&format!("{path}: line 3: column first")),
        "{}",
        stderr(&o)
    );
    assert!(o.stdout.is_empty());
    let o = run(&[
        "solve",
        "--batch",
        &dir.join("none.csv").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    let o = run(&["solve", "--batch", &path, "--first", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["solve", "--batch", &path, "--out", "/proc/no/such/t.csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: --out: cannot create"),
        "{}",
        stderr(&o)
    );
    let o = run(&["solve", "--first", "1", "--second", "2", "--out", "x.csv"]);
    assert_eq!(o.status.code(), Some(2));
}

/// The tables a run writes under a deliberately broken claim, read back
/// by `runner solve --batch`: the plain study's `disagreements.csv` (its
/// hands in `first_hand` and `second_hand`) and the card-count study's
/// `c1_failures.csv`. What the solvers found (minimax, the card count)
/// agrees on every row; what the broken claim said (the formula's
/// verdict, C1's value) differs on every row, and the batch exits 1.
/// A batch writing its table to a file journals each row as it finishes:
/// stopped, it keeps them (and no table), and `--resume` solves only the
/// rest, into the table an unstopped batch writes, byte for byte. The
/// checkpoint is refused when edited, when it belongs to another batch, or
/// when a rerun would start over it without `--resume`.
#[test]
fn solve_batch_resumes_from_the_rows_it_finished() {
    let dir = scratch("batch-resume");
    let file = dir.join("positions.csv");
    let mut text = String::from("first,second,field\n");
    for k in 0..12u32 {
        text += &format!(
            "1 {} {} 9,2 {} 8 10,{}\n",
            2 + k % 5,
            3 + k % 4,
            4 + k % 3,
            k % 2
        );
    }
    std::fs::write(&file, &text).unwrap();
    let batch = file.display().to_string();
    let whole = dir.join("whole.csv").display().to_string();
    let o = run(&["solve", "--batch", &batch, "--score", "--out", &whole, "-q"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        !Path::new(&format!("{whole}.checkpoint.jsonl")).exists(),
        "a finished batch leaves no checkpoint"
    );
    let out = dir.join("table.csv").display().to_string();
    let checkpoint = format!("{out}.checkpoint.jsonl");
    let stopped = |extra: &[&str]| {
        let mut a = vec![
            "solve", "--batch", &batch, "--score", "--out", &out, "-q", "-j", "1",
        ];
        a.extend_from_slice(extra);
        run(&a)
    };
    let o = stopped(&["--stop-after-rows", "5"]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("5 of 12 rows are in"), "{}", stderr(&o));
    assert!(!Path::new(&out).exists(), "a stopped batch writes no table");
    let journal = std::fs::read_to_string(&checkpoint).unwrap();
    assert_eq!(journal.lines().count(), 1 + 5, "{journal}");
    // Without --resume a rerun refuses to start over the rows kept.
    let o = stopped(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("add --resume"), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    // Another batch's checkpoint (another flag) is refused, naming it.
    let o = run(&["solve", "--batch", &batch, "--out", &out, "--resume", "-q"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "belongs to another batch (it was started with --score where this batch has no --score)"
        ),
        "{}",
        stderr(&o)
    );
    // An edited record is refused, naming the file.
    let edited = journal.replacen(
        "\"minimax_first_wins\":true",
        "\"minimax_first_wins\":false",
        1,
    );
    let edited = if edited == journal {
        journal.replacen(
            "\"minimax_first_wins\":false",
            "\"minimax_first_wins\":true",
            1,
        )
    } else {
        edited
    };
    std::fs::write(&checkpoint, &edited).unwrap();
    let o = stopped(&["--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains(&checkpoint), "{}", stderr(&o));
    std::fs::write(&checkpoint, &journal).unwrap();
    // Resumed on two threads, the rest is solved and the table is the
    // unstopped batch's.
    let o = run(&[
        "solve", "--batch", &batch, "--score", "--out", &out, "--resume", "-q", "-j", "2",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("12 positions in")
            && stderr(&o).contains("(5 read back from the checkpoint)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    assert!(!Path::new(&checkpoint).exists());
    // With no checkpoint left, --resume says it starts from the beginning.
    let o = stopped(&["--resume"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no checkpoint here") && stderr(&o).contains(&checkpoint),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    // A stop once the last row is in stops nothing: the table is written.
    std::fs::remove_file(&out).unwrap();
    let o = stopped(&["--stop-after-rows", "12"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    assert!(!Path::new(&checkpoint).exists());
    // --resume needs a table file to keep a checkpoint beside.
    let o = run(&["solve", "--batch", &batch, "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("only with --out"), "{}", stderr(&o));
    let o = run(&["solve", "--first", "1", "--second", "2", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("only with --batch"), "{}", stderr(&o));
}

/// `--keep-memo`: a batch stopped with a row under way writes its tables
/// beside the checkpoint, and `--resume` reads them back and carries the
/// row on, to the table an unstopped batch writes; then the tables are
/// removed. A damaged memo is refused in one line naming it, and the flag
/// is refused where there is nothing to keep.
#[test]
fn solve_batch_keeps_its_tables_over_a_stop() {
    let dir = scratch("batch-keep-memo");
    let file = dir.join("positions.csv");
    // Small rows, and last one of about a second under both rules, which
    // starts first since it has the most cards: the first small row in the
    // checkpoint stops the batch (--stop-after-rows) with it under way.
    std::fs::write(
        &file,
        "first,second,field\n\
         1 2 5,3 4,0\n2 2 6,1 7,0\n1 3,2 4 5,0\n3 6,1 2,0\n\
         1 3 3 3 4 4 5 5 5 6 6 7 8 8 9 10 10 11 12 12 13,1 1 2 2 4 4 5 7 7 8 8 9 9 10 11 11 12 12 13 13 13,0\n",
    )
    .unwrap();
    let batch = file.display().to_string();
    let rules = ["--cut", "6", "--back", "9", "--verdicts-only"];
    let with = |out: &str, extra: &[&str]| {
        let mut a = vec!["solve", "--batch", &batch, "--out", out];
        a.extend_from_slice(&rules);
        a.extend_from_slice(extra);
        run(&a)
    };
    let whole = dir.join("whole.csv").display().to_string();
    let o = with(&whole, &["-q", "-j", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let out = dir.join("table.csv").display().to_string();
    let memo = format!("{out}.memo.bin");
    let o = with(&out, &["-j", "2", "--keep-memo", "--stop-after-rows", "1"]);
    assert_eq!(o.status.code(), Some(4), "{}", stderr(&o));
    assert!(stderr(&o).contains("1 of 5 rows are in"), "{}", stderr(&o));
    assert!(stderr(&o).contains("kept the memo in"), "{}", stderr(&o));
    let kept = std::fs::read(&memo).unwrap();

    let mut flipped = kept.clone();
    let middle = kept.len() / 2;
    flipped[middle] ^= 1;
    std::fs::write(&memo, &flipped).unwrap();
    let o = with(&out, &["-q", "--resume"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&memo) && stderr(&o).contains("delete it"),
        "{}",
        stderr(&o)
    );

    std::fs::write(&memo, &kept).unwrap();
    let o = with(&out, &["--resume", "-j", "2"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let read = stderr(&o);
    let verdicts: u64 = read
        .split("read the kept memo back from ")
        .nth(1)
        .and_then(|rest| rest.split(", ").nth(1))
        .and_then(|n| n.strip_suffix(" verdicts"))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{read}"));
    assert!(verdicts > 1000, "{read}");
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&whole).unwrap());
    assert!(
        !Path::new(&memo).exists(),
        "a finished batch removes its tables"
    );

    // Nothing to keep: no --out, plain rules, one position.
    let o = run(&["solve", "--batch", &batch, "--back", "9", "--keep-memo"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("only with --out"), "{}", stderr(&o));
    let o = run(&["solve", "--batch", &batch, "--out", &out, "--keep-memo"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("only with --cut or --back"),
        "{}",
        stderr(&o)
    );
    let o = run(&["solve", "--first", "1", "--second", "2", "--keep-memo"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("only with --batch"), "{}", stderr(&o));
}

/// Two batches given one `--out` would both append to its checkpoint: the
/// second is refused while the first writes it, with or without
/// `--resume`, and the first is left to finish.
#[test]
fn a_second_batch_on_one_checkpoint_is_refused() {
    let dir = scratch("batch-lock");
    let table =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("results/variant-cut-26/formula_failures.csv");
    let rows: Vec<String> = std::fs::read_to_string(table)
        .unwrap()
        .lines()
        .take(30)
        .map(String::from)
        .collect();
    let file = dir.join("slow.csv");
    std::fs::write(&file, rows.join("\n") + "\n").unwrap();
    let out = dir.join("table.csv").display().to_string();
    let checkpoint = format!("{out}.checkpoint.jsonl");
    let args = |resume: bool| {
        let mut a = vec![
            "solve".to_string(),
            "--batch".into(),
            file.display().to_string(),
            "--cut".into(),
            "6".into(),
            "--verdicts-only".into(),
            "--out".into(),
            out.clone(),
            "-q".into(),
            "-j".into(),
            "1".into(),
        ];
        if resume {
            a.push("--resume".into());
        }
        a
    };
    let _first = Running::start(
        runner()
            .args(args(false))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null()),
    );
    let started = std::time::Instant::now();
    // Once a row is in it, the first batch surely holds its lock.
    let rows_in =
        || std::fs::read_to_string(&checkpoint).map_or(0, |t| t.lines().count().saturating_sub(1));
    while rows_in() == 0 {
        assert!(started.elapsed().as_secs() < 60, "no row was checkpointed");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for resume in [true, false] {
        let o = run(&args(resume));
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("another process is writing this checkpoint"),
            "{}",
            stderr(&o)
        );
    }
    assert!(
        Path::new(&checkpoint).exists(),
        "the first batch's checkpoint is left alone"
    );
}

#[test]
fn solve_batch_catches_what_a_broken_claim_recorded() {
    let dir = scratch("batch-broken-claim");
    let score_config = dir.join("score.toml");
    std::fs::write(
        &score_config,
        "[experiment]\nname = \"s\"\nstudy = \"score\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[3, 3]]\n",
    )
    .unwrap();
    for (config, table, score, found, claimed) in [
        (
            repo("configs/quick.toml"),
            "disagreements.csv",
            None,
            "minimax_first_wins",
            "formula_first_wins",
        ),
        (
            score_config,
            "c1_failures.csv",
            Some("--score"),
            "score",
            "c1",
        ),
    ] {
        let out = dir.join(table);
        let o = run(&[
            "--config",
            config.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "-q",
            "--inject-fault",
        ]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let path = out.join(table).display().to_string();
        let rows = std::fs::read_to_string(&path).unwrap().lines().count() - 1;
        assert!(rows > 10, "{table}: {rows} rows");
        let mut args = vec!["solve", "--batch", &path];
        args.extend(score);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(1), "{table}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(&format!(
                "what is solved DIFFERS from what is recorded on {rows} of {rows} rows (line 2: {claimed} recorded"
            )),
            "{table}: {}",
            stderr(&o)
        );
        let solved = String::from_utf8(o.stdout).unwrap();
        let verdicts: Vec<&str> = solved
            .lines()
            .skip(1)
            .map(|l| l.rsplit(',').next().unwrap())
            .collect();
        assert_eq!(verdicts.len(), rows);
        for v in verdicts {
            assert!(
                v.starts_with("differs: ") && v.contains(claimed),
                "{table}: {v}"
            );
            assert!(!v.contains(found), "{table}: what was solved agrees: {v}");
        }
    }
}

/// `runner solve --json` on a position, parsed.
fn solve_json(args: &[&str]) -> serde_json::Value {
    let mut all = vec!["solve", "--json"];
    all.extend_from_slice(args);
    let o = run(&all);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// The variant's plain recursion checks positions of up to 18 cards (it
/// keeps a table of whole positions; without it 14 were the most), and a
/// larger position says the check was not run rather than leaving it out.
#[test]
fn solve_checks_variant_positions_of_18_cards_and_says_when_it_does_not() {
    let nine = |first: u32| {
        (0..9)
            .map(|k| (first + 2 * k).to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let (odd, even) = (nine(1), nine(2));
    for rules in [&["--back", "9"][..], &["--cut", "6", "--back", "9"]] {
        let mut args = vec!["--first", &odd, "--second", &even];
        args.extend_from_slice(rules);
        let v = solve_json(&args);
        assert_eq!(
            v["minimax_first_wins"], v["variant"]["twin_first_wins"],
            "{rules:?}"
        );
        assert!(v["variant"]["twin_first_wins"].is_boolean(), "{rules:?}");
    }
    let (ten, others) = ("1,2,3,4,5,6,7,8,9,10", "1,2,3,4,5,6,7,8,9,11");
    let v = solve_json(&["--first", ten, "--second", others, "--back", "9"]);
    assert_eq!(v["variant"]["twin_first_wins"], serde_json::Value::Null);
    let o = run(&["solve", "--first", ten, "--second", others, "--back", "9"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(
            "check:    not run: the variant's plain recursion checks positions of up to 18 cards"
        ),
        "{text}"
    );
    // --check-positions lifts the card limit and sets the table's size.
    let (low, high) = ("1,1,2,2,3,3,4,4,5,5", "6,6,7,7,8,8,9,9,10,10");
    let v = solve_json(&["--first", low, "--second", high, "--back", "9"]);
    assert_eq!(v["variant"]["twin_first_wins"], serde_json::Value::Null);
    let with_room = |n: &'static str| {
        [
            "--first",
            low,
            "--second",
            high,
            "--back",
            "9",
            "--check-positions",
            n,
        ]
    };
    let v = solve_json(&with_room("1000000"));
    assert!(v["variant"]["twin_first_wins"].is_boolean());
    assert_eq!(v["minimax_first_wins"], v["variant"]["twin_first_wins"]);
    let o = run(&[&["solve"][..], &with_room("10")].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("check:    not run: the variant's plain recursion checks positions it settles within 10 positions\n"),
        "{text}"
    );
    // Refused in one line: under the plain rules, 0, more than the memory.
    for (flags, says) in [
        (&["--check-positions", "5"][..], "only with --cut or --back"),
        (
            &["--back", "9", "--check-positions", "0"],
            "0 is not in 1..",
        ),
        (
            &["--back", "9", "--check-positions", "1000000000000"],
            "more than the",
        ),
        (
            &["--back", "9", "--check-positions", "18446744073709551615"],
            "more than any machine",
        ),
    ] {
        let mut args = vec!["solve", "--first", "1,2", "--second", "3"];
        args.extend_from_slice(flags);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{flags:?}");
        assert!(stderr(&o).contains(says), "{flags:?}: {}", stderr(&o));
    }
}

#[test]
fn solve_under_a_variant_decides_by_minimax_and_shows_the_mu_test_as_a_predictor() {
    // X = {2, 9}, Y = {5}, back = 9: plain, X leads the 9 and wins; under
    // 11-back the 9 reverses the order, Y's 5 goes out on it, and leading
    // the 2 loses to the 5 as well.
    let v = solve_json(&["--first", "2,9", "--second", "5", "--back", "9"]);
    assert_eq!(v["minimax_first_wins"], false);
    assert_eq!(v["formula_first_wins"], true);
    assert_eq!(v["winning_moves"], serde_json::json!([]));
    assert_eq!(v["variant"]["rules"], "11-back");
    assert_eq!(v["variant"]["plain_first_wins"], true);
    assert_eq!(v["variant"]["twin_first_wins"], false);
    // The μ test is wrong here, and that is no failure under a variant.
    let o = run(&["solve", "--first", "2,9", "--second", "5", "--back", "9"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("the rules change the winner: yes"), "{text}");
    assert!(text.contains("not a claim): wrong"), "{text}");
    // 8-cut: X = {1, 1, cut 4} against Y = {1, 2}. Leading a 1 wins (the
    // cut then answers Y's 2 and X leads the last 1); cutting first loses.
    let v = solve_json(&["--first", "1,1,4", "--second", "1,2", "--cut", "4"]);
    assert_eq!(v["winning_moves"], serde_json::json!(["1"]));
    // The 8-cut guess that orders the search is shown, and it is only a
    // guess: here, one of its smallest misses, it is wrong.
    let v = solve_json(&["--first", "4,6,8", "--second", "5,7", "--cut", "5"]);
    assert_eq!(v["minimax_first_wins"], true);
    assert_eq!(v["variant"]["cut_guess_first_wins"], false);
    assert_eq!(v["winning_moves"], serde_json::json!(["6"]));
    // Every listed move wins, and every other move loses: replayed one
    // move deeper with the opponent to move (after a cut, X moves again).
    let v = solve_json(&["--first", "1,3,9,9", "--second", "2,4,5", "--back", "9"]);
    let listed: Vec<String> = v["winning_moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    for (card, rest) in [("1", "3,9,9"), ("3", "1,9,9"), ("9", "1,3,9")] {
        let mut after = vec!["--first", "2,4,5", "--second", rest, "--field", card];
        after.extend(["--back", "9"]);
        if card == "9" {
            after.push("--reversed");
        }
        let reply = solve_json(&after);
        let wins = reply["minimax_first_wins"] == false;
        assert_eq!(listed.contains(&card.to_string()), wins, "after {card}");
    }
    // A reversed trick: X faces a 7 played after a back card.
    let v = solve_json(&[
        "--first",
        "3,8",
        "--second",
        "2,6",
        "--field",
        "7",
        "--back",
        "9",
        "--reversed",
    ]);
    assert_eq!(v["variant"]["reversed"], true);
    assert_eq!(v["variant"]["plain_first_wins"], serde_json::Value::Null);
    assert_eq!(v["minimax_first_wins"], v["variant"]["twin_first_wins"]);
    for bad in [
        &["--cut", "0"][..],
        &["--back", "65"],
        &["--cut", "6", "--back", "6"],
        &["--reversed", "--field", "3"],
        &["--back", "9", "--reversed"],
        // No game reaches these: the order turns at the back card and only
        // goes down, and a cut card ends the reversal.
        &["--back", "9", "--reversed", "--field", "10"],
        &["--back", "9", "--cut", "6", "--reversed", "--field", "6"],
    ] {
        let mut args = vec!["solve", "--first", "1,2", "--second", "3"];
        args.extend_from_slice(bad);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        let err = stderr(&o);
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(err.starts_with("error: --"), "{err}");
    }
}

#[test]
fn plan_shows_cells_memory_time_and_a_cluster_recipe_without_writing() {
    let o = run(&[
        "plan",
        "--config",
        repo("configs/quick.toml").to_str().unwrap(),
        "--calibrate-secs",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    // 775 canonical roots of 4 cards each at field 0 (2,469 rank
    // patterns), counted independently in issue 18; the plan reads them
    // from the study's own enumeration.
    assert!(out.contains("4x4 field 0") && out.contains("775"), "{out}");
    assert!(out.contains("total") && out.contains("1,182"), "{out}");
    for word in [
        "memory: about",
        "time: about",
        "cluster: runner slurm --config",
        "add --merge-recheck N to have the merge job solve N chunks again",
    ] {
        assert!(out.contains(word), "`{word}` in {out}");
    }
    // What the estimate rests on: how alike the timed chunks were.
    let time_line = out.lines().find(|l| l.starts_with("time: about")).unwrap();
    assert!(
        time_line.contains("typically and") && time_line.contains("at the slowest"),
        "{time_line}"
    );
    // An exhaustive run's sample is representative; a sampled run's is
    // timed on a fresh memo, which the plan says under its estimate
    // unless the sample ran every chunk (as a sample of 20,000 7x7 deals
    // does).
    assert!(!out.contains("fresh memo"), "{out}");
    let sampled_dir = scratch("plan-sampled");
    let sampled = sampled_dir.join("sampled.toml");
    std::fs::write(
        &sampled,
        "[experiment]\nname = \"s\"\nmode = \"sample\"\ndeals = 1000000\n[hands]\nsizes = [[10, 10]]\n",
    )
    .unwrap();
    let o = run(&[
        "plan",
        "--config",
        sampled.to_str().unwrap(),
        "--calibrate-secs",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let lines: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(String::from)
        .collect();
    let time = lines
        .iter()
        .position(|l| l.starts_with("time: about"))
        .unwrap();
    assert!(!lines[time].contains("timed 245 of 245"), "{lines:?}");
    assert!(
        lines[time + 1].starts_with("note: timed on a fresh memo"),
        "{lines:?}"
    );
    std::fs::write(
        &sampled,
        "[experiment]\nname = \"s\"\nmode = \"sample\"\ndeals = 20000\n[hands]\nsizes = [[7, 7]]\n",
    )
    .unwrap();
    let o = run(&["plan", "--config", sampled.to_str().unwrap()]);
    let whole = String::from_utf8_lossy(&o.stdout);
    assert!(whole.contains("timed 5 of 5 chunks"), "{whole}");
    assert!(!whole.contains("fresh memo"), "{whole}");
    // The recipe is a command `runner slurm` takes as printed, while a
    // --time, --mem or --cpus sbatch would reject is refused in one line.
    let recipe = out
        .lines()
        .find_map(|l| l.strip_prefix("cluster: runner "))
        .unwrap();
    let scripts = scratch("plan-recipe");
    let mut args: Vec<&str> = recipe.split(' ').collect();
    args.extend(["--dir", scripts.to_str().unwrap()]);
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{recipe}: {}", stderr(&o));
    assert!(scripts.join("array.sbatch").exists());
    for (flag, bad) in [("--time", "4h"), ("--mem", "8GB"), ("--cpus", "0")] {
        let mut args = args.clone();
        let at = args.iter().position(|a| *a == flag).unwrap();
        args[at + 1] = bad;
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{flag} {bad}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(flag) && err.contains(bad), "{err}");
    }
    // A bad config is refused the same way as by a run.
    let dir = scratch("plan-bad");
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[experiment]\nname = \"x\"\nmode = \"sideways\"\n").unwrap();
    let o = run(&["plan", "--config", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("bad.toml"), "{}", stderr(&o));
}

#[test]
fn completions_and_man_page_are_generated() {
    for shell in ["bash", "zsh", "fish"] {
        let o = run(&["completions", shell]);
        assert_eq!(o.status.code(), Some(0), "{shell}: {}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(text.contains("runner") && text.contains("plan"), "{shell}");
    }
    let o = run(&["completions", "tcsh"]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
    let o = run(&["man"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = String::from_utf8_lossy(&o.stdout);
    assert!(page.starts_with(".ie") || page.contains(".TH"), "roff");
    assert!(
        page.contains("runner") && page.contains("\\-\\-config"),
        "{page}"
    );
}

#[test]
fn json_prints_one_object_a_script_can_read() {
    let dir = scratch("json");
    for (extra, check, status) in [(None, "passed", 0), (Some("--inject-fault"), "failed", 1)] {
        let out = dir.join(check);
        let mut args = vec![
            "--config",
            concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.toml"),
            "--out",
            out.to_str().unwrap(),
            "-q",
            "--json",
        ];
        args.extend(extra);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(status), "{}", stderr(&o));
        let text = String::from_utf8_lossy(&o.stdout);
        assert_eq!(text.trim().lines().count(), 1, "one line: {text}");
        let v: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
        assert_eq!(v["check"], check);
        assert_eq!(v["study"], "tanhinmin");
        assert_eq!(v["out_dir"], out.to_str().unwrap());
        let outputs: Vec<&str> = v["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap())
            .collect();
        for f in &outputs {
            assert!(out.join(f).exists(), "{f} listed and written");
        }
        assert!(outputs.contains(&"stats.csv") && outputs.contains(&"manifest.json"));
        assert!(v["summary"].as_array().unwrap().len() >= 5);
    }
}

#[test]
fn diff_holds_exact_tables_equal_and_sampled_rates_to_a_test() {
    let dir = scratch("diff");
    let diff = |a: &Path, b: &Path| run(&["diff", a.to_str().unwrap(), b.to_str().unwrap()]);
    let stdout = |o: &std::process::Output| String::from_utf8_lossy(&o.stdout).into_owned();
    // Exact: a rerun of quick matches the committed tables ...
    let quick = dir.join("quick");
    assert!(
        run(&[
            "--config",
            repo("configs/quick.toml").to_str().unwrap(),
            "--out",
            quick.to_str().unwrap(),
            "-q"
        ])
        .status
        .success()
    );
    let o = diff(&repo("results/quick"), &quick);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
    // ... and one changed count (as a wrong run would write it, its hash
    // recorded) is caught, naming the line.
    let text = std::fs::read_to_string(quick.join("stats.csv")).unwrap();
    common::write_as_if_run(&quick, "stats.csv", &text.replacen("876486", "876487", 1));
    let o = diff(&repo("results/quick"), &quick);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("stats.csv: differs at line 3"),
        "{}",
        stdout(&o)
    );
    // Sampled with another seed: compared by a two-proportion test.
    let body = |seed: u32| {
        format!(
            "[experiment]\nname = \"d\"\nmode = \"sample\"\nseed = {seed}\ndeals = 3000\n[hands]\nsizes = [[5, 5], [3, 4]]\n"
        )
    };
    let (s1, s2) = (dir.join("s1"), dir.join("s2"));
    for (seed, out) in [(1, &s1), (2, &s2)] {
        let cfg = dir.join(format!("s{seed}.toml"));
        std::fs::write(&cfg, body(seed)).unwrap();
        assert!(run(&run_args(&cfg, out, &[])).status.success());
    }
    let o = diff(&s1, &s2);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("5x5 field 0") && stdout(&o).contains("two-proportion p ="),
        "{}",
        stdout(&o)
    );
    // A rate far off (first-player wins cut to a tenth) is caught.
    let stats = s2.join("stats.csv");
    let mut rows: Vec<Vec<String>> = std::fs::read_to_string(&stats)
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(String::from).collect())
        .collect();
    let wins: u64 = rows[1][4].parse().unwrap();
    rows[1][4] = (wins / 10).to_string();
    let edited: Vec<String> = rows.iter().map(|r| r.join(",")).collect();
    common::write_as_if_run(&s2, "stats.csv", &(edited.join("\n") + "\n"));
    let o = diff(&s1, &s2);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(stdout(&o).contains("INCONSISTENT"), "{}", stdout(&o));
    // Not a results directory: a usage error.
    let o = diff(&dir.join("nothing"), &s1);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// The plan's cluster line is a command that runs as printed, from a
/// config in a directory whose name a shell would split or run.
#[cfg(unix)]
#[test]
fn the_plans_cluster_line_runs_as_printed_from_an_odd_directory() {
    let dir = scratch("plan-odd");
    let odd = dir.join("odd dir; touch PWNED & (x)");
    std::fs::create_dir_all(&odd).unwrap();
    let config = odd.join("quick.toml");
    std::fs::copy(repo("configs/quick.toml"), &config).unwrap();
    let o = run(&[
        "plan",
        "--config",
        config.to_str().unwrap(),
        "--calibrate-secs",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let said = String::from_utf8(o.stdout).unwrap();
    let line = said
        .lines()
        .find_map(|l| l.strip_prefix("cluster: "))
        .unwrap_or_else(|| panic!("{said}"));
    let pasted = std::process::Command::new("bash")
        .args(["-c", &format!("runner() {{ \"$RUNNER\" \"$@\"; }}; {line}")])
        .env("RUNNER", env!("CARGO_BIN_EXE_runner"))
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(pasted.status.success(), "{line}: {}", stderr(&pasted));
    let written = String::from_utf8(pasted.stdout).unwrap();
    assert!(written.contains("submit with: bash"), "{written}");
    assert!(
        dir.join("scripts/slurm/quick/submit.sh").is_file(),
        "{written}"
    );
    assert!(!dir.join("PWNED").exists() && !odd.join("PWNED").exists());
}

#[test]
fn dry_run_prints_the_plan_and_runs_nothing() {
    let dir = scratch("dry-run");
    let out = dir.join("out");
    let o = run(&[
        "--config",
        repo("configs/quick.toml").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--dry-run",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("memory: about") && text.contains("cluster: runner slurm"),
        "{text}"
    );
    assert!(!out.exists(), "a dry run writes nothing");
}

/// Writes a config of every 12x12 deal (67.7 billion rank patterns, many
/// hours on any machine this project runs on) and starts it into `out`
/// with a progress line a second, stderr piped.
fn start_every_12x12_deal(dir: &Path, out: &Path) -> Running {
    let cfg = dir.join("d12.toml");
    std::fs::write(&cfg, D12).unwrap();
    Running::start(
        runner()
            .args(["--config", cfg.to_str().unwrap(), "--out"])
            .arg(out)
            .args(["--progress-secs", "1"])
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null()),
    )
}

const D12: &str = "[experiment]\nname = \"d12\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[12, 12]]\n[solver]\nmemo_mb = 64\n";

#[test]
fn a_run_over_an_hour_says_so_in_one_line_before_it_starts() {
    use std::io::BufRead;
    let dir = scratch("long-run");
    let mut child = start_every_12x12_deal(&dir, &dir.join("out"));
    let reader = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut seen = Vec::new();
    for line in reader.lines() {
        let line = line.unwrap();
        let done = line.starts_with("progress:") || line.starts_with("note: this run");
        seen.push(line);
        if done {
            break;
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    let note = seen
        .iter()
        .find(|l| l.starts_with("note: this run will take about"))
        .unwrap_or_else(|| panic!("no warning before the first progress line: {seen:?}"));
    assert!(note.contains('h') && note.contains("--resume"), "{note}");
    assert_eq!(note.lines().count(), 1);
}

/// A resumed run is not timed again: it was timed when it first started,
/// its progress line gives the time left, and the sample's rounds each wait
/// for their slowest chunk, which in a long run's remainder can be hours.
/// (Timed again, this resume would print the hour-long warning that a
/// fresh start of the same run prints, above.)
#[test]
fn a_resumed_run_starts_without_timing_a_sample_again() {
    use std::io::BufRead;
    let dir = scratch("long-resumed");
    let cfg = dir.join("d12.toml");
    std::fs::write(&cfg, D12).unwrap();
    let out = dir.join("out");
    // A quiet first sitting (quiet runs take no sample), killed once it has
    // checkpointed a chunk.
    let mut first = Running::start(
        runner()
            .args(["--config", cfg.to_str().unwrap(), "--out"])
            .arg(&out)
            .arg("-q"),
    );
    let journal = out.join("checkpoint.jsonl");
    let waited = std::time::Instant::now();
    while std::fs::read_to_string(&journal).map_or(0, |j| j.lines().count()) < 2 {
        assert!(
            waited.elapsed() < std::time::Duration::from_secs(120),
            "no chunk checkpointed within two minutes"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let _ = first.kill();
    let _ = first.wait();
    let mut resumed = Running::start(
        runner()
            .args(["--config", cfg.to_str().unwrap(), "--out"])
            .arg(&out)
            .args(["--resume", "--progress-secs", "1"])
            .stderr(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null()),
    );
    let reader = std::io::BufReader::new(resumed.stderr.take().unwrap());
    let mut seen = Vec::new();
    for line in reader.lines() {
        let line = line.unwrap();
        let done = line.starts_with("progress:");
        seen.push(line);
        if done {
            break;
        }
    }
    let _ = resumed.kill();
    let _ = resumed.wait();
    assert!(
        seen.last().is_some_and(|l| l.starts_with("progress:")),
        "{seen:?}"
    );
    assert!(
        !seen.iter().any(|l| l.starts_with("note: t")),
        "the resume timed a sample: {seen:?}"
    );
}

#[test]
fn a_second_run_on_a_directory_in_use_is_refused_and_leaves_it_alone() {
    use std::io::BufRead;
    let dir = scratch("locked-out");
    let cfg = dir.join("d12.toml");
    let out = dir.join("out");
    // Hours of work, so the first run is still going when the others start.
    let mut first = start_every_12x12_deal(&dir, &out);
    // The first progress line comes after the journal is open, so by then
    // the first run holds the directory.
    let mut reader = std::io::BufReader::new(first.stderr.take().unwrap());
    let mut line = String::new();
    while reader.read_line(&mut line).unwrap() > 0 && !line.starts_with("progress:") {
        line.clear();
    }
    // Without a lock, the plain start would be refused only for the
    // checkpoint, and the message tells the two apart; it goes first so a
    // missing lock fails here, before a --resume could run for hours.
    for extra in [&[][..], &["--resume"], &["--fresh"]] {
        let mut args = vec!["--config", cfg.to_str().unwrap(), "--out"];
        args.push(out.to_str().unwrap());
        args.extend_from_slice(extra);
        let o = run(&args);
        let err = stderr(&o);
        assert!(
            err.contains(out.to_str().unwrap()) && err.contains("another runner is writing"),
            "{extra:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert_eq!(o.status.code(), Some(2), "{err}");
    }
    assert!(
        first.try_wait().unwrap().is_none(),
        "the first run ended before the others started"
    );
    drop(first);
    // The kernel drops the lock with its holder, even on SIGKILL: the
    // directory is usable again at once.
    let o = run(&run_args(&repo("configs/quick.toml"), &out, &["--fresh"]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn an_output_path_that_is_a_file_is_refused() {
    let dir = scratch("out-is-file");
    let file = dir.join("taken");
    std::fs::write(&file, "x").unwrap();
    let o = run(&run_args(&repo("configs/quick.toml"), &file, &[]));
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("is a file"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
}

#[test]
fn pictures_name_the_run_and_report_holds_every_table_and_picture() {
    let dir = scratch("report");
    let out = dir.join("quick");
    let o = run(&run_args(&repo("configs/quick.toml"), &out, &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rates = std::fs::read_to_string(out.join("rates.svg")).unwrap();
    assert!(
        rates.contains("quick: first-player win rate")
            && rates
                .contains("tanhinmin · 52 cards (13 ranks × 4) · empty field · every deal (exact)"),
        "title and context line"
    );
    // quick has unequal cells (4x3): every cell is in the grid.
    assert!(out.join("rates-grid.svg").exists());
    let o = run(&["report", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for entry in std::fs::read_dir(&out).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if let Some(table) = name.strip_suffix(".csv") {
            assert!(
                html.contains(&format!("id=\"table-{table}\"")),
                "{name} not in the report"
            );
        }
        if let Some(figure) = name.strip_suffix(".svg") {
            assert!(
                html.contains(&format!("id=\"figure-{figure}\"")),
                "{name} not in the report"
            );
        }
    }
    assert!(html.contains("git commit") && html.contains("command line"));
    let o = run(&["report", dir.join("nothing-here").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// `runner compare` draws several runs' rates against hand size in one
/// picture and writes the points it drew; a series is a name and one or
/// more results directories, and a bad series is one line and exit 2.
#[test]
fn compare_draws_several_runs_and_writes_the_points_drawn() {
    let dir = scratch("compare");
    let svg = dir.join("rates.svg");
    let plain = format!("plain={}", repo("results/rates").display());
    let cut = format!(
        "8-cut={},{}",
        repo("results/variant-cut").display(),
        repo("results/variant-cut-13").display()
    );
    let o = run(&[
        "compare",
        "--min-cards",
        "2",
        "--max-cards",
        "13",
        "--out",
        svg.to_str().unwrap(),
        &plain,
        &cut,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(picture.contains("plain") && picture.contains("8-cut"));
    let csv = std::fs::read_to_string(dir.join("rates.csv")).unwrap();
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    // plain: 2..=13 from the DP; 8-cut: 2..=8 exact and the sampled 13x13.
    assert_eq!(rows.iter().filter(|r| r.starts_with("plain,")).count(), 12);
    let cut_sizes: Vec<&str> = rows
        .iter()
        .filter(|r| r.starts_with("8-cut,"))
        .map(|r| r.split(',').nth(1).unwrap())
        .collect();
    assert_eq!(cut_sizes, ["2", "3", "4", "5", "6", "7", "8", "13"]);
    let stats = std::fs::read_to_string(repo("results/variant-cut-13/stats.csv")).unwrap();
    let rate13 = stats.lines().nth(1).unwrap().split(',').nth(5).unwrap();
    assert!(
        rows.iter()
            .any(|r| r.starts_with("8-cut,13,13,") && r.contains(rate13))
    );
    for (bad, says) in [
        (vec!["no-equals-sign".to_string()], "expected NAME=DIR"),
        (
            vec!["x=/nonexistent/dir".to_string()],
            "no stats.csv or rates.csv",
        ),
        (
            vec![format!(
                "twice={},{}",
                repo("results/variant-cut").display(),
                repo("results/variant-cut").display()
            )],
            "appears twice",
        ),
        (
            vec![
                format!("same={}", repo("results/variant-cut").display()),
                format!("same={}", repo("results/deal8").display()),
            ],
            "series `same` is given twice",
        ),
    ] {
        let mut args = vec![
            "compare".to_string(),
            "--out".into(),
            svg.display().to_string(),
        ];
        args.extend(bad);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains(says), "{}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    }
    // An --out that would overwrite a run's files is refused, and they are
    // left as they were: `--out RUN/stats.csv` once wrote the picture, then
    // its points, over that run's table.
    let run_dir = scratch("compare-into-a-run");
    for name in ["manifest.json", "stats.csv", "mu.csv"] {
        std::fs::copy(repo("results/deal8").join(name), run_dir.join(name)).unwrap();
    }
    let before = std::fs::read(run_dir.join("stats.csv")).unwrap();
    for (out, says) in [
        (run_dir.join("stats.csv"), "ending in .svg"),
        (dir.join("points.csv"), "ending in .svg"),
        (run_dir.join("cmp.svg"), "holds a run's results"),
    ] {
        let o = run(&["compare", "--out", out.to_str().unwrap(), &plain]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{err}");
        assert!(err.contains("--out") && err.contains(says), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    assert_eq!(std::fs::read(run_dir.join("stats.csv")).unwrap(), before);
    assert!(!run_dir.join("cmp.svg").exists() && !dir.join("points.csv").exists());
}

#[cfg(unix)]
#[test]
fn output_into_a_closed_pipe_ends_quietly_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    // `runner --help | head -1` once panicked with a backtrace: Rust
    // ignores SIGPIPE, so printing into the closed pipe failed and
    // `println!` panicked. The read end is closed before the child starts,
    // so its first write always fails.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = runner()
        .arg("--help")
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        o.status.signal(),
        Some(libc::SIGPIPE),
        "{:?} {err}",
        o.status
    );
}

#[test]
fn a_plan_whose_sample_chunk_runs_for_hours_ends_at_its_limit() {
    // Deals of this config took hours on one thread (one over 3.5); the
    // plan, timed for 1 s, gives up after 40 s instead of hanging. (Under
    // 11-back alone, `variant-back-26.toml`, the sample's chunks now
    // finish in time: it gave up only while the limit was 10 s.)
    let started = std::time::Instant::now();
    let o = run(&[
        "plan",
        "--config",
        repo("configs/variant-cut-back-26.toml").to_str().unwrap(),
        "--calibrate-secs",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("memory: about"), "{text}");
    assert!(text.contains("estimate: unknown"), "{text}");
    // Its deals outlast a task's limit: the tasks keep their memo.
    assert!(text.contains("`runner slurm --keep-memo`"), "{text}");
    assert!(started.elapsed() < std::time::Duration::from_secs(80));
}

/// A plan times a few thousand deals; the 7.8 GiB endgame table a run of
/// 1,000,000 variant deals grows would only cost it pages. It once took
/// 7.9 GB to plan `variant-back-13.toml`. (8-cut here, whose sample is
/// quicker; the table is the same.)
#[cfg(target_os = "linux")]
#[test]
fn a_plan_samples_on_a_short_runs_memo_and_states_the_runs() {
    let dir = scratch("plan-memo");
    let cfg = dir.join("cut13.toml");
    std::fs::write(
        &cfg,
        "[experiment]\nname = \"c\"\nstudy = \"variant\"\nmode = \"sample\"\nseed = 1\ndeals = 1000000\n[rules]\ncut = 6\n[hands]\nsizes = [[13, 13]]\n",
    )
    .unwrap();
    // Reaped by `wait4` below, which std's `wait` would not report.
    #[allow(clippy::zombie_processes)]
    let mut child = runner()
        .args([
            "plan",
            "--config",
            cfg.to_str().unwrap(),
            "--calibrate-secs",
            "1",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (mut stdout, mut stderr) = (String::new(), String::new());
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut stdout).unwrap();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    // The child's own peak, not the maximum over every child of this
    // process: `wait4` reaps it with its usage.
    let (mut status, mut usage) = (0, unsafe { std::mem::zeroed::<libc::rusage>() });
    let reaped = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(reaped, child.id() as i32);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{stdout}{stderr}"
    );
    let run_mib: u64 = stdout
        .split("memory: about ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no memory line in {stdout}"));
    assert!(stdout.contains("time: about"), "{stdout}");
    let peak_mib = usage.ru_maxrss as u64 / 1024;
    // A machine with less memory than this one cuts the run's memo to
    // three quarters of what is free; the plan must stay well below it.
    if run_mib >= 4096 {
        assert!(
            peak_mib < 2048,
            "peak {peak_mib} MiB, the run's {run_mib} MiB"
        );
    } else {
        assert!(
            peak_mib < run_mib,
            "peak {peak_mib} MiB, the run's {run_mib} MiB"
        );
    }
}

/// A path that is not UTF-8 (Linux allows any bytes but `/` and NUL):
/// a run into such a directory once panicked after all its work, when it
/// recorded its command line; `runner slurm` wrote it into the scripts with
/// replacement characters, naming a file the cluster does not have.
#[cfg(unix)]
#[test]
fn paths_that_are_not_utf8_are_run_or_refused_in_one_line() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("not-utf8");
    let config = dir.join(OsStr::from_bytes(b"c\xff.toml"));
    std::fs::write(
        &config,
        "[experiment]\nname = \"q\"\nmode = \"sample\"\nseed = 1\ndeals = 1000\n[hands]\nsizes = [[5, 5]]\n",
    )
    .unwrap();
    let out = dir.join(OsStr::from_bytes(b"out\xfe"));
    let o = run(&[
        OsStr::new("--config"),
        config.as_os_str(),
        OsStr::new("--out"),
        out.as_os_str(),
        OsStr::new("-q"),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(out.join("manifest.json").is_file() && out.join("stats.csv").is_file());
    assert!(!out.join("checkpoint.jsonl").exists());
    let o = run(&[
        OsStr::new("slurm"),
        OsStr::new("--config"),
        config.as_os_str(),
        OsStr::new("--shards"),
        OsStr::new("2"),
        OsStr::new("--dir"),
        dir.join("scripts").as_os_str(),
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--config") && err.contains("not valid UTF-8"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!dir.join("scripts").exists());
}

/// `runner table` prints a results table for a paper: every field as the
/// run wrote it, under a comment naming the run and the build, in Markdown
/// or LaTeX, cut to the columns asked for in their order.
#[test]
fn table_prints_a_run_s_numbers_as_written_in_markdown_and_latex() {
    let dir = repo("results/variant-cut-26");
    let (header, rows) = read_csv(&dir.join("stats.csv"));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let commit = manifest["git_commit"].as_str().unwrap();

    let o = run(&["table", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("<!-- variant-cut-26: ") && lines[0].ends_with(" -->"),
        "{text}"
    );
    assert!(
        lines[1].contains("stats.csv") && lines[1].contains(commit),
        "{text}"
    );
    assert_eq!(lines[2], format!("| {} |", header.join(" | ")));
    assert_eq!(lines.len(), 4 + rows.len(), "{text}");
    for (line, row) in lines[4..].iter().zip(&rows) {
        assert_eq!(*line, format!("| {} |", row.join(" | ")));
    }

    let columns = ["ci95_high", "first_win_rate", "n_first"];
    let o = run(&[
        "table",
        dir.to_str().unwrap(),
        "--format",
        "latex",
        "--columns",
        &columns.join(","),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(text.contains("\\begin{tabular}{rrr}\n\\toprule\nci95\\_high & first\\_win\\_rate & n\\_first \\\\\n\\midrule\n"), "{text}");
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    for row in &rows {
        let cells: Vec<&str> = columns.iter().map(|c| row[at(c)].as_str()).collect();
        assert!(
            text.contains(&format!("\n{} \\\\\n", cells.join(" & "))),
            "{cells:?}: {text}"
        );
    }
    assert!(text.ends_with("\\bottomrule\n\\end{tabular}\n"), "{text}");
    assert!(
        text.lines()
            .take_while(|l| !l.starts_with("\\begin"))
            .all(|l| l.starts_with('%')),
        "only comments above the table: {text}"
    );
}

/// `--digits` cuts the decimals for a paper: the rate to the nearest, the
/// interval outward (so it still holds the rate and the interval the run
/// computed), counts and exact fractions as written.
#[test]
fn table_digits_round_rates_to_the_nearest_and_intervals_outward() {
    for dir in [
        "results/variant-cut-26",
        "results/deal8",
        "results/sample26",
    ] {
        let dir = repo(dir);
        let (header, rows) = read_csv(&dir.join("stats.csv"));
        let o = run(&["table", dir.to_str().unwrap(), "--digits", "3"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let text = String::from_utf8(o.stdout).unwrap();
        let printed: Vec<Vec<&str>> = text
            .lines()
            .skip(4)
            .map(|l| {
                l.trim_matches(|c| c == '|' || c == ' ')
                    .split(" | ")
                    .collect()
            })
            .collect();
        assert_eq!(printed.len(), rows.len(), "{text}");
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        for (row, shown) in rows.iter().zip(&printed) {
            let number = |text: &str| text.parse::<f64>().unwrap();
            let (rate, low, high) = (at("first_win_rate"), at("ci95_low"), at("ci95_high"));
            for i in [rate, low, high] {
                let decimals = shown[i].split_once('.').map(|(_, f)| f.len());
                assert_eq!(decimals, Some(3), "{}", shown[i]);
            }
            assert!((number(shown[rate]) - number(&row[rate])).abs() <= 0.0005 + 1e-12);
            assert!(number(shown[low]) <= number(&row[low]), "{shown:?} {row:?}");
            assert!(
                number(shown[high]) >= number(&row[high]),
                "{shown:?} {row:?}"
            );
            assert!(number(shown[low]) <= number(shown[rate]));
            assert!(number(shown[rate]) <= number(shown[high]) && number(shown[high]) <= 1.0);
            for name in ["n_first", "deals", "first_wins", "exact_fraction"] {
                assert_eq!(shown[at(name)], row[at(name)], "{name}");
            }
        }
    }
}

/// A table no run could have written (a rate above 1, here in a directory
/// made by hand, so no manifest vouches for it) is refused, as `plot` and
/// `report` refuse it, not printed for a paper; so are a ragged row and an
/// unknown column.
#[test]
fn table_refuses_a_rate_no_run_writes_and_an_unknown_column() {
    let dir = scratch("table-by-hand");
    let header = "n_first,n_second,field,deals,first_wins,first_win_rate,exact_fraction,ci95_low,ci95_high\n";
    std::fs::write(
        dir.join("stats.csv"),
        format!("{header}4,4,0,10,5,0.5,,0.2,0.8\n"),
    )
    .unwrap();
    let o = run(&["table", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    assert!(
        text.contains("no readable manifest.json")
            && text.contains("| 4 | 4 | 0 | 10 | 5 | 0.5 |  | 0.2 | 0.8 |"),
        "{text}"
    );

    let o = run(&["table", dir.to_str().unwrap(), "--columns", "n_first,rate"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no column `rate`")
            && stderr(&o).contains("first_win_rate")
            && !stderr(&o).contains("did you mean"),
        "{}",
        stderr(&o)
    );
    // A name near one column gets it; a table near one table too.
    let o = run(&["table", dir.to_str().unwrap(), "--columns", "n_frist"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no column `n_frist`; did you mean `n_first`?"),
        "{}",
        stderr(&o)
    );
    let o = run(&["table", dir.to_str().unwrap(), "--table", "stat.csv"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no such table; did you mean `stats.csv`?"),
        "{}",
        stderr(&o)
    );

    // A rate above 1, and a row with a field more than its header (which
    // a table cut to the header would drop without a word).
    for (table, text, problem) in [
        (
            "stats.csv",
            format!("{header}4,4,0,10,15,1.5,,0.2,0.8\n"),
            "not a rate",
        ),
        (
            "failures.csv",
            "ply,mover\n3,1 2\n4,2 5,7\n".to_string(),
            "row 2 has 3 fields, its header 2",
        ),
    ] {
        std::fs::write(dir.join(table), text).unwrap();
        let o = run(&["table", dir.to_str().unwrap(), "--table", table]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
        assert!(
            stderr(&o).contains(table) && stderr(&o).contains(problem),
            "{}",
            stderr(&o)
        );
        assert!(o.stdout.is_empty());
    }
}

/// The summary on stdout quotes `--out`; a directory whose name holds a
/// line break is shown escaped, so that each summary line stays one line.
#[test]
fn the_summary_keeps_an_out_with_a_line_break_on_one_line() {
    let dir = scratch("summary-line-break");
    let cfg = dir.join("v.toml");
    std::fs::write(
        &cfg,
        "[experiment]\nname = \"v\"\nstudy = \"variant\"\nmode = \"exhaustive\"\n[rules]\nback = 9\n[hands]\nsizes = [[2, 2]]\n",
    )
    .unwrap();
    let out = dir.join("a\nb");
    let o = run(&run_args(&cfg, &out, &[]));
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    let named = stdout.lines().find(|l| l.starts_with("results in "));
    assert!(named.is_some_and(|l| l.ends_with("a\\nb")), "{stdout}");
    assert!(!stdout.lines().any(|l| l == "b"), "{stdout}");
    assert!(out.join("manifest.json").exists());
}
