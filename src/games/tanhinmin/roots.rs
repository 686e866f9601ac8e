//! Every exhaustive deal of the plain game grouped by its canonical root.
//!
//! A rank pattern ([`DealSpace`](crate::games::cards::DealSpace)) lists the
//! held ranks of a deal in order, as (mover, other) pairs. In the plain game
//! adjacent held ranks that only one player holds are interchangeable
//! ([`super::position`]): a run of them plays as one block of that player's
//! cards. So many patterns are one game. A *root* writes a segment's
//! pattern as tokens: `M(m)`, a run of `m` cards that only the mover holds;
//! `O(m)`, the same for the other player; `B(x, y)`, one rank both hold.
//! Two `M` (or two `O`) tokens are never adjacent, since they would be one
//! run. Every pattern of a root has the same canonical key, so the same
//! minimax verdict and the same μ pair; the run solves each root once and
//! counts it with the total weight of its patterns.
//!
//! That weight is computed, not summed over patterns. On a segment whose
//! ranks all have `c` copies, a token spreads over `j` consecutive held
//! ranks in `g_t(j)` suit-weighted ways (`M(m)`: compositions of `m` into
//! `j` parts of at most `c`, each part `x` weighted C(c, x); `B(x, y)`: one
//! rank, C(c, x) C(c - x, y)). The held ranks are any `k` of the segment's
//! `L`, so the segment's weight is Σ_k C(L, k) [z^k] Π_t g_t(z), and a
//! deal's weight is the product over segments. Segments are the pieces of
//! the deck between boundaries (the field), as in `DealSpace`.
//!
//! Roots are enumerated in a fixed order and counted by a table of
//! completions, so a range of root indices is a chunk, exactly as patterns
//! are. Decks whose segments have unequal copies are not handled here
//! ([`RootSpace::new`] returns `None`) and fall back to patterns.
//!
//! The plain twin is the pattern enumeration itself: tests merge every
//! pattern into its root and hold the weights, counts and μ pairs equal.

use crate::games::cards::{Deal, Deck, MAX_RANKS, segment_starts};
use crate::stats::binomial;

/// One token of a root within a segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Token {
    /// A run of cards only the mover holds.
    Mover(u8),
    /// A run of cards only the other player holds.
    Other(u8),
    /// One rank both hold: (mover's cards, other's cards).
    Both(u8, u8),
}

/// Every weight here is a part of the cell's deal count (each term adds to
/// one root's weight, and a root's weight to the cell's), and the config
/// refuses exhaustive cells whose deal count passes u128 (`validate_enumerable`), so
/// the checked arithmetic below cannot fail; it is checked so that a
/// broken bound stops the run rather than wrapping into a wrong number.
const FITS: &str =
    "a root weight is bounded by the cell's deal count, which the config checks fits u128";

/// What the previous token of a segment was; runs of one kind never follow
/// each other.
const NONE: usize = 0;
const MOVER: usize = 1;
const OTHER: usize = 2;
const BOTH: usize = 3;

/// Every root of a cell, enumerable by index range.
pub struct RootSpace {
    /// Ranks in each segment.
    lens: Vec<usize>,
    /// Copies of every rank of each segment.
    copies: Vec<u32>,
    /// First deck rank of each segment.
    starts: Vec<usize>,
    n_first: u32,
    n_second: u32,
    /// `count[s][prev][a][b][r]`: root completions from segment `s` after a
    /// token of kind `prev`, with `a`, `b` cards left to place and `r` ranks
    /// of the segment still free (each token takes its fewest ranks).
    count: Vec<Vec<Vec<Vec<Vec<u64>>>>>,
    /// `spread[m][j]`: suit-weighted ways to spread a run of `m` cards over
    /// `j` consecutive held ranks of a segment (per segment).
    spread: Vec<Vec<Vec<u128>>>,
    /// `choose[s][k]` = C(L_s, k).
    choose: Vec<Vec<u128>>,
}

/// The fewest ranks a run of `m` cards needs with `c` copies a rank.
fn ranks_for(m: usize, c: usize) -> usize {
    m.div_ceil(c)
}

