"""The official MCP Python SDK (`mcp` on PyPI) against `examples/mcp_server` serving with bearer
tokens (issue 30): its HTTP client sends `Authorization: Bearer <token>`.

    python check_mcp_auth.py --url http://127.0.0.1:8000/mcp --reader TOKEN --writer TOKEN [--mode legacy]

The server is started with `--token READER= --token WRITER=write`: every demo tool not marked
read-only needs `write`. Checks the Protected Resource Metadata, that a reader lists and calls only
the read-only tools (the others are unknown to it), that a writer lists and calls all of them, and
that a client without a token or with a wrong one fails cleanly with the server's `401`. Exits
non-zero, naming the failed check, on any difference.
"""

import argparse
import json
import sys
import urllib.error
import urllib.request

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from check_mcp_server import check, text

READ_ONLY = {"add", "get_weather", "divide", "search", "whoami", "count", "cancelled_counts"}
ALL = READ_ONLY | {"set_tags", "update_preferences", "explode", "create_invoice", "sleep"}


def connect(url, token, mode):
    headers = {"Authorization": f"Bearer {token}"} if token is not None else None
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    return Client(transport, mode=mode)


def status_of(url, token):
    """The HTTP status and WWW-Authenticate header of a bare POST."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        **({"authorization": f"Bearer {token}"} if token else {}),
    })
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, response.headers.get("www-authenticate")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("www-authenticate")


async def run(url, reader, writer, mode):
    origin, _, path = url.partition("://")[2].partition("/")
    metadata_url = f"{url.split('://')[0]}://{origin}/.well-known/oauth-protected-resource/{path}"
    with urllib.request.urlopen(metadata_url) as response:
        metadata = json.load(response)
    check(metadata["resource"] == url and metadata["bearer_methods_supported"] == ["header"]
          and "write" in metadata["scopes_supported"],
          f"the Protected Resource Metadata names the resource and its scopes ({metadata})")

    status, challenge = status_of(url, None)
    check(status == 401 and challenge == f'Bearer resource_metadata="{metadata_url}"',
          f"no token: 401 pointing at the metadata ({status}, {challenge})")
    status, challenge = status_of(url, "not-a-token")
    check(status == 401 and 'error="invalid_token"' in (challenge or ""),
          f"a wrong token: 401 invalid_token ({status}, {challenge})")

    async with connect(url, reader, mode) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        check(listed == READ_ONLY, f"a reader lists only the read-only tools ({sorted(listed)})")
        result = await client.call_tool("add", {"a": 2, "b": 3})
        check((text(result), result.is_error) == ("5", False), "a reader calls a read-only tool")
        try:
            await client.call_tool("create_invoice", {"vendor_name": "ACME", "total_amount": "1 EUR"})
            check(False, "a reader's call of a write tool is refused")
        except MCPError as error:
            check(error.error.code == -32602
                  and error.error.message.startswith("unknown tool `create_invoice`")
                  and "create_invoice`." not in error.error.message.split("Available tools:")[1],
                  f"a write tool is unknown to a reader ({error.error.message})")

    async with connect(url, writer, mode) as client:
        listed = {tool.name for tool in (await client.list_tools()).tools}
        check(listed == ALL, f"a writer lists every tool ({sorted(listed)})")
        result = await client.call_tool("set_tags", {"tags": ["a", "b"]})
        check((text(result), result.is_error) == ("2", False), f"a writer calls a write tool ({text(result)})")

    for token, what in [(None, "without a token"), ("not-a-token", "with a wrong token")]:
        failures = []
        try:
            with anyio.fail_after(30):
                async with connect(url, token, mode) as client:
                    await client.list_tools()
        except BaseException as error:  # noqa: BLE001 - the kinds are checked below
            failures = list(flatten(error))
        # The SDK reports the server's 401 as an error response (the status itself is checked
        # on the bare request above); a timeout would mean a hang, anything else a crash.
        check(failures and all(isinstance(failure, MCPError) for failure in failures),
              f"a client {what} fails cleanly ({[repr(failure) for failure in failures]})")


def flatten(error):
    """The exceptions in `error`, exception groups opened."""
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from flatten(inner)
    else:
        yield error

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--reader", required=True)
    parser.add_argument("--writer", required=True)
    parser.add_argument("--mode", default="auto", help="auto (discover, then initialize) or legacy")
    args = parser.parse_args()
    try:
        anyio.run(run, args.url, args.reader, args.writer, args.mode)
    except AssertionError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        sys.exit(1)
    except BaseExceptionGroup as group:  # a check failed inside the client's task group
        failed = group.subgroup(AssertionError)
        print(f"FAILED: {failed.exceptions[0] if failed else group}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
