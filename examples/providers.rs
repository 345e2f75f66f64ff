//! Prints the demo toolbox's tool list as one provider's request wants it, or, with
//! `--tool-choice`, every tool field of the request.
//!
//! ```text
//! cargo run --example providers -- <form> [--tool-choice <mode>] [--parallel-calls <true|false>] [--narrow-tools]
//! ```
//!
//! `<form>` is one of `openai`, `openai-strict`, `openai-responses`, `anthropic`,
//! `anthropic-strict`, `gemini`, `gemini-json-schema`, `mcp`, `cohere`, `bedrock`. The output is
//! one JSON document: the request's `tools` array for OpenAI, Anthropic and Cohere (for Bedrock,
//! the array `toolConfig.tools` holds), the `tools` array (one `functionDeclarations` entry) for
//! Gemini, the `tools/list` result for MCP. A form's lint errors go to stderr, and the exit code is 1; warnings and notes go to stderr too.
//!
//! With `--tool-choice <mode>` (`auto`, `none`, `required`, `tool:<name>`, `allowed:<a>,<b>`,
//! `required:<a>,<b>`) the output is instead the JSON object of the request's tool fields, as
//! `Toolbox::request_fields` writes them: `tools` with `tool_choice` (and
//! `parallel_tool_calls`) for OpenAI, `tools` with `tool_choice` for Anthropic, `tools` with
//! `toolConfig` for Gemini, `tools` with `tool_choice` (`REQUIRED` or `NONE`; a named tool or a
//! subset narrows `tools`) for Cohere, `toolConfig` (with `tools` and `toolChoice`) for Bedrock.
//! A choice the provider cannot take (any for `mcp`, `none` for `bedrock`, a tool not in the
//! toolbox) is an error on stderr, exit code 1. A bad argument is exit code 2.

#[allow(dead_code)] // The context is for running tools; this only lists them.
mod demo;
mod output;

use std::process::ExitCode;

use toolwright::provider::{ToolChoice, ToolRequest};
use toolwright::{Toolbox, provider::Provider, schema::Severity};

const FORMS: &str = "openai, openai-strict, openai-responses, anthropic, anthropic-strict, gemini, gemini-json-schema, mcp, cohere, bedrock";

const USAGE: &str = "usage: providers <form> [--tool-choice <mode>] [--parallel-calls <true|false>] [--narrow-tools]";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let Some(form) = args.next() else {
        eprintln!("{USAGE}; <form> is one of {FORMS}");
        return ExitCode::from(2);
    };
    let (provider, strict, json_schema) = match form.as_str() {
        "openai" => (Provider::OpenAiChat, false, false),
        "openai-strict" => (Provider::OpenAiChat, true, false),
        "openai-responses" => (Provider::OpenAiResponses, false, false),
        "anthropic" => (Provider::Anthropic, false, false),
        "anthropic-strict" => (Provider::Anthropic, true, false),
        "gemini" => (Provider::Gemini, false, false),
        "gemini-json-schema" => (Provider::Gemini, false, true),
        "mcp" => (Provider::Mcp, false, false),
        "cohere" => (Provider::Cohere, false, false),
        "bedrock" => (Provider::Bedrock, false, false),
        other => {
            eprintln!("unknown form {other:?}; <form> is one of {FORMS}");
            return ExitCode::from(2);
        }
    };
    let mut request: Option<ToolRequest> = None;
    let mut parallel = None;
    let mut narrow = false;
    while let Some(flag) = args.next() {
        let value = match flag.as_str() {
            "--narrow-tools" => {
                narrow = true;
                continue;
            }
            "--tool-choice" | "--parallel-calls" => args.next(),
            other => {
                eprintln!("unknown argument {other:?}; {USAGE}");
                return ExitCode::from(2);
            }
        };
        let Some(value) = value else {
            eprintln!("{flag} needs a value; {USAGE}");
            return ExitCode::from(2);
        };
        if flag == "--tool-choice" {
            match value.parse::<ToolChoice>() {
                Ok(choice) => request = Some(ToolRequest::new(choice)),
                Err(error) => {
                    eprintln!("{error}");
                    return ExitCode::from(2);
                }
            }
        } else {
            match value.as_str() {
                "true" => parallel = Some(true),
                "false" => parallel = Some(false),
                _ => {
                    eprintln!("--parallel-calls takes true or false, not {value:?}");
                    return ExitCode::from(2);
                }
            }
        }
    }
    let tools = demo::toolbox()
        .with_strict(strict)
        .with_gemini_json_schema(json_schema);
    let Some(mut request) = request else {
        if parallel.is_some() || narrow {
            eprintln!("--parallel-calls and --narrow-tools go with --tool-choice; {USAGE}");
            return ExitCode::from(2);
        }
        return print_list(&tools, provider);
    };
    if let Some(on) = parallel {
        request = request.parallel_calls(on);
    }
    match tools.request_fields(provider, request.narrow_tools(narrow)) {
        Ok(fields) => print(&fields),
        Err(error) => {
            eprintln!("{error}");
            ExitCode::FAILURE
        }
    }
}

/// The tool list alone, with its lints on stderr.
fn print_list<C: ?Sized + Sync + 'static>(tools: &Toolbox<C>, provider: Provider) -> ExitCode {
    match tools.tools_for(provider) {
        Ok(list) => {
            // Warnings (a rule the form drops; the runtime still enforces it); notes, which need
            // nothing, are only counted.
            let notes = list
                .lints()
                .filter(|lint| lint.severity == Severity::Note)
                .count();
            for lint in list.lints().filter(|lint| lint.severity > Severity::Note) {
                eprintln!("{lint}");
            }
            if notes > 0 {
                eprintln!("({notes} notes: rules this form says in other words; nothing to do)");
            }
            print(&list)
        }
        Err(errors) => {
            eprintln!("{errors}");
            ExitCode::FAILURE
        }
    }
}

fn print(document: &impl serde::Serialize) -> ExitCode {
    match serde_json::to_string_pretty(document) {
        Ok(text) => {
            output::say!("{text}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("could not write the document: {error}");
            ExitCode::FAILURE
        }
    }
}
