#!/usr/bin/env bash
# The MCP cost check (issue 43): the server CPU one `tools/call` of `add` costs, toolwright's
# server (examples/mcp_server, the demo toolbox, every capability on: logging, progress, MRTR,
# conversations, the HTTP limits) against bare rmcp serving the same tool with its own macros
# (benches/mcp_bare.rs), both release builds over stateless Streamable HTTP, loaded by
# benches/mcp_load.rs (numbers sent as numbers: bare rmcp coerces nothing), in interleaved rounds
# on fresh servers. A server's CPU is its utime + stime from /proc before and after the load.
#   benches/mcp_cost.sh [ROUNDS] [CLIENTS] [CALLS]      (6 rounds of 50 x 1000 by default)
# With --instructions, the servers' instructions per call instead, counted by callgrind (valgrind):
# each server loaded by 10 clients with 100 calls each, then with 200, and the difference divided
# by the 1,000 calls between (start-up and the first requests cancel out). Counts, unlike seconds,
# do not move with what else the machine runs.
#   benches/mcp_cost.sh --instructions
set -euo pipefail
cd "$(dirname "$0")/.."
instructions=false
if [ "${1:-}" = "--instructions" ]; then
  instructions=true
  shift
fi
rounds="${1:-6}"
clients="${2:-50}"
calls="${3:-1000}"
cargo build --quiet --release --example mcp_server
# The executable cargo built for the bench target named $1.
bench_binary() {
  cargo bench --quiet -p toolwright-benches --bench "$1" --no-run --message-format=json 2> /dev/null \
    | python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == sys.argv[1] and m.get("executable"):
        print(m["executable"])' "$1"
}
bare="$(bench_binary mcp_bare)"
load="$(bench_binary mcp_load)"
tick="$(getconf CLK_TCK)"
work="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && kill "$pid" 2> /dev/null || true' EXIT
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# User and system ticks, and context switches, for the breakdown.
detail() {
  echo "$(awk '{print $14, $15}' "/proc/$1/stat") $(awk '/ctxt_switches/ {s += $2} END {print s}' "/proc/$1/status")"
}
# Runs one round against the server command given; prints its line of the table.
round() {
  local name="$1" log port before after out
  shift
  log="$(mktemp)"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  # The server on the first core, the clients on the second: each round's two processes do not
  # take each other's core (the rounds' spread was +-20% without).
  taskset -c 0 "$@" --http "127.0.0.1:$port" > /dev/null 2> "$log" &
  pid="$!"
  for _ in $(seq 100); do grep -q 'listening on' "$log" && break; sleep 0.1; done
  # A warm-up of 1,000 calls, not counted.
  taskset -c 1 "$load" --url "http://127.0.0.1:$port/mcp" --clients 10 --calls 100 --numbers-only > /dev/null
  before="$(cpu "$pid")"
  read -r user0 system0 switches0 <<< "$(detail "$pid")"
  out="$(taskset -c 1 "$load" --url "http://127.0.0.1:$port/mcp" --clients "$clients" --calls "$calls" --numbers-only)"
  after="$(cpu "$pid")"
  read -r user1 system1 switches1 <<< "$(detail "$pid")"
  echo "  ($name: user $((user1 - user0)) ticks, system $((system1 - system0)) ticks, $((switches1 - switches0)) context switches)"
  kill "$pid"; wait "$pid" 2> /dev/null || true; pid=""
  python3 - "$name" "$before" "$after" "$tick" "$((clients * calls))" "$out" <<'PY'
import re, sys
name, before, after, tick, calls, out = sys.argv[1:]
seconds = (int(after) - int(before)) / int(tick)
per_call = seconds / int(calls) * 1e6
rate = re.search(r"([\d,.]+) calls/s", out)
p50 = re.search(r"p50 ([\d.]+ ms)", out)
print(f"{name}: server CPU {seconds:.2f} s for {int(calls):,} calls = {per_call:.1f} us/call; "
      f"{rate.group(1) if rate else '?'} calls/s; p50 {p50.group(1) if p50 else '?'}")
PY
}
# The instructions one server runs for a load of 10 clients x `calls` calls, under callgrind.
counted() {
  local calls="$1" log port out
  shift
  log="$(mktemp)"
  out="$(mktemp)"
  port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$@" --http "127.0.0.1:$port" > /dev/null 2> "$log" &
  pid="$!"
  for _ in $(seq 600); do grep -q 'listening on' "$log" && break; sleep 0.2; done
  "$load" --url "http://127.0.0.1:$port/mcp" --clients 10 --calls "$calls" --numbers-only > /dev/null
  kill -TERM "$pid"; wait "$pid" 2> /dev/null || true; pid=""
  sed -n 's/^summary: //p' "$out"
}
if $instructions; then
  for server in toolwright "bare rmcp"; do
    if [ "$server" = toolwright ]; then command=(target/release/examples/mcp_server); else command=("$bare"); fi
    small="$(counted 100 "${command[@]}")"
    large="$(counted 200 "${command[@]}")"
    echo "$server: $small instructions for 1,000 calls, $large for 2,000: $(( (large - small) / 1000 )) per call"
  done
  exit 0
fi
for r in $(seq "$rounds"); do
  echo "== round $r"
  round toolwright target/release/examples/mcp_server
  round "bare rmcp" "$bare"
done | tee "$work/rounds.txt"
# The summary: each server's mean, and the mean and median of the rounds' ratios.
python3 - "$work/rounds.txt" <<'PY'
import re, statistics, sys
runs = {"toolwright": [], "bare rmcp": []}
for line in open(sys.argv[1]):
    m = re.match(r"(toolwright|bare rmcp): .*= ([\d.]+) us/call", line)
    if m:
        runs[m.group(1)].append(float(m.group(2)))
tw, bare = runs["toolwright"], runs["bare rmcp"]
ratios = [a / b for a, b in zip(tw, bare)]
print(f"server CPU per call, mean of {len(tw)} rounds: toolwright {statistics.mean(tw):.1f} us, "
      f"bare rmcp {statistics.mean(bare):.1f} us, ratio {statistics.mean(tw) / statistics.mean(bare):.3f}; "
      f"rounds' ratios: median {statistics.median(ratios):.3f}, from {min(ratios):.3f} to {max(ratios):.3f}")
PY
