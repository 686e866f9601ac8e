//! The μ heat map: a panel per cell, the first player's rate per (μ0, μ1).

use super::read::MuCell;
use super::style::{
    GREY, Labels, MAX_MU_PANELS, SCALE_WIDTH, TickedAxis, WIDTH, colour_scale, headed, ink_on,
    plot_error, sequential, text_style, ticks,
};
use anyhow::bail;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

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