impl RootSpace {
    /// The roots of cells `n_first` x `n_second` on `deck`, split at
    /// `boundaries` as [`DealSpace::with_boundaries`](crate::games::cards::DealSpace::with_boundaries)
    /// splits it. `None` when a segment has ranks of unequal copies, or a
    /// count would not fit in u64.
    pub fn new(deck: &Deck, n_first: u32, n_second: u32, boundaries: &[usize]) -> Option<Self> {
        let ranks = deck.copies.len();
        let starts = segment_starts(ranks, boundaries);
        let mut lens = Vec::new();
        let mut copies = Vec::new();
        for (i, &start) in starts.iter().enumerate() {
            let end = starts.get(i + 1).copied().unwrap_or(ranks);
            let seg = &deck.copies[start..end];
            let c = *seg.first()?;
            if c == 0 || c > 255 || seg.iter().any(|&x| x != c) {
                return None;
            }
            lens.push(end - start);
            copies.push(c);
        }
        let (na, nb) = (n_first as usize, n_second as usize);
        let most = na.max(nb);
        let spread: Vec<Vec<Vec<u128>>> = copies
            .iter()
            .map(|&c| {
                let mut t = vec![vec![0u128; most + 1]; most + 1];
                t[0][0] = 1;
                for m in 1..=most {
                    for j in 1..=m {
                        let mut total = 0u128;
                        for x in 1..=m.min(c as usize) {
                            let w = binomial(c, x as u32)?.checked_mul(t[m - x][j - 1])?;
                            total = total.checked_add(w)?;
                        }
                        t[m][j] = total;
                    }
                }
                Some(t)
            })
            .collect::<Option<_>>()?;
        let choose: Vec<Vec<u128>> = lens
            .iter()
            .map(|&l| (0..=l).map(|k| binomial(l as u32, k as u32)).collect())
            .collect::<Option<_>>()?;
        let segments = lens.len();
        let mut count: Vec<Vec<Vec<Vec<Vec<u64>>>>> = lens
            .iter()
            .map(|&l| vec![vec![vec![vec![0u64; l + 1]; nb + 1]; na + 1]; 4])
            .collect();
        for s in (0..segments).rev() {
            let (l, c) = (lens[s], copies[s] as usize);
            for r in 0..=l {
                for a in 0..=na {
                    for b in 0..=nb {
                        for prev in 0..4 {
                            let mut total: u64 = if s + 1 == segments {
                                u64::from(a == 0 && b == 0)
                            } else {
                                count[s + 1][NONE][a][b][lens[s + 1]]
                            };
                            for (token, a2, b2, need) in Self::next_tokens(prev, a, b, c) {
                                if need <= r {
                                    let kind = kind_of(token);
                                    total = total.checked_add(count[s][kind][a2][b2][r - need])?;
                                }
                            }
                            count[s][prev][a][b][r] = total;
                        }
                    }
                }
            }
        }
        Some(RootSpace {
            lens,
            copies,
            starts,
            n_first,
            n_second,
            count,
            spread,
            choose,
        })
    }

    /// The tokens that may follow a token of kind `prev` with `a`, `b`
    /// cards left and `c` copies a rank, in enumeration order, each with the
    /// cards left after it and the fewest ranks it takes.
    fn next_tokens(
        prev: usize,
        a: usize,
        b: usize,
        c: usize,
    ) -> impl Iterator<Item = (Token, usize, usize, usize)> {
        let movers = (1..=a)
            .filter(move |_| prev != MOVER)
            .map(move |m| (Token::Mover(m as u8), a - m, b, ranks_for(m, c)));
        let others = (1..=b)
            .filter(move |_| prev != OTHER)
            .map(move |m| (Token::Other(m as u8), a, b - m, ranks_for(m, c)));
        let both = (1..=a.min(c.saturating_sub(1))).flat_map(move |x| {
            (1..=b.min(c - x)).map(move |y| (Token::Both(x as u8, y as u8), a - x, b - y, 1))
        });
        movers.chain(others).chain(both)
    }

    /// Number of roots.
    pub fn len(&self) -> u64 {
        let (na, nb) = (self.n_first as usize, self.n_second as usize);
        self.count[0][NONE][na][nb][self.lens[0]]
    }

