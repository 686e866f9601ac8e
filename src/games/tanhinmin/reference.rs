//! Slow, obviously correct solvers that the fast one is tested against.
//!
//! Nothing here consults the μ formula, and nothing here is used by a run.

use super::moves::{hand_after, legal_moves};
use std::collections::HashMap;

/// Plain recursive minimax on sorted hands, no memo, no canonical form.
/// The rules: the mover plays one card stronger than the field `r`, or passes
/// when the field is not empty; whoever empties their hand first wins.
pub fn plain_mover_wins(x: &[u32], y: &[u32], r: u32) -> bool {
    !y.is_empty()
        && legal_moves(x, r)
            .into_iter()
            .any(|m| !plain_mover_wins(y, &hand_after(x, m), m.field_after() as u32))
}

/// The outcome under the Coq formalisation's rules, where a pass is allowed
/// even on an empty field, so play can cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoqOutcome {
    /// The player to move wins.
    Win,
    /// The player to move loses.
    Lose,
    /// Neither inductively won nor lost (only possible through endless passing).
    Neither,
}

type State = (Vec<u32>, Vec<u32>, u32);

/// Solves a position under the Coq rules as the least fixpoint of the
/// inductive definitions `inductive_win` / `inductive_lose` of Tanhinmin.v.
///
/// Cycles rule out plain recursion, so this collects every reachable state
/// and iterates the two rules until nothing changes. Only for small hands.
pub fn coq_rules_outcome(x: &[u32], y: &[u32], r: u32) -> CoqOutcome {
    let successors = |(h0, h1, r): &State| -> Vec<State> {
        let mut next = Vec::new();
        for (i, &a) in h0.iter().enumerate() {
            if a > *r && (i == 0 || h0[i - 1] != a) {
                let mut rest = h0.clone();
                rest.remove(i);
                next.push((h1.clone(), rest, a));
            }
        }
        next.push((h1.clone(), h0.clone(), 0));
        next
    };
    let start: State = (x.to_vec(), y.to_vec(), r);
    let mut index: HashMap<State, usize> = HashMap::new();
    let mut states = vec![start.clone()];
    index.insert(start, 0);
    let mut edges: Vec<Vec<usize>> = Vec::new();
    let mut i = 0;
    while i < states.len() {
        let mut out = Vec::new();
        // A state whose mover has no cards is never a position anyone moves in.
        if !states[i].0.is_empty() && !states[i].1.is_empty() {
            for s in successors(&states[i]) {
                let id = *index.entry(s.clone()).or_insert_with(|| {
                    states.push(s);
                    states.len() - 1
                });
                out.push(id);
            }
        }
        edges.push(out);
        i += 1;
    }
    let n = states.len();
    let mut win = vec![false; n];
    let mut lose = vec![false; n];
    loop {
        let mut changed = false;
        for s in 0..n {
            let (h0, h1, _) = &states[s];
            if h0.is_empty() {
                continue;
            }
            if !lose[s] && (h1.is_empty() || edges[s].iter().all(|&t| win[t])) {
                lose[s] = true;
                changed = true;
            }
            if !win[s] && !h1.is_empty() && edges[s].iter().any(|&t| lose[t]) {
                win[s] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    match (win[0], lose[0]) {
        (true, false) => CoqOutcome::Win,
        (false, true) => CoqOutcome::Lose,
        (false, false) => CoqOutcome::Neither,
        (true, true) => unreachable!("a state cannot be both won and lost"),
    }
}

/// The naive baseline for benchmarks: memoized minimax keyed by the raw
/// hands, with the memo cleared for every deal.
pub struct NaiveSolver {
    memo: HashMap<(Vec<u32>, Vec<u32>, u32), bool>,
}

impl Default for NaiveSolver {
    fn default() -> Self {
        Self::new()
    }
}

impl NaiveSolver {
    /// A solver with an empty memo.
    pub fn new() -> Self {
        Self {
            memo: HashMap::new(),
        }
    }

    /// Solves one deal from an empty memo.
    pub fn solve_deal(&mut self, x: &[u32], y: &[u32], r: u32) -> bool {
        self.memo.clear();
        self.go(x, y, r)
    }

    fn go(&mut self, x: &[u32], y: &[u32], r: u32) -> bool {
        if y.is_empty() {
            return false;
        }
        let key = (x.to_vec(), y.to_vec(), r);
        if let Some(&v) = self.memo.get(&key) {
            return v;
        }
        let win = legal_moves(x, r)
            .into_iter()
            .any(|m| !self.go(y, &hand_after(x, m), m.field_after() as u32));
        self.memo.insert(key, win);
        win
    }
}
