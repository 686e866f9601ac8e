//! Exact fractions, exact decimals and Wilson intervals.
//!
//! Everything here is deterministic integer or IEEE arithmetic on the same
//! inputs, so two runs of one config format the same bytes.

/// Greatest common divisor, used to reduce win fractions.
pub fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// `num/den` in lowest terms as text, e.g. `661/1225`. `0/0` stays `0/0`.
pub fn reduced_fraction(num: u128, den: u128) -> String {
    if den == 0 {
        return "0/0".to_string();
    }
    let g = gcd(num, den).max(1);
    format!("{}/{}", num / g, den / g)
}

/// `num/den` as a decimal with `places` digits, rounded half up, computed by
/// long division on big integers, so it is exact whatever the size of the
/// integers (a remainder times ten can pass u128 for denominators above
/// 2^124).
pub fn exact_decimal(num: u128, den: u128, places: usize) -> String {
    use num_bigint::BigUint;
    if den == 0 {
        return String::new();
    }
    let scale = BigUint::from(10u32).pow(places as u32);
    let (num, den) = (BigUint::from(num), BigUint::from(den));
    // Rounded half up: floor((2 num scale + den) / (2 den)).
    let scaled: BigUint = (num * &scale * 2u32 + &den) / (den * 2u32);
    let whole = &scaled / &scale;
    let frac = (&scaled % &scale).to_string();
    if places == 0 {
        whole.to_string()
    } else {
        format!("{whole}.{frac:0>places$}")
    }
}

/// Two-sided 95% normal quantile.
const Z95: f64 = 1.959_963_984_540_054;

/// Wilson score interval for `successes` out of `trials` at 95%.
///
/// Chosen over the normal interval because it stays inside [0, 1] and is
/// well behaved for rates near 0 or 1 and for small samples.
pub fn wilson95(successes: u128, trials: u128) -> (f64, f64) {
    if trials == 0 {
        return (0.0, 1.0);
    }
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = Z95 * Z95;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = Z95 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// Fixed-width formatting for floating statistics in deterministic outputs.
pub fn fmt_rate(x: f64) -> String {
    format!("{x:.9}")
}

/// Two-sided p-value of the pooled two-proportion z-test: could `w1` of
/// `n1` and `w2` of `n2` come from one success rate? 1 when the pooled
/// rate is 0 or 1 (no variance to test against).
pub fn two_proportion_p(w1: f64, n1: f64, w2: f64, n2: f64) -> f64 {
    if n1 <= 0.0 || n2 <= 0.0 {
        return 1.0;
    }
    let pooled = (w1 + w2) / (n1 + n2);
    let var = pooled * (1.0 - pooled) * (1.0 / n1 + 1.0 / n2);
    if var <= 0.0 {
        return if (w1 / n1 - w2 / n2).abs() == 0.0 {
            1.0
        } else {
            0.0
        };
    }
    let z = (w1 / n1 - w2 / n2).abs() / var.sqrt();
    erfc(z / std::f64::consts::SQRT_2).clamp(0.0, 1.0)
}

/// The complementary error function, to about 1e-7 (Numerical Recipes'
/// Chebyshev fit), enough for a p-value.
fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Binomial coefficient, exact; `None` on overflow.
pub fn binomial(n: u32, k: u32) -> Option<u128> {
    if k > n {
        return Some(0);
    }
    let k = k.min(n - k);
    let mut acc: u128 = 1;
    for i in 0..k {
        // acc * (n - i) is divisible by (i + 1) after the multiplication.
        acc = acc.checked_mul((n - i) as u128)? / (i as u128 + 1);
    }
    Some(acc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_proportion_p_values_match_known_z_scores() {
        // Equal rates: p = 1. z = 1.96: p = 0.05. z = 0: p = 1.
        assert!((two_proportion_p(50.0, 100.0, 500.0, 1000.0) - 1.0).abs() < 1e-6);
        // 0.55 vs 0.50 with 1000 each: pooled 0.525, se 0.022332, z 2.2389, p 0.02516.
        let p = two_proportion_p(550.0, 1000.0, 500.0, 1000.0);
        assert!((p - 0.02516).abs() < 2e-4, "{p}");
        assert!(two_proportion_p(0.0, 10.0, 0.0, 10.0) == 1.0);
        assert!(two_proportion_p(9000.0, 10000.0, 100.0, 10000.0) < 1e-12);
        assert!((erfc(0.0) - 1.0).abs() < 1e-7 && (erfc(-1.0) - 1.842_700_79).abs() < 1e-6);
    }

    #[test]
    fn fractions_reduce() {
        assert_eq!(reduced_fraction(1322 * 1326, 2450 * 1326), "661/1225");
        assert_eq!(reduced_fraction(0, 5), "0/1");
        assert_eq!(reduced_fraction(0, 0), "0/0");
    }

    #[test]
    fn decimals_round_half_up_exactly() {
        assert_eq!(exact_decimal(1, 3, 4), "0.3333");
        assert_eq!(exact_decimal(2, 3, 4), "0.6667");
        assert_eq!(exact_decimal(1, 2, 0), "1");
        assert_eq!(exact_decimal(9999, 10000, 3), "1.000");
        assert_eq!(exact_decimal(661, 1225, 12), "0.539591836735");
        assert_eq!(exact_decimal(7, 7, 2), "1.00");
        // Denominators near u128::MAX: the remainder times ten passes u128.
        assert_eq!(exact_decimal(u128::MAX / 3, u128::MAX, 9), "0.333333333");
        assert_eq!(exact_decimal(u128::MAX - 1, u128::MAX, 5), "1.00000");
        assert_eq!(exact_decimal(u128::MAX / 2, u128::MAX, 1), "0.5");
    }

    #[test]
    fn wilson_matches_known_values() {
        // Reference: 50 of 100 gives [0.4038, 0.5962] (Wilson 1927 / Newcombe 1998).
        let (lo, hi) = wilson95(50, 100);
        assert!((lo - 0.403_831).abs() < 1e-5, "{lo}");
        assert!((hi - 0.596_169).abs() < 1e-5, "{hi}");
        let (lo, hi) = wilson95(0, 10);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.277_533).abs() < 1e-5, "{hi}");
    }
}
