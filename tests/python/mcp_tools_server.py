"""A small MCP server written with the official Python SDK (`mcp` on PyPI; its `MCPServer`, the
2.x name of FastMCP), whose tools toolwright's MCP client uses in the checks.

    python mcp_tools_server.py              # stdio
    python mcp_tools_server.py --http PORT  # Streamable HTTP at http://127.0.0.1:PORT/mcp
"""

import sys

from pydantic import BaseModel, Field

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("python-tools")


class Forecast(BaseModel):
    city: str
    days: int
    summary: str


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def multiply(a: int, b: int) -> int:
    """Multiply two integers."""
    return a * b


@server.tool()
def forecast(city: str, days: int = Field(default=1, ge=1, le=7)) -> Forecast:
    """The weather forecast for a city, 1 to 7 days ahead."""
    return Forecast(city=city, days=days, summary=f"sunny in {city} for {days} day(s)")


@server.tool()
def fail(reason: str) -> str:
    """Always fails, with the reason given."""
    raise ValueError(reason)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
