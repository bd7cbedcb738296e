#!/usr/bin/env python3
"""Remote view's cost (issue 39, docs/BENCHMARKS.md "vnc"): the release vitrined at 1080p
rolling an 8-digit counter (the scene of `vitrine-bench rolling`) with a VNC viewer of this
script's own connected to its built-in server (`[remote] vnc`) and to wayvnc serving the
same daemon through wlr-screencopy (a `[[clients]]` entry), the anchor.

    python3 perf/vnc-bench.py [--vitrined .build/release/vitrined] [--window 6] [--rounds 3]
                              [--changes 100] [--servers builtin,wayvnc,wayvnc60]
                              [--only cpu,latency,throttled]

`builtin` is `[remote] vnc` on loopback (its default `max_rate`, 30 updates a second);
`builtin60` the same with `max_rate = 60`; `wayvnc` is wayvnc 0.5 as Debian ships it (its
default rate limit, 30 updates a second); `wayvnc60` is wayvnc with `--max-fps=60`. Each
server is measured in a daemon of its own serving it alone (the compositor enabled in all).
Prints one JSON object per line:
- `vnc.cpu`: per round, a daemon serving nothing (the floor), then one per server in turn,
  A B … B A: its CPU (utime + stime, /proc/PID/stat, all threads) per second over
  `--window` s with no viewer, then with the viewer connected; for wayvnc the daemon's and
  wayvnc's CPU together. `added_cpu_percent` is with minus without, `viewer_over_floor`
  with a viewer minus the floor (what serving a viewer costs in all). Also bytes and
  updates per second the viewer received. Medians over rounds; the ratios of each built-in
  to each wayvnc.
- `vnc.latency`: a 40x40 square's colour set over the socket (`actions: false`), 150-250 ms
  apart, `--changes` times, the counter rolling meanwhile: the time from just before the
  request is sent to the end of the FramebufferUpdate whose rectangles, with those of the
  updates before it since the change, cover the square, p50 / p99 per server.
- `vnc.throttled`: the viewer reading at most 1 Mbit/s (a 64 KiB receive buffer, reads
  paced by sleeping), the daemon's frames per second from `stats` over `--window` s.

The viewer speaks RFB 3.8 with security None (loopback), a 32 bpp true-colour pixel format
and ZRLE only: a ZRLE rectangle is a 4-byte length and zlib data, counted and skipped
without decoding. It asks for the whole screen once, then for an incremental update as soon
as each update has been read, as viewers do.
"""
import argparse
import json
import os
import random
import shutil
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

import workload

SQUARE = (100, 100, 40, 40)
TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    """utime + stime of all of `pid`'s threads, living and ended, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def child_with(parent, argument):
    """The child of `parent` with `argument` on its command line."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                arguments = f.read().split(b"\0")
        except (OSError, ValueError):
            continue
        if ppid == parent and argument.encode() in arguments:
            return int(entry)
    return None


