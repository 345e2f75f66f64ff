//! The toolbox, every method of it: registration and lookup by name (here), who may see and call
//! which tool (`access`), the settings for running calls (`settings`), what the tools look like to
//! each provider (`lint`), the short way of running one call with what every way of running calls
//! shares (`dispatch`), batches, hooks and approval (`execute/`), and the provider wire formats
//! from the toolbox's side (`provider`, `request`).

pub use self::dispatch::ParsedArguments;
pub use self::execute::{Batch, BatchOptions, Decision};

use std::any::Any;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicU32;
use std::time::Duration;

use serde_json::Value;

use crate::args::ArgumentPolicy;
use crate::definition::StrictFallback;
use crate::forms::{Form, LintReport, Provider, Severity};
use crate::hook::Hook;
use crate::tool::{ErasedTool, Tool, ToolDefinition};

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
/// tuple of tools (`(AddTool, SearchTool)`, up to 16), or an array or `Vec` of erased tools
/// ([`erase`](crate::tool::erase)).
pub trait IntoTools<C: ?Sized> {
    /// The tools, erased, in order.
    fn into_tools(self) -> Vec<Arc<dyn ErasedTool<C>>>;
}

impl<C: ?Sized> IntoTools<C> for Vec<Arc<dyn ErasedTool<C>>> {
    fn into_tools(self) -> Vec<Arc<dyn ErasedTool<C>>> {
        self
    }
}

impl<C: ?Sized, const N: usize> IntoTools<C> for [Arc<dyn ErasedTool<C>>; N] {
    fn into_tools(self) -> Vec<Arc<dyn ErasedTool<C>>> {
        self.into()
    }
}

macro_rules! tuples {
    ($($name:ident)+) => {
        impl<C: ?Sized + Sync + 'static, $($name: Tool<C>),+> IntoTools<C> for ($($name,)+) {
            #[expect(non_snake_case, reason = "the tuple's elements are named by their type parameters")]
            fn into_tools(self) -> Vec<Arc<dyn ErasedTool<C>>> {
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
/// a `Toolbox<C>`. Every method is in this module's files, by concern: building and registering
/// (here), who may call what (`access`), settings, lints, running calls and batches
/// (`dispatch`, `execute`), and the provider wire formats (`provider`, `request`).
///
/// ```
/// use toolwright::{ToolCall, Toolbox, tool};
///
/// /// Add two integers.
/// #[tool]
/// fn add(a: i64, b: i64) -> i64 {
///     a + b
/// }
///
/// let tools = Toolbox::new().with(AddTool).unwrap();
/// let result = tools.execute_blocking(&ToolCall::new("call_1", "add", r#"{"a": 2, "b": 3}"#), &());
/// assert_eq!(result.text(), "5");
/// assert!(!result.is_error);
/// ```
///
/// Tools built at run time ([`DynamicTool`](crate::DynamicTool)) register the same way.
#[expect(
    clippy::struct_excessive_bools,
    reason = "independent settings, each with its own builder; no state machine hides in them"
)]
pub struct Toolbox<C: ?Sized = ()> {
    pub(crate) tools: Vec<Arc<dyn ErasedTool<C>>>,
    /// The index of each tool by its name.
    by_name: names::Names,
    expose_panic_messages: bool,
    pub(crate) policy: ArgumentPolicy,
    strict: bool,
    strict_fallback: StrictFallback,
    /// Gemini tools go with `parametersJsonSchema`.
    gemini_json_schema: bool,
    required: Vec<Form>,
    /// Whether some tool's name breaks some provider's name rules, so is sent under a stand-in
    /// ([`Provider::wire_name`]) that calls must be mapped back from.
    mapped_names: bool,
    /// How many calls of a batch may run at once, and whether any may.
    pub(crate) concurrency: usize,
    pub(crate) parallel: bool,
    /// The timeout of calls whose tool sets none.
    pub(crate) timeout: Option<Duration>,
    pub(crate) hooks: Vec<Arc<dyn Hook<C>>>,
    /// `(tool index, rule)`: calls of the tool for which the rule says yes need approval.
    pub(crate) approval_rules: Vec<(usize, Arc<ApprovalRule<C>>)>,
    scope_rules: Vec<(Vec<String>, Arc<access::ScopeRule>)>,
    /// Invalid calls of one tool in a row that end the model's retries (0: no limit).
    pub(crate) retry_budget: u32,
    /// Per tool (by index): invalid calls in a row, and whether its calls take the whole
    /// pipeline.
    pub(crate) states: Vec<ToolState>,
    /// Whether every call takes the whole pipeline (a hook or a toolbox timeout is set).
    pub(crate) gated: bool,
    /// Whether call spans record the arguments.
    pub(crate) capture_content: bool,
    /// Tool search, when on, and the index it searches.
    pub(crate) search: Option<Arc<search::SearchSetup>>,
    index: search::Index,
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
            gemini_json_schema: self.gemini_json_schema,
            required: self.required.clone(),
            mapped_names: self.mapped_names,
            concurrency: self.concurrency,
            parallel: self.parallel,
            timeout: self.timeout,
            hooks: self.hooks.clone(),
            approval_rules: self.approval_rules.clone(),
            scope_rules: self.scope_rules.clone(),
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
            capture_content: self.capture_content,
            search: self.search.clone(),
            index: self.index.clone(),
        }
    }
}

