//! Turning a call's arguments into a tool's typed arguments, the way models really send them.
//!
//! # The pipeline
//! Every tool that does not supply its own `parse_args` (`#[tool(parse_args = ..)]`, which then
//! owns validation) runs the same steps:
//! 1. **Fast path**: serde straight from the text into the typed arguments. Where the schema
//!    says more than serde's derive enforces itself (a range, a pattern, ...; see
//!    [`CompiledSchema::constrains_beyond_types`]) and each rule is about one value at a time
//!    ([`CompiledSchema::checks_in_passing`]: ranges, lengths, patterns, formats, enums of
//!    scalars, counts), each value is checked as serde reads it. Rules over whole subtrees
//!    (`not`, sets of objects, tagged unions, ...), and arguments that arrive as a value, go
//!    through a flat list of tokens (a tape) first. That nested structs are objects needs no
//!    check of its own: toolwright's deserializer takes a struct from an object only, and a read
//!    in which serde kept a value aside (where it takes a struct from an array too: an untagged
//!    enum, a flattened field) is checked on the tape
//!    ([`CompiledSchema::constrains_beyond_shapes`]). When that works, the call costs about what
//!    serde costs; anything else (the first rule broken included) takes the long way below,
//!    which decides and explains.
//! 2. **Decode**: strict `serde_json`; only when that fails, the [lenient parser](parse_json),
//!    which records every [`Repair`] with its kind and byte offset: code fences, prose around
//!    the JSON, truncated output, trailing and stray commas, comments, unquoted keys, single and
//!    typographic quotes, Python literals, cut-off keywords, raw control characters, invalid
//!    escapes, missing commas and colons, `NaN`/`Infinity`. One linear pass, bounded depth and
//!    size ([`JsonLimits`]). `cargo run --example repair` runs the parser alone. Text that
//!    ended early (an unclosed string, object or array: a stream cut, an output limit) is
//!    closed, but by default only a read-only tool runs on it: closing may have changed what the
//!    model meant, so any other tool is not run and the model is told where its arguments
//!    stopped ([`CutOff`]).
//! 3. **Coerce** toward the schema where its meaning is unambiguous, recording every
//!    [`Coercion`] with its path: `"42"` for a number, `"true"` for a boolean, `"null"`, JSON in
//!    a string (also stringified twice), `30.0` for an integer, a number for a string, a single
//!    value for an array, `anyOf`/`oneOf` branches chosen by tag and by type. Missing members are
//!    never invented.
//! 4. **Validate** every keyword of the schema the model was shown (types, `enum`/`const`,
//!    ranges, lengths, patterns, formats, array bounds and uniqueness, unknown and missing
//!    members, `anyOf`/`oneOf`/`allOf`/`not`, `$ref`, ...), collecting every [`Problem`].
//! 5. **Deserialize** with serde into the typed arguments.
//!
//! Each step is governed by an [`ArgumentPolicy`] (per toolbox: `Toolbox::with_argument_policy`)
//! and the tool's own overrides (`#[tool(repair = false, coerce = false)]`,
//! `ToolDefinition::with_repair`). `ArgumentPolicy::ignore_unknown` drops undeclared arguments
//! for every tool; `null_as_absent(false)` makes `null` arrive as `None` rather than as "not
//! given".
//!
//! # What the model is told
//! When the arguments are wrong the model gets one message: a summary, its own arguments
//! re-rendered with a comment at each problem, and what the tool accepts. `search` with
//! `{"qurey": "rust", "limit": 500}`:
//!
//! ```text
//! invalid arguments for tool `search`: 3 problems: unknown argument `qurey` (did you mean `query`?); `limit`: expected an integer from 1 to 50, found 500; missing required argument `query` (a string).
//! Your arguments, with each problem marked:
//! {
//!   "qurey": "rust",  // <- unknown argument: did you mean `query`?
//!   "limit": 500  // <- expected an integer from 1 to 50, found 500
//!   // "query": missing, required: a string
//! }
//! Required arguments: `query` and `limit`. Accepted arguments: `query` (a string), `limit` (an integer from 1 to 50).
//! ```
//!
//! The application gets the same problems typed: [`ArgumentError::Invalid`] (path, kind,
//! expected, found, suggestions), through `ToolResult::argument_error`.
//!
//! A caveat: where a value's schema has no rule beyond its type, the fast path trusts serde for
//! the type, so a parameter whose schema is overridden to advertise a narrower type than its
//! `Deserialize` accepts (`#[schemars(with = "u32")]` on a `String`) would let through what the
//! schema refuses. The repository's `tests/agreement.rs` checks schema and serde agree for each
//! demo tool, and is the pattern to copy for such parameters.
//!
//! # The validator is JSON Schema draft 2020-12
//! Arguments are checked by toolwright's own validator, [`CompiledSchema`] (its messages are the
//! ones above), held to the standard and not only to what schemars writes, since MCP servers'
//! schemas are anyone's:
//! - **The official JSON-Schema-Test-Suite** (draft 2020-12) runs in the repository's tests: all
//!   of its main suite passes but 13 tests, intended differences listed with their reasons (12
//!   of them: formats are asserted). `$id`, `$anchor`, `$dynamicRef`/`$dynamicAnchor`,
//!   `unevaluatedProperties`/`unevaluatedItems`, `dependentSchemas`, `prefixItems`, `contains`
//!   with `minContains`/`maxContains` and `propertyNames` are all enforced.
//! - **References to other documents** resolve through
//!   [`CompiledSchema::compile_with`]`(schema, &retrieve)`; toolwright never fetches anything from
//!   the network itself.
//! - **Numbers are exact**: integers past 2^53 compare as integers, and `multipleOf` is decided on
//!   the decimal digits (`1e308` is a multiple of `0.5`, `1e-10` is not a multiple of `1`).
//! - **Patterns** are ECMA-262, translated for `regex-lite` (`.` does not match `\r`, `\s`
//!   includes U+FEFF, `\cX`, `[^]`, ...). Unicode property classes (`\p{Letter}`), look-around
//!   and back-references have no translation: such a pattern is listed by
//!   [`CompiledSchema::unsupported`], logged once, and not enforced.
//! - **Formats** asserted: `date-time`, `date`, `time` (leap seconds at 23:59:60 UTC only),
//!   `duration`, `email`, `hostname` (A-labels decoded and held to IDNA 2008's contextual rules),
//!   `ipv4`, `ipv6`, `uri`, `uri-reference`, `json-pointer`, `uuid`, and schemars' integer widths
//!   (`uint32`, ...). Not asserted (annotations): `idn-email`, `idn-hostname`, `iri`,
//!   `iri-reference`, `uri-template`, `relative-json-pointer`, `regex`.
//! - **A second opinion**: the repository's tests run the `jsonschema` crate beside it on values
//!   made from the suite's and the demo tools' schemas, and on generated schemas with values;
//!   they agree everywhere but on the listed differences.
//! - **Within the limits, valid input passes**: the check's work grows with the arguments (16
//!   schema visits per value, at least 200,000), and its depth is bounded for the stack (1,024
//!   nested checks, 48 on one value), far beyond what the depth limit (128 levels by default)
//!   needs. Every limit, and where it holds, is listed in toolwright's crate documentation
//!   (Limits).
//!
//! What a valid call costs against serde alone, and against text -> `Value` -> `jsonschema` ->
//! struct, is measured in the repository's BENCHMARKS.md.

