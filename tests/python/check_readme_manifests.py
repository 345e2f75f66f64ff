"""The README's two Cargo.toml snippets work as copied (issue 27).

A new user copies the README's `[dependencies]` into a fresh crate and its examples into
`main.rs`. This script does exactly that, outside the repository, in a temporary folder: one crate
with the sync snippet and the quickstart example (built and run: its asserts are the check), one
with the async/MCP snippet and the MCP server example (built). toolwright itself comes from this
checkout through `[patch.crates-io]`, everything else from crates.io as a user gets it.

    python3 tests/python/check_readme_manifests.py [WORK_DIR]
"""

import os
import re
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def blocks(text):
    """The fenced code blocks of a Markdown text, as (info string, body)."""
    return [(m.group(1).strip(), m.group(2)) for m in re.finditer(r"^```([^\n]*)\n(.*?)^```", text, re.S | re.M)]


def rustdoc_body(body):
    """A doctest's code as rustdoc compiles it: `# ` lines shown, wrapped in `fn main` if needed."""
    lines = []
    for line in body.splitlines():
        if line == "#":
            lines.append("")
        elif line.startswith("# "):
            lines.append(line[2:])
        else:
            lines.append(line)
    code = "\n".join(lines) + "\n"
    if not re.search(r"^\s*(async\s+)?fn main\s*\(", code, re.M):
        code = "fn main() {\n" + code + "}\n"
    return code


def make_crate(root, name, dependencies, main_rs):
    path = os.path.join(root, name)
    os.makedirs(os.path.join(path, "src"), exist_ok=True)
    with open(os.path.join(path, "Cargo.toml"), "w") as f:
        f.write(f'[package]\nname = "{name}"\nversion = "0.1.0"\nedition = "2024"\npublish = false\n\n')
        f.write(dependencies.strip() + "\n\n")
        f.write(f"[patch.crates-io]\ntoolwright = {{ path = {REPO!r} }}\n\n[workspace]\n")
    with open(os.path.join(path, "src", "main.rs"), "w") as f:
        f.write(main_rs)
    return path


def cargo(path, args, target):
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    print(f"$ (cd {path} && cargo {' '.join(args)})", flush=True)
    done = subprocess.run(["cargo", *args], cwd=path, env=env)
    if done.returncode != 0:
        sys.exit(f"cargo {' '.join(args)} failed for the README's snippet in {path}")


def main():
    with open(os.path.join(REPO, "README.md")) as f:
        readme = f.read()
    found = blocks(readme)
    tomls = [body for info, body in found if info == "toml"]
    rusts = [body for info, body in found if info.split(",")[0] == "rust"]
    if len(tomls) != 2:
        sys.exit(f"expected two Cargo.toml snippets in the README (sync, async), found {len(tomls)}")
    quickstart = next((b for b in rusts if "get_weather" in b), None)
    mcp = next((b for b in rusts if "McpServer" in b and "#[tokio::main]" in b), None)
    if quickstart is None or mcp is None:
        sys.exit("the README's quickstart or MCP server example was not found")
    for toml in tomls:
        if "[dependencies]" not in toml or "toolwright" not in toml:
            sys.exit(f"a README Cargo.toml snippet has no toolwright dependency:\n{toml}")

    work = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="readme-manifests-")
    target = os.path.join(work, "target")
    sync = make_crate(work, "readme_sync_app", tomls[0], rustdoc_body(quickstart))
    cargo(sync, ["run", "--quiet"], target)
    server = make_crate(work, "readme_mcp_app", tomls[1], rustdoc_body(mcp))
    cargo(server, ["build", "--quiet"], target)
    print("the README's Cargo.toml snippets build its examples as copied")


if __name__ == "__main__":
    main()
