//! The winning-probability recurrence (1) of seed 004, in exact integers.
//!
//! p^(i)_t is the probability of being i replacements along after t draws
//! from S tiles, where a^(i) tiles advance state i. Multiplying by the
//! falling factorial S!/(S-t)! = S (S-1) ... (S-t+1) clears every
//! denominator: with P^(i)_t = p^(i)_t S!/(S-t)! and r = S - t,
//!
//!   P^(0)_{t+1} = (r - a0) P^(0)_t
//!   P^(i)_{t+1} = (r - a_i) P^(i)_t + a_{i-1} P^(i-1)_t     (0 < i < d)
//!   P^(d)_{t+1} = a_{d-1} P^(d-1)_t + r P^(d)_t
//!
//! so equality of probabilities is equality of integers, never of floats.
//! i128 holds 18 draws from 136 tiles; longer horizons fall back to big
//! integers, and [`Curve`] compares and hashes the two forms alike.

use num_bigint::BigInt;

/// Which recurrence to run. `Faulty` feeds state i from a_i instead of
/// a_{i-1}; it exists to show that the permutation check can fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recurrence {
    /// Recurrence (1) as the seed states it.
    Seed,
    /// The deliberately wrong variant.
    Faulty,
}

/// P^(d)_t for t = 0..=horizon, with d = a.len(); `None` on i128 overflow.
/// Needs horizon <= S, so that every r = S - t used is at least 1.
pub fn scaled_win_curve(s: u32, a: &[u32], horizon: u32, rule: Recurrence) -> Option<Vec<i128>> {
    assert!(horizon <= s, "horizon beyond the wall");
    let d = a.len();
    let mut p = vec![0i128; d + 1];
    p[0] = 1;
    let mut curve = Vec::with_capacity(horizon as usize + 1);
    curve.push(p[d]);
    let a: Vec<i128> = a.iter().map(|&x| i128::from(x)).collect();
    for t in 0..horizon {
        let r = i128::from(s - t);
        let mut next = vec![0i128; d + 1];
        next[d] = a[d - 1]
            .checked_mul(p[d - 1])?
            .checked_add(r.checked_mul(p[d])?)?;
        for i in (0..d).rev() {
            let stay = (r - a[i]).checked_mul(p[i])?;
            next[i] = if i == 0 {
                stay
            } else {
                let feed = match rule {
                    Recurrence::Seed => a[i - 1],
                    Recurrence::Faulty => a[i],
                };
                stay.checked_add(feed.checked_mul(p[i - 1])?)?
            };
        }
        p = next;
        curve.push(p[d]);
    }
    Some(curve)
}

/// The same recurrence in big integers, for horizons that overflow i128.
pub fn scaled_win_curve_big(s: u32, a: &[u32], horizon: u32, rule: Recurrence) -> Vec<BigInt> {
    assert!(horizon <= s, "horizon beyond the wall");
    let d = a.len();
    let mut p = vec![BigInt::from(0); d + 1];
    p[0] = BigInt::from(1);
    let mut curve = vec![p[d].clone()];
    for t in 0..horizon {
        let r = i64::from(s - t);
        let mut next = vec![BigInt::from(0); d + 1];
        next[d] = &p[d - 1] * a[d - 1] + &p[d] * r;
        for i in 0..d {
            next[i] = &p[i] * (r - i64::from(a[i]));
            if i > 0 {
                let feed = match rule {
                    Recurrence::Seed => a[i - 1],
                    Recurrence::Faulty => a[i],
                };
                next[i] += &p[i - 1] * feed;
            }
        }
        p = next;
        curve.push(p[d].clone());
    }
    curve
}

/// P^(d)_t for t = 0..=horizon, in i128 when it fits, else in big integers.
#[derive(Clone, Debug)]
pub enum Curve {
    /// Every value fits i128.
    Fixed(Vec<i128>),
    /// Some value needed big integers.
    Big(Vec<BigInt>),
}

impl Curve {
    /// P^(d)_t for t = 0..=horizon, in whichever form fits.
    pub fn compute(s: u32, a: &[u32], horizon: u32, rule: Recurrence) -> Curve {
        match scaled_win_curve(s, a, horizon, rule) {
            Some(v) => Curve::Fixed(v),
            None => Curve::Big(scaled_win_curve_big(s, a, horizon, rule)),
        }
    }

    /// Number of values (horizon + 1).
    pub fn len(&self) -> usize {
        match self {
            Curve::Fixed(v) => v.len(),
            Curve::Big(v) => v.len(),
        }
    }

    /// No values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// P^(d)_t as a big integer.
    pub fn at(&self, t: usize) -> BigInt {
        match self {
            Curve::Fixed(v) => BigInt::from(v[t]),
            Curve::Big(v) => v[t].clone(),
        }
    }

    /// First t where the curves differ, whatever their representations.
    pub fn first_difference(&self, other: &Curve) -> Option<usize> {
        if let (Curve::Fixed(x), Curve::Fixed(y)) = (self, other) {
            return (0..x.len().max(y.len())).find(|&t| x.get(t) != y.get(t));
        }
        if self.len() != other.len() {
            return Some(self.len().min(other.len()));
        }
        (0..self.len()).find(|&t| self.at(t) != other.at(t))
    }

