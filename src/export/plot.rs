//! SVG pictures drawn from the CSV tables, with plotters' SVG backend.
//!
//! Both a run and `runner plot DIR` draw from the CSV bytes, so a picture
//! always shows exactly what the table says. Every picture is meant to go
//! into a paper as it is: a title naming the run and what is drawn, a line
//! naming the study, deck, field and mode, labelled axes, a colour scale
//! wherever colour carries a number, and every cell of the run (or a line
//! saying which cells are shown).

use crate::error::refuse;
use anyhow::{Context, bail};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::path::Path;

/// What every picture says about the run it comes from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    /// The run's name (`[experiment] name`).
    pub run: String,
    /// Study, deck, starting field and mode in one line; empty when unknown.
    pub context: String,
}

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
    /// The `deals` column as written (exact integers can pass 2^53).
    pub deals: String,
    /// The `exact_fraction` column as written; empty for sampled cells.
    pub exact: String,
    /// The `field` column as written (the starting field card, 0 = empty).
    pub field: String,
    /// How much of its run an interim table counts ("234 of 1000
    /// chunks"); `None` for a finished run's.
    pub interim: Option<String>,
}

/// The header positions of `names` in a CSV table; `what` names the table.
fn column_positions(
    header: &csv::StringRecord,
    names: &[&str],
    what: &str,
) -> anyhow::Result<Vec<usize>> {
    names
        .iter()
        .map(|n| {
            header
                .iter()
                .position(|h| h == *n)
                .ok_or_else(|| refuse(format!("{what}: no column `{n}`")))
        })
        .collect()
}

/// The named columns of every row of a CSV table, as numbers, followed by
/// the optional text columns `texts` (empty where a table lacks one). A
/// table that does not parse is refused ([`refuse`]): the file is wrong, so
/// `runner plot` and `runner compare` exit 2 naming it, not 3.
fn read_rows(
    bytes: &[u8],
    names: &[&str],
    texts: &[&str],
    what: &str,
) -> anyhow::Result<Vec<(Vec<f64>, Vec<String>)>> {
    let mut r = csv::Reader::from_reader(bytes);
    let header = r
        .headers()
        .map_err(|e| refuse(format!("{what}: cannot read its header: {e}")))?
        .clone();
    let idx = column_positions(&header, names, what)?;
    let text_idx: Vec<Option<usize>> = texts
        .iter()
        .map(|t| header.iter().position(|h| h == *t))
        .collect();
    let mut rows = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(|e| refuse(format!("{what}: bad CSV row: {e}")))?;
        let numbers = idx
            .iter()
            .map(|&i| {
                let field = rec.get(i).unwrap_or("");
                match field.parse::<f64>() {
                    Ok(v) if v.is_finite() => Ok(v),
                    _ => Err(refuse(format!("{what}: bad number `{field}`"))),
                }
            })
            .collect::<anyhow::Result<Vec<f64>>>()?;
        let strings = text_idx
            .iter()
            .map(|i| i.and_then(|i| rec.get(i)).unwrap_or("").to_string())
            .collect();
        rows.push((numbers, strings));
    }
    Ok(rows)
}

/// The columns [`read_rates`] needs.
const RATE_COLUMNS: [&str; 5] = [
    "n_first",
    "n_second",
    "first_win_rate",
    "ci95_low",
    "ci95_high",
];

/// The columns [`read_mu`] needs.
const MU_READ_COLUMNS: [&str; 6] = ["n_first", "n_second", "mu0", "mu1", "deals", "first_wins"];

