//! The rules checked in passing (the schema as the text source's `Rules`) against the full check
//! (validation of the whole value, then serde), on valid documents mutated a character at a
//! time: a document read in passing is valid and reads the same; a rule said broken in passing
//! is broken; a valid document is never refused in passing. And the tape's check of the same
//! rules (`inline::holds`, for values and declined text) agrees with both.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use toolwright_json::de::{Source, TextSource, Trail, Verdict, Watch, from_tape, read};
use toolwright_json::tape;
use toolwright_schema::{CompiledSchema, inline};

/// A unit (a string enum).
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// A number, or words: an untagged union whose branches the type read tells apart.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(untagged)]
enum Amount {
    Number(#[schemars(range(min = 0, max = 100))] f64),
    Words {
        #[schemars(length(min = 1, max = 5))]
        text: String,
    },
}

/// A nested struct with rules of its own.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Inner {
    #[schemars(range(min = -3, max = 3))]
    level: i32,
    #[schemars(extend("multipleOf" = 0.5))]
    step: Option<f64>,
    #[schemars(extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 10))]
    open: Option<f64>,
}

/// Every kind of rule checked in passing.
#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Args {
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
    #[schemars(length(min = 2, max = 8))]
    name: String,
    #[schemars(range(min = -2.5, max = 1000))]
    ratio: Option<f64>,
    #[schemars(regex(pattern = r"^[a-z]+[0-9]*$"))]
    code: Option<String>,
    #[schemars(length(min = 1, max = 3))]
    tags: Option<Vec<String>>,
    unit: Option<Unit>,
    small: Option<u8>,
    inner: Option<Inner>,
    items: Option<Vec<Inner>>,
    amount: Option<Amount>,
    #[schemars(extend("maxProperties" = 2))]
    counts: Option<BTreeMap<String, u32>>,
    #[schemars(extend("const" = "fixed"))]
    fixed: Option<String>,
}

const SEEDS: [&str; 4] = [
    r#"{"limit": 7, "name": "ada", "ratio": 1.5, "code": "ab12", "tags": ["x", "y"], "unit": "celsius", "small": 200}"#,
    r#"{"name": "grace", "limit": 50, "inner": {"level": -3, "step": 2.5, "open": 9.5}, "items": [{"level": 1}, {"level": 0, "open": 0.5}]}"#,
    r#"{"limit": 1, "name": "zz", "amount": 42, "counts": {"a": 1, "b": 2}, "fixed": "fixed"}"#,
    r#"{"limit": 20, "name": "linus", "amount": {"text": "five"}, "tags": ["only"], "ratio": -2.5, "unit": "fahrenheit"}"#,
];

/// What the full check says: `Some` with the typed value when the whole value validates and
/// serde reads it; `None` for text that is no JSON.
fn full<T: DeserializeOwned>(schema: &CompiledSchema, text: &str) -> Option<Result<T, ()>> {
    let value: Value = serde_json::from_str(text).ok()?;
    if !schema.validate(&value).is_empty() {
        return Some(Err(()));
    }
    Some(serde_json::from_value(value).map_err(|_| ()))
}

/// A read in passing and what came of it: the value read (only when the whole text was read
/// and every rule held), whether the text was declined, and the rules' verdict.
struct Passing<T> {
    read: Option<T>,
    declined: bool,
    verdict: Verdict,
}

fn from_text<T: DeserializeOwned>(schema: &CompiledSchema, text: &str) -> Passing<T> {
    let mut watch = Watch::new(schema);
    let mut source = TextSource::watched(text, 128, &mut watch);
    let read = read::<T>(Source::Text(&mut source), &Trail::default());
    let whole = read.is_ok() && source.finish();
    Passing {
        read: read.ok().filter(|_| whole),
        declined: source.declined(),
        verdict: source.verdict(),
    }
}

/// The tape's way: the rules on the tape's tokens, then serde from it (`Broken` stands for the
/// rules not holding there, which the tape does not tell from "not decided here").
fn from_tape_checked<T: DeserializeOwned>(
    schema: &CompiledSchema,
    text: &str,
) -> Option<Passing<T>> {
    let mut escaped = tape::Escaped::new();
    let tokens = tape::of_text(text, 128, &mut escaped)?;
    let holds = inline::holds(schema, &tokens);
    let read = if holds {
        from_tape::<T>(&tokens).ok()
    } else {
        None
    };
    tape::recycle(tokens);
    Some(Passing {
        read,
        declined: false,
        verdict: if holds {
            Verdict::Holds
        } else {
            Verdict::Broken
        },
    })
}

/// The three promises, for one text read one way.
fn agrees<T: DeserializeOwned + PartialEq + std::fmt::Debug>(
    text: &str,
    how: &str,
    passing: &Passing<T>,
    full: Option<&Result<T, ()>>,
) {
    if let Some(read) = &passing.read {
        assert_eq!(passing.verdict, Verdict::Holds, "{how}: {text}");
        assert!(
            matches!(full, Some(Ok(valid)) if valid == read),
            "{how}: read in passing, but the full check says {full:?}: {text}"
        );
    }
    if passing.verdict == Verdict::Broken {
        assert!(passing.read.is_none(), "{how}: {text}");
        // Broken text counts as refused: the rule broke before the reader reached the break.
        assert!(
            matches!(full, Some(Err(())) | None),
            "{how}: a rule said broken in passing, but the full check takes {text}"
        );
    }
    if let Some(Ok(valid)) = full {
        let taken = passing.read.as_ref() == Some(valid);
        assert!(
            taken || passing.declined || passing.verdict == Verdict::Undecided,
            "{how}: valid, but not taken in passing: {text}"
        );
    }
}

