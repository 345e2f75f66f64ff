//! The registry of tools, and dispatch of the calls a model makes.

mod settings;

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::{Duration, Instant};

use serde_json::Value;

use tracing::Instrument;

use crate::args::{ArgumentError, ArgumentPolicy, Fixes, ParseSession};
use crate::call::{CallKind, CallStatus, ToolCall};
use crate::definition::{Downgrade, ProviderTools, StrictFallback, ToolFormat};
use crate::echo;
use crate::exec::CallScope;
use crate::exec::{BoxFuture, CatchUnwind, MaybeReady, Signals, block_on};
use crate::forms::{Dialect, Lint, LintReport, Rule, Severity};
use crate::hook::Hook;
use crate::names::{self, close_matches};
use crate::result::{ResultDetail, ToolResult, panic_message};
use crate::tool::{DynTool, Tool, ToolDefinition};

/// Why a tool could not be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RegisterError {
    /// Another tool already has this name.
    #[error("a tool named `{0}` is already registered")]
    DuplicateName(String),
    /// The toolbox requires tools to be valid for some providers
    /// ([`Toolbox::require_valid_for`]), and this one is not.
    #[error("the tool is not valid for a required provider:\n{0}")]
    Lint(LintReport),
    /// A setting names a tool that is not registered.
    #[error("no tool named `{0}` is registered")]
    UnknownTool(String),
    /// Tools registered together ([`Toolbox::register_all`]) could not be: every reason, in
    /// the order of the tools (none of them was registered).
    #[error("{} of the tools could not be registered: {}", .0.len(), list(.0))]
    Several(Vec<RegisterError>),
}

