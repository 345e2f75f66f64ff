//! Layers point down (ARCHITECTURE.md, invariant 1): the layers ARCHITECTURE.md lists, read from it and
//! checked against the code. Each crate's top-level modules are listed bottom first, a few to a
//! layer; a module may name (`crate::m`, `use crate::{m, ..}`, a `super::` path that climbs to the
//! root) a module of its own layer or a lower one, never a higher one, and the modules of a layer
//! form no cycle. A module that names an item at the crate root (`crate::ToolCall`) hides which
//! module it uses: it names the module instead. Tests are outside the layers. Between crates: a
//! workspace crate depends only on crates listed before it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// One crate's layers, bottom first: (layer name, its modules).
#[derive(Debug)]
struct CrateLayers {
    /// The crate's source folder, from the repository root.
    src: String,
    layers: Vec<(String, Vec<String>)>,
}

#[derive(Debug)]
struct Map {
    /// The workspace's crates, each after those it depends on.
    crates: Vec<String>,
    modules: Vec<CrateLayers>,
}

/// Reads the ```` ```layers ```` block of ARCHITECTURE.md: a line `crates: a b c`, then per crate a
/// line with its source folder and, indented under it, one line per layer: its name and modules.
fn read_map(markdown: &str) -> Map {
    let block = markdown
        .split("```layers\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("ARCHITECTURE.md has a ```layers block");
    let mut map = Map {
        crates: Vec::new(),
        modules: Vec::new(),
    };
    for line in block.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let words: Vec<String> = line.split_whitespace().map(str::to_owned).collect();
        if let Some(crates) = line.strip_prefix("crates:") {
            map.crates = crates.split_whitespace().map(str::to_owned).collect();
        } else if line.starts_with(' ') {
            let current = map
                .modules
                .last_mut()
                .expect("a layer line follows a crate line");
            current.layers.push((words[0].clone(), words[1..].to_vec()));
        } else {
            map.modules.push(CrateLayers {
                src: words[0].clone(),
                layers: Vec::new(),
            });
        }
    }
    map
}

/// Lines of code only: comment lines and the contents of string literals say nothing about
/// dependencies (a doc link is not an import).
fn code_lines(text: &str) -> impl Iterator<Item = (usize, String)> + '_ {
    text.lines().enumerate().filter_map(|(number, line)| {
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            return None;
        }
        let mut code = String::with_capacity(line.len());
        let mut in_string = false;
        let mut escaped = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if in_string {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == '"' {
                    in_string = false;
                }
                continue;
            }
            if c == '"' {
                in_string = true;
                code.push(c);
                continue;
            }
            // A char literal (`'{'`, `'\\''`), not a lifetime: dropped with its quotes.
            if c == '\'' {
                let rest: Vec<char> = chars.clone().take(3).collect();
                let skip = match rest.as_slice() {
                    ['\\', _, '\''] => 3,
                    [ch, '\'', ..] if *ch != '\\' => 2,
                    _ => 0,
                };
                if skip > 0 {
                    for _ in 0..skip {
                        chars.next();
                    }
                    continue;
                }
            }
            if c == '/' && chars.peek() == Some(&'/') {
                break;
            }
            code.push(c);
        }
        Some((number + 1, code))
    })
}

fn ident_at(text: &str) -> &str {
    let end = text
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(text.len());
    &text[..end]
}