/// Reads the rate columns of a `stats.csv` or `rates.csv`.
pub fn read_rates(bytes: &[u8], what: &str) -> anyhow::Result<Vec<RatePoint>> {
    read_rows(bytes, &RATE_COLUMNS, &["deals", "exact_fraction", "field"], what)?
        .into_iter()
        .map(|(v, mut t)| {
            // A rate outside [0, 1], or outside its own interval, is a table
            // edited by hand or damaged: drawing it clamped would show a
            // number no run wrote.
            let (rate, low, high) = (v[2], v[3], v[4]);
            if !(0.0 <= low && low <= rate && rate <= high && high <= 1.0) {
                return Err(refuse(format!(
                    "{what}: {}x{}: rate {rate} with interval [{low}, {high}] is not a rate inside its interval within [0, 1]",
                    v[0], v[1]
                )));
            }
            Ok(RatePoint {
                field: t.pop().unwrap_or_default(),
                n_first: v[0] as u32,
                n_second: v[1] as u32,
                rate,
                low,
                high,
                exact: t.pop().unwrap_or_default(),
                deals: t.pop().unwrap_or_default(),
                interim: None,
            })
        })
        .collect()
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
    read_rows(bytes, &MU_READ_COLUMNS, &[], what)?
        .into_iter()
        .map(|(v, _)| {
            if !(0.0 <= v[5] && v[5] <= v[4]) {
                return Err(refuse(format!(
                    "{what}: μ ({}, {}) of {}x{}: {} first-player wins of {} deals",
                    v[2], v[3], v[0], v[1], v[5], v[4]
                )));
            }
            Ok(MuCell {
                cell: (v[0] as u32, v[1] as u32),
                mu0: v[2] as u32,
                mu1: v[3] as u32,
                deals: v[4],
                first_wins: v[5],
            })
        })
        .collect()
}

const WIDTH: u32 = 760;
const BLUE: RGBColor = RGBColor(31, 90, 180);
const GREY: RGBColor = RGBColor(110, 110, 110);
const LIGHT: RGBColor = RGBColor(200, 200, 200);
/// Width of the colour-scale strip on the right of a heat map.
const SCALE_WIDTH: u32 = 120;
/// The most μ panels one picture holds; a run with more cells shows its
/// largest ones and says so.
const MAX_MU_PANELS: usize = 12;

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn plot_error<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing failed: {e:?}")
}

fn text_style(size: u32, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(h, v))
}

/// Fills `root`, draws the title, the context line and an optional note on
/// top, and returns the area left below them.
fn headed<'a>(
    root: Area<'a>,
    title: &str,
    labels: &Labels,
    note: &str,
) -> anyhow::Result<Area<'a>> {
    root.fill(&WHITE).map_err(plot_error)?;
    let mid = root.dim_in_pixel().0 as i32 / 2;
    let mut y = 8;
    root.draw(&Text::new(
        title.to_string(),
        (mid, y),
        text_style(19, HPos::Center, VPos::Top),
    ))
    .map_err(plot_error)?;
    y += 26;
    for line in [labels.context.as_str(), note] {
        if !line.is_empty() {
            let style = text_style(13, HPos::Center, VPos::Top).color(&GREY);
            root.draw(&Text::new(line.to_string(), (mid, y), style))
                .map_err(plot_error)?;
            y += 19;
        }
    }
    Ok(root.split_vertically(y + 6).1)
}

/// A linear axis whose tick marks sit exactly at `ticks`: at square
/// centres for heat maps, at whole hand sizes for rate lines. (plotters'
/// own `with_key_points` cannot take label formatters on an f64 axis.)
struct TickedAxis {
    range: std::ops::Range<f64>,
    ticks: Vec<f64>,
}

impl TickedAxis {
    fn new(range: std::ops::Range<f64>, ticks: Vec<f64>) -> Self {
        TickedAxis { range, ticks }
    }
}

impl Ranged for TickedAxis {
    type FormatOption = plotters::coord::ranged1d::DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let t = if span > 0.0 {
            (value - self.range.start) / span
        } else {
            0.0
        };
        limit.0 + (t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<Hint: plotters::coord::ranged1d::KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.range.clone()
    }
}

/// Evenly spaced positions `first..=last` of at most about `most` ticks.
fn ticks(first: u32, last: u32, most: u32) -> Vec<u32> {
    let step = (last.saturating_sub(first) / most.max(1) + 1).max(1);
    (first..=last).step_by(step as usize).collect()
}

