//! Prints the demo toolbox's tool list as one provider's request wants it.
//!
//! ```text
//! cargo run --example providers -- <form>
//! ```
//!
//! `<form>` is one of `openai`, `openai-strict`, `openai-responses`, `anthropic`,
//! `anthropic-strict`, `gemini`, `gemini-json-schema`, `mcp`. The output is one JSON document:
//! the request's `tools` array for OpenAI and Anthropic, the `tools` array (one
//! `functionDeclarations` entry) for Gemini, the `tools/list` result for MCP. A form's lint
//! errors go to stderr, and the exit code is 1; warnings and notes go to stderr too.

#[allow(dead_code)] // The context is for running tools; this only lists them.
mod demo;
mod output;

use std::process::ExitCode;

use toolwright::{Severity, ToolFormat};

const FORMS: &str = "openai, openai-strict, openai-responses, anthropic, anthropic-strict, gemini, gemini-json-schema, mcp";

fn main() -> ExitCode {
    let Some(form) = std::env::args().nth(1) else {
        eprintln!("usage: providers <form>; <form> is one of {FORMS}");
        return ExitCode::from(2);
    };
    let (format, strict) = match form.as_str() {
        "openai" => (ToolFormat::OpenAiChat, false),
        "openai-strict" => (ToolFormat::OpenAiChat, true),
        "openai-responses" => (ToolFormat::OpenAiResponses, false),
        "anthropic" => (ToolFormat::Anthropic, false),
        "anthropic-strict" => (ToolFormat::Anthropic, true),
        "gemini" => (ToolFormat::Gemini, false),
        "gemini-json-schema" => (ToolFormat::GeminiJsonSchema, false),
        "mcp" => (ToolFormat::Mcp, false),
        other => {
            eprintln!("unknown form {other:?}; <form> is one of {FORMS}");
            return ExitCode::from(2);
        }
    };
    let tools = demo::toolbox().with_strict(strict);
    match tools.tools_for(format) {
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
            match serde_json::to_string_pretty(&list) {
                Ok(text) => {
                    output::say!("{text}");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("could not write the list: {error}");
                    ExitCode::FAILURE
                }
            }
        }
        Err(errors) => {
            eprintln!("{errors}");
            ExitCode::FAILURE
        }
    }
}
