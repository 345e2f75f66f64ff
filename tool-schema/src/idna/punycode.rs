//! Punycode (RFC 3492) decoding, for A-labels.

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;

fn adapt(mut delta: u32, points: u32, first: bool) -> u32 {
    delta /= if first { 700 } else { 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (BASE - T_MIN + 1) * delta / (delta + 38)
}

fn digit(b: u8) -> Option<u32> {
    match b {
        b'a'..=b'z' => Some(u32::from(b - b'a')),
        b'A'..=b'Z' => Some(u32::from(b - b'A')),
        b'0'..=b'9' => Some(u32::from(b - b'0') + 26),
        _ => None,
    }
}

pub(crate) fn decode(input: &str) -> Option<Vec<char>> {
    let (basic, extended) = match input.rfind('-') {
        Some(at) => (&input[..at], &input[at + 1..]),
        None => ("", input),
    };
    let mut output: Vec<char> = basic.chars().collect();
    if !basic.is_ascii() {
        return None;
    }
    let (mut code, mut index, mut bias) = (128_u32, 0_u32, 72_u32);
    let bytes = extended.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let old = index;
        let mut weight = 1_u32;
        let mut threshold = BASE;
        loop {
            let d = digit(*bytes.get(at)?)?;
            at += 1;
            index = index.checked_add(d.checked_mul(weight)?)?;
            let t = if threshold <= bias {
                T_MIN
            } else if threshold >= bias + T_MAX {
                T_MAX
            } else {
                threshold - bias
            };
            if d < t {
                break;
            }
            weight = weight.checked_mul(BASE - t)?;
            threshold += BASE;
        }
        let points = u32::try_from(output.len()).ok()? + 1;
        bias = adapt(index - old, points, old == 0);
        code = code.checked_add(index / points)?;
        index %= points;
        output.insert(usize::try_from(index).ok()?, char::from_u32(code)?);
        index += 1;
    }
    Some(output)
}
