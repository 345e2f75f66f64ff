"""The official Python MCP SDK calls examples/mcp_server (built with `--features mcp,otel`) with a
W3C `traceparent` in the request's `params._meta` (SEP-414); the server exports over OTLP/HTTP to
the receiver here, which decodes the protobuf with the official definitions (PyPI
`opentelemetry-proto`). Checked, field for field: the server's span continues the caller's trace
(its parent is the caller's span), and the tool's span is the server span's child (issue 45).

    python check_otel.py SERVER_BINARY

Runs the server over stdio (its exports flushed when stdin closes) and over Streamable HTTP (flushed
on SIGTERM).
"""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

SPANS = []
METRICS = []
RESOURCES = []
SERVER_KIND = 2
INTERNAL_KIND = 1
STATUS_ERROR = 2


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/v1/traces":
            export = ExportTraceServiceRequest.FromString(body)
            for resource in export.resource_spans:
                RESOURCES.append(attributes(resource.resource.attributes))
                for scope in resource.scope_spans:
                    SPANS.extend(scope.spans)
        elif self.path == "/v1/metrics":
            export = ExportMetricsServiceRequest.FromString(body)
            for resource in export.resource_metrics:
                for scope in resource.scope_metrics:
                    METRICS.extend(metric.name for metric in scope.metrics)
        else:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def attributes(pairs):
    out = {}
    for pair in pairs:
        kind = pair.value.WhichOneof("value")
        out[pair.key] = getattr(pair.value, kind) if kind else None
    return out


def check(condition, what):
    if not condition:
        raise AssertionError(what)
    print(f"ok: {what}")


def wait_for(predicate, what, seconds=15):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what}: timed out; spans received: {[s.name for s in SPANS]}")


def check_trace(trace_hex, parent_hex, transport, tool):
    """The spans of one call: server span under the caller's, tool span under the server's."""
    trace = bytes.fromhex(trace_hex)
    wait_for(lambda: any(s.trace_id == trace and s.kind == INTERNAL_KIND for s in SPANS),
             f"the spans of trace {trace_hex}")
    mine = [s for s in SPANS if s.trace_id == trace]
    servers = [s for s in mine if s.kind == SERVER_KIND]
    check(len(servers) == 1, f"{transport}: one server span in the caller's trace ({[s.name for s in mine]})")
    server = servers[0]
    check(server.name == f"tools/call {tool}", f"{transport}: the server span is named `tools/call {tool}`")
    check(server.parent_span_id == bytes.fromhex(parent_hex),
          f"{transport}: the server span's parent is the caller's span from `_meta.traceparent`")
    found = attributes(server.attributes)
    expected = {
        "mcp.method.name": "tools/call",
        "gen_ai.tool.name": tool,
        "gen_ai.operation.name": "execute_tool",
        "network.transport": transport,
    }
    for key, value in expected.items():
        check(found.get(key) == value, f"{transport}: server span {key} = {value!r} ({found.get(key)!r})")
    check(re.fullmatch(r"\d{4}-\d{2}-\d{2}", found.get("mcp.protocol.version", "")) is not None,
          f"{transport}: server span mcp.protocol.version ({found.get('mcp.protocol.version')!r})")
    check("jsonrpc.request.id" in found, f"{transport}: server span jsonrpc.request.id")
    check("error.type" not in found and server.status.code != STATUS_ERROR, f"{transport}: the call succeeded")
    tools = [s for s in mine if s.parent_span_id == server.span_id and s.kind == INTERNAL_KIND]
    check(len(tools) == 1 and tools[0].name == f"execute_tool {tool}",
          f"{transport}: the tool span `execute_tool {tool}` is the server span's child")
    tool_attributes = attributes(tools[0].attributes)
    check(tool_attributes.get("gen_ai.tool.name") == tool and tool_attributes.get("gen_ai.tool.type") == "function",
          f"{transport}: the tool span's gen_ai attributes")
    check("gen_ai.tool.call.arguments" not in tool_attributes, f"{transport}: no arguments recorded")


async def call(server, trace_hex, parent_hex):
    meta = {"traceparent": f"00-{trace_hex}-{parent_hex}-01", "tracestate": "caller=python"}
    async with Client(server) as client:
        result = await client.call_tool("add", {"a": 40, "b": 2}, meta=meta)
        text = "".join(block.text for block in result.content if block.type == "text")
        check(text == "42" and not result.is_error, "the traced call is answered")


def main():
    binary = sys.argv[1]
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    env = dict(os.environ)
    env.update({
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.server_address[1]}",
        "OTEL_SERVICE_NAME": "otel-check",
        "OTEL_BSP_SCHEDULE_DELAY": "100",
    })
    try:
        # Over stdio: the exports go out when stdin closes.
        trace, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
        anyio.run(call, StdioServerParameters(command=binary, args=[], env=env), trace, parent)
        check_trace(trace, parent, "pipe", "add")
        check({"service.name": "otel-check"}.items() <= RESOURCES[-1].items(),
              f"OTEL_SERVICE_NAME names the service ({RESOURCES[-1].get('service.name')!r})")

        # Over Streamable HTTP (stateless): the exports go out on SIGTERM.
        process = subprocess.Popen([binary, "--http", "127.0.0.1:0"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        line = ""
        while "listening on" not in line:
            line = process.stderr.readline()
            if not line:
                raise AssertionError("the HTTP server did not start")
        url = re.search(r"http://\S+", line).group(0)
        trace, parent = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
        anyio.run(call, url, trace, parent)
        process.send_signal(signal.SIGTERM)
        check(process.wait(timeout=30) == 0, "SIGTERM stops the server cleanly")
        check_trace(trace, parent, "tcp", "add")
        check("mcp.server.operation.duration" in METRICS and "toolwright.tool.call.duration" in METRICS,
              f"the duration histograms are exported ({sorted(set(METRICS))})")
    except AssertionError as error:
        print(f"FAILED: {error}", file=sys.stderr)
        sys.exit(1)
    finally:
        receiver.shutdown()


if __name__ == "__main__":
    main()
