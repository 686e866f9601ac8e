//! `runner compare`: the first-player rate against hand size of several
//! runs in one picture, for instance the plain game beside its rule
//! variants. Each series joins the equal-hand cells (n x n, empty starting
//! field) of one or more results directories, so an exact run up to 8x8
//! and a sampled 13x13 run make one line. The points drawn are written to a
//! CSV beside the picture, so a reader can quote what they see.

use crate::cli::CompareArgs;
use crate::exit;
use crate::export::manifest::Recorded;
use crate::export::plot::{Labels, RatePoint, Series, rate_lines_svg, read_rates};
use crate::export::write_atomic;
use anyhow::anyhow;
use std::path::{Path, PathBuf};

/// `runner compare`: writes the picture and its CSV, prints their paths,
/// and returns the exit status (2 for a bad series, an unreadable table or
/// an output path that is not a file, 3 when the output cannot be written).
pub fn main(args: &CompareArgs) -> i32 {
    if let Err(problem) = fit_output(&args.out) {
        exit::say_error(format_args!("--out: {problem}"));
        return exit::USAGE;
    }
    let mut notes = Vec::new();
    let series = match args
        .series
        .iter()
        .map(|s| read_series(s, args.min_cards..=args.max_cards, args.interim, &mut notes))
        .collect::<anyhow::Result<Vec<Series>>>()
        .and_then(refuse_a_name_given_twice)
    {
        Ok(s) => s,
        Err(e) => {
            exit::say_error(format_args!("{e:#}"));
            return exit::USAGE;
        }
    };
    match write(&series, &args.out, &args.title, args.interim) {
        Ok(written) => {
            for note in notes {
                crate::error::say(note);
            }
            for w in written {
                println!(
                    "wrote {}",
                    crate::error::on_one_line(&w.display().to_string())
                );
            }
            exit::OK
        }
        Err(e) => {
            exit::say_error(format_args!("{e:#}"));
            exit::of_error(&e)
        }
    }
}

/// Two series of one name would be two lines under one label, in the
/// picture's legend and in the points' CSV alike, which no reader can
/// tell apart.
fn refuse_a_name_given_twice(series: Vec<Series>) -> anyhow::Result<Vec<Series>> {
    for (i, s) in series.iter().enumerate() {
        if series[..i].iter().any(|earlier| earlier.name == s.name) {
            anyhow::bail!(
                "series `{}` is given twice; give each series its own name, or list its directories after one NAME= separated by commas",
                s.name
            );
        }
    }
    Ok(series)
}

/// One series from `NAME=DIR[,DIR...]`: the equal-hand cells on an empty
/// field of each directory's `stats.csv` (or `rates.csv`), of a size in
/// `cards`. A hand size
/// found in two directories is refused rather than silently chosen. A
/// directory whose tables cannot be checked against their run adds a line
/// to `notes`. Interim tables (`runner interim`) are refused unless
/// `interim` allows them; their points then carry the mark.
fn read_series(
    spec: &str,
    cards: std::ops::RangeInclusive<u32>,
    interim: bool,
    notes: &mut Vec<String>,
) -> anyhow::Result<Series> {
    let (name, dirs) = spec
        .split_once('=')
        .filter(|(n, d)| !n.trim().is_empty() && !d.trim().is_empty())
        .ok_or_else(|| {
            anyhow!(
                "series `{spec}`: expected NAME=DIR[,DIR...], for example 8-cut=results/variant-cut,results/variant-cut-13"
            )
        })?;
    let mut points: Vec<RatePoint> = Vec::new();
    for dir in dirs.split(',').map(str::trim).map(PathBuf::from) {
        let recorded = Recorded::read(&dir)?;
        if let Some(manifest) = &recorded {
            manifest.check_hashes()?;
            notes.extend(manifest.unchecked_note());
        }
        let rates = read_dir_rates(&dir)?;
        let mark = recorded
            .and_then(|manifest| manifest.interim())
            .map(|facts| facts.share());
        if let Some(share) = &mark
            && !interim
        {
            anyhow::bail!(
                "series `{name}`: {} holds interim tables ({share} of a run not finished, by `runner interim`); give --interim to draw them marked as such",
                dir.display()
            );
        }
        for mut p in rates {
            p.interim.clone_from(&mark);
            if p.n_first != p.n_second
                || !cards.contains(&p.n_first)
                || !(p.field.is_empty() || p.field == "0")
            {
                continue;
            }
            if points.iter().any(|q| q.n_first == p.n_first) {
                anyhow::bail!(
                    "series `{name}`: {n}x{n} appears twice (again in {dir})",
                    n = p.n_first,
                    dir = dir.display()
                );
            }
            points.push(p);
        }
    }
    if points.is_empty() {
        anyhow::bail!(
            "series `{name}`: no n x n cell on an empty field in {dirs} (within --min-cards/--max-cards)"
        );
    }
    points.sort_by_key(|p| p.n_first);
    Ok(Series {
        name: name.trim().to_string(),
        points,
    })
}