class Viewer:
    """An RFB 3.8 viewer on its own thread that reads and counts updates; `rate` caps its
    reads in bytes per second (None: as fast as it can)."""

    def __init__(self, port, rate=None):
        self.sock = socket.socket()
        if rate:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        self.sock.connect(("127.0.0.1", port))
        self.rate = rate
        self.bytes = 0
        self.updates = 0
        self.encodings = {}
        self.log = []
        self.lock = threading.Lock()
        self.started = time.monotonic()
        self.buffer = bytearray()
        self.closed = False
        self.handshake()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def fill(self):
        want = 65536
        if self.rate:
            want = 8192
            ahead = self.bytes / self.rate - (time.monotonic() - self.started)
            if ahead > 0:
                time.sleep(ahead)
        chunk = self.sock.recv(want)
        if not chunk:
            raise EOFError("the server closed the connection")
        self.bytes += len(chunk)
        self.buffer += chunk

    def recv(self, n):
        while len(self.buffer) < n:
            self.fill()
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        return data

    def skip(self, n):
        while n > 0:
            if not self.buffer:
                self.fill()
            take = min(n, len(self.buffer))
            del self.buffer[:take]
            n -= take

    def handshake(self):
        version = self.recv(12)
        if not version.startswith(b"RFB 003."):
            raise RuntimeError(f"not an RFB server: {version!r}")
        self.sock.sendall(b"RFB 003.008\n")
        count = self.recv(1)[0]
        if count == 0:
            raise RuntimeError(self.recv(struct.unpack(">I", self.recv(4))[0]).decode())
        types = self.recv(count)
        if 1 not in types:
            raise RuntimeError(f"no security None among {list(types)}")
        self.sock.sendall(b"\x01")
        if struct.unpack(">I", self.recv(4))[0] != 0:
            raise RuntimeError("security None refused")
        self.sock.sendall(b"\x01")
        self.width, self.height = struct.unpack(">HH", self.recv(4))
        self.recv(16)
        self.recv(struct.unpack(">I", self.recv(4))[0])
        self.sock.sendall(struct.pack(">B3xBBBBHHHBBB3x", 0, 32, 24, 0, 1, 255, 255, 255, 16, 8, 0))
        self.sock.sendall(struct.pack(">BxHi", 2, 1, 16))
        self.request(incremental=False)

    def request(self, incremental=True):
        self.sock.sendall(struct.pack(">BBHHHH", 3, 1 if incremental else 0, 0, 0, self.width, self.height))

    def run(self):
        try:
            while True:
                kind = self.recv(1)[0]
                if kind == 0:
                    self.update()
                elif kind == 2:
                    pass
                elif kind == 3:
                    self.recv(3)
                    self.skip(struct.unpack(">I", self.recv(4))[0])
                else:
                    raise RuntimeError(f"unexpected server message {kind}")
        except (OSError, EOFError, RuntimeError) as error:
            if not self.closed:
                print(f"vnc-bench: viewer: {error}", file=sys.stderr)

    def update(self):
        self.recv(1)
        rects = []
        for _ in range(struct.unpack(">H", self.recv(2))[0]):
            x, y, w, h, encoding = struct.unpack(">HHHHi", self.recv(12))
            if encoding == 16:
                self.skip(struct.unpack(">I", self.recv(4))[0])
            elif encoding == 0:
                self.skip(w * h * 4)
            elif encoding == 1:
                self.recv(4)
            elif encoding >= 0:
                raise RuntimeError(f"encoding {encoding} not asked for")
            self.encodings[encoding] = self.encodings.get(encoding, 0) + 1
            rects.append((x, y, w, h))
        done = time.monotonic()
        self.request()
        with self.lock:
            self.updates += 1
            self.log.append((done, rects))

    def counts(self):
        with self.lock:
            return self.bytes, self.updates

    def close(self):
        self.closed = True
        self.sock.close()


def points(square):
    """The square's pixels, every 4th in each direction, and its far edges."""
    x, y, w, h = square
    xs = sorted({*range(x, x + w, 4), x + w - 1})
    ys = sorted({*range(y, y + h, 4), y + h - 1})
    return {(px, py) for px in xs for py in ys}


def shown(log, after, square):
    """When the updates completed after `after` have, together, covered all of `square`."""
    left = points(square)
    for done, rects in log:
        if done <= after:
            continue
        left = {(px, py) for px, py in left if not any(x <= px < x + w and y <= py < y + h for x, y, w, h in rects)}
        if not left:
            return done
    return None


