//! The classic games of seed 003 by brute force from their rules, the
//! closed forms the notes give for them, and instance numbering.

use super::games::{Arena, GameId};
use crate::random::uniform_below;
use hashbrown::HashMap;
use rand_xoshiro::Xoshiro256PlusPlus;

/// Heap tuple `i` of all tuples with 1..=max_heaps heaps of 0..=max_heap
/// stones: fewer heaps first, then in lexicographic order.
pub fn heap_tuple(mut i: u64, max_heaps: u32, max_heap: u32) -> Vec<u32> {
    let base = u64::from(max_heap) + 1;
    for k in 1..=max_heaps {
        let count = base.pow(k);
        if i < count {
            let mut heaps = vec![0; k as usize];
            for slot in heaps.iter_mut().rev() {
                *slot = (i % base) as u32;
                i /= base;
            }
            return heaps;
        }
        i -= count;
    }
    panic!("heap tuple index out of range");
}

/// Pair `i` of all (a, b) with a <= b, ordered by b, then a.
pub fn ordered_pair(i: u64) -> (u64, u64) {
    let mut b = ((((8 * i + 1) as f64).sqrt() - 1.0) / 2.0) as u64;
    while b * (b + 1) / 2 > i {
        b -= 1;
    }
    while (b + 1) * (b + 2) / 2 <= i {
        b += 1;
    }
    (i - b * (b + 1) / 2, b)
}

/// Bash game with takes of 1..=m: `losing[n]` for n = 0..=max_n.
pub fn bash_losing_table(max_n: u32, m: u32) -> Vec<bool> {
    let mut losing = vec![false; max_n as usize + 1];
    for n in 0..=max_n as usize {
        losing[n] = (1..=(m as usize).min(n)).all(|take| !losing[n - take]);
    }
    losing
}

/// Wythoff's game: `losing[a][b]` for a, b <= max, straight from the moves
/// (take from one pile, or the same number from both).
pub fn wythoff_losing_table(max: u32) -> Vec<Vec<bool>> {
    // The moves of (a, b) lead along its column, its row and its diagonal
    // towards the origin; a position is losing iff none of those already
    // holds a losing one. Remembering that per column, row and diagonal
    // makes the table O(n^2) instead of the O(n^3) of scanning every move
    // ([`wythoff_losing_table_plain`] in the tests), which took minutes at
    // the largest `wythoff_max`.
    let n = max as usize + 1;
    let mut losing = vec![vec![false; n]; n];
    let mut column_has_losing = vec![false; n];
    // Diagonal a - b, shifted by n so it is never negative.
    let mut diagonal_has_losing = vec![false; 2 * n];
    for (a, row) in losing.iter_mut().enumerate() {
        let mut row_has_losing = false;
        for (b, cell) in row.iter_mut().enumerate() {
            let d = a + n - b;
            let is_losing = !(column_has_losing[b] || row_has_losing || diagonal_has_losing[d]);
            *cell = is_losing;
            if is_losing {
                column_has_losing[b] = true;
                row_has_losing = true;
                diagonal_has_losing[d] = true;
            }
        }
    }
    losing
}

fn isqrt(n: u128) -> u128 {
    let mut r = (n as f64).sqrt() as u128;
    while r * r > n {
        r -= 1;
    }
    while (r + 1) * (r + 1) <= n {
        r += 1;
    }
    r
}

/// floor(k * phi) exactly: k*phi = (k + sqrt(5 k^2)) / 2, and halving
/// commutes with the floor, so only an integer square root is needed.
pub fn floor_k_phi(k: u64) -> u64 {
    let k = u128::from(k);
    ((k + isqrt(5 * k * k)) / 2) as u64
}

/// The notes' test, floating point and all: with a < b, the first player
/// loses iff `(b-a)*((sqrt(5.0)+1.0)/2.0) == a`.
pub fn notes_float_wythoff_losing(a: u64, b: u64) -> bool {
    (b - a) as f64 * ((5.0f64.sqrt() + 1.0) / 2.0) == a as f64
}

/// The usual program's floor: `(long)(k * ((sqrt(5.0)+1.0)/2.0))`.
pub fn float_floor_k_phi(k: u64) -> u64 {
    (k as f64 * ((5.0f64.sqrt() + 1.0) / 2.0)) as u64
}

/// Fibonacci nim: `wins[n]` for n = 0..=max, the first move taking 1..=n-1.
/// Later moves take 1..=2x where x was the previous take.
pub fn fibonacci_first_player_wins(max: u32) -> Vec<bool> {
    let max = max as usize;
    // w[n][k]: the mover wins with n stones left and at most k to take.
    let mut w: Vec<Vec<bool>> = Vec::with_capacity(max + 1);
    for n in 0..=max {
        let mut row = vec![false; n + 1];
        for k in 1..=n {
            let take_k = k == n || !w[n - k][(2 * k).min(n - k)];
            row[k] = row[k - 1] || take_k;
        }
        w.push(row);
    }
    (0..=max).map(|n| n >= 2 && w[n][n - 1]).collect()
}

/// Is `n` a Fibonacci number?
pub fn is_fibonacci(n: u64) -> bool {
    let (mut a, mut b) = (1u64, 2u64);
    while a < n {
        (a, b) = (b, a + b);
    }
    a == n
}

/// Anti-nim by brute force: whoever takes the last stone loses.
#[derive(Default)]
pub struct Misere {
    memo: HashMap<Vec<u32>, bool>,
}

