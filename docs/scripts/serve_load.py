#!/usr/bin/env python3
"""A bounded load on `annex serve` over loopback (standard library only).

Starts `annex serve --port 0`, then:
  1. measures requests per second of quick clients (one request per
     connection, `GET /api/state`) with nothing else going on;
  2. opens SLOW connections that send the start of a request head and then
     nothing (`GET / HTTP/1.1`, `Host`, `X: `), and counts how many the
     server closes or refuses at once;
  3. measures the quick clients again while those connections are open;
  4. closes them and checks that the server is alive and answers.
The server's resident memory is read from /proc before and after.

Usage: docs/scripts/serve_load.py [--bin target/release/annex] [--slow 1000]
       [--seconds 5] [--clients 4] [-- extra annex serve arguments]
Everything stays on 127.0.0.1 and stops by itself.
"""

import argparse
import json
import os
import resource
import socket
import subprocess
import threading
import time


def rss(pid):
    """The resident memory of `pid` as text ("gone" once it exited)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return f"{int(line.split()[1]) / 1024:.1f} MiB"
    except OSError:
        pass
    return "gone"


def request(addr, path, method="GET", body=b"", timeout=10.0):
    """One request on its own connection; the status (0: no answer)."""
    try:
        with socket.create_connection(addr, timeout=timeout) as s:
            head = (
                f"{method} {path} HTTP/1.1\r\nHost: {addr[0]}:{addr[1]}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                "Connection: close\r\n\r\n"
            ).encode()
            s.sendall(head + body)
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
        return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0, data
    except OSError:
        return 0, b""


def quick_load(addr, path, seconds, clients):
    """Requests per second served to `clients` threads; counts by status."""
    counts = {}
    lock = threading.Lock()
    end = time.monotonic() + seconds

    def worker():
        mine = {}
        while time.monotonic() < end:
            status, _ = request(addr, path, timeout=5.0)
            mine[status] = mine.get(status, 0) + 1
        with lock:
            for k, v in mine.items():
                counts[k] = counts.get(k, 0) + v

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return counts.get(200, 0) / seconds, counts


def closed_now(conns):
    """How many of `conns` the server has closed (or answered)."""
    n = 0
    for s in conns:
        s.setblocking(False)
        try:
            if s.recv(256) is not None:
                n += 1
        except BlockingIOError:
            pass
        except OSError:
            n += 1
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=None)
    ap.add_argument("--slow", type=int, default=1000)
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=4)
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    binary = a.bin or next(
        (p for p in ("target/release/annex", "target/debug/annex") if os.path.exists(p)),
        "annex",
    )
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, a.slow + 256))
    resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    # The server keeps the usual limit of 1024 (or the one we had).
    server_limit = min(soft, 1024)
    proc = subprocess.Popen(
        ["sh", "-c", f'ulimit -n {server_limit} && exec "$0" "$@"', binary, "serve",
         "--port", "0", "--hash", "1", *a.extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip().removeprefix("annex serve: http://")
        host, port = url.rstrip("/").rsplit(":", 1)
        addr = ("127.0.0.1", int(port))
        status, data = request(addr, "/api/session", "POST", b"{}")
        sid = json.loads(data.split(b"\r\n\r\n", 1)[1])["session"]
        path = f"/api/state?s={sid}"
        print(f"server: {binary}, ulimit -n {server_limit}, pid {proc.pid}")
        print(f"RSS at start: {rss(proc.pid)}")
        rps, counts = quick_load(addr, path, a.seconds, a.clients)
        print(f"quick clients alone: {rps:.0f} requests/s ({counts})")

        slow = []
        failed = 0
        head = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX: ".encode()
        for _ in range(a.slow):
            try:
                s = socket.create_connection(addr, timeout=5.0)
                s.sendall(head)
                slow.append(s)
            except OSError:
                failed += 1
        time.sleep(0.5)
        closed = closed_now(slow)
        print(f"slow connections: {len(slow)} opened ({failed} failed to connect), "
              f"{closed} closed by the server, {len(slow) - closed} held")
        print(f"RSS with them: {rss(proc.pid)}")
        rps, counts = quick_load(addr, path, a.seconds, a.clients)
        print(f"quick clients meanwhile: {rps:.0f} requests/s ({counts})")
        for s in slow:
            s.close()
        time.sleep(0.5)
        status, _ = request(addr, "/")
        alive = proc.poll() is None
        print(f"after closing them: GET / -> {status}, server alive: {alive}, "
              f"RSS {rss(proc.pid)}")
    finally:
        proc.kill()
        proc.wait()


if __name__ == "__main__":
    main()
