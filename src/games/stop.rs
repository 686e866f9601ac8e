//! How a long search gives up when its run is asked to stop.
//!
//! One instance of a study can be a search of an hour (a 26x26 deal under
//! 11-back), and a stop (Ctrl-C, or SIGTERM at a batch job's time limit)
//! should not wait for it. A search that holds a [`StopPoll`] looks at the
//! run's stop request every so many positions, and once it gives up it
//! stores nothing more in its memo: the verdicts it unwinds with mean
//! nothing, and one of them in a table kept across deals would be a wrong
//! answer later. The caller learns that the search gave up and throws its
//! answer away (the engine abandons the chunk, which a resume does again).
//! A search can also be given a budget of positions ([`StopPoll::within`]),
//! after which it gives up the same way.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Positions searched between two looks at the stop request: about 10 ms
/// of a variant search.
pub const POSITIONS_PER_POLL: u32 = 1 << 16;

/// A search's view of its run's stop request, and of its own budget.
#[derive(Debug)]
pub struct StopPoll {
    stop: Option<Arc<AtomicBool>>,
    since: u32,
    every: u32,
    /// Looks left before the budget is spent, over every search of this
    /// poll; `u64::MAX` is no budget.
    looks_left: u64,
    gave_up: bool,
}

impl Default for StopPoll {
    fn default() -> Self {
        StopPoll::never()
    }
}

impl StopPoll {
    /// A search that never gives up.
    pub fn never() -> Self {
        StopPoll {
            stop: None,
            since: 0,
            every: POSITIONS_PER_POLL,
            looks_left: u64::MAX,
            gave_up: false,
        }
    }

    /// Searches that give up once they have searched about `positions`
    /// positions between them (counted in looks of
    /// [`POSITIONS_PER_POLL`]): for trying a cheap setting first, such as
    /// small tables, and carrying the search on elsewhere otherwise.
    pub fn within(positions: u64) -> Self {
        StopPoll {
            looks_left: positions.div_ceil(u64::from(POSITIONS_PER_POLL)).max(1),
            ..StopPoll::never()
        }
    }

    /// A search that gives up once `stop` is true, looking at it every
    /// `every` positions.
    pub fn on(stop: Arc<AtomicBool>, every: u32) -> Self {
        StopPoll {
            stop: Some(stop),
            every: every.max(1),
            ..StopPoll::never()
        }
    }

    /// Can this search give up?
    pub fn can_give_up(&self) -> bool {
        self.stop.is_some() || self.looks_left != u64::MAX
    }

    /// A new search starts: it has not given up, unless the budget is
    /// spent.
    pub fn start(&mut self) {
        self.gave_up = self.looks_left == 0;
    }

    /// One more position searched; every [`Self::on`]'s `every` positions,
    /// gives up if the stop was requested.
    #[inline]
    pub fn tick(&mut self) {
        self.since += 1;
        if self.since >= self.every {
            self.since = 0;
            if self.looks_left != u64::MAX {
                self.looks_left = self.looks_left.saturating_sub(1);
            }
            self.gave_up |= self.looks_left == 0
                || self
                    .stop
                    .as_deref()
                    .is_some_and(|s| s.load(Ordering::Relaxed));
        }
    }

    /// Has the search under way given up? Then it must store nothing.
    #[inline]
    pub fn gave_up(&self) -> bool {
        self.gave_up
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gives_up_only_once_asked_and_only_at_a_look() {
        let stop = Arc::new(AtomicBool::new(false));
        let mut poll = StopPoll::on(stop.clone(), 3);
        for _ in 0..10 {
            poll.tick();
        }
        assert!(!poll.gave_up());
        stop.store(true, Ordering::Relaxed);
        poll.tick();
        assert!(!poll.gave_up(), "no look at this tick");
        poll.tick();
        assert!(poll.gave_up());
        poll.start();
        assert!(!poll.gave_up());
        let mut never = StopPoll::never();
        for _ in 0..2 * POSITIONS_PER_POLL {
            never.tick();
        }
        assert!(!never.gave_up() && !never.can_give_up());
    }

    /// A budget spans searches: spent in one, the next gives up at once.
    #[test]
    fn a_budget_gives_up_after_its_positions_over_all_searches() {
        let mut poll = StopPoll::within(2 * u64::from(POSITIONS_PER_POLL));
        assert!(poll.can_give_up());
        poll.start();
        for _ in 0..POSITIONS_PER_POLL {
            poll.tick();
        }
        assert!(!poll.gave_up());
        poll.start();
        for _ in 0..POSITIONS_PER_POLL - 1 {
            poll.tick();
        }
        assert!(!poll.gave_up());
        poll.tick();
        assert!(poll.gave_up());
        poll.start();
        assert!(poll.gave_up(), "the budget is spent for every later search");
    }
}
