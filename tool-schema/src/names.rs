//! Close matches for names a model misspelled: tools and arguments.

/// The candidates that `name` plausibly misspells, best first.
///
/// Names are compared case-insensitively with `_` and `-` ignored; a candidate matches when it is
/// similar (Jaro-Winkler of at least 0.8) or when one name contains the other (`file_path` and
/// `path`), which is how models most often get argument names wrong.
pub fn close_matches<'a, I>(name: &str, candidates: I) -> Vec<String>
where
    I: IntoIterator<Item = &'a str>,
{
    let wanted = normalize(name);
    let mut scored: Vec<(f64, &str)> = candidates
        .into_iter()
        // A name more than twice as long as a candidate (and then some) misspells none of
        // them, and comparing a name of megabytes would cost.
        .filter(|candidate| name.len() <= 2 * candidate.len() + 16 && *candidate != name)
        .filter_map(|candidate| {
            let have = normalize(candidate);
            let similarity = strsim::jaro_winkler(&wanted, &have);
            let contained = wanted.len().min(have.len()) >= 3
                && (wanted.contains(have.as_str()) || have.contains(wanted.as_str()));
            let score = if contained {
                similarity.max(0.85)
            } else {
                similarity
            };
            (score >= 0.8).then_some((score, candidate))
        })
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    scored
        .into_iter()
        .take(3)
        .map(|(_, c)| c.to_owned())
        .collect()
}

fn normalize(name: &str) -> String {
    name.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// Writes `` `a`, `b` or `c` `` for a list of names.
pub fn list(names: &[String], last_joiner: &str) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.as_slice() {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} {last_joiner} {last}", init.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffix_and_prefix_names_match() {
        assert_eq!(close_matches("file_path", ["path", "query"]), ["path"]);
        assert_eq!(close_matches("city_name", ["city", "unit"]), ["city"]);
    }

    #[test]
    fn typos_match_and_strangers_do_not() {
        assert_eq!(
            close_matches("get_wether", ["get_weather", "add"]),
            ["get_weather"]
        );
        assert!(close_matches("zzz", ["get_weather", "add"]).is_empty());
    }

    #[test]
    fn case_and_separators_are_ignored() {
        assert_eq!(
            close_matches("uniqueCode", ["unique_code", "data"]),
            ["unique_code"]
        );
    }

    #[test]
    fn lists_read_as_english() {
        let names = vec!["a".to_owned(), "b".to_owned(), "c".to_owned()];
        assert_eq!(list(&names, "or"), "`a`, `b` or `c`");
        assert_eq!(list(&names[..1], "or"), "`a`");
    }
}
