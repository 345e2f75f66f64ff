//! One path per public item (issue 42): every item an application can name through the facade,
//! read from the crates' sources as the compiler resolves them (modules, `pub use`s, renames,
//! private modules re-exported), is reachable at exactly one public path; no `pub use` is a glob;
//! and the root holds at most 25 names. `#[doc(hidden)]` items (the doors generated code and
//! toolwright-mcp come in by) are not public paths.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use syn::{Item, UseTree, Visibility};

/// The workspace's crates: their names as paths name them, and their roots.
const CRATES: &[(&str, &str)] = &[
    ("toolwright", "src/lib.rs"),
    ("toolwright_runtime", "tool-runtime/src/lib.rs"),
    ("toolwright_mcp", "tool-mcp/src/lib.rs"),
    ("toolwright_macros", "tool-macros/src/lib.rs"),
    ("toolwright_json", "tool-json/src/lib.rs"),
    ("toolwright_schema", "tool-schema/src/lib.rs"),
];

/// What a path leads to: a module, an item of a module, or something of another crate.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    Module(String),
    Item(String, String),
    External(String),
}

struct Module {
    items: Vec<Item>,
    /// Where its `mod x;` children's files are.
    dir: PathBuf,
}

struct Sources {
    workspace: PathBuf,
    /// Modules by their full path (`toolwright_runtime::provider::stream`).
    modules: HashMap<String, Module>,
}

impl Sources {
    fn new() -> Self {
        let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
        Sources {
            workspace,
            modules: HashMap::new(),
        }
    }

    /// The module at `path`, read (with its parents) on first use.
    fn module(&mut self, path: &str) -> Option<&Module> {
        if !self.modules.contains_key(path) {
            let (file, dir) = self.file_of(path)?;
            let text = std::fs::read_to_string(&file).ok()?;
            let parsed =
                syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            self.add(path, parsed.items, dir);
        }
        self.modules.get(path)
    }

    /// Registers a module and its inline children.
    fn add(&mut self, path: &str, items: Vec<Item>, dir: PathBuf) {
        for item in &items {
            if let Item::Mod(module) = item
                && let Some((_, content)) = &module.content
            {
                let child = format!("{path}::{}", module.ident);
                self.add(&child, content.clone(), dir.join(module.ident.to_string()));
            }
        }
        self.modules.insert(path.to_owned(), Module { items, dir });
    }

    /// The file of a module declared as `mod x;`, and where its children's files are.
    fn file_of(&mut self, path: &str) -> Option<(PathBuf, PathBuf)> {
        let segments: Vec<&str> = path.split("::").collect();
        if segments.len() == 1 {
            let (_, root) = CRATES.iter().find(|(name, _)| *name == segments[0])?;
            let file = self.workspace.join(root);
            let dir = file.parent()?.to_path_buf();
            return Some((file, dir));
        }
        let parent = segments[..segments.len() - 1].join("::");
        let name = segments[segments.len() - 1];
        let dir = self.module(&parent)?.dir.clone();
        let flat = dir.join(format!("{name}.rs"));
        if flat.exists() {
            return Some((flat, dir.join(name)));
        }
        let nested = dir.join(name).join("mod.rs");
        nested.exists().then(|| (nested, dir.join(name)))
    }

    /// What `segments`, written in module `at`, lead to.
    fn resolve(&mut self, at: &str, segments: &[String], depth: usize) -> Target {
        assert!(depth < 64, "a `use` cycle at {at}: {segments:?}");
        let crate_of = at.split("::").next().unwrap().to_owned();
        let (mut module, rest) = match segments[0].as_str() {
            "crate" => (crate_of, &segments[1..]),
            "self" => (at.to_owned(), &segments[1..]),
            "super" => (parent(at), &segments[1..]),
            first if CRATES.iter().any(|(name, _)| *name == first) => {
                (first.to_owned(), &segments[1..])
            }
            first if !self.declares(at, first, segments.len() == 1) => {
                return Target::External(segments.join("::"));
            }
            _ => (at.to_owned(), segments),
        };
        for (i, segment) in rest.iter().enumerate() {
            let last = i + 1 == rest.len();
            match segment.as_str() {
                "self" => continue,
                "super" => {
                    module = parent(&module);
                    continue;
                }
                _ => {}
            }
            match self.find(&module, segment, depth) {
                Some(Target::Module(child)) => module = child,
                Some(Target::External(path)) => {
                    let tail: Vec<String> = rest[i + 1..].to_vec();
                    return Target::External([vec![path], tail].concat().join("::"));
                }
                Some(item @ Target::Item(..)) if last => return item,
                other => panic!("{segments:?} from {at}: `{segment}` in {module} is {other:?}"),
            }
        }
        Target::Module(module)
    }