impl Misere {
    /// True when the player to move loses. With no stones left the player
    /// to move has won: the opponent took the last stone.
    pub fn is_losing(&mut self, heaps: &[u32]) -> bool {
        let mut key: Vec<u32> = heaps.iter().copied().filter(|&h| h > 0).collect();
        key.sort_unstable();
        self.losing(key)
    }

    fn losing(&mut self, key: Vec<u32>) -> bool {
        if key.is_empty() {
            return false;
        }
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let mut losing = true;
        'moves: for i in 0..key.len() {
            for left in 0..key[i] {
                let mut child = key.clone();
                if left == 0 {
                    child.remove(i);
                } else {
                    child[i] = left;
                }
                child.sort_unstable();
                if self.losing(child) {
                    losing = false;
                    break 'moves;
                }
            }
        }
        self.memo.insert(key, losing);
        losing
    }
}

/// The notes' wording: the first player wins iff every heap has exactly one
/// stone and the xor is 0, or some heap does not have one stone and the
/// xor is not 0.
pub fn misere_notes_first_wins(heaps: &[u32]) -> bool {
    let xor = heaps.iter().fold(0, |x, &h| x ^ h);
    let all_one = heaps.iter().all(|&h| h == 1);
    (all_one && xor == 0) || (!all_one && xor != 0)
}

/// The standard statement: wins iff every heap has at most one stone and the
/// xor is 0, or some heap has two or more and the xor is not 0.
pub fn misere_standard_first_wins(heaps: &[u32]) -> bool {
    let xor = heaps.iter().fold(0, |x, &h| x ^ h);
    let all_small = heaps.iter().all(|&h| h <= 1);
    (all_small && xor == 0) || (!all_small && xor != 0)
}

/// A random game `depth` levels deep: each level adds two games, each with
/// one to three options drawn from everything made before; the last game
/// made is returned. Shared subgames make the DAG far smaller than a tree.
pub fn random_game(arena: &mut Arena, rng: &mut Xoshiro256PlusPlus, depth: u32) -> GameId {
    let mut pool: Vec<GameId> = vec![0];
    for _ in 0..depth {
        let made = pool.len();
        for _ in 0..2 {
            let k = 1 + uniform_below(rng, 3);
            // One option from the newest level keeps the game deep.
            let newest = made - 1 - uniform_below(rng, made.min(2) as u64) as usize;
            let mut opts = vec![pool[newest]];
            for _ in 1..k {
                opts.push(pool[uniform_below(rng, made as u64) as usize]);
            }
            pool.push(arena.intern(opts));
        }
    }
    *pool.last().expect("pool starts non-empty")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Wythoff's table by scanning every move: the obviously correct twin.
    fn wythoff_losing_table_plain(max: u32) -> Vec<Vec<bool>> {
        let n = max as usize + 1;
        let mut losing = vec![vec![false; n]; n];
        for a in 0..n {
            for b in 0..n {
                let to_losing = (0..a).any(|x| losing[x][b])
                    || (0..b).any(|y| losing[a][y])
                    || (1..=a.min(b)).any(|k| losing[a - k][b - k]);
                losing[a][b] = !to_losing;
            }
        }
        losing
    }

    #[test]
    fn wythoff_table_matches_scanning_every_move() {
        for max in [0, 1, 2, 7, 30, 150] {
            assert_eq!(
                wythoff_losing_table(max),
                wythoff_losing_table_plain(max),
                "{max}"
            );
        }
    }

    #[test]
    fn heap_tuples_cover_every_tuple_once() {
        let all: Vec<Vec<u32>> = (0..3 + 9).map(|i| heap_tuple(i, 2, 2)).collect();
        assert_eq!(all[0], vec![0]);
        assert_eq!(all[3], vec![0, 0]);
        assert_eq!(all[11], vec![2, 2]);
        let mut d = all.clone();
        d.dedup();
        assert_eq!(d.len(), 12);
    }

    #[test]
    fn ordered_pairs_enumerate_a_le_b() {
        let v: Vec<(u64, u64)> = (0..6).map(ordered_pair).collect();
        assert_eq!(v, vec![(0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2)]);
        for i in 0..100_000 {
            let (a, b) = ordered_pair(i);
            assert!(a <= b && b * (b + 1) / 2 + a == i);
        }
    }

    #[test]
    fn known_values() {
        assert_eq!(
            (1..=5).map(floor_k_phi).collect::<Vec<_>>(),
            vec![1, 3, 4, 6, 8]
        );
        let w = wythoff_losing_table(10);
        let p: Vec<(usize, usize)> = (0..=10)
            .flat_map(|a| (a..=10).map(move |b| (a, b)))
            .filter(|&(a, b)| w[a][b])
            .collect();
        assert_eq!(p, vec![(0, 0), (1, 2), (3, 5), (4, 7), (6, 10)]);
        let f = fibonacci_first_player_wins(13);
        let losing: Vec<usize> = (2..=13).filter(|&n| !f[n]).collect();
        assert_eq!(losing, vec![2, 3, 5, 8, 13]);
        assert!(bash_losing_table(10, 3)[8] && !bash_losing_table(10, 3)[9]);
        let mut m = Misere::default();
        assert!(m.is_losing(&[1]));
        assert!(!m.is_losing(&[1, 1]));
        assert!(!m.is_losing(&[2]));
        assert!(m.is_losing(&[2, 2]));
    }
}
