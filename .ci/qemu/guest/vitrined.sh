#!/bin/sh
# vitrined on the real kernel's DRM, driven with vitrinectl (see docs/DRM-TEST.md).
#  1. vitrined --backend $BACKEND --clock manual --scene $SCENE; `vitrinectl clock set $TIME`;
#     once the frame is presented: VITRINE-STEP 1 (the host compares the screendump with
#     `vitrined render --scene … --time $TIME` at the screen's size).
#  2. vitrined --clock realtime --scene counter.json: its rolling number set to a new value
#     every second for 3 s (frames presented while it rolls), then 5 idle seconds (frames
#     must not move); VITRINE-STEP 2: the host compares the screen with `vitrined render`
#     of the same scene holding the final value (a number at rest).
#  3. (drm) output.power off and on (DPMS); VITRINE-STEP 3: the picture back.
#  4. (drm, with a second head Virtual-2 connected) vitrined --config vitrine-heads.toml:
#     a scene on each head; VITRINE-STEP 4: each head's screendump against `vitrined
#     render` of its scene at its size.
#  5. (two heads) the host unplugs Virtual-2 and plugs it in again (QEMU's D-Bus display):
#     output.removed, output.added with the kept root; VITRINE-STEP 5: both heads as in 4.
#  With BENCH_SECONDS > 0 (drmtest.py --bench-seconds): the outputs benchmark on the two
#  heads (CPU with both heads' counters rolling against one head's).
#  0. (drm) the boot splash handover: drm-pattern --hold shows pattern 1 and lets go of DRM
#     master keeping its picture up, as Plymouth does on `plymouth deactivate`; between
#     VITRINE-HANDOVER begin and end the host takes screendumps as fast as it can while
#     vitrined starts with no scene, showing its identification screen (`[scene] identify`
#     "auto": on on DRM): each must be pattern 1 or vitrined's frame, never black.
# /etc/vitrine-test.env sets SCENE, TIME, BACKEND, COUNTER and VITRINE_DRM_ATOMIC
# (drmtest.py writes it).
. /etc/vitrine-test.env
export VITRINE_SOCKET=/run/vitrine.sock VITRINE_DRM_ATOMIC
log=/tmp/vitrined.log
pid=

fail() {
    echo "VITRINE-FAIL $*"
    tail -n 15 $log | sed 's/^/  vitrined: /'
    [ -n "$pid" ] && kill $pid 2>/dev/null
    exit 1
}

start() { # CLOCK [ARGS…]
    clock=$1; shift
    echo "--- vitrined --backend $BACKEND --clock $clock $*" >>$log
    vitrined --backend "$BACKEND" --clock "$clock" --socket "$VITRINE_SOCKET" "$@" >>$log 2>&1 &
    pid=$!
    i=0
    while [ ! -S "$VITRINE_SOCKET" ]; do
        kill -0 $pid 2>/dev/null || { wait $pid; fail "vitrined --backend $BACKEND --clock $clock exited ($?): $(tail -n 2 $log | tr '\n' ' ')"; }
        [ $i -lt 600 ] || fail "vitrined: no socket after 60 s"
        usleep 100000; i=$((i + 1))
    done
    echo "VITRINE-INFO vitrined ($clock clock) up after $((i / 10)).$((i % 10)) s: $(vitrinectl hello | sed -n 2p)"
}

stop() {
    kill $pid; wait $pid; pid=
    rm -f "$VITRINE_SOCKET"
}

frames() {
    vitrinectl send '{"cmd":"stats"}' | sed -n 's/.*"frames":\([0-9]*\).*/\1/p'
}

# VITRINE-STEP N WHAT, then waits for the host's screendump. Headless (a rehearsal of the
# guest side without the DRM backend): there is no screen, so the daemon's own screenshot
# goes to the host instead, base64 between VITRINE-FILE and VITRINE-FILE-END.
step() {
    if [ "$BACKEND" = headless ]; then
        vitrinectl screenshot /tmp/step$1.png >/dev/null || fail "vitrinectl screenshot"
        echo "VITRINE-FILE step$1.png"
        base64 /tmp/step$1.png
        echo "VITRINE-FILE-END"
    fi
    echo "VITRINE-STEP $1 $2"
    read -r _
}

# Waits until no frame has been presented for 0.5 s (at most 20 s); prints the count.
settle() {
    last=$(frames); i=0
    while [ $i -lt 40 ]; do
        usleep 500000
        now=$(frames)
        [ "$now" = "$last" ] && break
        last=$now; i=$((i + 1))
    done
    echo "$last"
}

if [ "$BACKEND" = drm ]; then
    drm-pattern /dev/dri/card0 --hold &
    holder=$!
    sleep 2
    kill -0 $holder 2>/dev/null || fail "drm-pattern --hold ended"
    echo "VITRINE-HANDOVER begin"
    read -r _
    start manual
    sleep 2
    host=$(vitrinectl send '{"cmd":"layer.get","layer":"identify:root:host","keys":["string"]}')
    echo "$host" | grep -q '"ok":true' || fail "no identification screen on a DRM screen with no scene: $host"
    echo "VITRINE-INFO identification screen: $(echo "$host" | sed -n 's/.*"string":\("[^"]*"\).*/host \1/p')"
    echo "VITRINE-HANDOVER end"
    read -r _
    stop
    kill $holder; wait $holder 2>/dev/null
