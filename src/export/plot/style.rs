//! What every picture shares: its labels, width, colours, heading, axes
//! and colour scales.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// What every picture says about the run it comes from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Labels {
    /// The run's name (`[experiment] name`).
    pub run: String,
    /// Study, deck, starting field and mode in one line; empty when unknown.
    pub context: String,
}

pub(super) const WIDTH: u32 = 760;
pub(super) const BLUE: RGBColor = RGBColor(31, 90, 180);
pub(super) const GREY: RGBColor = RGBColor(110, 110, 110);
pub(super) const LIGHT: RGBColor = RGBColor(200, 200, 200);
/// Width of the colour-scale strip on the right of a heat map.
pub(super) const SCALE_WIDTH: u32 = 120;
/// The most μ panels one picture holds; a run with more cells shows its
/// largest ones and says so.
pub(super) const MAX_MU_PANELS: usize = 12;

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

pub(super) fn plot_error<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("drawing failed: {e:?}")
}

pub(super) fn text_style(size: u32, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", size).into_font()).pos(Pos::new(h, v))
}

/// Fills `root`, draws the title, the context line and an optional note on
/// top, and returns the area left below them.
pub(super) fn headed<'a>(
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
pub(super) struct TickedAxis {
    range: std::ops::Range<f64>,
    ticks: Vec<f64>,
}

impl TickedAxis {
    pub(super) fn new(range: std::ops::Range<f64>, ticks: Vec<f64>) -> Self {
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
pub(super) fn ticks(first: u32, last: u32, most: u32) -> Vec<u32> {
    let step = (last.saturating_sub(first) / most.max(1) + 1).max(1);
    (first..=last).step_by(step as usize).collect()
}

/// Interpolates between colour stops spread evenly over [0, 1].
pub(super) fn blend(stops: &[(u8, u8, u8)], t: f64) -> RGBColor {
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
pub(super) fn sequential(t: f64) -> RGBColor {
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
pub(super) fn diverging(t: f64) -> RGBColor {
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
pub(super) fn ink_on(c: RGBColor) -> &'static RGBColor {
    let luma = 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
    if luma < 120.0 { &WHITE } else { &BLACK }
}

/// A vertical colour scale in `area`: `title` above it, the colours of
/// `colour(t)` for t from 0 (bottom) to 1 (top), and `marks` as (t, label).
pub(super) fn colour_scale(
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