/// Interpolates between colour stops spread evenly over [0, 1].
fn blend(stops: &[(u8, u8, u8)], t: f64) -> RGBColor {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let span = (stops.len() - 1) as f64;
    let i = ((t * span).floor() as usize).min(stops.len() - 2);
    let f = t * span - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (stops[i], stops[i + 1]);
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Light to dark blue: how common a square is.
fn sequential(t: f64) -> RGBColor {
    blend(
        &[
            (247, 251, 255),
            (158, 202, 225),
            (33, 113, 181),
            (8, 48, 107),
        ],
        t,
    )
}

/// Red through white to blue: second player ahead, even, first player ahead.
fn diverging(t: f64) -> RGBColor {
    blend(
        &[
            (178, 24, 43),
            (244, 165, 130),
            (247, 247, 247),
            (146, 197, 222),
            (33, 102, 172),
        ],
        t,
    )
}

/// Black or white, whichever reads on `c`.
fn ink_on(c: RGBColor) -> &'static RGBColor {
    let luma = 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
    if luma < 120.0 { &WHITE } else { &BLACK }
}

/// A vertical colour scale in `area`: `title` above it, the colours of
/// `colour(t)` for t from 0 (bottom) to 1 (top), and `marks` as (t, label).
fn colour_scale(
    area: &Area<'_>,
    title: &[&str],
    colour: impl Fn(f64) -> RGBColor,
    marks: &[(f64, String)],
) -> anyhow::Result<()> {
    let (_, h) = area.dim_in_pixel();
    let (x0, x1) = (14, 34);
    let top = 30 + 16 * title.len() as i32;
    let bottom = (h as i32 - 60).max(top + 40);
    for (i, line) in title.iter().enumerate() {
        area.draw(&Text::new(
            line.to_string(),
            (6, 24 + 16 * i as i32),
            text_style(12, HPos::Left, VPos::Top),
        ))
        .map_err(plot_error)?;
    }
    let steps = 100;
    let span = (bottom - top) as f64;
    for s in 0..steps {
        let t0 = s as f64 / steps as f64;
        let t1 = (s + 1) as f64 / steps as f64;
        let y_hi = bottom - (t1 * span).round() as i32;
        let y_lo = bottom - (t0 * span).round() as i32;
        area.draw(&Rectangle::new(
            [(x0, y_hi), (x1, y_lo)],
            colour((t0 + t1) / 2.0).filled(),
        ))
        .map_err(plot_error)?;
    }
    area.draw(&Rectangle::new(
        [(x0, top), (x1, bottom)],
        GREY.stroke_width(1),
    ))
    .map_err(plot_error)?;
    for (t, label) in marks {
        let y = bottom - (t.clamp(0.0, 1.0) * span).round() as i32;
        area.draw(&PathElement::new(
            vec![(x1, y), (x1 + 5, y)],
            GREY.stroke_width(1),
        ))
        .map_err(plot_error)?;
        area.draw(&Text::new(
            label.clone(),
            (x1 + 8, y),
            text_style(12, HPos::Left, VPos::Center),
        ))
        .map_err(plot_error)?;
    }
    Ok(())
}

/// Rate against hand size for cells with equal hands, with the 95% interval
/// as error bars (zero width for exact rates) and the even line at 0.5.
pub fn rate_line_svg(points: &[RatePoint], labels: &Labels, note: &str) -> anyhow::Result<String> {
    let title = format!("{}: first-player win rate by hand size", labels.run);
    let series = [Series {
        name: String::new(),
        points: points.to_vec(),
    }];
    rate_lines_svg(&series, &title, labels, note)
}

/// One line of a comparison: a name for the legend and its cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    /// The legend's name for it (empty: no legend).
    pub name: String,
    /// Its cells, drawn at `n_first`.
    pub points: Vec<RatePoint>,
}

/// Colours of the series, in order: blue, orange, green, purple, then
/// again (a colour-blind-safe start of the Okabe-Ito order, darkened).
const SERIES_COLOURS: [RGBColor; 4] = [
    BLUE,
    RGBColor(213, 110, 0),
    RGBColor(0, 140, 100),
    RGBColor(150, 60, 150),
];

