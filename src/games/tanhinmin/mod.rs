//! Two-player Tanhinmin (single-card Daifugo) and its variants: positions
//! and keys, the Kitani–Ono formula, the solvers, and their plain twins.
//!
//! Every fast piece here has an obviously correct twin beside it, and a
//! test holds the two equal: [`formula`] (Hall's μ against the greedy walk,
//! in [`packed`]), [`solver`] against [`reference`](mod@reference), the variant solvers in
//! [`score`] and [`variant`] against their plain recursions, the
//! dropped-cards lemma ([`dropped_cards`]) against the card-count game's
//! own searches, and the proof's move in [`strategy`] on counts against
//! the statement on lists. The formula may order the search
//! ([`ordering`]) but never decides a verdict.

pub mod dropped_cards;
pub mod formula;
pub mod memo;
pub mod moves;
pub mod ordering;
pub mod packed;
pub mod position;
pub mod reference;
pub mod roots;
pub mod score;
pub mod solver;
pub mod strategy;
pub mod variant;
