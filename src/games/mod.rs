//! The games themselves: rules, positions, closed forms and exact solvers.
//!
//! Nothing here knows about configs, runs, chunks or output files; a game
//! imports only its own folder, [`cards`], and the utilities
//! ([`crate::stats`], [`crate::random`]). Studies above use these games.

pub mod cards;
pub mod impartial;
pub mod mahjong;
pub mod stop;
pub mod tanhinmin;
