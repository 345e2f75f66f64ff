//! What a `#[resource]` or `#[prompt]` fn may return: the conversions into a read's contents and
//! a prompt's messages (axum's `IntoResponse`, for MCP's two answers).

use rmcp::model::{ErrorData, GetPromptResult, PromptMessage, Role};
use toolwright_runtime::exec::ResourceContents;

use crate::server::offer::ReadResult;

/// What a `#[resource]` fn returns, as the contents of the resource read.
///
/// Text (`String`, `&'static str`) becomes one text contents at the URI read, with the
/// attribute's `mime_type`; [`ResourceContents`] (one or several) are sent as they are; `None`
/// answers that no resource is at the URI (`-32002`); an `Err` is the error the client gets. An
/// application's error type converts into rmcp's [`ErrorData`] with a `From` impl of its own,
/// choosing the JSON-RPC code the client sees.
#[diagnostic::on_unimplemented(
    message = "a #[resource] fn cannot return `{Self}`",
    label = "not contents of a resource",
    note = "return text (`String`), `ResourceContents`, `Vec<ResourceContents>`, an `Option` of them (`None`: no such resource), or a `Result` of them whose error converts into `ErrorData`"
)]
pub trait IntoContents {
    /// The contents of the resource read at `uri`; `mime_type` is the resource's declared type.
    ///
    /// # Errors
    /// The error the client gets instead.
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> ReadResult;
}

impl IntoContents for String {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> ReadResult {
        Ok(vec![ResourceContents::text(uri, mime_type, self)])
    }
}

impl IntoContents for &'static str {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> ReadResult {
        Ok(vec![ResourceContents::text(uri, mime_type, self)])
    }
}

impl IntoContents for ResourceContents {
    fn into_contents(self, _: &str, _: Option<&str>) -> ReadResult {
        Ok(vec![self])
    }
}

impl IntoContents for Vec<ResourceContents> {
    fn into_contents(self, _: &str, _: Option<&str>) -> ReadResult {
        Ok(self)
    }
}

impl<T: IntoContents> IntoContents for Option<T> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> ReadResult {
        match self {
            Some(contents) => contents.into_contents(uri, mime_type),
            None => Err(ErrorData::resource_not_found(
                format!("no resource at `{uri}`"),
                None,
            )),
        }
    }
}

impl<T: IntoContents, E: Into<ErrorData>> IntoContents for Result<T, E> {
    fn into_contents(self, uri: &str, mime_type: Option<&str>) -> ReadResult {
        self.map_err(Into::into)?.into_contents(uri, mime_type)
    }
}

/// What a `#[prompt]` fn returns, as the result of `prompts/get`.
///
/// Text (`String`, `&'static str`) becomes one message from the user; [`PromptMessage`]s (one or
/// several, with images, audio, embedded resources) and a whole [`GetPromptResult`] are sent as
/// they are; an `Err` is the error the client gets, its type converting into rmcp's
/// [`ErrorData`].
#[diagnostic::on_unimplemented(
    message = "a #[prompt] fn cannot return `{Self}`",
    label = "not the messages of a prompt",
    note = "return text (`String`: one message from the user), `PromptMessage`, `Vec<PromptMessage>`, `GetPromptResult`, or a `Result` of them whose error converts into `ErrorData`"
)]
pub trait IntoPrompt {
    /// The result of the `prompts/get`.
    ///
    /// # Errors
    /// The error the client gets instead.
    fn into_prompt(self) -> Result<GetPromptResult, ErrorData>;
}

impl IntoPrompt for String {
    fn into_prompt(self) -> Result<GetPromptResult, ErrorData> {
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            self,
        )]))
    }
}

impl IntoPrompt for &'static str {
    fn into_prompt(self) -> Result<GetPromptResult, ErrorData> {
        self.to_owned().into_prompt()
    }
}

impl IntoPrompt for PromptMessage {
    fn into_prompt(self) -> Result<GetPromptResult, ErrorData> {
        Ok(GetPromptResult::new(vec![self]))
    }
}

impl IntoPrompt for Vec<PromptMessage> {
    fn into_prompt(self) -> Result<GetPromptResult, ErrorData> {
        Ok(GetPromptResult::new(self))
    }
}

impl IntoPrompt for GetPromptResult {
    fn into_prompt(self) -> Result<GetPromptResult, ErrorData> {
        Ok(self)
    }
}

impl<T: IntoPrompt, E: Into<ErrorData>> IntoPrompt for Result<T, E> {
    fn into_prompt(self) -> Result<GetPromptResult, ErrorData> {
        self.map_err(Into::into)?.into_prompt()
    }
}
