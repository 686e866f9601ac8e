//! Producing deals: every distinct deal up to suits with its weight, or
//! uniformly random physical deals.

use crate::random::uniform_below;
use crate::stats::binomial;
use rand_xoshiro::rand_core::Rng;

/// Rank slots in a [`Hand`]: decks of up to 64 ranks.
pub const MAX_RANKS: usize = 64;

/// A hand as counts per rank; rank index `i` has strength `i + 1`. Fixed
/// size so that hands are `Copy` and need no allocation on the hot path.
pub type Hand = [u8; MAX_RANKS];

/// A deck as copies per rank; rank index `i` has strength `i + 1`.
#[derive(Clone, Debug)]
pub struct Deck {
    /// Copies of each rank, weakest first.
    pub copies: Vec<u32>,
}

impl Deck {
    /// Cards in the deck.
    pub fn cards(&self) -> u32 {
        self.copies.iter().sum()
    }

    /// Physical deals of `a` and `b` cards from this deck, or `None` when
    /// they do not fit in u128: what an exhaustive cell's weights sum to.
    pub fn physical_deals(&self, a: u32, b: u32) -> Option<u128> {
        let n = self.cards();
        binomial(n, a)?.checked_mul(binomial(n.checked_sub(a)?, b)?)
    }
}

/// One deal up to suits: how many cards of each rank each player holds,
/// and how many physical deals it stands for.
#[derive(Clone, Debug)]
pub struct Deal {
    /// The first player's hand.
    pub first: Hand,
    /// The second player's hand.
    pub second: Hand,
    /// Physical deals this deal stands for (1 when sampled).
    pub weight: u128,
}

/// Every deal of `n_first` and `n_second` cards up to suits, one per rank
/// assignment, in a fixed order (lexicographic in (x0, y0, x1, y1, ...)).
///
/// This is the plain twin of [`DealSpace`]: it does not merge deals that
/// differ only in ranks nobody holds, so it is much larger, and tests use it
/// to check the compressed enumeration's weights and verdicts.
pub struct PerRankDealSpace {
    copies: Vec<u32>,
    n_first: u32,
    n_second: u32,
    /// `completions[i][a][b]`: deals of ranks i.. using exactly a and b cards.
    completions: Vec<Vec<Vec<u64>>>,
}