mod call;
mod decode;
mod sent;

use serde::de::DeserializeOwned;
use serde_json::Value;

pub(crate) use self::decode::kind_of;
pub use self::decode::{admit, decode_arguments};
use self::decode::{first_non_space, strip_position};
use crate::call::Arguments;
use crate::definition::{ToolDefinition, UnknownArgs};
pub use crate::error::{AcceptedArgument, ArgumentError, InvalidArguments};
pub use crate::fixes::Fixes;
pub use crate::policy::{ArgumentPolicy, CutOff, ParseSession};
use toolwright_json::de::{self as stream, Source, TapeSource, TextSource, Trail, Verdict, Watch};
#[cfg(feature = "lenient")]
pub use toolwright_json::parse_lenient;
use toolwright_json::tape;
pub use toolwright_json::{ArgPath, PathSegment};
pub use toolwright_json::{JsonError, JsonLimits, Repair, RepairKind, Repaired, parse_json};
pub use toolwright_schema::{Coercion, CoercionKind, CompiledSchema, Problem, ProblemKind};
use toolwright_schema::{compiled, inline, problem};

/// The default handling for argument types that enforce the schema's types, required and
/// unknown names themselves, as the generated ones do: the strict fast path first, then the
/// whole pipeline.
///
/// Of all this only the serde reads depend on `T`, all against one deserializer (see
/// [`stream`]): text whose rules beyond serde's are none, or each about one value at a time (the
/// commonest calls), is read as it is deserialized, those rules checked in passing by the text
/// source (out of line: nothing of it is compiled per type); text it declines (escapes in a
/// string), text whose rules need more than one value at a time, values and the long way's
/// checked value are read from a [`tape`]. Nothing else is compiled per arguments type, which is
/// what every `#[tool]` costs its user's build (see BENCHMARKS.md).
///
/// # Errors
/// Everything that is wrong, as an [`ArgumentError`] whose `Display` is the message for the model.
pub(crate) fn parse_default<T: DeserializeOwned>(
    definition: &ToolDefinition,
    arguments: &Arguments,
    session: &mut ParseSession,
) -> Result<T, ArgumentError> {
    read_with(definition, arguments, session, true)
}

