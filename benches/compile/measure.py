#!/usr/bin/env python3
"""What `#[tool]` costs a user's build and binary (issue 15).

Generates two crates of N tools each, the same tools written two ways:

- plain: serde + schemars derive structs with a fn each, a registry of their schemas and a
  dispatch `match` over `serde_json::from_str`: the least any tool framework must compile.
- toolwright: the same fns under `#[tool]`, registered in a `Toolbox` and dispatched by it.
- lean: the toolwright crate with `default-features = false` (no lenient parser, no format
  assertions, no ECMA patterns: strict arguments, schemas, validation and dispatch).

and builds each (debug, as a developer does while editing, and release), printing CPU seconds
(user + system of every process the build ran), ratios to plain, and stripped binary sizes:

- clean: the whole build, dependencies included, from an empty target directory;
- rebuild: the crate alone after `touch src/main.rs`, with `CARGO_INCREMENTAL=0`;
- edit: the crate alone after one tool's body changed, incremental (cargo's debug default);
- release: the stripped release binary's size in bytes (and the release build's CPU seconds).

Every binary is run once on a few calls, so that what is measured is a working program.

    python3 benches/compile/measure.py                      # 100 tools, 3 repetitions
    python3 benches/compile/measure.py --tools 10,100,1000  # how the cost grows
    python3 benches/compile/measure.py --tools 5 --reps 1   # the CI smoke run

Not a timed test: the figures go into BENCHMARKS.md with the command that produced them.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The tools cycle through these shapes: numbers, strings with an optional, a list with a default
# and a flag, a nested struct with a fallible result, and an async body.
SHAPES = 5


def tool_source(i, toolwright):
    """One tool: its doc, its fn (under `#[tool]` for toolwright) and, for plain, its args struct."""
    shape = i % SHAPES
    attr = "#[tool]\n" if toolwright else ""
    out = []
    if shape == 0:
        params = [("a", "i64"), ("b", "i64")]
        out.append(f"/// Adds two numbers and {i}.\n///\n/// # Arguments\n/// * `a` - The first number.\n/// * `b` - The second number.\n")
        out.append(f"{attr}pub fn tool_{i}(a: i64, b: i64) -> i64 {{\n    a.saturating_add(b).saturating_add({1000 + i})\n}}\n")
    elif shape == 1:
        params = [("text", "String"), ("times", "Option<u32>")]
        out.append(f"/// Repeats a text (tool {i}).\n///\n/// # Arguments\n/// * `text` - What to repeat.\n/// * `times` - How often; once when left out.\n")
        out.append(f"{attr}pub fn tool_{i}(text: String, times: Option<u32>) -> String {{\n    text.repeat(times.unwrap_or(1).min(8) as usize)\n}}\n")
    elif shape == 2:
        params = [("items", "Vec<String>"), ("separator", "Option<String>"), ("upper", "bool")]
        out.append(f"/// Joins items (tool {i}).\n///\n/// # Arguments\n/// * `items` - The items.\n/// * `separator` - Between items.\n/// * `upper` - Upper-case the result.\n")
        out.append(f"{attr}pub fn tool_{i}(items: Vec<String>, separator: Option<String>, upper: bool) -> String {{\n    let joined = items.join(separator.as_deref().unwrap_or(\", \"));\n    if upper {{ joined.to_uppercase() }} else {{ joined }}\n}}\n")
    elif shape == 3:
        params = [("range", f"Range{i}"), ("limit", "u8")]
        derive = "#[derive(serde::Deserialize, schemars::JsonSchema)]"
        out.append(f"/// A range of numbers.\n{derive}\npub struct Range{i} {{\n    /// The first number.\n    pub min: u32,\n    /// The last number.\n    pub max: u32,\n}}\n")
        out.append(f"/// Lists the numbers of a range (tool {i}).\n///\n/// # Arguments\n/// * `range` - The range.\n/// * `limit` - At most this many.\n")
        out.append(f"{attr}pub fn tool_{i}(range: Range{i}, limit: u8) -> Result<Vec<u32>, String> {{\n    if range.min > range.max {{\n        return Err(format!(\"{{}} is above {{}}\", range.min, range.max));\n    }}\n    Ok((range.min..=range.max).take(limit as usize).collect())\n}}\n")
    else:
        params = [("query", "String"), ("page", "Option<u16>")]
        out.append(f"/// Searches (tool {i}).\n///\n/// # Arguments\n/// * `query` - What to find.\n/// * `page` - Which page.\n")
        out.append(f"{attr}pub async fn tool_{i}(query: String, page: Option<u16>) -> Vec<String> {{\n    vec![format!(\"{{query}} p{{}}\", page.unwrap_or(0))]\n}}\n")
    if not toolwright:
        fields = "".join(f"    pub {name}: {ty},\n" for name, ty in params)
        out.append(f"#[derive(serde::Deserialize, schemars::JsonSchema)]\n#[serde(deny_unknown_fields)]\npub struct Tool{i}Args {{\n{fields}}}\n")
    return "".join(out), params, shape


def sample_call(i):
    """Arguments of a valid call of tool `i`."""
    shape = i % SHAPES
    return [
        '{"a": 1, "b": 2}',
        '{"text": "ab", "times": 2}',
        '{"items": ["x", "y"], "upper": true}',
        '{"range": {"min": 1, "max": 4}, "limit": 3}',
        '{"query": "q"}',
    ][shape]


def plain_main(n):
    parts = ["// Generated by benches/compile/measure.py: the plain limit.\n#![allow(clippy::all)]\n\n"]
    arms = []
    schemas = []
    for i in range(n):
        src, params, shape = tool_source(i, False)
        parts.append(src + "\n")
        fields = ", ".join(f"args.{name}" for name, _ in params)
        call = f"tool_{i}({fields})" + (" .await" if shape == 4 else "")
        if shape == 3:
            body = f"match {call} {{ Ok(v) => serde_json::to_string(&v).map_err(|e| e.to_string()), Err(e) => Err(e) }}"
        else:
            body = f"serde_json::to_string(&{call}).map_err(|e| e.to_string())"
        arms.append(
            f'        "tool_{i}" => {{\n            let args: Tool{i}Args = serde_json::from_str(arguments).map_err(|e| e.to_string())?;\n            {body}\n        }}\n'
        )
        schemas.append(f'        ("tool_{i}", schemars::schema_for!(Tool{i}Args)),\n')
    parts.append("pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {\n    vec![\n" + "".join(schemas) + "    ]\n}\n\n")
    parts.append("pub async fn dispatch(name: &str, arguments: &str) -> Result<String, String> {\n    match name {\n" + "".join(arms) + '        _ => Err(format!("unknown tool {name}")),\n    }\n}\n\n')
    parts.append(BLOCK_ON)
    parts.append(
        "fn main() {\n"
        "    let schemas = schemas();\n"
        '    println!("{} tools, {} bytes of schema", schemas.len(), serde_json::to_string(&schemas.iter().map(|(_, s)| s).collect::<Vec<_>>()).unwrap().len());\n'
        "    for line in std::io::stdin().lines() {\n"
        "        let line = line.unwrap();\n"
        "        let (name, arguments) = line.split_once(' ').unwrap();\n"
        "        match block_on(dispatch(name, arguments)) {\n"
        '            Ok(text) => println!("{name}: {text}"),\n'
        '            Err(error) => println!("{name}: error: {error}"),\n'
        "        }\n"
        "    }\n"
        "}\n"
    )
    return "".join(parts)


BLOCK_ON = (
    "fn block_on<F: std::future::Future>(future: F) -> F::Output {\n"
    "    let mut future = std::pin::pin!(future);\n"
    "    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());\n"
    "    loop {\n"
    "        if let std::task::Poll::Ready(value) = future.as_mut().poll(&mut cx) {\n"
    "            return value;\n"
    "        }\n"
    "    }\n"
    "}\n\n"
)


def toolwright_main(n):
    parts = ["// Generated by benches/compile/measure.py: the same tools under #[tool].\n#![allow(clippy::all)]\n\nuse toolwright::{provider::Provider, tool, ToolCall, Toolbox};\n\n"]
    for i in range(n):
        src, _, _ = tool_source(i, True)
        parts.append(src + "\n")
    withs = "".join(f"        .with(Tool{i}Tool)\n        .unwrap()\n" for i in range(n))
    parts.append("pub fn toolbox() -> Toolbox {\n    Toolbox::new()\n" + withs + "}\n\n")
    parts.append(
        "fn main() {\n"
        "    let tools = toolbox();\n"
        '    println!("{} tools, {} bytes of schema", tools.len(), tools.tools_for(Provider::OpenAiChat).unwrap().to_value().to_string().len());\n'
        "    for line in std::io::stdin().lines() {\n"
        "        let line = line.unwrap();\n"
        "        let (name, arguments) = line.split_once(' ').unwrap();\n"
        '        let result = tools.execute_blocking(&ToolCall::new("c", name, arguments), &());\n'
        "        if result.is_error {\n"
        '            println!("{name}: error: {}", result.text());\n'
        "        } else {\n"
        '            println!("{name}: {}", result.text());\n'
        "        }\n"
        "    }\n"
        "}\n"
    )
    return "".join(parts)


CARGO_TOML = """[package]
name = "{name}"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[dependencies]
{deps}

