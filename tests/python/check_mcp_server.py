"""The official MCP Python SDK (`mcp` on PyPI) as a client of toolwright's `examples/mcp_server`.

    python check_mcp_server.py --stdio target/debug/examples/mcp_server
    python check_mcp_server.py --url http://127.0.0.1:8000/mcp [--mode legacy]

Initializes, lists the tools, calls with valid, repairable and wrong arguments, calls an unknown
tool, checks structured content against the tool's output schema, and checks progress and
cancellation. Exits non-zero, naming the failed check, on any difference.
"""

import argparse
import sys

import anyio
import jsonschema
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError

DEMO_TOOLS = {
    "add", "get_weather", "divide", "set_tags", "update_preferences", "search", "whoami",
    "explode", "create_invoice", "sleep", "count", "cancelled_counts",
}


def text(result):
    return "".join(block.text for block in result.content if block.type == "text")


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print(f"ok: {what}")


async def run(server, mode, cancel):
    async with Client(server, mode=mode) as client:
        print(f"connected: protocol {client.protocol_version}, server {client.server_info}")
        listed = await client.list_tools()
        tools = {tool.name: tool for tool in listed.tools}
        check(set(tools) == DEMO_TOOLS, f"tools/list names the demo tools ({sorted(tools)})")
        check(tools["add"].input_schema["required"] == ["a", "b"], "add's inputSchema")
        check(tools["add"].annotations.read_only_hint is True, "add's annotations")

        result = await client.call_tool("add", {"a": 2, "b": 3})
        check((text(result), result.is_error) == ("5", False), "a valid call")

        result = await client.call_tool("add", {"a": "2", "b": "40"})
        check((text(result), result.is_error) == ("42", False), "numbers sent as text are coerced")

        result = await client.call_tool(
            "update_preferences",
            {"unique_code": "u1", "data": '{"items_per_page": 10}'},
        )
        check(not result.is_error and '"items_per_page":10' in text(result).replace(" ", ""),
              f"a stringified object is unwound ({text(result)})")

        result = await client.call_tool("add", {"a": "two", "c": 1})
        feedback = text(result)
        check(result.is_error and "`a`" in feedback and "`b`" in feedback and "`c`" in feedback,
              f"wrong arguments are an error result with all the feedback ({feedback})")

        try:
            await client.call_tool("ad", {"a": 1, "b": 2})
            check(False, "an unknown tool is a JSON-RPC error")
        except MCPError as error:
            check(error.error.code == -32602 and "`add`" in error.error.message,
                  f"an unknown tool is a JSON-RPC error naming the close matches ({error.error.message})")

        result = await client.call_tool("get_weather", {"city": "Paris"})
        schema = tools["get_weather"].output_schema
        check(schema is not None and result.structured_content is not None,
              "a tool with an output schema gives structured content")
        jsonschema.validate(result.structured_content, schema)
        check(result.structured_content["city"] == "Paris", "the structured content is valid against the output schema")

        result = await client.call_tool("explode", {})
        check(result.is_error and "sk-do-not-leak" not in text(result), "a panic is an error result that leaks nothing")

        seen = []

        async def progress(value, total, message):
            seen.append((value, total))

        result = await client.call_tool("count", {"to": 5, "step_ms": 5}, progress_callback=progress)
        check(text(result) == "5", "count runs to its end")
        with anyio.fail_after(5):
            while len(seen) < 5:
                await anyio.sleep(0.01)
        check([v for v, _ in seen] == [1, 2, 3, 4, 5] and all(t == 5 for _, t in seen),
              f"progress notifications arrive ({seen})")

        if not cancel:
            print("skipped: cancellation (a stateless server cannot route a pre-2026 client's "
                  "notifications/cancelled to the request it names)")
            return
        before = int(text(await client.call_tool("cancelled_counts", {})))
        with anyio.move_on_after(0.3):
            await client.call_tool("count", {"to": 100000, "step_ms": 10})
        with anyio.fail_after(10):
            while int(text(await client.call_tool("cancelled_counts", {}))) <= before:
                await anyio.sleep(0.05)
        check(True, "a cancelled call is cancelled on the server (the tool saw is_cancelled)")

        result = await client.call_tool("add", {"a": 1, "b": 1})
        check(text(result) == "2", "the session goes on after a cancellation")


def main():
    parser = argparse.ArgumentParser()
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--stdio", nargs="+", metavar="COMMAND")
    target.add_argument("--url")
    parser.add_argument("--mode", default="auto", help="auto (discover, then initialize) or legacy")
    parser.add_argument("--no-cancel", action="store_true", help="skip the cancellation check")
    args = parser.parse_args()
    server = args.url or StdioServerParameters(command=args.stdio[0], args=args.stdio[1:])
    try:
        anyio.run(run, server, args.mode, not args.no_cancel)
    except AssertionError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
