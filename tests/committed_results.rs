//! The results committed under `results/` must come from the configs that
//! name them. A quick check run written into a results directory (say 1x1
//! to 3x3 instead of 1x1 to 8x8) once replaced two studies' full tables
//! unnoticed; every manifest records the config it ran, so compare.

mod common;

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The parts of a config that decide what a run computes. Memory, move
/// order and the output directory only change how fast or where.
fn what_it_computes(config: &Value) -> Value {
    let mut v = config.clone();
    if let Some(map) = v.as_object_mut() {
        map.remove("output");
        map.remove("solver");
    }
    v
}

/// Every config in `configs/` whose output goes under `results/`: its
/// path, the config, and its output directory.
fn shipped_configs() -> Vec<(PathBuf, runner::config::Config, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("configs").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let config = runner::studies::load_config(&path).unwrap();
        let dir = config.output_dir();
        if dir.starts_with("results") {
            out.push((path, config, dir));
        }
    }
    out
}

#[test]
fn every_committed_result_matches_its_config() {
    let mut checked = 0;
    for (path, config, dir) in shipped_configs() {
        let manifest = Path::new(&dir).join("manifest.json");
        if !manifest.exists() {
            continue;
        }
        let recorded: Value =
            serde_json::from_str(&std::fs::read_to_string(&manifest).unwrap()).unwrap();
        let expected = serde_json::to_value(&config).unwrap();
        assert_eq!(
            what_it_computes(&recorded["config"]),
            what_it_computes(&expected),
            "{} was not produced by {}: rerun it",
            manifest.display(),
            path.display()
        );
        // Older manifests record an exit code; newer ones the check.
        if let Some(code) = recorded.get("exit_code") {
            assert_eq!(code, 0, "{} records a failed run", manifest.display());
        }
        if let Some(check) = recorded.get("check") {
            assert_eq!(
                check,
                "passed",
                "{} records a failed run",
                manifest.display()
            );
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} results directories found");
}

/// A run too long for one sitting is continued across sessions from its
/// committed checkpoint (`--resume`). A change to what names a run (the
/// result hash of the config, the version) would make every later resume
/// refuse it and the finished deals be lost; so each committed checkpoint
/// must still be read as its config's, every line of it.
#[test]
fn every_committed_checkpoint_resumes_under_its_config() {
    for (_, config, dir) in shipped_configs() {
        let checkpoint = dir.join("checkpoint.jsonl");
        if !checkpoint.exists() {
            continue;
        }
        let entry = runner::studies::find(&config.experiment.study).unwrap();
        let sizes: Vec<u64> = (entry.outline)(&config, 1)
            .cells
            .iter()
            .map(|c| c.chunk_size)
            .collect();
        let text = std::fs::read_to_string(&checkpoint).unwrap();
        let lines_of = |record: &str| text.lines().filter(|l| l.contains(record)).count();
        let done = runner::driver::checkpoint_progress(&config, &sizes, &dir)
            .unwrap_or_else(|e| panic!("{}: {e:#}", checkpoint.display()))
            .unwrap_or_else(|| panic!("{}: no progress", checkpoint.display()));
        // A whole run's, to be continued with --resume alone.
        assert_eq!(done.shard, (1, 0), "{}", checkpoint.display());
        assert_eq!(
            (done.done.len(), done.rechecks.len()),
            (lines_of(" {\"chunk\":"), lines_of(" {\"recheck\":")),
            "{}",
            checkpoint.display()
        );
        assert_eq!(
            done.done.len() + done.rechecks.len(),
            text.lines().count() - 1,
            "{}: every line after the header is a chunk or a recheck",
            checkpoint.display()
        );
    }
}

/// The columns of a CSV file, each row keyed by (n_first, n_second, field).
fn rows_by_cell(
    path: &Path,
) -> std::collections::BTreeMap<(String, String, String), Vec<(String, String)>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
    let mut out = std::collections::BTreeMap::new();
    for record in reader.records() {
        let record = record.unwrap();
        let row: Vec<(String, String)> = header
            .iter()
            .cloned()
            .zip(record.iter().map(String::from))
            .collect();
        let get = |name: &str| row.iter().find(|(h, _)| h == name).unwrap().1.clone();
        out.insert((get("n_first"), get("n_second"), get("field")), row);
    }
    out
}

/// Every exhaustive minimax run of the full deck at field 0 (quick, deal8 to
/// deal12) must give, cell by cell, the exact fraction the rates DP gives,
/// with no disagreement: two independent methods, one number.
#[test]
fn exhaustive_minimax_runs_equal_the_rates_dp() {
    let dp = rows_by_cell(Path::new("results/rates/rates.csv"));
    let mut compared = 0;
    for name in ["quick", "deal8", "deal9", "deal10", "deal11", "deal12"] {
        let stats = Path::new("results").join(name).join("stats.csv");
        if !stats.exists() {
            continue;
        }
        for (cell, row) in rows_by_cell(&stats) {
            let get = |name: &str| row.iter().find(|(h, _)| h == name).unwrap().1.clone();
            assert_eq!(get("disagree"), "0", "{name} {cell:?}");
            let Some(expected) = dp.get(&cell) else {
                continue;
            };
            let dp_fraction = &expected
                .iter()
                .find(|(h, _)| h == "exact_fraction")
                .unwrap()
                .1;
            assert_eq!(&get("exact_fraction"), dp_fraction, "{name} {cell:?}");
            compared += 1;
        }
    }
    assert!(compared >= 7, "only {compared} cells compared");
}

