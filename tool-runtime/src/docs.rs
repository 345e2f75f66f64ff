//! Descriptions from doc comments.
//!
//! The macro hands over a tool's doc attributes unevaluated, as one `concat!` of their expressions
//! (so `#[doc = include_str!(..)]` works); the text is tidied here, once per tool.

/// A fn's doc text split into the tool description and the rustdoc `# Arguments` list.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Docs {
    pub(crate) description: String,
    pub(crate) arguments: Vec<(String, String)>,
}

/// Removes the indentation every line shares (the space after `///`) and blank edges.
pub(crate) fn tidy(raw: &str) -> String {
    let indent = raw
        .lines()
        .filter(|line| !line.trim().is_empty())
        .map(|line| line.len() - line.trim_start().len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = raw
        .lines()
        .map(|line| line.get(indent..).unwrap_or("").trim_end())
        .collect();
    lines.join("\n").trim_matches('\n').to_owned()
}

/// Splits tidy doc text: the `# Arguments` section (items such as ``* `city` - the city``) is taken
/// out of the description and returned as per-argument descriptions.
pub(crate) fn split(raw: &str) -> Docs {
    let text = tidy(raw);
    let mut description = Vec::new();
    let mut arguments: Vec<(String, String)> = Vec::new();
    let mut in_arguments = false;
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('#') {
            let heading = trimmed.trim_start_matches('#').trim();
            in_arguments = heading.eq_ignore_ascii_case("arguments")
                || heading.eq_ignore_ascii_case("parameters");
            if in_arguments {
                continue;
            }
        }
        if !in_arguments {
            description.push(line);
            continue;
        }
        if let Some(item) = trimmed
            .strip_prefix("* ")
            .or_else(|| trimmed.strip_prefix("- "))
        {
            if let Some((name, desc)) = argument_item(item) {
                arguments.push((name, desc));
            }
        } else if let (Some(last), false) = (arguments.last_mut(), trimmed.is_empty()) {
            // A continuation line of the previous item.
            last.1.push(' ');
            last.1.push_str(trimmed);
        }
    }
    Docs {
        description: description.join("\n").trim().to_owned(),
        arguments,
    }
}

/// ``  `city` - the city `` or `city: the city`.
fn argument_item(item: &str) -> Option<(String, String)> {
    let item = item.trim();
    let (name, rest) = if let Some(rest) = item.strip_prefix('`') {
        let end = rest.find('`')?;
        (&rest[..end], &rest[end + 1..])
    } else {
        let end = item.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
        (&item[..end], &item[end..])
    };
    let desc = rest.trim_start().trim_start_matches(['-', ':', '–']).trim();
    (!name.is_empty() && !desc.is_empty()).then(|| (name.to_owned(), desc.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_removes_the_doc_comment_space() {
        assert_eq!(
            tidy(" Get the weather.\n\n   Indented code."),
            "Get the weather.\n\n  Indented code."
        );
    }

    #[test]
    fn the_arguments_section_becomes_parameter_docs() {
        let docs = split(
            " Get the weather.\n\n # Arguments\n\n * `city` - City name,\n   e.g. Paris.\n * `unit` - The unit.\n\n # Errors\n When offline.",
        );
        assert_eq!(
            docs.description,
            "Get the weather.\n\n# Errors\nWhen offline."
        );
        assert_eq!(
            docs.arguments,
            [
                ("city".to_owned(), "City name, e.g. Paris.".to_owned()),
                ("unit".to_owned(), "The unit.".to_owned()),
            ]
        );
    }
}