impl PerRankDealSpace {
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
        Some(PerRankDealSpace {
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

    /// No deal at all.
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
                    self.walk(
                        rank + 1,
                        a - x as usize,
                        b - y as usize,
                        offset,
                        lo,
                        hi,
                        deal,
                        f,
                    );
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

/// Every deal up to suits *and* up to the choice of ranks nobody holds.
///
/// Only the order of the cards in play matters to both the game and the
/// formula, so a deal is a pattern: the sequence of nonzero (x, y) pairs on
/// the ranks in play, weakest first. A field r > 0 splits the deck in two
/// segments (ranks <= r and ranks > r) and the pattern keeps one sequence per
/// segment. Each pattern carries the number of physical deals it stands for,
/// summed over every way to place it on the deck's ranks.
///
/// For 8 cards each from 13 ranks x 4 this is 28,870,870 patterns against
/// 11,172,093,790 per-rank deals.
pub struct DealSpace {
    /// Copies of each deck rank, per segment.
    segments: Vec<Vec<u32>>,
    /// First deck rank of each segment.
    segment_start: Vec<usize>,
    /// Nonzero (x, y) pairs a rank of each segment can hold.
    pairs: Vec<Vec<(u8, u8)>>,
    n_first: u32,
    n_second: u32,
    /// `completions[s][j][a][b]`: patterns that finish from segment `s`, with
    /// `j` ranks of it already used and `a`, `b` cards left to place.
    completions: Vec<Vec<Vec<Vec<u64>>>>,
}

impl DealSpace {
    /// `field` is the strength on the field (0: empty). `None` if the number
    /// of patterns does not fit in u64.
    pub fn new(deck: &Deck, n_first: u32, n_second: u32, field: u32) -> Option<Self> {
        Self::with_boundaries(deck, n_first, n_second, &[field as usize])
    }

    /// Like [`DealSpace::new`], with the deck split into segments at every
    /// rank count in `boundaries`: ranks below and above a boundary are never
    /// exchanged. A rule that singles out a rank (the field, a cut rank)
    /// needs boundaries on both sides of it.
    pub fn with_boundaries(
        deck: &Deck,
        n_first: u32,
        n_second: u32,
        boundaries: &[usize],
    ) -> Option<Self> {
        let ranks = deck.copies.len();
        let segment_start = segment_starts(ranks, boundaries);
        let segments: Vec<Vec<u32>> = segment_start
            .iter()
            .enumerate()
            .map(|(i, &start)| {
                let end = segment_start.get(i + 1).copied().unwrap_or(ranks);
                deck.copies[start..end].to_vec()
            })
            .collect();
        let pairs: Vec<Vec<(u8, u8)>> = segments
            .iter()
            .map(|seg| {
                let most = seg.iter().copied().max().unwrap_or(0).min(255);
                let mut p = Vec::new();
                for x in 0..=most {
                    for y in 0..=most - x {
                        if x + y > 0 {
                            p.push((x as u8, y as u8));
                        }
                    }
                }
                p
            })
            .collect();
        let (na, nb) = (n_first as usize, n_second as usize);
        let s_count = segments.len();
        let mut completions: Vec<Vec<Vec<Vec<u64>>>> = segments
            .iter()
            .map(|seg| vec![vec![vec![0u64; nb + 1]; na + 1]; seg.len() + 1])
            .collect();
        for s in (0..s_count).rev() {
            for j in (0..=segments[s].len()).rev() {
                for a in 0..=na {
                    for b in 0..=nb {
                        let mut total: u64 = if s + 1 == s_count {
                            u64::from(a == 0 && b == 0)
                        } else {
                            completions[s + 1][0][a][b]
                        };
                        if j < segments[s].len() {
                            for &(x, y) in &pairs[s] {
                                let (x, y) = (x as usize, y as usize);
                                if x <= a && y <= b {
                                    total =
                                        total.checked_add(completions[s][j + 1][a - x][b - y])?;
                                }
                            }
                        }
                        completions[s][j][a][b] = total;
                    }
                }
            }
        }
        Some(DealSpace {
            segments,
            segment_start,
            pairs,
            n_first,
            n_second,
            completions,
        })
    }

    /// Number of patterns (some may stand for no physical deal when copies
    /// differ between ranks; those have weight 0 and are skipped).
    pub fn len(&self) -> u64 {
        self.completions[0][0][self.n_first as usize][self.n_second as usize]
    }

    /// No pattern at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` on one physical representative of every pattern with index
    /// in `lo..hi` and nonzero weight, in index order. The representative
    /// puts each segment's pattern on the weakest ranks that can hold it.
    pub fn for_each_in_range(&self, lo: u64, hi: u64, mut f: impl FnMut(&Deal)) {
        let mut pattern: Vec<Vec<(u8, u8)>> = vec![Vec::new(); self.segments.len()];
        let mut cursor = Cursor { offset: 0, lo, hi };
        self.walk(
            0,
            self.n_first as usize,
            self.n_second as usize,
            &mut pattern,
            &mut cursor,
            &mut f,
        );
    }

    fn walk(
        &self,
        s: usize,
        a: usize,
        b: usize,
        pattern: &mut Vec<Vec<(u8, u8)>>,
        cur: &mut Cursor,
        f: &mut impl FnMut(&Deal),
    ) {
        if s == self.segments.len() {
            if a == 0 && b == 0 {
                if cur.offset >= cur.lo
                    && cur.offset < cur.hi
                    && let Some(deal) = self.realise(pattern)
                {
                    f(&deal);
                }
                cur.offset += 1;
            }
            return;
        }
        let j = pattern[s].len();
        // Choice 1: the segment ends here.
        let size = if s + 1 == self.segments.len() {
            u64::from(a == 0 && b == 0)
        } else {
            self.completions[s + 1][0][a][b]
        };
        if cur.overlaps(size) {
            self.walk(s + 1, a, b, pattern, cur, f);
        } else {
            cur.offset += size;
        }
        if cur.offset >= cur.hi || j == self.segments[s].len() {
            return;
        }
        // Choice 2: one more rank in play, holding (x, y).
        for &(x, y) in &self.pairs[s] {
            let (xu, yu) = (x as usize, y as usize);
            if xu > a || yu > b {
                continue;
            }
            let size = self.completions[s][j + 1][a - xu][b - yu];
            if cur.overlaps(size) {
                pattern[s].push((x, y));
                self.walk(s, a - xu, b - yu, pattern, cur, f);
                pattern[s].pop();
            } else {
                cur.offset += size;
            }
            if cur.offset >= cur.hi {
                return;
            }
        }
    }

    /// The pattern's weight and its representative deal, or `None` if no
    /// placement fits the deck.
    fn realise(&self, pattern: &[Vec<(u8, u8)>]) -> Option<Deal> {
        let mut deal = Deal {
            first: [0; MAX_RANKS],
            second: [0; MAX_RANKS],
            weight: 1,
        };
        for (s, seq) in pattern.iter().enumerate() {
            let copies = &self.segments[s];
            deal.weight = deal.weight.checked_mul(placements(copies, seq))?;
            if deal.weight == 0 {
                return None;
            }
            let mut rank = 0;
            for &(x, y) in seq {
                while (copies[rank] as usize) < (x + y) as usize {
                    rank += 1;
                }
                deal.first[self.segment_start[s] + rank] = x;
                deal.second[self.segment_start[s] + rank] = y;
                rank += 1;
            }
        }
        Some(deal)
    }
}

struct Cursor {
    offset: u64,
    lo: u64,
    hi: u64,
}

impl Cursor {
    /// Does a block of `size` items starting at the cursor touch `lo..hi`?
    fn overlaps(&self, size: u64) -> bool {
        size > 0 && self.offset + size > self.lo && self.offset < self.hi
    }
}

/// The first rank of each segment when `ranks` ranks are split at every
/// count in `boundaries` (0 always starts one; counts outside the deck and
/// repeats are ignored), in order.
pub fn segment_starts(ranks: usize, boundaries: &[usize]) -> Vec<usize> {
    let mut starts: Vec<usize> = boundaries
        .iter()
        .copied()
        .filter(|&b| b > 0 && b < ranks)
        .chain([0])
        .collect();
    starts.sort_unstable();
    starts.dedup();
    starts
}

/// Physical deals a pattern stands for within one segment: the sum over
/// every increasing placement of its pairs on the segment's ranks of the
/// product of C(c, x) C(c - x, y).
pub fn placements(copies: &[u32], seq: &[(u8, u8)]) -> u128 {
    let k = seq.len();
    if k > copies.len() {
        return 0;
    }
    let ways = |c: u32, (x, y): (u8, u8)| {
        binomial(c, x as u32).unwrap_or(0)
            * binomial(c.saturating_sub(x as u32), y as u32).unwrap_or(0)
    };
    if copies.iter().all(|&c| c == copies[0]) {
        // Every rank is alike: choose which ranks, then suits on each.
        let mut w = binomial(copies.len() as u32, k as u32).unwrap_or(0);
        for &p in seq {
            w *= ways(copies[0], p);
        }
        return w;
    }
    // dp[i]: placements of the first i pairs on the ranks seen so far.
    let mut dp = vec![0u128; k + 1];
    dp[0] = 1;
    for &c in copies {
        for i in (1..=k).rev() {
            dp[i] += dp[i - 1] * ways(c, seq[i - 1]);
        }
    }
    dp[k]
}

/// Deals uniformly random physical deals by a partial Fisher–Yates shuffle.
pub struct Dealer {
    cards: Vec<u8>,
}

impl Dealer {
    /// A dealer over `deck`'s cards.
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

/// Card strengths of a count array, weakest first (rank index i is strength i+1).
pub fn strengths(counts: &[u8]) -> Vec<u32> {
    let mut v = Vec::with_capacity(counts.iter().map(|&c| usize::from(c)).sum());
    for (i, &c) in counts.iter().enumerate() {
        for _ in 0..c {
            v.push(i as u32 + 1);
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random::chunk_rng;

    #[test]
    fn segments_start_at_zero_and_at_each_boundary_inside_the_deck() {
        assert_eq!(segment_starts(13, &[9, 0, 13, 5, 9, 20]), vec![0, 5, 9]);
        assert_eq!(segment_starts(13, &[]), vec![0]);
        assert_eq!(segment_starts(0, &[3]), vec![0]);
    }

    fn standard() -> Deck {
        Deck {
            copies: vec![4; 13],
        }
    }

    #[test]
    fn weights_sum_to_the_number_of_physical_deals() {
        for (a, b) in [(1, 1), (2, 2), (3, 2), (4, 4)] {
            let space = PerRankDealSpace::new(&standard(), a, b).unwrap();
            let mut total = 0u128;
            let mut count = 0u64;
            space.for_each_in_range(0, space.len(), |d| {
                total += d.weight;
                count += 1;
            });
            assert_eq!(count, space.len());
            assert_eq!(
                total,
                binomial(52, a).unwrap() * binomial(52 - a, b).unwrap()
            );
        }
    }

    #[test]
    fn eight_each_has_the_published_number_of_compressed_deals() {
        let space = DealSpace::new(&standard(), 8, 8, 0).unwrap();
        assert_eq!(space.len(), 28_870_870);
        assert_eq!(
            PerRankDealSpace::new(&standard(), 8, 8).unwrap().len(),
            11_172_093_790
        );
    }

    #[test]
    fn ranges_partition_the_space() {
        let deck = Deck {
            copies: vec![2, 3, 1, 4, 2],
        };
        let space = PerRankDealSpace::new(&deck, 3, 2).unwrap();
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
    fn compressed_ranges_partition_the_space() {
        let deck = Deck {
            copies: vec![2, 3, 1, 4, 2],
        };
        let space = DealSpace::new(&deck, 3, 3, 2).unwrap();
        let mut all = Vec::new();
        space.for_each_in_range(0, space.len(), |d| all.push((d.first, d.second, d.weight)));
        for step in [1, 5, 64] {
            let mut pieces = Vec::new();
            let mut lo = 0;
            while lo < space.len() {
                let hi = (lo + step).min(space.len());
                space.for_each_in_range(lo, hi, |d| pieces.push((d.first, d.second, d.weight)));
                lo = hi;
            }
            assert_eq!(all, pieces, "step {step}");
        }
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