/// Valid documents mutated (a deterministic xorshift picks where and what).
fn mutated(seeds: &[&str], per_seed: usize, mut state: u64) -> Vec<String> {
    let alphabet: Vec<char> = "{}[]\",:.-+eE0123456789 \\tnulrfasxyz_\u{e9}"
        .chars()
        .collect();
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        usize::try_from(state % below as u64).unwrap_or(0)
    };
    let mut texts: Vec<String> = seeds.iter().map(|seed| (*seed).to_owned()).collect();
    for seed in seeds {
        for _ in 0..per_seed {
            let mut chars: Vec<char> = seed.chars().collect();
            for _ in 0..=next(2) {
                let at = next(chars.len() + 1);
                match next(3) {
                    0 if at < chars.len() => {
                        chars.remove(at);
                    }
                    1 => chars.insert(at, alphabet[next(alphabet.len())]),
                    _ if at < chars.len() => chars[at] = alphabet[next(alphabet.len())],
                    _ => {}
                }
            }
            texts.push(chars.into_iter().collect());
        }
    }
    texts
}

#[test]
fn rules_in_passing_agree_with_the_full_check_on_mutated_documents() {
    let schema =
        CompiledSchema::compile(&serde_json::to_value(schemars::schema_for!(Args)).unwrap());
    assert!(schema.constrains_beyond_types());
    assert!(
        schema.checks_in_passing(),
        "every rule of `Args` is about one value at a time"
    );
    let (mut taken, mut broken, mut valid) = (0, 0, 0);
    let texts = mutated(&SEEDS, 4_000, 0x2545_F491_4F6C_DD1D);
    for text in &texts {
        let full = full::<Args>(&schema, text);
        let streamed = from_text::<Args>(&schema, text);
        agrees(text, "text", &streamed, full.as_ref());
        if let Some(taped) = from_tape_checked::<Args>(&schema, text) {
            agrees(text, "tape", &taped, full.as_ref());
            // Read from text, the tape reads the same, and a rule broken is broken on both.
            if streamed.read.is_some() {
                assert_eq!(taped.read, streamed.read, "{text}");
            }
            if streamed.verdict == Verdict::Broken {
                assert_eq!(taped.verdict, Verdict::Broken, "{text}");
            }
        }
        taken += usize::from(streamed.read.is_some());
        broken += usize::from(streamed.verdict == Verdict::Broken);
        valid += usize::from(matches!(full, Some(Ok(_))));
    }
    // Every outcome is well represented.
    assert!(
        taken > 1_000 && broken > 1_000 && valid > taken / 2,
        "{taken} taken, {broken} broken, {valid} valid of {}",
        texts.len()
    );
}

/// The seeds, each rule broken by hand: said broken in passing, as the full check says.
#[test]
fn each_kind_of_rule_is_broken_in_passing() {
    let schema =
        CompiledSchema::compile(&serde_json::to_value(schemars::schema_for!(Args)).unwrap());
    let mut broken = vec![
        r#"{"limit": 0, "name": "ada"}"#,
        r#"{"limit": 51, "name": "ada"}"#,
        r#"{"limit": 5, "name": "a"}"#,
        r#"{"limit": 5, "name": "abcdefghi"}"#,
        r#"{"limit": 5, "name": "ada", "ratio": -2.6}"#,
        r#"{"limit": 5, "name": "ada", "ratio": 1000.5}"#,
        r#"{"limit": 5, "name": "ada", "tags": []}"#,
        r#"{"limit": 5, "name": "ada", "tags": ["a", "b", "c", "d"]}"#,
        r#"{"limit": 5, "name": "ada", "unit": "kelvin"}"#,
        r#"{"limit": 5, "name": "ada", "inner": {"level": 4}}"#,
        r#"{"limit": 5, "name": "ada", "inner": {"level": 0, "step": 0.25}}"#,
        r#"{"limit": 5, "name": "ada", "inner": {"level": 0, "open": 0}}"#,
        r#"{"limit": 5, "name": "ada", "inner": {"level": 0, "open": 10}}"#,
        r#"{"limit": 5, "name": "ada", "items": [{"level": 0}, {"level": -4}]}"#,
        r#"{"limit": 5, "name": "ada", "amount": 101}"#,
        r#"{"limit": 5, "name": "ada", "amount": {"text": "sixsix"}}"#,
        r#"{"limit": 5, "name": "ada", "counts": {"a": 1, "b": 2, "c": 3}}"#,
        r#"{"limit": 5, "name": "ada", "fixed": "other"}"#,
    ];
    // Patterns are enforced with the `patterns` feature only (the lean build has none).
    if cfg!(feature = "patterns") {
        broken.push(r#"{"limit": 5, "name": "ada", "code": "Ab1"}"#);
    }
    for text in broken {
        assert_eq!(full::<Args>(&schema, text), Some(Err(())), "{text}");
        let streamed = from_text::<Args>(&schema, text);
        assert!(streamed.read.is_none(), "{text}");
        assert_eq!(streamed.verdict, Verdict::Broken, "{text}");
        let taped = from_tape_checked::<Args>(&schema, text).expect("JSON");
        assert_eq!(taped.verdict, Verdict::Broken, "{text}");
    }
    for seed in SEEDS {
        assert!(matches!(full::<Args>(&schema, seed), Some(Ok(_))), "{seed}");
        assert!(from_text::<Args>(&schema, seed).read.is_some(), "{seed}");
    }
}
