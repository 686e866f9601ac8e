//! The first-player rate against hand size: one run's line or grid, one
//! cell's numbers, or several runs' lines in one picture.

use super::read::RatePoint;
use super::style::{
    BLUE, GREY, LIGHT, Labels, SCALE_WIDTH, TickedAxis, WIDTH, colour_scale, diverging, headed,
    ink_on, plot_error, text_style, ticks,
};
use anyhow::bail;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

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
pub(super) const SERIES_COLOURS: [RGBColor; 4] = [
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
        lines.push(format!(
            "{} {kind}",
            crate::export::grouped_digits(&p.deals)
        ));
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
