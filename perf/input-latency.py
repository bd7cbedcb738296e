#!/usr/bin/env python3
"""Input latency on the headless backend (docs/INPUT.md, "Latency"): vitrined with the
real-time clock, a 200x100 pad whose press and release bindings light and dim it, and taps
injected with `time` = CLOCK_MONOTONIC now, as a device's kernel stamps its events; then
`stats`' input.latency, which vitrined measures from that time to the frame that shows
each reaction. With --moving a layer slides the whole time (a frame every period).

    python3 perf/input-latency.py [--vitrined .build/release/vitrined] [--taps 200] [--moving]
"""
import argparse
import json
import os
import socket
import subprocess
import tempfile
import time

import workload


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vitrined", default=os.path.join(os.path.dirname(__file__), "../.build/release/vitrined"))
    p.add_argument("--taps", type=int, default=200)
    p.add_argument("--moving", action="store_true", help="a layer slides meanwhile")
    p.add_argument("--size", default="1280x800")
    args = p.parse_args()
    directory = tempfile.mkdtemp(prefix="vitrine-latency-")
    path = os.path.join(directory, "vitrine.sock")
    daemon = subprocess.Popen([args.vitrined, "--backend", "headless", "--clock", "realtime", "--size", args.size, "--socket", path],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists(path):
                break
            time.sleep(0.05)
        client = socket.socket(socket.AF_UNIX)
        client.connect(path)
        request = workload.requester(client.makefile("rwb"), "input-latency")
        request({"cmd": "layer.add", "layer": "pad", "properties": {"bounds": [0, 0, 200, 100], "position": [300, 600], "backgroundColor": "#404040"}})
        request({"cmd": "layer.add", "layer": "slider", "properties": {"bounds": [0, 0, 200, 100], "position": [150, 200], "backgroundColor": "#ff0000"}})
        if args.moving:
            request({"cmd": "animation.add", "layer": "slider", "animation": {"keyPath": "position.x", "from": 150, "to": 1130, "duration": 10,
                                                                             "autoreverses": True, "repeatCount": "infinity"}})
        for on, colour in (("press", "#c0c0c0"), ("release", "#404040")):
            request({"cmd": "binding.add", "layer": "pad", "on": on,
                     "commands": [{"cmd": "layer.set", "layer": "pad", "properties": {"backgroundColor": colour}, "actions": False}]})
        for i in range(args.taps):
            for phase in ("down", "up"):
                request({"cmd": "input.inject", "type": "touch", "phase": phase, "point": [300, 600], "time": time.clock_gettime(time.CLOCK_MONOTONIC)})
                # 40 to 59 ms apart, so that the events fall anywhere in a frame period
                time.sleep(0.04 + (i % 7) * 0.0031)
        time.sleep(0.1)
        latency = request({"cmd": "stats"})["input"]["latency"]
        print(("moving" if args.moving else "still"), json.dumps(latency, sort_keys=True))
    finally:
        daemon.terminate()
        daemon.wait()


if __name__ == "__main__":
    main()
