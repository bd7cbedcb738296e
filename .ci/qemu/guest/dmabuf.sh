#!/bin/sh
# Wayland clients' dma-bufs on the real kernel (docs/DRM-TEST.md, the dmabuf guest):
# vitrined --backend drm with its compositor, and dmabuf-client, whose linear XRGB8888
# buffers come from /dev/udmabuf where the kernel has it, else from dumb buffers of the
# virtio-gpu exported with PRIME.
#  1. A full-screen toplevel showing pattern 1 from a buffer made with `create`: the
#     screendump must be the pattern, pixel for pixel.
#  2. The same toplevel showing pattern 2 from a buffer made with `create_immed`.
#  Both are scanned out directly (the window covers the screen 1:1).
#  3. Pattern 2 redrawn after its wl_buffer was destroyed: composited from the daemon's
#     mapping.
#  4-6. Implicit sync: pattern 1 committed with an unsignalled write fence (vgem's, imported
#     into the dma-buf): pattern 2 still shown; the fence signalled: pattern 1; a held
#     buffer destroyed: pattern 1 still.
#  7-8. Three commits, the first held: pattern 1 still, the second's buffer released;
#     the fence signalled: the last (pattern 2). Then the client disconnects with a
#     commit held.
#  9-11. Direct scan-out: flipped directly, composited under a red layer faded in, and
#     direct again once it is removed; the daemon's CPU per client frame either way.
#  Then the protocol's errors, each on a connection of its own (VITRINE-INFO lines), and
#  vitrined still answering.
export VITRINE_SOCKET=/run/vitrine.sock WAYLAND_DISPLAY=/run/wayland-0 XDG_RUNTIME_DIR=/run
log=/tmp/vitrined.log
pid=

fail() {
    echo "VITRINE-FAIL $*"
    tail -n 20 $log | sed 's/^/  vitrined: /'
    [ -n "$pid" ] && kill $pid 2>/dev/null
    exit 1
}

if [ -e /dev/udmabuf ]; then
    echo "VITRINE-INFO /dev/udmabuf is there"
else
    echo "VITRINE-INFO no /dev/udmabuf (the kernel has no CONFIG_UDMABUF): dumb buffers exported with PRIME"
fi
# what the device allows for direct scan-out of a client's dma-buf (facts only, no failure)
scanout-probe
cat >/etc/vitrine-dmabuf.toml <<CONF
[output]
backend = "drm"
[state]
journal = false
[input]
enabled = false
[scene]
identify = false
[compositor]
enabled = true
[[compositor.rules]]
app_id = "dmabuf"
layer = "win"
CONF
vitrined run --config /etc/vitrine-dmabuf.toml --socket "$VITRINE_SOCKET" --log-level info >>$log 2>&1 &
pid=$!
i=0
until vitrinectl send '{"cmd":"ping"}' >/dev/null 2>&1; do
    [ $i -lt 300 ] || fail "vitrined does not answer after 30 s"
    kill -0 $pid 2>/dev/null || fail "vitrined ended"
    usleep 100000; i=$((i + 1))
done
mode=$(vitrinectl send '{"cmd":"output.list"}' | sed -n 's/.*"size":\[\([0-9]*\),\([0-9]*\)\].*/\1x\2/p' | head -n 1)
w=${mode%x*}; h=${mode#*x}
[ -n "$w" ] && [ -n "$h" ] || fail "no mode in output.list: $(vitrinectl send '{"cmd":"output.list"}')"
echo "VITRINE-INFO output $mode"
vitrinectl send "{\"cmd\":\"layer.add\",\"layer\":\"win\",\"kind\":\"surface\",\"properties\":{\"bounds\":[0,0,$w,$h],\"position\":[$((w / 2)),$((h / 2))]}}" \
    | grep -q '"ok":true' || fail "layer.add win"

dmabuf-client show || fail "dmabuf-client show"
vitrinectl send '{"cmd":"ping"}' | grep -q '"ok":true' || fail "vitrined does not answer after a client left with a commit held"
dmabuf-client errors || fail "dmabuf-client errors"
dmabuf-client scanout $pid || fail "dmabuf-client scanout"
vitrinectl send '{"cmd":"ping"}' | grep -q '"ok":true' || fail "vitrined does not answer after the protocol errors"
kill -0 $pid 2>/dev/null || fail "vitrined ended"
grep -i "dma-buf\|scanned out" $log | sed 's/^/VITRINE-INFO vitrined: /'
kill $pid
wait $pid
