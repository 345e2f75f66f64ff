#![doc = include_str!("args.md")]

mod call;
mod decode;
mod sent;

use serde::de::DeserializeOwned;
use serde_json::Value;

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