    /// Whether module `at` has something named `name` (a module, an item or an import), not
    /// counting, when `alone`, a `use name;` of another crate (which names that crate).
    fn declares(&mut self, at: &str, name: &str, alone: bool) -> bool {
        let Some(module) = self.module(at) else {
            return false;
        };
        module.items.iter().any(|item| {
            item_name(item).as_deref() == Some(name)
                || matches!(item, Item::Use(u) if leaves(&u.tree).iter().any(|(path, alias)| {
                    alias == name && !(alone && path.len() == 1)
                }))
        })
    }

    /// What `name` is in module `at`.
    fn find(&mut self, at: &str, name: &str, depth: usize) -> Option<Target> {
        let items = self.module(at)?.items.clone();
        for item in &items {
            if item_name(item).as_deref() == Some(name) {
                return Some(match item {
                    Item::Mod(_) => Target::Module(format!("{at}::{name}")),
                    _ => Target::Item(at.to_owned(), name.to_owned()),
                });
            }
        }
        for item in &items {
            if let Item::Use(u) = item {
                for (path, alias) in leaves(&u.tree) {
                    if alias == name {
                        return Some(self.resolve(at, &path, depth + 1));
                    }
                }
            }
        }
        None
    }
}

fn parent(module: &str) -> String {
    module
        .rsplit_once("::")
        .map_or(module, |(parent, _)| parent)
        .to_owned()
}

/// An item's name (none for a `use`), visibility and attributes; `None` for kinds that hold no
/// public path (impls, macros, extern blocks).
fn parts(item: &Item) -> Option<(Option<String>, &Visibility, &[syn::Attribute])> {
    Some(match item {
        Item::Const(i) => (Some(i.ident.to_string()), &i.vis, &i.attrs),
        Item::Enum(i) => (Some(i.ident.to_string()), &i.vis, &i.attrs),
        Item::Fn(i) => (Some(i.sig.ident.to_string()), &i.vis, &i.attrs),
        Item::Mod(i) => (Some(i.ident.to_string()), &i.vis, &i.attrs),
        Item::Static(i) => (Some(i.ident.to_string()), &i.vis, &i.attrs),
        Item::Struct(i) => (Some(i.ident.to_string()), &i.vis, &i.attrs),
        Item::Trait(i) => (Some(i.ident.to_string()), &i.vis, &i.attrs),
        Item::Type(i) => (Some(i.ident.to_string()), &i.vis, &i.attrs),
        Item::Union(i) => (Some(i.ident.to_string()), &i.vis, &i.attrs),
        Item::Use(i) => (None, &i.vis, &i.attrs),
        _ => return None,
    })
}

fn item_name(item: &Item) -> Option<String> {
    parts(item).and_then(|(name, _, _)| name)
}

/// Public and not `#[doc(hidden)]`.
fn is_public(item: &Item) -> bool {
    parts(item).is_some_and(|(_, vis, attrs)| {
        matches!(vis, Visibility::Public(_))
            && !attrs.iter().any(|attr| {
                attr.path().is_ident("doc")
                    && attr
                        .parse_args::<syn::Ident>()
                        .is_ok_and(|ident| ident == "hidden")
            })
    })
}

