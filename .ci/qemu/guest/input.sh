#!/bin/sh
# The input guest (docs/DRM-TEST.md, "The input guest"): real kernel input devices under
# libinput, made with uinput, tagged by udev.
#  A. Infrastructure, always: systemd-udevd; input-probe (libinput's udev backend on seat0,
#     xkbcommon with $LAYOUT) started before any device exists; uinput-replay creates a
#     touchscreen and a keyboard; udev must tag them (ID_INPUT_TOUCHSCREEN,
#     ID_INPUT_KEYBOARD) and libinput must add them (hot-plug); taps land where they were
#     put (pixels); keys type $LAYOUT's text; several fingers in one frame; a touch out of
#     range and a device vanishing mid-touch end no process; devices plugged in again work;
#     libinput's path backend opens the nodes. Latencies: uinput write -> kernel time ->
#     libinput read, p50/p99.
#  B. End to end (guest/input-e2e.sh) when E2E is "on", or "auto" and vitrined's hello
#     lists what it needs: vitrined --backend drm with [input] takes the same devices.
# /etc/vitrine-test.env sets LAYOUT, TAPS, E2E, E2E_TAPS (drmtest.py writes it).
. /etc/vitrine-test.env
export VITRINE_SOCKET=/run/vitrine.sock
R=/tmp/replay.log P=/tmp/probe.log U=/tmp/udevd.log V=/tmp/vitrined.log
pid= probe= replayer=

info() { echo "VITRINE-INFO $*"; }

send_file() { # PATH: to the host, into the output directory as GPU-guest-NAME
    [ -s "$1" ] || return 0
    echo "VITRINE-FILE ${1##*/}"
    base64 "$1"
    echo "VITRINE-FILE-END"
}

fail() {
    echo "VITRINE-FAIL $*"
    for f in $P $R $U $V /tmp/events.log; do
        [ -s $f ] && tail -n 12 $f | sed "s|^|  ${f##*/}: |"
    done
    for f in $P $R $V /tmp/events.log; do send_file $f; done
    [ -n "$pid" ] && kill $pid 2>/dev/null
    exit 1
}

# wait_for FILE ERE SECONDS: until a line of FILE matches.
wait_for() {
    i=0
    while ! grep -q -E -- "$2" "$1" 2>/dev/null; do
        [ $i -lt $(($3 * 50)) ] || return 1
        usleep 20000; i=$((i + 1))
    done
}

count() { grep -c -E -- "$2" "$1" 2>/dev/null || true; } # FILE ERE

# wait_more FILE ERE N SECONDS: until more than N lines of FILE match.
wait_more() {
    i=0
    while [ "$(count "$1" "$2")" -le "$3" ]; do
        [ $i -lt $(($4 * 50)) ] || return 1
        usleep 20000; i=$((i + 1))
    done
}

replay() { echo "$*" >&3; }

marks=0
sync_replay() { # waits until uinput-replay has done everything sent so far
    marks=$((marks + 1))
    replay "mark M$marks"
    wait_for $R "mark M$marks\$" 20 || fail "uinput-replay did not reach mark M$marks"
}

# stats of numbers on stdin (milliseconds): "n=N p50=… p99=… max=…"
percentiles() {
    sort -n | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "n=0"; exit }
        printf "n=%d p50=%.3f p99=%.3f max=%.3f ms", NR, v[int((NR - 1) * 0.5 + 0.5) + 1], v[int((NR - 1) * 0.99 + 0.5) + 1], v[NR] }'
}

# ------------------------------------------------------------------ kernel, udev

