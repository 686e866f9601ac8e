//! `runner`: checks theorems about games at scale.
//!
//! The engine ([`engine`]) cuts work into fixed chunks and runs them in
//! parallel; each theorem is a [`engine::Study`] under [`studies`]; outputs
//! go through [`export`]; exact fractions and intervals live in [`stats`].

pub mod app;
pub mod claims;
pub mod cli;
pub mod config;
pub mod driver;
pub mod engine;
pub mod export;
pub mod random;
pub mod slurm;
pub mod solve;
pub mod stats;
pub mod studies;
