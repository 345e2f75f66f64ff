//! The one name for a provider, and a provider's form of a tool list: the provider with its
//! options (strict mode; Gemini's JSON Schema field).

use std::fmt;
use std::str::FromStr;

/// A provider: the tool list it is sent, the tool calls in its responses, the results sent back.
///
/// The same enum chooses a provider everywhere: the tool list
/// ([`Toolbox::tools_for`](crate::Toolbox::tools_for)), the request's tool fields, a response's
/// calls ([`Provider::read_response`]), a stream ([`Assembler`](crate::provider::Assembler)),
/// results, and lints ([`Form`], which adds the options a provider's list has).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Provider {
    /// OpenAI Chat Completions: tools as `{"type": "function", "function": {..}}`,
    /// `choices[].message.tool_calls[]`, results as `tool` messages.
    OpenAiChat,
    /// OpenAI Responses API: tools as `{"type": "function", name, ..}`, `function_call` output
    /// items, results as `function_call_output` items that reference the call's `call_id`.
    OpenAiResponses,
    /// Anthropic Messages: tools with `input_schema`, `tool_use` content blocks, results as one
    /// `user` message of `tool_result` blocks.
    Anthropic,
    /// Gemini: `functionDeclarations` (`parameters` in the OpenAPI subset, or
    /// `parametersJsonSchema`, [`Form::gemini_json_schema`]), `functionCall` parts, results as
    /// `functionResponse` parts.
    Gemini,
    /// MCP: the `tools/list` result, a `tools/call` request, answered with a `CallToolResult`.
    Mcp,
    /// Cohere's v2 chat: tools as `{"type": "function", "function": {..}}`, `tool_calls` with
    /// the model's `tool_plan`, results as `tool` messages of text and document blocks.
    Cohere,
    /// AWS Bedrock's Converse API: tools as `toolConfig.tools[].toolSpec`, `toolUse` content
    /// blocks, results as one `user` message of `toolResult` blocks.
    Bedrock,
}

impl Provider {
    /// Every provider.
    pub const ALL: [Provider; 7] = [
        Provider::OpenAiChat,
        Provider::OpenAiResponses,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::Mcp,
        Provider::Cohere,
        Provider::Bedrock,
    ];

    /// Whether the provider has a strict mode (OpenAI's Structured Outputs, Anthropic's strict
    /// tools).
    pub const fn has_strict(self) -> bool {
        matches!(
            self,
            Provider::OpenAiChat | Provider::OpenAiResponses | Provider::Anthropic
        )
    }

    /// The name used on the command line and in messages: `openai`, `openai-responses`,
    /// `anthropic`, `gemini`, `mcp`, `cohere`, `bedrock`.
    pub fn as_str(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "openai",
            Provider::OpenAiResponses => "openai-responses",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Mcp => "mcp",
            Provider::Cohere => "cohere",
            Provider::Bedrock => "bedrock",
        }
    }

    /// The provider's name in words, as its documentation writes it.
    pub(crate) fn title(self) -> &'static str {
        match self {
            Provider::OpenAiChat => "OpenAI Chat",
            Provider::OpenAiResponses => "OpenAI Responses",
            Provider::Anthropic => "Anthropic",
            Provider::Gemini => "Gemini",
            Provider::Mcp => "MCP",
            Provider::Cohere => "Cohere",
            Provider::Bedrock => "Bedrock",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A provider name that is not one of [`Provider::as_str`]'s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown provider `{0}`; expected one of openai, openai-responses, anthropic, gemini, mcp, cohere, bedrock"
)]
pub struct UnknownProvider(pub String);

impl FromStr for Provider {
    type Err = UnknownProvider;

    fn from_str(name: &str) -> Result<Self, UnknownProvider> {
        Provider::ALL
            .into_iter()
            .find(|provider| provider.as_str() == name)
            .ok_or_else(|| UnknownProvider(name.to_owned()))
    }
}

