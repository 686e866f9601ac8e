//! Bad input is refused before any work: one line naming the file, the key
//! and the problem, exit 2, no panic, no output directory. One case per
//! class of issue 16, with more of our own.

mod common;

use common::{run, scratch, stderr};

fn refused(name: &str, body: &str, key: &str) {
    let dir = scratch(&format!("refuse-{name}"));
    let cfg = dir.join("c.toml");
    std::fs::write(&cfg, body).unwrap();
    let out = dir.join("out");
    let o = run(&[
        "--config",
        cfg.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let err = one_line_refusal(&o, name);
    assert!(err.contains("c.toml"), "{name}: names the file: {err}");
    assert!(err.contains(key), "{name}: names {key}: {err}");
    assert!(!out.exists(), "{name}: no work started");
}

const HEAD: &str = "[experiment]\nname = \"t\"\n";

/// The one line of a refusal (exit 2); `what` names the case in failures.
fn one_line_refusal(o: &std::process::Output, what: &str) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{what}: {err}");
    assert_eq!(err.trim().lines().count(), 1, "{what}: one line: {err}");
    err
}

#[test]
fn configs_that_would_overflow_or_mislead_are_refused() {
    let cases: &[(&str, String, &str)] = &[
        (
            "rates-overflow",
            format!("{HEAD}study = \"rates\"\nmode = \"exhaustive\"\n[deck]\nranks = 64\ncopies = 4\n[hands]\nsizes = [[12, 12]]\n"),
            "[hands] sizes[0]",
        ),
        (
            "rates-huge-copies",
            format!("{HEAD}study = \"rates\"\nmode = \"exhaustive\"\n[deck]\nranks = 30\ncopies = 255\n[hands]\nsizes = [[30, 30]]\n"),
            "[hands] sizes[0]",
        ),
        (
            "duplicate-cell",
            format!("{HEAD}mode = \"sample\"\ndeals = 5\n[hands]\nsizes = [[6, 6], [4, 4], [6, 6]]\n"),
            "[hands] sizes[2]: [6, 6] is listed already, as sizes[0]",
        ),
        (
            "u32-wrap-sample",
            format!("{HEAD}mode = \"sample\"\ndeals = 5\n[hands]\nsizes = [[4294967295, 1]]\n"),
            "[hands] sizes[0]",
        ),
        (
            "u32-wrap-exhaustive",
            format!("{HEAD}mode = \"exhaustive\"\n[hands]\nsizes = [[1, 4294967295]]\n"),
            "[hands] sizes[0]",
        ),
        (
            "u32-wrap-rates",
            format!("{HEAD}study = \"rates\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[4294967295, 1]]\n"),
            "[hands] sizes[0]",
        ),
        (
            "cell-of-three",
            format!("{HEAD}mode = \"exhaustive\"\n[hands]\nsizes = [[2, 2, 2]]\n"),
            "[hands] sizes",
        ),
        (
            "cell-of-one",
            format!("{HEAD}mode = \"exhaustive\"\n[hands]\nsizes = [[2]]\n"),
            "[hands] sizes",
        ),
        (
            "foreign-cut",
            format!("{HEAD}mode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n[cut]\nrank = 6\n"),
            "[cut]",
        ),
        (
            "foreign-impartial",
            format!("{HEAD}mode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n[impartial]\nbirthday = 2\n"),
            "[impartial]",
        ),
        (
            "sample-impartial",
            format!("{HEAD}study = \"impartial\"\nmode = \"sample\"\ndeals = 4\n"),
            "[experiment] mode",
        ),
        (
            "solver-in-mahjong",
            format!("{HEAD}study = \"mahjong\"\nmode = \"exhaustive\"\n[solver]\nmemo_mb = 64\n"),
            "[solver]",
        ),
        (
            "deals-in-exhaustive",
            format!("{HEAD}mode = \"exhaustive\"\ndeals = 7\n[hands]\nsizes = [[2, 2]]\n"),
            "[experiment] deals",
        ),
        (
            "name-escapes",
            "[experiment]\nname = \"../../x\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n".into(),
            "[experiment] name",
        ),
        (
            "name-absolute",
            "[experiment]\nname = \"/tmp/x\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n".into(),
            "[experiment] name",
        ),
        (
            "name-newline",
            "[experiment]\nname = \"x\\ntouch PWNED\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n".into(),
            "[experiment] name",
        ),
        (
            "name-dot",
            "[experiment]\nname = \"..\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n".into(),
            "[experiment] name",
        ),
        (
            "empty-dir",
            format!("{HEAD}mode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n[output]\ndir = \"\"\n"),
            "[output] dir",
        ),
        (
            "cut-rank-beyond",
            format!("{HEAD}study = \"cut\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n[cut]\nrank = 14\n"),
            "[cut] rank",
        ),
        (
            // 27 + 27 cards would overflow the variant's 128-bit memo key
            // and alias positions: a silent wrong answer, so it is refused.
            "variant-key-overflow",
            format!("{HEAD}study = \"cut\"\nmode = \"sample\"\ndeals = 3\n[deck]\nranks = 14\ncopies = 4\n[hands]\nsizes = [[27, 27]]\n[cut]\nrank = 6\n"),
            "[hands] sizes",
        ),
        ("rules-missing", format!("{HEAD}study = \"variant\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n"), "[rules]"),
        ("rules-empty", format!("{HEAD}study = \"variant\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n[rules]\n"), "[rules]"),
        ("rules-same-rank", format!("{HEAD}study = \"variant\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n[rules]\ncut = 6\nback = 6\n"), "[rules] back"),
        ("rules-back-beyond", format!("{HEAD}study = \"variant\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n[rules]\nback = 14\n"), "[rules] back"),
        ("rules-unknown-key", format!("{HEAD}study = \"variant\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n[rules]\nrevolution = 4\n"), "rules"),
        (
            "foreign-rules",
            format!("{HEAD}mode = \"exhaustive\"\n[hands]\nsizes = [[2, 2]]\n[rules]\nback = 9\n"),
            "[rules]",
        ),
    ];
    for (name, body, key) in cases {
        refused(name, body, key);
    }
}

#[test]
fn flags_past_what_the_machine_can_use_are_refused() {
    let quick = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.toml");
    let dir = scratch("flags");
    let out = dir.join("out");
    for extra in [
        vec!["-j", "65535"],
        vec!["--shards", "18446744073709551615", "--shard-index", "0"],
    ] {
        let mut args = vec!["--config", quick, "--out", out.to_str().unwrap(), "-q"];
        args.extend(extra.iter());
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"), "{}", stderr(&o));
    }
    assert!(!out.exists());
    // `runner plan` refuses the same counts as the run it plans, with the
    // same line, and takes the counts the run takes.
    for (threads, refused) in [("65535", true), ("2000", true), ("2", false)] {
        let o = run(&[
            "plan",
            "--config",
            quick,
            "-j",
            threads,
            "--calibrate-secs",
            "0",
        ]);
        let err = stderr(&o);
        assert!(!err.contains("panicked"), "{err}");
        if refused {
            assert_eq!(o.status.code(), Some(2), "plan -j {threads}: {err}");
            assert!(
                err.starts_with("error: --threads: "),
                "plan -j {threads}: {err}"
            );
            let run_err = stderr(&run(&[
                "--config",
                quick,
                "--out",
                out.to_str().unwrap(),
                "-q",
                "-j",
                threads,
            ]));
            assert_eq!(err, run_err, "plan and run -j {threads}");
        } else {
            assert_eq!(o.status.code(), Some(0), "plan -j {threads}: {err}");
        }
    }
    assert!(!out.exists());
    // A file that is not a config, such as an endless one, is refused by size.
    let o = run(&["--config", "/dev/zero"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("not a config"), "{}", stderr(&o));
}

/// A results directory whose tables were damaged or edited by hand is the
/// user's input to `runner plot` and `runner report`: where a command cannot
/// use a file it is refused with exit 2 and one line naming the directory and
/// the file, and the pictures already there are left as they were. (`report`
/// shows a table's cells as they are, so it refuses only what it cannot show:
/// text that is not UTF-8, and a manifest that is not JSON.)
#[test]
fn damaged_tables_given_to_plot_and_report_are_refused() {
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/deal8");
    let rates_header = "n_first,n_second,first_win_rate,ci95_low,ci95_high\n";
    let damages: Vec<(&str, &str, Vec<u8>, &[&str])> = vec![
        (
            "ragged",
            "mu.csv",
            b"n_first,n_second,mu0,mu1,deals,first_wins\n8,8,1\n".to_vec(),
            &["plot"],
        ),
        (
            "bad-number",
            "stats.csv",
            format!("{rates_header}8,8,x,0,1\n").into_bytes(),
            &["plot", "table"],
        ),
        (
            "no-column",
            "stats.csv",
            b"n_first,rate\n8,0.5\n".to_vec(),
            &["plot"],
        ),
        (
            "not-utf8",
            "stats.csv",
            [rates_header.as_bytes(), b"8,8,\xff,0,1\n"].concat(),
            &["plot", "report", "table"],
        ),
        (
            "manifest",
            "manifest.json",
            b"{\"study\": \"tanh".to_vec(),
            &["report"],
        ),
    ];
    let root = scratch("damaged");
    for (name, file, bytes, commands) in &damages {
        let dir = root.join(name);
        std::fs::create_dir_all(&dir).unwrap();
        for entry in std::fs::read_dir(&committed).unwrap() {
            let entry = entry.unwrap();
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
        std::fs::write(dir.join(file), bytes).unwrap();
        let pictures_before = std::fs::read(dir.join("rates.svg")).unwrap();
        for command in *commands {
            let o = run(&[*command, dir.to_str().unwrap()]);
            let err = one_line_refusal(&o, &format!("{command} {name}"));
            assert!(
                err.contains(dir.to_str().unwrap()) && err.contains(file),
                "{command} {name}: names the directory and {file}: {err}"
            );
        }
        assert_eq!(
            std::fs::read(dir.join("rates.svg")).unwrap(),
            pictures_before,
            "{name}: the pictures are untouched"
        );
        assert!(!dir.join("report.html").exists(), "{name}: no report");
    }
}

mod damaged_tables {
    use proptest::prelude::*;
    use runner::error::is_refused;
    use runner::export::plot::{Labels, pictures};

    /// The tables `runner plot` draws from, as committed: equal cells
    /// (a line), one cell, a grid of unequal cells, μ heat maps, rates.
    fn committed() -> Vec<(&'static str, Vec<u8>)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results");
        [
            ("quick", "stats.csv"),
            ("quick", "mu.csv"),
            ("sample26", "stats.csv"),
            ("unequal-field", "stats.csv"),
            ("unequal-field", "mu.csv"),
            ("rates", "rates.csv"),
        ]
        .into_iter()
        .map(|(dir, name)| (name, std::fs::read(root.join(dir).join(name)).unwrap()))
        .collect()
    }

    /// A damage: overwrite bytes, cut the file, or repeat a line.
    #[derive(Clone, Debug)]
    enum Damage {
        Overwrite(Vec<(usize, u8)>),
        Cut(usize),
        RepeatLine(usize, usize),
        Number(usize, &'static str),
    }

    fn damage() -> impl Strategy<Value = Damage> {
        let byte = prop::sample::select(b"0123456789-.,eE\n\"x \xff".to_vec());
        prop_oneof![
            prop::collection::vec((any::<usize>(), byte), 1..6).prop_map(Damage::Overwrite),
            any::<usize>().prop_map(Damage::Cut),
            (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Damage::RepeatLine(a, b)),
            (
                any::<usize>(),
                prop::sample::select(vec![
                    "0",
                    "-1",
                    "1e300",
                    "-1e300",
                    "4294967296",
                    "1e-300",
                    "NaN",
                    "inf",
                    "2.5",
                    "99999999999999999999999999999",
                    "3000000000",
                ])
            )
                .prop_map(|(i, v)| Damage::Number(i, v)),
        ]
    }

    fn apply(bytes: &[u8], d: &Damage) -> Vec<u8> {
        let mut out = bytes.to_vec();
        match d {
            Damage::Overwrite(edits) => {
                for &(i, b) in edits {
                    let n = out.len();
                    out[i % n] = b;
                }
            }
            Damage::Cut(i) => out.truncate(i % (bytes.len() + 1)),
            Damage::RepeatLine(from, to) => {
                let mut lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
                let line = lines[from % lines.len()];
                let at = to % (lines.len() + 1);
                lines.insert(at, line);
                out = lines.join(&b'\n');
            }
            Damage::Number(i, v) => {
                // Replaces one field of a data row with `v`.
                let text = String::from_utf8_lossy(bytes).into_owned();
                let mut rows: Vec<Vec<String>> = text
                    .lines()
                    .map(|l| l.split(',').map(str::to_string).collect())
                    .collect();
                if rows.len() > 1 {
                    let r = 1 + i % (rows.len() - 1);
                    let c = (i / 7) % rows[r].len();
                    rows[r][c] = v.to_string();
                }
                out = rows
                    .iter()
                    .map(|r| r.join(","))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .into_bytes();
            }
        }
        out
    }

    /// A μ row no run writes is refused, not drawn: the picture's grid is
    /// as wide as the largest μ, and a μ of three billion once made `runner
    /// plot` ask for gigabytes (and, one past u32, overflowed).
    #[test]
    fn a_mu_row_no_run_writes_is_refused_not_drawn() {
        let header = "n_first,n_second,field,mu0,mu1,deals,first_wins\n";
        let good = "2,2,0,1,0,10,10\n";
        let labels = Labels {
            run: "t".into(),
            context: "c".into(),
        };
        let drawn = format!("{header}{good}2,2,0,2,2,5,0\n");
        assert!(pictures(&[("mu.csv", drawn.as_bytes())], &labels).is_ok());
        for row in [
            "2,2,0,3000000000,0,5,0",
            "2,2,0,3,0,5,0",
            "2,2,0,0,3,5,0",
            "2,2,0,1.5,0,5,0",
            "2.5,2,0,1,0,5,0",
            "-2,2,0,0,0,5,0",
            "20000,2,0,20000,0,5,0",
        ] {
            let table = format!("{header}{good}{row}\n");
            match pictures(&[("mu.csv", table.as_bytes())], &labels) {
                Err(e) => assert!(
                    is_refused(&e) && format!("{e:#}").contains("no run writes it"),
                    "{row}: {e:#}"
                ),
                Ok(_) => panic!("{row}: drawn"),
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// Whatever the damage, drawing a table either works or is refused
        /// (exit 2 in `runner plot`): never a panic, never a fault.
        #[test]
        fn a_damaged_table_is_drawn_or_refused(which in any::<usize>(), d in damage()) {
            let tables = committed();
            let (name, bytes) = &tables[which % tables.len()];
            let damaged = apply(bytes, &d);
            let labels = Labels { run: "t".into(), context: "c".into() };
            if let Err(e) = pictures(&[(name, &damaged)], &labels) {
                prop_assert!(is_refused(&e), "{name} {d:?}: not refused: {e:#}");
            }
        }

        /// Whatever the damage, `runner table` either prints the table, one
        /// line a row in either format (no field breaks out of its row or
        /// out of the comment), or refuses it: never a panic, never a fault.
        #[test]
        fn a_damaged_table_is_printed_row_for_row_or_refused(
            which in any::<usize>(),
            d in damage(),
            about in "[ -~\n\r\t·μ]{0,40}",
        ) {
            use runner::export::plot::refuse_impossible_rates;
            use runner::export::table::{CsvTable, Latex, Markdown, TableFormat};
            let tables = committed();
            let (name, bytes) = &tables[which % tables.len()];
            let damaged = apply(bytes, &d);
            let table = refuse_impossible_rates(name, &damaged, name)
                .and_then(|()| CsvTable::parse(name, &damaged));
            match table {
                Err(e) => prop_assert!(is_refused(&e), "{name} {d:?}: not refused: {e:#}"),
                Ok(table) => {
                    let about = [about];
                    let rows = table.rows.len();
                    let markdown = Markdown.render(&table, &about);
                    prop_assert_eq!(markdown.lines().count(), 1 + 2 + rows, "{}", markdown);
                    prop_assert!(markdown.lines().skip(1).all(|l| l.starts_with("| ") && l.ends_with(" |")));
                    let latex = Latex.render(&table, &about);
                    // Two comment lines, begin, toprule, header, midrule,
                    // the rows, bottomrule, end.
                    prop_assert_eq!(latex.lines().count(), 2 + 4 + rows + 2, "{}", latex);
                    prop_assert!(latex.lines().take(2).all(|l| l.starts_with('%')));
                }
            }
        }
    }
}

/// Makes a FIFO at `path` (by `mkfifo`, which needs no root).
fn make_fifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
}

/// Runs the runner with `args`, failing the test (and killing the run)
/// if it has not ended after a minute: for inputs that once made it hang
/// or wait forever.
fn run_within_a_minute(args: &[&str]) -> std::process::Output {
    common::Running::start(
        common::runner()
            .args(args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped()),
    )
    .output_within(60, &format!("runner {args:?}"))
}

/// A config in a FIFO that nobody writes to is refused after a wait, with
/// one line naming it, instead of holding the run forever; one that a
/// writer brings (as `--config <(…)` does) is read.
#[test]
fn a_config_fifo_without_a_writer_is_refused_and_one_with_a_writer_read() {
    let dir = scratch("config-fifo");
    let fifo = dir.join("c.toml");
    make_fifo(&fifo);
    let plan = [
        "plan",
        "--config",
        fifo.to_str().unwrap(),
        "--calibrate-secs",
        "0",
    ];
    let err = one_line_refusal(&run_within_a_minute(&plan), "a FIFO");
    assert!(
        err.contains("c.toml") && err.contains("nothing to read"),
        "{err}"
    );
    let quick = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.toml")).unwrap();
    let writer_path = fifo.clone();
    std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        std::fs::write(writer_path, quick).unwrap();
    });
    let o = run_within_a_minute(&plan);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// An output path that is not a regular file is refused, never replaced:
/// the atomic write's rename would swap a FIFO, a device or a directory
/// for a file (as root, `runner compare --out /dev/null` once replaced the
/// machine's /dev/null). Shown with a FIFO and a directory, which need no
/// root.
#[test]
fn an_output_that_is_not_a_regular_file_is_refused_and_left_alone() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("special-out");
    let fifo = dir.join("fifo.svg");
    make_fifo(&fifo);
    let a_dir = dir.join("a-directory.svg");
    std::fs::create_dir_all(&a_dir).unwrap();
    let deal8 = concat!("plain=", env!("CARGO_MANIFEST_DIR"), "/results/deal8");
    for target in [&fifo, &a_dir] {
        let o = run(&["compare", "--out", target.to_str().unwrap(), deal8]);
        let err = one_line_refusal(&o, &target.display().to_string());
        assert!(err.contains("not a regular file"), "{err}");
        // A path the user chose for an output: another one will do.
        assert!(err.contains("choose another path"), "{err}");
    }
    // An output whose directory cannot be made (a file is in its way).
    let a_file = dir.join("a-file");
    std::fs::write(&a_file, "x").unwrap();
    let o = run(&[
        "compare",
        "--out",
        a_file.join("c.svg").to_str().unwrap(),
        deal8,
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot create the output directory"), "{err}");
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO is still a FIFO");
    assert!(a_dir.is_dir(), "the directory is still a directory");
}

/// A run whose tables or pictures would replace a FIFO or a directory is
/// refused before any work starts, not after it (`write_atomic` would
/// refuse too, but only when the run's work was done).
#[test]
fn a_run_refuses_an_unfit_output_before_any_work() {
    use std::os::unix::fs::FileTypeExt;
    let quick = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.toml");
    // A table's name (from the study) and a picture's (from `plot`).
    for (name, fifo) in [("mu.csv", true), ("rates.svg", false)] {
        let out = scratch(&format!("unfit-output-{name}"));
        let target = out.join(name);
        if fifo {
            make_fifo(&target);
        } else {
            std::fs::create_dir_all(&target).unwrap();
        }
        let o = run(&["--config", quick, "--out", out.to_str().unwrap(), "-q"]);
        let err = one_line_refusal(&o, name);
        assert!(
            err.contains(name) && err.contains("not a regular file"),
            "{err}"
        );
        let names: Vec<String> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, [name], "nothing else was written");
        let kind = std::fs::symlink_metadata(&target).unwrap().file_type();
        assert!(
            kind.is_fifo() == fifo && kind.is_dir() != fifo,
            "{name} left as it was"
        );
    }
}

/// A directory where a run or a batch keeps its memo over a stop is
/// refused before the checkpoint is opened: a refused start leaves no
/// checkpoint behind to ask the next start for `--resume`.
#[test]
fn a_memo_path_that_is_not_a_file_is_refused_before_the_checkpoint_is_written() {
    let config = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/variant-back.toml");
    let out = scratch("memo-dir-run");
    std::fs::create_dir_all(out.join("memo.bin")).unwrap();
    let o = run(&["--config", config, "--out", out.to_str().unwrap(), "-q"]);
    let err = one_line_refusal(&o, "memo.bin");
    assert!(err.contains("not a regular file"), "{err}");
    let names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["memo.bin"], "nothing else was written");

    let dir = scratch("memo-dir-batch");
    let batch = dir.join("positions.csv");
    std::fs::write(&batch, "first,second,field\n1 2 5,3 4,0\n").unwrap();
    let table = dir.join("table.csv");
    let memo = dir.join("table.csv.memo.bin");
    std::fs::create_dir_all(&memo).unwrap();
    let args = [
        "solve",
        "--batch",
        batch.to_str().unwrap(),
        "--back",
        "9",
        "--out",
        table.to_str().unwrap(),
        "-q",
    ];
    let o = run(&args);
    let err = one_line_refusal(&o, "table.csv.memo.bin");
    assert!(err.contains("not a regular file"), "{err}");
    assert!(!dir.join("table.csv.checkpoint.jsonl").exists());
    std::fs::remove_dir(&memo).unwrap();
    let o = run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(table.exists());
}

/// A scratch directory holding a run of `configs/quick.toml`.
fn quick_results(name: &str) -> common::Scratch {
    let out = scratch(name);
    let o = run(&[
        "--config",
        concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.toml"),
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    out
}

/// Every command that reads a results directory `dir`, as arguments:
/// `compare` draws `series` (NAME=DIR) into `svg`.
fn result_readers<'a>(dir: &'a str, svg: &'a str, series: &'a str) -> [Vec<&'a str>; 5] {
    [
        vec!["plot", dir],
        vec!["report", dir],
        vec!["table", dir],
        vec!["diff", dir, dir],
        vec!["compare", "--out", svg, series],
    ]
}

/// The manifest records each table's SHA-256 (as `sha256sum` computes it),
/// and a table edited after the run, or a manifest naming a file outside
/// its directory, is refused by every command that reads results, while
/// the untouched directory is read as before.
#[test]
fn a_table_that_is_not_the_one_its_run_wrote_is_refused() {
    let out = quick_results("hashed");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    let names = [
        "stats.csv",
        "mu.csv",
        "disagreements.csv",
        "partial.json",
        "run.csv",
    ];
    for (name, hex) in common::sha256sum(&out, &names) {
        assert_eq!(manifest["sha256"][&name], hex.as_str(), "{name}");
    }
    let dir = out.to_str().unwrap();
    // Beside the results, not among them: compare refuses a run's directory.
    let elsewhere = scratch("cmp-out-0");
    let (svg, series) = (elsewhere.join("cmp.svg"), format!("q={dir}"));
    let readers = result_readers(dir, svg.to_str().unwrap(), &series);
    for args in &readers {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
    }
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    let stats_hash = manifest["sha256"]["stats.csv"].as_str().unwrap();
    assert!(page.contains(stats_hash), "the report shows the hashes");
    assert!(!page.contains("not checked against the run"), "{page}");
    for args in &readers {
        assert!(
            !stderr(&run(args)).contains("not checked"),
            "{args:?}: hashes recorded, nothing to note"
        );
    }
    let stats = out.join("stats.csv");
    let good = std::fs::read(&stats).unwrap();
    let edited = String::from_utf8(good.clone())
        .unwrap()
        .replacen("0.539591837", "0.539591838", 1);
    assert_ne!(edited.as_bytes(), good, "the edit changed a number");
    std::fs::write(&stats, edited).unwrap();
    for args in &readers {
        let err = one_line_refusal(&run(args), &format!("{args:?}"));
        assert!(
            err.contains("stats.csv") && err.contains("SHA-256"),
            "{err}"
        );
    }
    std::fs::write(&stats, &good).unwrap();
    let mut escaping = manifest.clone();
    escaping["sha256"]["../stats.csv"] = serde_json::json!("00");
    std::fs::write(out.join("manifest.json"), escaping.to_string()).unwrap();
    let o = run(&["plot", dir]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("sha256 is not a table"), "{err}");
}

/// A run from before the manifest recorded SHA-256s (many committed
/// results are) cannot have its tables checked: every command that reads
/// them says so in one line, and the report says so on the page, instead
/// of reading them as if checked.
#[test]
fn tables_whose_manifest_records_no_hashes_are_read_with_a_note() {
    let out = quick_results("unhashed");
    let path = out.join("manifest.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    manifest.as_object_mut().unwrap().remove("sha256");
    std::fs::write(&path, manifest.to_string()).unwrap();
    let dir = out.to_str().unwrap();
    // Beside the results, not among them: compare refuses a run's directory.
    let elsewhere = scratch("cmp-out-1");
    let (svg, series) = (elsewhere.join("cmp.svg"), format!("q={dir}"));
    for args in result_readers(dir, svg.to_str().unwrap(), &series) {
        let o = run(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            err.lines().any(|l| l.starts_with("note: ")
                && l.contains("manifest.json records no SHA-256")
                && l.contains("not checked")),
            "{args:?}: {err}"
        );
    }
    let page = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(page.contains("not checked against the run"), "{page}");
}

/// A manifest that is not JSON (damaged, or edited) cannot vouch for the
/// tables: the commands that need its provenance refuse it in one line, and
/// the ones that only read the tables say that they were not checked,
/// instead of reading them as if checked.
#[test]
fn tables_whose_manifest_is_not_json_are_refused_or_read_with_a_note() {
    let out = quick_results("damaged-manifest");
    let path = out.join("manifest.json");
    let whole = std::fs::read(&path).unwrap();
    std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
    let dir = out.to_str().unwrap();
    // Beside the results, not among them: compare refuses a run's directory.
    let elsewhere = scratch("cmp-out-2");
    let (svg, series) = (elsewhere.join("cmp.svg"), format!("q={dir}"));
    let mut noted = Vec::new();
    for args in result_readers(dir, svg.to_str().unwrap(), &series) {
        let o = run(&args);
        let err = stderr(&o);
        if o.status.code() == Some(2) {
            let err = one_line_refusal(&o, &format!("{args:?}"));
            assert!(err.contains("manifest.json"), "{args:?}: {err}");
            continue;
        }
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            err.lines().any(|l| l.starts_with("note: ")
                && l.contains("manifest.json is not JSON")
                && l.contains("not checked")),
            "{args:?}: {err}"
        );
        noted.push(args[0]);
    }
    assert!(noted.contains(&"plot"), "{noted:?}");
}

/// A run (or a merge) into a directory holding another experiment's
/// results is refused in one line, and they are left alone: a mistyped
/// `--out` once overwrote `results/deal8` with a 3x3 sample. The same
/// experiment rerun writes over its own results as before.
#[test]
fn a_run_into_another_experiments_results_is_refused() {
    let dir = scratch("another-experiment");
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/deal8");
    for name in ["manifest.json", "stats.csv", "mu.csv"] {
        std::fs::copy(committed.join(name), dir.join(name)).unwrap();
    }
    let before = std::fs::read(dir.join("stats.csv")).unwrap();
    let quick = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.toml");
    let o = run(&["--config", quick, "--out", dir.to_str().unwrap(), "-q"]);
    let err = one_line_refusal(&o, "another experiment's directory");
    assert!(
        err.contains("experiment `deal8`, not `quick`") && err.contains("another directory"),
        "{err}"
    );
    assert_eq!(std::fs::read(dir.join("stats.csv")).unwrap(), before);
    let own = scratch("own-experiment");
    for _ in 0..2 {
        let o = run(&["--config", quick, "--out", own.to_str().unwrap(), "-q"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
}

/// A FIFO in place of a table or of a shard's results is refused by the
/// commands that read them, instead of waiting forever to read it.
#[test]
fn a_table_that_is_a_fifo_is_refused_without_hanging() {
    let dir = scratch("fifo-table");
    let committed = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("results/deal8");
    for name in ["manifest.json", "mu.csv"] {
        std::fs::copy(committed.join(name), dir.join(name)).unwrap();
    }
    make_fifo(&dir.join("stats.csv"));
    let d = dir.to_str().unwrap();
    let baseline = committed.to_str().unwrap();
    let shard = scratch("fifo-partial");
    make_fifo(&shard.join("partial.json"));
    let merged = shard.join("merged");
    let merge = vec![
        "merge",
        "--out",
        merged.to_str().unwrap(),
        shard.to_str().unwrap(),
    ];
    for args in [
        vec!["plot", d],
        vec!["table", d],
        vec!["diff", baseline, d],
        merge,
    ] {
        let o = run_within_a_minute(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        let names_it = err.contains("stats.csv") || err.contains("partial.json");
        assert!(names_it && err.contains("not a regular file"), "{err}");
        // A result file's name is the run's, not the user's to change.
        assert!(!err.contains("choose another path"), "{err}");
    }
}

/// A FIFO where the checkpoint goes is refused, with or without
/// `--resume`: reading it would wait forever for a writer.
#[test]
fn a_checkpoint_that_is_not_a_regular_file_is_refused_without_hanging() {
    let quick = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.toml");
    for resume in [true, false] {
        let out = scratch(&format!("fifo-checkpoint-{resume}"));
        let checkpoint = out.join("checkpoint.jsonl");
        make_fifo(&checkpoint);
        let mut args = vec!["--config", quick, "--out", out.to_str().unwrap(), "-q"];
        if resume {
            args.push("--resume");
        }
        let o = run_within_a_minute(&args);
        let (status, err) = (o.status, stderr(&o));
        assert_eq!(status.code(), Some(2), "resume {resume}: {err}");
        assert!(
            err.contains("checkpoint.jsonl") && err.contains("not a regular file"),
            "{err}"
        );
    }
}

/// An error quotes what the user typed; a path with a line break in it is
/// shown escaped, so that every command's error is still one line.
#[test]
fn an_error_about_a_path_with_a_line_break_is_one_line() {
    let dir = scratch("line-break");
    let odd = dir.join("results\nof yesterday").display().to_string();
    let config = dir.join("deal\n8.toml").display().to_string();
    for args in [
        vec!["table", odd.as_str()],
        vec!["plot", odd.as_str()],
        vec!["report", odd.as_str()],
        vec!["merge", "--out", "merged", odd.as_str()],
        vec!["--config", config.as_str()],
        vec!["plan", "--config", config.as_str()],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("\\n"), "{args:?}: {}", stderr(&o));
    }
}

/// Notes quote paths too: a run into a directory whose name has a line
/// break in it, run twice, says on one line that it replaces the first
/// run's results, and `--resume` with no checkpoint says so on one line;
/// `runner report` names the page it wrote on one line.
#[test]
fn a_note_about_a_path_with_a_line_break_is_one_line() {
    let dir = scratch("note-line-break");
    let odd = dir.join("results\nof today").display().to_string();
    let quick = concat!(env!("CARGO_MANIFEST_DIR"), "/configs/quick.toml");
    let first = run(&["--config", quick, "--out", &odd, "--quiet"]);
    assert_eq!(first.status.code(), Some(0), "{}", stderr(&first));
    for (extra, says) in [
        (&[][..], "the results of an earlier run"),
        (&["--resume"][..], "no checkpoint here"),
    ] {
        let o = run(&[&["--config", quick, "--out", &odd, "--quiet"][..], extra].concat());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let err = stderr(&o);
        let notes: Vec<&str> = err.lines().filter(|l| l.starts_with("note: ")).collect();
        assert!(
            notes
                .iter()
                .any(|l| l.contains(says) && l.contains("results\\nof today")),
            "{err}"
        );
        assert!(!err.lines().any(|l| l.starts_with("of today")), "{err}");
    }
    // So do the lines naming what a command wrote.
    let o = run(&["report", &odd]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.starts_with("wrote ") && out.contains("results\\nof today"),
        "{out}"
    );
}

/// A flag clap cannot read is refused in one line, as every refusal is,
/// keeping clap's suggestion or the values allowed; `--help` and
/// `--version` are still clap's, on stdout with exit 0.
#[test]
fn a_mistyped_flag_is_refused_in_one_line_with_what_was_meant() {
    for (args, says) in [
        (
            &["--shard", "3"][..],
            "a similar argument exists: '--shards'",
        ),
        (
            &["solve", "--frist", "1"][..],
            "a similar argument exists: '--first'",
        ),
        (
            &["--threads"][..],
            "a value is required for '--threads <N>'",
        ),
        (
            &["-j", "many"][..],
            "invalid value 'many' for '--threads <N>'",
        ),
        (
            &["table", "--format", "html", "d"][..],
            "[possible values: markdown, latex]",
        ),
        (&["bogus"][..], "unrecognized subcommand 'bogus'"),
        (
            &["slurm"][..],
            "not provided: --config <FILE>, --shards <N>",
        ),
        (&["--recheck", "2", "-c", "x"][..], "not provided: --resume"),
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with("error: "),
            "{args:?}: {}",
            stderr(&o)
        );
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
    for args in [
        &["--help"][..],
        &["solve", "--help"][..],
        &["--version"][..],
    ] {
        let o = run(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {}", stderr(&o));
        assert!(!o.stdout.is_empty() && o.stderr.is_empty(), "{args:?}");
    }
}
