//! Tanhinmin's output tables: deterministic results (`stats.csv`, `mu.csv`,
//! `disagreements.csv`) and run details (`run.csv`, `manifest.json`).

use super::{CellCounts, Tanhinmin};
use crate::config::Mode;
use crate::engine::CellResult;
use crate::export::Table;
use crate::stats;

pub const STATS_HEADER: &[&str] = &[
    "n_first",
    "n_second",
    "field",
    "deals",
    "first_wins",
    "first_win_rate",
    "exact_fraction",
    "ci95_low",
    "ci95_high",
    "agree",
    "disagree",
    "distinct_deals",
];

/// Digits after the point for exact decimal rates.
const RATE_PLACES: usize = 9;

/// The first-player win rate as the user reads it: exact or with interval.
pub fn rate_text(study: &Tanhinmin, c: &CellCounts) -> String {
    match study.mode {
        Mode::Exhaustive => format!(
            "{} = {}",
            stats::reduced_fraction(c.first_wins, c.deals),
            stats::exact_decimal(c.first_wins, c.deals, RATE_PLACES)
        ),
        Mode::Sample => {
            let (lo, hi) = stats::wilson95(c.first_wins, c.deals);
            format!(
                "{:.6}, 95% CI [{lo:.6}, {hi:.6}]",
                c.first_wins as f64 / c.deals.max(1) as f64
            )
        }
    }
}

/// One `stats.csv` row.
pub fn stats_row(study: &Tanhinmin, cell: usize, c: &CellCounts) -> Vec<String> {
    let [a, b] = study.cells[cell];
    let (rate, fraction, lo, hi) = match study.mode {
        Mode::Exhaustive => {
            let rate = stats::exact_decimal(c.first_wins, c.deals, RATE_PLACES);
            (
                rate.clone(),
                stats::reduced_fraction(c.first_wins, c.deals),
                rate.clone(),
                rate,
            )
        }
        Mode::Sample => {
            let (lo, hi) = stats::wilson95(c.first_wins, c.deals);
            (
                stats::fmt_rate(c.first_wins as f64 / c.deals.max(1) as f64),
                String::new(),
                stats::fmt_rate(lo),
                stats::fmt_rate(hi),
            )
        }
    };
    vec![
        a.to_string(),
        b.to_string(),
        study.field.to_string(),
        c.deals.to_string(),
        c.first_wins.to_string(),
        rate,
        fraction,
        lo,
        hi,
        c.agree.to_string(),
        c.disagree.to_string(),
        c.evaluated.to_string(),
    ]
}

fn hand_text(counts: &[u8]) -> String {
    let mut cards = Vec::new();
    for (rank, &c) in counts.iter().enumerate() {
        for _ in 0..c {
            cards.push((rank + 1).to_string());
        }
    }
    cards.join(" ")
}

/// The deterministic tables, as (file name, bytes).
pub fn deterministic_tables(
    study: &Tanhinmin,
    cells: &[&CellCounts],
) -> Vec<(&'static str, Vec<u8>)> {
    let mut stats_table = Table::new(STATS_HEADER);
    let mut mu_table = Table::new(&[
        "n_first",
        "n_second",
        "field",
        "mu0",
        "mu1",
        "deals",
        "first_wins",
    ]);
    let mut dis_table = Table::new(&[
        "n_first",
        "n_second",
        "field",
        "first_hand",
        "second_hand",
        "weight",
        "minimax_first_wins",
        "formula_first_wins",
        "mu0",
        "mu1",
    ]);
    for (cell, c) in cells.iter().enumerate() {
        let [a, b] = study.cells[cell];
        stats_table.row(stats_row(study, cell, c));
        for (mu0, mu1, deals, wins) in c.mu.entries() {
            mu_table.row([
                a.to_string(),
                b.to_string(),
                study.field.to_string(),
                mu0.to_string(),
                mu1.to_string(),
                deals.to_string(),
                wins.to_string(),
            ]);
        }
        for d in &c.disagreements {
            dis_table.row([
                a.to_string(),
                b.to_string(),
                study.field.to_string(),
                hand_text(&d.first),
                hand_text(&d.second),
                d.weight.to_string(),
                d.minimax.to_string(),
                d.formula.to_string(),
                d.mu0.to_string(),
                d.mu1.to_string(),
            ]);
        }
    }
    vec![
        ("stats.csv", stats_table.into_bytes()),
        ("mu.csv", mu_table.into_bytes()),
        ("disagreements.csv", dis_table.into_bytes()),
    ]
}

/// `run.csv`: per cell, deals solved here, time, rate and search effort.
pub fn run_details(study: &Tanhinmin, results: &[CellResult<CellCounts>]) -> Vec<u8> {
    let mut run_table = Table::new(&[
        "n_first",
        "n_second",
        "field",
        "evaluated",
        "elapsed_s",
        "evaluated_per_s",
        "positions_searched",
    ]);
    for (cell, r) in results.iter().enumerate() {
        let [a, b] = study.cells[cell];
        let secs = r.elapsed.as_secs_f64();
        run_table.row([
            a.to_string(),
            b.to_string(),
            study.field.to_string(),
            r.items.to_string(),
            format!("{secs:.3}"),
            format!("{:.0}", r.items as f64 / secs.max(1e-9)),
            r.counts.positions.to_string(),
        ]);
    }
    run_table.into_bytes()
}
