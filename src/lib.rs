//! `runner`: checks theorems about games at scale.
//!
//! The crate is layered; a module imports only from the layers below it
//! (`ARCHITECTURE.md` is the map, and `tests/architecture.rs` enforces it):
//!
//! 1. utilities: [`error`], [`stats`], [`random`], [`export`];
//! 2. [`engine`]: chunks, threads, progress, journal; knows no game;
//! 3. [`games`]: rules, positions, closed forms and solvers;
//! 4. [`config`]: the experiment file, and the checks of its own tables;
//! 5. [`study`]: the contract every study meets;
//! 6. [`claims`] and [`studies::deal_study`]: what many studies share;
//! 7. the studies, one folder each under [`studies`], never importing a
//!    sibling;
//! 8. [`driver`]: runs, shards and merges any study;
//! 9. the registry ([`studies`]'s `mod.rs`);
//! 10. the top: [`cli`], [`app`], [`solve`], [`slurm`], and [`exit`], the
//!     only place an exit status is chosen.
#![warn(missing_docs)]

pub mod app;
pub mod claims;
pub mod cli;
pub mod compare;
pub mod config;
pub mod diff;
pub mod driver;
pub mod engine;
pub mod error;
pub mod exit;
pub mod export;
pub mod games;
pub mod plan;
pub mod random;
pub mod slurm;
pub mod solve;
pub mod stats;
pub mod studies;
pub mod study;