impl<C: ?Sized> Default for Toolbox<C> {
    fn default() -> Self {
        Toolbox {
            tools: Vec::new(),
            by_name: names::Names::default(),
            expose_panic_messages: false,
            policy: ArgumentPolicy::default(),
            strict: false,
            strict_fallback: StrictFallback::Error,
            gemini_json_schema: false,
            required: Vec::new(),
            mapped_names: false,
            concurrency: DEFAULT_CONCURRENCY,
            parallel: true,
            timeout: None,
            hooks: Vec::new(),
            approval_rules: Vec::new(),
            scope_rules: Vec::new(),
            retry_budget: DEFAULT_RETRY_BUDGET,
            states: Vec::new(),
            gated: false,
            capture_content: false,
            search: None,
            index: search::Index::default(),
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

impl Toolbox {
    /// An empty toolbox whose tools take no context: a `Toolbox<()>`, its calls run with `&()`.
    /// For tools that take one (`#[tool(context)] ctx: &App`), see
    /// [`for_context`](Toolbox::for_context).
    ///
    /// Like `HashMap::new()`, which is for the default hasher only, it needs no annotation:
    ///
    /// ```
    /// use toolwright::{Toolbox, tool};
    ///
    /// /// Add two integers.
    /// #[tool]
    /// fn add(a: i64, b: i64) -> i64 {
    ///     a + b
    /// }
    ///
    /// let tools = Toolbox::new().with(AddTool).unwrap();
    /// assert_eq!(tools.len(), 1);
    /// ```
    pub fn new() -> Self {
        Toolbox::default()
    }
}

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// An empty toolbox whose tools run with a `&C` context: `Toolbox::<App>::for_context()`, or
    /// `Toolbox::for_context()` where a tool that takes `&App` or the type of a binding says
    /// what `C` is. Tools that take no context work in it too.
    ///
    /// ```
    /// use toolwright::{ToolCall, Toolbox, tool};
    ///
    /// struct App {
    ///     greeting: String,
    /// }
    ///
    /// /// Greet someone.
    /// #[tool]
    /// fn greet(#[tool(context)] app: &App, name: String) -> String {
    ///     format!("{}, {name}", app.greeting)
    /// }
    ///
    /// let tools = Toolbox::<App>::for_context().with(GreetTool).unwrap();
    /// let app = App { greeting: "Hello".into() };
    /// let call = ToolCall::new("call_1", "greet", r#"{"name": "Ada"}"#);
    /// assert_eq!(tools.execute_blocking(&call, &app).text(), "Hello, Ada");
    /// ```
    pub fn for_context() -> Self {
        Toolbox::default()
    }

    /// Registers a tool, builder style.
    ///
    /// # Errors
    /// When a tool of the same name is already registered.
    pub fn with<T: Tool<C>>(self, tool: T) -> Result<Self, RegisterError> {
        self.with_dyn(crate::tool::erase(tool))
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
    pub fn register_dyn(
        &mut self,
        tool: Arc<dyn ErasedTool<C>>,
    ) -> Result<&mut Self, RegisterError> {
        let definition = tool.definition();
        let report: LintReport = self
            .required
            .iter()
            .flat_map(|form| {
                definition
                    .lint(*form)
                    .into_iter()
                    .chain(self.name_clash(definition.name(), *form))
            })
            .filter(|lint| lint.severity == Severity::Error)
            .collect();
        if !report.is_clean() {
            return Err(RegisterError::Lint(report));
        }
        let name = definition.name().to_owned();
        self.mapped_names |= Provider::ALL.iter().any(|p| p.check_name(&name).is_err());
        if self
            .search
            .as_ref()
            .is_some_and(|s| search::sent_as(&name, s.config.name()))
            || !self.by_name.insert(&name, self.tools.len())
        {
            return Err(RegisterError::DuplicateName(name));
        }
        self.index.added(definition);
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
    /// use toolwright::{RegisterError, Toolbox, dynamic::erase};
    /// # use toolwright::{DynamicTool, ToolDefinition};
    /// # use serde_json::{Map, Value, json};
    /// # let tool = |name: &'static str| erase::<(), _>(DynamicTool::new(
    /// #     ToolDefinition::new(name, "A tool.", json!({"type": "object"})).unwrap(),
    /// #     |args: Map<String, Value>, _: &()| Value::Object(args),
    /// # ));
    /// let mut tools = Toolbox::new();
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
                self.index.removed(tool.definition().name());
                self.states.pop();
                self.by_name.remove(tool.definition().name(), false);
            }
        }
        self.mapped_names = mapped_names;
        Err(RegisterError::Several(errors))
    }

    /// [`register_all`](Self::register_all), builder style: `Toolbox::new().with_all((AddTool,
    /// SearchTool))?`.
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
    /// let mut tools = Toolbox::new().with(HelloTool).unwrap();
    /// assert!(tools.remove("hello").is_some());
    /// assert!(tools.is_empty() && tools.remove("hello").is_none());
    /// ```
    pub fn remove(&mut self, name: &str) -> Option<Arc<dyn ErasedTool<C>>> {
        let index = self.by_name.remove(name, true)?;
        self.index.removed(name);
        self.approval_rules.retain(|(i, _)| *i != index);
        for (i, _) in &mut self.approval_rules {
            if *i > index {
                *i -= 1;
            }
        }
        self.states.remove(index);
        Some(self.tools.remove(index))
    }

    /// Registers an already erased tool, builder style.
    ///
    /// # Errors
    /// When a tool of the same name is already registered.
    pub fn with_dyn(mut self, tool: Arc<dyn ErasedTool<C>>) -> Result<Self, RegisterError> {
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

    /// The tool with this name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn ErasedTool<C>>> {
        self.index_of(name).map(|index| &self.tools[index])
    }

    /// The tools, in registration order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &Arc<dyn ErasedTool<C>>> {
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

    /// The index of the tool with this name.
    #[inline]
    pub(crate) fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name.get(name)
    }
}

// The rest of `Toolbox`'s methods, by concern. Declared after the impls above because rustdoc
// lists impl blocks in the order it meets them: the page opens with `new`, `with`, `register`.
mod access;
mod collect;
mod dispatch;
mod execute;
mod lint;
mod names;
mod provider;
mod request;
mod search;
mod settings;
