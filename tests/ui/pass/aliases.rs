use schemars::JsonSchema;
use serde::Deserialize;
use toolwright::{ToolCall, Toolbox, tool};

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

// Optional-ness and result handling are decided by traits, not by type names.
type Maybe<T> = Option<T>;
type Fallible<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Convert a temperature.
#[tool]
fn convert(degrees: f64, unit: Maybe<Unit>) -> Fallible<f64> {
    match unit {
        Some(Unit::Fahrenheit) => Ok(degrees * 9.0 / 5.0 + 32.0),
        Some(Unit::Celsius) | None => Ok(degrees),
    }
}

fn main() {
    let tools = Toolbox::new().with(ConvertTool).unwrap();
    let def = tools.get("convert").unwrap().definition();
    assert_eq!(def.required_param_names(), ["degrees"]);
    let result = tools.execute_blocking(&ToolCall::new("1", "convert", r#"{"degrees": 100}"#), &());
    assert_eq!(result.text(), "100.0");
}
