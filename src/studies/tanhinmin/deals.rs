//! Producing deals: every distinct deal up to suits with its weight, or
//! uniformly random physical deals.

use super::MAX_RANKS;
use super::solver::Counts;
use rand_xoshiro::Xoshiro256PlusPlus;
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// A deck as copies per rank; rank index `i` has strength `i + 1`.
#[derive(Clone, Debug)]
pub struct Deck {
    pub copies: Vec<u32>,
}

impl Deck {
    pub fn cards(&self) -> u32 {
        self.copies.iter().sum()
    }
}

/// Binomial coefficient, exact; `None` on overflow.
pub fn binomial(n: u32, k: u32) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // acc * (n - i) is divisible by (i + 1) after the multiplication.
        acc = acc.checked_mul((n - i) as u128)? / (i as u128 + 1);
    }
    Some(acc)
}

/// One deal up to suits: how many cards of each rank each player holds,
/// and how many physical deals it stands for.
#[derive(Clone, Debug)]
pub struct Deal {
    pub first: Counts,
    pub second: Counts,
    pub weight: u128,
}

/// Every distinct deal of `n_first` and `n_second` cards up to suits, in a
/// fixed order (lexicographic in (x0, y0, x1, y1, ...)), addressable by index
/// so that a range of indices is a self-contained chunk of work.
pub struct DealSpace {
    copies: Vec<u32>,
    n_first: u32,
    n_second: u32,
    /// completions[i][a][b]: deals of ranks i.. using exactly a and b cards.
    completions: Vec<Vec<Vec<u64>>>,
}

impl DealSpace {
    /// `None` if the number of distinct deals does not fit in u64.
    pub fn new(deck: &Deck, n_first: u32, n_second: u32) -> Option<Self> {
        let ranks = deck.copies.len();
        let (na, nb) = (n_first as usize, n_second as usize);
        let mut completions = vec![vec![vec![0u64; nb + 1]; na + 1]; ranks + 1];
        completions[ranks][0][0] = 1;
        for i in (0..ranks).rev() {
            let c = deck.copies[i] as usize;
            for a in 0..=na {
                for b in 0..=nb {
                    let mut total: u64 = 0;
                    for x in 0..=a.min(c) {
                        for y in 0..=b.min(c - x) {
                            total = total.checked_add(completions[i + 1][a - x][b - y])?;
                        }
                    }
                    completions[i][a][b] = total;
                }
            }
        }
        Some(DealSpace {
            copies: deck.copies.clone(),
            n_first,
            n_second,
            completions,
        })
    }