/// The pipeline, `fast` or not, with `T`'s read. `match` rather than `?` or `Option`'s
/// combinators: in generic code each of those is more functions compiled per type.
#[inline(always)]
fn read_with<T: DeserializeOwned>(
    definition: &ToolDefinition,
    arguments: &Arguments,
    session: &mut ParseSession,
    fast: bool,
) -> Result<T, ArgumentError> {
    let mut parsed = None;
    let read = pipeline(definition, arguments, session, fast, &mut Slot(&mut parsed));
    match (read, parsed) {
        (Ok(()), Some(parsed)) => Ok(parsed),
        (Ok(()), None) => Err(unread()),
        (Err(error), _) => Err(error),
    }
}

/// Reads the typed arguments from a source into the caller's slot: the one step of the
/// pipeline compiled per arguments type (a call through it costs a few instructions).
///
/// A trait of its own rather than `dyn FnMut`: a closure's vtable also holds a `call_once`
/// shim, a copy of the read compiled per type that nothing calls.
trait Read {
    fn read(&mut self, source: Source<'_, '_>, trail: &Trail) -> Result<(), serde_json::Error>;
}

/// Where [`read_with`] puts the arguments the pipeline read: borrowed, so that the trait
/// object's vtable has no drop glue of `T` to compile either.
struct Slot<'a, T>(&'a mut Option<T>);

impl<T: DeserializeOwned> Read for Slot<'_, T> {
    fn read(&mut self, source: Source<'_, '_>, trail: &Trail) -> Result<(), serde_json::Error> {
        match stream::read::<T>(source, trail) {
            Ok(value) => {
                *self.0 = Some(value);
                Ok(())
            }
            Err(error) => Err(error),
        }
    }
}

/// The pipeline around `read`, compiled once for all arguments types: the fast path (when
/// `fast`), then the long way. `Ok` only right after a read that succeeded.
#[inline(never)]
fn pipeline(
    definition: &ToolDefinition,
    arguments: &Arguments,
    session: &mut ParseSession,
    fast: bool,
    read: &mut dyn Read,
) -> Result<(), ArgumentError> {
    if fast && fast_path(definition, arguments, session, read) {
        return Ok(());
    }
    let coerced = session.fixes.coercions.len();
    let value = checked_value(definition, arguments, session)?;
    let trail = Trail::default();
    let tape = tape::of_value(&value);
    let read = read.read(Source::Tape(&mut TapeSource::new(&tape)), &trail);
    tape::recycle(tape);
    match read {
        Ok(()) => Ok(()),
        Err(error) => {
            let problem = refused(&error, trail.path(), &value);
            let fixes = &session.fixes.coercions[coerced..];
            Err(invalid(
                definition,
                vec![problem],
                value,
                arguments,
                session,
                fixes,
            ))
        }
    }
}

/// A pipeline that said `Ok` without a read: it cannot, but if it did, the call is refused
/// rather than anything invented.
#[cold]
#[inline(never)]
fn unread() -> ArgumentError {
    ArgumentError::Rejected("the arguments could not be read".to_owned())
}