fn list(errors: &[RegisterError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Several tools to register at once ([`Toolbox::register_all`], [`Toolbox::with_all`]): a
/// tuple of tools (`(add {}, search {})`, up to 16), or an array or `Vec` of erased tools
/// ([`erase`](crate::tool::erase)).
pub trait IntoTools<C: ?Sized> {
    /// The tools, erased, in order.
    fn into_tools(self) -> Vec<Arc<dyn DynTool<C>>>;
}

impl<C: ?Sized> IntoTools<C> for Vec<Arc<dyn DynTool<C>>> {
    fn into_tools(self) -> Vec<Arc<dyn DynTool<C>>> {
        self
    }
}

impl<C: ?Sized, const N: usize> IntoTools<C> for [Arc<dyn DynTool<C>>; N] {
    fn into_tools(self) -> Vec<Arc<dyn DynTool<C>>> {
        self.into()
    }
}

macro_rules! tuples {
    ($($name:ident)+) => {
        impl<C: ?Sized + Sync + 'static, $($name: Tool<C>),+> IntoTools<C> for ($($name,)+) {
            #[allow(non_snake_case)]
            fn into_tools(self) -> Vec<Arc<dyn DynTool<C>>> {
                let ($($name,)+) = self;
                vec![$(crate::tool::erase($name)),+]
            }
        }
    };
}

tuples!(A);
tuples!(A B);
tuples!(A B D);
tuples!(A B D E);
tuples!(A B D E F);
tuples!(A B D E F G);
tuples!(A B D E F G H);
tuples!(A B D E F G H I);
tuples!(A B D E F G H I J);
tuples!(A B D E F G H I J K);
tuples!(A B D E F G H I J K L);
tuples!(A B D E F G H I J K L M);
tuples!(A B D E F G H I J K L M N);
tuples!(A B D E F G H I J K L M N O);
tuples!(A B D E F G H I J K L M N O P);
tuples!(A B D E F G H I J K L M N O P Q);

/// A set of tools for one application context type `C`, and the dispatcher of calls to them.
///
/// Tools that take no context work in a toolbox of any context type; tools that take `&C` only in
/// a `Toolbox<C>`.
///
/// ```
/// use serde_json::{Map, Value, json};
/// use toolwright::{DynamicTool, FunctionParam, ParamType, ToolCall, ToolDefinition, Toolbox};
///
/// let def = ToolDefinition::from_params("add", "Add two integers.", &[
///     FunctionParam::new("a", ParamType::Integer).required(),
///     FunctionParam::new("b", ParamType::Integer).required(),
/// ]);
/// let add = DynamicTool::new(def, |args: Map<String, Value>, _: &()| {
///     json!(args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0))
/// });
/// let tools = Toolbox::new().with(add).unwrap();
/// let result = tools.execute_blocking(&ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#), &());
/// assert_eq!(result.text(), "5");
/// assert!(!result.is_error);
/// ```
///
/// With the `toolwright` facade, `#[tool]` fns register the same way: `Toolbox::new().with(add {})`.
// Its bools are independent settings, each with its own builder; no state machine hides in them.
#[allow(clippy::struct_excessive_bools)]
pub struct Toolbox<C: ?Sized = ()> {
    pub(crate) tools: Vec<Arc<dyn DynTool<C>>>,
    /// `(name, index into tools)`, sorted by name: a binary search beats hashing for toolbox sizes.
    by_name: Vec<(Box<str>, usize)>,
    expose_panic_messages: bool,
    pub(crate) policy: ArgumentPolicy,
    strict: bool,
    strict_fallback: StrictFallback,
    required: Vec<Dialect>,
    /// Whether some tool's name breaks some provider's name rules, so is sent under a stand-in
    /// ([`Dialect::wire_name`]) that calls must be mapped back from.
    mapped_names: bool,
    /// How many calls of a batch may run at once, and whether any may.
    pub(crate) concurrency: usize,
    pub(crate) parallel: bool,
    /// The timeout of calls whose tool sets none.
    pub(crate) timeout: Option<Duration>,
    pub(crate) hooks: Vec<Arc<dyn Hook<C>>>,
    /// `(tool index, rule)`: calls of the tool for which the rule says yes need approval.
    pub(crate) approval_rules: Vec<(usize, Arc<ApprovalRule<C>>)>,
    /// Invalid calls of one tool in a row that end the model's retries (0: no limit).
    pub(crate) retry_budget: u32,
    /// Per tool (by index): invalid calls in a row, and whether its calls take the whole
    /// pipeline.
    pub(crate) states: Vec<ToolState>,
    /// Whether every call takes the whole pipeline (a hook or a toolbox timeout is set).
    pub(crate) gated: bool,
    /// Whether call spans record the arguments.
    pub(crate) log_arguments: bool,
}

/// What a toolbox keeps per tool.
pub(crate) struct ToolState {
    /// Invalid calls in a row.
    pub(crate) failures: AtomicU32,
    /// Whether the tool's calls take the whole pipeline (approval, a timeout).
    pub(crate) gated: bool,
}

/// A predicate that decides whether a call needs approval: over the call's arguments as JSON (as
/// the tool will get them: repaired and coerced), its typed arguments, and the context.
pub(crate) type ApprovalRule<C> = dyn Fn(&Value, &(dyn Any + Send), &C) -> bool + Send + Sync;

/// Batches run up to this many calls at once unless told otherwise.
pub const DEFAULT_CONCURRENCY: usize = 16;

/// Invalid calls of one tool in a row that end the model's retries, unless told otherwise.
pub const DEFAULT_RETRY_BUDGET: u32 = 3;

impl<C: ?Sized> Clone for Toolbox<C> {
    /// The same tools and settings; the copy counts invalid calls afresh (one toolbox per
    /// conversation keeps retry budgets apart).
    fn clone(&self) -> Self {
        Toolbox {
            tools: self.tools.clone(),
            by_name: self.by_name.clone(),
            expose_panic_messages: self.expose_panic_messages,
            policy: self.policy,
            strict: self.strict,
            strict_fallback: self.strict_fallback,
            required: self.required.clone(),
            mapped_names: self.mapped_names,
            concurrency: self.concurrency,
            parallel: self.parallel,
            timeout: self.timeout,
            hooks: self.hooks.clone(),
            approval_rules: self.approval_rules.clone(),
            retry_budget: self.retry_budget,
            states: self
                .states
                .iter()
                .map(|state| ToolState {
                    failures: AtomicU32::new(0),
                    gated: state.gated,
                })
                .collect(),
            gated: self.gated,
            log_arguments: self.log_arguments,
        }
    }
}

impl<C: ?Sized> Default for Toolbox<C> {
    fn default() -> Self {
        Toolbox {
            tools: Vec::new(),
            by_name: Vec::new(),
            expose_panic_messages: false,
            policy: ArgumentPolicy::default(),
            strict: false,
            strict_fallback: StrictFallback::Error,
            required: Vec::new(),
            mapped_names: false,
            concurrency: DEFAULT_CONCURRENCY,
            parallel: true,
            timeout: None,
            hooks: Vec::new(),
            approval_rules: Vec::new(),
            retry_budget: DEFAULT_RETRY_BUDGET,
            states: Vec::new(),
            gated: false,
            log_arguments: false,
        }
    }
}

impl<C: ?Sized> fmt::Debug for Toolbox<C> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|t| t.definition().name())
                    .collect::<Vec<_>>(),
            )
            .field("expose_panic_messages", &self.expose_panic_messages)
            .field("policy", &self.policy)
            .field("concurrency", &self.concurrency)
            .field("parallel", &self.parallel)
            .field("timeout", &self.timeout)
            .field("hooks", &self.hooks.len())
            .field("retry_budget", &self.retry_budget)
            .finish_non_exhaustive()
    }
}