/// A committed result whose manifest records SHA-256s must be the files its
/// run wrote: a table regenerated or edited without its manifest (or the
/// other way round) is caught here rather than by the first reader.
#[test]
fn committed_files_match_the_hashes_their_manifests_record() {
    let mut hashed = 0;
    for (_, _, dir) in shipped_configs() {
        let manifest = runner::export::manifest::Recorded::read(&dir)
            .unwrap_or_else(|e| panic!("{}: {e:#}", dir.display()));
        let Some(manifest) = manifest.filter(|m| m.unchecked_note().is_none()) else {
            continue;
        };
        manifest
            .check_hashes()
            .unwrap_or_else(|e| panic!("{}: {e:#}", dir.display()));
        hashed += 1;
    }
    assert!(
        hashed >= 20,
        "only {hashed} committed results record hashes"
    );
}

/// The words of a shell command as the README prints it: lines joined at
/// their trailing backslashes, words split at spaces outside double quotes.
fn shell_words(command: &str) -> Vec<String> {
    let joined = command.replace("\\\n", " ");
    let (mut words, mut word, mut quoted) = (Vec::new(), String::new(), false);
    for c in joined.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !word.is_empty() {
                    words.push(std::mem::take(&mut word));
                }
            }
            c => word.push(c),
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// The words of the README's command that starts with `prefix`, up to the
/// end of its code block, and where that block's closing fence is.
fn readme_command(readme: &str, prefix: &str) -> (Vec<String>, usize) {
    let start = readme
        .find(prefix)
        .unwrap_or_else(|| panic!("the README shows `{prefix}`"));
    let end = start + readme[start..].find("\n```").expect("its code block ends");
    (shell_words(&readme[start..end]), end)
}

/// The comparison picture of the plain game and its variants is made by
/// the README's `runner compare` command from committed results: run as
/// printed (into a scratch file), it gives the committed points byte for
/// byte, so neither the command, the results it reads, nor `compare`
/// itself has drifted from what the README shows.
#[test]
fn the_readmes_compare_command_remakes_the_committed_variants_picture() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let (words, _) = readme_command(&readme, "runner compare --min-cards");
    let out_at = words.iter().position(|w| w == "--out").unwrap() + 1;
    let committed = PathBuf::from(&words[out_at]);
    assert_eq!(committed, Path::new("results/variants/rates.svg"));
    let dir = common::scratch("readme-compare");
    let mut args: Vec<String> = words[1..].to_vec();
    args[out_at - 1] = dir.join("rates.svg").display().to_string();
    let o = common::run(&args);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("rates.csv")).unwrap(),
        std::fs::read_to_string(committed.with_extension("csv")).unwrap(),
        "the points the README's command draws are the committed ones"
    );
    assert!(dir.join("rates.svg").is_file());
}

/// The README's `runner table` example prints what the README shows below
/// it, from the committed results: the example, the results and `table`
/// have not drifted apart. The commit and start time in its comment are run
/// details, not results, so both sides have them masked: following the
/// README's first command rewrites them in `results/deal8`, and this test
/// must still pass in that working tree.
#[test]
fn the_readmes_table_example_prints_what_the_readme_shows() {
    let readme = std::fs::read_to_string("README.md").unwrap();
    let (words, end) = readme_command(&readme, "runner table results/deal8");
    // Past the command's closing fence, the output block's opening one.
    let after = end + 4;
    let shown_at = after
        + readme[after..]
            .find("```\n")
            .expect("an output block follows")
        + 4;
    let shown_end = shown_at + readme[shown_at..].find("```").expect("it ends");
    let shown = &readme[shown_at..shown_end];
    let o = common::run(&words[1..]);
    assert_eq!(o.status.code(), Some(0), "{}", common::stderr(&o));
    let printed = String::from_utf8(o.stdout).unwrap();
    assert_eq!(mask_run_details(&printed), mask_run_details(shown));
}

/// `text` with the value after `(commit ` up to `)` and after `started ` up
/// to `,` replaced by `…`, each once; panics if either is missing, so a
/// comment that stops naming them fails the test rather than passing it.
fn mask_run_details(text: &str) -> String {
    let mut masked = text.to_string();
    for (opens, closes) in [("(commit ", ')'), ("started ", ',')] {
        let at = masked
            .find(opens)
            .unwrap_or_else(|| panic!("{opens:?} in {text}"))
            + opens.len();
        let end = at + masked[at..].find(closes).expect("the value ends");
        masked.replace_range(at..end, "…");
    }
    masked
}
