//! The mahjong winning-probability recurrence of seed 004, in exact
//! integers.

pub mod recurrence;