/// One provider's form of a tool list: the provider, and whether its strict mode is on (OpenAI,
/// Anthropic) or its JSON Schema field is used (Gemini's `parametersJsonSchema`).
///
/// Each form has its own dialect of JSON Schema: what it takes, what it refuses. The canonical
/// schema says everything the runtime enforces; each form is derived from it by a transform
/// pass, and whatever a form cannot say is reported by [`ToolDefinition::lint`] (and still
/// enforced when the call arrives). Options a provider does not have are ignored, so two forms
/// that send the same thing are equal.
///
/// ```
/// use toolwright::{provider::Provider, schema::Form};
///
/// let strict = Form::strict(Provider::OpenAiChat);
/// assert!(strict.is_strict());
/// assert_eq!(strict, Form::new(Provider::OpenAiChat).with_strict(true));
/// assert_eq!(strict.to_string(), "OpenAI strict");
/// assert_eq!(Form::new(Provider::Mcp).with_strict(true), Form::from(Provider::Mcp));
/// assert_eq!(Form::strict(Provider::Gemini).with_gemini_json_schema(true), Form::gemini_json_schema());
/// assert_eq!(strict.with_gemini_json_schema(true), strict);
/// ```
///
/// [`ToolDefinition::lint`]: crate::ToolDefinition::lint
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Form {
    provider: Provider,
    strict: bool,
    json_schema: bool,
}

impl Form {
    /// Every form: OpenAI (Chat Completions; the Responses API's forms have the same schemas)
    /// and Anthropic each with and without strict mode, Gemini's two fields, MCP, Cohere, Bedrock.
    pub const ALL: [Form; 9] = [
        Form::new(Provider::OpenAiChat),
        Form::strict(Provider::OpenAiChat),
        Form::new(Provider::Anthropic),
        Form::strict(Provider::Anthropic),
        Form::new(Provider::Gemini),
        Form::gemini_json_schema(),
        Form::new(Provider::Mcp),
        Form::new(Provider::Cohere),
        Form::new(Provider::Bedrock),
    ];

    /// The provider's plain form: not strict, Gemini's `parameters`.
    pub const fn new(provider: Provider) -> Form {
        Form {
            provider,
            strict: false,
            json_schema: false,
        }
    }

    /// The provider's strict form (its plain form for a provider without a strict mode).
    pub const fn strict(provider: Provider) -> Form {
        Form::new(provider).with_strict(true)
    }

    /// Gemini with `parametersJsonSchema` (JSON Schema) instead of `parameters` (the OpenAPI
    /// subset).
    pub const fn gemini_json_schema() -> Form {
        Form::new(Provider::Gemini).with_gemini_json_schema(true)
    }

    /// The form in the provider's strict mode, or out of it; ignored by a provider without one.
    #[must_use]
    pub const fn with_strict(self, strict: bool) -> Form {
        Form {
            strict: strict && self.provider.has_strict(),
            ..self
        }
    }

    /// The form with Gemini's `parametersJsonSchema` field, or its `parameters`; ignored by the
    /// other providers (their fields take JSON Schema as it is).
    #[must_use]
    pub const fn with_gemini_json_schema(self, on: bool) -> Form {
        Form {
            json_schema: on && matches!(self.provider, Provider::Gemini),
            ..self
        }
    }

    /// The provider.
    pub const fn provider(self) -> Provider {
        self.provider
    }

    /// Whether this is a provider's strict mode.
    pub const fn is_strict(self) -> bool {
        self.strict
    }

    /// Whether this is Gemini's `parametersJsonSchema` form.
    pub const fn is_gemini_json_schema(self) -> bool {
        self.json_schema
    }
}

impl From<Provider> for Form {
    fn from(provider: Provider) -> Form {
        Form::new(provider)
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match (self.provider, self.strict, self.json_schema) {
            (Provider::OpenAiChat | Provider::OpenAiResponses, false, _) => "OpenAI",
            (Provider::OpenAiChat | Provider::OpenAiResponses, true, _) => "OpenAI strict",
            (Provider::Anthropic, false, _) => "Anthropic",
            (Provider::Anthropic, true, _) => "Anthropic strict",
            (Provider::Gemini, _, false) => "Gemini parameters",
            (Provider::Gemini, _, true) => "Gemini parametersJsonSchema",
            (Provider::Mcp, ..) => "MCP",
            (Provider::Cohere, ..) => "Cohere",
            (Provider::Bedrock, ..) => "Bedrock",
        })
    }
}
