//! Tools built at run time from a name, a description, parameters and a closure.

use std::future::Future;

use serde_json::{Map, Value, json};

use super::{Tool, ToolDefinition};
use crate::args::{self, ArgumentError, ParseSession};
use crate::call::Arguments;
use crate::output::{IntoOutcome, Outcome};
use crate::task::BoxFuture;
use crate::task::{CallInfo, CallScope};

/// The JSON type of a [`FunctionParam`].
#[derive(Debug, Clone, PartialEq)]
pub enum ParamType {
    /// A string.
    String,
    /// An integer.
    Integer,
    /// Any number.
    Number,
    /// `true` or `false`.
    Boolean,
    /// An array of items of the given type.
    Array(Box<ParamType>),
    /// An object with the given properties.
    Object(Vec<FunctionParam>),
}

impl ParamType {
    /// The JSON Schema of this type.
    pub fn schema(&self) -> Value {
        match self {
            ParamType::String => json!({"type": "string"}),
            ParamType::Integer => json!({"type": "integer"}),
            ParamType::Number => json!({"type": "number"}),
            ParamType::Boolean => json!({"type": "boolean"}),
            ParamType::Array(items) => json!({"type": "array", "items": items.schema()}),
            ParamType::Object(properties) => object_schema(properties),
        }
    }
}

/// One parameter of a dynamic tool.
///
/// ```
/// use toolwright::dynamic::{FunctionParam, ParamType};
///
/// let line = FunctionParam::new("lines", ParamType::Array(Box::new(ParamType::Object(vec![
///     FunctionParam::new("sku", ParamType::String).required(),
///     FunctionParam::new("qty", ParamType::Integer).describe("How many."),
/// ]))))
/// .required();
/// assert_eq!(line.schema()["items"]["required"][0], "sku");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionParam {
    /// The argument's name.
    pub name: String,
    /// Its type.
    pub kind: ParamType,
    /// What it means, for the model.
    pub description: Option<String>,
    /// Whether the model must send it.
    pub required: bool,
    /// The values it may take, if limited.
    pub enum_values: Vec<Value>,
}

impl FunctionParam {
    /// An optional parameter with no description.
    pub fn new(name: impl Into<String>, kind: ParamType) -> Self {
        FunctionParam {
            name: name.into(),
            kind,
            description: None,
            required: false,
            enum_values: Vec::new(),
        }
    }

