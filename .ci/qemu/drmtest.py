#!/usr/bin/env python3
"""The real-kernel DRM test: boots Debian's kernel in QEMU (TCG, one vCPU) with a
virtio-gpu and with a standard VGA (bochs-drm), runs a guest program that puts frames on
the screen through DRM/KMS, and compares QMP screendumps with the expected images.

    drmtest.py [--guest pattern|vitrined|input] [--gpu virtio,vga] [--out DIR] [--cache DIR]

Guests:
  pattern   .ci/qemu/guest/drm-pattern.c: a dumb buffer with pattern 1 (SetCrtc), then
            page flips ending on pattern 2; expected images are computed (pattern.h).
  vitrined  vitrined --backend drm --clock manual --scene cards.json, driven with
            vitrinectl; expected image: `vitrined render` of the same scene and time.
            The virtio-gpu has two heads (--heads): step 4 gives each its own scene,
            mode and rotation and compares a screendump of each head with the render
            of its scene (QMP screendump with device and head).
  input     (virtio-gpu only by default) uinput devices (uinput-replay.c), systemd-udevd,
            libinput and xkbcommon (guest/input-probe.c): taps, keys through a German
            keymap, bad input, hot-plug, latencies; then (--e2e) vitrined --backend drm with
            [input]: taps on a moving button and bindings in the next frame, the latency
            to the presented frame, cancels, typing (guest/input-e2e.sh).

Protocol on the serial console: the guest prints "VITRINE-STEP n what" and waits for a
line on the console; the host takes a screendump, compares it, and sends "go".
"VITRINE-INFO ..." lines are reported, "VITRINE-FAIL ..." fails the run, and
"VITRINE-DONE rc=N" ends it. See docs/DRM-TEST.md.
"""
import argparse
import base64
import bz2
import glob
import hashlib
import gzip
import json
import lzma
import os
import queue
import re
import shutil
import socket
import stat
import struct
import subprocess
import sys
import threading
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GPUS = {
    # name: (QEMU device, kernel driver shown in the report)
    "virtio": ("virtio-gpu-pci", "virtio_gpu"),
    "vga": ("VGA", "bochs"),
}
MODULES = ["virtio_pci", "virtio_gpu", "bochs"]
# The input guest's too: evdev (/dev/input/event*) and uinput are modules in Debian's kernel.
INPUT_MODULES = ["evdev", "uinput"]
# The CEC guest's: vivid, the kernel's virtual video test driver, whose HDMI input and
# output each have an emulated CEC adapter on one bus (CONFIG_VIDEO_VIVID_CEC=y in Debian).
CEC_MODULES = ["vivid"]
# The dmabuf guest's: udmabuf where the kernel builds it as a module (Debian's 6.1 does not
# build it at all: CONFIG_UDMABUF is not set; the client then exports virtio-gpu dumb buffers),
# and vgem, whose fences are the unsignalled write fences of the implicit sync steps (Debian's
# kernel has no CONFIG_SW_SYNC). Loaded after virtio_gpu, vgem is card1.
DMABUF_MODULES = ["udmabuf", "vgem"]
# The CEC guest's vivid: one HDMI input (the TV's adapter) and one HDMI output (vitrined's).
# node_types 0x101: video capture and output nodes only (no framebuffer, radio, VBI…).
CEC_VIVID = "n_devs=1 node_types=0x101 num_inputs=1 input_types=3 num_outputs=1 output_types=1 no_error_inj=1"
# Debian's udev rules the input guest's systemd-udevd runs: what tags input devices
# (input_id: ID_INPUT, ID_INPUT_TOUCHSCREEN, ID_INPUT_KEYBOARD…) and names them.
UDEV_RULES = ["50-udev-default.rules", "60-input-id.rules", "60-persistent-input.rules"]


# Step 2 of the vitrined guest: a rolling number from COUNTER_START, set three times
# (+1111, +2222, +3333) while the daemon runs on the realtime clock.
COUNTER_START = 1000
COUNTER_FINAL = COUNTER_START + 1111 + 2222 + 3333


def counter_json(value):
    return json.dumps({
        "background": "#0b1622",
        "layers": [
            {"id": "title", "kind": "text", "properties": {
                "bounds": [0, 0, 1000, 60], "position": [640, 200], "string": "Vitrine DRM test",
                "fontSize": 44, "alignmentMode": "center", "foregroundColor": "#d8e3ee"}},
            {"id": "counter", "kind": "rolling-number", "properties": {
                "bounds": [0, 0, 900, 200], "position": [640, 400], "value": value,
                "alignment": "center", "textColor": "#ffd166"}},
        ]}, indent=1) + "\n"


# Step 4 of the vitrined guest (two virtio-gpu heads): the second head's scene, mode and
# rotation (a portrait screen: the scene is 768x1024).
SECOND_SCENE = os.path.join(ROOT, "docs/examples/progress-ring.json")
SECOND_MODE = "1024x768"
SECOND_ROTATION = 90


def heads_toml(first_scene, second_scene):
    """vitrined's configuration for two heads: a scene on each, the second at its own mode."""
    return f"""# The DRM test's two heads (.ci/qemu/drmtest.py --guest vitrined, step 4)
[output]
backend = "drm"

[state]
journal = false

[[outputs]]
connector = "Virtual-1"
scene = "{first_scene}"

[[outputs]]
connector = "Virtual-2"
mode = "{SECOND_MODE}"
rotation = {SECOND_ROTATION}
root = "second"
scene = "{second_scene}"
"""


# The outputs benchmark on the two heads: both at 1920x1080 (the counters are added by the guest).
BENCH_TOML = """# The DRM test's outputs benchmark (.ci/qemu/drmtest.py --guest vitrined)
[output]
backend = "drm"

[state]
journal = false

[[outputs]]
connector = "Virtual-1"
mode = "1920x1080"

[[outputs]]
connector = "Virtual-2"
mode = "1920x1080"
"""


def log(msg):
    print(f"drm-test: {msg}", flush=True)


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


# ---------------------------------------------------------------- fetching (cached)

def kernel_package():
    """linux-image-<abi>-amd64, the package linux-image-amd64 depends on (or $VITRINE_QEMU_KERNEL)."""
    if os.environ.get("VITRINE_QEMU_KERNEL"):
        return os.environ["VITRINE_QEMU_KERNEL"]
    out = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True, text=True).stdout
    m = re.search(r"Depends: (linux-image-[0-9][^\s]*-amd64)\b", out)
    if not m:
        raise SystemExit("drm-test: cannot resolve linux-image-amd64 (apt-get update?); set VITRINE_QEMU_KERNEL=linux-image-…-amd64")
    return m.group(1)


