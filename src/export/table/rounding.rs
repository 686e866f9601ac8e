//! Decimals cut to fewer digits for a paper, on their text, never through
//! a float: `0.575164091` to three digits is `0.575` exactly as a reader
//! would round it by hand.

/// Which way a decimal is rounded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// To the nearest, a half away from zero: a rate.
    Nearest,
    /// Towards zero: an interval's lower bound, which must stay at or
    /// below the bound computed so that the printed interval still holds it.
    Down,
    /// Away from zero: an interval's upper bound, likewise.
    Up,
}

/// The direction for a column of runner's tables: interval bounds outward.
pub fn direction_of(column: &str) -> Direction {
    if column.ends_with("_low") {
        Direction::Down
    } else if column.ends_with("_high") {
        Direction::Up
    } else {
        Direction::Nearest
    }
}

/// `text` with `digits` digits after the point when it is a non-negative
/// decimal with a point (`0.575164091`, `12.5`), padded with zeros when it
/// has fewer; `None` for anything else (integers, fractions, words,
/// negative numbers), which is left as written.
pub fn round_decimal(text: &str, digits: usize, direction: Direction) -> Option<String> {
    let (whole, fraction) = text.split_once('.')?;
    let decimal = |t: &str| t.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !decimal(whole) || !decimal(fraction) {
        return None;
    }
    let (kept, dropped) = if fraction.len() > digits {
        fraction.split_at(digits)
    } else {
        (fraction, "")
    };
    let up = match direction {
        Direction::Nearest => dropped.as_bytes().first().is_some_and(|&b| b >= b'5'),
        Direction::Down => false,
        Direction::Up => dropped.bytes().any(|b| b != b'0'),
    };
    // The kept digits as one integer, plus one when rounding up.
    let mut number: Vec<u8> = whole.bytes().chain(kept.bytes()).collect();
    number.extend(std::iter::repeat_n(b'0', digits - kept.len()));
    if up {
        let mut i = number.len();
        loop {
            if i == 0 {
                number.insert(0, b'1');
                break;
            }
            i -= 1;
            if number[i] == b'9' {
                number[i] = b'0';
            } else {
                number[i] += 1;
                break;
            }
        }
    }
    let point = number.len() - digits;
    let mut out = String::from_utf8(number[..point].to_vec()).ok()?;
    if digits > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(&number[point..]).ok()?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain twin: the decimal as an integer count of 10^-k, rounded by
    /// integer division, printed back.
    fn by_integers(whole: u64, fraction: &str, digits: usize, direction: Direction) -> String {
        let k = fraction.len() as u32;
        let value = u128::from(whole) * 10u128.pow(k) + fraction.parse::<u128>().unwrap_or(0);
        let rounded = if (digits as u32) >= k {
            value * 10u128.pow(digits as u32 - k)
        } else {
            let step = 10u128.pow(k - digits as u32);
            let (quotient, rest) = (value / step, value % step);
            match direction {
                Direction::Down => quotient,
                Direction::Up => quotient + u128::from(rest > 0),
                Direction::Nearest => quotient + u128::from(2 * rest >= step),
            }
        };
        let scale = 10u128.pow(digits as u32);
        if digits == 0 {
            rounded.to_string()
        } else {
            format!("{}.{:0digits$}", rounded / scale, rounded % scale)
        }
    }

    #[test]
    fn a_rate_and_its_interval_to_three_digits() {
        use Direction::{Down, Nearest, Up};
        for (text, digits, direction, rounded) in [
            ("0.575164091", 3, Nearest, "0.575"),
            ("0.570095123", 3, Down, "0.570"),
            ("0.573636001", 3, Up, "0.574"),
            ("0.999999999", 3, Nearest, "1.000"),
            ("0.5", 3, Up, "0.500"),
            ("9.96", 0, Nearest, "10"),
        ] {
            assert_eq!(
                round_decimal(text, digits, direction).as_deref(),
                Some(rounded),
                "{text} {direction:?}"
            );
        }
    }

    #[test]
    fn what_is_not_a_plain_decimal_is_left_alone() {
        for text in [
            "1",
            "30261189615611/52613141318430",
            "-0.5",
            ".5",
            "1.",
            "x.5",
            "1.2.3",
            "",
        ] {
            let rounded = round_decimal(text, 3, Direction::Nearest);
            if text == "1." {
                // A point with no digits after it is still a decimal.
                assert_eq!(rounded.as_deref(), Some("1.000"));
            } else {
                assert_eq!(rounded, None, "{text}");
            }
        }
    }

    #[test]
    fn interval_bounds_round_outward() {
        assert_eq!(direction_of("ci95_low"), Direction::Down);
        assert_eq!(direction_of("ci95_high"), Direction::Up);
        assert_eq!(direction_of("first_win_rate"), Direction::Nearest);
    }

    proptest::proptest! {
        #[test]
        fn equals_rounding_by_integers(
            whole in 0u64..1_000_000,
            fraction in "[0-9]{0,15}",
            digits in 0usize..12,
            which in 0usize..3,
        ) {
            let direction = [Direction::Nearest, Direction::Down, Direction::Up][which];
            let text = format!("{whole}.{fraction}");
            proptest::prop_assert_eq!(
                round_decimal(&text, digits, direction).unwrap(),
                by_integers(whole, &fraction, digits, direction)
            );
        }
    }
}