/// The paths a module's text names through the crate (each with the line it starts on), as
/// module paths from the root: `crate::a::b::C` gives `[a, b, C]`; `use crate::{a::b, c::{d,
/// e}}` gives `[a, b]`, `[c, d]` and `[c, e]` (a `use` may span lines); a `super::` path is
/// resolved from `module`, the file's own module path (`a.rs` and `a/mod.rs` are `[a]`, `a/b.rs`
/// `[a, b]`), and left out while it stays inside the file (an inline `mod x { .. }` it climbs
/// out of).
fn named_paths(text: &str, module: &[String]) -> Vec<(usize, Vec<String>)> {
    let lines: Vec<(usize, String)> = code_lines(text).collect();
    let joined: String = lines.iter().map(|(_, code)| format!("{code}\n")).collect();
    // Byte offset -> line number.
    let mut starts = Vec::new();
    let mut offset = 0;
    for (number, code) in &lines {
        starts.push((offset, *number));
        offset += code.len() + 1;
    }
    let line_of = |at: usize| {
        starts
            .iter()
            .rev()
            .find(|(start, _)| *start <= at)
            .map_or(0, |(_, number)| *number)
    };
    // Where each path's first name starts, and the module path it is read from.
    let mut roots: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for (at, _) in joined.match_indices("crate::") {
        // `$crate::` (a macro's path) is the same crate.
        let before = joined[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        roots.push((at, at + "crate::".len(), Vec::new()));
    }
    for (at, _) in joined.match_indices("super::") {
        let before = joined[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut end = at;
        let mut climbs = 0usize;
        while joined[end..].starts_with("super::") {
            end += "super::".len();
            climbs += 1;
        }
        // Inline `mod x { .. }` blocks open around this place are levels of the file first.
        let Some(out) = climbs.checked_sub(inline_depth(&joined[..at])) else {
            continue;
        };
        if out == 0 || out > module.len() {
            continue;
        }
        roots.push((at, end, module[..module.len() - out].to_vec()));
    }
    let mut paths = Vec::new();
    for (at, start, base) in roots {
        let mut found = Vec::new();
        read_tree(&joined, start, base, &mut found);
        for (place, path) in found {
            // A path written whole starts on the line of its root; a group's items on their own.
            let place = if place == start { at } else { place };
            paths.push((line_of(place), path));
        }
    }
    paths
}

/// Reads a path's tail from `at` (`a::b::C`, `a::{b, c::{d, e}}`), adding each whole path to
/// `prefix` and to `out` with where its last group item starts. A macro's name keeps its `!`.
fn read_tree(text: &str, at: usize, prefix: Vec<String>, out: &mut Vec<(usize, Vec<String>)>) {
    let mut path = prefix;
    let mut at = at;
    let first = at;
    loop {
        let rest = &text[at..];
        if let Some(group) = rest.strip_prefix('{') {
            // The group's items: split on commas outside nested braces.
            let mut depth = 0usize;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => return,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    c if c.is_whitespace() => {}
                    _ if item_start && depth == 0 => {
                        item_start = false;
                        let item = at + 1 + i;
                        let mut found = Vec::new();
                        read_tree(text, item, path.clone(), &mut found);
                        out.extend(found.into_iter().map(|(_, path)| (item, path)));
                    }
                    _ => {}
                }
            }
            return;
        }
        let name = ident_at(rest);
        if name.is_empty() || name == "self" {
            break;
        }
        let after = &rest[name.len()..];
        if after.starts_with('!') {
            path.push(format!("{name}!"));
            break;
        }
        path.push(name.to_owned());
        match after.strip_prefix("::") {
            Some(_) => at += name.len() + 2,
            None => break,
        }
    }
    if !path.is_empty() {
        out.push((first, path));
    }
}

/// The names a module's text reaches at the crate root, each with its line: the first name of
/// each path of [`named_paths`].
fn crate_names(text: &str, module: &[String]) -> Vec<(usize, String)> {
    named_paths(text, module)
        .into_iter()
        .filter_map(|(line, path)| Some((line, path.into_iter().next()?)))
        .collect()
}

/// The text with every item under `#[cfg(test)]` blanked out, line numbers kept.
fn without_tests(text: &str) -> String {
    text.lines()
        .zip(test_lines(text))
        .map(|(line, test)| {
            if test {
                "\n".to_owned()
            } else {
                format!("{line}\n")
            }
        })
        .collect()
}