def fetch(cache, package):
    """Downloads PACKAGE's .deb into CACHE/debs (once) and unpacks it into CACHE/PACKAGE (once)."""
    dest = os.path.join(cache, package)
    if os.path.exists(os.path.join(dest, ".unpacked")):
        return dest
    debs = os.path.join(cache, "debs")
    os.makedirs(debs, exist_ok=True)
    found = glob.glob(os.path.join(debs, f"{package}_*.deb"))
    if not found:
        log(f"downloading {package}")
        # As root, apt would hand the download to the _apt user, who cannot write here.
        download = ["apt-get", "download"] + (["-o", "APT::Sandbox::User=root"] if os.geteuid() == 0 else []) + [package]
        r = subprocess.run(download, cwd=debs)
        if r.returncode != 0 and os.geteuid() == 0:
            run(["apt-get", "update", "-qq"])
            r = subprocess.run(download, cwd=debs)
        if r.returncode != 0:
            raise SystemExit(f"drm-test: apt-get download {package} failed")
        found = glob.glob(os.path.join(debs, f"{package}_*.deb"))
    shutil.rmtree(dest, ignore_errors=True)
    run(["dpkg-deb", "-x", found[0], dest])
    open(os.path.join(dest, ".unpacked"), "w").write(os.path.basename(found[0]) + "\n")
    return dest


# ---------------------------------------------------------------- vmlinux

def decompress_at(data, offset):
    """The ELF image compressed at data[offset:], or None."""
    blob = data[offset:]
    try:
        if blob.startswith(b"\x1f\x8b\x08"):
            out = zlib.decompressobj(31).decompress(blob)
        elif blob.startswith(b"\xfd7zXZ\x00"):
            out = lzma.LZMADecompressor(lzma.FORMAT_XZ).decompress(blob)
        elif blob.startswith(b"\x5d\x00\x00"):
            out = lzma.LZMADecompressor(lzma.FORMAT_ALONE).decompress(blob)
        elif blob.startswith(b"BZh"):
            out = bz2.BZ2Decompressor().decompress(blob)
        elif blob.startswith(b"\x28\xb5\x2f\xfd") and shutil.which("zstd"):
            out = subprocess.run(["zstd", "-dcq"], input=blob, capture_output=True).stdout
        else:
            return None
    except (zlib.error, lzma.LZMAError, OSError, EOFError):
        return None
    return out if out.startswith(b"\x7fELF") else None


def extract_vmlinux(vmlinuz, out):
    """Writes the uncompressed kernel (ELF) inside the bzImage VMLINUZ to OUT.

    The x86 boot header says where the compressed payload is (payload_offset and
    payload_length at 0x248, relative to the protected-mode code after the setup
    sectors); if that fails, every known compression magic is tried in turn."""
    data = open(vmlinuz, "rb").read()
    candidates = []
    if data[0x202:0x206] == b"HdrS":
        setup_sects = data[0x1F1] or 4
        payload_offset, payload_length = struct.unpack_from("<II", data, 0x248)
        start = (setup_sects + 1) * 512 + payload_offset
        candidates.append(start)
    for magic in (b"\x1f\x8b\x08", b"\xfd7zXZ\x00", b"\x28\xb5\x2f\xfd", b"BZh", b"\x5d\x00\x00"):
        candidates += [m.start() for m in re.finditer(re.escape(magic), data)]
    for offset in candidates:
        elf = decompress_at(data, offset)
        if elf:
            tmp = out + ".tmp"
            open(tmp, "wb").write(elf)
            os.rename(tmp, out)
            return
    raise SystemExit(f"drm-test: no compressed kernel found in {vmlinuz}")


# ---------------------------------------------------------------- modules

def module_name(path):
    base = os.path.basename(path)
    return re.sub(r"\.ko(\.xz|\.zst|\.gz)?$", "", base).replace("-", "_")


def read_module(path):
    data = open(path, "rb").read()
    if path.endswith(".xz"):
        return lzma.decompress(data)
    if path.endswith(".gz"):
        return gzip.decompress(data)
    if path.endswith(".zst"):
        return subprocess.run(["zstd", "-dcq", path], capture_output=True, check=True).stdout
    return data


def resolve_modules(kroot, wanted):
    """[(name, decompressed .ko bytes)] for WANTED and what they depend on, dependencies
    first. The dependencies are the modules' own "depends=" (.modinfo) — what depmod writes
    into modules.dep, which the package does not ship. Built-in modules are skipped."""
    mdir = glob.glob(os.path.join(kroot, "lib/modules/*"))[0]
    index = {}
    for dirpath, _, files in os.walk(os.path.join(mdir, "kernel")):
        for f in files:
            if ".ko" in f:
                index[module_name(f)] = os.path.join(dirpath, f)
    builtin = set()
    if os.path.exists(os.path.join(mdir, "modules.builtin")):
        builtin = {module_name(l.strip()) for l in open(os.path.join(mdir, "modules.builtin"))}
    ordered, seen = [], set()

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        if name not in index:
            if name in builtin:
                return
            raise SystemExit(f"drm-test: module {name} is neither in {mdir} nor built in")
        data = read_module(index[name])
        m = re.search(rb"(?:^|\0)depends=([^\0]*)\0", data)
        for dep in (m.group(1).decode().split(",") if m and m.group(1) else []):
            visit(dep.replace("-", "_"))
        ordered.append((name, data))

    for name in wanted:
        visit(name)
    return os.path.basename(mdir), ordered


def kernel_has_module(kroot, name):
    """Whether the kernel package builds module NAME (as a module, not built in)."""
    mdir = glob.glob(os.path.join(kroot, "lib/modules/*"))[0]
    return any(module_name(f) == name for _, _, files in os.walk(os.path.join(mdir, "kernel")) for f in files if ".ko" in f)


# ---------------------------------------------------------------- initramfs

class Cpio:
    """A newc cpio archive (what the kernel unpacks as initramfs), built in memory."""

    def __init__(self):
        self.out = bytearray()
        self.ino = 1000
        self.dirs = set()

    def _entry(self, name, mode, data=b"", nlink=1):
        self.ino += 1
        name_b = name.lstrip("/").encode() + b"\0"
        hdr = "070701" + "".join(f"{v:08x}" for v in (
            self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0, len(name_b), 0))
        self.out += hdr.encode() + name_b
        self.out += b"\0" * (-len(self.out) % 4)
        self.out += data
        self.out += b"\0" * (-len(self.out) % 4)

    def mkdir(self, path):
        path = path.rstrip("/")
        if not path or path in self.dirs:
            return
        self.mkdir(os.path.dirname(path))
        self.dirs.add(path)
        self._entry(path, stat.S_IFDIR | 0o755, nlink=2)

    def file(self, path, data, mode=0o644):
        self.mkdir(os.path.dirname(path))
        self._entry(path, stat.S_IFREG | mode, data)

    def symlink(self, path, target):
        self.mkdir(os.path.dirname(path))
        self.dirs.add(path)
        self._entry(path, stat.S_IFLNK | 0o777, target.encode())

    def tree(self, src, dest):
        """Copies the host directory SRC (following symlinks) to DEST."""
        for dirpath, _, files in os.walk(src, followlinks=True):
            rel = os.path.relpath(dirpath, src)
            target = os.path.normpath(os.path.join(dest, rel))
            self.mkdir(target)
            for f in files:
                p = os.path.join(dirpath, f)
                if os.path.exists(p):
                    self.file(os.path.join(target, f), open(p, "rb").read(), os.stat(p).st_mode & 0o777)

    def finish(self):
        self._entry("TRAILER!!!", 0)
        return bytes(self.out)


