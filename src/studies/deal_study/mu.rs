//! The (μ0, μ1) table of a deal study: deals and first-player wins by the
//! plain game's two μ values at the deal's start, and its `mu.csv` rows.
//! The plain study counts its own winner here; a variant study counts the
//! variant's, so a reader sees where in the table the formula stops
//! predicting.

use crate::export::Table;
use serde::{Deserialize, Serialize};

/// Side of the (μ0, μ1) table; μ never exceeds a hand size.
pub const MU_SIDE: usize = 64;

/// The (μ0, μ1) table: dense while counting, sparse when serialised.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(into = "Vec<MuEntry>", try_from = "Vec<MuEntry>")]
pub struct MuTable {
    /// Weighted deals and first-player wins at `μ0 * MU_SIDE + μ1`.
    pub deals: Vec<u128>,
    /// Weighted first-player wins at the same slot.
    pub wins: Vec<u128>,
}

/// One nonzero cell of a [`MuTable`]: (μ0, μ1, deals, first-player wins).
pub type MuEntry = (u32, u32, u128, u128);

impl From<MuTable> for Vec<MuEntry> {
    fn from(t: MuTable) -> Self {
        t.entries().collect()
    }
}

/// Read back from a file: every μ must be a slot of the table, and no cell
/// may have more wins than deals.
impl TryFrom<Vec<MuEntry>> for MuTable {
    type Error = String;
    fn try_from(v: Vec<MuEntry>) -> Result<Self, String> {
        let mut t = MuTable::default();
        for (mu0, mu1, deals, wins) in v {
            if mu0 as usize >= MU_SIDE || mu1 as usize >= MU_SIDE {
                return Err(format!("μ ({mu0}, {mu1}) is out of range"));
            }
            if wins > deals {
                return Err(format!("μ ({mu0}, {mu1}) has more wins than deals"));
            }
            t.add(mu0, mu1, deals, wins);
        }
        Ok(t)
    }
}

impl MuTable {
    /// Adds `deals` deals and `wins` first-player wins at (μ0, μ1).
    #[inline]
    pub fn add(&mut self, mu0: u32, mu1: u32, deals: u128, wins: u128) {
        if self.deals.is_empty() {
            self.deals = vec![0; MU_SIDE * MU_SIDE];
            self.wins = vec![0; MU_SIDE * MU_SIDE];
        }
        let slot = mu0 as usize * MU_SIDE + mu1 as usize;
        self.deals[slot] += deals;
        self.wins[slot] += wins;
    }

    /// Whether the table's cells add up to `deals` deals and `wins`
    /// first-player wins (checked arithmetic: a table read from a file
    /// may hold any numbers).
    fn adds_up_to(&self, deals: u128, wins: u128) -> bool {
        let total = |of: fn(&MuEntry) -> u128| {
            self.entries()
                .try_fold(0u128, |sum, e| sum.checked_add(of(&e)))
        };
        total(|e| e.2) == Some(deals) && total(|e| e.3) == Some(wins)
    }

    /// Whether the table can be a cell's: it adds up to `deals` deals and
    /// `wins` first-player wins, and holds only μ pairs a deal of the
    /// cell's `sizes` can have.
    pub fn check_fits(&self, deals: u128, wins: u128, sizes: [u32; 2]) -> Result<(), String> {
        if !self.adds_up_to(deals, wins) {
            Err("the μ table does not add up to the deals and wins".into())
        } else if !self.fits_hands(sizes[0], sizes[1]) {
            Err("the μ table holds a μ pair no deal of the cell has".into())
        } else {
            Ok(())
        }
    }

    /// Whether every μ pair the table holds is one a deal of `n_first`
    /// and `n_second` cards can have: μ0 = μ(X, Y- + {r}) matches at most
    /// min(|X|, |Y|) cards, μ1 = μ(Y, X-) at most min(|Y|, |X| - 1). A
    /// table read from a file could otherwise move deals to a pair no deal
    /// of the cell has.
    fn fits_hands(&self, n_first: u32, n_second: u32) -> bool {
        let most = (
            n_first.min(n_second),
            n_second.min(n_first.saturating_sub(1)),
        );
        self.entries()
            .all(|(mu0, mu1, _, _)| mu0 <= most.0 && mu1 <= most.1)
    }

    /// The nonzero cells.
    pub fn entries(&self) -> impl Iterator<Item = MuEntry> + '_ {
        self.deals
            .iter()
            .zip(&self.wins)
            .enumerate()
            .filter(|(_, (d, _))| **d > 0)
            .map(|(slot, (&d, &w))| ((slot / MU_SIDE) as u32, (slot % MU_SIDE) as u32, d, w))
    }

    /// Adds another part's cells.
    pub fn merge(&mut self, from: MuTable) {
        for (mu0, mu1, d, w) in from.entries() {
            self.add(mu0, mu1, d, w);
        }
    }
}

/// The columns of `mu.csv`.
pub const MU_COLUMNS: &[&str] = &[
    "n_first",
    "n_second",
    "field",
    "mu0",
    "mu1",
    "deals",
    "first_wins",
];

/// Appends one cell's nonzero (μ0, μ1) entries to a `mu.csv` table.
pub fn push_mu_rows(table: &mut Table, [a, b]: [u32; 2], field: u32, mu: &MuTable) {
    for (mu0, mu1, deals, wins) in mu.entries() {
        table.row([
            a.to_string(),
            b.to_string(),
            field.to_string(),
            mu0.to_string(),
            mu1.to_string(),
            deals.to_string(),
            wins.to_string(),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cards::{Dealer, Deck};
    use crate::games::tanhinmin::formula::mu_pair_counts;
    use crate::random::chunk_rng;

    /// Every μ pair of random deals of every pair of hand sizes, on every
    /// kind of field, is within the bound; a table with a pair one above
    /// it is refused.
    #[test]
    fn mu_pairs_fit_the_hands_they_come_from() {
        let deck = Deck {
            copies: vec![4; 13],
        };
        let mut dealer = Dealer::new(&deck);
        let mut rng = chunk_rng(7, 0);
        let mut reached = (false, false);
        for n0 in 1..=26u32 {
            for n1 in 1..=26u32 {
                for field in [0, 1, 7, 13, 14] {
                    for _ in 0..20 {
                        let deal = dealer.deal(&mut rng, n0 as usize, n1 as usize);
                        let (mu0, mu1) =
                            mu_pair_counts(&deal.first[..13], &deal.second[..13], field);
                        let mut table = MuTable::default();
                        table.add(mu0, mu1, 1, 0);
                        assert!(
                            table.fits_hands(n0, n1),
                            "{n0}x{n1} on {field}: {mu0}, {mu1}"
                        );
                        reached.0 |= mu0 == n0.min(n1);
                        reached.1 |= mu1 == n1.min(n0 - 1);
                    }
                }
                let mut above = MuTable::default();
                above.add(n0.min(n1) + 1, 0, 1, 0);
                assert!(!above.fits_hands(n0, n1));
                let mut above = MuTable::default();
                above.add(0, n1.min(n0 - 1) + 1, 1, 0);
                assert!(!above.fits_hands(n0, n1));
            }
        }
        assert_eq!(reached, (true, true), "the bound is met, not just kept");
    }
}
