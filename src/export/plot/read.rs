//! The tables the pictures are drawn from, read back from their CSV bytes:
//! every number checked, every missing column named.

use crate::error::refuse;

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
pub(super) fn column_positions(
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
pub(super) fn read_rows(
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
pub(super) const RATE_COLUMNS: [&str; 5] = [
    "n_first",
    "n_second",
    "first_win_rate",
    "ci95_low",
    "ci95_high",
];

/// The columns [`read_mu`] needs.
pub(super) const MU_READ_COLUMNS: [&str; 6] =
    ["n_first", "n_second", "mu0", "mu1", "deals", "first_wins"];

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

/// Refuses a table whose `first_win_rate` column holds a number outside
/// [0, 1] (or no number: an empty field is left alone), for a table that
/// lacks the interval columns [`read_rates`] checks it against.
pub(super) fn refuse_rates_outside_0_1(bytes: &[u8], what: &str) -> anyhow::Result<()> {
    let mut r = csv::Reader::from_reader(bytes);
    let header = r
        .headers()
        .map_err(|e| refuse(format!("{what}: cannot read its header: {e}")))?
        .clone();
    let Some(column) = header.iter().position(|h| h == "first_win_rate") else {
        return Ok(());
    };
    for (row, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| refuse(format!("{what}: bad CSV row: {e}")))?;
        let field = rec.get(column).unwrap_or("");
        if field.is_empty() {
            continue;
        }
        if !field.parse::<f64>().is_ok_and(|v| (0.0..=1.0).contains(&v)) {
            return Err(refuse(format!(
                "{what}: row {}: first_win_rate `{field}` is not a rate in [0, 1]",
                row + 1
            )));
        }
    }
    Ok(())
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

/// More cards in a hand than any deck the runner deals holds (64 ranks of
/// at most 255 copies each). A `mu.csv` row past it is damaged, and the μ
/// picture, whose grid is as wide as the largest μ, would not fit in memory.
const MOST_CARDS_A_HAND: f64 = 64.0 * 255.0;

/// Reads `mu.csv`; `what` names it in errors. A row no run writes is
/// refused: hand sizes and μ values that are not whole numbers, a hand
/// past `MOST_CARDS_A_HAND`, or a μ above its hand's size (μ(A, B)
/// pairs cards of A, so μ0 is at most the first hand's cards and μ1 the
/// second's).
pub fn read_mu(bytes: &[u8], what: &str) -> anyhow::Result<Vec<MuCell>> {
    read_rows(bytes, &MU_READ_COLUMNS, &[], what)?
        .into_iter()
        .map(|(v, _)| {
            let whole = |x: f64| x >= 0.0 && x.fract() == 0.0;
            let (n_first, n_second, mu0, mu1) = (v[0], v[1], v[2], v[3]);
            if !(v[..4].iter().all(|&x| whole(x))
                && n_first <= MOST_CARDS_A_HAND
                && n_second <= MOST_CARDS_A_HAND
                && mu0 <= n_first
                && mu1 <= n_second)
            {
                return Err(refuse(format!(
                    "{what}: μ ({mu0}, {mu1}) of {n_first}x{n_second}: no run writes it (μ0 and μ1 are whole numbers at most the first and the second hand's cards)"
                )));
            }
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