[profile.release]
strip = true
"""

PLAIN_DEPS = """serde = { version = "1", features = ["derive"] }
serde_json = "1"
schemars = { version = "1", default-features = false, features = ["derive", "std", "preserve_order"] }"""

TOOLWRIGHT_DEPS = """toolwright = { path = %s }
serde = { version = "1", features = ["derive"] }
schemars = { version = "1", default-features = false, features = ["derive", "std", "preserve_order"] }"""

LEAN_DEPS = TOOLWRIGHT_DEPS.replace("toolwright = { path = %s }", "toolwright = { path = %s, default-features = false }")


def generate(root, kind, n):
    path = os.path.join(root, f"{kind}-{n}")
    os.makedirs(os.path.join(path, "src"), exist_ok=True)
    deps = {"plain": PLAIN_DEPS, "toolwright": TOOLWRIGHT_DEPS, "lean": LEAN_DEPS}[kind]
    if kind != "plain":
        deps = deps % json.dumps(REPO)
    write(os.path.join(path, "Cargo.toml"), CARGO_TOML.format(name=f"{kind}_{n}", deps=deps))
    write(os.path.join(path, "src", "main.rs"), plain_main(n) if kind == "plain" else toolwright_main(n))
    # The dependencies' versions as the repository's own lock file has them, where it has them.
    lock = os.path.join(REPO, "Cargo.lock")
    if os.path.exists(lock) and not os.path.exists(os.path.join(path, "Cargo.lock")):
        shutil.copy(lock, os.path.join(path, "Cargo.lock"))
    return path


def write(path, text):
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(path, "w") as f:
        f.write(text)


def cargo(path, args, env=None):
    """Runs cargo in `path`; returns CPU seconds (user + system) of it and all it ran."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    full_env = dict(os.environ)
    full_env.update(env or {})
    full_env["CARGO_TARGET_DIR"] = os.path.join(path, "target")
    started = time.monotonic()
    done = subprocess.run(["cargo", *args], cwd=path, env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.stderr.write(done.stderr[-6000:])
        raise SystemExit(f"cargo {' '.join(args)} failed in {path}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def run_binary(path, n, release):
    binary = os.path.join(path, "target", "release" if release else "debug", os.path.basename(path).replace("-", "_"))
    calls = "".join(f"tool_{i} {sample_call(i)}\n" for i in range(min(n, SHAPES)))
    done = subprocess.run([binary], input=calls, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    lines = done.stdout.splitlines()
    if not lines[0].startswith(f"{n} tools") or any("error" in line for line in lines[1:]):
        raise SystemExit(f"{binary} did not answer as expected:\n{done.stdout}")
    return binary, lines


EDITED = "a.saturating_add(b).saturating_add("


def edit_body(path, value):
    """Changes tool 0's body (the constant it adds, always four digits), as a developer's edit of
    one tool: no line moves."""
    main = os.path.join(path, "src", "main.rs")
    with open(main) as f:
        text = f.read()
    start = text.index(EDITED) + len(EDITED)
    end = text.index(")", start)
    with open(main, "w") as f:
        f.write(text[:start] + str(value) + text[end:])


def shift_lines(path, add):
    """Adds (or takes back) a line in tool 0's body: every item after it moves down a line, as
    when a developer adds a statement."""
    main = os.path.join(path, "src", "main.rs")
    with open(main) as f:
        text = f.read()
    line = "    let _edited = 1;\n"
    at = text.index("    " + EDITED)
    if add:
        text = text[:at] + line + text[at:]
    else:
        text = text.replace(line, "", 1)
    with open(main, "w") as f:
        f.write(text)


def measure(root, kinds, n, reps, release, clean):
    """The figures of each kind of crate; each repetition builds every kind in turn, so that a
    change in the machine's speed meets them alike."""
    paths = {kind: generate(root, kind, n) for kind in kinds}
    figures = {kind: {} for kind in kinds}
    for kind, path in paths.items():
        if clean:
            shutil.rmtree(os.path.join(path, "target"), ignore_errors=True)
            figures[kind]["clean"], _ = cargo(path, ["build", "-q"])
        else:
            cargo(path, ["build", "-q"])
        run_binary(path, n, False)

    def repeat(figure, step, undo=None):
        samples = {kind: [] for kind in kinds}
        for rep in range(reps):
            for kind, path in paths.items():
                step(path, rep)
                samples[kind].append(cargo(path, ["build", "-q"])[0])
                if undo:
                    undo(path)
                    cargo(path, ["build", "-q"])
        for kind in kinds:
            figures[kind][figure] = statistics.median(samples[kind])

    repeat("edit", lambda path, rep: edit_body(path, 2000 + rep))
    for path in paths.values():
        edit_body(path, 1000)
        cargo(path, ["build", "-q"])
    repeat("edit, lines moved", lambda path, rep: shift_lines(path, True), lambda path: shift_lines(path, False))

    def touch(path, rep):
        os.utime(os.path.join(path, "src", "main.rs"))

    os.environ["CARGO_INCREMENTAL"] = "0"
    try:
        for path in paths.values():
            cargo(path, ["build", "-q"])
        repeat("rebuild", touch)
    finally:
        del os.environ["CARGO_INCREMENTAL"]
    if release:
        for kind, path in paths.items():
            figures[kind]["release build"], _ = cargo(path, ["build", "-q", "--release"])
            binary, _ = run_binary(path, n, True)
            figures[kind]["binary"] = os.path.getsize(binary)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", default="100", help="tool counts, comma separated (default 100)")
    parser.add_argument("--reps", type=int, default=3, help="repetitions of each rebuild; the median is shown")
    parser.add_argument("--dir", default=os.path.join(REPO, "target", "compile-bench"), help="where the crates are generated and built")
    parser.add_argument("--no-release", action="store_true", help="skip the release builds")
    parser.add_argument("--no-clean", action="store_true", help="reuse earlier builds' dependencies (no clean figure)")
    parser.add_argument("--kinds", default="plain,toolwright,lean", help="which crates (default plain,toolwright,lean)")
    options = parser.parse_args()
    kinds = options.kinds.split(",")
    rows = []
    for n in [int(t) for t in options.tools.split(",")]:
        results = measure(options.dir, kinds, n, options.reps, not options.no_release, not options.no_clean)
        for kind in kinds:
            print(f"{n} tools, {kind}: {json.dumps({k: round(v, 2) for k, v in results[kind].items()})}", flush=True)
        rows.append((n, results))
    print()
    header = "| tools | figure | " + " | ".join(kinds) + " |"
    print(header)
    print("|" + "---|" * (2 + len(kinds)))
    for n, results in rows:
        for figure in results[kinds[0]]:
            cells = []
            for kind in kinds:
                value = results[kind][figure]
                base = results[kinds[0]][figure]
                shown = f"{value / 1e6:.2f} MB" if figure == "binary" else f"{value:.2f} s"
                cells.append(f"{shown} ({value / base:.2f}x)" if base else shown)
            label = {"clean": "clean build incl. deps, CPU", "rebuild": "rebuild (touch, CARGO_INCREMENTAL=0), CPU", "edit": "edit one tool's body (incremental), CPU", "edit, lines moved": "add a line to one tool's body (incremental), CPU", "release build": "release build of the crate, CPU", "binary": "release binary, stripped"}[figure]
            print(f"| {n} | {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