/// A read of the typed arguments that held to every rule of the schema, when it can be had
/// cheaply; `false` sends the call the long way, which decides and explains.
///
/// Only objects take it (serde's derived structs would also accept an array); text over the
/// size limit or nesting past the depth limit goes the long way, to its error. Text is read as
/// it is deserialized, the schema's rules beyond serde's (if any) checked on each value in
/// passing ([`CompiledSchema::checks_in_passing`]): the commonest call, with no tape. Text it
/// declines (a string with escapes, say) or cannot decide in passing, and values, are read
/// from a tape; rules that need more than one value at a time are checked on the tape's tokens
/// first (`inline`), or on the whole value.
#[inline]
fn fast_path(
    definition: &ToolDefinition,
    arguments: &Arguments,
    session: &ParseSession,
    read: &mut dyn Read,
) -> bool {
    let schema = definition.compiled_schema();
    // A `null` that serde would read as `None` and the schema as absent: the long way decides.
    if session.policy.null_as_absent && schema.null_is_not_default() {
        return false;
    }
    let limits = &session.policy.limits;
    if let Arguments::Text(text) = arguments
        && first_non_space(text) == Some(b'{')
        && text.len() <= limits.max_len
    {
        let mut watch;
        // Nothing beyond serde but nested structs' being objects: the deserializer sees to that
        // as it reads (unless serde read a struct from a value it kept aside; then the tape).
        let shapes_only = !schema.constrains_beyond_shapes();
        let mut source = if shapes_only {
            TextSource::new(text, limits.max_depth)
        } else if schema.checks_in_passing() {
            watch = Watch::new(schema);
            TextSource::watched(text, limits.max_depth, &mut watch)
        } else {
            return fast_tape(schema, arguments, session, read, true);
        };
        let trail = Trail::default();
        if read.read(Source::Text(&mut source), &trail).is_ok() && source.finish() {
            return !shapes_only
                || read_directly(schema, &trail)
                || fast_tape(schema, arguments, session, read, false);
        }
        // A broken rule, or refused by serde: the long way explains. Declined (a string with
        // escapes, say) or undecided in passing: the tape reads it.
        let verdict = source.verdict();
        if verdict == Verdict::Broken || (verdict == Verdict::Holds && !source.declined()) {
            return false;
        }
    }
    fast_tape(schema, arguments, session, read, true)
}

/// After a read that checked no rule, of a schema that says nothing beyond serde but that nested
/// structs are objects ([`CompiledSchema::constrains_beyond_shapes`]): whether that held, which
/// it did unless serde read some value from one it kept aside (and so might have taken a struct
/// from an array).
#[inline(always)]
fn read_directly(schema: &CompiledSchema, trail: &Trail) -> bool {
    !schema.constrains_beyond_types() || !trail.buffered()
}

/// The fast path through a tape, the schema's rules beyond serde's (if any) checked on its
/// tokens first, or on the whole value: text declined or undecided in passing, text whose rules
/// need more than one value at a time, a value. `direct`: a schema that says no more than that
/// nested structs are objects is first read with no check (as text is, above); `false` when that
/// was done and serde kept a value aside.
#[inline(never)]
fn fast_tape(
    schema: &CompiledSchema,
    arguments: &Arguments,
    session: &ParseSession,
    read: &mut dyn Read,
    direct: bool,
) -> bool {
    let limits = &session.policy.limits;
    let mut escaped = tape::Escaped::new();
    let tape = match arguments {
        Arguments::Text(text)
            if first_non_space(text) == Some(b'{') && text.len() <= limits.max_len =>
        {
            match tape::of_text(text, limits.max_depth, &mut escaped) {
                Some(tape) => tape,
                None => return false,
            }
        }
        Arguments::Json(value @ Value::Object(_)) => tape::of_value(value),
        _ => return false,
    };
    if direct && !schema.constrains_beyond_shapes() {
        let trail = Trail::default();
        let read_ok = read
            .read(Source::Tape(&mut TapeSource::new(&tape)), &trail)
            .is_ok();
        if !read_ok || read_directly(schema, &trail) {
            tape::recycle(tape);
            return read_ok;
        }
    }
    let holds = !schema.constrains_beyond_types()
        || if schema.checks_inline() {
            inline::holds(schema, &tape)
        } else {
            // Rules the tape's checks do not decide: the whole value checked, no message built.
            match arguments {
                Arguments::Json(value) => schema.valid_beyond_serde(value),
                Arguments::Text(text) => serde_json::from_str::<Value>(text)
                    .is_ok_and(|value| schema.valid_beyond_serde(&value)),
            }
        };
    let taken = holds
        && read
            .read(Source::Tape(&mut TapeSource::new(&tape)), &Trail::default())
            .is_ok();
    tape::recycle(tape);
    taken
}

/// The default argument handling, against a definition's parameters schema: JSON repair,
/// coercion, validation with every problem reported together, then serde (this module's pipeline).
///
/// # Errors
/// Everything that is wrong, as one [`ArgumentError`].
pub fn parse<T: DeserializeOwned>(
    definition: &ToolDefinition,
    arguments: &Arguments,
    session: &mut ParseSession,
) -> Result<T, ArgumentError> {
    parse_checked(definition, arguments, session)
}