    /// FNV-1a over the values, each as i128 bytes when it fits, so equal
    /// curves hash alike in either form.
    pub fn hash(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for &b in bytes {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        for t in 0..self.len() {
            let fixed = match self {
                Curve::Fixed(v) => Some(v[t]),
                Curve::Big(v) => i128::try_from(&v[t]).ok(),
            };
            match fixed {
                Some(x) => eat(&x.to_le_bytes()),
                None => {
                    eat(b"big");
                    eat(&self.at(t).to_signed_bytes_le());
                }
            }
        }
        h
    }
}

impl PartialEq for Curve {
    fn eq(&self, other: &Curve) -> bool {
        self.len() == other.len() && self.first_difference(other).is_none()
    }
}

/// A fraction of i128s in lowest terms, for the plain twin below.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Fraction {
    num: i128,
    den: i128,
}

impl Fraction {
    fn new(num: i128, den: i128) -> Fraction {
        let g = gcd(num.unsigned_abs(), den.unsigned_abs()).max(1) as i128;
        let sign = if den < 0 { -1 } else { 1 };
        Fraction {
            num: sign * num / g,
            den: sign * den / g,
        }
    }
    fn add(self, o: Fraction) -> Fraction {
        Fraction::new(self.num * o.den + o.num * self.den, self.den * o.den)
    }
    fn mul(self, o: Fraction) -> Fraction {
        Fraction::new(self.num * o.num, self.den * o.den)
    }
}

fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The recurrence exactly as the seed writes it, in fractions: the plain
/// twin that the integer form is tested against on small cases. Returns
/// p^(d)_t as (numerator, denominator) in lowest terms.
pub fn win_probabilities_plain(s: u32, a: &[u32], horizon: u32) -> Vec<(i128, i128)> {
    let d = a.len();
    let one = Fraction::new(1, 1);
    let zero = Fraction::new(0, 1);
    let mut p = vec![zero; d + 1];
    p[0] = one;
    let mut out = vec![(p[d].num, p[d].den)];
    for t in 0..horizon {
        let r = i128::from(s - t);
        let frac = |x: u32| Fraction::new(i128::from(x), r);
        let mut next = vec![zero; d + 1];
        next[0] = one.add(frac(a[0]).mul(Fraction::new(-1, 1))).mul(p[0]);
        for i in 1..d {
            next[i] = one
                .add(frac(a[i]).mul(Fraction::new(-1, 1)))
                .mul(p[i])
                .add(frac(a[i - 1]).mul(p[i - 1]));
        }
        next[d] = frac(a[d - 1]).mul(p[d - 1]).add(p[d]);
        p = next;
        out.push((p[d].num, p[d].den));
    }
    out
}

/// S!/(S-t)!
pub fn falling_factorial(s: u32, t: u32) -> i128 {
    (0..t).map(|k| i128::from(s - k)).product()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn one_replacement_is_one_minus_not_drawing() {
        // d = 1, a = 4 of 10 tiles: p_t = 1 - C(6,t)/C(10,t).
        let c = scaled_win_curve(10, &[4], 3, Recurrence::Seed).unwrap();
        assert_eq!(c, vec![0, 4, 4 * 9 + 6 * 4, 10 * 9 * 8 - 6 * 5 * 4]);
    }

    proptest! {
        #[test]
        fn integer_form_matches_the_seeds_fractions(
            s in 4u32..14,
            a in proptest::collection::vec(1u32..6, 1..4),
            h in 0u32..8,
        ) {
            let h = h.min(s);
            let exact = scaled_win_curve(s, &a, h, Recurrence::Seed).unwrap();
            let plain = win_probabilities_plain(s, &a, h);
            for t in 0..=h {
                let scale = falling_factorial(s, t);
                let (num, den) = plain[t as usize];
                prop_assert_eq!(exact[t as usize] * den, num * scale, "t={}", t);
            }
        }
    }

    proptest! {
        #[test]
        fn big_integers_agree_with_i128(
            s in 10u32..140,
            a in proptest::collection::vec(1u32..9, 1..6),
            h in 0u32..19,
        ) {
            let h = h.min(s);
            let fixed = scaled_win_curve(s, &a, h, Recurrence::Seed).unwrap();
            let big = scaled_win_curve_big(s, &a, h, Recurrence::Seed);
            let as_big: Vec<BigInt> = fixed.iter().map(|&x| BigInt::from(x)).collect();
            prop_assert_eq!(&as_big, &big);
            let (x, y) = (Curve::Fixed(fixed), Curve::Big(big));
            prop_assert!(x == y);
            prop_assert_eq!(x.hash(), y.hash());
        }
    }

    #[test]
    fn long_horizons_overflow_i128_and_use_big_integers() {
        assert!(scaled_win_curve(136, &[4, 8, 12], 70, Recurrence::Seed).is_none());
        let c = Curve::compute(136, &[4, 8, 12], 70, Recurrence::Seed);
        assert!(matches!(c, Curve::Big(_)));
        // A probability: 0 <= P^(d)_t <= S!/(S-t)!, and non-decreasing in p.
        let p70 = c.at(70);
        let scale: BigInt = (0..70u32).map(|k| BigInt::from(136 - k)).product();
        assert!(p70 > BigInt::from(0) && p70 < scale);
        let d = Curve::compute(136, &[12, 4, 8], 70, Recurrence::Seed);
        assert!(c == d, "permutation theorem at 70 draws");
    }

    #[test]
    fn real_walls_fit_in_i128() {
        // 18 draws from 136 tiles, the real-wall ranges, fit in i128.
        let big = scaled_win_curve(136, &[20; 7], 18, Recurrence::Seed);
        assert!(big.is_some());
    }
}
