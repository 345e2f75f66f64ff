//! The toolbox's side of a request: its tool fields for a provider, under the names the provider
//! knows the tools by.

use serde_json::Map;

use crate::definition::ToolDefinition;
use crate::forms::Provider;
use crate::providers::spec;
use crate::toolbox::Toolbox;
use crate::wire::request::{
    AllowedMode, RequestError, RequestFields, Resolved, ToolChoice, ToolRequest,
};
use crate::wire::spec::Choice;
use toolwright_schema::names::close_matches;

impl<C: ?Sized + Sync + 'static> Toolbox<C> {
    /// The tool fields of a request to `provider`: the tool list, the choice, and
    /// parallel calls when set. Names go out as the provider knows them (stand-ins).
    ///
    /// | choice | OpenAI Chat | Responses | Anthropic `tool_choice` | Gemini `functionCallingConfig` |
    /// | --- | --- | --- | --- | --- |
    /// | auto | `"auto"` | `"auto"` | `{"type": "auto"}` | `{"mode": "AUTO"}` |
    /// | none | `"none"` | `"none"` | `{"type": "none"}` | `{"mode": "NONE"}` |
    /// | required | `"required"` | `"required"` | `{"type": "any"}` | `{"mode": "ANY"}` |
    /// | tool `t` | `{"type": "function", "function": {"name": t}}` | `{"type": "function", "name": t}` | `{"type": "tool", "name": t}` | `ANY`, `allowedFunctionNames: [t]` |
    /// | allowed, auto | `allowed_tools`, mode `auto` | `allowed_tools`, mode `auto` | `tools` narrowed, `auto` | `VALIDATED`, `allowedFunctionNames` |
    /// | allowed, required | `allowed_tools`, mode `required` | `allowed_tools`, mode `required` | `tools` narrowed, `any` | `ANY`, `allowedFunctionNames` |
    ///
    /// An allowed subset of one tool, required, is that tool; a subset holding every tool is
    /// `auto` or `required`. [`ToolRequest::narrow_tools`] narrows the list on every provider
    /// instead. Parallel calls: OpenAI's `parallel_tool_calls`, Anthropic's
    /// `disable_parallel_tool_use` in `tool_choice`; with [`ToolChoice::None`] no call comes,
    /// and nothing is written for it. A toolbox without tools writes no fields for `auto` and
    /// `none` (OpenAI refuses a `tool_choice` without `tools`).
    ///
    /// # Errors
    /// A name not in the toolbox (with close matches), a choice that needs a tool of an empty
    /// toolbox, an empty subset, what the provider cannot say (`parallel_calls(false)` for
    /// Gemini, any choice for MCP, whose clients call what they like), more tools than the
    /// provider takes in one request (OpenAI Chat: 128; defer some, [`search`](crate::search)),
    /// and the tool list's lint errors.
    ///
    /// With tool search on ([`Toolbox::with_tool_search`]), the deferred tools go in each
    /// provider's form ([`search`](crate::search) has the table); a tool the choice names goes in
    /// full.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolwright::provider::{AllowedMode, ToolChoice};
    /// use toolwright::{Toolbox, provider::Provider, tool};
    ///
    /// /// The weather in a city.
    /// #[tool]
    /// fn get_weather(city: String) -> String {
    ///     format!("Sunny in {city}")
    /// }
    ///
    /// /// The time in a timezone.
    /// #[tool]
    /// fn get_time(timezone: String) -> String {
    ///     format!("12:00 in {timezone}")
    /// }
    ///
    /// let tools = Toolbox::new().with_all((GetWeatherTool, GetTimeTool)).unwrap();
    /// let fields = tools
    ///     .request_fields(Provider::Anthropic, ToolChoice::tool("get_weather"))
    ///     .unwrap();
    /// assert_eq!(fields.get("tool_choice"), Some(&json!({"type": "tool", "name": "get_weather"})));
    ///
    /// // Anthropic has no allowed subset: the list itself is narrowed.
    /// let only = ToolChoice::allowed(["get_time"], AllowedMode::Auto);
    /// let fields = tools.request_fields(Provider::Anthropic, only).unwrap();
    /// assert!(fields.narrowed());
    /// assert_eq!(fields.get("tools").unwrap()[0]["name"], "get_time");
    ///
    /// let error = tools.request_fields(Provider::Gemini, ToolChoice::tool("get_wether"));
    /// assert!(error.unwrap_err().to_string().contains("did you mean `get_weather`?"));
    /// ```
    pub fn request_fields(
        &self,
        provider: Provider,
        request: impl Into<ToolRequest>,
    ) -> Result<RequestFields, RequestError> {
        let request = request.into();
        let choice = self.resolve(&request.choice)?;
        let spec = spec(provider);
        let write_choice = spec
            .choice
            .map_err(|what| RequestError::Unsupported { provider, what })?;
        let calls_possible = !matches!(choice, Resolved::None);
        if !spec.parallel_switch && calls_possible && request.parallel == Some(false) {
            return Err(RequestError::Unsupported {
                provider,
                what: "one call at a time (it has no switch for parallel calls); leave \
                       `parallel_calls` unset, and run the calls one at a time with \
                       `BatchOptions::parallel(false)`",
            });
        }
        let mut fields = Map::new();
        if self.is_empty() {
            // Only `auto` and `none` get here; a request without tools says both.
            return Ok(RequestFields {
                fields,
                narrowed: false,
            });
        }
        if let Some(what) = (spec.cannot_say)(&choice) {
            return Err(RequestError::Unsupported { provider, what });
        }
        let list = self.tools_for(provider).map_err(RequestError::Lint)?;
        let wire: Vec<&str> = list
            .entries()
            .iter()
            .map(|entry| (spec.entry_fields)(entry).0)
            .collect();

        // An allowed subset the provider cannot say, or was asked not to: only those tools.
        let (choice, narrowed) = match choice {
            Resolved::Allowed(indexes, mode) if request.narrow || !spec.allowed_subset => {
                let simple = match mode {
                    AllowedMode::Auto => Resolved::Auto,
                    AllowedMode::Required => Resolved::Required,
                };
                (simple, Some(indexes))
            }
            // A provider that cannot name one tool is sent only that one, and told to call.
            Resolved::Tool(at) if !spec.names_a_tool => (Resolved::Required, Some(vec![at])),
            other => (other, None),
        };
        let tools = if let Some(indexes) = &narrowed {
            list.only(indexes).to_value()
        } else {
            // A tool the choice names goes in full.
            let pinned = match &choice {
                Resolved::Tool(at) => vec![*at],
                Resolved::Allowed(indexes, _) => indexes.clone(),
                _ => Vec::new(),
            };
            self.deferred_list(provider, &list, &request, &pinned)
                .unwrap_or_else(|| list.to_value())
        };
        if let Some(max) = spec.max_tools {
            let count = tools.as_array().map_or(0, Vec::len);
            if count > max {
                return Err(RequestError::TooManyTools {
                    provider,
                    count,
                    max,
                });
            }
        }
        fields.insert("tools".into(), tools);
        let parallel = request.parallel.filter(|_| calls_possible);
        write_choice(
            &Choice {
                resolved: &choice,
                wire: &wire,
                parallel,
            },
            &mut fields,
        );
        Ok(RequestFields {
            fields,
            narrowed: narrowed.is_some(),
        })
    }

    /// Checks a choice's names and puts it in its simplest equivalent form.
    fn resolve(&self, choice: &ToolChoice) -> Result<Resolved, RequestError> {
        let find = |name: &str| {
            self.index_of(name)
                .ok_or_else(|| RequestError::UnknownTool {
                    name: name.to_owned(),
                    suggestions: close_matches(name, self.definitions().map(ToolDefinition::name)),
                })
        };
        let resolved = match choice {
            ToolChoice::Auto => return Ok(Resolved::Auto),
            ToolChoice::None => return Ok(Resolved::None),
            ToolChoice::Required => Resolved::Required,
            ToolChoice::Tool(name) => Resolved::Tool(find(name)?),
            ToolChoice::Allowed { tools, mode } => {
                let mut indexes = Vec::with_capacity(tools.len());
                for name in tools {
                    let at = find(name)?;
                    if !indexes.contains(&at) {
                        indexes.push(at);
                    }
                }
                match (indexes.as_slice(), mode) {
                    ([], _) => return Err(RequestError::EmptySubset),
                    ([one], AllowedMode::Required) => Resolved::Tool(*one),
                    (all, AllowedMode::Auto) if all.len() == self.len() => Resolved::Auto,
                    (all, AllowedMode::Required) if all.len() == self.len() => Resolved::Required,
                    _ => Resolved::Allowed(indexes, *mode),
                }
            }
        };
        if self.is_empty() {
            return Err(RequestError::NoTools(choice.clone()));
        }
        Ok(resolved)
    }
}
