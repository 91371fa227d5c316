#!/usr/bin/env python3
"""The language server as an editor runs it: the release binary's `taintlint server` in a
process of its own, driven over stdio with JSON-RPC framing, its peak resident memory read from
/proc/<pid>/status (VmHWM) while it is still running (only the server's memory: the client is
this script).

Rows:
- cluster: a 5,000-node `kubectl get nodes -o json` as the inventory and a 14,800-line manifest
  of 500 Deployments open (benches/support/cluster.rs's data: `cargo bench --bench peak` writes
  them as target/bench-data/nodes-5000.json and lsp-manifest.yaml), a character typed into a
  workload's name and deleted again, 100 times, each until that version's diagnostics are
  pushed: median and p90 of the edits, the server's peak; and the server's own part, until the
  first byte of that answer arrives (the rest is this client reading and parsing its JSON).
- workspace: each directory given (the nine corpora's parent: all nine as one workspace),
  opened as the workspace root by a client
  that pulls diagnostics: the time from starting the process to the answer of the first
  `workspace/diagnostic` (every file read and analysed), the server's peak.

Every row is run RUNS times (environment, 5 unless set), the workspaces interleaved; medians
are printed with the range.

  python3 benches/lsp_process.py BINARY cluster NODES.json MANIFEST.yaml
  python3 benches/lsp_process.py BINARY workspace REPO...
"""

import json
import os
import statistics
import subprocess
import sys
import time


class Server:
    def __init__(self, binary):
        self.started = time.monotonic()
        self.p = subprocess.Popen(
            [binary, "server"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 1
        self.queued = []
        # When the first byte of each message read arrived, by the message's id().
        self.arrived = {}

    def send(self, message):
        body = json.dumps(message).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def read(self):
        length = None
        first = None
        while True:
            line = self.p.stdout.readline()
            first = first or time.monotonic()
            if not line:
                raise EOFError("the server closed its output")
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        message = json.loads(self.p.stdout.read(length))
        self.arrived[id(message)] = first
        # Requests from the server (configuration, registrations, refreshes): answered at once.
        if "method" in message and "id" in message:
            method = message["method"]
            if method == "workspace/configuration":
                result = [None for _ in message["params"]["items"]]
            else:
                result = None
            self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})
        return message

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        while True:
            m = self.read()
            if m.get("id") == i and "method" not in m:
                return m
            self.queued.append(m)

    def wait(self, wanted):
        for k, m in enumerate(self.queued):
            if wanted(m):
                return self.queued.pop(k)
        while True:
            m = self.read()
            if wanted(m):
                return m
            self.queued.append(m)

    def peak_kib(self):
        with open(f"/proc/{self.p.pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        return 0

    def close(self):
        peak = self.peak_kib()
        try:
            self.request("shutdown", None)
            self.notify("exit", None)
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()
            self.p.wait()
        return peak


PUSH = {
    "textDocument": {
        "publishDiagnostics": {"relatedInformation": True, "versionSupport": True}
    }
}
PULL = {
    "general": {"positionEncodings": ["utf-8", "utf-16"]},
    "textDocument": {"diagnostic": {"dynamicRegistration": False}},
    "workspace": {
        "configuration": True,
        "didChangeWatchedFiles": {"dynamicRegistration": True},
        "diagnostics": {"refreshSupport": True},
    },
}


def uri(path):
    return "file://" + os.path.abspath(path)


def cluster(binary, nodes, manifest, edits=100):
    text = open(manifest).read()
    doc = uri(manifest)
    s = Server(binary)
    s.request(
        "initialize",
        {"processId": None, "rootUri": None, "capabilities": PUSH,
         "initializationOptions": {"inventory": os.path.abspath(nodes)}},
    )
    s.notify("initialized", {})
    s.notify("textDocument/didOpen",
             {"textDocument": {"uri": doc, "languageId": "yaml", "version": 1, "text": text}})

    def published(version):
        return s.wait(lambda m: m.get("method") == "textDocument/publishDiagnostics"
                      and m["params"]["uri"] == doc
                      and m["params"].get("version") == version)

    expected = len(published(1)["params"]["diagnostics"])
    middle = len(text) // 2
    line = text[: text.index("\n  name: ", middle) + 1].count("\n")
    times, server = [], []
    for version in range(2, 2 + edits):
        typed = version % 2 == 0
        change = {"range": {"start": {"line": line, "character": 8},
                            "end": {"line": line, "character": 8 if typed else 9}},
                  "text": "x" if typed else ""}
        start = time.monotonic()
        s.notify("textDocument/didChange",
                 {"textDocument": {"uri": doc, "version": version}, "contentChanges": [change]})
        m = published(version)
        times.append(time.monotonic() - start)
        server.append(s.arrived.pop(id(m)) - start)
        found = len(m["params"]["diagnostics"])
        assert found == expected, (found, expected)
    peak = s.close()
    times.sort()
    server.sort()
    return (times[len(times) // 2], times[len(times) * 9 // 10], peak, expected,
            server[len(server) // 2], server[len(server) * 9 // 10])


def workspace(binary, repo):
    s = Server(binary)
    s.request("initialize", {"processId": None, "rootUri": uri(repo), "capabilities": PULL,
                             "initializationOptions": {}})
    s.notify("initialized", {})
    # The server says when it has read the workspace's files (tests/support/client.rs).
    s.wait(lambda m: m.get("method") == "window/logMessage"
           and m["params"]["message"].startswith("taintlint: read the workspace"))
    read = time.monotonic() - s.started
    r = s.request("workspace/diagnostic", {"previousResultIds": []})
    elapsed = time.monotonic() - s.started
    items = r["result"]["items"]
    count = sum(len(i["items"]) for i in items)
    peak = s.close()
    return elapsed, peak, len(items), count, read


def spread(values, fmt):
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}-{fmt(max(values))})"


def main():
    binary, row, *args = sys.argv[1:]
    runs = int(os.environ.get("RUNS", "5"))
    ms = lambda v: f"{v * 1e3:.1f} ms"
    mib = lambda v: f"{v / 1024:.0f} MiB"
    if row == "cluster":
        nodes, manifest = args
        results = [cluster(binary, nodes, manifest) for _ in range(runs)]
        print(f"server, {os.path.basename(nodes)} as the inventory, edit to pushed diagnostics "
              f"({results[0][3]} diagnostics), {runs} runs of 100 edits: "
              f"median {spread([r[0] for r in results], ms)}, "
              f"p90 {spread([r[1] for r in results], ms)}, "
              f"server peak {spread([r[2] for r in results], mib)}; "
              f"the server's part, to the first byte of the answer: "
              f"median {spread([r[4] for r in results], ms)}, "
              f"p90 {spread([r[5] for r in results], ms)}")
    else:
        results = {repo: [] for repo in args}
        for _ in range(runs):
            for repo in args:  # interleaved
                results[repo].append(workspace(binary, repo))
        for repo, rs in results.items():
            print(f"server on {os.path.basename(repo)} ({rs[0][2]} files, {rs[0][3]} diagnostics): "
                  f"first workspace/diagnostic {spread([r[0] for r in rs], ms)} from start "
                  f"(the workspace read in {spread([r[4] for r in rs], ms)}), "
                  f"server peak {spread([r[1] for r in rs], mib)}")


if __name__ == "__main__":
    main()