fi
start manual --scene "$SCENE"
before=$(frames)
vitrinectl clock set "$TIME" >/dev/null || fail "vitrinectl clock set $TIME"
after=$(settle)
echo "VITRINE-INFO frames presented: $before after start, $after after clock set $TIME"
[ "$after" -gt "$before" ] || fail "no frame presented after clock set $TIME"
step 1 "$(basename "$SCENE") at t=$TIME"
stop

start realtime --scene /etc/vitrine-counter.json
f0=$(settle)
t0=$(cut -d' ' -f1 /proc/uptime)
value=$COUNTER
for s in 1 2 3; do
    value=$((value + 1111 * s))
    vitrinectl send "{\"cmd\": \"number.set\", \"layer\": \"counter\", \"value\": $value}" >/dev/null || fail "number.set"
    sleep 1
done
f1=$(settle)
t1=$(cut -d' ' -f1 /proc/uptime)
echo "VITRINE-INFO rolling: $((f1 - f0)) frames presented from the first of 3 number.set (1 s apart) until the screen settled, $(echo "$t0 $t1" | awk '{ printf "%.1f", $2 - $1 - 0.5 }') s"
sleep 5
f2=$(frames)
echo "VITRINE-INFO idle: $((f2 - f1)) frames presented in 5 idle seconds"
[ $((f1 - f0)) -gt 0 ] || fail "no frame presented while the counter rolled"
[ "$f2" = "$f1" ] || fail "$((f2 - f1)) frames presented while idle (expected 0)"
step 2 "counter at rest ($value)"
if [ "$BACKEND" = drm ]; then
    # DPMS: output.power off blanks the connector (its sysfs dpms reads Off) and draws
    # nothing; on wakes it with the same picture, drawn whole (VITRINE-STEP 3).
    conn=$(vitrinectl send '{"cmd":"output.list"}' | grep -o '"name":"[^"]*"' | head -n 1 | cut -d'"' -f4)
    vitrinectl send "{\"cmd\":\"output.power\",\"output\":\"$conn\",\"on\":false}" >/dev/null || fail "output.power $conn off"
    dpms=$(cat /sys/class/drm/card*-"$conn"/dpms)
    [ "$dpms" = Off ] || fail "$conn: DPMS reads '$dpms' after output.power off"
    g0=$(frames); sleep 1; g1=$(frames)
    [ "$g0" = "$g1" ] || fail "$((g1 - g0)) frames presented to a blanked output"
    vitrinectl send "{\"cmd\":\"output.power\",\"output\":\"$conn\",\"on\":true}" >/dev/null || fail "output.power $conn on"
    dpms=$(cat /sys/class/drm/card*-"$conn"/dpms)
    [ "$dpms" = On ] || fail "$conn: DPMS reads '$dpms' after output.power on"
    g2=$(settle)
    echo "VITRINE-INFO DPMS: $conn Off with no frames for 1 s, then On with $((g2 - g1)) frame drawn"
    [ "$g2" -gt "$g1" ] || fail "no frame presented after waking $conn"
    step 3 "counter at rest after DPMS off and on"
