//! Support for the code `#[tool]` generates. Not public API: no stability guarantees.
//!
//! Generated code reaches the runtime only through this module, with absolute paths.

use std::fmt::Display;
use std::marker::PhantomData;

pub use core;
pub use schemars;
use schemars::JsonSchema;
pub use serde;
use serde::de::DeserializeOwned;
pub use serde_json;
use serde_json::Value;

pub use crate::args::{ArgumentError, CutOff, ParseSession};
pub use crate::call::{Arguments, ToolCall};
pub use crate::collect::ToolEntry;
pub use crate::output::{IntoOutcome, Outcome};
pub use crate::task::{CallInfo, CallScope};
use crate::tool::Deprecation;
pub use crate::tool::{ErasedTool, Tool, ToolAnnotations, ToolDefinition, UnknownArgs, erase};
use crate::{docs, forms};

#[cfg(feature = "inventory")]
pub use inventory;

/// Registers a generated tool for `Toolbox::collect` when the `inventory` feature is on; nothing
/// otherwise.
#[cfg(feature = "inventory")]
#[doc(hidden)]
#[macro_export]
macro_rules! __tool_submit {
    ($entry:expr) => {
        $crate::__private::inventory::submit! { $entry }
    };
}

/// Registers a generated tool for `Toolbox::collect` when the `inventory` feature is on; nothing
/// otherwise.
#[cfg(not(feature = "inventory"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __tool_submit {
    ($entry:expr) => {};
}

pub use crate::__tool_submit as submit;

/// The static facts `#[tool]` knows about a tool.
#[derive(Debug)]
pub struct MacroTool {
    /// The tool's name.
    pub name: &'static str,
    /// The fn's doc attributes, joined by newlines, unprocessed.
    pub doc: &'static str,
    /// `#[tool(description = "..")]`.
    pub description: Option<&'static str>,
    /// `(rust name, argument name)` of each argument parameter.
    pub params: &'static [(&'static str, &'static str)],
    /// `#[tool(display = "..")]`.
    pub display: Option<&'static str>,
    /// `#[tool(tags = [..])]`.
    pub tags: &'static [&'static str],
    /// `#[tool(scopes = [..])]`.
    pub scopes: &'static [&'static str],
    /// `#[deprecated(since, note)]`.
    pub deprecated: Option<(Option<&'static str>, Option<&'static str>)>,
    /// Behaviour hints.
    pub annotations: ToolAnnotations,
    /// `#[tool(unknown_args = "..")]`.
    pub unknown_args: UnknownArgs,
    /// `#[tool(repair = ..)]`.
    pub repair: Option<bool>,
    /// `#[tool(coerce = ..)]`.
    pub coerce: Option<bool>,
    /// `#[tool(cut_off = "..")]`.
    pub cut_off: Option<crate::args::CutOff>,
    /// `#[tool(strict = ..)]`.
    pub strict: Option<bool>,
    /// `#[tool(concurrent = ..)]`.
    pub concurrent: Option<bool>,
    /// `#[tool(timeout = "..")]`, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// `#[tool(needs_approval)]`.
    pub needs_approval: bool,
    /// `#[tool(defer)]`.
    pub deferred: bool,
    /// `#[tool(task)]`.
    pub task: bool,
    /// The arguments struct's schema.
    pub parameters: fn() -> Value,
    /// The return type's schema, when it has one.
    pub output_schema: fn() -> Option<Value>,
    /// The definition, built on first use. Boxed: an empty `OnceLock` is not zeroed memory, so
    /// the static is bytes of the binary, a few of them rather than a whole definition's.
    pub definition: &'static OnceLock<Box<ToolDefinition>>,
}

impl MacroTool {
    /// The tool's definition, built on first use: shared code, compiled once for all tools.
    pub fn definition(&self) -> &ToolDefinition {
        self.definition.get_or_init(|| Box::new(definition(self)))
    }
}

/// What a sync tool's future gives if its `call_now` ever handed the arguments back, which it
/// does not: an error rather than a panic.
pub fn deferred_sync_body() -> Outcome {
    crate::tool::did_not_run()
}