/// Typed arguments parsed ahead of execution, by [`Toolbox::parse_arguments`].
pub struct ParsedArguments {
    args: Box<dyn Any + Send>,
    fixes: Fixes,
}

impl fmt::Debug for ParsedArguments {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParsedArguments").finish_non_exhaustive()
    }
}

impl ParsedArguments {
    /// The repairs and coercions the arguments needed.
    pub fn fixes(&self) -> &Fixes {
        &self.fixes
    }

    /// The arguments, if they are the tool's `Args` type `T`.
    pub fn downcast_ref<T: Any>(&self) -> Option<&T> {
        self.args.downcast_ref()
    }

    /// The arguments by value, if they are a `T`; otherwise `self` back.
    ///
    /// # Errors
    /// `self`, when the arguments are not a `T`.
    pub fn downcast<T: Any>(self) -> Result<T, Self> {
        match self.args.downcast::<T>() {
            Ok(args) => Ok(*args),
            Err(args) => Err(ParsedArguments {
                args,
                fixes: self.fixes,
            }),
        }
    }
}

/// A plain call of a known tool (no hook, approval or timeout in play): the body of
/// [`Toolbox::execute`], [`Toolbox::execute_blocking`] and a batch's plain calls, which differ in
/// the call's cancellation signal (`$scope`), what they return (`$done`, given the result) and how
/// they wait for an async tool (`$pending`, given the `Running` call). Everything up to the first
/// wait runs in plain code: argument handling, and the whole body of a sync tool. A macro rather
/// than a shared fn: the result is then written straight into the caller's return value, which
/// measurably matters on this path (see BENCHMARKS.md).
macro_rules! plain_call {
    ($toolbox:ident, $index:ident, $tool:ident, $call:ident, $ctx:ident, $scope:expr,
     |$result:ident| $done:expr, |$running:ident| $pending:expr) => {{
        let span = $toolbox.call_span($call);
        // Timing and instrumenting cost more than a whole call; pay for them only when observed.
        let started = (!span.is_disabled()).then(Instant::now);
        let entered = started.map(|_| span.enter());
        // The closure writes its result in place: what `catch_unwind` returns is then small, and
        // the result is not copied through the unwind guard.
        let mut run = None;
        let caught = catch_unwind(AssertUnwindSafe(|| {
            run = Some($tool.run_dyn(&$call.arguments, $ctx, $scope, &$toolbox.policy));
        }));
        drop(entered);
        if let Err(payload) = caught {
            let $result = $toolbox.panic_result($call, $tool.definition(), payload);
            record(&span, started, &$result);
            return $done;
        }
        // Matched in place and returned from here: every move of the 128-byte result costs
        // (see BENCHMARKS.md), so it goes from where `run_dyn` wrote it straight to the caller.
        // Counted and recorded where it lies: binding it by value would copy it once more.
        if let Some(MaybeReady::Ready(result)) = &mut run {
            $toolbox.account($index, result);
            record(&span, started, result);
        }
        match run {
            Some(MaybeReady::Ready($result)) => return $done,
            Some(MaybeReady::Pending(future)) => {
                let $running = Running {
                    index: $index,
                    tool: $tool,
                    call: $call,
                    future: CatchUnwind::new(future),
                    span: span.clone(),
                    started,
                };
                return $pending;
            }
            None => unreachable!("the closure completed, so it stored its result"),
        }
    }};
}