    /// No root at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Calls `f` on every root with index in `lo..hi`, in index order: its
    /// representative deal (each segment's tokens on its weakest ranks, runs
    /// filled a full rank at a time) with the weight of all its patterns,
    /// and its tokens per segment.
    pub fn for_each_in_range(&self, lo: u64, hi: u64, mut f: impl FnMut(&Deal, &[Vec<Token>])) {
        let mut walk = Walk {
            tokens: vec![Vec::new(); self.lens.len()],
            polys: Vec::new(),
            weights: Vec::new(),
            offset: 0,
            lo,
            hi,
        };
        self.walk(
            0,
            NONE,
            self.n_first as usize,
            self.n_second as usize,
            self.lens[0],
            &mut walk,
            &mut f,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn walk(
        &self,
        s: usize,
        prev: usize,
        a: usize,
        b: usize,
        r: usize,
        w: &mut Walk,
        f: &mut impl FnMut(&Deal, &[Vec<Token>]),
    ) {
        let segments = self.lens.len();
        // Choice 1: the segment ends here.
        let size = if s + 1 == segments {
            u64::from(a == 0 && b == 0)
        } else {
            self.count[s + 1][NONE][a][b][self.lens[s + 1]]
        };
        if w.overlaps(size) {
            let weight = self.segment_weight(s, w.polys.last());
            w.weights.push(weight);
            let saved = std::mem::take(&mut w.polys);
            if s + 1 == segments {
                if w.offset >= w.lo && w.offset < w.hi {
                    let deal = self.realise(&w.tokens, &w.weights);
                    f(&deal, &w.tokens);
                }
                w.offset += 1;
            } else {
                self.walk(s + 1, NONE, a, b, self.lens[s + 1], w, f);
            }
            w.polys = saved;
            w.weights.pop();
        } else {
            w.offset += size;
        }
        if w.offset >= w.hi {
            return;
        }
        // Choice 2: one more token in this segment.
        let c = self.copies[s] as usize;
        for (token, a2, b2, need) in Self::next_tokens(prev, a, b, c) {
            if need > r {
                continue;
            }
            let kind = kind_of(token);
            let size = self.count[s][kind][a2][b2][r - need];
            if w.overlaps(size) {
                let poly = self.extend(s, w.polys.last(), token);
                w.polys.push(poly);
                w.tokens[s].push(token);
                self.walk(s, kind, a2, b2, r - need, w, f);
                w.tokens[s].pop();
                w.polys.pop();
            } else {
                w.offset += size;
            }
            if w.offset >= w.hi {
                return;
            }
        }
    }

    /// The weight polynomial of a segment's tokens so far times `token`'s:
    /// coefficient `k` counts suit-weighted ways with `k` held ranks.
    fn extend(&self, s: usize, poly: Option<&Vec<u128>>, token: Token) -> Vec<u128> {
        let l = self.lens[s];
        let c = self.copies[s];
        let one = vec![1u128];
        let poly = poly.unwrap_or(&one);
        let factor: Vec<(usize, u128)> = match token {
            Token::Mover(m) | Token::Other(m) => {
                let row = &self.spread[s][m as usize];
                (1..row.len())
                    .filter(|&j| row[j] > 0)
                    .map(|j| (j, row[j]))
                    .collect()
            }
            Token::Both(x, y) => {
                let ways = binomial(c, x as u32).unwrap_or(0)
                    * binomial(c - x as u32, y as u32).unwrap_or(0);
                vec![(1, ways)]
            }
        };
        let mut out =
            vec![0u128; (poly.len() + factor.iter().map(|f| f.0).max().unwrap_or(0)).min(l + 1)];
        for (i, &p) in poly.iter().enumerate() {
            if p == 0 {
                continue;
            }
            for &(j, g) in &factor {
                if i + j < out.len() {
                    out[i + j] = p
                        .checked_mul(g)
                        .and_then(|t| t.checked_add(out[i + j]))
                        .expect(FITS);
                }
            }
        }
        out
    }

    /// Σ_k C(L, k) [z^k] poly: the physical deals of a segment's tokens.
    fn segment_weight(&self, s: usize, poly: Option<&Vec<u128>>) -> u128 {
        match poly {
            None => 1,
            Some(p) => p
                .iter()
                .zip(&self.choose[s])
                .try_fold(0u128, |sum, (&coef, &ways)| {
                    coef.checked_mul(ways)?.checked_add(sum)
                })
                .expect(FITS),
        }
    }

    /// The representative deal of a root, with the product of its segments'
    /// weights.
    fn realise(&self, tokens: &[Vec<Token>], weights: &[u128]) -> Deal {
        let mut deal = Deal {
            first: [0; MAX_RANKS],
            second: [0; MAX_RANKS],
            weight: weights
                .iter()
                .try_fold(1u128, |w, &x| w.checked_mul(x))
                .expect(FITS),
        };
        for (s, seq) in tokens.iter().enumerate() {
            let c = self.copies[s] as u8;
            let mut rank = self.starts[s];
            for &token in seq {
                match token {
                    Token::Mover(m) | Token::Other(m) => {
                        let hand = if matches!(token, Token::Mover(_)) {
                            &mut deal.first
                        } else {
                            &mut deal.second
                        };
                        let mut left = m;
                        while left > 0 {
                            let here = left.min(c);
                            hand[rank] = here;
                            left -= here;
                            rank += 1;
                        }
                    }
                    Token::Both(x, y) => {
                        deal.first[rank] = x;
                        deal.second[rank] = y;
                        rank += 1;
                    }
                }
            }
        }
        deal
    }
}

fn kind_of(token: Token) -> usize {
    match token {
        Token::Mover(_) => MOVER,
        Token::Other(_) => OTHER,
        Token::Both(..) => BOTH,
    }
}

/// The walk's state: tokens chosen per segment, the weight polynomial after
/// each token of the current segment, finished segments' weights, and the
/// root index reached.
struct Walk {
    tokens: Vec<Vec<Token>>,
    polys: Vec<Vec<u128>>,
    weights: Vec<u128>,
    offset: u64,
    lo: u64,
    hi: u64,
}

impl Walk {
    /// Does a block of `size` roots starting here touch `lo..hi`?
    fn overlaps(&self, size: u64) -> bool {
        size > 0 && self.offset + size > self.lo && self.offset < self.hi
    }
}

/// The root of a rank pattern: each segment's held ranks, weakest first,
/// with adjacent single-owner ranks of one owner merged into a run. This is
/// the plain definition the enumeration above is tested against.
pub fn root_of(first: &[u8], second: &[u8], starts: &[usize]) -> Vec<Vec<Token>> {
    let mut out = Vec::new();
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(first.len());
        let mut seq: Vec<Token> = Vec::new();
        for r in start..end {
            let (x, y) = (first[r], second[r]);
            let token = match (x, y) {
                (0, 0) => continue,
                (x, 0) => Token::Mover(x),
                (0, y) => Token::Other(y),
                (x, y) => Token::Both(x, y),
            };
            match (seq.last_mut(), token) {
                (Some(Token::Mover(m)), Token::Mover(x)) => *m += x,
                (Some(Token::Other(m)), Token::Other(y)) => *m += y,
                _ => seq.push(token),
            }
        }
        out.push(seq);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::cards::DealSpace;
    use crate::games::tanhinmin::formula::mu_pair_counts;
    use crate::games::tanhinmin::position::canonical_key;
    use std::collections::BTreeMap;

    /// Each root's facts: (weight, canonical key, μ pair).
    type Facts = BTreeMap<Vec<Vec<Token>>, (u128, u128, (u32, u32))>;

    /// Every root of the cell by both enumerations: (tokens) -> (weight,
    /// canonical key, μ pair), the patterns merged by the plain `root_of`.
    fn both_ways(ranks: usize, c: u32, n1: u32, n2: u32, field: usize) -> (Facts, Facts, u64) {
        let deck = Deck {
            copies: vec![c; ranks],
        };
        let mut starts = vec![0];
        if field > 0 && field < ranks {
            starts.push(field);
        }
        let facts = |d: &Deal| {
            (
                canonical_key(&d.first[..ranks], &d.second[..ranks], field),
                mu_pair_counts(&d.first[..ranks], &d.second[..ranks], field),
            )
        };
        let patterns = DealSpace::with_boundaries(&deck, n1, n2, &[field]).unwrap();
        let mut merged = Facts::new();
        patterns.for_each_in_range(0, patterns.len(), |d| {
            let root = root_of(&d.first[..ranks], &d.second[..ranks], &starts);
            let (key, mu) = facts(d);
            let e = merged.entry(root).or_insert((0, key, mu));
            e.0 += d.weight;
            assert_eq!((e.1, e.2), (key, mu), "a root with two keys or two μ pairs");
        });
        let space = RootSpace::new(&deck, n1, n2, &[field]).unwrap();
        let mut roots = BTreeMap::new();
        let mut seen = 0u64;
        space.for_each_in_range(0, space.len(), |d, tokens| {
            seen += 1;
            let (key, mu) = facts(d);
            assert!(
                roots.insert(tokens.to_vec(), (d.weight, key, mu)).is_none(),
                "a root enumerated twice"
            );
            assert_eq!(
                root_of(&d.first[..ranks], &d.second[..ranks], &starts),
                tokens
            );
        });
        assert_eq!(seen, space.len());
        (roots, merged, space.len())
    }

    #[test]
    fn roots_match_the_patterns_merged_one_by_one() {
        for (ranks, c, n1, n2, field) in [
            (13, 4, 3, 3, 0),
            (13, 4, 4, 4, 0),
            (13, 4, 5, 4, 0),
            (13, 4, 3, 5, 6),
            (13, 4, 4, 4, 1),
            (13, 4, 4, 4, 12),
            (6, 2, 3, 3, 0),
            (6, 2, 4, 2, 3),
            (8, 3, 4, 5, 2),
            (5, 1, 2, 3, 0),
            (4, 6, 5, 5, 2),
        ] {
            let (roots, merged, _) = both_ways(ranks, c, n1, n2, field);
            assert_eq!(
                roots, merged,
                "{ranks} ranks x {c}, {n1}x{n2}, field {field}"
            );
        }
    }

    #[test]
    fn root_counts_at_field_zero_are_the_ones_counted_independently() {
        // Issue 18 counted distinct canonical roots of 52 cards at field 0.
        for (n, roots) in [(4u32, 775u64), (5, 5350), (6, 37581)] {
            let space = RootSpace::new(
                &Deck {
                    copies: vec![4; 13],
                },
                n,
                n,
                &[0],
            )
            .unwrap();
            let mut keys = std::collections::HashSet::new();
            space.for_each_in_range(0, space.len(), |d, _| {
                keys.insert(canonical_key(&d.first[..13], &d.second[..13], 0));
            });
            assert_eq!(space.len(), roots, "{n}x{n}");
            assert_eq!(keys.len() as u64, roots, "{n}x{n}: one key per root");
        }
    }

    #[test]
    fn ranges_cut_the_enumeration_anywhere() {
        let deck = Deck {
            copies: vec![4; 13],
        };
        let space = RootSpace::new(&deck, 5, 4, &[3]).unwrap();
        let mut whole = Vec::new();
        space.for_each_in_range(0, space.len(), |d, _| whole.push((d.first, d.weight)));
        let mut pieces = Vec::new();
        let mut lo = 0u64;
        for step in [1u64, 7, 100, 1000, u64::MAX] {
            let hi = lo.saturating_add(step).min(space.len());
            space.for_each_in_range(lo, hi, |d, _| pieces.push((d.first, d.weight)));
            lo = hi;
        }
        space.for_each_in_range(lo, space.len(), |d, _| pieces.push((d.first, d.weight)));
        assert_eq!(whole, pieces);
    }

    #[test]
    fn unequal_copies_in_a_segment_fall_back() {
        let mut copies = vec![4; 13];
        copies.push(2);
        assert!(
            RootSpace::new(
                &Deck {
                    copies: copies.clone()
                },
                3,
                3,
                &[0]
            )
            .is_none()
        );
        // With the odd rank in a segment of its own, roots work.
        assert!(RootSpace::new(&Deck { copies }, 3, 3, &[13]).is_some());
    }
}
