//! Each provider in a folder of its own: the form of its tool list and of a schema, its name
//! rules, reading its responses and streams, its results, its tool choice and the next turn's
//! assistant message, all given to the rest of the runtime as one [`Spec`]. What they share is
//! below them (`wire`, `forms`).

mod anthropic;
pub(crate) mod bedrock;
mod cohere;
mod gemini;
pub(crate) mod mcp;
pub(crate) mod openai;

use crate::forms::Provider;
use crate::wire::spec::Spec;

/// What toolwright knows about `provider`.
pub(crate) fn spec(provider: Provider) -> &'static Spec {
    match provider {
        Provider::OpenAiChat => &openai::CHAT,
        Provider::OpenAiResponses => &openai::RESPONSES,
        Provider::Anthropic => &anthropic::SPEC,
        Provider::Gemini => &gemini::SPEC,
        Provider::Mcp => &mcp::SPEC,
        Provider::Cohere => &cohere::SPEC,
        Provider::Bedrock => &bedrock::SPEC,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::spec;
    use crate::forms::lint::{Lint, Rule, Severity};
    use crate::forms::{Form, Provider};

    /// Every form of every provider, as its `Spec` builds it.
    fn forms() -> Vec<Form> {
        let mut forms: Vec<Form> = Provider::ALL
            .into_iter()
            .flat_map(|provider| [Form::new(provider), Form::strict(provider)])
            .collect();
        forms.push(Form::gemini_json_schema());
        forms.sort();
        forms.dedup();
        forms
    }

    /// One required property `x` of `property`'s schema, in `form`: the property as the form
    /// has it, and the lints.
    fn property_in(form: Form, property: Value) -> (Value, Vec<Lint>) {
        let parameters = json!({
            "type": "object",
            "properties": {"x": property},
            "required": ["x"],
            "additionalProperties": false,
        });
        let spec = spec(form.provider());
        let (schema, lints) =
            form.transform(&parameters, false, spec.schema, (spec.keywords)(form));
        (schema["properties"]["x"].clone(), lints)
    }

    /// A property that uses `keyword`, with a value that means something for it.
    fn using(keyword: &str) -> Value {
        let (ty, value) = match keyword {
            "minLength" | "maxLength" => ("string", json!(2)),
            "minItems" | "maxItems" | "minContains" | "maxContains" => ("array", json!(2)),
            "uniqueItems" => ("array", json!(true)),
            "contains" => ("array", json!({"type": "integer"})),
            "unevaluatedItems" => ("array", json!(false)),
            "minProperties" | "maxProperties" => ("object", json!(1)),
            "propertyNames" => ("object", json!({"pattern": "^a"})),
            "dependentRequired" => ("object", json!({"a": ["b"]})),
            "dependentSchemas" => ("object", json!({"a": {"required": ["b"]}})),
            "unevaluatedProperties" => ("object", json!(false)),
            "not" | "if" | "then" | "else" => ("integer", json!({"minimum": 3})),
            _ => ("number", json!(3)),
        };
        let mut property = json!({"type": ty});
        property[keyword] = value;
        if ty == "array" {
            property["items"] = json!({"type": "integer"});
        }
        property
    }

    /// The table each form states is what its pass does: keywords it says in the description are
    /// gone from the schema and said; keywords it drops are gone, with a warning naming them; a
    /// keyword it does not take is gone; the formats it takes stay, another goes with a note.
    #[test]
    fn each_form_does_what_its_keyword_table_says() {
        for form in forms() {
            let table = (spec(form.provider()).keywords)(form);
            for keyword in table.described {
                let (property, _) = property_in(form, using(keyword));
                assert!(property.get(keyword).is_none(), "{form}: {keyword} kept");
                assert!(
                    property["description"]
                        .as_str()
                        .is_some_and(|d| !d.is_empty()),
                    "{form}: {keyword} not said: {property}"
                );
            }
            for keyword in table.dropped {
                let (property, lints) = property_in(form, using(keyword));
                assert!(property.get(keyword).is_none(), "{form}: {keyword} kept");
                assert!(
                    lints
                        .iter()
                        .any(|lint| lint.rule == Rule::Keyword((*keyword).into())
                            && lint.severity == Severity::Warning),
                    "{form}: {keyword} dropped without a warning: {lints:?}"
                );
            }
            // A rule (not an annotation, which goes without a word) no form lists as taken.
            let rule = "dependentRequired";
            let (property, lints) = property_in(form, using(rule));
            match table.taken {
                Some(taken) => {
                    assert!(!taken.contains(&rule));
                    assert!(property.get(rule).is_none(), "{form}");
                    assert!(
                        lints
                            .iter()
                            .any(|lint| lint.rule == Rule::Keyword(rule.into())),
                        "{form}: {lints:?}"
                    );
                }
                None if table.dropped.contains(&rule) => {}
                None => assert_eq!(property[rule], json!({"a": ["b"]}), "{form}"),
            }
            let (property, lints) =
                property_in(form, json!({"type": "string", "format": "x-made-up"}));
            match table.formats {
                Some(formats) => {
                    assert!(property.get("format").is_none(), "{form}");
                    assert!(
                        lints
                            .iter()
                            .any(|lint| lint.rule == Rule::Format("x-made-up".into())),
                        "{form}: {lints:?}"
                    );
                    for format in formats {
                        let (property, _) =
                            property_in(form, json!({"type": "string", "format": format}));
                        assert_eq!(property["format"], *format, "{form}");
                    }
                }
                None => assert_eq!(property["format"], "x-made-up", "{form}"),
            }
        }
    }
}
