//! SVG pictures drawn from the CSV tables, with plotters' SVG backend.
//!
//! Both a run and `runner plot DIR` draw from the CSV bytes, so a picture
//! always shows exactly what the table says.

use anyhow::{Context, bail};
use plotters::prelude::*;
use std::path::Path;

/// One row of `stats.csv` or `rates.csv`: a cell's rate and its interval.
#[derive(Clone, Debug, PartialEq)]
pub struct RatePoint {
    /// Cards of the first player.
    pub n_first: u32,
    /// Cards of the second player.
    pub n_second: u32,
    /// First-player win rate.
    pub rate: f64,
    /// Lower end of its 95% interval.
    pub low: f64,
    /// Upper end of its 95% interval.
    pub high: f64,
}

/// The named columns of every row of a CSV table, as numbers. `what` names
/// the table in errors.
fn numeric_columns(bytes: &[u8], names: &[&str], what: &str) -> anyhow::Result<Vec<Vec<f64>>> {
    let mut r = csv::Reader::from_reader(bytes);
    let header = r.headers()?.clone();
    let idx: Vec<usize> = names
        .iter()
        .map(|n| {
            header
                .iter()
                .position(|h| h == *n)
                .with_context(|| format!("{what}: no column `{n}`"))
        })
        .collect::<anyhow::Result<_>>()?;
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec?;
        let row = idx
            .iter()
            .map(|&i| {
                rec[i]
                    .parse()
                    .with_context(|| format!("{what}: bad number `{}`", &rec[i]))
            })
            .collect::<anyhow::Result<Vec<f64>>>()?;
        rows.push(row);
    }
    Ok(rows)
}

/// Reads the rate columns of a `stats.csv` or `rates.csv`.
pub fn read_rates(bytes: &[u8], what: &str) -> anyhow::Result<Vec<RatePoint>> {
    let names = [
        "n_first",
        "n_second",
        "first_win_rate",
        "ci95_low",
        "ci95_high",
    ];
    Ok(numeric_columns(bytes, &names, what)?
        .into_iter()
        .map(|v| RatePoint {
            n_first: v[0] as u32,
            n_second: v[1] as u32,
            rate: v[2],
            low: v[3],
            high: v[4],
        })
        .collect())
}

/// First-player win rate against hand size, with the 95% interval as error
/// bars (zero width for exact rates). Cells with equal hands are drawn
/// against their size; with no equal cells, every cell against `n_first`.
pub fn rate_svg(points: &[RatePoint], title: &str) -> anyhow::Result<String> {
    let equal: Vec<&RatePoint> = points.iter().filter(|p| p.n_first == p.n_second).collect();
    let shown: Vec<&RatePoint> = if equal.is_empty() {
        points.iter().collect()
    } else {
        equal
    };
    if shown.is_empty() {
        bail!("no rows to plot");
    }
    let x_max = shown.iter().map(|p| p.n_first).max().unwrap_or(1) + 1;
    let y_lo = shown.iter().map(|p| p.low).fold(1.0, f64::min);
    let y_hi = shown.iter().map(|p| p.high).fold(0.0, f64::max);
    let pad = ((y_hi - y_lo) * 0.1).max(0.01);
    let (y_lo, y_hi) = ((y_lo - pad).max(0.0), (y_hi + pad).min(1.0));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (720, 440)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(0u32..x_max, y_lo..y_hi)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .x_desc("cards in each hand")
            .y_desc("first-player win rate")
            .draw()
            .map_err(plot_error)?;
        let blue = RGBColor(31, 90, 180);
        chart
            .draw_series(LineSeries::new(
                shown.iter().map(|p| (p.n_first, p.rate)),
                blue.stroke_width(1),
            ))
            .map_err(plot_error)?;
        chart
            .draw_series(
                shown
                    .iter()
                    .map(|p| ErrorBar::new_vertical(p.n_first, p.low, p.rate, p.high, blue, 8)),
            )
            .map_err(plot_error)?;
        chart
            .draw_series(
                shown
                    .iter()
                    .map(|p| Circle::new((p.n_first, p.rate), 3, blue.filled())),
            )
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// One row of `mu.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct MuCell {
    /// (n_first, n_second) of the cell.
    pub cell: (u32, u32),
    /// μ0 of the row.
    pub mu0: u32,
    /// μ1 of the row.
    pub mu1: u32,
    /// Weighted deals.
    pub deals: f64,
    /// Weighted first-player wins.
    pub first_wins: f64,
}

/// Reads `mu.csv`; `what` names it in errors.
pub fn read_mu(bytes: &[u8], what: &str) -> anyhow::Result<Vec<MuCell>> {
    let names = ["n_first", "n_second", "mu0", "mu1", "deals", "first_wins"];
    Ok(numeric_columns(bytes, &names, what)?
        .into_iter()
        .map(|v| MuCell {
            cell: (v[0] as u32, v[1] as u32),
            mu0: v[2] as u32,
            mu1: v[3] as u32,
            deals: v[4],
            first_wins: v[5],
        })
        .collect())
}

