//! Exact first-player win rates of Tanhinmin for any hand sizes, from the
//! proven formula, by a dynamic programme over ranks (see [`dp`]). This
//! reaches every size up to 26 cards each from 52, far past what minimax
//! can enumerate; tests cross-check it against the exhaustive minimax.

pub mod dp;

use crate::config::{Config, Mode};
use crate::engine::{CellResult, Chunk, Workload};
use crate::export::Table;
use crate::games::cards::Deck;
use crate::studies::deal_study::columns::{RATE_HEADER, rate_fields, rate_text_of};
use crate::study::{BuildContext, CellOutline, Outline, Study, Summary};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The memory the rates DP may hold for one cell: validation keeps hands to
/// at most 64 ranks x 255 copies, far below it.
pub const RATES_DP_BUDGET: u64 = 64 << 20;

/// The exact-rates study.
pub struct Rates {
    copies: Vec<u32>,
    cells: Vec<[u32; 2]>,
    field: u32,
}

/// Counts of one cell.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct RateCounts {
    /// Physical deals.
    pub deals: u128,
    /// Deals the first player wins.
    pub first_wins: u128,
}

impl Rates {
    /// The study for `config`'s cells.
    pub fn new(config: &Config) -> Self {
        Rates {
            copies: config.copies(),
            cells: config.hands.sizes.clone(),
            field: config.hands.field,
        }
    }
}

impl Workload for Rates {
    type Instance = usize;
    type Counts = RateCounts;
    type Worker = ();

    fn cell_sizes(&self) -> Vec<u64> {
        vec![1; self.cells.len()]
    }

    fn chunk_size(&self, _cell: usize) -> u64 {
        1
    }

    fn cell_label(&self, cell: usize) -> String {
        let [a, b] = self.cells[cell];
        format!("{a}x{b} field {}", self.field)
    }

    fn new_worker(&self) {}

    fn for_each_instance(&self, chunk: &Chunk, mut f: impl FnMut(&usize)) {
        f(&chunk.cell);
    }

    fn evaluate(&self, _: &mut (), &cell: &usize, counts: &mut RateCounts) {
        let [a, b] = self.cells[cell];
        // The config check refused cells whose counts pass u128.
        let t = dp::formula_tally(&self.copies, a, b, self.field)
            .expect("cell counts fit u128 (checked by the config)");
        counts.deals += t.deals;
        counts.first_wins += t.first_wins;
    }

    fn merge(into: &mut RateCounts, from: RateCounts) {
        into.deals += from.deals;
        into.first_wins += from.first_wins;
    }

    fn check_counts(&self, cell: usize, items: u64, c: &RateCounts) -> Result<(), String> {
        let [a, b] = self.cells[cell];
        let deck = Deck {
            copies: self.copies.clone(),
        };
        // A cell is one item, the DP over all its deals. A shard (or a
        // plan's timing sample) that was not dealt it counts nothing there;
        // the one that was counts every physical deal of the cell (the
        // config check refused cells whose deals pass u128).
        let deals = match items {
            0 => Some(0),
            1 => deck.physical_deals(a, b),
            _ => {
                return Err(format!(
                    "{items} items, but a cell of the rates study is one"
                ));
            }
        };
        if deals != Some(c.deals) {
            Err("the deals are not the cell's physical deals".into())
        } else if c.first_wins > c.deals {
            Err("more first-player wins than deals".into())
        } else {
            Ok(())
        }
    }
}

impl Study for Rates {
    fn build(config: &Config, _: &BuildContext) -> anyhow::Result<Self> {
        Ok(Rates::new(config))
    }

    fn outline(config: &Config, _threads: usize) -> Outline {
        let rates = Rates::new(config);
        // The DP holds two layers of (a + 1) x (b + 1) tallies of two
        // counts, u128 or big integers; 128 bytes a state is generous.
        let memory = rates
            .cells
            .iter()
            .map(|&[a, b]| 2 * (u64::from(a) + 1) * (u64::from(b) + 1) * 128)
            .max()
            .unwrap_or(0);
        Outline {
            cells: (0..rates.cells.len())
                .map(|cell| CellOutline {
                    label: rates.cell_label(cell),
                    items: 1,
                    chunk_size: 1,
                })
                .collect(),
            memory,
            budget_key: "[hands] sizes (the rates DP, one cell at a time)",
            budget: RATES_DP_BUDGET,
            notes: Vec::new(),
            estimate_bias: None,
        }
    }

    fn tables(&self, cells: &[&RateCounts]) -> Vec<(&'static str, Vec<u8>)> {
        let mut t = Table::new(&RATE_HEADER);
        for (&[a, b], c) in self.cells.iter().zip(cells) {
            t.row(rate_fields(
                Mode::Exhaustive,
                [a, b],
                self.field,
                c.first_wins,
                c.deals,
            ));
        }
        vec![("rates.csv", t.into_bytes())]
    }

    fn run_details(&self, cells: &[CellResult<RateCounts>]) -> Vec<u8> {
        let mut t = Table::new(&["n_first", "n_second", "seconds"]);
        for (&[a, b], c) in self.cells.iter().zip(cells) {
            t.row([
                a.to_string(),
                b.to_string(),
                format!("{:.3}", c.elapsed.as_secs_f64()),
            ]);
        }
        t.into_bytes()
    }

    fn summary(&self, cells: &[&RateCounts], out_dir: &Path) -> Summary {
        let mut lines: Vec<String> = self
            .cells
            .iter()
            .zip(cells)
            .map(|(&[a, b], c)| {
                format!(
                    "{a}x{b} field {}: first player wins {}",
                    self.field,
                    rate_text_of(Mode::Exhaustive, c.first_wins, c.deals)
                )
            })
            .collect();
        lines.push(format!(
            "exact rates in {}",
            out_dir.join("rates.csv").display()
        ));
        Summary::measured(lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A resumed rates run reads its cells' counts back from a checkpoint:
    /// counts no cell can have are refused, the computed ones accepted.
    #[test]
    fn counts_read_back_must_fit_the_cell() {
        let text = "[experiment]\nname = \"t\"\nstudy = \"rates\"\nmode = \"exhaustive\"\n[hands]\nsizes = [[2, 3]]\n";
        let rates = Rates::new(&Config::parse(text, "t.toml").unwrap());
        let mut computed = RateCounts::default();
        rates.evaluate(&mut (), &0, &mut computed);
        assert_eq!(computed.deals, 1326 * 19600, "C(52, 2) C(50, 3)");
        assert_eq!(rates.check_counts(0, 1, &computed), Ok(()));
        let edited = |deals, first_wins| RateCounts { deals, first_wins };
        assert!(
            rates
                .check_counts(0, 1, &edited(computed.deals + 1, 0))
                .is_err()
        );
        assert!(rates.check_counts(0, 1, &edited(1 << 127, 0)).is_err());
        assert!(
            rates
                .check_counts(0, 1, &edited(computed.deals, computed.deals + 1))
                .is_err()
        );
        // A shard that was not dealt the cell counts nothing in it, and
        // must count nothing.
        assert_eq!(rates.check_counts(0, 0, &RateCounts::default()), Ok(()));
        assert!(rates.check_counts(0, 0, &computed).is_err());
        assert!(rates.check_counts(0, 2, &computed).is_err());
    }
}