/// First-player rate against cards in each hand, one line per series with
/// its 95% intervals; series sharing a hand size are drawn side by side so
/// their intervals stay readable. A legend names the series when there are
/// several.
pub fn rate_lines_svg(
    series: &[Series],
    title: &str,
    labels: &Labels,
    note: &str,
) -> anyhow::Result<String> {
    let points = || series.iter().flat_map(|s| s.points.iter());
    if points().next().is_none() {
        bail!("no rows to plot");
    }
    let n_min = points().map(|p| p.n_first).min().unwrap_or(1);
    let n_max = points().map(|p| p.n_first).max().unwrap_or(1);
    let (x_lo, x_hi) = (n_min as f64 - 0.7, n_max as f64 + 0.7);
    let y_lo = points().map(|p| p.low).fold(0.5, f64::min);
    let y_hi = points().map(|p| p.high).fold(0.5, f64::max);
    let pad = ((y_hi - y_lo) * 0.08).max(0.01);
    let (y_lo, y_hi) = ((y_lo - pad).max(0.0), (y_hi + pad).min(1.0));
    let xs: Vec<f64> = ticks(n_min, n_max, 14).into_iter().map(f64::from).collect();
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 480)).into_drawing_area();
        let area = headed(root, title, labels, note)?;
        let mut chart = ChartBuilder::on(&area)
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(TickedAxis::new(x_lo..x_hi, xs), y_lo..y_hi)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .light_line_style(WHITE)
            .x_desc("cards in each hand")
            .y_desc("first-player win rate (95% interval)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.2}"))
            .draw()
            .map_err(plot_error)?;
        chart
            .draw_series(LineSeries::new(
                [(x_lo, 0.5), (x_hi, 0.5)],
                LIGHT.stroke_width(1),
            ))
            .map_err(plot_error)?;
        let spread = 0.12 * (series.len().saturating_sub(1)) as f64;
        for (k, s) in series.iter().enumerate() {
            let colour = SERIES_COLOURS[k % SERIES_COLOURS.len()];
            let dx = if series.len() > 1 {
                -spread / 2.0 + 0.12 * k as f64
            } else {
                0.0
            };
            let mut sorted: Vec<&RatePoint> = s.points.iter().collect();
            sorted.sort_by_key(|p| p.n_first);
            let at = |p: &RatePoint| p.n_first as f64 + dx;
            let line = chart
                .draw_series(LineSeries::new(
                    sorted.iter().map(|p| (at(p), p.rate)),
                    colour.stroke_width(1),
                ))
                .map_err(plot_error)?;
            if !s.name.is_empty() {
                line.label(s.name.clone()).legend(move |(x, y)| {
                    PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2))
                });
            }
            chart
                .draw_series(
                    sorted
                        .iter()
                        .map(|p| ErrorBar::new_vertical(at(p), p.low, p.rate, p.high, colour, 8)),
                )
                .map_err(plot_error)?;
            chart
                .draw_series(
                    sorted
                        .iter()
                        .map(|p| Circle::new((at(p), p.rate), 3, colour.filled())),
                )
                .map_err(plot_error)?;
        }
        if series.iter().any(|s| !s.name.is_empty()) {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.9))
                .border_style(LIGHT)
                .label_font(text_style(13, HPos::Left, VPos::Center))
                .draw()
                .map_err(plot_error)?;
        }
        area.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// A run of one cell: its rate on a rate axis, with the interval, the even
