#!/usr/bin/env python3
"""The daemon's CPU and the bytes sent with one VNC viewer connected while a 1080p counter
rolls: vitrined (release, headless 1920x1080, realtime clock) with a [remote] listener on
loopback; a 12-digit rolling number changing every second (as vitrine-bench rolling);
CPU over `seconds` without a viewer, then with vncdotool's client asking for incremental
updates as fast as they come; bytes from the server socket's TCP_INFO (ss)."""
import json, os, socket, subprocess, sys, tempfile, threading, time

# Usage: perf/vnc-viewer.py .build/release/vitrined [seconds]   (prints JSON lines)
vitrined, seconds = sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 10
port = 25990
d = tempfile.mkdtemp(prefix="vncperf-")
open(f"{d}/v.toml", "w").write(f'[remote]\nvnc = "127.0.0.1:{port}"\n')
daemon = subprocess.Popen([vitrined, "--backend", "headless", "--size", "1920x1080", "--socket", f"{d}/v.sock",
                           "--config", f"{d}/v.toml", "--log-level", "error", "--state-dir", d, "--fresh"])
time.sleep(1.5)
class Client:
    def __init__(self):
        s = socket.socket(socket.AF_UNIX); s.connect(f"{d}/v.sock"); self.f = s.makefile("rw")
    def __call__(self, line):
        self.f.write(line.replace("{\"cmd\"", "{\"id\": 1, \"cmd\"", 1) + "\n"); self.f.flush(); return self.f.readline()
send, control = Client(), Client()
send('{"cmd": "layer.add", "layer": "bg", "kind": "gradient", "properties": {"bounds": [0, 0, 1920, 1080], "position": [960, 540], "colors": ["#12324a", "#0b1622"]}}')
send('{"cmd": "layer.add", "layer": "n", "kind": "rolling-number", "properties": {"bounds": [0, 0, 1800, 200], "position": [960, 540], "fontSize": 160, "alignment": "center", "format": "plain", "value": 123456789012, "textColor": "#ffd166"}}')
stop = False
def changer():
    i = 0
    while not stop:
        i += 1
        control('{"cmd": "number.set", "layer": "n", "value": %d, "animationType": "allNumbers", "spring": {"speed": 1}}' % (987654321098 if i % 2 else 123456789012))
        time.sleep(1)
threading.Thread(target=changer, daemon=True).start()

def ticks():
    fields = open(f"/proc/{daemon.pid}/stat").read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])
def frames():
    reply = json.loads(send('{"cmd": "stats"}'))
    if "result" not in reply: print(reply, flush=True)
    return reply.get("result", {})
hz = os.sysconf("SC_CLK_TCK")
def window(label):
    t0, c0, s0 = time.time(), ticks(), frames()
    time.sleep(seconds)
    t1, c1, s1 = time.time(), ticks(), frames()
    return {"run": label, "cpu_percent_of_core": round((c1 - c0) / hz / (t1 - t0) * 100, 2),
            "frames_per_second": round((s1.get("frames", 0) - s0.get("frames", 0)) / (t1 - t0), 1)}
time.sleep(2)
results = [window("no viewer")]
viewer = subprocess.Popen([sys.executable, "-c", f"""
from vncdotool import api
import time
c = api.connect('127.0.0.1::{port}')
c.refreshScreen(False)
n = 0
end = time.time() + {seconds + 6}
while time.time() < end:
    c.refreshScreen(True); n += 1
print(n)
api.shutdown()
"""], stdout=subprocess.PIPE, text=True)
time.sleep(3)
def sent():
    out = subprocess.run(["ss", "-tinH", "state", "established", f"( sport = :{port} )"], capture_output=True, text=True).stdout
    return sum(int(tok.split(":")[1]) for tok in out.split() if tok.startswith("bytes_sent:"))
b0 = sent()
r = window("one viewer")
b1 = sent()
r["bytes_per_second"] = round((b1 - b0) / seconds)
results.append(r)
updates = viewer.communicate()[0].strip()
results.append({"viewer_updates_total": updates})
stop = True
daemon.terminate(); daemon.wait()
os.system(f"rm -rf {d}")
for r in results: print(json.dumps(r))
