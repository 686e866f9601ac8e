//! Impartial games as hash-consed sets of options, and brute-force solvers
//! that use nothing but the rules: "a player who cannot move loses".
//!
//! The Grundy value is stored at interning time as the mex of the options'
//! values; that is its definition. Every theorem about values is then
//! checked against [`Sums::is_losing`], which searches sums of games move by
//! move and never looks at a Grundy value.

use hashbrown::HashMap;

/// Index of a game in its [`Arena`]. Id 0 is always the empty game `0`.
pub type GameId = u32;

/// Every game made so far, each stored once: equal option sets get one id,
/// so identical subgames are shared and memo keys stay small.
#[derive(Clone)]
pub struct Arena {
    options: Vec<Box<[GameId]>>,
    grundy: Vec<u32>,
    /// Length of the longest play from the game (its birthday).
    height: Vec<u32>,
    index: HashMap<Box<[GameId]>, GameId>,
    /// `nims[n]` is the id of the nim heap `*n`.
    nims: Vec<GameId>,
}

impl Default for Arena {
    fn default() -> Self {
        Self::new()
    }
}

impl Arena {
    /// An arena holding only the empty game.
    pub fn new() -> Self {
        let mut a = Arena {
            options: Vec::new(),
            grundy: Vec::new(),
            height: Vec::new(),
            index: HashMap::new(),
            nims: Vec::new(),
        };
        let zero = a.intern(Vec::new());
        debug_assert_eq!(zero, 0);
        a.nims.push(zero);
        a
    }

    /// The id of the game whose options are `opts` (in any order, repeats allowed).
    pub fn intern(&mut self, mut opts: Vec<GameId>) -> GameId {
        opts.sort_unstable();
        opts.dedup();
        let opts = opts.into_boxed_slice();
        if let Some(&id) = self.index.get(&opts) {
            return id;
        }
        let id = self.options.len() as GameId;
        let values: Vec<u32> = opts.iter().map(|&o| self.grundy[o as usize]).collect();
        self.grundy.push(mex(&values));
        let height = opts
            .iter()
            .map(|&o| self.height[o as usize] + 1)
            .max()
            .unwrap_or(0);
        self.height.push(height);
        self.options.push(opts.clone());
        self.index.insert(opts, id);
        id
    }

    /// The nim heap `*n = {*0, ..., *(n-1)}`.
    pub fn nim(&mut self, n: u32) -> GameId {
        while self.nims.len() <= n as usize {
            let next = self.intern(self.nims.clone());
            self.nims.push(next);
        }
        self.nims[n as usize]
    }

    /// The heap `*n` if it was already made.
    pub fn nim_id(&self, n: u32) -> Option<GameId> {
        self.nims.get(n as usize).copied()
    }

    /// The options of game `g`.
    pub fn options(&self, g: GameId) -> &[GameId] {
        &self.options[g as usize]
    }

    /// Grundy value, by the mex definition.
    pub fn grundy(&self, g: GameId) -> u32 {
        self.grundy[g as usize]
    }

    /// Longest play from `g`.
    pub fn height(&self, g: GameId) -> u32 {
        self.height[g as usize]
    }

    /// Games interned so far.
    pub fn len(&self) -> usize {
        self.options.len()
    }

    /// Never true: the empty game is always there.
    pub fn is_empty(&self) -> bool {
        self.options.is_empty()
    }

    /// Readable form: `0`, `*n` for nim heaps already made, else `{a,b}`.
    pub fn show(&self, g: GameId) -> String {
        let mut s = String::new();
        self.show_into(g, &mut s);
        if s.len() > 160 {
            s.truncate(157);
            s.push_str("...");
        }
        s
    }

    fn show_into(&self, g: GameId, out: &mut String) {
        if out.len() > 160 {
            return;
        }
        if let Some(n) = self.nims.iter().position(|&x| x == g) {
            if n == 0 {
                out.push('0');
            } else {
                out.push_str(&format!("*{n}"));
            }
            return;
        }
        out.push('{');
        for (i, &o) in self.options(g).iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            self.show_into(o, out);
        }
        out.push('}');
    }

    /// Every game of birthday at most `b`, ordered so that a set of options
    /// is numbered by the bit mask over the games of birthday `b - 1`. The
    /// counts are 1, 2, 4, 16 and 65,536 for `b` = 0..4.
    pub fn games_up_to_birthday(&mut self, b: u32) -> Vec<GameId> {
        let mut level = vec![0];
        for _ in 0..b {
            assert!(level.len() <= 20, "birthday too large to enumerate");
            let mut next = Vec::with_capacity(1 << level.len());
            for mask in 0u64..(1 << level.len()) {
                let opts: Vec<GameId> = (0..level.len())
                    .filter(|i| mask >> i & 1 == 1)
                    .map(|i| level[i])
                    .collect();
                next.push(self.intern(opts));
            }
            level = next;
        }
        level
    }
}

/// Smallest natural number not in `values`.
pub fn mex(values: &[u32]) -> u32 {
    let mut seen = vec![false; values.len() + 1];
    for &v in values {
        if (v as usize) < seen.len() {
            seen[v as usize] = true;
        }
    }
    seen.iter().position(|&s| !s).unwrap_or(values.len()) as u32
}

/// Most components a sum may have.
pub const MAX_COMPONENTS: usize = 4;

