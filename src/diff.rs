//! `runner diff A B`: is result directory B consistent with A? This is the
//! regression check of a theorem: rerun, then diff against the committed
//! baseline.
//!
//! Exact tables (an exhaustive run, a claim study, or a sampled run of the
//! same config and seed) must be byte-identical: anything else is a changed
//! number. A sampled run of another seed or size cannot be identical, nor
//! can the interim tables of some of a sampled run's chunks, so its
//! `stats.csv` is compared cell by cell with a two-proportion z-test of
//! the first player's rate, and is inconsistent when a p-value falls below
//! `--alpha`. Run details (`run.csv`) and pictures are never compared.

use crate::cli::DiffArgs;
use crate::exit;
use crate::export::{manifest, read_result_file};
use crate::stats::two_proportion_p;
use std::collections::BTreeMap;
use std::path::Path;

/// Tables that vary from run to run and are never compared.
const RUN_DETAILS: &[&str] = &["run.csv"];

/// `runner diff`: prints a line per comparison on stdout and returns the
/// exit status (0 consistent, 1 not, 2 unreadable input).
pub fn main(args: &DiffArgs) -> i32 {
    match compare(&args.baseline, &args.candidate, args.alpha) {
        Ok((findings, notes)) => {
            for note in notes {
                crate::error::say(note);
            }
            let mut consistent = true;
            for f in &findings {
                println!("{}", f.line);
                consistent &= f.consistent;
            }
            if consistent {
                println!(
                    "consistent: {} matches {}",
                    args.candidate.display(),
                    args.baseline.display()
                );
                exit::OK
            } else {
                println!(
                    "NOT consistent: {} differs from {}",
                    args.candidate.display(),
                    args.baseline.display()
                );
                exit::CHECK_FAILED
            }
        }
        Err(msg) => {
            exit::say_error(format_args!("{msg}"));
            exit::USAGE
        }
    }
}

/// One comparison and its verdict.
pub struct Finding {
    /// Human-readable: what was compared and how it came out.
    pub line: String,
    /// Did it agree?
    pub consistent: bool,
}

/// What a results directory's manifest says about how it was made.
struct RunKind {
    sampled: bool,
    /// The config echo's fields that decide a sampled run's deals: two runs
    /// that share them must have identical tables. Compared from the echo,
    /// not the hash, so baselines written under an older hash still count.
    deal_inputs: serde_json::Value,
    /// Tables of a run's chunks so far (`runner interim`).
    interim: bool,
    /// What a reader should know of the tables before trusting the
    /// comparison: unchecked, or interim.
    notes: Vec<String>,
}

fn run_kind(dir: &Path) -> Result<RunKind, String> {
    let path = dir.join(manifest::FILE_NAME);
    let recorded = manifest::Recorded::read(dir)
        .map_err(|e| format!("{e:#}"))?
        .ok_or_else(|| format!("{}: no such file", path.display()))?;
    recorded.check_hashes().map_err(|e| format!("{e:#}"))?;
    let v = recorded
        .json()
        .map_err(|e| format!("{}: not a manifest: {e}", path.display()))?;
    let c = &v["config"];
    let e = &c["experiment"];
    let mut notes: Vec<String> = recorded.unchecked_note().into_iter().collect();
    let interim = recorded.interim();
    if let Some(facts) = &interim {
        notes.push(format!(
            "note: {} holds interim tables ({} of a run not finished, by `runner interim`): exact tables of part of a run differ from the whole run's, and sampled rates are compared over the deals done so far",
            dir.display(),
            facts.share()
        ));
    }
    Ok(RunKind {
        sampled: e["mode"] == "sample",
        deal_inputs: serde_json::json!([
            e["study"],
            e["seed"],
            e["deals"],
            c["deck"],
            c["hands"],
            c["cut"],
            v["chunk_sizes"]
        ]),
        interim: interim.is_some(),
        notes,
    })
}

/// A file of a results directory, or the one line that says why not.
fn read(path: &Path) -> Result<Vec<u8>, String> {
    read_result_file(path).map_err(|e| format!("{e:#}"))
}

/// The deterministic tables of a results directory, by file name.
fn tables(dir: &Path) -> Result<Vec<String>, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv") && !RUN_DETAILS.contains(&n.as_str()))
        .collect();
    names.sort();
    Ok(names)
}

