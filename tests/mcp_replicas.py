"""Tasks across replicas (issue 48): a real Redis server (Debian's redis-server), three replicas of
tool-mcp/examples/mcp_server sharing it (`--task-store`), and HAProxy (Debian's haproxy) in front,
round-robin, so that a task's polls mostly reach another replica than the one running it.

    python3 tests/mcp_replicas.py target/debug/examples/mcp_server

1. 200 `sleep` calls (1.0 to 2.99 s, each a different length) from two callers (bearer tokens),
   each answered with a task handle; one replica killed (SIGKILL) while the tasks run, and
   restarted. Every task must end `completed` with its own call's result, or `failed` with an
   error saying its replica's lease ran out (only tasks started on the killed replica); none
   stays `working` past its lease; none is lost; three reads of a task give the same answer; and
   the other caller's read of a task gets the answer of an unknown task.
2. Redis stopped: calls fail with a JSON-RPC error naming the task store; Redis started again
   (its append-only file kept): calls work again, and the tasks of part 1 are still there.

Stdlib only; exits non-zero on any failure, saying which.
"""

import concurrent.futures
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

LEASE_S = 10  # the demo server's lease (tasks' default)
CALLS = 200
TOKENS = {"alice": "alice-secret", "bob": "bob-secret"}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, what, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    sys.exit(f"{what} did not listen on port {port}")


META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "replicas-check", "version": "1.0.0"},
    "io.modelcontextprotocol/clientCapabilities": {
        "extensions": {"io.modelcontextprotocol/tasks": {}}
    },
}


def rpc(port, caller, method, params, name):
    """One stateless request through the proxy; returns (body, replica that answered)."""
    body = json.dumps(
        {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
    )
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
        "mcp-name": name,
        "authorization": f"Bearer {TOKENS[caller]}",
    }
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("POST", "/mcp", body, headers)
        response = connection.getresponse()
        text = response.read().decode()
        replica = response.getheader("x-replica", "?")
    finally:
        connection.close()
    if response.status != 200:
        raise RuntimeError(f"{method}: HTTP {response.status}: {text[:300]}")
    # A JSON body, or an SSE stream whose last `data:` line is the answer.
    if text.lstrip().startswith("{"):
        return json.loads(text), replica
    data = [line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1]), replica


class Fleet:
    def __init__(self, server, work):
        self.server, self.work = server, work
        self.redis_port = free_port()
        self.ports = [free_port() for _ in range(3)]
        self.proxy = free_port()
        self.replicas = [None, None, None]
        self.others = []

    def start_redis(self):
        self.redis = subprocess.Popen(
            ["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
             "--dir", self.work, "--appendonly", "yes", "--appendfsync", "always",
             "--save", ""],
            stdout=subprocess.DEVNULL,
        )
        wait_port(self.redis_port, "redis-server")

    def start_replica(self, at):
        log = open(os.path.join(self.work, f"replica{at + 1}.log"), "a")
        self.replicas[at] = subprocess.Popen(
            [self.server, "--http", f"127.0.0.1:{self.ports[at]}",
             "--task-store", f"redis://127.0.0.1:{self.redis_port}",
             "--token", f"{TOKENS['alice']}=write", "--token", f"{TOKENS['bob']}=write"],
            stdout=subprocess.DEVNULL, stderr=log,
        )
        wait_port(self.ports[at], f"replica {at + 1}")

    def start_proxy(self):
        servers = "\n".join(
            f"    server r{at + 1} 127.0.0.1:{port} check inter 200 fall 1 rise 2"
            for at, port in enumerate(self.ports)
        )
        config = os.path.join(self.work, "haproxy.cfg")
        with open(config, "w") as f:
            f.write(f"""global
    maxconn 1000
defaults
    mode http
    timeout connect 2s
    timeout client 30s
    timeout server 30s
    retries 3
    option redispatch
    # Only a request that never reached a replica is sent to another: a call is not repeated.
    retry-on conn-failure
frontend mcp
    bind 127.0.0.1:{self.proxy}
    default_backend replicas
backend replicas
    balance roundrobin
    http-response set-header x-replica %s
{servers}
""")
        self.haproxy = subprocess.Popen(["haproxy", "-f", config, "-db"], stdout=subprocess.DEVNULL)
        wait_port(self.proxy, "haproxy")

    def stop(self):
        for process in [*self.replicas, getattr(self, "haproxy", None), getattr(self, "redis", None)]:
            if process and process.poll() is None:
                process.kill()
                process.wait()


def failures():
    failed = []

    def check(ok, message):
        if not ok:
            failed.append(message)
            print("FAIL:", message)

    return failed, check


def main():
    server = sys.argv[1]
    failed, check = failures()
    with tempfile.TemporaryDirectory() as work:
        fleet = Fleet(server, work)
        try:
            fleet.start_redis()
            for at in range(3):
                fleet.start_replica(at)
            fleet.start_proxy()
            time.sleep(0.5)
            run(fleet, check)
        finally:
            fleet.stop()
    if failed:
        sys.exit(f"{len(failed)} failures")
    print("every check passed")


def start(fleet, i):
    caller = "alice" if i % 2 == 0 else "bob"
    ms = 1000 + 10 * i
    answer, replica = rpc(fleet.proxy, caller, "tools/call",
                          {"name": "sleep", "arguments": {"ms": ms}}, "sleep")
    result = answer.get("result", {})
    if result.get("resultType") != "task":
        raise RuntimeError(f"call {i}: not a task: {answer}")
    return {"i": i, "caller": caller, "ms": ms, "id": result["taskId"], "started_on": replica}