/// Which lines belong to an item under `#[cfg(test)]`: a test module, a test-only `use` or fn,
/// wherever in the file it stands (a test is outside the layers; one placed above the imports
/// must not hide them).
fn test_lines(text: &str) -> Vec<bool> {
    // The code is rustfmt's: an item that does not end on its first line ends on the first
    // line after it that closes a brace at its indentation.
    let lines: Vec<&str> = text.lines().collect();
    let indent = |line: &str| line.len() - line.trim_start().len();
    let mut test_lines = vec![false; lines.len()];
    let mut number = 0;
    while number < lines.len() {
        if lines[number].trim_start() != "#[cfg(test)]" {
            number += 1;
            continue;
        }
        let column = indent(lines[number]);
        let mut end = number + 1;
        // Its other attributes, then the item.
        while end < lines.len() && lines[end].trim_start().starts_with("#[") {
            end += 1;
        }
        if end < lines.len() && !lines[end].trim_end().ends_with(';') {
            end = (end + 1..lines.len())
                .find(|&at| indent(lines[at]) == column && lines[at].trim_start().starts_with('}'))
                .unwrap_or(lines.len() - 1);
        }
        let end = end.min(lines.len() - 1);
        for flag in &mut test_lines[number..=end] {
            *flag = true;
        }
        number = end + 1;
    }
    test_lines
}

/// A file's module path from its path in the source folder: `a.rs` and `a/mod.rs` are `[a]`,
/// `a/b.rs` is `[a, b]`, `lib.rs` is `[]`.
fn module_of(path: &str) -> Vec<String> {
    let path = path.trim_end_matches(".rs");
    let path = path.strip_suffix("/mod").unwrap_or(path);
    if path == "lib" {
        return Vec::new();
    }
    path.split('/').map(str::to_owned).collect()
}

/// Each cycle of `edges` (between modules or files, each with where it is written) as a problem
/// of `scope`, naming the places that make it.
fn cycle_problems(
    edges: &BTreeMap<(String, String), String>,
    scope: &str,
    what: &str,
) -> Vec<String> {
    let graph = edges.keys().fold(
        BTreeMap::new(),
        |mut graph: BTreeMap<&str, Vec<&str>>, (a, b)| {
            graph.entry(a.as_str()).or_default().push(b.as_str());
            graph
        },
    );
    cycles(&graph)
        .into_iter()
        .map(|cycle| {
            let places: Vec<&str> = cycle
                .iter()
                .zip(cycle.iter().cycle().skip(1))
                .map(|(a, b)| edges[&((*a).to_owned(), (*b).to_owned())].as_str())
                .collect();
            format!(
                "{scope}: {what} form a cycle: {} -> {} ({})",
                cycle.join(" -> "),
                cycle[0],
                places.join(", ")
            )
        })
        .collect()
}

/// Every cycle of a graph once, each rotated to start at its smallest node.
fn cycles<'g>(graph: &BTreeMap<&'g str, Vec<&'g str>>) -> Vec<Vec<&'g str>> {
    let mut found = Vec::new();
    let mut reported = BTreeSet::new();
    for start in graph.keys() {
        let mut stack = vec![(*start, vec![*start])];
        let mut seen = BTreeSet::new();
        while let Some((node, path)) = stack.pop() {
            for next in graph.get(node).into_iter().flatten() {
                if next == start {
                    let mut cycle: Vec<&str> = path.clone();
                    let smallest = (0..cycle.len()).min_by_key(|&i| cycle[i]).unwrap();
                    cycle.rotate_left(smallest);
                    if reported.insert(cycle.clone()) {
                        found.push(cycle);
                    }
                } else if seen.insert(*next) {
                    let mut longer = path.clone();
                    longer.push(next);
                    stack.push((next, longer));
                }
            }
        }
    }
    found
}

/// How many inline modules (`mod tests { .. }`) are open at the end of `code`.
fn inline_depth(code: &str) -> usize {
    let mut braces = 0usize;
    let mut open_mods: Vec<usize> = Vec::new();
    let mut pending_mod = false;
    let mut word = String::new();
    for c in code.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if word == "mod" {
            pending_mod = true;
        } else if !word.is_empty() && pending_mod && c != ' ' && c != '{' {
            pending_mod = false;
        }
        word.clear();
        match c {
            '{' => {
                braces += 1;
                if pending_mod {
                    open_mods.push(braces);
                    pending_mod = false;
                }
            }
            '}' => {
                if open_mods.last() == Some(&braces) {
                    open_mods.pop();
                }
                braces = braces.saturating_sub(1);
            }
            ';' => pending_mod = false,
            _ => {}
        }
    }
    open_mods.len()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The crate's top-level modules, from `mod m;` lines of its root.