mode=$(head -n 1 /sys/class/drm/card0-*/modes 2>/dev/null | grep x | head -n 1)
W=${mode%%x*} H=${mode##*x}
[ -n "$W" ] && [ -n "$H" ] || fail "no mode on /sys/class/drm/card0-*/modes"
# Device units are tenths of a pixel: X 0…10W-1, Y 0…10H-1; libinput maps them onto the
# screen as x * W / (10 W), so device 10 px + 5 is pixel px + 0.5.
dev() { echo $(($1 * 10 + 5)); }

[ -c /dev/uinput ] || fail "no /dev/uinput (uinput module)"
grep -q -w evdev /proc/modules || grep -q evdev /proc/devices 2>/dev/null || info "evdev: not in /proc/modules (built in?)"

printf 'root:x:0:0:root:/root:/bin/sh\n' >/etc/passwd
printf 'root:x:0:\ninput:x:101:\nvideo:x:44:\nrender:x:105:\ntty:x:5:\nkvm:x:104:\naudio:x:29:\ndisk:x:6:\n' >/etc/group
t0=$(cut -d' ' -f1 /proc/uptime)
systemd-udevd --daemon >$U 2>&1 || fail "systemd-udevd --daemon: $(tail -n 3 $U | tr '\n' ' ')"
udevadm trigger --action=add >>$U 2>&1 || fail "udevadm trigger"
udevadm settle --timeout=15 >>$U 2>&1 || fail "udevadm settle (15 s)"
t1=$(cut -d' ' -f1 /proc/uptime)
info "udevd $(udevadm --version) up, triggered and settled in $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 }') s; rules: $(ls /usr/lib/udev/rules.d | tr '\n' ' ')"

# ------------------------------------------------------------------ libinput before any device

input-probe --seat seat0 --layout "$LAYOUT" --screen "${W}x$H" --seconds 120 >$P 2>&1 &
probe=$!
wait_for $P "ready|PROBE-FAIL" 20 || fail "input-probe: not ready after 20 s"
grep -q PROBE-FAIL $P && fail "input-probe: $(grep PROBE-FAIL $P)"
info "libinput $(grep '^PROBE keymap' $P | sed 's/^PROBE //'); $(grep ready $P | sed 's/^PROBE [0-9.]* //')"

# ------------------------------------------------------------------ devices

rm -f /tmp/replay.fifo
mkfifo /tmp/replay.fifo
uinput-replay --touch-max $((W * 10 - 1)),$((H * 10 - 1)) </tmp/replay.fifo >$R 2>&1 &
replayer=$!
exec 3>/tmp/replay.fifo
replay "create touch"
replay "create keyboard"
sync_replay
grep -q REPLAY-ERROR $R && fail "uinput-replay: $(grep REPLAY-ERROR $R)"
nodes() { # the newest touch and keyboard nodes
    touch_node=$(grep 'created touch' $R | tail -n 1 | awk '{ print $6 }')
    kbd_node=$(grep 'created keyboard' $R | tail -n 1 | awk '{ print $6 }')
}
nodes
[ -c "$touch_node" ] || fail "no touchscreen node ($(grep 'created touch' $R))"
[ -c "$kbd_node" ] || fail "no keyboard node ($(grep 'created keyboard' $R))"
udevadm settle --timeout=10 || fail "udevadm settle after creating the devices"
info "devices: $(ls /dev/input | tr '\n' ' ')"
tags() { udevadm info --query=property "$1" | grep -E '^ID_INPUT' | tr '\n' ' '; }
tags "$touch_node" | grep -q "ID_INPUT_TOUCHSCREEN=1" || fail "udev did not tag $touch_node a touchscreen: $(tags "$touch_node")"
tags "$kbd_node" | grep -q "ID_INPUT_KEYBOARD=1" || fail "udev did not tag $kbd_node a keyboard: $(tags "$kbd_node")"
info "udev: touchscreen $touch_node: $(tags "$touch_node")"
info "udev: keyboard $kbd_node: $(tags "$kbd_node")"
wait_for $P 'added .*caps=touch' 10 || fail "libinput did not add the touchscreen"
wait_for $P 'added .*caps=keyboard' 10 || fail "libinput did not add the keyboard"
info "libinput (udev backend, hot-plug): $(grep ' added ' $P | sed 's/^PROBE [0-9.]* //' | tr '\n' ';')"

# ------------------------------------------------------------------ taps where they were put

d0=$(count $P ' touch down ')
r0=$(count $R ' touch down ')
u0=$(count $P ' touch up ')
i=1
: >/tmp/taps
while [ $i -le "$TAPS" ]; do
    px=$(((i * 97) % (W - 20) + 10)) py=$(((i * 53) % (H - 20) + 10))
    echo "$px $py" >>/tmp/taps
    replay "touch tap 0 $(dev $px) $(dev $py) 20"
    replay "sleep 30"
    i=$((i + 1))
done
sync_replay
wait_more $P ' touch up ' $((u0 + TAPS - 1)) 5
grep ' touch down ' $P | tail -n +$((d0 + 1)) >/tmp/probe-downs
grep ' touch down ' $R | tail -n +$((r0 + 1)) >/tmp/replay-downs
[ "$(wc -l </tmp/probe-downs)" -eq "$TAPS" ] || fail "libinput read $(wc -l </tmp/probe-downs) of $TAPS taps"
bad=$(paste /tmp/taps /tmp/probe-downs | awk '{
    x = $10; y = $11; sub("x=", "", x); sub("y=", "", y)
    dx = x - $1 - 0.5; dy = y - $2 - 0.5   # (busybox awk: no ^, no sin/cos/sqrt)
    if (dx * dx > 0.0001 || dy * dy > 0.0001) printf "(%d,%d) read as (%s,%s) ", $1, $2, x, y
    else good++ } END { if (good == NR) print "ok" }' 2>&1)
[ "$bad" = ok ] || fail "taps not where they were put: $bad"
info "taps: $TAPS down/up pairs read by libinput at the pixel they were put (within 0.01 px)"
paste /tmp/replay-downs /tmp/probe-downs | awk '{ printf "%.3f\n", ($12 - $2) * 1000 }' | percentiles >/tmp/lat1
paste /tmp/replay-downs /tmp/probe-downs | awk '{ printf "%.3f\n", ($9 - $12) * 1000 }' | percentiles >/tmp/lat2
info "latency uinput write -> kernel event time: $(cat /tmp/lat1)"
info "latency kernel event time -> libinput event read (udev backend, poll + dispatch): $(cat /tmp/lat2)"

# two fingers in one frame
f0=$(count $P ' touch frame ')
replay "touch down 0 $(dev 300) $(dev 300); touch down 1 $(dev 700) $(dev 500)"
replay "touch move 0 $(dev 310) $(dev 310); touch move 1 $(dev 690) $(dev 490)"
replay "touch up 0; touch up 1"
sync_replay
wait_for $P "seat_slot=1 x=69" 5 || fail "libinput: no second finger ($(tail -n 4 $P | tr '\n' ';'))"
info "two fingers: $(($(count $P ' touch frame ') - f0)) touch frames for 3 written, $(grep -c 'seat_slot=1' $P) events of the second finger"

# ------------------------------------------------------------------ keys through $LAYOUT

type_keys() { # KEY_Y KEY_SEMICOLON KEY_MINUS Shift+KEY_Y KEY_Z, until uinput-replay wrote them
    replay "key KEY_Y"
    replay "key KEY_SEMICOLON"
    replay "key KEY_MINUS"
    replay "key KEY_LEFTSHIFT 1"
    replay "key KEY_Y"
    replay "key KEY_LEFTSHIFT 0"
    replay "key KEY_Z"
    sync_replay
}
k0=$(count $P ' pressed ')
type_keys
wait_more $P ' pressed ' $((k0 + 5)) 5
typed=$(grep ' pressed ' $P | tail -n +$((k0 + 1)) | sed 's/.*text="\(.*\)"$/\1/' | tr '\n' '|')
syms=$(grep ' pressed ' $P | tail -n +$((k0 + 1)) | sed 's/.*sym=\([^ ]*\) .*/\1/' | tr '\n' ' ')
expected="z|ö|ß||Z|y|"
[ "$LAYOUT" = us ] && expected="y|;|-||Y|z|"
[ "$typed" = "$expected" ] || fail "keys through '$LAYOUT': typed '$typed' (keysyms $syms), expected '$expected'"
info "keys through '$LAYOUT': KEY_Y KEY_SEMICOLON KEY_MINUS Shift+KEY_Y KEY_Z typed '$typed' (keysyms $syms)"

# ------------------------------------------------------------------ bad input

l0=$(count $P 'PROBE-LOG')
d0=$(count $P ' touch down ')
o1=$(count $P 'x=640.50 y=400.50')
replay "touch down 0 99999 99999"
replay "touch move 0 -5000 88888"
replay "touch up 0"
replay "touch tap 0 $(dev 640) $(dev 400) 20"
sync_replay
wait_more $P "x=640.50 y=400.50" $o1 5 || fail "libinput: no tap after the out-of-range touch ($(tail -n 3 $P | tr '\n' ';'))"
kill -0 $probe 2>/dev/null || fail "input-probe ended after an out-of-range touch"
info "out of range (99999,99999 then -5000,88888 on 0…$((W * 10 - 1)),0…$((H * 10 - 1))): libinput gave $(grep ' touch down ' $P | tail -n +$((d0 + 1)) | head -n 1 | sed 's/.*\(x=.*\)/\1/'); $(($(count $P 'PROBE-LOG') - l0)) log lines$(grep 'PROBE-LOG' $P | tail -n +$((l0 + 1)) | head -n 2 | sed 's/^PROBE-LOG/;/' | tr '\n' ' ')"

c0=$(grep -n . $P | tail -n 1 | cut -d: -f1)
replay "touch down 0 $(dev 200) $(dev 200)"
replay "touch move 0 $(dev 220) $(dev 210)"
replay "sleep 50"
replay "destroy touch"
sync_replay
wait_for $P "removed .*touchscreen" 10 || fail "libinput did not remove the vanished touchscreen"
kill -0 $probe 2>/dev/null || fail "input-probe ended after a device vanished mid-touch"
info "vanished mid-touch: libinput gave $(tail -n +$((c0 + 1)) $P | sed 's/^PROBE [0-9.]* //' | grep -v '^touch frame' | sed 's/ [0-9.]* slot=/ slot=/' | tr '\n' ';')"

# hot-plug: both devices again
replay "create touch"
replay "destroy keyboard"
replay "create keyboard"
sync_replay
nodes
udevadm settle --timeout=10 || fail "udevadm settle after plugging in again"
wait_for $P "removed .*keyboard" 10 || fail "libinput did not remove the keyboard"
i=0
while [ "$(count $P 'added .*caps=touch')" -lt 2 ] || [ "$(count $P 'added .*caps=keyboard')" -lt 2 ]; do
    [ $i -lt 250 ] || fail "libinput did not add the devices plugged in again ($(grep -E 'added|removed' $P | tr '\n' ';'))"
    usleep 20000; i=$((i + 1))
done
t1=$(count $P 'x=100.50 y=700.50') k1=$(count $P ' pressed ')
replay "touch tap 0 $(dev 100) $(dev 700) 20"
replay "key KEY_Y"
sync_replay
wait_more $P "x=100.50 y=700.50" $t1 5 || fail "libinput: no tap from the touchscreen plugged in again"
wait_more $P ' pressed ' $k1 5 || fail "libinput: no key from the keyboard plugged in again"
info "hot-plug: touchscreen ($touch_node) and keyboard ($kbd_node) plugged in again: added, tap and key read"

# libinput's path backend on the nodes (what a daemon without udev enumeration would use)
input-probe --seconds 0 --layout us --path "$touch_node" "$kbd_node" >/tmp/probe-path.log 2>&1
[ "$(count /tmp/probe-path.log ' added ')" -eq 2 ] || fail "libinput's path backend: $(cat /tmp/probe-path.log | tr '\n' ';')"
info "libinput path backend: $(grep ' added ' /tmp/probe-path.log | sed 's/^PROBE [0-9.]* //' | tr '\n' ';')"

kill $probe; wait $probe; probe=
grep -q 'PROBE [0-9.]* end' $P || fail "input-probe did not end cleanly"
info "libinput log: $(grep -c PROBE-LOG $P) lines$(grep PROBE-LOG $P | head -n 3 | sed 's/^PROBE-LOG libinput:/;/' | tr '\n' ' ')"

# ------------------------------------------------------------------ end to end

if [ "$E2E" != off ] && command -v vitrined >/dev/null; then
    . /guest-e2e.sh
elif [ "$E2E" != off ]; then
    info "end to end: skipped (no vitrined in the initramfs)"
fi

exec 3>&-
wait $replayer || fail "uinput-replay ended with $?"
grep -q REPLAY-ERROR $R && fail "uinput-replay: $(grep REPLAY-ERROR $R)"
for f in $P $R /tmp/events.log; do send_file $f; done
exit 0