/// The rate rows of a results directory's `stats.csv`, else `rates.csv`
/// (its hashes checked by the caller).
fn read_dir_rates(dir: &Path) -> anyhow::Result<Vec<RatePoint>> {
    let table = ["stats.csv", "rates.csv"]
        .iter()
        .map(|t| dir.join(t))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            anyhow!(
                "{}: no stats.csv or rates.csv (is it a results directory?)",
                dir.display()
            )
        })?;
    let bytes = crate::export::read_result_file(&table)?;
    read_rates(&bytes, &table.display().to_string())
}

/// Refuses an `--out` that would overwrite what it should not: a name not
/// ending in `.svg` (given `stats.csv`, the picture and then its points
/// were written over that very file), or a place in a run's results
/// directory (one holding `manifest.json`), whose tables and pictures the
/// manifest vouches for.
fn fit_output(out: &Path) -> Result<(), String> {
    let is_svg = out
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    if !is_svg {
        return Err(format!(
            "{}: the picture is SVG, and its points go beside it with the extension .csv; give a name ending in .svg",
            out.display()
        ));
    }
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    if dir.join(crate::export::manifest::FILE_NAME).exists() {
        return Err(format!(
            "{}: {} holds a run's results (it has a manifest.json); write the comparison elsewhere",
            out.display(),
            dir.display()
        ));
    }
    Ok(())
}

/// Writes `out` (SVG) and the CSV of its points beside it (`out` with the
/// extension `csv`). With `interim` (the flag), the CSV has a last column
/// `interim`, and interim points are named in the legend and under the
/// title; without it the outputs are as they always were.
fn write(
    series: &[Series],
    out: &Path,
    title: &str,
    interim: bool,
) -> anyhow::Result<Vec<PathBuf>> {
    let names: Vec<&str> = series.iter().map(|s| s.name.as_str()).collect();
    let labels = Labels {
        run: String::new(),
        context: format!("{}; exact where the interval is a point", names.join(", ")),
    };
    let marked: Vec<String> = series
        .iter()
        .flat_map(|s| {
            s.points.iter().filter_map(move |p| {
                let share = p.interim.as_ref()?;
                Some(format!("{} {}x{} ({share})", s.name, p.n_first, p.n_second))
            })
        })
        .collect();
    let mut note = String::from("95% intervals: Wilson for sampled cells");
    if !marked.is_empty() {
        note.push_str(&format!(
            "; interim, from runs not finished: {}",
            marked.join(", ")
        ));
    }
    let legend: Vec<Series> = series
        .iter()
        .map(|s| {
            let sizes: Vec<String> = s
                .points
                .iter()
                .filter(|p| p.interim.is_some())
                .map(|p| format!("{}x{}", p.n_first, p.n_second))
                .collect();
            let mut named = s.clone();
            if !sizes.is_empty() {
                named.name = format!("{} ({} interim)", s.name, sizes.join(", "));
            }
            named
        })
        .collect();
    let svg = rate_lines_svg(&legend, title, &labels, &note)?;
    let mut csv = String::from(
        "series,n_first,n_second,deals,first_win_rate,exact_fraction,ci95_low,ci95_high",
    );
    csv.push_str(if interim { ",interim\n" } else { "\n" });
    for s in series {
        for p in &s.points {
            csv.push_str(&format!(
                "{},{},{},{},{:.9},{},{:.9},{:.9}",
                csv_field(&s.name),
                p.n_first,
                p.n_second,
                p.deals,
                p.rate,
                p.exact,
                p.low,
                p.high
            ));
            if interim {
                csv.push(',');
                csv.push_str(p.interim.as_deref().unwrap_or(""));
            }
            csv.push('\n');
        }
    }
    let table = out.with_extension("csv");
    write_atomic(out, svg.as_bytes())?;
    write_atomic(&table, csv.as_bytes())?;
    Ok(vec![out.to_path_buf(), table])
}

/// A CSV field, quoted when it holds a comma or a quote.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}