def get(fleet, caller, task_id):
    return rpc(fleet.proxy, caller, "tasks/get", {"taskId": task_id}, task_id)


def run(fleet, check):
    # Part 1: 200 tasks, one replica killed while they run.
    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        tasks = list(pool.map(lambda i: start(fleet, i), range(CALLS)))
    started = time.time()
    print(f"{len(tasks)} tasks started, by replica:",
          {r: sum(t["started_on"] == r for t in tasks) for r in ("r1", "r2", "r3")})
    time.sleep(0.5)
    fleet.replicas[1].send_signal(signal.SIGKILL)
    fleet.replicas[1].wait()
    killed_at = time.time()
    print("replica 2 killed (SIGKILL)")
    time.sleep(2)
    fleet.start_replica(1)
    print("replica 2 restarted")

    ended, elsewhere, polls = {}, 0, 0
    deadline = killed_at + LEASE_S + 20
    while len(ended) < len(tasks) and time.time() < deadline:
        def poll(task):
            return task, get(fleet, task["caller"], task["id"])
        open_tasks = [t for t in tasks if t["id"] not in ended]
        with concurrent.futures.ThreadPoolExecutor(20) as pool:
            for task, (answer, replica) in pool.map(poll, open_tasks):
                polls += 1
                elsewhere += replica != task["started_on"]
                result = answer.get("result")
                check(result is not None, f"task {task['i']}: tasks/get failed: {answer}")
                if result and result["status"] in ("completed", "failed", "cancelled"):
                    ended[task["id"]] = (result, time.time())
        time.sleep(0.3)
    print(f"{polls} polls, {elsewhere} answered by another replica than the task's own")
    check(elsewhere > polls // 2, "most polls should reach another replica")
    check(len(ended) == len(tasks),
          f"{len(tasks) - len(ended)} tasks still not ended {LEASE_S + 20} s after the kill")

    completed = failed_lease = 0
    for task in tasks:
        if task["id"] not in ended:
            continue
        result, at = ended[task["id"]]
        if result["status"] == "completed":
            completed += 1
            text = result["result"]["content"][0]["text"]
            check(text == str(task["ms"]), f"task {task['i']}: result {text}, not {task['ms']}")
        elif result["status"] == "failed":
            failed_lease += 1
            message = result["error"]["message"]
            check("lease ran out" in message, f"task {task['i']}: failed without saying why: {message}")
            check(task["started_on"] == "r2", f"task {task['i']} failed, started on {task['started_on']}")
            check(at <= killed_at + LEASE_S + 5, f"task {task['i']} stayed working past its lease")
        else:
            check(False, f"task {task['i']}: {result['status']}")
    print(f"{completed} completed, {failed_lease} failed (their replica killed)")
    check(failed_lease > 0, "the tasks running on the killed replica should fail")
    check(completed + failed_lease == len(tasks), "every task ends completed or failed")

    # The same answer from three reads; the other caller's read answered as for no task.
    sample = tasks[::10]
    for task in sample:
        answers = [get(fleet, task["caller"], task["id"])[0]["result"] for _ in range(3)]
        check(all(a == answers[0] for a in answers), f"task {task['i']}: reads differ")
        other = "bob" if task["caller"] == "alice" else "alice"
        theirs = get(fleet, other, task["id"])[0]
        unknown = get(fleet, other, "f" * 32)[0]
        check("error" in theirs, f"task {task['i']}: the other caller read it: {theirs}")
        check(theirs.get("error", {}).get("message", "").replace(task["id"], "ID")
              == unknown.get("error", {}).get("message", "").replace("f" * 32, "ID"),
              f"task {task['i']}: the other caller's answer differs from an unknown task's")
    print(f"{len(sample)} tasks read three times each, and by the other caller")

    # Part 2: Redis restarted.
    fleet.redis.send_signal(signal.SIGTERM)
    fleet.redis.wait()
    print("Redis stopped")
    answer, _ = rpc(fleet.proxy, "alice", "tools/call",
                    {"name": "sleep", "arguments": {"ms": 10}}, "sleep")
    message = answer.get("error", {}).get("message", "")
    check("task store" in message, f"a call while Redis is down: {answer}")
    answer, _ = get(fleet, tasks[0]["caller"], tasks[0]["id"])
    message = answer.get("error", {}).get("message", "")
    check("task store" in message, f"a read while Redis is down: {answer}")
    print("while Redis is down:", message)
    fleet.start_redis()
    print("Redis started again")
    ok = None
    for _ in range(50):
        answer, _ = rpc(fleet.proxy, "alice", "tools/call",
                        {"name": "sleep", "arguments": {"ms": 10}}, "sleep")
        if "result" in answer:
            ok = answer["result"]
            break
        time.sleep(0.2)
    check(ok is not None and ok.get("resultType") == "task", f"no call worked after Redis came back: {answer}")
    if ok:
        for _ in range(50):
            done = get(fleet, "alice", ok["taskId"])[0].get("result", {})
            if done.get("status") == "completed":
                break
            time.sleep(0.1)
        check(done.get("status") == "completed", f"the new task did not complete: {done}")
    kept = get(fleet, tasks[0]["caller"], tasks[0]["id"])[0].get("result", {})
    check(kept.get("status") in ("completed", "failed"), f"a task of part 1 was lost: {kept}")
    print("after Redis came back: calls work, and the earlier tasks are kept")
    print(f"part 1 took {time.time() - started:.1f} s")


if __name__ == "__main__":
    main()
