//! The demo toolbox shared by the `quickstart`, `dispatch` and `agent_loop` examples. Its tool names and
//! behaviours are an interface: external checks drive `dispatch` with calls to them.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolwright::{CallInfo, ToolOutput, Toolbox, tool};

/// The application context of the demo: who is asking.
#[derive(Debug, Clone)]
pub struct DemoContext {
    /// The signed-in user.
    pub user_id: String,
}

/// A temperature unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// A weather report.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
pub struct Weather {
    /// The city asked about.
    pub city: String,
    /// The unit of `temperature`.
    pub unit: Unit,
    /// The current temperature.
    pub temperature: i32,
}

/// Add two integers.
#[tool(read_only, idempotent)]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> Result<i64, String> {
    a.checked_add(b)
        .ok_or_else(|| format!("{a} + {b} does not fit in a 64-bit integer"))
}

/// Get the current weather for a city.
#[tool(read_only, open_world)]
pub fn get_weather(
    /// City name, e.g. "Paris".
    city: String,
    /// Temperature unit; celsius when omitted.
    unit: Option<Unit>,
) -> Weather {
    let unit = unit.unwrap_or(Unit::Celsius);
    let temperature = match unit {
        Unit::Celsius => 21,
        Unit::Fahrenheit => 70,
    };
    Weather {
        city,
        unit,
        temperature,
    }
}

/// Why a division failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DivideError {
    /// The divisor was zero.
    ByZero,
}

impl fmt::Display for DivideError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("division by zero")
    }
}

/// Divide one number by another.
#[tool(read_only, idempotent)]
pub fn divide(
    /// The dividend.
    a: f64,
    /// The divisor; must not be zero.
    b: f64,
) -> Result<f64, DivideError> {
    if b == 0.0 {
        Err(DivideError::ByZero)
    } else {
        Ok(a / b)
    }
}

/// Replace the tags on the current document; returns how many tags it now has.
#[tool(idempotent)]
#[expect(
    clippy::needless_pass_by_value,
    reason = "a #[tool] fn takes its arguments owned"
)]
pub fn set_tags(
    /// The new tags.
    tags: Vec<String>,
) -> usize {
    tags.len()
}

/// A user's preferences.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Preferences {
    /// Whether to complete e-mail addresses while typing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auto_complete_email: Option<bool>,
    /// How many items to show per page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items_per_page: Option<u32>,
}

/// Store a user's preferences; returns what was stored.
#[tool]
#[expect(
    clippy::needless_pass_by_value,
    reason = "a #[tool] fn takes its arguments owned"
)]
pub fn update_preferences(
    /// The user's unique code.
    unique_code: String,
    /// The preferences to store.
    data: Preferences,
) -> Preferences {
    let _ = unique_code;
    data
}

/// Search the catalogue.
#[tool(read_only)]
#[expect(
    clippy::needless_pass_by_value,
    reason = "a #[tool] fn takes its arguments owned"
)]
pub fn search(
    /// What to look for.
    query: String,
    /// How many results to return, from 1 to 50.
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
) -> Result<Value, String> {
    if !(1..=50).contains(&limit) {
        return Err(format!("limit must be from 1 to 50, not {limit}"));
    }
    Ok(json!({"query": query, "limit": limit}))
}

/// Say who is asking, and in which call.
#[tool(read_only)]
pub fn whoami(#[tool(context)] ctx: &DemoContext, #[tool(call_info)] info: &CallInfo) -> Value {
    json!({"user_id": ctx.user_id, "call_id": info.call_id()})
}

/// Always fails: demonstrates that a panicking tool becomes an error result.
#[tool]
pub fn explode() -> String {
    panic!("the secret API key is sk-do-not-leak")
}

/// An invoice, kept for the application as the processed result of `create_invoice`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invoice {
    /// Who is paid.
    pub vendor_name: String,
    /// The amount, as written.
    pub total_amount: String,
}

/// Create an invoice for a vendor.
#[tool(destructive = false)]
pub fn create_invoice(
    /// The vendor's name.
    vendor_name: String,
    /// The total amount, e.g. "120.50 EUR".
    total_amount: String,
) -> ToolOutput {
    ToolOutput::text("SUCCESS").with_native(Invoice {
        vendor_name,
        total_amount,
    })
}

// Waits without holding a thread, and may run beside other calls: twenty 300 ms sleeps in one
// batch take about as long as one.
/// Wait `ms` milliseconds, then return `ms`.
#[tool(concurrent)]
pub async fn sleep(
    /// How long to wait, in milliseconds (at most ten minutes).
    #[schemars(range(max = 600_000))]
    ms: u64,
) -> u64 {
    toolwright::exec::sleep(std::time::Duration::from_millis(ms)).await;
    ms
}

/// The demo toolbox.
pub fn toolbox() -> Toolbox<DemoContext> {
    let mut tools = Toolbox::for_context();
    tools
        .register(AddTool)
        .and_then(|t| t.register(GetWeatherTool))
        .and_then(|t| t.register(DivideTool))
        .and_then(|t| t.register(SetTagsTool))
        .and_then(|t| t.register(UpdatePreferencesTool))
        .and_then(|t| t.register(SearchTool))
        .and_then(|t| t.register(WhoamiTool))
        .and_then(|t| t.register(ExplodeTool))
        .and_then(|t| t.register(CreateInvoiceTool))
        .and_then(|t| t.register(SleepTool))
        .expect("the demo tools have distinct names");
    tools
}

/// The context the demo runs with.
pub fn context() -> DemoContext {
    DemoContext {
        user_id: "u-42".to_owned(),
    }
}
