//! Exact arithmetic on JSON numbers for the schema's numeric rules: integers beyond 2^53 are
//! compared as integers, and `multipleOf` is decided on the decimal digits, not on a float
//! quotient (which overflows on `1e308` and calls `1e-10` a multiple of 1).

use std::cmp::Ordering;

use serde_json::{Number, Value};

/// A number as exactly as JSON gives it: an integer (any integral value that fits), or a float.
#[derive(Clone, Copy)]
enum Exact {
    Int(i128),
    Float(f64),
}

/// 2^53: below it every integer is exactly a float.
const EXACT_FLOAT: f64 = 9_007_199_254_740_992.0;

fn exact(n: &Number) -> Exact {
    if let Some(i) = n.as_i64() {
        return Exact::Int(i.into());
    }
    if let Some(u) = n.as_u64() {
        return Exact::Int(u.into());
    }
    let f = n.as_f64().unwrap_or(0.0);
    // Integral floats within i128 convert exactly (they are integers already).
    #[expect(
        clippy::cast_possible_truncation,
        reason = "Integral floats within i128 convert exactly (they are integers already)."
    )]
    if is_integral_float(f) && f.abs() < 1.7e38 {
        Exact::Int(f as i128)
    } else {
        Exact::Float(f)
    }
}

/// Orders two JSON numbers exactly.
pub fn compare(a: &Number, b: &Number) -> Ordering {
    match (exact(a), exact(b)) {
        (Exact::Int(x), Exact::Int(y)) => x.cmp(&y),
        (Exact::Float(x), Exact::Float(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        (Exact::Int(x), Exact::Float(y)) => int_float(x, y),
        (Exact::Float(x), Exact::Int(y)) => int_float(y, x).reverse(),
    }
}

/// An integer against a float that is either not integral (so within 2^53) or beyond i128.
#[expect(
    clippy::cast_precision_loss,
    reason = "the float is not integral, so within 2^53, or beyond i128, where the comparison is by magnitude"
)]
fn int_float(x: i128, y: f64) -> Ordering {
    if y.abs() >= EXACT_FLOAT {
        // `y` is huge (beyond i128): its sign decides.
        return if y > 0.0 {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    if (x as f64).abs() > EXACT_FLOAT {
        return x.cmp(&0);
    }
    (x as f64).partial_cmp(&y).unwrap_or(Ordering::Equal)
}

/// Whether two JSON numbers are the same value (`1` and `1.0` are).
pub fn equal(a: &Number, b: &Number) -> bool {
    compare(a, b) == Ordering::Equal
}

/// JSON equality with numbers compared by value (`1` equals `1.0`), for `const`, `enum` and
/// `uniqueItems`.
pub fn same(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => equal(x, y),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => left == right,
    }
}

/// A number's decimal digits: `mantissa * 10^exponent`, without trailing zeros.
fn decimal(n: &Number) -> (u128, i64) {
    // serde_json writes a float as its shortest exact decimal (what the model sent, for any
    // number it parsed), an integer as its digits.
    let text = n.to_string();
    let text = text.trim_start_matches('-');
    let (digits, exponent) = match text.split_once(['e', 'E']) {
        Some((digits, exponent)) => (digits, exponent.parse::<i64>().unwrap_or(0)),
        None => (text, 0),
    };
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    let mut mantissa: u128 = 0;
    let mut exponent = exponent - i64::try_from(fraction.len()).unwrap_or(0);
    for b in whole
        .bytes()
        .chain(fraction.bytes())
        .filter(u8::is_ascii_digit)
    {
        mantissa = mantissa
            .saturating_mul(10)
            .saturating_add(u128::from(b - b'0'));
    }
    while mantissa != 0 && mantissa.is_multiple_of(10) {
        mantissa /= 10;
        exponent += 1;
    }
    (mantissa, exponent)
}

/// Whether `value` is an integer multiple of `step` (`step` > 0), exactly.
pub fn is_multiple(value: &Number, step: &Number) -> bool {
    let (a, p) = decimal(value);
    let (b, q) = decimal(step);
    if a == 0 {
        return true;
    }
    if b == 0 {
        return false;
    }
    if p < q {
        // `a` has no trailing zeros, so it is not a multiple of 10^(q - p).
        return false;
    }
    if b > 10_u128.pow(37) {
        // More significant digits than any JSON number parsed here has (a float has 17, an
        // integer 20): not a step anyone wrote.
        return false;
    }
    // (a * 10^(p - q)) mod b, one factor of ten at a time (b fits in 64 bits for any number a
    // model sends; the products stay within 128).
    let mut rest = a % b;
    let mut times = p - q;
    while times > 0 && rest != 0 {
        rest = (rest * 10) % b;
        times -= 1;
    }
    rest == 0
}

/// A number written exactly, for duplicate detection: integral values as integers.
pub fn canonical(n: &Number) -> String {
    match exact(n) {
        Exact::Int(i) => i.to_string(),
        Exact::Float(f) => f.to_string(),
    }
}

pub fn is_integral(n: &serde_json::Number) -> bool {
    n.is_i64() || n.is_u64() || n.as_f64().is_some_and(is_integral_float)
}

/// Whether a float is a whole number, without `fract` (a call into libm on the hot path).
#[expect(
    clippy::cast_possible_truncation,
    clippy::cast_precision_loss,
    clippy::float_cmp,
    reason = "exactly: a whole float below 2^52 survives the trip through i64 unchanged"
)]
pub fn is_integral_float(f: f64) -> bool {
    // From 2^52 on, every float is whole.
    f.is_finite() && (f.abs() >= 4_503_599_627_370_496.0 || (f as i64) as f64 == f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn n(value: serde_json::Value) -> Number {
        match value {
            serde_json::Value::Number(n) => n,
            _ => unreachable!(),
        }
    }

    #[test]
    fn integers_beyond_2_53_compare_exactly() {
        let big = n(json!(9_007_199_254_740_993_u64));
        let float = n(json!(9_007_199_254_740_992.0));
        assert_eq!(compare(&big, &float), Ordering::Greater);
        assert!(!equal(&big, &float));
        assert!(equal(&n(json!(1)), &n(json!(1.0))));
        assert_eq!(
            compare(&n(json!(u64::MAX)), &n(json!(i64::MIN))),
            Ordering::Greater
        );
        assert_eq!(compare(&n(json!(3)), &n(json!(2.5))), Ordering::Greater);
        assert_eq!(compare(&n(json!(-3)), &n(json!(1e300))), Ordering::Less);
        assert_eq!(
            compare(&n(json!(i64::MAX)), &n(json!(-1e300))),
            Ordering::Greater
        );
    }

    #[test]
    fn multiples_are_decided_on_the_digits() {
        assert!(is_multiple(&n(json!(0.0075)), &n(json!(0.0001))));
        assert!(is_multiple(&n(json!(19.99)), &n(json!(0.01))));
        assert!(!is_multiple(&n(json!(1e-10)), &n(json!(1))));
        assert!(is_multiple(&n(json!(1e308)), &n(json!(0.5))));
        assert!(!is_multiple(&n(json!(1e308)), &n(json!(0.123_456_789))));
        assert!(is_multiple(&n(json!(0)), &n(json!(7))));
        assert!(!is_multiple(
            &n(json!(9_007_199_254_740_993_u64)),
            &n(json!(2))
        ));
        assert!(is_multiple(&n(json!(u64::MAX)), &n(json!(5))));
    }
}
