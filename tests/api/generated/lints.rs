//! Generated code must not trip the lints a careful crate denies: missing docs, unused
//! qualifications, and clippy's pedantic group (checked when CI runs clippy over all targets).

#![deny(missing_docs, unused_qualifications, clippy::pedantic)]

/// Tools declared under the denied lints.
pub mod tools {
    use toolwright::{CallInfo, tool};

    /// The application context.
    #[derive(Debug)]
    pub struct Account {
        /// The account's owner.
        pub owner: String,
    }

    /// Add two integers.
    #[tool(read_only, idempotent)]
    #[must_use]
    pub fn add(
        /// The first addend.
        a: i64,
        /// The second addend.
        b: i64,
    ) -> i64 {
        a + b
    }

    /// Greet the account's owner.
    ///
    /// # Errors
    /// When the greeting cannot be written.
    #[tool(name = "greet_owner")]
    pub async fn greet(
        #[tool(context)] account: &Account,
        #[tool(call_info)] info: &CallInfo,
        /// The greeting.
        #[tool(default = String::from("hello"))]
        greeting: String,
        /// Shout it.
        #[tool(rename = "loud")]
        shout: Option<bool>,
    ) -> Result<String, std::fmt::Error> {
        let text =
            std::future::ready(format!("{greeting} {} ({})", account.owner, info.call_id())).await;
        Ok(if shout == Some(true) {
            text.to_uppercase()
        } else {
            text
        })
    }
}

#[test]
fn lint_clean_tools_work() {
    use toolwright::{ToolCall, Toolbox};

    let tools = Toolbox::<tools::Account>::for_context()
        .with(tools::AddTool)
        .and_then(|t| t.with(tools::GreetTool))
        .unwrap();
    let account = tools::Account {
        owner: "ada".into(),
    };
    let result = tools.execute_blocking(
        &ToolCall::new("c1", "greet_owner", r#"{"loud": true}"#),
        &account,
    );
    assert_eq!(result.text(), "HELLO ADA (C1)");
}
