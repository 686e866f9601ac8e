//! The columns every deal study's tables share: the first-player rate of a
//! cell (exact, or with a Wilson interval), hands as text, and `run.csv`.

use super::DealSource;
use crate::config::Mode;
use crate::engine::CellResult;
use crate::export::{Table, throughput_text};
use crate::stats;

/// The columns every card study's `stats.csv` (and `rates.csv`) starts
/// with; `runner plot` reads these.
pub const RATE_HEADER: [&str; 9] = [
    "n_first",
    "n_second",
    "field",
    "deals",
    "first_wins",
    "first_win_rate",
    "exact_fraction",
    "ci95_low",
    "ci95_high",
];

/// [`RATE_HEADER`] followed by a study's own columns.
pub fn rate_header_with(extra: &[&'static str]) -> Vec<&'static str> {
    RATE_HEADER.iter().chain(extra).copied().collect()
}

/// The [`RATE_HEADER`] fields of one cell.
pub fn rate_fields(
    mode: Mode,
    cell: [u32; 2],
    field: u32,
    first_wins: u128,
    deals: u128,
) -> Vec<String> {
    let [rate, fraction, lo, hi] = rate_columns(mode, first_wins, deals);
    vec![
        cell[0].to_string(),
        cell[1].to_string(),
        field.to_string(),
        deals.to_string(),
        first_wins.to_string(),
        rate,
        fraction,
        lo,
        hi,
    ]
}

/// One `stats.csv` row of a deal study: the rate columns of `cell`, then
/// the study's own columns.
pub fn deal_stats_row(
    source: &DealSource,
    cell: [u32; 2],
    first_wins: u128,
    deals: u128,
    extra: impl IntoIterator<Item = String>,
) -> Vec<String> {
    let mut row = rate_fields(source.mode, cell, source.field, first_wins, deals);
    row.extend(extra);
    row
}

/// Digits after the point for exact decimal rates.
const RATE_PLACES: usize = 9;

/// The rate as the user reads it, from the counts alone.
pub fn rate_text_of(mode: Mode, first_wins: u128, deals: u128) -> String {
    let c = (first_wins, deals);
    match mode {
        Mode::Exhaustive => format!(
            "{} = {}",
            stats::reduced_fraction(c.0, c.1),
            stats::exact_decimal(c.0, c.1, RATE_PLACES)
        ),
        Mode::Sample => {
            let (lo, hi) = stats::wilson95(c.0, c.1);
            format!(
                "{:.6}, 95% CI [{lo:.6}, {hi:.6}]",
                c.0 as f64 / c.1.max(1) as f64
            )
        }
    }
}

/// The rate columns of `stats.csv` (rate, exact fraction, interval low,
/// high): exact with a zero-width interval when every deal was counted,
/// Wilson's 95% interval when deals were sampled.
pub fn rate_columns(mode: Mode, first_wins: u128, deals: u128) -> [String; 4] {
    match mode {
        Mode::Exhaustive => {
            let rate = stats::exact_decimal(first_wins, deals, RATE_PLACES);
            [
                rate.clone(),
                stats::reduced_fraction(first_wins, deals),
                rate.clone(),
                rate,
            ]
        }
        Mode::Sample => {
            let (lo, hi) = stats::wilson95(first_wins, deals);
            [
                stats::fmt_rate(first_wins as f64 / deals.max(1) as f64),
                String::new(),
                stats::fmt_rate(lo),
                stats::fmt_rate(hi),
            ]
        }
    }
}

/// A hand as its card strengths, weakest first: `1 1 3 4`.
pub fn hand_text(counts: &[u8]) -> String {
    let mut cards = Vec::new();
    for (rank, &c) in counts.iter().enumerate() {
        for _ in 0..c {
            cards.push((rank + 1).to_string());
        }
    }
    cards.join(" ")
}

/// `run.csv` of any deal study: per cell, deals evaluated here, time,
/// throughput, and the positions its solver searched (`positions` of the
/// counts; 0 where a study does not count them).
pub fn deal_run_details<C>(
    source: &DealSource,
    results: &[CellResult<C>],
    positions: impl Fn(&C) -> u64,
) -> Vec<u8> {
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
        let [a, b] = source.cells[cell];
        let secs = r.elapsed.as_secs_f64();
        run_table.row([
            a.to_string(),
            b.to_string(),
            source.field.to_string(),
            r.items.to_string(),
            format!("{secs:.3}"),
            throughput_text(r.items as f64 / secs.max(1e-9)),
            positions(&r.counts).to_string(),
        ]);
    }
    run_table.into_bytes()
}