/// Compares `candidate` with `baseline`; the findings, and the notes a
/// reader should see on their tables (unchecked, or interim).
pub fn compare(
    baseline: &Path,
    candidate: &Path,
    alpha: f64,
) -> Result<(Vec<Finding>, Vec<String>), String> {
    let (a, b) = (run_kind(baseline)?, run_kind(candidate)?);
    let (ta, tb) = (tables(baseline)?, tables(candidate)?);
    if ta.is_empty() {
        return Err(format!(
            "{}: no result tables to compare",
            baseline.display()
        ));
    }
    let mut out = Vec::new();
    for name in tb.iter().filter(|n| !ta.contains(n)) {
        out.push(Finding {
            line: format!("{name}: only in {}", candidate.display()),
            consistent: false,
        });
    }
    // A sampled run of another config or seed can only agree statistically;
    // so can one of a run's chunks so far, which counts fewer deals.
    let same_deals = a.deal_inputs == b.deal_inputs;
    let statistical = a.sampled && b.sampled && (!same_deals || a.interim || b.interim);
    let mut notes = [a.notes, b.notes].concat();
    if statistical && same_deals {
        notes.push(format!(
            "note: {} and {} count some of the same deals (one config and seed), so the rates' test, which assumes independent samples, is lenient here: it can miss a difference, not invent one",
            baseline.display(),
            candidate.display()
        ));
    }
    for name in &ta {
        let (pa, pb) = (baseline.join(name), candidate.join(name));
        if !pb.exists() {
            out.push(Finding {
                line: format!("{name}: missing from {}", candidate.display()),
                consistent: false,
            });
            continue;
        }
        let (xa, xb) = (read(&pa)?, read(&pb)?);
        if statistical {
            if name == "stats.csv" {
                out.extend(compare_rates(&xa, &xb, alpha).map_err(|e| format!("{name}: {e}"))?);
            } else {
                out.push(Finding {
                    line: format!(
                        "{name}: not compared (sampled runs of different configs or seeds, or interim)"
                    ),
                    consistent: true,
                });
            }
            continue;
        }
        out.push(match first_difference(&xa, &xb) {
            None => Finding {
                line: format!("{name}: identical"),
                consistent: true,
            },
            Some((line, was, now)) => Finding {
                line: format!("{name}: differs at line {line}: `{was}` vs `{now}`"),
                consistent: false,
            },
        });
    }
    Ok((out, notes))
}

/// The first line where two texts differ, with both versions.
fn first_difference(a: &[u8], b: &[u8]) -> Option<(usize, String, String)> {
    if a == b {
        return None;
    }
    let (la, lb): (Vec<&[u8]>, Vec<&[u8]>) = (
        a.split(|&c| c == b'\n').collect(),
        b.split(|&c| c == b'\n').collect(),
    );
    let i = (0..la.len().max(lb.len()))
        .find(|&i| la.get(i) != lb.get(i))
        .unwrap_or(0);
    let show = |l: Option<&&[u8]>| {
        l.map_or("(end of file)".to_string(), |l| {
            String::from_utf8_lossy(l).into_owned()
        })
    };
    Some((i + 1, show(la.get(i)), show(lb.get(i))))
}

/// A cell: (n_first, n_second, field), as written.
type Cell = (String, String, String);

/// Per cell: (first-player wins, deals).
fn rates(bytes: &[u8]) -> Result<BTreeMap<Cell, (f64, f64)>, String> {
    let mut r = csv::Reader::from_reader(bytes);
    let header = r.headers().map_err(|e| e.to_string())?.clone();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or(format!("no `{name}` column"))
    };
    let (c1, c2, cf, cd, cw) = (
        col("n_first")?,
        col("n_second")?,
        col("field")?,
        col("deals")?,
        col("first_wins")?,
    );
    let mut out = BTreeMap::new();
    for row in r.records() {
        let row = row.map_err(|e| e.to_string())?;
        let num = |i: usize| {
            row[i]
                .parse::<f64>()
                .map_err(|e| format!("`{}`: {e}", &row[i]))
        };
        out.insert(
            (
                row[c1].to_string(),
                row[c2].to_string(),
                row[cf].to_string(),
            ),
            (num(cw)?, num(cd)?),
        );
    }
    Ok(out)
}

fn compare_rates(a: &[u8], b: &[u8], alpha: f64) -> Result<Vec<Finding>, String> {
    let (ra, rb) = (rates(a)?, rates(b)?);
    let mut out = Vec::new();
    for (cell, &(wa, na)) in &ra {
        let label = format!("stats.csv {}x{} field {}", cell.0, cell.1, cell.2);
        let Some(&(wb, nb)) = rb.get(cell) else {
            out.push(Finding {
                line: format!("{label}: missing"),
                consistent: false,
            });
            continue;
        };
        let p = two_proportion_p(wa, na, wb, nb);
        out.push(Finding {
            line: format!(
                "{label}: {:.6} ({wa}/{na}) vs {:.6} ({wb}/{nb}), two-proportion p = {p:.4}{}",
                wa / na.max(1.0),
                wb / nb.max(1.0),
                if p < alpha {
                    format!(" < {alpha}: INCONSISTENT")
                } else {
                    String::new()
                }
            ),
            consistent: p >= alpha,
        });
    }
    for cell in rb.keys().filter(|c| !ra.contains_key(*c)) {
        out.push(Finding {
            line: format!(
                "stats.csv {}x{} field {}: only in the candidate",
                cell.0, cell.1, cell.2
            ),
            consistent: false,
        });
    }
    Ok(out)
}