# What vitrined opens with dlopen when a feature starts (input, the seat manager, keyboards,
# udev's hotplug monitor, the window backends, the Wayland server, the identification
# screen's QR code): not in its ELF NEEDED list, so not in what ldd lists (Package.swift,
# CLazyLibrary).
VITRINED_LAZY_LIBRARIES = ["libinput.so.10", "libudev.so.1", "libseat.so.1", "libxkbcommon.so.0", "libxkbcommon-x11.so.0",
                           "libxcb.so.1", "libxcb-shm.so.0", "libwayland-client.so.0", "libwayland-server.so.0",
                           "libqrencode.so.4", "libsystemd.so.0"]


def shared_libraries(binary):
    """The shared objects `ldd BINARY` lists (the loader included), and for vitrined those
    it opens at run time, with what they need."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    libs = []
    for line in out.splitlines():
        m = re.search(r"=>\s*(/\S+)", line) or re.match(r"\s*(/\S+)", line)
        if m:
            libs.append(m.group(1))
        elif "not found" in line:
            raise SystemExit(f"drm-test: {binary}: {line.strip()}")
    if re.sub(r"-[0-9a-f]{12}$", "", os.path.basename(binary)) == "vitrined":
        cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout
        for soname in VITRINED_LAZY_LIBRARIES:
            m = re.search(rf"^\s*{re.escape(soname)} \(libc6,x86-64\) => (/\S+)", cache, re.M)
            if not m:
                raise SystemExit(f"drm-test: vitrined opens {soname}, which is not installed")
            libs += [m.group(1)] + [lib for lib in shared_libraries(m.group(1)) if lib not in libs]
    return libs


def build_initramfs(path, busybox, modules, programs, files, guest_script, links=()):
    """PROGRAMS: host binaries put into /usr/bin with the libraries they need;
    FILES: (host path, guest path) pairs, directories copied whole; LINKS: (guest path,
    target) symbolic links."""
    c = Cpio()
    for d in ("proc", "sys", "dev", "run", "tmp", "var/cache", "root", "usr/lib", "usr/bin", "usr/sbin", "bin", "sbin"):
        c.mkdir("/" + d)
    # Debian's merged /usr: /lib and /lib64 are links into /usr, as on the host.
    for link in ("/lib", "/lib64"):
        if os.path.islink(link):
            c.mkdir("/usr" + link)
            c.symlink(link, os.readlink(link))
    c.file("/bin/busybox", open(busybox, "rb").read(), 0o755)
    kversion, mods = modules
    for name, data in mods:
        c.file(f"/lib/modules/{kversion}/{name}.ko", data)
    c.file("/etc/vitrine-modules", "".join(f"/lib/modules/{kversion}/{n}.ko\n" for n, _ in mods).encode())
    seen = set()
    for prog in programs:
        data = open(prog, "rb").read()
        if shutil.which("strip"):  # vitrined's symbols are a third of it: less to unpack
            stripped = path + ".strip"
            subprocess.run(["strip", "-o", stripped, prog], check=True)
            data = open(stripped, "rb").read()
            os.unlink(stripped)
        name = re.sub(r"-[0-9a-f]{12}$", "", os.path.basename(prog))
        c.file("/usr/bin/" + name, data, 0o755)
        for lib in shared_libraries(prog):
            real_dir = os.path.realpath(os.path.dirname(lib))
            dest = os.path.join(real_dir, os.path.basename(lib))
            if dest not in seen:
                seen.add(dest)
                c.file(dest, open(os.path.realpath(lib), "rb").read(), 0o755)
    for src, dest in files:
        if os.path.isdir(src):
            c.tree(src, dest)
        else:
            c.file(dest, open(src, "rb").read(), os.stat(src).st_mode & 0o777)
    for link, target in links:
        c.symlink(link, target)
    c.file("/init", open(os.path.join(HERE, "guest/init"), "rb").read(), 0o755)
    c.file("/guest.sh", open(guest_script, "rb").read(), 0o755)
    data = c.finish()
    open(path, "wb").write(data)
    return len(data)


# ---------------------------------------------------------------- QEMU

class QMP:
    def __init__(self, path, timeout=20):
        deadline = time.time() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.file = self.sock.makefile("rwb")
        self._read()  # greeting
        self.command("qmp_capabilities")

    def _read(self):
        line = self.file.readline()
        if not line:
            raise EOFError("QMP closed")
        return json.loads(line)

    def command(self, name, **arguments):
        self.file.write(json.dumps({"execute": name, "arguments": arguments}).encode() + b"\n")
        self.file.flush()
        while True:
            msg = self._read()
            if "return" in msg:
                return msg["return"]
            if "error" in msg:
                raise RuntimeError(f"QMP {name}: {msg['error'].get('desc')}")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def gpu_device(gpu, size, heads=1):
    """-device arguments; SIZE (WIDTHxHEIGHT) becomes the EDID's preferred mode. HEADS > 1:
    a virtio-gpu with that many scanouts (max_outputs)."""
    device = GPUS[gpu][0] + ",id=gpu"
    if heads > 1:
        device += f",max_outputs={heads}"
    if size:
        w, h = size.split("x")
        device += f",xres={w},yres={h}"
    return ["-device", device]


class Failure(Exception):
    pass


class HeadSwitch:
    """Plugs and unplugs a virtio-gpu's scanouts from the host, as a monitor would be: QEMU's
    D-Bus display (on a private dbus-daemon) takes org.qemu.Display1.Console.SetUIInfo, a
    size enabling the scanout and 0x0 disabling it; QEMU then raises the device's display
    event, and the guest's virtio_gpu re-reads the scanouts and sends a real HOTPLUG=1 uevent."""

    def __init__(self, outdir, gpu):
        self.bus = os.path.join(outdir, f"{gpu}.dbus")
        if os.path.exists(self.bus):
            os.unlink(self.bus)
        self.address = "unix:path=" + self.bus
        self.daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--address=" + self.address, "--print-address"],
                                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.daemon.stdout.readline()

    @staticmethod
    def available():
        return shutil.which("dbus-daemon") is not None and shutil.which("gdbus") is not None

    def display(self):
        return ["-display", "dbus,addr=" + self.address]

    def set(self, head, size):
        """SIZE "WxH" plugs head HEAD in at that size; None unplugs it."""
        w, h = (size or "0x0").split("x")
        r = subprocess.run(["gdbus", "call", "--address", self.address, "--dest", "org.qemu", "--object-path",
                            f"/org/qemu/Display1/Console_{head}", "--method", "org.qemu.Display1.Console.SetUIInfo",
                            "0", "0", "0", "0", w, h], capture_output=True, text=True, timeout=20)
        return r.returncode == 0, (r.stderr or r.stdout).strip()

    def close(self):
        self.daemon.kill()
        self.daemon.wait()