fn definition(tool: &MacroTool) -> ToolDefinition {
    let output_schema = (tool.output_schema)();
    let parts = docs::split(tool.doc);
    let description = match tool.description {
        Some(text) => docs::tidy(text),
        None => parts.description,
    };
    let mut definition = ToolDefinition::from_canonical(
        tool.name.into(),
        description,
        // The generated arguments struct always has an object schema; the fallback is never taken.
        forms::canonical_parameters((tool.parameters)()).unwrap_or_else(
            |_| serde_json::json!({"type": "object", "properties": {}, "required": []}),
        ),
    );
    // `# Arguments` items name the Rust parameters; the schema knows the argument names.
    let argument_docs: Vec<(String, String)> = parts
        .arguments
        .into_iter()
        .filter_map(|(rust, text)| {
            let (_, wire) = tool.params.iter().find(|(r, _)| *r == rust)?;
            Some(((*wire).to_owned(), text))
        })
        .collect();
    definition.fill_parameter_docs(&argument_docs);
    definition.from_attribute = true;
    definition = definition
        .with_unknown_args(tool.unknown_args)
        .with_output_schema(output_schema.and_then(forms::output_schema))
        .with_tags(tool.tags.iter().copied())
        .with_scopes(tool.scopes.iter().copied())
        .with_annotations(tool.annotations);
    if let Some(on) = tool.repair {
        definition = definition.with_repair(on);
    }
    if let Some(on) = tool.coerce {
        definition = definition.with_coercion(on);
    }
    if let Some(rule) = tool.cut_off {
        definition = definition.with_cut_off(rule);
    }
    if let Some(on) = tool.strict {
        definition = definition.with_strict(on);
    }
    if let Some(on) = tool.concurrent {
        definition = definition.with_concurrent(on);
    }
    if let Some(ms) = tool.timeout_ms {
        definition = definition.with_timeout(std::time::Duration::from_millis(ms));
    }
    definition = definition
        .with_needs_approval(tool.needs_approval)
        .with_deferred(tool.deferred)
        .with_task(tool.task);
    if let Some(display) = tool.display {
        definition = definition.with_display_text(display);
    }
    if let Some((since, note)) = tool.deprecated {
        definition = definition.with_deprecated(Deprecation {
            since: since.map(str::to_owned),
            note: note.map(str::to_owned),
        });
    }
    definition
}

/// The default argument handling for a generated arguments struct, which enforces required and
/// unknown names itself, so the strict fast path is sound.
///
/// # Errors
/// As [`crate::args::parse`].
pub fn parse_generated<A: DeserializeOwned>(
    definition: &ToolDefinition,
    arguments: &Arguments,
    session: &mut ParseSession,
) -> Result<A, ArgumentError> {
    crate::args::parse_default(definition, arguments, session)
}

/// A tool's own parser: `fn(&Value) -> Result<Args, E>` or `fn(&Value, &C) -> Result<Args, E>`,
/// `E: Display` being the message for the model.
pub trait ParseFn<C: ?Sized, A, Marker> {
    /// Runs the parser.
    ///
    /// # Errors
    /// The parser's message.
    fn parse(&self, arguments: &Value, ctx: &C) -> Result<A, String>;
}

/// Marker of the one-argument parser form.
pub enum WithoutContext {}
/// Marker of the two-argument parser form.
pub enum WithContext {}

impl<C: ?Sized, A, E: Display, F: Fn(&Value) -> Result<A, E>> ParseFn<C, A, WithoutContext> for F {
    fn parse(&self, arguments: &Value, _ctx: &C) -> Result<A, String> {
        self(arguments).map_err(|e| e.to_string())
    }
}

impl<C: ?Sized, A, E: Display, F: Fn(&Value, &C) -> Result<A, E>> ParseFn<C, A, WithContext> for F {
    fn parse(&self, arguments: &Value, ctx: &C) -> Result<A, String> {
        self(arguments, ctx).map_err(|e| e.to_string())
    }
}

/// Runs a tool's own parser: only the arguments' JSON decoding (with repair, when the policy
/// allows) is done for it; every check is its own.
///
/// # Errors
/// Undecodable arguments, or the parser's message.
pub fn parse_custom<C: ?Sized, A, M, F: ParseFn<C, A, M>>(
    definition: &ToolDefinition,
    parser: &F,
    arguments: &Arguments,
    ctx: &C,
    session: &mut ParseSession,
) -> Result<A, ArgumentError> {
    let decoded;
    let value = match arguments {
        Arguments::Json(value) if !value.is_null() && !value.is_string() => value,
        _ => {
            let policy = definition.argument_policy(&session.policy);
            let map = crate::args::decode_arguments(arguments, &policy, &mut session.fixes)?;
            decoded = Value::Object(map.into_owned());
            &decoded
        }
    };
    parser.parse(value, ctx).map_err(ArgumentError::Rejected)
}