fn declared_modules(lib: &str) -> BTreeSet<String> {
    code_lines(lib)
        .filter_map(|(_, line)| {
            let line = line.trim();
            let line = line.strip_prefix("pub ").unwrap_or(line);
            let line = line.strip_prefix("pub(crate) ").unwrap_or(line);
            let name = line.strip_prefix("mod ")?.strip_suffix(';')?;
            Some(name.trim().to_owned())
        })
        .collect()
}

/// Every way one crate's modules break its layers, as messages naming file and line.
/// `files`: (path relative to the source folder, text).
fn check_crate(layers: &CrateLayers, files: &[(String, String)]) -> Vec<String> {
    let mut problems = Vec::new();
    let mut rank = BTreeMap::new();
    for (index, (_, modules)) in layers.layers.iter().enumerate() {
        for module in modules {
            if rank.insert(module.clone(), index).is_some() {
                problems.push(format!("{}: `{module}` is listed twice", layers.src));
            }
        }
    }
    let lib = files
        .iter()
        .find(|(path, _)| path == "lib.rs")
        .map(|(_, text)| text.as_str())
        .unwrap_or_default();
    let declared = declared_modules(lib);
    for module in &declared {
        if !rank.contains_key(module) {
            problems.push(format!(
                "{}: module `{module}` is in no layer of ARCHITECTURE.md",
                layers.src
            ));
        }
    }
    for module in rank.keys() {
        if !declared.contains(module) {
            problems.push(format!(
                "{}: ARCHITECTURE.md lists `{module}`, which the crate does not declare",
                layers.src
            ));
        }
    }
    // Macros `#[macro_export]` puts at the crate root, wherever they are written.
    let macros: BTreeSet<String> = files
        .iter()
        .flat_map(|(_, text)| text.split("macro_rules!").skip(1))
        .map(|rest| ident_at(rest.trim_start()).to_owned())
        .collect();
    // Every module a file is, to tell a folder's files from the items of its `mod.rs`.
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(path, _)| module_of(path)).collect();
    // Edges between top-level modules, and between the files of each folder (keyed by the
    // folder's module path), each with where it is written.
    let mut edges: BTreeMap<(String, String), String> = BTreeMap::new();
    let mut inner: BTreeMap<Vec<String>, BTreeMap<(String, String), String>> = BTreeMap::new();
    for (path, text) in files {
        // Tests are outside the layers: a module's tests may use whatever they test it with;
        // a `tests.rs` is tests throughout.
        if path == "lib.rs" || path.ends_with("tests.rs") {
            continue;
        }
        let text = without_tests(text);
        let own = module_of(path);
        let module = own[0].clone();
        for (line, named) in named_paths(&text, &own) {
            let place = format!("{}/{path}:{line}", layers.src);
            // A path within a folder: an edge between two of its files.
            let common = own.iter().zip(&named).take_while(|(a, b)| a == b).count();
            if common > 0
                && common < own.len()
                && common < named.len()
                && modules.contains(&named[..=common])
            {
                inner
                    .entry(own[..common].to_vec())
                    .or_default()
                    .entry((own[common].clone(), named[common].clone()))
                    .or_insert_with(|| place.clone());
            }
            let name = named[0].clone();
            if name == module {
                continue;
            }
            // A macro exported at the root (`crate::m!`) is no module.
            if !declared.contains(&name) && !name.ends_with('!') && !macros.contains(&name) {
                problems.push(format!(
                    "{place}: `crate::{name}` names an item at the crate root; name its module"
                ));
                continue;
            }
            edges.entry((module.clone(), name)).or_insert(place);
        }
    }
    for ((from, to), place) in &edges {
        if let (Some(&low), Some(&high)) = (rank.get(to), rank.get(from))
            && low > high
        {
            problems.push(format!(
                "{place}: `{from}` (layer {}) uses `{to}` (layer {}), which is above it",
                layers.layers[high].0, layers.layers[low].0
            ));
        }
    }
    // Cycles: an edge up is reported above, so what is left is a cycle inside a layer.
    let same_layer: BTreeMap<(String, String), String> = edges
        .iter()
        .filter(|((a, b), _)| rank.contains_key(a) && rank.get(a) == rank.get(b))
        .map(|(edge, place)| (edge.clone(), place.clone()))
        .collect();
    problems.extend(cycle_problems(&same_layer, &layers.src, "modules"));
    // Inside each folder, its files form no cycle either.
    for (folder, edges) in &inner {
        let scope = format!("{}/{}", layers.src, folder.join("/"));
        problems.extend(cycle_problems(edges, &scope, "files"));
    }
    problems
}