def resume(proc):
    """Tells the guest's script to go on after the host checked a step."""
    try:
        proc.stdin.write(b"go\n")
        proc.stdin.flush()
    except BrokenPipeError:
        pass  # QEMU has ended; the console says why


def boot(gpu, args, vmlinux, initramfs, outdir, expected_for, imgcmp):
    """Boots one VM; returns (ok, [report lines], {timings})."""
    qmp_path = os.path.join(outdir, f"{gpu}.qmp")
    if os.path.exists(qmp_path):
        os.unlink(qmp_path)
    console_path = os.path.join(outdir, f"{gpu}-console.log")
    heads = args.heads if gpu == "virtio" else 1
    # QEMU enables a virtio-gpu's further scanouts only when a display asks for them;
    # the kernel's video=…:e forces the connector on (connected, with the driver's modes).
    heads_append = "".join(f"video=Virtual-{i + 1}:e " for i in range(1, heads))
    switch = HeadSwitch(outdir, gpu) if heads > 1 and HeadSwitch.available() else None
    cmd = [args.qemu, "-accel", "tcg", "-smp", "1", "-m", str(args.memory),
           "-nodefaults", "-no-user-config", *(switch.display() if switch else ["-display", "none"]), "-no-reboot",
           "-kernel", vmlinux, "-initrd", initramfs,
           "-append", "console=ttyS0 quiet loglevel=4 panic=-1 no_timer_check " + heads_append + args.append,
           "-serial", "stdio", "-qmp", f"unix:{qmp_path},server=on,wait=off"] + gpu_device(gpu, args.size, heads)
    report, timings, ok = [], {}, True
    t0 = time.time()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    lines = queue.Queue()
    console = open(console_path, "wb")

    def reader():
        for raw in proc.stdout:
            console.write(raw)
            console.flush()
            lines.put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        lines.put(None)

    threading.Thread(target=reader, daemon=True).start()
    qmp = None
    deadline = t0 + args.timeout
    done = False
    receiving = None  # (name, base64 lines) between VITRINE-FILE and VITRINE-FILE-END
    sampler = None  # the boot splash handover's screendumps, between its begin and end
    try:
        qmp = QMP(qmp_path)
        while True:
            try:
                line = lines.get(timeout=max(0.1, deadline - time.time()))
            except queue.Empty:
                raise Failure(f"timed out after {args.timeout} s (console: {console_path})")
            if line is None:
                if not done:
                    raise Failure(f"QEMU ended before VITRINE-DONE (console: {console_path})")
                break
            if args.verbose:
                print(f"  [{gpu} {time.time() - t0:6.2f}] {line}", flush=True)
            if receiving is not None:
                if line.strip() == "VITRINE-FILE-END":
                    name, chunks = receiving
                    open(os.path.join(outdir, f"{gpu}-guest-{name}"), "wb").write(base64.b64decode("".join(chunks)))
                    receiving = None
                else:
                    receiving[1].append(line.strip())
                continue
            m = re.search(r"VITRINE-(BOOTED|STEP|INFO|FAIL|DONE|FILE|HEAD|HANDOVER)\s*(.*)", line)
            if not m:
                continue
            kind, rest = m.groups()
            if kind == "HEAD":
                # "VITRINE-HEAD n WxH" plugs scanout n in, "VITRINE-HEAD n off" unplugs it;
                # the guest waits for the answer ("go", or "none" without a D-Bus display).
                n, _, size = rest.strip().partition(" ")
                answer = b"none\n"
                if switch:
                    done_ok, text = switch.set(int(n), None if size == "off" else size)
                    report.append(f"{gpu}: head {n} {'plugged in at ' + size if size != 'off' else 'unplugged'} from the host"
                                  + ("" if done_ok else f": FAIL {text}"))
                    ok &= done_ok
                    answer = b"go\n"
                try:
                    proc.stdin.write(answer)
                    proc.stdin.flush()
                except BrokenPipeError:
                    pass
            elif kind == "HANDOVER":
                # The boot splash handover (vitrined guest, step 0): screendumps as fast as
                # QMP takes them from "begin" to "end", then checked (handover_check).
                if rest.strip() == "begin":
                    sampler = HandoverSampler(qmp, outdir, gpu)
                else:
                    handover_ok, text = sampler.finish()
                    ok &= handover_ok
                    report.append(f"{gpu}: step 0 (boot splash handover): {text}")
                resume(proc)
            elif kind == "FILE":
                receiving = (os.path.basename(rest.strip()), [])
            elif kind == "BOOTED":
                timings["booted"] = time.time() - t0
            elif kind == "INFO":
                report.append(f"{gpu}: {rest}")
            elif kind == "FAIL":
                ok = False
                report.append(f"{gpu}: FAIL (guest) {rest}")
            elif kind == "DONE":
                timings["done"] = time.time() - t0
                done = True
                if rest.strip() != "rc=0":
                    ok = False
                    report.append(f"{gpu}: FAIL guest script ended with {rest.strip()}")
            elif kind == "STEP":
                n, _, what = rest.partition(" ")
                timings[f"step {n}"] = time.time() - t0
                step_ok, text = check_step(gpu, int(n), what, qmp, outdir, expected_for, imgcmp)
                ok &= step_ok
                report.append(f"{gpu}: step {n} ({what}): {text}")
                resume(proc)
    except Failure as e:
        ok = False
        report.append(f"{gpu}: FAIL {e}")
    finally:
        if qmp and proc.poll() is None:
            try:
                qmp.command("quit")
            except (OSError, RuntimeError, EOFError):
                pass
        if qmp:
            qmp.close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        console.close()
        if switch:
            switch.close()
    timings["total"] = time.time() - t0
    return ok, report, timings


