#!/usr/bin/env bash
# A push transition between two kiosk screens: a headless vitrined on the manual clock,
# screen A (departures) shown, then one transaction hides A, shows B (arrivals) and adds
# a push from the right to their container. The screenshot is taken 0.3 s into the
# 0.6 s transition: B is halfway in, pushing A out. Writes push-transition.png beside
# this script. Build first: swift build (vitrined, its image decoder helper and vitrinectl)
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
export VITRINE_SOCKET=$work/vitrine.sock
.build/debug/vitrined --backend headless --size 640x360 --clock manual --socket "$VITRINE_SOCKET" \
    --screenshot-dir "$work" --state-dir "$work" 2>/dev/null &
daemon=$!
trap 'kill $daemon 2>/dev/null; wait $daemon 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 50); do [ -S "$VITRINE_SOCKET" ] && break; sleep 0.1; done
ctl() { .build/debug/vitrinectl send "$1" >/dev/null; }

screen() { # id, hidden, gradient colours, title, line
    ctl '{"cmd": "layer.add", "layer": "'"$1"'", "kind": "gradient", "parent": "screens", "properties": {"bounds": [0, 0, 640, 360], "position": [320, 180], "hidden": '"$2"', "colors": '"$3"', "startPoint": [0, 0], "endPoint": [1, 1]}}'
    ctl '{"cmd": "layer.add", "layer": "'"$1"'-title", "kind": "text", "parent": "'"$1"'", "properties": {"bounds": [0, 0, 560, 60], "position": [320, 70], "string": "'"$4"'", "fontSize": 44, "foregroundColor": "white"}}'
    ctl '{"cmd": "layer.add", "layer": "'"$1"'-card", "parent": "'"$1"'", "properties": {"bounds": [0, 0, 560, 170], "position": [320, 230], "backgroundColor": "#ffffff26", "cornerRadius": 20}}'
    ctl '{"cmd": "layer.add", "layer": "'"$1"'-line", "kind": "text", "parent": "'"$1"'-card", "properties": {"bounds": [0, 0, 520, 40], "position": [280, 85], "string": "'"$5"'", "fontSize": 30, "foregroundColor": "#ffd166"}}'
}
ctl '{"cmd": "layer.add", "layer": "screens", "properties": {"bounds": [0, 0, 640, 360], "position": [320, 180]}}'
screen a false '["#0f2027", "#2c5364"]' "Departures" "IC 2317  Hamburg  10:42  Pl. 7"
screen b true '["#42275a", "#734b6d"]' "Arrivals" "ICE 598  München  10:55  Pl. 3"

# Screen B slides in from the right and pushes A out: one request.
hide_a='{"cmd": "layer.set", "layer": "a", "properties": {"hidden": true}}'
show_b='{"cmd": "layer.set", "layer": "b", "properties": {"hidden": false}}'
push='{"cmd": "animation.add", "layer": "screens", "animation": {"transition": "push", "subtype": "fromRight", "duration": 0.6, "timing": "easeInEaseOut"}}'
ctl '{"cmd": "transaction", "commands": ['"$hide_a, $show_b, $push"']}'
ctl '{"cmd": "clock.set", "time": 0.3}'
ctl '{"cmd": "screenshot", "path": "push.png"}'
cp "$work/push.png" docs/examples/push-transition.png
echo "push-transition: docs/examples/push-transition.png (0.3 s into the push)"
