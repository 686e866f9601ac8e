//! SVG pictures drawn from the CSV tables, with plotters' SVG backend.
//!
//! Both a run and `runner plot DIR` draw from the CSV bytes, so a picture
//! always shows exactly what the table says. Every picture is meant to go
//! into a paper as it is: a title naming the run and what is drawn, a line
//! naming the study, deck, field and mode, labelled axes, a colour scale
//! wherever colour carries a number, and every cell of the run (or a line
//! saying which cells are shown).

mod mu;
mod rates;
mod read;
mod style;

pub use mu::mu_svg;
pub use rates::{Series, rate_grid_svg, rate_line_svg, rate_lines_svg, rate_single_svg};
pub use read::{MuCell, RatePoint, read_mu, read_rates};
pub use style::Labels;

use anyhow::Context;
use read::{MU_READ_COLUMNS, RATE_COLUMNS};
use std::path::Path;

const RATES_SVG: &str = "rates.svg";
const RATES_GRID_SVG: &str = "rates-grid.svg";
const MU_SVG: &str = "mu.svg";
/// Every file [`pictures`] may write, for checks made before a run.
pub const PICTURE_NAMES: [&str; 3] = [RATES_SVG, RATES_GRID_SVG, MU_SVG];

/// Refuses a table [`pictures`] reads (`stats.csv`, `rates.csv`,
/// `mu.csv`) when it holds a number no run writes: a rate outside [0, 1] or
/// its interval, or more wins than deals. For `report`, which shows any
/// table rather than drawing it, so a table without the columns drawn is
/// shown as it is; `what` names the file in the message.
pub fn refuse_impossible_rates(name: &str, bytes: &[u8], what: &str) -> anyhow::Result<()> {
    let header = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    let header = String::from_utf8_lossy(header);
    let has_all = |names: &[&str]| {
        names
            .iter()
            .all(|n| header.trim_end().split(',').any(|h| h == *n))
    };
    match name {
        "stats.csv" | "rates.csv" if has_all(&RATE_COLUMNS) => read_rates(bytes, what).map(drop),
        "mu.csv" if has_all(&MU_READ_COLUMNS) => read_mu(bytes, what).map(drop),
        // Without its interval a rate can still be one no run writes.
        _ if has_all(&["first_win_rate"]) => read::refuse_rates_outside_0_1(bytes, what),
        _ => Ok(()),
    }
}