// Return types and parameter types are checked by the traits of `crate::bounds`, public so
// that a compiler error names them by a path a user can look up.
pub use crate::bounds::{
    BlockingContext, IsCallInfo, OutcomeKind, Probe, ResultKind, SerializeKind, ToolArg, ToolError,
    ToolReturn, ViaOutcome, ViaResult, ViaSerialize, assert_arg, call_info,
};

/// A type-level probe of a return type's output schema.
pub struct SchemaProbe<R: ?Sized>(PhantomData<fn() -> PhantomData<R>>);

impl<R: ?Sized> SchemaProbe<R> {
    /// The probe.
    pub const NEW: Self = SchemaProbe(PhantomData);
}

/// `Result<T: JsonSchema, E>`: the schema of `T`.
pub trait SchemaViaResult {
    /// The output schema.
    fn __tool_output_schema(&self) -> Option<Value>;
}
impl<T: JsonSchema, E> SchemaViaResult for &&SchemaProbe<Result<T, E>> {
    fn __tool_output_schema(&self) -> Option<Value> {
        Some(forms::schema_for::<T>())
    }
}

/// `T: JsonSchema`: its schema.
pub trait SchemaViaValue {
    /// The output schema.
    fn __tool_output_schema(&self) -> Option<Value>;
}
impl<T: JsonSchema> SchemaViaValue for &SchemaProbe<T> {
    fn __tool_output_schema(&self) -> Option<Value> {
        Some(forms::schema_for::<T>())
    }
}

/// Anything else: no output schema.
pub trait SchemaViaNone {
    /// The output schema.
    fn __tool_output_schema(&self) -> Option<Value> {
        None
    }
}
impl<T> SchemaViaNone for SchemaProbe<T> {}

/// A type-level probe of a tool's arguments struct, whose fields' types the derives see as type
/// parameters: its parser and schema when every field's type is an argument type, and stand-ins
/// otherwise. The stand-ins never run: a field type that is not an argument type fails the
/// build at its own span (`assert_arg`), once, and nothing else fails with it.
pub struct ArgsProbe<A>(PhantomData<fn() -> A>);

impl<A> ArgsProbe<A> {
    /// The probe.
    pub const NEW: Self = ArgsProbe(PhantomData);
}

/// Level 1 of the arguments probe: serde and schemars.
pub trait ArgsViaSerde<A> {
    /// Parses the arguments.
    ///
    /// # Errors
    /// What is wrong with them.
    fn __tool_parse(
        &self,
        definition: &ToolDefinition,
        arguments: &Arguments,
        session: &mut ParseSession,
    ) -> Result<A, ArgumentError>;

    /// The parameters schema.
    fn __tool_schema(&self) -> Value;
}
impl<A: DeserializeOwned + JsonSchema> ArgsViaSerde<A> for &ArgsProbe<A> {
    #[inline]
    fn __tool_parse(
        &self,
        definition: &ToolDefinition,
        arguments: &Arguments,
        session: &mut ParseSession,
    ) -> Result<A, ArgumentError> {
        parse_generated::<A>(definition, arguments, session)
    }

    fn __tool_schema(&self) -> Value {
        forms::arguments_schema(A::json_schema)
    }
}

/// Level 2 of the arguments probe: a build that already failed (never runs).
pub trait ArgsUnchecked<A> {
    /// Refuses the arguments.
    ///
    /// # Errors
    /// Always.
    fn __tool_parse(
        &self,
        definition: &ToolDefinition,
        arguments: &Arguments,
        session: &mut ParseSession,
    ) -> Result<A, ArgumentError> {
        let _ = (definition, arguments, session);
        Err(ArgumentError::Rejected(
            "the tool's arguments type has no parser".into(),
        ))
    }

    /// No schema.
    fn __tool_schema(&self) -> Value {
        Value::Null
    }
}
impl<A> ArgsUnchecked<A> for ArgsProbe<A> {}

pub use crate::tool::ContextOf;

pub use crate::task::run_blocking;

pub use std::any::Any;
pub use std::boxed::Box;

pub use crate::toolset::{Member, Toolset};

/// A toolset tool's definition as its set has it (another name, more scopes), or `None` to use
/// the static one.
#[inline(never)]
pub fn renamed(definition: &ToolDefinition, member: Member) -> Option<Box<ToolDefinition>> {
    member.definition(definition)
}
pub use std::sync::{Arc, OnceLock};