/// Heat map of the (μ0, μ1) table of the largest cell: colour is the share
/// of deals (log scale), and each square with deals is marked with its
/// first-player win rate, so the μ0 > μ1 boundary shows.
pub fn mu_svg(rows: &[MuCell], title: &str) -> anyhow::Result<String> {
    let Some(cell) = rows.iter().map(|r| r.cell).max_by_key(|&(a, b)| (a + b, a)) else {
        bail!("no rows to plot");
    };
    let rows: Vec<&MuCell> = rows.iter().filter(|r| r.cell == cell).collect();
    let total: f64 = rows.iter().map(|r| r.deals).sum();
    let side = rows.iter().map(|r| r.mu0.max(r.mu1)).max().unwrap_or(0) + 1;
    let min_share = rows
        .iter()
        .map(|r| r.deals / total)
        .fold(1.0, f64::min)
        .max(1e-12);
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (560, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{title}: {}x{} cards", cell.0, cell.1),
                ("sans-serif", 18),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(40)
            .build_cartesian_2d(0u32..side, 0u32..side)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("mu1 = mu(Y, X-)")
            .y_desc("mu0 = mu(X, Y- + {r})")
            .draw()
            .map_err(plot_error)?;
        chart
            .draw_series(rows.iter().map(|r| {
                let share = (r.deals / total).max(min_share);
                // 0 for the rarest square, 1 for the commonest (log scale).
                let t = if min_share < 1.0 {
                    (share.ln() - min_share.ln()) / (-min_share.ln())
                } else {
                    1.0
                };
                let shade = (235.0 - 200.0 * t) as u8;
                Rectangle::new(
                    [(r.mu1, r.mu0), (r.mu1 + 1, r.mu0 + 1)],
                    RGBColor(shade, shade, 255).filled(),
                )
            }))
            .map_err(plot_error)?;
        chart
            .draw_series(rows.iter().map(|r| {
                let rate = r.first_wins / r.deals.max(1.0);
                Text::new(
                    format!("{rate:.2}"),
                    (r.mu1, r.mu0 + 1),
                    ("sans-serif", 11).into_font(),
                )
            }))
            .map_err(plot_error)?;
        root.present().map_err(plot_error)?;
    }
    Ok(svg)
}

fn plot_error<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing failed: {e:?}")
}

/// The pictures for the tables in `tables`, as (file name, bytes): a rate
/// plot for `stats.csv` or `rates.csv`, a heat map for `mu.csv`.
pub fn pictures(tables: &[(&str, &[u8])], title: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
    let mut out = Vec::new();
    for &(name, bytes) in tables {
        match name {
            "stats.csv" | "rates.csv" => {
                let svg = rate_svg(&read_rates(bytes, name)?, title)?;
                out.push(("rates.svg".to_string(), svg.into_bytes()));
            }
            "mu.csv" => {
                let rows = read_mu(bytes, name)?;
                if !rows.is_empty() {
                    out.push(("mu.svg".to_string(), mu_svg(&rows, title)?.into_bytes()));
                }
            }
            _ => {}
        }
    }
    Ok(out)
}

/// `runner plot DIR`: redraws every picture from the CSVs in `dir`.
pub fn redraw(dir: &Path) -> anyhow::Result<Vec<String>> {
    let mut loaded = Vec::new();
    for name in ["stats.csv", "rates.csv", "mu.csv"] {
        let path = dir.join(name);
        if path.exists() {
            let bytes =
                std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
            loaded.push((name, bytes));
        }
    }
    if loaded.is_empty() {
        return Err(crate::error::refuse(format!(
            "{}: no stats.csv, rates.csv or mu.csv to plot",
            dir.display()
        )));
    }
    let title = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tables: Vec<(&str, &[u8])> = loaded.iter().map(|(n, b)| (*n, b.as_slice())).collect();
    let mut written = Vec::new();
    for (name, bytes) in pictures(&tables, &title)? {
        super::write_atomic(&dir.join(&name), &bytes)?;
        written.push(dir.join(&name).display().to_string());
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_plot_has_one_marker_per_equal_cell() {
        let csv = b"n_first,n_second,first_win_rate,ci95_low,ci95_high\n1,1,1.0,1.0,1.0\n2,2,0.54,0.53,0.55\n3,4,0.6,0.6,0.6\n";
        let pts = read_rates(csv, "t").unwrap();
        assert_eq!(pts.len(), 3);
        let svg = rate_svg(&pts, "t").unwrap();
        assert!(svg.starts_with("<svg"));
        // One filled marker per plotted cell (the error bars add hollow ones).
        let filled = svg
            .lines()
            .filter(|l| l.starts_with("<circle") && !l.contains("fill=\"none\""))
            .count();
        assert_eq!(filled, 2, "only the equal cells");
        assert!(svg.contains("first-player win rate"));
    }

    #[test]
    fn mu_heat_map_draws_a_square_per_row_of_the_largest_cell() {
        let csv = b"n_first,n_second,field,mu0,mu1,deals,first_wins\n1,1,0,1,0,10,10\n2,2,0,1,1,5,0\n2,2,0,2,0,7,7\n2,2,0,0,1,1,0\n";
        let rows = read_mu(csv, "t").unwrap();
        let svg = mu_svg(&rows, "t").unwrap();
        assert!(svg.contains("2x2 cards"));
        let labels: Vec<&str> = svg.lines().map(str::trim).collect();
        assert!(labels.contains(&"1.00") && labels.contains(&"0.00"));
        assert!(
            svg.matches("<rect").count() >= 4,
            "background and three squares"
        );
    }

    #[test]
    fn missing_columns_are_named() {
        let e = read_rates(b"a,b\n1,2\n", "stats.csv").unwrap_err();
        assert!(e.to_string().contains("n_first"), "{e}");
    }
}