/// line at 0.5, and the numbers a reader would quote.
pub fn rate_single_svg(p: &RatePoint, labels: &Labels) -> anyhow::Result<String> {
    let exact = !p.exact.is_empty();
    let lo = p.low.min(0.5);
    let hi = p.high.max(0.5);
    let pad = ((hi - lo) * 0.25).max(0.02);
    let (x_lo, x_hi) = ((lo - pad).max(0.0), (hi + pad).min(1.0));
    let mut lines = vec![format!(
        "{}x{} cards: first-player win rate {:.6}",
        p.n_first, p.n_second, p.rate
    )];
    if exact {
        lines.push(format!("exact: {}", p.exact));
    } else {
        lines.push(format!("95% interval [{:.6}, {:.6}]", p.low, p.high));
    }
    if !p.deals.is_empty() {
        let kind = if exact {
            "deals counted (every deal)"
        } else {
            "random deals"
        };
        lines.push(format!("{} {kind}", super::grouped_digits(&p.deals)));
    }
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (WIDTH, 360)).into_drawing_area();
        let title = format!("{}: first-player win rate", labels.run);
        let area = headed(root, &title, labels, "")?;
        let (text_area, plot_area) = area.split_vertically(24 * lines.len() as u32 + 12);
        let mid = text_area.dim_in_pixel().0 as i32 / 2;
        for (i, line) in lines.iter().enumerate() {
            let size = if i == 0 { 16 } else { 14 };
            text_area
                .draw(&Text::new(
                    line.clone(),
                    (mid, 4 + 24 * i as i32),
                    text_style(size, HPos::Center, VPos::Top),
                ))
                .map_err(plot_error)?;
        }
        let mut chart = ChartBuilder::on(&plot_area)
            .margin(20)
            .x_label_area_size(44)
            .y_label_area_size(10)
            .build_cartesian_2d(x_lo..x_hi, 0.0..1.0)
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .disable_y_axis()
            .light_line_style(WHITE)
            .x_desc("first-player win rate")
            .x_label_formatter(&|x| format!("{x:.3}"))
            .draw()
            .map_err(plot_error)?;
        chart
            .draw_series(LineSeries::new(
                [(0.5, 0.0), (0.5, 1.0)],
                GREY.stroke_width(1),
            ))
            .map_err(plot_error)?;
        chart
            .draw_series([Text::new(
                "even (0.5)".to_string(),
                (0.5, 0.95),
                text_style(12, HPos::Center, VPos::Bottom).color(&GREY),
            )])
            .map_err(plot_error)?;
        chart
            .draw_series([ErrorBar::new_horizontal(
                0.5,
                p.low,
                p.rate,
                p.high,
                BLUE.stroke_width(2),
                16,
            )])
            .map_err(plot_error)?;
        chart
            .draw_series([Circle::new((p.rate, 0.5), 6, BLUE.filled())])
            .map_err(plot_error)?;
        plot_area.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// Every cell as a square of an n_first by n_second grid, coloured by its