/// Each name a `use` brings in: the path it names and the name it is known by (`*` for a glob).
fn leaves(tree: &UseTree) -> Vec<(Vec<String>, String)> {
    fn walk(tree: &UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
        match tree {
            UseTree::Path(path) => {
                prefix.push(path.ident.to_string());
                walk(&path.tree, prefix, out);
                prefix.pop();
            }
            UseTree::Name(name) if name.ident == "self" => {
                out.push((prefix.clone(), prefix.last().cloned().unwrap_or_default()));
            }
            UseTree::Name(name) => {
                let mut path = prefix.clone();
                path.push(name.ident.to_string());
                out.push((path, name.ident.to_string()));
            }
            UseTree::Rename(rename) => {
                let mut path = prefix.clone();
                path.push(rename.ident.to_string());
                out.push((path, rename.rename.to_string()));
            }
            UseTree::Glob(_) => out.push((prefix.clone(), "*".to_owned())),
            UseTree::Group(group) => {
                for tree in &group.items {
                    walk(tree, prefix, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(tree, &mut Vec::new(), &mut out);
    out
}

/// Every public path of a crate, by what it leads to; and every glob re-export met.
struct PublicPaths {
    by_target: BTreeMap<Target, BTreeSet<String>>,
    globs: Vec<String>,
}

fn public_paths(sources: &mut Sources, krate: &str) -> PublicPaths {
    let mut paths = PublicPaths {
        by_target: BTreeMap::new(),
        globs: Vec::new(),
    };
    let mut queue = vec![(krate.to_owned(), krate.to_owned())];
    let mut seen = BTreeSet::new();
    while let Some((module, public)) = queue.pop() {
        if !seen.insert((module.clone(), public.clone())) {
            continue;
        }
        let items = sources
            .module(&module)
            .map(|m| m.items.clone())
            .unwrap_or_default();
        for item in &items {
            if !is_public(item) {
                continue;
            }
            let found: Vec<(String, Target)> = match item {
                Item::Use(u) => leaves(&u.tree)
                    .into_iter()
                    .filter_map(|(path, alias)| {
                        if alias == "*" {
                            paths
                                .globs
                                .push(format!("{public}: pub use {}::*", path.join("::")));
                            return None;
                        }
                        Some((alias, sources.resolve(&module, &path, 0)))
                    })
                    .collect(),
                Item::Mod(m) => {
                    vec![(
                        m.ident.to_string(),
                        Target::Module(format!("{module}::{}", m.ident)),
                    )]
                }
                _ => {
                    let name = item_name(item).unwrap();
                    vec![(name.clone(), Target::Item(module.clone(), name))]
                }
            };
            for (name, target) in found {
                let path = format!("{public}::{name}");
                if let Target::Module(inner) = &target {
                    queue.push((inner.clone(), path.clone()));
                }
                paths.by_target.entry(target).or_default().insert(path);
            }
        }
    }
    paths
}

fn check(krate: &str) -> PublicPaths {
    let mut sources = Sources::new();
    let paths = public_paths(&mut sources, krate);
    let doubled: Vec<String> = paths
        .by_target
        .iter()
        .filter(|(_, public)| public.len() > 1)
        .map(|(target, public)| format!("{target:?}: {public:?}"))
        .collect();
    assert!(
        doubled.is_empty(),
        "items with more than one public path in {krate}:\n{}",
        doubled.join("\n")
    );
    assert!(paths.globs.is_empty(), "glob re-exports: {:?}", paths.globs);
    // What an application writes: the root's names but its modules.
    let root: Vec<&String> = paths
        .by_target
        .iter()
        .filter(|(target, _)| !matches!(target, Target::Module(_)))
        .flat_map(|(_, public)| public)
        .filter(|path| path.matches("::").count() == 1)
        .collect();
    assert!(
        root.len() <= 25,
        "{krate}'s root holds {} names: {root:?}",
        root.len()
    );
    paths
}

#[test]
fn every_public_item_of_the_facade_has_one_path() {
    let paths = check("toolwright");
    let all: BTreeSet<&String> = paths.by_target.values().flatten().collect();
    // The walk reaches into the runtime, MCP, the macros and the external crates re-exported.
    for expected in [
        "toolwright::Toolbox",
        "toolwright::tool",
        "toolwright::exec::BatchOptions",
        "toolwright::schema::Form",
        "toolwright::dynamic::ErasedTool",
        "toolwright::args::ArgumentError",
        "toolwright::bounds::ToolArg",
        "toolwright::provider::Provider",
        "toolwright::mcp::McpServer",
        "toolwright::mcp::rmcp",
        "toolwright::rig::RigTools",
        "toolwright::async_openai::types",
    ] {
        assert!(
            all.contains(&expected.to_owned()),
            "{expected} not found among {all:#?}"
        );
    }
    assert!(all.len() > 150, "{}", all.len());
}

#[test]
fn every_public_item_of_the_runtime_has_one_path() {
    let paths = check("toolwright_runtime");
    assert!(paths.by_target.contains_key(&Target::Item(
        "toolwright_runtime::toolbox::execute::batch".to_owned(),
        "BatchOptions".to_owned()
    )));
}

/// The check itself: a second path to an item, and a glob, are found.
#[test]
fn a_second_path_and_a_glob_are_found() {
    let mut sources = Sources::new();
    let root = Path::new("toolwright_fake");
    let items = syn::parse_file(
        "pub mod a { pub struct S; pub use self::S as T; } pub use a::S; pub use a::*;",
    )
    .unwrap()
    .items;
    sources.add("toolwright_fake", items, root.to_path_buf());
    let paths = public_paths(&mut sources, "toolwright_fake");
    let s = &paths.by_target[&Target::Item("toolwright_fake::a".into(), "S".into())];
    assert_eq!(s.len(), 3, "{s:?}");
    assert_eq!(paths.globs.len(), 1);
}
