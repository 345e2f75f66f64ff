//! The IDNA 2008 rules an A-label's decoded text must keep (RFC 5891 section 5.4, RFC 5892):
//! every code point PVALID, or CONTEXTJ/CONTEXTO with its rule of appendix A kept, and no leading
//! combining mark. The tables are derived from Unicode 14.0 (as `CPython` 3.11's `unicodedata`
//! gives it) by RFC 5892's algorithm: the exceptions of section 2.6, then unassigned, LDH,
//! unstable under NFKC and case folding, default-ignorable, the ignorable blocks, old Hangul
//! jamo, and otherwise general categories Ll, Lu, Lo, Nd, Lm, Mn, Mc. The `Joining_Type` rule of
//! ZERO WIDTH NON-JOINER (which that module lacks) is approximated by the letters of the scripts
//! that join (Arabic, Syriac, N'Ko, Mongolian, ...).

mod punycode;
mod tables;

pub(crate) use self::punycode::decode;
use self::tables::{MARKS, PVALID_LENGTHS, PVALID_STARTS, VIRAMAS};

fn pvalid(c: char) -> bool {
    let c = u32::from(c);
    let at = PVALID_STARTS.partition_point(|start| *start <= c);
    at > 0 && c - PVALID_STARTS[at - 1] <= u32::from(PVALID_LENGTHS[at - 1])
}

fn in_ranges(c: char, ranges: &[(u32, u32)]) -> bool {
    let c = u32::from(c);
    ranges
        .binary_search_by(|&(low, high)| {
            if high < c {
                std::cmp::Ordering::Less
            } else if low > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

fn is_greek(c: char) -> bool {
    matches!(u32::from(c), 0x0370..=0x0373 | 0x0375..=0x03FF | 0x1D26..=0x1D2A | 0x1F00..=0x1FFE)
}

fn is_hebrew(c: char) -> bool {
    matches!(u32::from(c), 0x0591..=0x05F4 | 0xFB1D..=0xFB4F)
}

fn is_kana_or_han(c: char) -> bool {
    matches!(
        u32::from(c),
        0x3041..=0x309F
            | 0x30A0..=0x30FA
            | 0x30FC..=0x30FF
            | 0x31F0..=0x31FF
            | 0xFF66..=0xFF9D
            | 0x1B000..=0x1B16F
            | 0x2E80..=0x2FDF
            | 0x3005
            | 0x3007
            | 0x3021..=0x3029
            | 0x3038..=0x303B
            | 0x3400..=0x4DBF
            | 0x4E00..=0x9FFF
            | 0xF900..=0xFAFF
            | 0x20000..=0x3134F
    )
}

/// Letters of the scripts whose letters join (for ZERO WIDTH NON-JOINER between them).
fn joins(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0620..=0x064A
            | 0x066E..=0x06D3
            | 0x06D5
            | 0x06EE..=0x06EF
            | 0x06FA..=0x06FC
            | 0x06FF
            | 0x0710..=0x072F
            | 0x074D..=0x077F
            | 0x07CA..=0x07EA
            | 0x0840..=0x0858
            | 0x0860..=0x086A
            | 0x08A0..=0x08C9
            | 0x1820..=0x1878
            | 0x1887..=0x18A8
    )
}

/// Whether the decoded text of an A-label keeps IDNA 2008's rules.
pub fn label_ok(label: &[char]) -> bool {
    if label.first().is_some_and(|c| in_ranges(*c, MARKS)) {
        return false;
    }
    let arabic_indic = label.iter().any(|c| ('\u{0660}'..='\u{0669}').contains(c));
    let extended = label.iter().any(|c| ('\u{06F0}'..='\u{06F9}').contains(c));
    if arabic_indic && extended {
        return false;
    }
    label.iter().enumerate().all(|(i, &c)| {
        let before = i.checked_sub(1).map(|j| label[j]);
        let after = label.get(i + 1).copied();
        match u32::from(c) {
            // RFC 5892 section 2.6: DISALLOWED exceptions.
            0x0640 | 0x07FA | 0x302E | 0x302F | 0x3031..=0x3035 | 0x303B => false,
            // Appendix A.1, A.2: the joiners, after a virama (or, the non-joiner, between
            // joining letters).
            0x200D => before.is_some_and(|b| VIRAMAS.contains(&u32::from(b))),
            0x200C => {
                before.is_some_and(|b| VIRAMAS.contains(&u32::from(b)))
                    || (label[..i]
                        .iter()
                        .rev()
                        .find(|c| !in_ranges(**c, MARKS))
                        .is_some_and(|b| joins(*b))
                        && label[i + 1..]
                            .iter()
                            .find(|c| !in_ranges(**c, MARKS))
                            .is_some_and(|a| joins(*a)))
            }
            // A.3: MIDDLE DOT between two `l`s.
            0x00B7 => before == Some('l') && after == Some('l'),
            // A.4: GREEK LOWER NUMERAL SIGN before a Greek letter.
            0x0375 => after.is_some_and(is_greek),
            // A.5, A.6: GERESH and GERSHAYIM after a Hebrew letter.
            0x05F3 | 0x05F4 => before.is_some_and(is_hebrew),
            // A.7: KATAKANA MIDDLE DOT in a label with Hiragana, Katakana or Han.
            0x30FB => label.iter().any(|c| is_kana_or_han(*c)),
            // A.8, A.9 (their mixing is refused above).
            0x0660..=0x0669 | 0x06F0..=0x06F9 => true,
            _ => pvalid(c),
        }
    })
}