class Kiosk:
    """The release daemon, headless 1080p at 60 Hz with the real-time clock, its compositor
    (for wayvnc), the built-in listener and wayvnc; a thread changes the counter every second."""

    def __init__(self, vitrined, servers):
        self.directory = tempfile.mkdtemp(prefix="vitrine-vnc-")
        self.ports = {name: free_port() for name in servers}
        sections = ["[output]\nheadless_size = \"1920x1080\"\n[input]\ncursor = \"hidden\"",
                    "[compositor]\nenabled = true\nsocket = \"wl\""]
        builtins = [name for name in servers if name.startswith("builtin")]
        if builtins:
            tables = [f"[[remote.vnc]]\nlisten = \"127.0.0.1:{self.ports[name]}\"" + (f"\nmax_rate = {name[7:]}" if name[7:] else "")
                      for name in builtins]
            sections.append("\n".join(tables))
        wayvncs = [name for name in servers if name.startswith("wayvnc")]
        if wayvncs:
            sections[1] += "\nscreencopy_clients = \"launched\""
        for name in wayvncs:
            rate = f"\"--max-fps={name[6:]}\", " if name[6:] else ""
            sections.append(f"[[clients]]\nname = \"{name}\"\ncommand = [\"wayvnc\", {rate}\"127.0.0.1\", \"{self.ports[name]}\"]\nrestart = \"never\"")
        config = os.path.join(self.directory, "vitrine.toml")
        with open(config, "w") as f:
            f.write("\n".join(sections) + "\n")
        path = os.path.join(self.directory, "v.sock")
        environment = dict(os.environ, XDG_RUNTIME_DIR=self.directory, HOME=self.directory)
        environment.pop("WAYLAND_DISPLAY", None)
        environment.pop("DISPLAY", None)
        self.process = subprocess.Popen([vitrined, "--config", config, *workload.DAEMON_ARGUMENTS, "--socket", path],
                                        stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.directory, "stderr"), "w"),
                                        env=environment)
        deadline = time.time() + 30
        while not os.path.exists(path):
            if self.process.poll() is not None or time.time() > deadline:
                sys.exit("vnc-bench: vitrined did not start: " + open(os.path.join(self.directory, "stderr")).read())
            time.sleep(0.1)
        self.control = self.connect(path)
        self.control({"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {
            "bounds": [0, 0, 1200, 200], "position": [960, 540], "fontSize": 140, "alignment": "center",
            "usesGrouping": False, "value": 10000000}})
        x, y, w, h = SQUARE
        self.control({"cmd": "layer.add", "layer": "square", "properties": {
            "bounds": [0, 0, w, h], "position": [x + w / 2, y + h / 2], "backgroundColor": "#000080"}})
        self.counter = self.connect(path)
        self.running = True
        threading.Thread(target=self.roll, daemon=True).start()
        self.helpers = {}
        for name in wayvncs:
            deadline = time.time() + 20
            while name not in self.helpers and time.time() < deadline:
                pid = child_with(self.process.pid, str(self.ports[name]))
                if pid:
                    self.helpers[name] = pid
                time.sleep(0.1)
        self.wait_listening(servers)

    def connect(self, path):
        client = socket.socket(socket.AF_UNIX)
        client.connect(path)
        return workload.requester(client.makefile("rwb"), "vnc-bench")

    def roll(self):
        rng, value = random.Random(1), 10000000
        while self.running:
            value += rng.randint(1, 999)
            self.counter({"cmd": "number.set", "layer": "n", "value": value})
            time.sleep(1)

    def wait_listening(self, servers):
        for name in servers:
            deadline = time.time() + 20
            while True:
                try:
                    socket.create_connection(("127.0.0.1", self.ports[name]), timeout=1).close()
                    break
                except OSError:
                    if time.time() > deadline:
                        sys.exit(f"vnc-bench: {name} does not listen on {self.ports[name]}")
                    time.sleep(0.2)

    def cpu(self, server):
        """The daemon's CPU seconds, and those of the wayvnc serving `server` if one does."""
        total = cpu_seconds(self.process.pid)
        if server in self.helpers:
            total += cpu_seconds(self.helpers[server])
        return total

    def frames(self):
        return self.control({"cmd": "stats"})["frames"]

    def stop(self):
        self.running = False
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        shutil.rmtree(self.directory, ignore_errors=True)


def measure(kiosk, server, window, viewing):
    """CPU per second of `server` (the daemon, and its wayvnc if it is one), frames per
    second, and, when `viewing`, a viewer's bytes and updates per second, over `window` s."""
    viewer = Viewer(kiosk.ports[server]) if viewing else None
    time.sleep(1.5)
    cpu0, frames0, t0 = kiosk.cpu(server), kiosk.frames(), time.monotonic()
    b0, u0 = viewer.counts() if viewer else (0, 0)
    time.sleep(window)
    cpu1, frames1, t1 = kiosk.cpu(server), kiosk.frames(), time.monotonic()
    b1, u1 = viewer.counts() if viewer else (0, 0)
    if viewer:
        viewer.close()
    time.sleep(0.5)
    seconds = t1 - t0
    return {"cpu_percent": 100 * (cpu1 - cpu0) / seconds, "fps": (frames1 - frames0) / seconds,
            "bytes_per_s": (b1 - b0) / seconds, "updates_per_s": (u1 - u0) / seconds}


def cpu_rounds(binaries, servers, window, rounds):
    """Per round, for each server in turn (A B … then … B A), a daemon serving it alone:
    CPU without a viewer, then with one; and a daemon serving none, the floor."""
    results = {name: [] for name in servers}
    floors = []
    for r in range(rounds):
        order = [None, *servers] if r % 2 == 0 else [*reversed(servers), None]
        for name in order:
            kiosk = Kiosk(binaries[name], [name] if name else [])
            try:
                time.sleep(2)
                base = measure(kiosk, name, window, False)
                if name is None:
                    floors.append(base["cpu_percent"])
                    print(json.dumps({"bench": "vnc.cpu.round", "round": r + 1, "server": "none",
                                      "base_cpu_percent": round(base["cpu_percent"], 2), "base_fps": round(base["fps"], 1)}), flush=True)
                    continue
                on = measure(kiosk, name, window, True)
            finally:
                kiosk.stop()
            row = {"round": r + 1, "server": name, "base_cpu_percent": round(base["cpu_percent"], 2),
                   "viewer_cpu_percent": round(on["cpu_percent"], 2), "added_cpu_percent": round(on["cpu_percent"] - base["cpu_percent"], 2),
                   "bytes_per_s": round(on["bytes_per_s"]), "updates_per_s": round(on["updates_per_s"], 1),
                   "fps": round(on["fps"], 1), "base_fps": round(base["fps"], 1)}
            print(json.dumps({"bench": "vnc.cpu.round", **row}), flush=True)
            results[name].append(row)
    floor = statistics.median(floors)
    summary = {"bench": "vnc.cpu", "window_s": window, "rounds": rounds, "floor_cpu_percent": round(floor, 2)}
    for name, rows in results.items():
        summary[name] = {key: round(statistics.median(row[key] for row in rows), 2)
                         for key in ("added_cpu_percent", "bytes_per_s", "updates_per_s", "fps", "base_cpu_percent", "viewer_cpu_percent")}
        summary[name]["idle_over_floor"] = round(summary[name]["base_cpu_percent"] - floor, 2)
        summary[name]["viewer_over_floor"] = round(summary[name]["viewer_cpu_percent"] - floor, 2)
    for built in [name for name in results if name.startswith("builtin")]:
        for anchor in [name for name in results if name.startswith("wayvnc")]:
            a, b = summary[built], summary[anchor]
            for key in ("added_cpu_percent", "viewer_over_floor", "bytes_per_s"):
                summary[f"ratio_{key}_{built}_{anchor}"] = round(a[key] / b[key], 2) if b[key] > 0 else None
    print(json.dumps(summary), flush=True)