    /// Number of distinct deals.
    pub fn len(&self) -> u64 {
        self.completions[0][self.n_first as usize][self.n_second as usize]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` on every deal whose index lies in `lo..hi`, in index order.
    pub fn for_each_in_range(&self, lo: u64, hi: u64, mut f: impl FnMut(&Deal)) {
        let mut deal = Deal {
            first: [0; MAX_RANKS],
            second: [0; MAX_RANKS],
            weight: 1,
        };
        let (a, b) = (self.n_first as usize, self.n_second as usize);
        self.walk(0, a, b, 0, lo, hi, &mut deal, &mut f);
    }

    #[allow(clippy::too_many_arguments)]
    fn walk(
        &self,
        rank: usize,
        a: usize,
        b: usize,
        offset: u64,
        lo: u64,
        hi: u64,
        deal: &mut Deal,
        f: &mut impl FnMut(&Deal),
    ) {
        if rank == self.copies.len() {
            if a == 0 && b == 0 && offset >= lo && offset < hi {
                f(deal);
            }
            return;
        }
        let c = self.copies[rank];
        let mut offset = offset;
        let saved_weight = deal.weight;
        for x in 0..=(a as u32).min(c) {
            for y in 0..=(b as u32).min(c - x) {
                let size = self.completions[rank + 1][a - x as usize][b - y as usize];
                if size == 0 {
                    continue;
                }
                if offset + size > lo && offset < hi {
                    deal.first[rank] = x as u8;
                    deal.second[rank] = y as u8;
                    // Cannot overflow: the config check bounds the total.
                    deal.weight = saved_weight
                        * binomial(c, x).expect("checked")
                        * binomial(c - x, y).expect("checked");
                    self.walk(rank + 1, a - x as usize, b - y as usize, offset, lo, hi, deal, f);
                }
                offset += size;
                if offset >= hi {
                    deal.first[rank] = 0;
                    deal.second[rank] = 0;
                    deal.weight = saved_weight;
                    return;
                }
            }
        }
        deal.first[rank] = 0;
        deal.second[rank] = 0;
        deal.weight = saved_weight;
    }
}

/// The random stream for one chunk: Xoshiro256++ seeded from (seed, chunk
/// index) through SplitMix64, so a chunk's deals depend on nothing else.
pub fn chunk_rng(seed: u64, chunk: u64) -> Xoshiro256PlusPlus {
    fn splitmix(mut z: u64) -> u64 {
        z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    let base = splitmix(seed) ^ splitmix(chunk.wrapping_add(0x5851_F42D_4C95_7F2D));
    let mut bytes = [0u8; 32];
    for (i, word) in bytes.chunks_exact_mut(8).enumerate() {
        word.copy_from_slice(&splitmix(base.wrapping_add(i as u64)).to_le_bytes());
    }
    Xoshiro256PlusPlus::from_seed(bytes)
}

/// Uniform integer in `0..n` without modulo bias (Lemire's method).
pub fn uniform_below(rng: &mut impl Rng, n: u64) -> u64 {
    let threshold = n.wrapping_neg() % n;
    loop {
        let wide = rng.next_u64() as u128 * n as u128;
        if (wide as u64) >= threshold {
            return (wide >> 64) as u64;
        }
    }
}

/// Deals uniformly random physical deals by a partial Fisher–Yates shuffle.
pub struct Dealer {
    cards: Vec<u8>,
}

impl Dealer {
    pub fn new(deck: &Deck) -> Self {
        let mut cards = Vec::with_capacity(deck.cards() as usize);
        for (rank, &c) in deck.copies.iter().enumerate() {
            cards.extend(std::iter::repeat_n(rank as u8, c as usize));
        }
        Dealer { cards }
    }

    /// Shuffling a permutation of the deck, whatever its current order, gives
    /// a uniform deal, so the deck is never reset between deals.
    pub fn deal(&mut self, rng: &mut impl Rng, n_first: usize, n_second: usize) -> Deal {
        let n = self.cards.len();
        let take = n_first + n_second;
        for i in 0..take {
            let j = i + uniform_below(rng, (n - i) as u64) as usize;
            self.cards.swap(i, j);
        }
        let mut deal = Deal {
            first: [0; MAX_RANKS],
            second: [0; MAX_RANKS],
            weight: 1,
        };
        for &c in &self.cards[..n_first] {
            deal.first[c as usize] += 1;
        }
        for &c in &self.cards[n_first..take] {
            deal.second[c as usize] += 1;
        }
        deal
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standard() -> Deck {
        Deck {
            copies: vec![4; 13],
        }
    }

    #[test]
    fn weights_sum_to_the_number_of_physical_deals() {
        for (a, b) in [(1, 1), (2, 2), (3, 2), (4, 4)] {
            let space = DealSpace::new(&standard(), a, b).unwrap();
            let mut total = 0u128;
            let mut count = 0u64;
            space.for_each_in_range(0, space.len(), |d| {
                total += d.weight;
                count += 1;
            });
            assert_eq!(count, space.len());
            assert_eq!(total, binomial(52, a).unwrap() * binomial(52 - a, b).unwrap());
        }
    }

    #[test]
    fn eight_each_has_the_published_number_of_compressed_deals() {
        let space = DealSpace::new(&standard(), 8, 8).unwrap();
        assert_eq!(space.len(), 28_870_870);
    }

    #[test]
    fn ranges_partition_the_space() {
        let deck = Deck {
            copies: vec![2, 3, 1, 4, 2],
        };
        let space = DealSpace::new(&deck, 3, 2).unwrap();
        let mut all = Vec::new();
        space.for_each_in_range(0, space.len(), |d| all.push((d.first, d.second)));
        let mut pieces = Vec::new();
        let mut lo = 0;
        while lo < space.len() {
            let hi = (lo + 7).min(space.len());
            space.for_each_in_range(lo, hi, |d| pieces.push((d.first, d.second)));
            lo = hi;
        }
        assert_eq!(all, pieces);
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len(), "no deal repeats");
    }

    #[test]
    fn chunk_streams_are_reproducible_and_distinct() {
        let a: Vec<u64> = (0..4).map(|_| chunk_rng(7, 3).next_u64()).collect();
        assert!(a.iter().all(|&v| v == a[0]));
        assert_ne!(chunk_rng(7, 3).next_u64(), chunk_rng(7, 4).next_u64());
        assert_ne!(chunk_rng(7, 3).next_u64(), chunk_rng(8, 3).next_u64());
    }

    #[test]
    fn dealt_hands_have_the_right_sizes_and_respect_the_deck() {
        let deck = standard();
        let mut dealer = Dealer::new(&deck);
        let mut rng = chunk_rng(1, 0);
        for _ in 0..1000 {
            let d = dealer.deal(&mut rng, 5, 7);
            assert_eq!(d.first.iter().map(|&c| c as u32).sum::<u32>(), 5);
            assert_eq!(d.second.iter().map(|&c| c as u32).sum::<u32>(), 7);
            for r in 0..13 {
                assert!(d.first[r] + d.second[r] <= 4);
            }
        }
    }

    #[test]
    fn uniform_below_is_roughly_uniform() {
        let mut rng = chunk_rng(42, 0);
        let mut hist = [0u32; 6];
        for _ in 0..60_000 {
            hist[uniform_below(&mut rng, 6) as usize] += 1;
        }
        for h in hist {
            assert!((9_400..10_600).contains(&h), "{hist:?}");
        }
    }
}
