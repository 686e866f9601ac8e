//! Impartial games (seeds 002 and 003): games as sets of options with
//! their Grundy values, brute-force solvers that use only the rules, and
//! the classic games (nim, Bash, Wythoff, Fibonacci nim) with their closed
//! forms.

pub mod games;
pub mod rules;