/// Brute-force outcomes of sums of up to four games, memoised by the sorted
/// multiset of components. A move replaces one component by one of its
/// options; the player who cannot move loses.
#[derive(Default)]
pub struct Sums {
    memo: HashMap<u128, bool>,
}

/// Memo entries kept before the table is cleared, to bound memory.
const SUMS_MEMO_LIMIT: usize = 1 << 22;

fn sum_key(mut comps: [GameId; MAX_COMPONENTS]) -> u128 {
    comps.sort_unstable();
    comps.iter().fold(0u128, |k, &c| (k << 32) | u128::from(c))
}

impl Sums {
    /// True when the player to move in `G1 + ... + Gk` loses. Unused slots
    /// hold 0, the empty game, which adds no moves.
    pub fn is_losing(&mut self, arena: &Arena, comps: &[GameId]) -> bool {
        assert!(comps.len() <= MAX_COMPONENTS);
        let mut c = [0; MAX_COMPONENTS];
        c[..comps.len()].copy_from_slice(comps);
        if self.memo.len() > SUMS_MEMO_LIMIT {
            self.memo.clear();
        }
        self.losing(arena, c)
    }

    fn losing(&mut self, arena: &Arena, comps: [GameId; MAX_COMPONENTS]) -> bool {
        let key = sum_key(comps);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let mut losing = true;
        'moves: for i in 0..MAX_COMPONENTS {
            for &o in arena.options(comps[i]) {
                let mut child = comps;
                child[i] = o;
                if self.losing(arena, child) {
                    losing = false;
                    break 'moves;
                }
            }
        }
        self.memo.insert(key, losing);
        losing
    }
}

/// Grundy values of the two "dubious" combinations of two games, by mex
/// over their options, memoised by the ordered pair.
#[derive(Default)]
pub struct Compounds {
    both: HashMap<u64, u32>,
    alternating: HashMap<u64, u32>,
}

fn pair_key(a: GameId, b: GameId) -> u64 {
    (u64::from(a) << 32) | u64::from(b)
}

impl Compounds {
    /// `A <+> B`: a move is a move in A, in B, or in both at once.
    pub fn either_or_both(&mut self, arena: &Arena, a: GameId, b: GameId) -> u32 {
        if let Some(&v) = self.both.get(&pair_key(a, b)) {
            return v;
        }
        let mut values = Vec::new();
        for &x in arena.options(a) {
            values.push(self.either_or_both(arena, x, b));
            for &y in arena.options(b) {
                values.push(self.either_or_both(arena, x, y));
            }
        }
        for &y in arena.options(b) {
            values.push(self.either_or_both(arena, a, y));
        }
        let v = mex(&values);
        self.both.insert(pair_key(a, b), v);
        v
    }

    /// `A X B`: the player to move moves in A, and then it is the other
    /// player's turn in `B X A'`. So the first player only ever moves in the
    /// first component and the second player only in the second.
    pub fn alternating(&mut self, arena: &Arena, a: GameId, b: GameId) -> u32 {
        if let Some(&v) = self.alternating.get(&pair_key(a, b)) {
            return v;
        }
        let values: Vec<u32> = arena
            .options(a)
            .iter()
            .map(|&x| self.alternating(arena, b, x))
            .collect();
        let v = mex(&values);
        self.alternating.insert(pair_key(a, b), v);
        v
    }

    /// Forgets the memo when it has grown past its bound.
    pub fn clear_if_large(&mut self) {
        if self.both.len() + self.alternating.len() > SUMS_MEMO_LIMIT {
            self.both.clear();
            self.alternating.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn birthday_counts_are_2_4_16_65536() {
        let mut a = Arena::new();
        let counts: Vec<usize> = (1..=4).map(|b| a.games_up_to_birthday(b).len()).collect();
        assert_eq!(counts, vec![2, 4, 16, 65536]);
        // All distinct, so the arena holds each once.
        let l4 = a.games_up_to_birthday(4);
        let mut sorted = l4.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 65536);
    }

    #[test]
    fn nim_heaps_have_their_size_as_value_and_height() {
        let mut a = Arena::new();
        for n in 0..10 {
            let g = a.nim(n);
            assert_eq!(a.grundy(g), n);
            assert_eq!(a.height(g), n);
        }
        assert_eq!(a.show(a.nims[3]), "*3");
        let odd = a.intern(vec![0, a.nims[2]]);
        assert_eq!(a.show(odd), "{0,*2}");
        assert_eq!(a.grundy(odd), 1);
    }

    #[test]
    fn sums_follow_the_rules() {
        let mut a = Arena::new();
        let (n1, n2, n3) = (a.nim(1), a.nim(2), a.nim(3));
        let mut s = Sums::default();
        assert!(s.is_losing(&a, &[]));
        assert!(!s.is_losing(&a, &[n1]));
        assert!(s.is_losing(&a, &[n1, n1]));
        assert!(
            !s.is_losing(&a, &[n2, n1]),
            "the notes' warning: N + N can be N"
        );
        assert!(s.is_losing(&a, &[n1, n2, n3]));
    }

    #[test]
    fn mex_examples() {
        assert_eq!(mex(&[]), 0);
        assert_eq!(mex(&[0, 1, 3]), 2);
        assert_eq!(mex(&[1, 2]), 0);
        assert_eq!(mex(&[2, 0, 1, 1]), 3);
    }
}
