"""The daemon at work, as the release build's profiles see it (perf/frame-order.py and
perf/frame-profile.py): `vitrined` on the headless backend at 1080p with the real-time
clock, showing what `vitrine-bench rolling` measures — an 8-digit counter that changes once
a second, then the demo's bound label counting while it moves.
"""

import json
import os
import random
import signal
import socket
import subprocess
import sys
import time

DAEMON_ARGUMENTS = ["--backend", "headless", "--size", "1920x1080", "--clock", "realtime", "--log-level", "warning"]


def run_daemon(command, workdir, seconds, label=True, startup=30):
    """Starts `command` (a vitrined, perhaps under a tool) with its socket and screenshots in
    `workdir`, drives it (`drive`) and stops it with SIGTERM, so that it exits as a kiosk's
    daemon does and writes what its tool collected."""
    sock = os.path.join(workdir, "v.sock")
    daemon = subprocess.Popen(
        [*command, *DAEMON_ARGUMENTS, "--socket", sock, "--screenshot-dir", workdir],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + startup
        while not os.path.exists(sock):
            if daemon.poll() is not None or time.time() > deadline:
                sys.exit(f"workload: {command[0]} did not start")
            time.sleep(0.1)
        drive(sock, seconds, label)
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait()


def drive(sock, seconds, label):
    """The counter for `seconds`, then, if `label`, the label for half as long."""
    with socket.socket(socket.AF_UNIX) as client:
        client.connect(sock)
        scenes(client.makefile("rwb"), seconds, label)


def requester(lines, name="workload"):
    """A function that sends a request over a connection's `lines` (binary) and returns its
    result once the reply comes (events before it are passed over); a failure ends the
    program, named `name`."""
    ids = iter(range(1, 1 << 30))

    def request(body):
        body["id"] = next(ids)
        lines.write((json.dumps(body) + "\n").encode())
        lines.flush()
        while True:
            reply = json.loads(lines.readline())
            if reply.get("id") == body["id"]:
                if not reply.get("ok"):
                    sys.exit(f"{name}: {body['cmd']} failed: {reply}")
                return reply["result"]

    return request


def scenes(lines, seconds, label):
    """The requests of `drive`, over the connection's `lines`."""
    request = requester(lines)
    request({"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {
        "bounds": [0, 0, 1200, 200], "position": [960, 540], "fontSize": 140, "alignment": "center",
        "usesGrouping": False, "value": 10000000}})
    time.sleep(1)
    rng, value = random.Random(1), 10000000
    for _ in range(seconds):
        value += rng.randint(1, 999)
        request({"cmd": "number.set", "layer": "n", "value": value})
        time.sleep(1)
    if not label:
        return
    request({"cmd": "layer.remove", "layer": "n"})
    request({"cmd": "layer.add", "layer": "label", "kind": "text", "properties": {
        "bounds": [0, 0, 700, 50], "position": [360, 600], "fontSize": 34, "template": "It took {count:%.0f} seconds",
        "count": 0, "foregroundColor": "#9fd3c7"}})
    for k in range(max(1, seconds // 2)):
        request({"cmd": "layer.set", "layer": "label", "properties": {"count": (k + 1) * 10, "position.x": 360 + 40 * (k % 2)},
                 "animation": {"duration": 1}})
        time.sleep(1)