def latency(kiosk, server, changes):
    viewer = Viewer(kiosk.ports[server])
    time.sleep(1.5)
    rng = random.Random(2)
    sent = []
    for i in range(changes):
        colour = "#%02x%02x%02x" % (rng.randrange(256), rng.randrange(256), (i * 37) % 256)
        t = time.monotonic()
        kiosk.control({"cmd": "layer.set", "layer": "square", "properties": {"backgroundColor": colour}, "actions": False})
        sent.append(t)
        time.sleep(0.15 + rng.random() * 0.1)
    time.sleep(0.5)
    viewer.close()
    with viewer.lock:
        log = list(viewer.log)
    delays, missed = [], 0
    for t in sent:
        seen = shown(log, t, SQUARE)
        if seen is None:
            missed += 1
        else:
            delays.append((seen - t) * 1000)
    delays.sort()

    def pct(p):
        return round(delays[min(len(delays) - 1, int(p * len(delays)))], 1) if delays else None

    row = {"bench": "vnc.latency", "server": server, "changes": changes, "seen": len(delays), "missed": missed,
           "p50_ms": pct(0.5), "p99_ms": pct(0.99), "max_ms": pct(1.0)}
    print(json.dumps(row), flush=True)
    return row


def throttled(kiosk, server, window, rate):
    viewer = Viewer(kiosk.ports[server], rate=rate)
    time.sleep(2)
    frames0, t0 = kiosk.frames(), time.monotonic()
    b0, u0 = viewer.counts()
    per_second, last = [], frames0
    for _ in range(int(window)):
        time.sleep(1)
        now = kiosk.frames()
        per_second.append(now - last)
        last = now
    frames1, t1 = kiosk.frames(), time.monotonic()
    b1, u1 = viewer.counts()
    viewer.close()
    seconds = t1 - t0
    row = {"bench": "vnc.throttled", "server": server, "link_bits_per_s": rate * 8, "fps": round((frames1 - frames0) / seconds, 1),
           "fps_each_second": per_second, "bytes_per_s": round((b1 - b0) / seconds), "updates_per_s": round((u1 - u0) / seconds, 1)}
    print(json.dumps(row), flush=True)
    return row


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vitrined", default=os.path.join(os.path.dirname(__file__), "../.build/release/vitrined"))
    p.add_argument("--wayvnc-vitrined", help="the vitrined wayvnc serves (default: --vitrined)")
    p.add_argument("--servers", default="builtin,wayvnc,wayvnc60")
    p.add_argument("--window", type=float, default=6)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--changes", type=int, default=100)
    p.add_argument("--only", default="cpu,latency,throttled")
    args = p.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    servers = args.servers.split(",")
    binaries = {name: (args.wayvnc_vitrined or args.vitrined) if name and name.startswith("wayvnc") else args.vitrined
                for name in [None, *servers]}
    parts = args.only.split(",")
    if "cpu" in parts:
        cpu_rounds(binaries, servers, args.window, args.rounds)
    for part, run in (("latency", lambda kiosk, name: latency(kiosk, name, args.changes)),
                      ("throttled", lambda kiosk, name: throttled(kiosk, name, args.window, 125_000))):
        if part not in parts:
            continue
        for name in servers:
            kiosk = Kiosk(binaries[name], [name])
            try:
                time.sleep(2)
                run(kiosk, name)
            finally:
                kiosk.stop()


if __name__ == "__main__":
    main()