/// [`Toolbox::execute`] and [`Toolbox::execute_blocking`]: the lookup, then the plain path, or
/// the whole pipeline (`$gated`, given the tool and its index) when a hook, approval or timeout is
/// in play.
macro_rules! run_call {
    ($toolbox:ident, $call:ident, $ctx:ident, |$running:ident| $pending:expr, |$index:ident, $tool:ident| $gated:expr) => {{
        let (index, tool) = match $toolbox.lookup($call) {
            Ok(found) => found,
            Err(result) => return result,
        };
        if !$toolbox.is_plain(index) {
            let ($index, $tool) = (index, tool);
            return $gated;
        }
        plain_call!(
            $toolbox,
            index,
            tool,
            $call,
            $ctx,
            CallScope::new($call),
            |result| result,
            |$running| $pending
        )
    }};
}

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// An empty toolbox.
    pub fn new() -> Self {
        Toolbox::default()
    }

    /// Registers a tool.
    ///
    /// # Errors
    /// When a tool of the same name is already registered.
    pub fn register<T: Tool<C>>(&mut self, tool: T) -> Result<&mut Self, RegisterError> {
        self.register_dyn(crate::tool::erase(tool))
    }

    /// Registers an already erased tool.
    ///
    /// # Errors
    /// When a tool of the same name is already registered.
    pub fn register_dyn(&mut self, tool: Arc<dyn DynTool<C>>) -> Result<&mut Self, RegisterError> {
        let definition = tool.definition();
        let report: LintReport = self
            .required
            .iter()
            .flat_map(|dialect| {
                definition
                    .lint(*dialect)
                    .into_iter()
                    .chain(self.name_clash(definition.name(), *dialect))
            })
            .filter(|lint| lint.severity == Severity::Error)
            .collect();
        if !report.is_clean() {
            return Err(RegisterError::Lint(report));
        }
        let name = definition.name().to_owned();
        self.mapped_names |= Dialect::ALL.iter().any(|d| d.check_name(&name).is_err());
        match self
            .by_name
            .binary_search_by(|(n, _)| (**n).cmp(name.as_str()))
        {
            Ok(_) => return Err(RegisterError::DuplicateName(name)),
            Err(at) => self
                .by_name
                .insert(at, (name.into_boxed_str(), self.tools.len())),
        }
        self.states.push(ToolState {
            failures: AtomicU32::new(0),
            gated: tool.definition().needs_approval() || tool.definition().timeout().is_some(),
        });
        self.tools.push(tool);
        Ok(self)
    }

    /// Registers several tools at once: all of them, or none. Every reason one could not be
    /// registered (a name taken, by the toolbox or by another of them; a required provider's
    /// rules) is reported together, in the tools' order.
    ///
    /// ```
    /// use toolwright::{RegisterError, Toolbox, erase};
    /// # use toolwright::{DynamicTool, ToolDefinition};
    /// # use serde_json::{Map, Value, json};
    /// # let tool = |name: &'static str| erase::<(), _>(DynamicTool::new(
    /// #     ToolDefinition::new(name, "A tool.", json!({"type": "object"})).unwrap(),
    /// #     |args: Map<String, Value>, _: &()| Value::Object(args),
    /// # ));
    /// let mut tools = Toolbox::<()>::new();
    /// tools.register_all([tool("a"), tool("b")]).unwrap();
    /// let refused = tools.register_all([tool("c"), tool("a"), tool("b")]).unwrap_err();
    /// assert_eq!(
    ///     refused,
    ///     RegisterError::Several(vec![
    ///         RegisterError::DuplicateName("a".into()),
    ///         RegisterError::DuplicateName("b".into()),
    ///     ])
    /// );
    /// assert_eq!(tools.len(), 2); // `c` was not registered either
    /// ```
    ///
    /// # Errors
    /// [`RegisterError::Several`], with every reason.
    pub fn register_all(&mut self, tools: impl IntoTools<C>) -> Result<&mut Self, RegisterError> {
        let mapped_names = self.mapped_names;
        let before = self.tools.len();
        let mut errors = Vec::new();
        for tool in tools.into_tools() {
            if let Err(error) = self.register_dyn(tool) {
                errors.push(error);
            }
        }
        if errors.is_empty() {
            return Ok(self);
        }
        // None of them, then: the ones that were registered go again.
        while self.tools.len() > before {
            if let Some(tool) = self.tools.pop() {
                self.states.pop();
                let name = tool.definition().name();
                if let Ok(at) = self.by_name.binary_search_by(|(n, _)| (**n).cmp(name)) {
                    self.by_name.remove(at);
                }
            }
        }
        self.mapped_names = mapped_names;
        Err(RegisterError::Several(errors))
    }

    /// [`register_all`](Self::register_all), builder style: `Toolbox::new().with_all((add {},
    /// search {}))?`.
    ///
    /// # Errors
    /// As [`register_all`](Self::register_all).
    pub fn with_all(mut self, tools: impl IntoTools<C>) -> Result<Self, RegisterError> {
        self.register_all(tools)?;
        Ok(self)
    }

    /// Removes the tool named `name` and gives it back: calls of it are then calls of an unknown
    /// tool, and its approval rules go with it.
    ///
    /// ```
    /// use toolwright::{Toolbox, tool};
    ///
    /// /// Say hello.
    /// #[tool]
    /// fn hello() -> &'static str {
    ///     "hello"
    /// }
    ///
    /// let mut tools = Toolbox::<()>::new().with(hello {}).unwrap();
    /// assert!(tools.remove("hello").is_some());
    /// assert!(tools.is_empty() && tools.remove("hello").is_none());
    /// ```
    pub fn remove(&mut self, name: &str) -> Option<Arc<dyn DynTool<C>>> {
        let at = self
            .by_name
            .binary_search_by(|(n, _)| (**n).cmp(name))
            .ok()?;
        let (_, index) = self.by_name.remove(at);
        for (_, i) in &mut self.by_name {
            if *i > index {
                *i -= 1;
            }
        }
        self.approval_rules.retain(|(i, _)| *i != index);
        for (i, _) in &mut self.approval_rules {
            if *i > index {
                *i -= 1;
            }
        }
        self.states.remove(index);
        Some(self.tools.remove(index))
    }

    /// Registers a tool, builder style.
    ///
    /// # Errors
    /// When a tool of the same name is already registered.
    pub fn with<T: Tool<C>>(self, tool: T) -> Result<Self, RegisterError> {
        self.with_dyn(crate::tool::erase(tool))
    }

    /// Registers an already erased tool, builder style.
    ///
    /// # Errors
    /// When a tool of the same name is already registered.
    pub fn with_dyn(mut self, tool: Arc<dyn DynTool<C>>) -> Result<Self, RegisterError> {
        self.register_dyn(tool)?;
        Ok(self)
    }

    /// Sends the panic message of a panicking tool to the model. Off by default: a panic message can
    /// carry secrets. The application always gets the payload.
    #[must_use]
    pub fn expose_panic_messages(mut self, expose: bool) -> Self {
        self.expose_panic_messages = expose;
        self
    }

    /// Sets how arguments are handled for every tool: JSON repair, coercion, unknown
    /// arguments, limits. Each tool can override repair and coercion for itself.
    #[must_use]
    pub fn with_argument_policy(mut self, policy: ArgumentPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// How arguments are handled.
    pub fn argument_policy(&self) -> &ArgumentPolicy {
        &self.policy
    }

    /// Sends tools in strict mode where a provider has one (OpenAI, Anthropic), unless a tool
    /// says otherwise itself (`#[tool(strict = false)]`). Off by default.
    #[must_use]
    pub fn with_strict(mut self, on: bool) -> Self {
        self.strict = on;
        self
    }

    /// What [`tools_for`](Self::tools_for) does with a tool whose strict form is impossible:
    /// fail (the default), or send it without strict mode and record why.
    #[must_use]
    pub fn with_strict_fallback(mut self, fallback: StrictFallback) -> Self {
        self.strict_fallback = fallback;
        self
    }

    /// Refuses to register tools that have lint errors for any of these dialects (tools already
    /// registered are not checked again).
    #[must_use]
    pub fn require_valid_for(mut self, dialects: impl IntoIterator<Item = Dialect>) -> Self {
        self.required.extend(dialects);
        self
    }

    /// Every lint of every tool for these dialects, in registration order.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::{Dialect, DynamicTool, ToolDefinition, Toolbox};
    ///
    /// let def = ToolDefinition::new("tally", "Count words.", json!({
    ///     "type": "object",
    ///     "properties": {"counts": {"type": "object", "additionalProperties": {"type": "integer"}}},
    /// }))
    /// .unwrap();
    /// let tools = Toolbox::new().with(DynamicTool::new(def, |_, _: &()| json!(0))).unwrap();
    /// let report = tools.lint([Dialect::OpenAiStrict, Dialect::Gemini]);
    /// let errors: Vec<_> = report.errors().collect();
    /// assert_eq!(errors.len(), 1);
    /// assert_eq!(errors[0].path, "/properties/counts");
    /// assert_eq!(errors[0].dialect, Dialect::OpenAiStrict);
    /// ```
    pub fn lint(&self, dialects: impl IntoIterator<Item = Dialect>) -> LintReport {
        let dialects: Vec<Dialect> = dialects.into_iter().collect();
        let mut report: LintReport = self
            .definitions()
            .flat_map(|def| dialects.iter().flat_map(|d| def.lint(*d)))
            .collect();
        for dialect in dialects {
            report.extend(self.name_clashes(dialect));
        }
        report
    }

    /// Lint errors for tools sent to `dialect`'s provider under the same name (one of them under
    /// a stand-in, [`Dialect::wire_name`]): a call to that name could not be told apart.
    fn name_clashes(&self, dialect: Dialect) -> Vec<Lint> {
        if !self.mapped_names {
            return Vec::new();
        }
        let mut clashes = Vec::new();
        for (at, def) in self.definitions().enumerate() {
            let wire = dialect.wire_name(def.name());
            if let Some(other) = self
                .definitions()
                .take(at)
                .find(|other| dialect.wire_name(other.name()) == wire)
            {
                clashes.push(clash_lint(def.name(), other.name(), &wire, dialect));
            }
        }
        clashes
    }

    /// The lint for a tool about to be registered whose name would clash with a registered one.
    fn name_clash(&self, name: &str, dialect: Dialect) -> Option<Lint> {
        let wire = dialect.wire_name(name);
        self.definitions()
            .find(|other| dialect.wire_name(other.name()) == wire)
            .map(|other| clash_lint(name, other.name(), &wire, dialect))
    }

    /// The stand-in names ([`Dialect::wire_name`]) this toolbox's tools are sent under to
    /// `dialect`'s provider, each with the tool's own name: empty unless some name breaks some
    /// provider's rules. A stand-in that is also a tool's very name is left out (that tool
    /// answers to it; the two clash, a lint error).
    pub(crate) fn stand_ins(&self, dialect: Dialect) -> Vec<(String, String)> {
        if !self.mapped_names {
            return Vec::new();
        }
        self.definitions()
            .filter_map(|def| match dialect.wire_name(def.name()) {
                Cow::Owned(wire) if self.get(&wire).is_none() => {
                    Some((wire, def.name().to_owned()))
                }
                _ => None,
            })
            .collect()
    }

    /// The tool list for one provider's request, strict where the toolbox or a tool asks for it.
    /// Each tool's entry is built once and kept in its definition, so this is a lookup after the
    /// first call.
    ///
    /// # Errors
    /// Every lint error of the forms to be sent (a name the provider refuses, a recursive type
    /// for Gemini's `parameters`, a strict form that is impossible under
    /// [`StrictFallback::Error`]...).
    ///
    /// ```
    /// use toolwright::{ToolFormat, Toolbox};
    ///
    /// let tools: Toolbox = Toolbox::new().with_strict(true);
    /// let list = tools.tools_for(ToolFormat::OpenAiChat).unwrap();
    /// assert_eq!(list.to_value(), serde_json::json!([]));
    /// ```
    pub fn tools_for(&self, format: ToolFormat) -> Result<ProviderTools<'_>, LintReport> {
        let mut entries = Vec::with_capacity(self.tools.len());
        let mut downgraded = Vec::new();
        let mut errors = LintReport::new();
        let mut reports = Vec::with_capacity(self.tools.len());
        for def in self.definitions() {
            let strict = format.has_strict() && def.strict().unwrap_or(self.strict);
            let mut form = def.provider_form(format, strict);
            if strict
                && !form.report.is_clean()
                && self.strict_fallback == StrictFallback::NonStrict
            {
                let reasons: LintReport = form.report.errors().cloned().collect();
                tracing::warn!(tool = %def.name(), "sent without strict mode:\n{reasons}");
                downgraded.push(Downgrade {
                    tool: def.name().to_owned(),
                    reasons,
                });
                form = def.provider_form(format, false);
            }
            if form.report.is_clean() {
                reports.push(&form.report);
            } else {
                errors.extend(form.report.errors().cloned());
            }
            entries.push(&form.entry);
        }
        errors.extend(self.name_clashes(format.dialect(false)));
        if errors.is_clean() {
            Ok(ProviderTools {
                format,
                entries,
                downgraded,
                reports,
            })
        } else {
            Err(errors)
        }
    }

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn DynTool<C>>> {
        self.index_of(name).map(|index| &self.tools[index])
    }

    /// The tools, in registration order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Arc<dyn DynTool<C>>> {
        self.tools.iter()
    }

    /// The tools' definitions, in registration order.
    pub fn definitions(&self) -> impl ExactSizeIterator<Item = &ToolDefinition> {
        self.tools.iter().map(|tool| tool.definition())
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Runs exactly the argument handling that [`execute`](Self::execute) would, without running
    /// the tool: for approval flows. Parsers have no side effects, so this may run any number of
    /// times.
    ///
    /// # Errors
    /// The error result that execution would have produced (unknown tool, bad arguments, a panic in
    /// the parser).
    // The error is the very result execution would return; boxing it would only cost the caller.
    #[allow(clippy::result_large_err)]
    pub fn parse_arguments(&self, call: &ToolCall, ctx: &C) -> Result<ParsedArguments, ToolResult> {
        let (_, tool) = self.lookup(call)?;
        let mut session = ParseSession::new(self.policy);
        match catch_unwind(AssertUnwindSafe(|| {
            tool.parse_dyn(&call.arguments, ctx, &mut session)
        })) {
            Ok(Ok(args)) => Ok(ParsedArguments {
                args,
                fixes: session.fixes,
            }),
            Ok(Err(error)) => {
                let mut result =
                    ToolResult::invalid_arguments(call, tool.definition().name_cow(), error);
                result.set_fixes(session.fixes);
                Err(result)
            }
            Err(payload) => Err(self.panic_result(call, tool.definition(), payload)),
        }
    }

    /// Runs one call and returns its result. Never fails and never panics: an unknown tool, bad
    /// arguments, a tool error and a panic all become error results, and the toolbox keeps working.
    ///
    /// Hooks, approval, the retry budget and timeouts apply as in a batch
    /// ([`execute_all`](Self::execute_all)); a call that needs approval returns an interrupt.
    pub async fn execute(&self, call: &ToolCall, ctx: &C) -> ToolResult {
        run_call!(
            self,
            call,
            ctx,
            |running| running.finish(self).await,
            |index, tool| {
                self.run_gated(index, tool, call, ctx, Signals::none(), false)
                    .await
            }
        )
    }

    /// [`execute`](Self::execute) for sync callers: runs the call on this thread. Sync tools run
    /// at once; an async tool is driven by a minimal executor, so a tool that needs a particular
    /// runtime (tokio's timers or I/O, say) must be run with `execute` inside that runtime: here
    /// it would fail, and the failure becomes an error result.
    pub fn execute_blocking(&self, call: &ToolCall, ctx: &C) -> ToolResult {
        run_call!(
            self,
            call,
            ctx,
            |running| block_on(running.finish(self)),
            |index, tool| block_on(self.run_gated(index, tool, call, ctx, Signals::none(), false))
        )
    }

    /// Starts a plain call of a batch ([`is_plain`](Self::is_plain)): a sync body runs to its end
    /// here, an async one comes back as the future to poll.
    pub(crate) fn start_plain<'a>(
        &'a self,
        index: usize,
        tool: &'a Arc<dyn DynTool<C>>,
        call: &'a ToolCall,
        ctx: &'a C,
        signals: Signals<'_>,
    ) -> MaybeReady<'a, ToolResult> {
        plain_call!(
            self,
            index,
            tool,
            call,
            ctx,
            CallScope::new(call)
                .with_cancellation(signals.cancellation.clone())
                .with_progress_opt(signals.progress),
            |result| MaybeReady::Ready(result),
            |running| MaybeReady::Pending(Box::pin(running.finish(self)))
        )
    }

    /// The tool a call names, with its index; or the unknown-tool result.
    #[allow(clippy::result_large_err)]
    pub(crate) fn lookup(
        &self,
        call: &ToolCall,
    ) -> Result<(usize, &Arc<dyn DynTool<C>>), ToolResult> {
        if call.kind != CallKind::Function {
            return Err(not_local(call));
        }
        match self.index_of(&call.name) {
            Some(index) => {
                let tool = &self.tools[index];
                if call.status == CallStatus::Incomplete
                    && !tool.definition().runs_cut_off(&self.policy)
                {
                    return Err(ToolResult::invalid_arguments(
                        call,
                        tool.definition().name_cow(),
                        ArgumentError::IncompleteCall,
                    ));
                }
                Ok((index, tool))
            }
            None => Err(self.unknown_tool(call)),
        }
    }

    /// The index of the tool with this name.
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        let at = self
            .by_name
            .binary_search_by(|(n, _)| (**n).cmp(name))
            .ok()?;
        Some(self.by_name[at].1)
    }

    fn unknown_tool(&self, call: &ToolCall) -> ToolResult {
        let names: Vec<&str> = self.definitions().map(ToolDefinition::name).collect();
        let suggestions = close_matches(&call.name, names.iter().copied());
        let mut message = format!("unknown tool {}", echo::Name(&call.name));
        if !suggestions.is_empty() {
            message.push_str(&format!(
                " (did you mean {}?)",
                names::list(&suggestions, "or")
            ));
        }
        let all: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        if all.is_empty() {
            message.push_str(". No tools are available.");
        } else {
            message.push_str(&format!(". Available tools: {}.", names::list(&all, "and")));
        }
        ToolResult::error(
            &call.call_id,
            Cow::Owned(call.name.clone()),
            message,
            ResultDetail::UnknownTool {
                suggestions: suggestions.into_boxed_slice(),
            },
        )
    }

    pub(crate) fn panic_result(
        &self,
        call: &ToolCall,
        tool: &ToolDefinition,
        payload: Box<dyn Any + Send>,
    ) -> ToolResult {
        let mut message = format!("tool `{}` failed unexpectedly", tool.name());
        // A tool that awaited tokio's timer or I/O where no tokio runtime runs: the cause is the
        // application's setup, and the panic says so in tokio's words only.
        let payload = match panic_message(payload.as_ref()) {
            Some(text) if text.contains("Tokio 1.x") => {
                message.push_str(" (it needs a tokio runtime, which is not running)");
                Box::new(format!(
                    "{text}\n(toolwright: the tool awaited tokio's timer or I/O outside a tokio runtime: run the toolbox's calls inside one, e.g. under #[tokio::main], rather than through `execute_blocking` or another executor; for timeouts and `toolwright::sleep` alone no runtime is needed, and the `tokio` feature puts them on tokio's timer when one runs: see the README's Features section)"
                ))
            }
            _ => payload,
        };
        match panic_message(payload.as_ref()) {
            Some(text) if self.expose_panic_messages => message.push_str(&format!(": {text}")),
            _ => message.push_str("; this is not a problem with the arguments"),
        }
        ToolResult::error(
            &call.call_id,
            tool.name_cow(),
            message,
            ResultDetail::Panic(payload),
        )
    }
}