/// The whole pipeline, without the fast path: for argument types that do not themselves
/// enforce the schema (a JSON map, say).
///
/// # Errors
/// Everything that is wrong, as an [`ArgumentError`].
pub(crate) fn parse_checked<T: DeserializeOwned>(
    definition: &ToolDefinition,
    arguments: &Arguments,
    session: &mut ParseSession,
) -> Result<T, ArgumentError> {
    read_with(definition, arguments, session, false)
}

/// Serde refused arguments the schema accepted: the one problem, where it is.
#[cold]
#[inline(never)]
fn refused(error: &serde_json::Error, path: ArgPath, value: &Value) -> Problem {
    let found = sent::value_at(value, &path).map_or_else(|| "nothing".to_owned(), problem::show);
    Problem {
        path,
        kind: ProblemKind::Deserialize,
        expected: strip_position(error),
        found,
        suggestions: Vec::new(),
    }
}

/// Decoded, coerced and validated arguments, as JSON.
///
/// # Errors
/// As [`parse_checked`].
pub(crate) fn checked_value(
    definition: &ToolDefinition,
    arguments: &Arguments,
    session: &mut ParseSession,
) -> Result<Value, ArgumentError> {
    let policy = definition.argument_policy(&session.policy);
    let map = decode_arguments(arguments, &policy, &mut session.fixes)?;
    let mut value = Value::Object(map.into_owned());
    let schema = definition.compiled_schema();
    let coerced = session.fixes.coercions.len();
    if policy.null_as_absent {
        session
            .fixes
            .coercions
            .extend(schema.absent_nulls(&mut value));
    }
    if policy.coerce {
        let (coercions, complete) = schema.coerce_all(&mut value);
        session.fixes.coercions.extend(coercions);
        if !complete {
            // Uncoerced values would each be a problem of their own: one message says why.
            let problems = vec![Problem::too_complex()];
            let fixes = &session.fixes.coercions[coerced..];
            return Err(invalid(
                definition, problems, value, arguments, session, fixes,
            ));
        }
    }
    if policy.ignore_unknown || definition.unknown_args() == UnknownArgs::Ignore {
        drop_unknown(definition, &mut value, &mut session.fixes);
    }
    let problems = schema.validate(&value);
    if problems.is_empty() {
        Ok(value)
    } else {
        let fixes = &session.fixes.coercions[coerced..];
        Err(invalid(
            definition, problems, value, arguments, session, fixes,
        ))
    }
}

/// Drops top-level arguments the tool does not declare (when it declares any).
fn drop_unknown(definition: &ToolDefinition, value: &mut Value, fixes: &mut Fixes) {
    let table = definition.param_table();
    if !table.known {
        return;
    }
    if let Value::Object(map) = value {
        map.retain(|key, _| {
            let keep = table.accepts(key);
            if !keep {
                fixes.coercions.push(Coercion {
                    path: ArgPath::root().key(key),
                    kind: CoercionKind::DroppedUnknown,
                });
            }
            keep
        });
    }
}

/// The arguments refused for `problems`, found in `checked` (the arguments as coerced by
/// `coercions`), told as the model sent them: the arguments decoded again (this is the error
/// path: a call that passes never pays for it), the problems placed in them.
#[cold]
#[inline(never)]
fn invalid(
    definition: &ToolDefinition,
    problems: Vec<Problem>,
    checked: Value,
    arguments: &Arguments,
    session: &ParseSession,
    coercions: &[Coercion],
) -> ArgumentError {
    let policy = definition.argument_policy(&session.policy);
    let sent = if coercions.is_empty() {
        None
    } else {
        decode_arguments(arguments, &policy, &mut Fixes::default())
            .ok()
            .map(|map| Value::Object(map.into_owned()))
    };
    let (problems, arguments) = match sent {
        Some(sent) => (sent::as_sent(problems, coercions, &sent), sent),
        None => (problems, checked),
    };
    let table = definition.param_table();
    let schema = definition.compiled_schema();
    let root = schema.node(compiled::ROOT);
    let accepted = table
        .accepted
        .iter()
        .map(|name| AcceptedArgument {
            name: name.clone(),
            expected: root
                .property(name)
                .map_or_else(|| "any value".to_owned(), |id| schema.describe(id)),
        })
        .collect();
    ArgumentError::Invalid(Box::new(InvalidArguments {
        problems,
        required: table.required.clone(),
        accepted,
        arguments,
    }))
}
