#!/usr/bin/env bash
# Vitrine's first run: builds vitrined and vitrinectl if needed, puts the demo's media in
# /tmp/vitrine-demo (demo-media.sh: a photo, an animated banner, a video loop made by
# GStreamer), starts the daemon with config/demo.toml (headless: frames go to
# /tmp/vitrine-demo/latest.png), then drives the scene — a rolling counter and a label
# that counts while it moves, beside the video, photo and banner that play by themselves
# — for SECONDS (20), and halfway through taps the counter as a touchscreen would
# (input.inject): the configuration's bindings dim the card while it is held and turn the
# digits blue. VITRINE_BACKEND=x11 (or wayland) shows the scene in a window on the desktop
# instead (click the counter; closing the window stops the daemon, and the demo with it).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-20}
backend=${VITRINE_BACKEND:-headless}
docs/examples/demo-media.sh /tmp/vitrine-demo
if [ ! -x .build/release/vitrined ] || [ ! -x .build/release/vitrine-decoder ] || [ ! -x .build/release/vitrinectl ]; then
    echo "demo: building (release)…"
    for product in vitrined vitrine-decoder vitrinectl; do
        swift build -c release --toolset config/release-toolset.json --product $product >/dev/null
    done
fi
export VITRINE_SOCKET=/tmp/vitrine-demo/vitrine.sock
.build/release/vitrined --config config/demo.toml --backend "$backend" --snapshot-dir /tmp/vitrine-demo &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -S "$VITRINE_SOCKET" ] && break; sleep 0.1; done
ctl() { .build/release/vitrinectl "$@"; }

if [ "$backend" = headless ]; then
    echo "demo: the screen is /tmp/vitrine-demo/latest.png (rewritten at most once a second)"
else
    echo "demo: the screen is the window titled Vitrine ($backend); click the counter"
fi
visitors=245699
start=$(date +%s)
left=true
while [ $(( $(date +%s) - start )) -lt "$seconds" ]; do
    visitors=$(( visitors + RANDOM % 40 + 1 ))
    elapsed=$(( $(date +%s) - start + 1 ))
    if $left; then x=460; else x=380; fi
    left=$([ "$left" = true ] && echo false || echo true)
    ctl number counter "$visitors" >/dev/null
    ctl set label count "$elapsed" position.x "$x" --duration 1 --timing easeInEaseOut
    echo "demo: $visitors visitors, ${elapsed}s"
    if [ "$elapsed" = $(( (seconds + 1) / 2 )) ]; then
        # A touch on the counter, held 0.4 s: no script answers it, the bindings do.
        ctl send '{"cmd": "input.inject", "type": "touch", "phase": "down", "point": [420, 262]}' >/dev/null
        sleep 0.4
        held=$(ctl send '{"cmd": "layer.get", "layer": "card", "keys": ["opacity"]}' | sed -n 's/.*"opacity":\([0-9.]*\).*/\1/p')
        ctl send '{"cmd": "input.inject", "type": "touch", "phase": "up"}' >/dev/null
        colour=$(ctl send '{"cmd": "layer.get", "layer": "counter", "keys": ["textColor"]}' | sed -n 's/.*"textColor":"\([^"]*\)".*/\1/p')
        echo "demo: tapped the counter (input.inject at 420,262; on a kiosk, the touchscreen): the card's opacity was $held while it was held, the digits are now $colour — config/demo.toml's bindings, no script"
    fi
    sleep 1
done
# Let the last roll come to rest (the default spring takes a few seconds) before the
# final picture.
for _ in $(seq 100); do
    ctl send '{"cmd": "stats"}' | grep -q '"animating":false' && break
    sleep 0.1
done
ctl screenshot /tmp/vitrine-demo/final.png >/dev/null
echo "demo: done — the settled last frame is /tmp/vitrine-demo/final.png"