fn clash_lint(name: &str, other: &str, wire: &str, dialect: Dialect) -> Lint {
    Lint {
        tool: name.to_owned(),
        dialect,
        path: String::new(),
        rule: Rule::Name,
        severity: Severity::Error,
        message: format!(
            "sent as `{wire}`, like the tool `{other}`: calls to the two could not be told apart"
        ),
        fix: "rename one of the tools (`#[tool(name = \"..\")]`)".to_owned(),
    }
}

/// A call whose async body is still to be awaited.
struct Running<'a, C: ?Sized> {
    index: usize,
    tool: &'a Arc<dyn DynTool<C>>,
    call: &'a ToolCall,
    future: CatchUnwind<BoxFuture<'a, ToolResult>>,
    span: tracing::Span,
    started: Option<Instant>,
}

impl<C: ?Sized + Sync + 'static> Running<'_, C> {
    async fn finish(self, toolbox: &Toolbox<C>) -> ToolResult {
        let caught = match self.started {
            Some(_) => self.future.instrument(self.span.clone()).await,
            None => self.future.await,
        };
        let mut result = caught.unwrap_or_else(|payload| {
            toolbox.panic_result(self.call, self.tool.definition(), payload)
        });
        toolbox.account(self.index, &mut result);
        record(&self.span, self.started, &result);
        result
    }
}

