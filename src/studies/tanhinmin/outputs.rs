//! Tanhinmin's output tables: deterministic results (`stats.csv`, `mu.csv`,
//! `disagreements.csv`) and run details (`run.csv`, `manifest.json`).

use super::counts::CellCounts;
use crate::engine::CellResult;
use crate::export::Table;
use crate::studies::deal_study::DealSource;
use crate::studies::deal_study::columns::{
    deal_run_details, deal_stats_row, hand_text, rate_header_with, rate_text_of,
};
use crate::studies::deal_study::mu::{MU_COLUMNS, push_mu_rows};

/// Columns of Tanhinmin's `stats.csv` after the rate columns.
pub const STATS_COLUMNS: &[&str] = &["agree", "disagree", "distinct_deals"];

/// The first-player win rate as the user reads it: exact or with interval.
pub fn rate_text(source: &DealSource, c: &CellCounts) -> String {
    rate_text_of(source.mode, c.first_wins, c.deals)
}

/// One `stats.csv` row.
pub fn stats_row(source: &DealSource, cell: usize, c: &CellCounts) -> Vec<String> {
    deal_stats_row(
        source,
        source.cells[cell],
        c.first_wins,
        c.deals,
        [
            c.agree.to_string(),
            c.disagree.to_string(),
            c.evaluated.to_string(),
        ],
    )
}

/// The deterministic tables, as (file name, bytes).
pub fn deterministic_tables(
    source: &DealSource,
    cells: &[&CellCounts],
) -> Vec<(&'static str, Vec<u8>)> {
    let mut stats_table = Table::new(&rate_header_with(STATS_COLUMNS));
    let mut mu_table = Table::new(MU_COLUMNS);
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
        let [a, b] = source.cells[cell];
        stats_table.row(stats_row(source, cell, c));
        push_mu_rows(&mut mu_table, [a, b], source.field, &c.mu);
        for d in &c.disagreements {
            dis_table.row([
                a.to_string(),
                b.to_string(),
                source.field.to_string(),
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
pub fn run_details(source: &DealSource, results: &[CellResult<CellCounts>]) -> Vec<u8> {
    deal_run_details(source, results, |c| c.positions)
}