class HandoverSampler:
    """Screendumps taken one after another on a thread until finish(): the screen while a
    holder's picture (pattern 1) is handed over to vitrined's first frame. Each is
    classified as it comes (pattern 1, black: more than half the pixels exactly #000000,
    or vitrined's); the first vitrined ones and every black one are kept as PNG. finish()
    says whether the first was pattern 1, the last vitrined's and none black."""

    def __init__(self, qmp, outdir, gpu):
        self.qmp, self.base = qmp, os.path.join(outdir, f"{gpu}-handover")
        self.stop = threading.Event()
        self.kinds = []
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        ppm = self.base + ".ppm"
        while not self.stop.is_set() and len(self.kinds) < 5000:
            self.qmp.command("screendump", filename=ppm)
            w, h, rgb = read_ppm(ppm)
            pattern = all(rgb[(y * w + x) * 3:(y * w + x) * 3 + 3] == handover_pattern(x, y, w, h).to_bytes(3, "big")
                          for x, y in ((w // 3, h // 3), (w // 2, h // 2), (2 * w // 3, 3 * h // 4), (0, 0)))
            black = not pattern and colour_counts(ppm, {"#000000"})["#000000"] > w * h // 2
            kind = "pattern" if pattern else "black" if black else "vitrined"
            if black or (kind == "vitrined" and self.kinds.count("vitrined") < 3):
                write_png(f"{self.base}-{len(self.kinds):04d}-{kind}.png", w, h, rgb)
            self.kinds.append(kind)
        if os.path.exists(ppm):
            os.unlink(ppm)

    def finish(self):
        self.stop.set()
        self.thread.join()
        runs = []
        for kind in self.kinds:
            if runs and runs[-1][0] == kind:
                runs[-1][1] += 1
            else:
                runs.append([kind, 1])
        text = f"{len(self.kinds)} screendumps: " + ", then ".join(f"{n} {k}" for k, n in runs)
        ok = bool(self.kinds) and self.kinds[0] == "pattern" and self.kinds[-1] == "vitrined" and "black" not in self.kinds
        return ok, ("" if ok else "FAIL ") + text


def handover_pattern(x, y, w, h):
    """pattern.h's pattern 1 (what drm-pattern --hold shows) at (x, y)."""
    if x == 0 or y == 0 or x == w - 1 or y == h - 1:
        return 0xffffff
    return (x * 255 // (w - 1)) << 16 | (y * 255 // (h - 1)) << 8 | (0xc0 if (x // 32 + y // 32) & 1 else 0x20)


def ppm_size(path):
    with open(path, "rb") as f:
        head = f.read(64).split()
    return f"{int(head[1])}x{int(head[2])}"


def check_step(gpu, n, what, qmp, outdir, expected_for, imgcmp):
    if not expected_for(n, None):
        return True, "no screendump expected"
    heads = expected_for(n, None)
    if isinstance(heads, dict):
        # One screendump per head (QMP screendump with device and head), each against
        # its own expected image; {head: rotation}.
        results = [check_head(gpu, n, what, head, qmp, outdir, lambda size, h=head: expected_for(n, size, h), imgcmp, rotation)
                   for head, rotation in heads.items()]
        return all(ok for ok, _ in results), "; ".join(f"head {h}: {text}" for h, (_, text) in zip(heads, results))
    return check_head(gpu, n, what, None, qmp, outdir, lambda size: expected_for(n, size), imgcmp)


def unrotate_ppm(path, rotation):
    """Turns the PPM at PATH back by ROTATION (90, 180 or 270 degrees clockwise: what the
    output turned its picture by), in place: the screen as the scene was drawn."""
    w, h, rgb = read_ppm(path)
    if rotation == 180:
        pixels = [rgb[i:i + 3] for i in range(0, len(rgb), 3)]
        out, (w2, h2) = b"".join(reversed(pixels)), (w, h)
    else:
        # 90: the scene's row y is the screen's column w-1-y, top to bottom;
        # 270: its row y is the screen's column y, bottom to top.
        w2, h2 = h, w
        rows = []
        for y in range(h2):
            col = w - 1 - y if rotation == 90 else y
            row = bytearray(3 * w2)
            for c in range(3):
                row[c::3] = rgb[col * 3 + c::w * 3] if rotation == 90 else rgb[col * 3 + c::w * 3][::-1]
            rows.append(bytes(row))
        out = b"".join(rows)
    with open(path, "wb") as f:
        f.write(f"P6\n{w2} {h2}\n255\n".encode() + out)


def check_head(gpu, n, what, head, qmp, outdir, expected_for, imgcmp, rotation=0):
    """Step N's screendump (of HEAD of the GPU device, or of the first console when None)
    against EXPECTED_FOR(size): taken again up to 3 times while it differs. ROTATION: the
    output's, undone on the screendump first (the expected image is the upright scene)."""
    base = os.path.join(outdir, f"{gpu}-step{n}" + ("" if head is None else f"-head{head}"))
    guest_file = os.path.join(outdir, f"{gpu}-guest-step{n}.png")
    if os.path.exists(guest_file):
        # The headless rehearsal: the daemon's own screenshot instead of the screen.
        with open(guest_file, "rb") as f:
            w, h = struct.unpack(">II", f.read(24)[16:24])
        cmd = [imgcmp, guest_file, "--diff", base + ".diff.png"] + expected_for(f"{w}x{h}")
        r = subprocess.run(cmd, capture_output=True, text=True)
        text = (r.stdout.strip() or r.stderr.strip())
        if r.returncode != 0:
            return False, f"FAIL guest screenshot (headless): {text}; actual {guest_file}"
        return True, f"guest screenshot (headless, no screendump) {text}"
    ppm = base + ".ppm"
    if callable(expected_for(None)):
        return check_screendump(qmp, ppm, base, lambda: expected_for(None)(ppm, what))
    where = {} if head is None else {"device": "gpu", "head": head}
    attempts = 0
    # The guest prints its step once the frame is committed; the emulated GPU may show
    # it a moment later, so a differing screendump is taken again (up to 3 times).
    while True:
        attempts += 1
        qmp.command("screendump", filename=ppm, **where)
        if rotation:
            unrotate_ppm(ppm, rotation)
        expected = expected_for(ppm_size(ppm))
        cmd = [imgcmp, ppm, "--png", base + ".png", "--diff", base + ".diff.png"] + expected
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode == 0 or attempts == 3:
            break
        time.sleep(0.5)
    os.unlink(ppm)
    text = (r.stdout.strip() or r.stderr.strip())
    if attempts > 1:
        text += f" (screendump {attempts})"
    if r.returncode != 0:
        text = f"FAIL {text}; actual {base}.png" + (f", diff {base}.diff.png" if os.path.exists(base + ".diff.png") else "")
        return False, text
    if os.path.exists(base + ".diff.png"):
        os.unlink(base + ".diff.png")
    return True, "screendump " + text


def check_screendump(qmp, ppm, base, check):
    """A screendump checked by CHECK() -> (ok, text) instead of imgcmp; taken again up to 3
    times, 0.5 s apart, while it fails. Kept as BASE.png."""
    for attempt in range(1, 4):
        qmp.command("screendump", filename=ppm)
        ok, text = check()
        if ok or attempt == 3:
            break
        time.sleep(0.5)
    write_png(base + ".png", *read_ppm(ppm))
    os.unlink(ppm)
    text += f" (screendump {attempt})" if attempt > 1 else ""
    return ok, ("screendump " if ok else "FAIL ") + text + ("" if ok else f"; actual {base}.png")


def write_png(path, w, h, rgb):
    """RGB pixels as an 8-bit PNG (no filter)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + rgb[y * w * 3:(y + 1) * w * 3] for y in range(h))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))


def read_ppm(path):
    """(width, height, RGB bytes) of a binary PPM (P6, maxval 255) as QMP writes it."""
    data = open(path, "rb").read()
    m = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    if not m or m.group(3) != b"255":
        raise Failure(f"{path}: not a P6 PPM with maxval 255")
    w, h = int(m.group(1)), int(m.group(2))
    return w, h, data[m.end():m.end() + w * h * 3]


def colour_counts(path, colours):
    """{"#rrggbb": pixels of exactly that colour} in the PPM at PATH."""
    _, _, rgb = read_ppm(path)
    counts = {}
    for c in colours:
        want = bytes.fromhex(c[1:])
        # Pixels are 3 bytes: count the matches that start on a pixel boundary.
        n, i = 0, rgb.find(want)
        while i >= 0:
            if i % 3 == 0:
                n += 1
                i = rgb.find(want, i + 3)
            else:
                i = rgb.find(want, i + 1)
        counts[c] = n
    return counts


def colour_check(ppm, what):
    """The input guest's steps: WHAT holds terms like #00ff00>=18000 or #ff0000=0 (pixels
    of exactly that colour on the screen)."""
    terms = re.findall(r"(#[0-9a-fA-F]{6})(>=|<=|=)(\d+)", what)
    if not terms:
        return False, f"no colour terms in '{what}'"
    counts = colour_counts(ppm, {c.lower() for c, _, _ in terms})
    ok = True
    for c, op, n in terms:
        have, n = counts[c.lower()], int(n)
        ok &= have >= n if op == ">=" else have <= n if op == "<=" else have == n
    return ok, ", ".join(f"{c}: {counts[c.lower()]} px (want {op}{n})" for c, op, n in terms)


# ---------------------------------------------------------------- the input guest

def input_config(layout):
    """vitrined's configuration in the input guest's end-to-end part: every [input] key
    (docs/CONFIG.md) but calibration, left out: the device's own (identity) mapping is what
    the taps are computed with."""
    return f"""# The DRM test's input guest (.ci/qemu/drmtest.py --guest input)
[output]
backend = "drm"
background = "#101010"

[socket]
path = "/run/vitrine.sock"
mode = "0600"
screenshot_dir = "/tmp/shots"

[state]
journal = false

[input]
enabled = true
seat = "seat0"
xkb_layout = "{layout}"
xkb_variant = ""
xkb_options = ""
repeat_delay_ms = 600
repeat_rate = 25
vt_switching = false
tap_slop = 12
long_press_seconds = 0.5
"""


def input_guest(args, cache, tools):
    """(programs, files, links) of the input guest: udev from Debian's package (cached like
    the kernel: nothing installed on the host), uinput-replay (static), input-probe
    (libinput, libudev, xkbcommon), xkeyboard-config's data and libinput's quirks; vitrined
    and vitrinectl for the end-to-end part unless --e2e off."""
    udev = fetch(cache, "udev")
    udevadm = next((p for p in (os.path.join(udev, "usr/bin/udevadm"), os.path.join(udev, "bin/udevadm")) if os.path.exists(p)), None)
    rules = next((d for d in (os.path.join(udev, "usr/lib/udev/rules.d"), os.path.join(udev, "lib/udev/rules.d")) if os.path.isdir(d)), None)
    if not udevadm or not rules:
        raise SystemExit(f"drm-test: no udevadm or rules.d in Debian's udev package ({udev})")
    programs = [udevadm]
    # systemd-udevd is udevadm under another name (one multi-call binary).
    links = [("/usr/bin/systemd-udevd", "udevadm")]
    files = [(os.path.join(rules, r), "/usr/lib/udev/rules.d/" + r) for r in UDEV_RULES]
    programs.append(compile_c(os.path.join(tools, "uinput-replay"), [os.path.join(HERE, "uinput-replay.c")], ["-static"]))
    pc = subprocess.run(["pkg-config", "--cflags", "--libs", "libinput", "libudev", "xkbcommon"], capture_output=True, text=True)
    if pc.returncode != 0:
        raise SystemExit("drm-test: pkg-config libinput libudev xkbcommon failed (apt-get install libinput-dev libudev-dev "
                         f"libxkbcommon-dev): {pc.stderr.strip()}")
    programs.append(compile_c(os.path.join(tools, "input-probe"), [os.path.join(HERE, "guest/input-probe.c")], pc.stdout.split()))
    if not os.path.isdir("/usr/share/X11/xkb/rules"):
        raise SystemExit("drm-test: no /usr/share/X11/xkb (apt-get install xkb-data)")
    # The whole of xkeyboard-config (4 MB): what xkbcommon opens for a layout follows from
    # its rules and includes; libinput's quirks and libwacom's tablets, as installed.
    for d in ("/usr/share/X11/xkb", "/usr/share/libinput", "/usr/share/libwacom"):
        if os.path.isdir(d):
            files.append((d, d))
    e2e = args.e2e
    vitrined, vitrinectl = os.path.join(args.bin, "vitrined"), os.path.join(args.bin, "vitrinectl")
    if e2e != "off":
        if all(os.access(b, os.X_OK) for b in (vitrined, vitrinectl)):
            programs += [vitrined, vitrinectl]
            files += [("/etc/fonts", "/etc/fonts")] + [(d, d) for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fontconfig") if os.path.isdir(d)]
            files.append((os.path.join(HERE, "guest/input-e2e.sh"), "/guest-e2e.sh"))
            config = os.path.join(args.out, "vitrine-input.toml")
            open(config, "w").write(input_config(args.layout))
            files.append((config, "/etc/vitrine-input.toml"))
        elif e2e == "on":
            raise SystemExit(f"drm-test: --e2e on needs {vitrined} and {vitrinectl}")
        else:
            log(f"no {vitrined}: the input guest runs without its end-to-end part")
    env = os.path.join(args.out, "guest.env")
    open(env, "w").write(f"LAYOUT={args.layout}\nTAPS={args.taps}\nE2E={e2e}\nE2E_TAPS=5\n")
    files.append((env, "/etc/vitrine-test.env"))
    return programs, files, links


def dmabuf_guest(args, tools):
    """(programs, files) of the dmabuf guest: vitrined and vitrinectl, dmabuf-client
    (libwayland-client, libdrm; xdg-shell's and linux-dmabuf's client code made by
    wayland-scanner from wayland-protocols' XML into the tools cache), and scanout-probe."""
    programs = [os.path.join(args.bin, "vitrined"), os.path.join(args.bin, "vitrinectl")]
    for b in programs:
        if not os.access(b, os.X_OK):
            raise SystemExit(f"drm-test: {b} missing: swift build -c release --toolset config/release-toolset.json")
    pc = subprocess.run(["pkg-config", "--cflags", "--libs", "wayland-client", "libdrm"], capture_output=True, text=True)
    xml_dir = subprocess.run(["pkg-config", "--variable=pkgdatadir", "wayland-protocols"], capture_output=True, text=True).stdout.strip()
    if pc.returncode != 0 or not xml_dir or not shutil.which("wayland-scanner"):
        raise SystemExit("drm-test: the dmabuf guest needs libwayland-dev, libdrm-dev and wayland-protocols")
    generated = os.path.join(tools, "wayland-glue")
    os.makedirs(generated, exist_ok=True)
    sources = [os.path.join(HERE, "guest/dmabuf-client.c")]
    for xml in ("stable/xdg-shell/xdg-shell.xml", "unstable/linux-dmabuf/linux-dmabuf-unstable-v1.xml"):
        name = os.path.basename(xml)[:-4]
        run(["wayland-scanner", "client-header", os.path.join(xml_dir, xml), os.path.join(generated, name + "-client-protocol.h")])
        run(["wayland-scanner", "private-code", os.path.join(xml_dir, xml), os.path.join(generated, name + "-protocol.c")])
        sources.append(os.path.join(generated, name + "-protocol.c"))
    programs.append(compile_c(os.path.join(tools, "dmabuf-client"), sources, ["-I" + generated] + pc.stdout.split()))
    programs.append(compile_c(os.path.join(tools, "scanout-probe"), [os.path.join(HERE, "guest/scanout-probe.c")],
                              ["-I/usr/include/libdrm", "-ldrm"]))
    files = [("/etc/fonts", "/etc/fonts")] + [(d, d) for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fontconfig") if os.path.isdir(d)]
    return programs, files


def cec_guest(args):
    """(programs, files) of the CEC guest: vitrined and vitrinectl, and v4l-utils' cec-ctl
    and cec-follower (the TV), with the libraries they link."""
    programs = [os.path.join(args.bin, "vitrined"), os.path.join(args.bin, "vitrinectl")]
    for b in programs:
        if not os.access(b, os.X_OK):
            raise SystemExit(f"drm-test: {b} missing: swift build -c release --toolset config/release-toolset.json")
    for tool in ("cec-ctl", "cec-follower"):
        path = shutil.which(tool)
        if not path:
            raise SystemExit(f"drm-test: no {tool} (apt-get install v4l-utils)")
        programs.append(path)
    files = [("/etc/fonts", "/etc/fonts")] + [(d, d) for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fontconfig") if os.path.isdir(d)]
    module_args = os.path.join(args.out, "module-args")
    open(module_args, "w").write(f"vivid {CEC_VIVID}\n")
    files.append((module_args, "/etc/vitrine-module-args"))
    return programs, files


# ---------------------------------------------------------------- main

def compile_c(out, sources, flags):
    """Compiles into the cache once per content of the sources (and pattern.h)."""
    cc = os.environ.get("CC", "cc")
    digest = hashlib.sha1(repr([cc] + flags).encode())
    for src in sources + [os.path.join(HERE, "pattern.h")]:
        digest.update(open(src, "rb").read())
    out = f"{out}-{digest.hexdigest()[:12]}"
    if not os.path.exists(out):
        run([cc, "-O2", "-Wall", "-I" + HERE] + sources + flags + ["-o", out + ".tmp"])
        os.rename(out + ".tmp", out)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--guest", choices=["pattern", "vitrined", "input", "cec", "dmabuf"], default="pattern")
    p.add_argument("--gpu", help="comma-separated: virtio, vga (default both; the input guest: virtio)")
    p.add_argument("--cache", default=os.environ.get("VITRINE_QEMU_CACHE", os.path.expanduser("~/.cache/vitrine-qemu")))
    p.add_argument("--out", help="screendumps, console logs (default .build/drm-test/GUEST)")
    p.add_argument("--bin", default=os.path.join(ROOT, ".build/release"), help="where vitrined and vitrinectl are (--guest vitrined, input)")
    p.add_argument("--e2e", choices=["auto", "on", "off"], default="auto",
                   help="input guest: the end-to-end part through vitrined: auto (when vitrined and vitrinectl are in --bin "
                        "and hello lists binding.add, input.inject, layer.tap, layer.cancel and input.key), on (required), "
                        "off (not even vitrined in the guest)")
    p.add_argument("--layout", default="de", help="input guest: the xkb layout typed through (de or us)")
    p.add_argument("--taps", type=int, default=20, help="input guest: taps read through libinput for the latency figures")
    p.add_argument("--scene", default=os.path.join(ROOT, "docs/examples/cards.json"))
    p.add_argument("--time", default="0.5", help="manual-clock time of the vitrined screendump")
    p.add_argument("--bench-seconds", type=int, default=0,
                   help="vitrined guest, two heads: run the outputs benchmark, this many seconds per run (0: not run; 4 takes ~50 s)")
    p.add_argument("--atomic", choices=["auto", "on", "off"], default="auto", help="VITRINE_DRM_ATOMIC for vitrined in the guest")
    p.add_argument("--backend", default="drm", help="vitrined --backend in the guest: drm (default), fbdev, headless (a rehearsal)")
    p.add_argument("--size", help="the screen's preferred mode WIDTHxHEIGHT (default: the devices' 1280x800)")
    p.add_argument("--heads", type=int, choices=[1, 2], help="virtio-gpu scanouts (max_outputs; default 2 for the vitrined guest, else 1)")
    p.add_argument("--qemu", default="qemu-system-x86_64")
    p.add_argument("--memory", type=int, default=1024, help="MiB")
    p.add_argument("--timeout", type=int, default=100, help="seconds per VM")
    p.add_argument("--append", default="", help="more kernel arguments")
    p.add_argument("-v", "--verbose", action="store_true", help="echo the serial console")
    args = p.parse_args()
    if args.gpu is None:
        args.gpu = "virtio" if args.guest in ("input", "cec", "dmabuf") else "virtio,vga"
    if args.heads is None:
        args.heads = 2 if args.guest == "vitrined" else 1
    gpus = [g.strip() for g in args.gpu.split(",") if g.strip()]
    for g in gpus:
        if g not in GPUS:
            p.error(f"unknown GPU {g}")
    args.out = os.path.abspath(args.out or os.path.join(ROOT, ".build/drm-test", args.guest))
    started = time.time()
    os.makedirs(args.cache, exist_ok=True)
    os.makedirs(args.out, exist_ok=True)
    for f in glob.glob(os.path.join(args.out, "*")):
        if os.path.isfile(f):
            os.unlink(f)
    cache = args.cache

    kpkg = kernel_package()
    kroot = fetch(cache, kpkg)
    bbroot = fetch(cache, "busybox-static")
    vmlinux = os.path.join(kroot, "vmlinux")
    if not os.path.exists(vmlinux):
        log("extracting vmlinux")
        extract_vmlinux(glob.glob(os.path.join(kroot, "boot/vmlinuz-*"))[0], vmlinux)
    t_fetch = time.time() - started

    tools = os.path.join(cache, "tools")
    os.makedirs(tools, exist_ok=True)
    imgcmp = compile_c(os.path.join(tools, "imgcmp"), [os.path.join(HERE, "imgcmp.c")], ["-lpng"])

    files, programs, links, modules = [], [], [], MODULES
    if args.guest == "pattern":
        programs.append(compile_c(os.path.join(tools, "drm-pattern"), [os.path.join(HERE, "guest/drm-pattern.c")],
                                  ["-I/usr/include/libdrm", "-ldrm"]))
        script = os.path.join(HERE, "guest/pattern.sh")

        def expected_for(n, size):
            return ["--pattern", str(n)] if n in (1, 2) else None
    elif args.guest == "vitrined":
        vitrined = os.path.join(args.bin, "vitrined")
        vitrinectl = os.path.join(args.bin, "vitrinectl")
        for b in (vitrined, vitrinectl):
            if not os.access(b, os.X_OK):
                raise SystemExit(f"drm-test: {b} missing: swift build -c release --toolset config/release-toolset.json")
        programs += [vitrined, vitrinectl]
        # drm-pattern --hold: the picture handed over at step 0 (a boot splash's stand-in)
        programs.append(compile_c(os.path.join(tools, "drm-pattern"), [os.path.join(HERE, "guest/drm-pattern.c")],
                                  ["-I/usr/include/libdrm", "-ldrm"]))
        scene_dir = os.path.dirname(os.path.abspath(args.scene))
        files += [(scene_dir, "/scene"), ("/etc/fonts", "/etc/fonts")]
        for d in ("/usr/share/fonts/truetype/dejavu", "/usr/share/fontconfig"):
            if os.path.isdir(d):
                files.append((d, d))
        env = (f"SCENE=/scene/{os.path.basename(args.scene)}\nTIME={args.time}\nBACKEND={args.backend}\n"
               f"COUNTER={COUNTER_START}\nVITRINE_DRM_ATOMIC={args.atomic}\nBENCH_SECONDS={args.bench_seconds}\n")
        counter_scene = os.path.join(args.out, "counter.json")
        final_scene = os.path.join(args.out, "counter-final.json")
        open(counter_scene, "w").write(counter_json(COUNTER_START))
        open(final_scene, "w").write(counter_json(COUNTER_FINAL))
        files.append((counter_scene, "/etc/vitrine-counter.json"))
        envfile = os.path.join(args.out, "guest.env")
        open(envfile, "w").write(env)
        files.append((envfile, "/etc/vitrine-test.env"))
        heads_config = os.path.join(args.out, "vitrine-heads.toml")
        open(heads_config, "w").write(heads_toml(f"/scene/{os.path.basename(args.scene)}", "/etc/vitrine-second.json"))
        bench_config = os.path.join(args.out, "vitrine-bench.toml")
        open(bench_config, "w").write(BENCH_TOML)
        files += [(heads_config, "/etc/vitrine-heads.toml"), (SECOND_SCENE, "/etc/vitrine-second.json"),
                  (bench_config, "/etc/vitrine-bench.toml")]
        script = os.path.join(HERE, "guest/vitrined.sh")
        def expected_for(n, size, head=None):
            if n in (4, 5):
                # two heads: each against the render of its own scene at its own size
                if size is None:
                    return {0: 0, 1: SECOND_ROTATION}
                # step 5: the same after Virtual-2 was unplugged and plugged in again
                png = os.path.join(args.out, f"expected-step4-head{head}-{size}.png")
                if not os.path.exists(png):
                    run([vitrined, "render", "--scene", args.scene if head == 0 else SECOND_SCENE, "--time", args.time, "--size", size, "--out", png])
                return ["--expected", png]
            if n not in (1, 2, 3):
                return None
            if size is None:
                return True
            # step 3: the counter at rest again, after DPMS off and on
            png = os.path.join(args.out, f"expected-step{min(n, 2)}-{size}.png")
            if not os.path.exists(png):
                scene, at = (args.scene, args.time) if n == 1 else (final_scene, "0")
                run([vitrined, "render", "--scene", scene, "--time", at, "--size", size, "--out", png])
            return ["--expected", png]
    elif args.guest == "dmabuf":
        modules = MODULES + [m for m in DMABUF_MODULES if kernel_has_module(kroot, m)]
        script = os.path.join(HERE, "guest/dmabuf.sh")
        programs, files = dmabuf_guest(args, tools)

        def expected_for(n, size):
            # step 3: pattern 2 again, redrawn after its wl_buffer was destroyed; step 4:
            # still pattern 2 (pattern 1's commit held for its fence); 5, 6 and 7: pattern 1;
            # 8: pattern 2, the last of three commits behind a held one; 9-11: scanned out,
            # composited under a red box (pattern 3), scanned out again
            steps = {1: 1, 2: 2, 3: 2, 4: 2, 5: 1, 6: 1, 7: 1, 8: 2, 9: 1, 10: 3, 11: 1}
            return ["--pattern", str(steps[n])] if n in steps else None
    elif args.guest == "cec":
        modules = MODULES + CEC_MODULES
        script = os.path.join(HERE, "guest/cec.sh")
        programs, files = cec_guest(args)

        def expected_for(n, size):
            return None
    else:
        modules = MODULES + INPUT_MODULES
        script = os.path.join(HERE, "guest/input.sh")
        programs, files, links = input_guest(args, cache, tools)

        def expected_for(n, size):
            return colour_check

    busybox = os.path.join(bbroot, "bin/busybox")
    t1 = time.time()
    initramfs = os.path.join(args.out, "initramfs.cpio")
    size = build_initramfs(initramfs, busybox, resolve_modules(kroot, modules), programs, files, script, links)
    t_initramfs = time.time() - t1
    guest = args.guest + (f" --backend {args.backend}" if args.guest == "vitrined" else "")
    guest += f" --layout {args.layout} --e2e {args.e2e}" if args.guest == "input" else ""
    log(f"kernel {kpkg}, initramfs {size / 1e6:.1f} MB ({t_initramfs:.1f} s), guest {guest}")

    all_ok, results = True, []
    for gpu in gpus:
        ok, report, timings = boot(gpu, args, vmlinux, initramfs, args.out, expected_for, imgcmp)
        all_ok &= ok
        for line in report:
            log(line)
        steps = ", ".join(f"{k} {v:.1f} s" for k, v in timings.items())
        log(f"{gpu} ({GPUS[gpu][1]}): {'PASS' if ok else 'FAIL'} — {steps}")
        if not ok:
            console = os.path.join(args.out, f"{gpu}-console.log")
            text = open(console, "rb").read().decode("utf-8", "replace") if os.path.exists(console) else ""
            # without the files the guest sent (base64), which are in the output directory
            text = re.sub(r"VITRINE-FILE (\S+)\r?\n.*?VITRINE-FILE-END", r"VITRINE-FILE \1 (sent)", text, flags=re.S)
            tail = text.splitlines()[-30:]
            log(f"{gpu}: the serial console's last {len(tail)} lines ({console}):")
            for line in tail:
                print(f"  | {line}", flush=True)
        results.append((gpu, ok))
    os.unlink(initramfs)
    total = time.time() - started
    log(f"fetch/extract {t_fetch:.1f} s, initramfs {t_initramfs:.1f} s, total {total:.1f} s")
    summary = f"{guest}: " + ", ".join(f"{g} {'PASS' if ok else 'FAIL'}" for g, ok in results)
    if args.guest == "vitrined" and args.backend == "headless":
        summary += " — headless rehearsal: vitrined ran in the guest, but nothing was checked on the screen"
    log(("PASS: " if all_ok else "FAIL: ") + summary + ("" if all_ok else f" (screendumps and console logs in {args.out})"))
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
