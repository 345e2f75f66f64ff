//! The tool and the hand-written baseline both dispatch benches measure.

use schemars::JsonSchema;
use serde::Deserialize;
use toolwright::tool;

/// Add two integers.
#[tool]
pub fn add(
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
) -> i64 {
    a + b
}

/// Search the catalogue.
#[tool]
pub fn search(
    /// What to look for.
    query: String,
    /// How many results, from 1 to 50.
    #[schemars(range(min = 1, max = 50))]
    limit: u32,
) -> String {
    format!("{query}:{limit}")
}

/// Where a place is.
#[derive(Deserialize, JsonSchema)]
pub struct Geo {
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lon: f64,
}

/// A postal address.
#[derive(Deserialize, JsonSchema)]
pub struct Address {
    /// Street and number.
    pub street: String,
    /// The city.
    pub city: String,
    /// Where it is.
    pub geo: Geo,
}

/// Someone to register.
#[derive(Deserialize, JsonSchema)]
pub struct Person {
    /// Their name.
    pub name: String,
    /// Their age.
    pub age: u32,
    /// Where they live.
    pub address: Address,
}

/// Register a person, with tags: three levels of structs and an array. Returns how much was
/// registered (a number, so the fn itself costs little beside the dispatch).
#[tool]
pub fn register(
    /// Who.
    person: Person,
    /// Labels for them.
    tags: Vec<String>,
) -> u64 {
    let Person { name, age, address } = person;
    let inside =
        (-90.0..=90.0).contains(&address.geo.lat) && (-180.0..=180.0).contains(&address.geo.lon);
    (name.len() + address.street.len() + address.city.len() + tags.len()) as u64
        + u64::from(age)
        + u64::from(inside)
}

/// The three tools' arguments, as each bench sends them.
pub const ADD_ARGS: &str = r#"{"a": 2, "b": 3}"#;
pub const SEARCH_ARGS: &str = r#"{"query": "rust tools", "limit": 10}"#;
pub const REGISTER_ARGS: &str = r#"{"person": {"name": "Ada Lovelace", "age": 36, "address": {"street": "12 St James's Square", "city": "London", "geo": {"lat": 51.5074, "lon": -0.1345}}}, "tags": ["mathematician", "writer"]}"#;

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    limit: u32,
}

#[derive(Deserialize)]
struct RegisterArgs {
    person: Person,
    tags: Vec<String>,
}

/// What a hand-written dispatcher returns: the call id, the content and the error flag.
pub struct Baseline {
    pub call_id: String,
    pub content: String,
    pub is_error: bool,
}

/// The least any dispatcher must do: serde_json into the arguments struct, call the fn,
/// serialize the result.
pub fn baseline(call_id: &str, arguments: &str) -> Baseline {
    finish(
        call_id.to_owned(),
        add_content(serde_json::from_str(arguments)),
    )
}

/// [`baseline`] for arguments that arrive as a JSON value: serde from the value.
pub fn baseline_value(call_id: &str, arguments: &serde_json::Value) -> Baseline {
    finish(
        call_id.to_owned(),
        add_content(AddArgs::deserialize(arguments)),
    )
}

/// [`baseline`] for `search`, its range checked by hand as a hand-written tool would.
pub fn baseline_search(call_id: &str, arguments: &str) -> Baseline {
    finish(call_id.to_owned(), search_content(arguments))
}

/// [`baseline`] for `register`.
pub fn baseline_register(call_id: &str, arguments: &str) -> Baseline {
    finish(call_id.to_owned(), register_content(arguments))
}

/// A hand-written dispatcher given what a provider reader owns (the id, the name, the argument
/// text): the tool picked by name, then as above; the id moves into the result, the rest is
/// dropped with the call.
pub fn baseline_owned(call_id: String, name: String, arguments: String) -> Baseline {
    let content = match name.as_str() {
        "add" => add_content(serde_json::from_str(&arguments)),
        "search" => search_content(&arguments),
        "register" => register_content(&arguments),
        _ => Err(format!("no tool {name}")),
    };
    finish(call_id, content)
}

fn add_content(args: Result<AddArgs, serde_json::Error>) -> Result<String, String> {
    match args {
        Ok(args) => Ok(serde_json::to_string(&add(args.a, args.b)).unwrap_or_default()),
        Err(error) => Err(error.to_string()),
    }
}

fn search_content(arguments: &str) -> Result<String, String> {
    match serde_json::from_str::<SearchArgs>(arguments) {
        Ok(args) if (1..=50).contains(&args.limit) => {
            Ok(serde_json::to_string(&search(args.query, args.limit)).unwrap_or_default())
        }
        Ok(args) => Err(format!("limit must be from 1 to 50, not {}", args.limit)),
        Err(error) => Err(error.to_string()),
    }
}

fn register_content(arguments: &str) -> Result<String, String> {
    match serde_json::from_str::<RegisterArgs>(arguments) {
        Ok(args) => {
            Ok(serde_json::to_string(&register(args.person, args.tags)).unwrap_or_default())
        }
        Err(error) => Err(error.to_string()),
    }
}

fn finish(call_id: String, content: Result<String, String>) -> Baseline {
    match content {
        Ok(content) => Baseline {
            call_id,
            content,
            is_error: false,
        },
        Err(content) => Baseline {
            call_id,
            content,
            is_error: true,
        },
    }
}