/// The pictures for the tables in `tables`, as (file name, bytes).
///
/// From `stats.csv` or `rates.csv`: `rates.svg`, which is the rate against
/// hand size when every cell has equal hands, the one cell itself for a
/// run of one cell, and the n_first by n_second grid otherwise. A run with
/// both kinds of cell gets the line of its equal cells in `rates.svg` and
/// every cell in `rates-grid.svg`. From `mu.csv`: the heat maps in `mu.svg`.
pub fn pictures(
    tables: &[(&str, &[u8])],
    labels: &Labels,
) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for &(name, bytes) in tables {
        match name {
            "stats.csv" | "rates.csv" => {
                let points = read_rates(bytes, name)?;
                let equal: Vec<RatePoint> = points
                    .iter()
                    .filter(|p| p.n_first == p.n_second)
                    .cloned()
                    .collect();
                if points.is_empty() {
                    continue;
                } else if points.len() == 1 {
                    out.push((
                        RATES_SVG.into(),
                        rate_single_svg(&points[0], labels)?.into_bytes(),
                    ));
                } else if equal.len() == points.len() {
                    out.push((
                        RATES_SVG.into(),
                        rate_line_svg(&points, labels, "")?.into_bytes(),
                    ));
                } else if equal.len() >= 2 {
                    let note = format!(
                        "the {} cells with equal hands; all {} cells are in rates-grid.svg",
                        equal.len(),
                        points.len()
                    );
                    out.push((
                        RATES_SVG.into(),
                        rate_line_svg(&equal, labels, &note)?.into_bytes(),
                    ));
                    out.push((
                        RATES_GRID_SVG.into(),
                        rate_grid_svg(&points, labels)?.into_bytes(),
                    ));
                } else {
                    out.push((
                        RATES_SVG.into(),
                        rate_grid_svg(&points, labels)?.into_bytes(),
                    ));
                }
            }
            "mu.csv" => {
                let rows = read_mu(bytes, name)?;
                if !rows.is_empty() {
                    out.push((MU_SVG.to_string(), mu_svg(&rows, labels)?.into_bytes()));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// `runner plot DIR`: redraws every picture from the CSVs in `dir`.
pub fn redraw(
    dir: &Path,
    manifest: Option<&super::manifest::Recorded>,
    labels: &Labels,
) -> anyhow::Result<Vec<String>> {
    if let Some(recorded) = manifest {
        recorded.check_hashes()?;
    }
    let mut loaded = Vec::new();
    for name in ["stats.csv", "rates.csv", "mu.csv"] {
        let path = dir.join(name);
        if path.exists() {
            loaded.push((name, super::read_result_file(&path)?));
        }
    }
    if loaded.is_empty() {
        return Err(crate::error::refuse(format!(
            "{}: no stats.csv, rates.csv or mu.csv to plot",
            dir.display()
        )));
    }
    let tables: Vec<(&str, &[u8])> = loaded.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    let mut written = Vec::new();
    let drawn = pictures(&tables, labels).with_context(|| dir.display().to_string())?;
    for (name, bytes) in drawn {
        super::write_atomic(&dir.join(&name), &bytes)?;
        written.push(dir.join(&name).display().to_string());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels() -> Labels {
        Labels {
            run: "demo".into(),
            context: "tanhinmin · 52 cards (13 ranks × 4) · empty field · every deal (exact)"
                .into(),
        }
    }

    /// The text of every `<text>` element, trimmed.
    fn texts(svg: &str) -> Vec<String> {
        svg.split("<text")
            .skip(1)
            .filter_map(|t| {
                let body = t.split_once('>')?.1;
                Some(body.split("</text>").next()?.trim().to_string())
            })
            .collect()
    }

    fn filled_circles(svg: &str) -> usize {
        svg.lines()
            .filter(|l| l.starts_with("<circle") && !l.contains("fill=\"none\""))
            .count()
    }

    const EQUAL: &[u8] =
        b"n_first,n_second,deals,first_win_rate,exact_fraction,ci95_low,ci95_high\n\
        1,1,2652,1.0,1/1,1.0,1.0\n2,2,1624350,0.54,661/1225,0.54,0.54\n3,3,9,0.68,2/3,0.68,0.68\n";

    #[test]
    fn equal_cells_are_a_line_with_title_context_and_axes() {
        let pics = pictures(&[("stats.csv", EQUAL)], &labels()).unwrap();
        assert_eq!(pics.len(), 1);
        let svg = String::from_utf8(pics[0].1.clone()).unwrap();
        assert_eq!(filled_circles(&svg), 3, "one marker per cell");
        let t = texts(&svg);
        assert!(
            t.iter()
                .any(|s| s.starts_with("demo: first-player win rate")),
            "{t:?}"
        );
        assert!(
            t.iter()
                .any(|s| s.contains("52 cards") && s.contains("empty field"))
        );
        assert!(t.iter().any(|s| s == "cards in each hand"));
        assert!(t.iter().any(|s| s.starts_with("first-player win rate")));
    }

    #[test]
    fn unequal_cells_get_a_grid_with_every_cell_and_a_colour_scale() {
        let csv = b"n_first,n_second,first_win_rate,ci95_low,ci95_high\n\
            1,1,1.0,1.0,1.0\n2,2,0.54,0.53,0.55\n3,4,0.61,0.6,0.62\n4,3,0.47,0.46,0.48\n";
        let pics = pictures(&[("stats.csv", csv)], &labels()).unwrap();
        let names: Vec<&str> = pics.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["rates.svg", "rates-grid.svg"]);
        let line = String::from_utf8(pics[0].1.clone()).unwrap();
        assert_eq!(filled_circles(&line), 2, "the line has the equal cells");
        assert!(
            texts(&line)
                .iter()
                .any(|s| s.contains("all 4 cells are in rates-grid.svg"))
        );
        let grid = String::from_utf8(pics[1].1.clone()).unwrap();
        let t = texts(&grid);
        for rate in ["1.000", "0.540", "0.610", "0.470"] {
            assert!(t.iter().any(|s| s == rate), "{rate} missing from {t:?}");
        }
        assert!(t.iter().any(|s| s == "win rate"), "colour scale title");
        assert!(
            t.iter().any(|s| s.starts_with("n_first"))
                && t.iter().any(|s| s.starts_with("n_second"))
        );
        // Only unequal cells: the grid is rates.svg itself.
        let only = b"n_first,n_second,first_win_rate,ci95_low,ci95_high\n10,12,0.5,0.49,0.51\n12,10,0.52,0.51,0.53\n";
        let pics = pictures(&[("stats.csv", only)], &labels()).unwrap();
        assert_eq!(pics.len(), 1);
        assert!(
            texts(std::str::from_utf8(&pics[0].1).unwrap())
                .iter()
                .any(|s| s == "0.520")
        );
    }

    #[test]
    fn a_single_cell_is_drawn_with_its_numbers() {
        let csv = b"n_first,n_second,deals,first_win_rate,exact_fraction,ci95_low,ci95_high\n\
            8,8,133374313242220050,0.575164091,30261189615611/52613141318430,0.575164091,0.575164091\n";
        let pics = pictures(&[("stats.csv", csv)], &labels()).unwrap();
        let t = texts(std::str::from_utf8(&pics[0].1).unwrap());
        assert!(
            t.iter()
                .any(|s| s.contains("8x8 cards: first-player win rate 0.575164")),
            "{t:?}"
        );
        assert!(
            t.iter()
                .any(|s| s == "exact: 30261189615611/52613141318430")
        );
        assert!(
            t.iter()
                .any(|s| s.starts_with("133,374,313,242,220,050 deals"))
        );
        assert!(t.iter().any(|s| s == "even (0.5)"));
        let sampled = b"n_first,n_second,deals,first_win_rate,exact_fraction,ci95_low,ci95_high\n13,13,1000000,0.558778,,0.5578,0.5597\n";
        let pics = pictures(&[("stats.csv", sampled)], &labels()).unwrap();
        let t = texts(std::str::from_utf8(&pics[0].1).unwrap());
        assert!(
            t.iter().any(|s| s == "95% interval [0.557800, 0.559700]"),
            "{t:?}"
        );
    }

    const MU: &[u8] = b"n_first,n_second,field,mu0,mu1,deals,first_wins\n\
        1,1,0,1,0,10,10\n2,2,0,1,1,5,0\n2,2,0,2,0,7,7\n2,2,0,0,1,1,0\n3,2,0,2,1,4,4\n";

    #[test]
    fn mu_heat_map_has_a_panel_per_cell_a_colour_scale_and_centred_ticks() {
        let rows = read_mu(MU, "t").unwrap();
        let svg = mu_svg(&rows, &labels()).unwrap();
        let t = texts(&svg);
        for panel in ["1x1 cards", "2x2 cards", "3x2 cards"] {
            assert!(t.iter().any(|s| s == panel), "{panel} missing: {t:?}");
        }
        assert!(t.iter().any(|s| s == "every cell of the run (3)"));
        assert!(t.iter().any(|s| s == "(log scale)"), "colour scale");
        assert!(t.iter().any(|s| s == "1.00") && t.iter().any(|s| s == "0.00"));
        // Ticks sit on square centres: labels run 0..side-1, never `side`.
        let ticks: Vec<&String> = t.iter().filter(|s| s.parse::<u32>().is_ok()).collect();
        assert!(ticks.iter().any(|s| *s == "0") && ticks.iter().any(|s| *s == "2"));
        assert!(
            !ticks.iter().any(|s| *s == "3"),
            "a tick on the outer edge: {ticks:?}"
        );
    }

    #[test]
    fn mu_heat_map_says_which_cells_it_shows_when_there_are_many() {
        let mut csv = String::from("n_first,n_second,field,mu0,mu1,deals,first_wins\n");
        for n in 1..=15 {
            csv.push_str(&format!("{n},{n},0,1,0,3,3\n"));
        }
        let svg = mu_svg(&read_mu(csv.as_bytes(), "t").unwrap(), &labels()).unwrap();
        let t = texts(&svg);
        assert!(
            t.iter()
                .any(|s| s.starts_with("the 12 largest of 15 cells in the run, from 4x4")),
            "{t:?}"
        );
        assert!(t.iter().any(|s| s == "15x15 cards") && !t.iter().any(|s| s == "3x3 cards"));
    }

    #[test]
    fn missing_columns_and_bad_numbers_are_named() {
        let e = read_rates(b"a,b\n1,2\n", "stats.csv").unwrap_err();
        assert!(e.to_string().contains("n_first"), "{e}");
        let e = read_rates(
            b"n_first,n_second,first_win_rate,ci95_low,ci95_high\n1,1,NaN,0,1\n",
            "stats.csv",
        )
        .unwrap_err();
        assert!(e.to_string().contains("bad number"), "{e}");
    }

    #[test]
    fn rates_that_cannot_be_are_refused_not_clamped() {
        let head = "n_first,n_second,first_win_rate,ci95_low,ci95_high\n";
        let good = format!("{head}3,3,0.5,0.4,0.6\n1,1,1,1,1\n2,2,0,0,0\n");
        assert_eq!(read_rates(good.as_bytes(), "stats.csv").unwrap().len(), 3);
        for row in [
            "3,3,1.5,0.4,1",
            "3,3,-0.1,0,0.6",
            "3,3,0.5,0.6,0.7",
            "3,3,0.5,0.4,1.2",
        ] {
            let e = read_rates(format!("{head}{row}\n").as_bytes(), "stats.csv").unwrap_err();
            assert!(e.to_string().contains("stats.csv: 3x3"), "{row}: {e}");
        }
        // A table with the rate alone is checked for [0, 1] all the same.
        let head = "n_first,n_second,first_win_rate\n";
        let alone = |row: &str| format!("{head}{row}\n").into_bytes();
        assert!(refuse_impossible_rates("stats.csv", &alone("3,3,0.5"), "t").is_ok());
        assert!(refuse_impossible_rates("x.csv", &alone("3,3,"), "t").is_ok());
        for row in ["3,3,1.5", "3,3,-0.1", "3,3,NaN", "3,3,inf", "3,3,half"] {
            let e = refuse_impossible_rates("x.csv", &alone(row), "t.csv").unwrap_err();
            assert!(e.to_string().starts_with("t.csv: row 1:"), "{row}: {e}");
        }
        let head = "n_first,n_second,mu0,mu1,deals,first_wins\n";
        assert!(read_mu(format!("{head}3,3,1,2,10,10\n").as_bytes(), "mu.csv").is_ok());
        let e = read_mu(format!("{head}3,3,1,2,10,11\n").as_bytes(), "mu.csv").unwrap_err();
        assert!(
            e.to_string().contains("11 first-player wins of 10 deals"),
            "{e}"
        );
    }
}
