#!/usr/bin/env bash
# A browser page sliding in beside a rolling counter: a headless vitrined on the manual
# clock serving Wayland clients ([compositor]), Chromium (--ozone-platform=wayland,
# software rendering) showing browser-slide.html in a surface layer that starts off the
# right edge. One transaction slides the page in and rolls the counter; the screenshot is
# taken 0.6 s into the 1 s slide. Writes browser-slide.png beside this script.
# Build first: swift build (vitrined, its image decoder helper and vitrinectl); needs chromium.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
chmod 700 "$work"
export VITRINE_SOCKET=$work/vitrine.sock
cat > "$work/vitrine.toml" <<'TOML'
[output]
headless_size = "960x400"
background = "#1b2230"
[compositor]
enabled = true
socket = "wl"
TOML
.build/debug/vitrined --backend headless --clock manual --config "$work/vitrine.toml" --socket "$VITRINE_SOCKET" \
    --screenshot-dir "$work" --state-dir "$work" 2>"$work/vitrined.log" &
daemon=$!
browser=
trap 'kill $browser $daemon 2>/dev/null; wait 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$VITRINE_SOCKET" ] && break; sleep 0.1; done
ctl() { .build/debug/vitrinectl send "$1"; }

ctl '{"cmd": "layer.add", "layer": "count", "kind": "rolling-number", "properties": {"bounds": [0, 0, 340, 120], "position": [200, 200], "fontSize": 96, "textColor": "#ffd166", "value": 1234}}' >/dev/null
ctl '{"cmd": "layer.add", "layer": "browser", "kind": "surface", "properties": {"bounds": [0, 0, 500, 300], "position": [1260, 200], "cornerRadius": 16, "masksToBounds": true, "backgroundColor": "#ffffff"}}' >/dev/null

sandbox=()
[ "$(id -u)" = 0 ] && sandbox=(--no-sandbox --test-type)
WAYLAND_DISPLAY=$work/wl XDG_RUNTIME_DIR=$work HOME=$work chromium --ozone-platform=wayland --disable-gpu "${sandbox[@]}" \
    --no-first-run --user-data-dir="$work/profile" --app="file://$PWD/docs/examples/browser-slide.html" 2>"$work/chromium.log" &
browser=$!
# Its window (app id chrome-<url>-Default) goes to the layer once it has mapped; the page
# is drawn a moment later.
surface=
for _ in $(seq 300); do
    surface=$(ctl '{"cmd": "surface.list"}' | grep -o '"surface":[0-9]*' | head -1 | cut -d: -f2 || true)
    [ -n "$surface" ] && break
    sleep 0.1
done
[ -n "$surface" ] || { echo "browser-slide: chromium showed no window: $(tail -5 "$work/chromium.log")" >&2; exit 1; }
ctl '{"cmd": "surface.assign", "surface": '"$surface"', "layer": "browser"}' >/dev/null
sleep 3

slide='{"cmd": "layer.set", "layer": "browser", "properties": {"position": [680, 200]}, "animation": {"duration": 1, "timing": "easeOut"}}'
roll='{"cmd": "number.set", "layer": "count", "value": 1299}'
ctl '{"cmd": "transaction", "commands": ['"$slide, $roll"']}' >/dev/null
ctl '{"cmd": "clock.set", "time": 0.6}' >/dev/null
ctl '{"cmd": "screenshot", "path": "slide.png"}' >/dev/null
cp "$work/slide.png" docs/examples/browser-slide.png
echo "browser-slide: docs/examples/browser-slide.png (0.6 s into the slide)"
