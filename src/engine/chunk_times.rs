//! How long a run's chunks took, one by one, kept as a few sums.
//!
//! A run's time is its chunks' times added up, and a timing sample
//! estimates it from the mean of the chunks it ran. That mean is sound when
//! chunks cost about the same, but the deals of a hard variant differ by
//! thousands of times (26x26 deals under 11-back take a second to an hour),
//! and then a sample of a few chunks mostly misses the slow ones that make
//! up most of the run. The sums here are what tells the two apart: the
//! slowest chunk against the typical one (the geometric mean, which a few
//! slow chunks barely move).

use std::time::Duration;

/// The least time a chunk is taken to have: a chunk of microseconds would
/// otherwise pull the geometric mean toward zero by its logarithm.
const FLOOR_SECS: f64 = 1e-6;

/// Sums over the chunks one run (or one part of it) solved.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ChunkTimes {
    count: u64,
    total_secs: f64,
    slowest_secs: f64,
    /// The sum of the chunks' times' natural logarithms.
    log_secs_sum: f64,
}

impl ChunkTimes {
    /// Counts one chunk that took `took` on its thread.
    pub fn add(&mut self, took: Duration) {
        let secs = took.as_secs_f64().max(FLOOR_SECS);
        self.count += 1;
        self.total_secs += secs;
        self.slowest_secs = self.slowest_secs.max(secs);
        self.log_secs_sum += secs.ln();
    }

    /// Adds the chunks of `other`.
    pub fn merge(&mut self, other: &ChunkTimes) {
        self.count += other.count;
        self.total_secs += other.total_secs;
        self.slowest_secs = self.slowest_secs.max(other.slowest_secs);
        self.log_secs_sum += other.log_secs_sum;
    }

    /// Chunks counted.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Seconds of the slowest chunk (zero if none).
    pub fn slowest_secs(&self) -> f64 {
        self.slowest_secs
    }

    /// Mean seconds a chunk (zero if none): for tests, which hold it
    /// beside [`Self::typical_secs`]; a skewed run's mean says little.
    #[cfg(test)]
    pub fn mean_secs(&self) -> f64 {
        self.total_secs / self.count.max(1) as f64
    }

    /// Seconds of a typical chunk: the geometric mean, near the median of
    /// times that spread over orders of magnitude (zero if none).
    pub fn typical_secs(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        (self.log_secs_sum / self.count as f64).exp()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(secs: &[f64]) -> ChunkTimes {
        let mut t = ChunkTimes::default();
        for &s in secs {
            t.add(Duration::from_secs_f64(s));
        }
        t
    }

    #[test]
    fn the_typical_chunk_is_barely_moved_by_one_slow_one() {
        let even = of(&[2.0, 2.0, 2.0, 2.0]);
        assert!((even.typical_secs() - 2.0).abs() < 1e-9);
        assert!((even.mean_secs() - 2.0).abs() < 1e-9);
        assert_eq!(even.slowest_secs(), 2.0);
        // One chunk of 1,000 s among seven of 1 s: the mean is 125.9 s, the
        // typical chunk under 2.7 s.
        let skewed = of(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1000.0]);
        assert!((skewed.mean_secs() - 125.875).abs() < 1e-9);
        assert!(skewed.typical_secs() < 2.7, "{}", skewed.typical_secs());
        assert_eq!(skewed.slowest_secs(), 1000.0);
        assert_eq!(ChunkTimes::default().typical_secs(), 0.0);
    }

    #[test]
    fn merging_is_adding_the_chunks_of_both() {
        let (a, b) = (of(&[1.0, 4.0]), of(&[0.5, 8.0, 2.0]));
        let mut both = a;
        both.merge(&b);
        let once = of(&[1.0, 4.0, 0.5, 8.0, 2.0]);
        assert_eq!(both.count(), 5);
        assert_eq!(both.slowest_secs(), once.slowest_secs());
        assert!((both.mean_secs() - once.mean_secs()).abs() < 1e-12);
        assert!((both.typical_secs() - once.typical_secs()).abs() < 1e-12);
    }
}
