#!/usr/bin/env bash
# The MCP load check (issue 17): the demo server (release build) over stateless Streamable HTTP,
# first one process, then two replicas sharing one port (SO_REUSEPORT: the kernel spreads the
# connections, the replicas share nothing), each loaded by benches/mcp_load.rs.
#   benches/mcp_load.sh [CLIENTS] [CALLS]      (50 x 200 by default)
# Last, three rounds of one process without and with bearer tokens (issue 30), interleaved, and
# the server's memory through floods of refused requests.
set -euo pipefail
cd "$(dirname "$0")/.."
clients="${1:-50}"
calls="${2:-200}"
cargo build --quiet --release --example mcp_server
cargo bench --quiet -p toolwright-benches --bench mcp_load --no-run
pids=()
trap 'for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done' EXIT
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
url="http://127.0.0.1:$port/mcp"
start() {
  target/release/examples/mcp_server --http "127.0.0.1:$port" --reuse-port "$@" > /dev/null 2>> "$log" &
  pids+=("$!")
}
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; wait "$pid" 2> /dev/null || true; done
  pids=()
  : > "$log"
}
wait_up() {
  for _ in $(seq 100); do
    [ "$(grep -c 'listening on' "$log")" -ge "$1" ] && return
    sleep 0.1
  done
  cat "$log" >&2
  exit 1
}
log="$(mktemp)"
echo "== one server process"
start
wait_up 1
cargo bench --quiet -p toolwright-benches --bench mcp_load -- --url "$url" --clients "$clients" --calls "$calls"
cargo bench --quiet -p toolwright-benches --bench mcp_load -- --url "$url" --clients "$clients" --calls "$calls" --fresh-connections
echo "== two replicas on one port (a connection per call: each client's calls go to both)"
start
wait_up 2
cargo bench --quiet -p toolwright-benches --bench mcp_load -- --url "$url" --clients "$clients" --calls "$calls" --fresh-connections
stop_all
# Issue 30: the same load with bearer tokens (every request's token checked against the server's
# table before rmcp sees it), interleaved with runs without, on fresh servers each time, so that
# the ratio is taken on the same machine in the same minutes.
token="load-$RANDOM$RANDOM"
for round in 1 2 3; do
  echo "== round $round: one server process, no authentication"
  start
  wait_up 1
  cargo bench --quiet -p toolwright-benches --bench mcp_load -- --url "$url" --clients "$clients" --calls "$calls"
  stop_all
  echo "== round $round: one server process, bearer tokens (--token)"
  start --token "$token="
  wait_up 1
  cargo bench --quiet -p toolwright-benches --bench mcp_load -- --url "$url" --clients "$clients" --calls "$calls" --token "$token"
  stop_all
done
# Issue 30: what 10,000 requests without a token, then 10,000 bodies over the limit, cost the
# server's memory (resident set, and its peak, from /proc before and after each flood).
memory() {
  awk '/^VmRSS|^VmHWM/ {printf "%s %s kB  ", $1, $2} END {print ""}' "/proc/$1/status"
}
echo "== floods: one server process with --token and --max-body 16384"
start --token "$token=" --max-body 16384
wait_up 1
server_pid="${pids[0]}"
cargo bench --quiet -p toolwright-benches --bench mcp_load -- --url "$url" --clients 10 --calls 100 --token "$token" > /dev/null
echo "after 1,000 calls (warm):          $(memory "$server_pid")"
cargo bench --quiet -p toolwright-benches --bench mcp_load -- --url "$url" --flood no-token --requests 10000
echo "after 10,000 without a token:      $(memory "$server_pid")"
cargo bench --quiet -p toolwright-benches --bench mcp_load -- --url "$url" --flood big-body --requests 10000 --token "$token"
echo "after 10,000 bodies over the limit: $(memory "$server_pid")"
cargo bench --quiet -p toolwright-benches --bench mcp_load -- --url "$url" --flood no-token --requests 10000
echo "after 10,000 more without a token: $(memory "$server_pid")"
stop_all