fi
stop
if [ "$BACKEND" = drm ] && [ "$(cat /sys/class/drm/card0-Virtual-2/status 2>/dev/null)" = connected ]; then
    # Two heads: /etc/vitrine-heads.toml gives Virtual-1 and Virtual-2 each a scene (and
    # Virtual-2 its own mode and rotation 90); VITRINE-STEP 4 has the host take a
    # screendump of each head.
    start manual --config /etc/vitrine-heads.toml
    vitrinectl send '{"cmd":"output.list"}' | sed 's/^/VITRINE-INFO output.list: /'
    vitrinectl clock set "$TIME" >/dev/null || fail "vitrinectl clock set $TIME (two heads)"
    settle >/dev/null
    per=$(vitrinectl send '{"cmd":"output.list"}' | grep -o '"name":"[^"]*"\|"frames":[0-9]*' | tr '\n' ' ')
    echo "VITRINE-INFO two heads, frames per output: $per"
    for f in $(vitrinectl send '{"cmd":"output.list"}' | grep -o '"frames":[0-9]*' | cut -d: -f2); do
        [ "$f" -gt 0 ] || fail "an output presented no frame: $per"
    done
    grep "drm: .*: first flip\|drm: .*: mode " $log | tail -n 4 | sed 's/^/VITRINE-INFO /'
    step 4 "two heads, a scene on each"
    # Hotplug: the host unplugs Virtual-2 (VITRINE-HEAD 1 off: QEMU disables the scanout
    # and the kernel sends a HOTPLUG=1 uevent) and plugs it in again; vitrined must send
    # output.removed and output.added (kept) and show the second scene again, unrestarted.
    # The host first says the head is there (QEMU ignores a change to what it was told
    # last, and it was told nothing: -display dbus enables no scanout by itself); the
    # hotplug event that brings changes no head.
    vitrinectl watch output.removed output.added --json > /tmp/hotplug.events 2>&1 &
    watcher=$!
    echo "VITRINE-HEAD 1 1024x768"; read -r answer
    usleep 500000
    echo detect > /sys/class/drm/card0-Virtual-2/status  # the host's state from now on, not video=…:e
    echo "VITRINE-HEAD 1 off"; read -r answer
    if [ "$answer" = go ]; then
        waitfor() { # EVENT: until the watcher has printed it (10 s)
            i=0
            until grep -q "\"event\":\"$1\"" /tmp/hotplug.events; do
                [ $i -lt 100 ] || fail "no $1 event within 10 s: $(cat /tmp/hotplug.events; grep 'drm: ' $log | tail -n 3)"
                usleep 100000; i=$((i + 1))
            done
        }
        waitfor output.removed
        echo "VITRINE-INFO hotplug: Virtual-2 $(cat /sys/class/drm/card0-Virtual-2/status); $(grep '"output.removed"' /tmp/hotplug.events)"
        list=$(vitrinectl send '{"cmd":"output.list"}')
        case "$list" in *Virtual-2*) fail "Virtual-2 still in output.list after output.removed: $list" ;; esac
        echo "VITRINE-HEAD 1 1024x768"; read -r answer
        waitfor output.added
        echo "VITRINE-INFO hotplug: Virtual-2 $(cat /sys/class/drm/card0-Virtual-2/status); $(grep '"output.added"' /tmp/hotplug.events)"
        grep -q '"kept":true' /tmp/hotplug.events || fail "Virtual-2 came back without its kept root: $(cat /tmp/hotplug.events)"
        settle >/dev/null
        grep "drm: hotplug" $log | tail -n 2 | sed 's/^/VITRINE-INFO /'
        step 5 "Virtual-2 unplugged and plugged in again, no restart"
    else
        echo "VITRINE-INFO hotplug not tried: the host has no D-Bus display to unplug a head with (dbus-daemon, gdbus)"
    fi
    kill $watcher 2>/dev/null
    stop
fi
if [ "$BACKEND" = drm ] && [ "${BENCH_SECONDS:-0}" -gt 0 ] && [ "$(cat /sys/class/drm/card0-Virtual-2/status 2>/dev/null)" = connected ]; then
    # The outputs benchmark on DRM (docs/BENCHMARKS.md, outputs.drm): both heads at
    # 1920x1080, an 8-digit counter on each root; every second for $BENCH_SECONDS s a new
    # value (every digit rolls) on the first head's counter only, then on both; vitrined's
    # CPU ticks (utime + stime) over each run, in the order one, both, both, one.
    start realtime --config /etc/vitrine-bench.toml
    for i in 1 2; do
        root=root; [ $i = 2 ] && root=Virtual-2
        vitrinectl send "{\"cmd\": \"layer.add\", \"layer\": \"n$i\", \"parent\": \"$root\", \"kind\": \"rolling-number\", \"properties\": {\"bounds\": [0, 0, 1200, 200], \"position\": [960, 540], \"fontSize\": 140, \"alignment\": \"center\", \"usesGrouping\": false, \"value\": 10000000}}" >/dev/null || fail "layer.add n$i"
    done
    settle >/dev/null
    value=10000000
    ticks() { set -- $(cat /proc/$pid/stat); echo $((${14} + ${15})); }
    roll() { # LAYERS…: prints vitrined's CPU ticks over the run
        c0=$(ticks); s=0
        while [ $s -lt "$BENCH_SECONDS" ]; do
            value=$((value + 1111111)); [ $value -gt 99999999 ] && value=10000000
            for l in "$@"; do
                vitrinectl send "{\"cmd\": \"number.set\", \"layer\": \"$l\", \"value\": $value}" >/dev/null || fail "number.set $l"
            done
            sleep 1; s=$((s + 1))
        done
        settle >/dev/null
        echo $(($(ticks) - c0))
    }
    a1=$(roll n1); b1=$(roll n1 n2); b2=$(roll n1 n2); a2=$(roll n1)
    echo "VITRINE-INFO outputs benchmark ($BENCH_SECONDS s each, 1920x1080 heads, CPU ticks of $(getconf CLK_TCK 2>/dev/null || echo 100) Hz): one head rolling $a1 $a2, both $b1 $b2: ratio $(echo "$a1 $a2 $b1 $b2" | awk '{ printf "%.2f", ($3 + $4) / ($1 + $2) }') (goal <= 2)"
    stop
fi
grep -i "warning\|error" $log | head -n 5 | sed 's/^/VITRINE-INFO vitrined log: /'
exit 0