    /// Sets the description.
    #[must_use]
    pub fn describe(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Makes the parameter required.
    #[must_use]
    pub fn required(mut self) -> Self {
        self.required = true;
        self
    }

    /// Limits the parameter to these values.
    #[must_use]
    pub fn one_of<I: IntoIterator<Item = V>, V: Into<Value>>(mut self, values: I) -> Self {
        self.enum_values = values.into_iter().map(Into::into).collect();
        self
    }

    /// The JSON Schema of this parameter.
    pub fn schema(&self) -> Value {
        let mut schema = self.kind.schema();
        if let Value::Object(map) = &mut schema {
            if let Some(description) = &self.description {
                map.insert("description".into(), Value::from(description.as_str()));
            }
            if !self.enum_values.is_empty() {
                map.insert("enum".into(), Value::Array(self.enum_values.clone()));
            }
        }
        schema
    }
}

/// The schema of an object with the given properties; unknown properties are refused.
pub(crate) fn object_schema(params: &[FunctionParam]) -> Value {
    let properties: Map<String, Value> = params
        .iter()
        .map(|p| (p.name.clone(), p.schema()))
        .collect();
    let required: Vec<Value> = params
        .iter()
        .filter(|p| p.required)
        .map(|p| Value::from(p.name.as_str()))
        .collect();
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

type SyncHandler<C> = dyn Fn(Map<String, Value>, &C) -> Outcome + Send + Sync;
type AsyncHandler<C> = dyn Fn(Map<String, Value>, &C) -> BoxFuture<'static, Outcome> + Send + Sync;
type InfoHandler<C> =
    dyn Fn(Map<String, Value>, &C, CallInfo) -> BoxFuture<'static, Outcome> + Send + Sync;

enum Handler<C: ?Sized> {
    Sync(Box<SyncHandler<C>>),
    Async(Box<AsyncHandler<C>>),
    /// Async, and told about its call (progress, logs, cancellation).
    Info(Box<InfoHandler<C>>),
}

/// A tool built at run time: a definition (from a [`FunctionParam`] list or a raw JSON Schema)
/// and a closure over the JSON arguments and the context. It is dispatched exactly like a
/// `#[tool]` fn.
///
/// ```
/// use serde_json::{Map, Value};
/// use toolwright::{DynamicTool, ToolCall, ToolDefinition, Toolbox, dynamic::{FunctionParam, ParamType}};
///
/// let def = ToolDefinition::from_params(
///     "echo",
///     "Repeat the text.",
///     &[FunctionParam::new("text", ParamType::String).required()],
/// );
/// let echo = DynamicTool::new(def, |args: Map<String, Value>, _: &()| args["text"].clone());
/// let tools = Toolbox::new().with(echo).unwrap();
/// let result = tools.execute_blocking(&ToolCall::new("c1", "echo", r#"{"text":"hi"}"#), &());
/// assert_eq!(result.text(), "hi");
/// ```
pub struct DynamicTool<C: ?Sized = ()> {
    definition: ToolDefinition,
    handler: Handler<C>,
}

impl<C: ?Sized> DynamicTool<C> {
    /// A tool whose body is a sync closure.
    pub fn new<F, R>(definition: ToolDefinition, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, &C) -> R + Send + Sync + 'static,
        R: IntoOutcome,
    {
        DynamicTool {
            definition,
            handler: Handler::Sync(Box::new(move |args, ctx| handler(args, ctx).into_outcome())),
        }
    }

    /// A tool whose body is an async closure. The future may not borrow the context: clone what
    /// it needs from the context before the `async` block.
    pub fn new_async<F, Fut, R>(definition: ToolDefinition, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, &C) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoOutcome,
    {
        DynamicTool {
            definition,
            handler: Handler::Async(Box::new(move |args, ctx| {
                let future = handler(args, ctx);
                Box::pin(async move { future.await.into_outcome() })
            })),
        }
    }

    /// A tool whose body is an async closure told about its call: the [`CallInfo`] a `#[tool]`
    /// fn gets with `#[tool(call_info)]`, through which it reports progress, logs, and learns
    /// of cancellation.
    ///
    /// ```
    /// use serde_json::{Map, Value};
    /// use toolwright::{CallInfo, DynamicTool, ToolCall, ToolDefinition, Toolbox};
    ///
    /// let def = ToolDefinition::from_params("wait", "Wait a moment.", &[]);
    /// let wait = DynamicTool::new_async_with_info(def, |_: Map<String, Value>, _: &(), info: CallInfo| {
    ///     async move {
    ///         info.report_progress(1.0, Some(1.0), Some("done waiting"));
    ///         format!("{} waited", info.call_id())
    ///     }
    /// });
    /// let tools = Toolbox::new().with(wait).unwrap();
    /// let result = tools.execute_blocking(&ToolCall::new("c1", "wait", "{}"), &());
    /// assert_eq!(result.text(), "c1 waited");
    /// ```
    pub fn new_async_with_info<F, Fut, R>(definition: ToolDefinition, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, &C, CallInfo) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoOutcome,
    {
        DynamicTool {
            definition,
            handler: Handler::Info(Box::new(move |args, ctx, info| {
                let future = handler(args, ctx, info);
                Box::pin(async move { future.await.into_outcome() })
            })),
        }
    }
}

impl ToolDefinition {
    /// A definition whose parameters are described by a [`FunctionParam`] list.
    pub fn from_params(
        name: impl Into<std::borrow::Cow<'static, str>>,
        description: impl Into<String>,
        params: &[FunctionParam],
    ) -> Self {
        ToolDefinition::from_canonical(name.into(), description.into(), object_schema(params))
    }
}

impl<C: ?Sized + Sync + 'static> Tool<C> for DynamicTool<C> {
    type Args = Map<String, Value>;

    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn parse_args(
        &self,
        arguments: &Arguments,
        _ctx: &C,
        session: &mut ParseSession,
    ) -> Result<Self::Args, ArgumentError> {
        args::parse_checked(&self.definition, arguments, session)
    }

    async fn call(&self, args: Self::Args, ctx: &C, call: CallScope<'_>) -> Outcome {
        match &self.handler {
            Handler::Sync(handler) => handler(args, ctx),
            Handler::Async(handler) => handler(args, ctx).await,
            Handler::Info(handler) => handler(args, ctx, call.info()).await,
        }
    }
}