/// Records a call's outcome, duration, and the repairs and coercions its arguments needed on
/// its span, when the span is observed.
#[inline(always)]
pub(crate) fn record(span: &tracing::Span, started: Option<Instant>, result: &ToolResult) {
    if let Some(started) = started {
        span.record("outcome", outcome_name(result));
        span.record(
            "duration_us",
            u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        );
        let (repairs, coercions) = result
            .fixes()
            .map_or((0, 0), |fixes| (fixes.repairs.len(), fixes.coercions.len()));
        span.record("repairs", repairs);
        span.record("coercions", coercions);
    }
}

/// The result of running a call that is not the toolbox's to run.
#[cold]
fn not_local(call: &ToolCall) -> ToolResult {
    let message = match call.kind {
        CallKind::Server => format!(
            "call {} ({}) is run by the provider itself, which sends its result; it is not run here",
            echo::Name(&call.call_id),
            echo::bare(&call.name)
        ),
        _ => format!(
            "call {} ({}) is a provider's built-in tool that the application carries out itself and answers with the provider's own result item; no tool of the toolbox runs it",
            echo::Name(&call.call_id),
            echo::bare(&call.name)
        ),
    };
    ToolResult::error(
        &call.call_id,
        Cow::Owned(call.name.clone()),
        message,
        ResultDetail::NotLocal { kind: call.kind },
    )
}

/// The outcome of a call, as a span records it.
pub(crate) fn outcome_name(result: &ToolResult) -> &'static str {
    match &result.detail {
        ResultDetail::Arguments(_) => "invalid_arguments",
        ResultDetail::BudgetExhausted { .. } => "budget_exhausted",
        ResultDetail::Panic(_) => "panic",
        ResultDetail::Interrupt(_) => "interrupt",
        ResultDetail::TimedOut { .. } => "timed_out",
        ResultDetail::Cancelled => "cancelled",
        ResultDetail::Rejected { .. } => "rejected",
        ResultDetail::Denied => "denied",
        ResultDetail::NotLocal { .. } => "not_local",
        ResultDetail::UnknownTool { .. } => "unknown_tool",
        _ if result.is_error => "error",
        _ => "ok",
    }
}