/// The workspace crates a manifest depends on (normal and build dependencies).
fn workspace_dependencies(manifest: &str, crates: &[String]) -> Vec<String> {
    let mut section = String::new();
    let mut found = Vec::new();
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line.to_owned();
            continue;
        }
        let normal = section == "[dependencies]" || section == "[build-dependencies]";
        if !normal {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
        if crates.iter().any(|c| c == name) {
            found.push(name.to_owned());
        }
    }
    found
}

#[test]
fn layers_point_down() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let markdown = fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let map = read_map(&markdown);
    assert!(!map.modules.is_empty() && !map.crates.is_empty());
    let mut problems = Vec::new();
    for layers in &map.modules {
        let src = root.join(&layers.src);
        let mut paths = Vec::new();
        rust_files(&src, &mut paths);
        assert!(!paths.is_empty(), "{} has no sources", layers.src);
        let files: Vec<(String, String)> = paths
            .iter()
            .map(|path| {
                let relative = path.strip_prefix(&src).unwrap();
                let relative = relative.to_string_lossy().replace('\\', "/");
                (relative, fs::read_to_string(path).unwrap())
            })
            .collect();
        problems.extend(check_crate(layers, &files));
    }
    // Between crates: each workspace crate's manifest names only crates listed before it.
    let manifests = ["Cargo.toml"].into_iter().map(PathBuf::from).chain(
        fs::read_dir(&root).unwrap().filter_map(|entry| {
            let path = entry.unwrap().path();
            let manifest = path.join("Cargo.toml");
            (path.is_dir() && manifest.exists())
                .then(|| manifest.strip_prefix(&root).unwrap().to_owned())
        }),
    );
    for manifest in manifests {
        let text = fs::read_to_string(root.join(&manifest)).unwrap();
        let Some(name) = text
            .lines()
            .skip_while(|line| line.trim() != "[package]")
            .find_map(|line| line.strip_prefix("name = "))
            .map(|name| name.trim_matches('"').to_owned())
        else {
            continue;
        };
        let Some(own) = map.crates.iter().position(|c| *c == name) else {
            continue;
        };
        for dependency in workspace_dependencies(&text, &map.crates) {
            let theirs = map.crates.iter().position(|c| *c == dependency).unwrap();
            if theirs >= own {
                problems.push(format!(
                    "{}: `{name}` depends on `{dependency}`, listed after it",
                    manifest.display()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "the code breaks the layers of ARCHITECTURE.md:\n{}",
        problems.join("\n")
    );
}

/// The check finds what it is for: an upward edge, a cycle inside a layer or between the files
/// of a folder, a root path, and a module in no layer, each in a crate made up for the test; and
/// it ignores what it should: tests (wherever they stand), comments, strings, and `super::`
/// paths that do not leave the file.
#[test]
fn the_check_finds_each_break() {
    let layers = CrateLayers {
        src: "made-up/src".into(),
        layers: vec![
            ("data".into(), vec!["call".into(), "result".into()]),
            ("pipeline".into(), vec!["args".into()]),
        ],
    };
    let files = vec![
        (
            "lib.rs".to_owned(),
            "mod args;\nmod call;\nmod result;\nmod extra;\n".to_owned(),
        ),
        (
            "call.rs".to_owned(),
            "use crate::{\n    args::Policy,\n    result::Res,\n};\n// crate::nothing in a comment\nlet s = \"crate::nor_in_a_string\";\n".to_owned(),
        ),
        (
            "result/mod.rs".to_owned(),
            "fn f(_: crate::call::ToolCall) {}\nfn g(_: crate::ToolCall) {}\nuse super::args::Policy;\n"
                .to_owned(),
        ),
        ("args/mod.rs".to_owned(), "use crate::call;\n".to_owned()),
        // From `args/parse.rs`, `super::` is `args` (no edge); `super::super::` the root, and
        // inside an inline module one more `super::` is needed to reach it.
        (
            "args/parse.rs".to_owned(),
            "use super::Policy;\nuse super::super::result::Res;\nmod inner {\n    use super::super::result::Res;\n    use super::super::super::call::X;\n}\nuse super::check::W;\n".to_owned(),
        ),
        // A test item above the imports hides nothing after it; two files of a folder that
        // use each other are a cycle.
        (
            "args/check.rs".to_owned(),
            "//! Checks.\n#[cfg(test)]\nuse crate::extra::Y;\nuse super::parse::Z;\nfn g(_: crate::Policy) {}\n#[cfg(test)]\nmod tests {\n    use crate::extra::X;\n}\n".to_owned(),
        ),
        (
            "extra.rs".to_owned(),
            "#[cfg(test)]\nmod tests {\n    use crate::args::Policy;\n}\n".to_owned(),
        ),
        ("args/tests.rs".to_owned(), "use crate::extra::X;\n".to_owned()),
    ];
    let problems = check_crate(&layers, &files);
    let expected = [
        "made-up/src: module `extra` is in no layer of ARCHITECTURE.md",
        "made-up/src/result/mod.rs:2: `crate::ToolCall` names an item at the crate root; name its module",
        "made-up/src/args/check.rs:5: `crate::Policy` names an item at the crate root; name its module",
        "made-up/src/call.rs:2: `call` (layer data) uses `args` (layer pipeline), which is above it",
        "made-up/src/result/mod.rs:3: `result` (layer data) uses `args` (layer pipeline), which is above it",
        "made-up/src: modules form a cycle: call -> result -> call (made-up/src/call.rs:3, made-up/src/result/mod.rs:1)",
        "made-up/src/args: files form a cycle: check -> parse -> check (made-up/src/args/check.rs:4, made-up/src/args/parse.rs:7)",
    ];
    assert_eq!(problems, expected, "{problems:#?}");
    // Inside an inline module one more `super::` is needed to reach the root.
    let text = "mod inner {\n    use super::super::x::Y;\n}\nuse super::super::z;\n";
    let module = |path: &str| module_of(path);
    assert_eq!(
        crate_names(text, &module("a/b.rs")),
        [(2, "a".to_owned()), (4, "z".to_owned())]
    );
    assert_eq!(
        crate_names("let c = '{';\nuse super::m;\n", &module("a.rs")),
        [(2, "m".to_owned())]
    );
    // Whole paths, groups within groups, and `super::` resolved from the file's module.
    let text = "use crate::a::{b::{C, d::E}, self};\nuse super::{f::G, H};\nfn x(_: super::super::i::J) {}\n";
    assert_eq!(
        named_paths(text, &module("p/q/r.rs")),
        [
            (1, vec!["a".to_owned(), "b".to_owned(), "C".to_owned()]),
            (
                1,
                vec![
                    "a".to_owned(),
                    "b".to_owned(),
                    "d".to_owned(),
                    "E".to_owned()
                ]
            ),
            (1, vec!["a".to_owned()]),
            (
                2,
                vec![
                    "p".to_owned(),
                    "q".to_owned(),
                    "f".to_owned(),
                    "G".to_owned()
                ]
            ),
            (2, vec!["p".to_owned(), "q".to_owned(), "H".to_owned()]),
            (3, vec!["p".to_owned(), "i".to_owned(), "J".to_owned()]),
        ]
    );
}

/// Files stay small enough to read (issue 29): at most 600 lines besides a file's tests, in
/// every crate the layers list.
#[test]
fn no_file_is_over_600_lines_of_code() {
    const MAX_LINES: usize = 600;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let map = read_map(&fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap());
    let mut long = Vec::new();
    for layers in &map.modules {
        let mut paths = Vec::new();
        rust_files(&root.join(&layers.src), &mut paths);
        for path in paths {
            let text = fs::read_to_string(&path).unwrap();
            let code = test_lines(&text).iter().filter(|test| !**test).count();
            if code > MAX_LINES {
                long.push(format!("{}: {code} lines", path.display()));
            }
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_LINES} lines of code; split them by concern:\n{}",
        long.join("\n")
    );
}

/// Lints in one place (issue 42): every published crate takes the workspace's lints; library
/// code says `#[expect(lint, reason = "..")]` where one is wrong for one item (an `#[allow]` is
/// left only in the code the macros generate, where a user's crate may or may not trip it);
/// `unsafe_code` is forbidden in every crate but the runtime, whose one `unsafe` block is in
/// `call/id.rs`.
#[test]
fn lints_are_set_in_one_place_and_unsafe_code_is_in_one_module() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let crates = [
        "tool-json",
        "tool-schema",
        "tool-macros",
        "tool-runtime",
        "tool-mcp",
        ".",
    ];
    let generators = ["expand.rs", "fallback.rs", "toolset.rs", "offer.rs"];
    let mut unsafe_blocks = Vec::new();
    for krate in crates {
        let manifest = fs::read_to_string(root.join(krate).join("Cargo.toml")).unwrap();
        assert!(
            manifest.contains("[lints]\nworkspace = true"),
            "{krate}: no workspace lints"
        );
        let lib = fs::read_to_string(root.join(krate).join("src/lib.rs")).unwrap();
        assert!(
            !lib.contains("clippy::pedantic"),
            "{krate}: lints set in lib.rs"
        );
        assert_eq!(
            lib.contains("#![forbid(unsafe_code)]"),
            krate != "tool-runtime",
            "{krate}: unsafe_code"
        );
        let mut files = Vec::new();
        rust_files(&root.join(krate).join("src"), &mut files);
        for path in files {
            let text = fs::read_to_string(&path).unwrap();
            let name = path.file_name().unwrap().to_str().unwrap();
            let generator = krate == "tool-macros" && generators.contains(&name);
            assert!(
                generator || !text.contains("#[allow("),
                "{}: an #[allow] in library code; #[expect(lint, reason = \"..\")] says why and \
                 goes when the lint does",
                path.display()
            );
            let blocks = text
                .lines()
                .filter(|l| l.trim_start().starts_with("unsafe {"))
                .count();
            if blocks > 0 {
                unsafe_blocks.push((
                    path.strip_prefix(&root).unwrap().display().to_string(),
                    blocks,
                ));
            }
        }
    }
    assert_eq!(
        unsafe_blocks,
        [("tool-runtime/src/call/id.rs".to_owned(), 1)]
    );
}

/// `Toolbox`'s API in one place (issue 42): every inherent `impl` of it is in
/// `tool-runtime/src/toolbox/`, so a reader of that folder finds every method.
#[test]
fn every_method_of_toolbox_is_in_the_toolbox_folder() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tool-runtime/src");
    let mut inherent = Vec::new();
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    for path in files {
        for line in fs::read_to_string(&path).unwrap().lines() {
            let line = line.trim_start();
            // `impl Toolbox {`, `impl<C: ..> Toolbox<C> {`, `impl<C> super::Toolbox<C> {`: not
            // `impl Trait for Toolbox<C>`.
            if line.starts_with("impl") && !line.contains(" for ") && line.contains("Toolbox") {
                inherent.push(path.strip_prefix(&src).unwrap().display().to_string());
            }
        }
    }
    assert!(inherent.len() >= 8, "{inherent:?}");
    let elsewhere: Vec<&String> = inherent
        .iter()
        .filter(|p| !p.starts_with("toolbox/"))
        .collect();
    assert!(
        elsewhere.is_empty(),
        "impl Toolbox outside toolbox/: {elsewhere:?}"
    );
}