/// rate on a scale centred at 0.5, with the rate written in the square
/// when there is room. Squares of cells the run did not have stay blank.
pub fn rate_grid_svg(points: &[RatePoint], labels: &Labels) -> anyhow::Result<String> {
    if points.is_empty() {
        bail!("no rows to plot");
    }
    let max = points
        .iter()
        .map(|p| p.n_first.max(p.n_second))
        .max()
        .unwrap_or(1);
    let min = points
        .iter()
        .map(|p| p.n_first.min(p.n_second))
        .min()
        .unwrap_or(1);
    // The scale reaches the rate furthest from 0.5, in steps of 0.05.
    let reach = points
        .iter()
        .map(|p| (p.rate - 0.5).abs())
        .fold(0.0, f64::max);
    let reach = ((reach / 0.05).ceil() * 0.05).clamp(0.05, 0.5);
    let t_of = |rate: f64| (rate - 0.5) / (2.0 * reach) + 0.5;
    let side = (max - min + 1) as f64;
    let plot_w = WIDTH - SCALE_WIDTH;
    let square_px = (plot_w as f64 - 90.0) / side;
    let font = (square_px * 0.3).min(13.0) as u32;
    let mut svg = String::new();
    {
        let height = (plot_w as f64 * 0.95) as u32 + 90;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let title = format!("{}: first-player win rate by cell", labels.run);
        let note = format!(
            "all {} cells of the run; blank squares were not run",
            points.len()
        );
        let area = headed(root, &title, labels, &note)?;
        let (plot_area, scale_area) = area.split_horizontally(plot_w);
        let (lo, hi) = (min as f64 - 0.5, max as f64 + 0.5);
        let key: Vec<f64> = ticks(min, max, 14).into_iter().map(f64::from).collect();
        let mut chart = ChartBuilder::on(&plot_area)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(50)
            .build_cartesian_2d(
                TickedAxis::new(lo..hi, key.clone()),
                TickedAxis::new(lo..hi, key),
            )
            .map_err(plot_error)?;
        chart
            .configure_mesh()
            .disable_mesh()
            .x_desc("n_second: cards of the second player")
            .y_desc("n_first: cards of the player to move")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .draw()
            .map_err(plot_error)?;
        chart
            .draw_series(points.iter().map(|p| {
                let (x, y) = (p.n_second as f64, p.n_first as f64);
                Rectangle::new(
                    [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                    diverging(t_of(p.rate)).filled(),
                )
            }))
            .map_err(plot_error)?;
        if font >= 7 {
            chart
                .draw_series(points.iter().map(|p| {
                    let style = text_style(font, HPos::Center, VPos::Center)
                        .color(ink_on(diverging(t_of(p.rate))));
                    Text::new(
                        format!("{:.3}", p.rate),
                        (p.n_second as f64, p.n_first as f64),
                        style,
                    )
                }))
                .map_err(plot_error)?;
        }
        let marks: Vec<(f64, String)> = [
            0.5 - reach,
            0.5 - reach / 2.0,
            0.5,
            0.5 + reach / 2.0,
            0.5 + reach,
        ]
        .iter()
        .map(|&r| (t_of(r), format!("{r:.3}")))
        .collect();
        colour_scale(
            &scale_area,
            &["first-player", "win rate"],
            diverging,
            &marks,
        )?;
        plot_area.present().map_err(plot_error)?;
    }
    Ok(svg)
}

/// The (μ0, μ1) tables as heat maps, one panel per cell (the largest
/// `MAX_MU_PANELS` when there are more, which the picture says). Colour is
/// a square's share of its cell's deals on a log scale shared by all
/// panels, the number in a square is its first-player win rate, and the
/// black staircase is the theorem's edge: it predicts a first-player win
/// above it (μ0 > μ1) and a loss on and below it.
pub fn mu_svg(rows: &[MuCell], labels: &Labels) -> anyhow::Result<String> {
    let mut cells: Vec<(u32, u32)> = rows.iter().map(|r| r.cell).collect();
    cells.sort_by_key(|&(a, b)| (a + b, a, b));
    cells.dedup();
    if cells.is_empty() {
        bail!("no rows to plot");
    }
    let all = cells.len();
    let shown: Vec<(u32, u32)> = cells.split_off(all.saturating_sub(MAX_MU_PANELS));
    let panels: Vec<(u32, u32, Vec<&MuCell>)> = shown
        .iter()
        .map(|&(a, b)| (a, b, rows.iter().filter(|r| r.cell == (a, b)).collect()))
        .collect();
    // Shares per panel, and the smallest one, which sets the bottom of the
    // shared log scale (a whole power of ten).
    let share = |r: &MuCell, total: f64| if total > 0.0 { r.deals / total } else { 0.0 };
    let mut floor_exp = 0i32;
    for (_, _, rs) in &panels {
        let total: f64 = rs.iter().map(|r| r.deals).sum();
        for r in rs {
            let s = share(r, total);
            if s > 0.0 {
                floor_exp = floor_exp.min(s.log10().floor() as i32);
            }
        }
    }
    let floor_exp = floor_exp.clamp(-12, -1);
    let t_of = |s: f64| {
        if s <= 0.0 {
            0.0
        } else {
            (s.log10() - floor_exp as f64) / (-floor_exp as f64)
        }
    };
    let count = panels.len();
    let cols = match count {
        1 => 1,
        2 | 4 => 2,
        3 | 5 | 6 | 7 | 8 | 9 => 3,
        _ => 4,
    };
    let grid_rows = count.div_ceil(cols);
    let plot_w = WIDTH - SCALE_WIDTH;
    let panel = (plot_w / cols as u32).min(560);
    let note = if count < all {
        let (a, b) = shown[0];
        format!(
            "the {count} largest of {all} cells in the run, from {a}x{b}; the rest are in mu.csv"
        )
    } else if count > 1 {
        format!("every cell of the run ({count})")
    } else {
        String::new()
    };
    let mut svg = String::new();
    {
        let height = panel * grid_rows as u32 + 120;
        let root = SVGBackend::with_string(&mut svg, (WIDTH, height)).into_drawing_area();
        let title = format!("{}: first-player win rate by (μ0, μ1)", labels.run);
        let area = headed(root, &title, labels, &note)?;
        let (plots, scale_area) = area.split_horizontally(plot_w);
        let (plots, legend) = plots.split_vertically(panel * grid_rows as u32);
        let areas = plots.split_evenly((grid_rows, cols));
        for ((a, b, rs), panel_area) in panels.iter().zip(areas.iter()) {
            let total: f64 = rs.iter().map(|r| r.deals).sum();
            let side = rs.iter().map(|r| r.mu0.max(r.mu1)).max().unwrap_or(0) + 1;
            let key: Vec<f64> = ticks(0, side - 1, 10)
                .into_iter()
                .map(|k| k as f64 + 0.5)
                .collect();
            let label_size = if count == 1 { 44 } else { 34 };
            let mut chart = ChartBuilder::on(panel_area)
                .caption(format!("{a}x{b} cards"), ("sans-serif", 14))
                .margin(6)
                .x_label_area_size(label_size)
                .y_label_area_size(label_size)
                .build_cartesian_2d(
                    TickedAxis::new(0.0..side as f64, key.clone()),
                    TickedAxis::new(0.0..side as f64, key),
                )
                .map_err(plot_error)?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_desc("μ1 = μ(Y, X-)")
                .y_desc("μ0 = μ(X, Y- + {r})")
                .x_label_formatter(&|x| format!("{:.0}", x - 0.5))
                .y_label_formatter(&|y| format!("{:.0}", y - 0.5))
                .draw()
                .map_err(plot_error)?;
            chart
                .draw_series(rs.iter().map(|r| {
                    let (x, y) = (r.mu1 as f64, r.mu0 as f64);
                    Rectangle::new(
                        [(x, y), (x + 1.0, y + 1.0)],
                        sequential(t_of(share(r, total))).filled(),
                    )
                }))
                .map_err(plot_error)?;
            let staircase: Vec<(f64, f64)> = (0..side)
                .flat_map(|k| [(k as f64, k as f64 + 1.0), (k as f64 + 1.0, k as f64 + 1.0)])
                .filter(|&(_, y)| y <= side as f64)
                .collect();
            chart
                .draw_series([PathElement::new(staircase, BLACK.stroke_width(2))])
                .map_err(plot_error)?;
            let square_px = (panel as f64 - label_size as f64 - 20.0) / side as f64;
            let font = (square_px * 0.32).min(12.0) as u32;
            if font >= 7 {
                chart
                    .draw_series(rs.iter().map(|r| {
                        let rate = if r.deals > 0.0 {
                            r.first_wins / r.deals
                        } else {
                            0.0
                        };
                        let ink = ink_on(sequential(t_of(share(r, total))));
                        let style = text_style(font, HPos::Center, VPos::Center).color(ink);
                        Text::new(
                            format!("{rate:.2}"),
                            (r.mu1 as f64 + 0.5, r.mu0 as f64 + 0.5),
                            style,
                        )
                    }))
                    .map_err(plot_error)?;
            }
        }
        let explain = "number: first-player win rate of the square; the theorem predicts a \
                       first-player win above the black line (μ0 > μ1)";
        let mid = legend.dim_in_pixel().0 as i32 / 2;
        legend
            .draw(&Text::new(
                explain.to_string(),
                (mid, 10),
                text_style(12, HPos::Center, VPos::Top).color(&GREY),
            ))
            .map_err(plot_error)?;
        let mut exponents: Vec<i32> = (floor_exp..=0)
            .step_by(((-floor_exp) as usize).div_ceil(6).max(1))
            .collect();
        if exponents.last() != Some(&0) {
            exponents.push(0);
        }
        let marks: Vec<(f64, String)> = exponents
            .into_iter()
            .map(|e| {
                (
                    t_of(10f64.powi(e)),
                    if e == 0 {
                        "1".to_string()
                    } else {
                        format!("1e{e}")
                    },
                )
            })
            .collect();
        colour_scale(
            &scale_area,
            &["share of deals", "in the cell", "(log scale)"],
            sequential,
            &marks,
        )?;
        plots.present().map_err(plot_error)?;
    }
    Ok(svg)
}

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
        let head = "n_first,n_second,mu0,mu1,deals,first_wins\n";
        assert!(read_mu(format!("{head}3,3,1,2,10,10\n").as_bytes(), "mu.csv").is_ok());
        let e = read_mu(format!("{head}3,3,1,2,10,11\n").as_bytes(), "mu.csv").unwrap_err();
        assert!(
            e.to_string().contains("11 first-player wins of 10 deals"),
            "{e}"
        );
    }
}
