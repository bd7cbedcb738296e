# The input guest's end-to-end part (docs/DRM-TEST.md, "The input guest"): vitrined
# --backend drm with [input] takes the uinput devices through libinput; a script sees taps
# and keys as events, and bindings change the screen. Sourced by guest/input.sh after its
# infrastructure part passed: its helpers (info, fail, wait_more, replay, sync_replay, dev,
# percentiles), W and H, and the uinput devices are there.
#
# PLANNED PROTOCOL (issue 23; vitrined does not have it yet). What this script assumes:
#  - /etc/vitrine-input.toml's [input] keys: enabled, seat, xkb_layout, xkb_variant,
#    xkb_options, repeat_delay_ms, repeat_rate, vt_switching, tap_slop, long_press_seconds
#    (calibration left out: the identity).
#  - hello's "commands" lists "binding.add"; its "events" list "layer.tap" and "input.key".
#  - {"cmd":"binding.add","layer":L,"on":"tap","commands":[…]} runs the commands when L is
#    tapped; a command is a request object without "id".
#  - {"cmd":"subscribe","events":["layer.tap","input.key"]} (here: vitrinectl watch).
#  - {"event":"layer.tap","layer":L,"point":[x,y],…}: x y in L's own coordinates (bounds
#    origin top left, y down: for an untransformed layer, the tap minus position plus
#    anchorPoint × bounds size), of the layer drawn on the screen under the finger.
#    A tap is a touch down and up within tap_slop (12 px) and long_press_seconds (0.5 s);
#    a drag beyond tap_slop, a touch out of range and a touch whose device vanishes are
#    no tap.
#  - {"event":"input.key","keycode":21,"keysym":"z","text":"z","pressed":true,…} for each
#    press ("pressed":false for releases), text through the [input] keymap.
# E2E=auto runs this part only when hello says all of that; E2E=on requires it;
# E2E=rehearse runs what needs no input (scene, screendumps, presentation, idle) on the
# vitrined of today, without [input], the script itself doing what the bindings would.
#
# TODO(issue 23, latency benchmark): the goal is "the reaction in the next frame": p99 of
# (presentation time of the first frame showing the binding's colour - kernel time of the
# touch) <= one frame period + 2 ms. vitrined does not expose frame presentation times
# (neither stats nor an event, docs/PROTOCOL.md), so what is measured here is the kernel
# time of the touch up -> the layer.tap event's arrival at a client. Proposed: a
# "frame.presented" event {"frame": n, "time": CLOCK_MONOTONIC seconds of the page flip,
# "transactions": [ids first shown]} and the binding's transaction id in layer.tap; then
# latency = time of the frame whose transactions hold it - touch-up kernel time.

E=/tmp/events.log
config=/etc/vitrine-input.toml
if [ "$E2E" = rehearse ]; then
    sed '/^\[input\]/,$d' /etc/vitrine-input.toml >/tmp/vitrine-rehearse.toml
    config=/tmp/vitrine-rehearse.toml
fi

# One vitrinectl session for the script's requests (a process per request costs a few
# hundred milliseconds under TCG): requests go through a FIFO with ids of their own.
ctl_start() {
    rm -f /tmp/ctl.fifo
    mkfifo /tmp/ctl.fifo
    vitrinectl send --json --timeout 10 </tmp/ctl.fifo >/tmp/ctl.out 2>&1 3>&- &
    ctlpid=$!
    exec 4>/tmp/ctl.fifo
    echo 0 >/tmp/ctl.seq
}
ctl() { # REQUEST…: sent in order; prints their replies; status 1 when one is not ok
    _first=$(($(cat /tmp/ctl.seq) + 1)) _last=${_first}
    for r in "$@"; do
        echo "{\"id\":\"q${_last}\",${r#\{}" >&4
        _last=$((_last + 1))
    done
    _last=$((_last - 1))
    echo ${_last} >/tmp/ctl.seq
    _w=0
    until grep -q "\"id\":\"q${_last}\"" /tmp/ctl.out; do
        kill -0 $ctlpid 2>/dev/null || { echo "vitrinectl send ended: $(tail -n 2 /tmp/ctl.out)"; return 1; }
        [ $_w -lt 750 ] || { echo "no reply to q${_last} in 15 s"; return 1; }
        usleep 20000; _w=$((_w + 1))
    done
    _ids=$(seq ${_first} ${_last} | sed 's/^/q/' | tr '\n' '|')
    grep -E "\"id\":\"(${_ids%|})\"" /tmp/ctl.out >/tmp/ctl.reply
    cat /tmp/ctl.reply
    ! grep -q '"ok":false' /tmp/ctl.reply
}
pres() { # LAYER KEY: the presentation value (numbers)
    ctl "{\"cmd\":\"layer.get\",\"layer\":\"$1\",\"keys\":[\"$2\"],\"presentation\":true}" |
        sed -n "s/.*\"$2\":\([-0-9.e]*\).*/\1/p"
}
colour() { # LAYER: its backgroundColor as shown
    ctl "{\"cmd\":\"layer.get\",\"layer\":\"$1\",\"keys\":[\"backgroundColor\"],\"presentation\":true}" |
        sed -n 's/.*"backgroundColor":"\([^"]*\)".*/\1/p'
}
frames() { ctl '{"cmd":"stats"}' | sed -n 's/.*"frames":\([0-9]*\).*/\1/p'; }
step() { echo "VITRINE-STEP $1 $2"; read -r _; }
e2e_skip() {
    info "end to end: skipped — $*"
    [ -n "$ctlpid" ] && exec 4>&-
    [ -n "$pid" ] && kill $pid 2>/dev/null && wait $pid
    pid=
}

e2e() {
    echo "--- vitrined --config $config --backend drm" >>$V
    # (background processes get no copy of the FIFOs' write ends, fds 3 and 4: the readers
    # must see their end)
    vitrined --config $config --backend drm --clock realtime --socket "$VITRINE_SOCKET" >>$V 2>&1 3>&- &
    pid=$!
    i=0
    while [ ! -S "$VITRINE_SOCKET" ]; do
        if ! kill -0 $pid 2>/dev/null; then
            wait $pid; rc=$?; pid=
            if [ "$E2E" = auto ] && grep -q "input: unknown section" $V; then
                e2e_skip "vitrined does not take [input] yet ($(grep 'unknown section' $V | head -n 1 | cut -c1-90)…)"
                return 0
            fi
            fail "vitrined --config $config exited ($rc): $(tail -n 2 $V | tr '\n' ' ')"
        fi
        [ $i -lt 300 ] || fail "vitrined: no socket after 30 s"
        usleep 100000; i=$((i + 1))
    done
    ctl_start
    hello=$(ctl '{"cmd":"hello"}')
    info "vitrined up after $((i / 10)).$((i % 10)) s: $(echo "$hello" | sed -n 's/.*"outputs":\(\[[^]]*\]\).*/outputs \1/p')"
    missing=
    for want in '"binding.add"' '"layer.tap"' '"input.key"'; do
        echo "$hello" | grep -q "$want" || missing="$missing $want"
    done
    if [ -n "$missing" ] && [ "$E2E" != rehearse ]; then
        [ "$E2E" = on ] && fail "vitrined's hello lists no$missing (--e2e on)"
        e2e_skip "vitrined's hello lists no$missing"
        return 0
    fi
    [ "$E2E" = rehearse ] && info "end to end: REHEARSAL (vitrined without [input]): the script does what the bindings would; no event is checked"

    # ------------------------------------------------------------ scene
    # The button (200x100) slides on y=200 between x=150 and W-150 and back, 10 s each way;
    # the dial (200x200, scaled 1.3, rotated 30°) stands at (W-280, H-220).
    bx0=150 bx1=$((W - 150)) by=200
    dx=$((W - 280)) dy=$((H - 220))
    ctl "{\"cmd\":\"layer.add\",\"layer\":\"button\",\"properties\":{\"bounds\":[0,0,200,100],\"position\":[$bx0,$by],\"backgroundColor\":\"#ff0000\"}}" \
        "{\"cmd\":\"animation.add\",\"layer\":\"button\",\"key\":\"slide\",\"animation\":{\"keyPath\":\"position.x\",\"from\":$bx0,\"to\":$bx1,\"duration\":10,\"autoreverses\":true,\"repeatCount\":\"infinity\"}}" \
        "{\"cmd\":\"layer.add\",\"layer\":\"dial\",\"properties\":{\"bounds\":[0,0,200,200],\"position\":[$dx,$dy],\"backgroundColor\":\"#0000ff\",\"transform\":{\"scale\":1.3,\"rotation\":\"30deg\"}}}" \
        >/tmp/ctl.log || fail "the scene: $(cat /tmp/ctl.log)"
    if [ "$E2E" != rehearse ]; then
        ctl '{"cmd":"binding.add","layer":"button","on":"tap","commands":[{"cmd":"layer.set","layer":"button","properties":{"backgroundColor":"#00ff00"},"actions":false}]}' \
            '{"cmd":"binding.add","layer":"dial","on":"tap","commands":[{"cmd":"layer.set","layer":"dial","properties":{"backgroundColor":"#ffff00"},"actions":false}]}' \
            >/tmp/ctl.log || fail "binding.add: $(cat /tmp/ctl.log)"
        # Each event line prefixed with its CLOCK_MONOTONIC arrival (uinput-replay --stamp).
        { vitrinectl watch layer.tap input.key --json 2>&1 | uinput-replay --stamp >$E 2>&1; } 3>&- 4>&- &
        i=0
        until ctl '{"cmd":"stats"}' | grep -q '"clients":[2-9]'; do
            [ $i -lt 50 ] || fail "vitrinectl watch did not connect"
            usleep 100000; i=$((i + 1))
        done
    fi
    : >>$E
    step 1 "button red, sliding #ff0000>=18000 #00ff00=0"

    # ------------------------------------------------------------ taps on the moving button
    # Under TCG a vitrinectl round trip takes a few hundred milliseconds, over which the
    # button moves tens of pixels: the point is checked against the positions read before
    # the tap and after its event (±2 px beyond them); the paused button below checks it
    # to the pixel.
    : >/tmp/tap-latency
    n=1
    while [ $n -le "$E2E_TAPS" ]; do
        # (the button back to red, and where it is)
        xb=$(ctl '{"cmd":"layer.set","layer":"button","properties":{"backgroundColor":"#ff0000"},"actions":false}' \
                 '{"cmd":"layer.get","layer":"button","keys":["position.x"],"presentation":true}' |
             sed -n 's/.*"position.x":\([-0-9.e]*\).*/\1/p')
        [ -n "$xb" ] || fail "layer.get button position.x (presentation)"
        tx=$(echo "$xb" | awk '{ printf "%d", $1 }') ty=$((by + 10))
        t0=$(count $E '"layer.tap"') u0=$(count $R ' touch up ')
        replay "touch tap 0 $(dev $tx) $(dev $ty) 30"
        sync_replay
        if [ "$E2E" = rehearse ]; then
            ctl '{"cmd":"layer.set","layer":"button","properties":{"backgroundColor":"#00ff00"},"actions":false}' >/dev/null
        else
            wait_more $E '"layer.tap"' $t0 5 || fail "tap $n at ($tx,$ty) on the button (x $xb…): no layer.tap event"
        fi
        got=$(ctl '{"cmd":"layer.get","layer":"button","keys":["position.x","backgroundColor"],"presentation":true}')
        xa=$(echo "$got" | sed -n 's/.*"position.x":\([-0-9.e]*\).*/\1/p')
        c=$(echo "$got" | sed -n 's/.*"backgroundColor":"\([^"]*\)".*/\1/p')
        [ "$c" = "#00ff00" ] || fail "tap $n: the button shows $c, expected #00ff00 (the binding's layer.set)"
        if [ "$E2E" != rehearse ]; then
            ev=$(grep '"layer.tap"' $E | tail -n 1)
            echo "$ev" | grep -q '"layer":"button"' || fail "tap $n at ($tx,$ty): $ev, expected layer button"
            # the layer's point: the pixel's centre (libinput: tx + 0.5) minus the layer's
            # top left (x - 100, by - 50), x somewhere between the two presentation reads
            echo "$ev" | sed -n 's/.*"point":\[\([^],]*\),\([^]]*\)\].*/\1 \2/p' |
                awk -v tx=$tx -v ty=$ty -v xb=$xb -v xa=$xa -v by=$by '{
                    lo = xb < xa ? xb : xa; hi = xb < xa ? xa : xb
                    ok = $1 >= tx + 0.5 - (hi - 100) - 2 && $1 <= tx + 0.5 - (lo - 100) + 2 && ($2 - (ty + 0.5 - (by - 50))) * ($2 - (ty + 0.5 - (by - 50))) <= 4
                    exit !ok }' ||
                fail "tap $n at ($tx,$ty), button x $xb…$xa: $ev, expected point [$(echo "$tx $xb $xa" | awk '{ printf "%.1f…%.1f", $1 + 0.5 - ($3 > $2 ? $3 : $2) + 100, $1 + 0.5 - ($3 > $2 ? $2 : $3) + 100 }'), $((ty - by + 50)).5] ±2"
            # kernel time of the touch up (uinput-replay's write) -> the event at a client
            up=$(grep ' touch up ' $R | sed -n "$((u0 + 1))p" | awk '{ print $2 }')
            echo "$ev $up" | awk '{ printf "%.3f\n", ($1 - $NF) * 1000 }' >>/tmp/tap-latency
        fi
        [ $n = 1 ] && step 2 "button green after a tap #00ff00>=18000 #ff0000=0"
        n=$((n + 1))
    done
    if [ "$E2E" != rehearse ]; then
        info "taps on the moving button: $E2E_TAPS layer.tap events, layer button, point within the positions read around the tap (±2 px), colour set by the binding"
        info "latency touch up (kernel) -> layer.tap event at a client: $(percentiles </tmp/tap-latency)"
        info "TODO latency to the presented frame: vitrined exposes no frame presentation time (see guest/input-e2e.sh)"
    fi

    # The button paused where it is (layer.pause): the point to the pixel.
    got=$(ctl '{"cmd":"layer.pause","layer":"button"}' \
              '{"cmd":"layer.set","layer":"button","properties":{"backgroundColor":"#ff0000"},"actions":false}' \
              '{"cmd":"layer.get","layer":"button","keys":["position.x"],"presentation":true}')
    xp=$(echo "$got" | sed -n 's/.*"position.x":\([-0-9.e]*\).*/\1/p')
    [ -n "$xp" ] || fail "layer.pause button: $got"
    tx=$(echo "$xp" | awk '{ printf "%d", $1 - 63 }') ty=$((by - 31))
    t0=$(count $E '"layer.tap"')
    replay "touch tap 0 $(dev $tx) $(dev $ty) 30"
    sync_replay
    if [ "$E2E" != rehearse ]; then
        wait_more $E '"layer.tap"' $t0 5 || fail "tap at ($tx,$ty) on the paused button (x $xp): no layer.tap event"
        ev=$(grep '"layer.tap"' $E | tail -n 1)
        expect=$(echo "$tx $xp $ty $by" | awk '{ printf "%.2f %.2f", $1 + 0.5 - ($2 - 100), $3 + 0.5 - ($4 - 50) }')
        echo "$ev" | grep -q '"layer":"button"' || fail "tap on the paused button: $ev"
        echo "$ev" | sed -n 's/.*"point":\[\([^],]*\),\([^]]*\)\].*/\1 \2/p' |
            awk -v e="$expect" '{ split(e, p, " "); dx = $1 - p[1]; dy = $2 - p[2]; exit !(dx * dx <= 1 && dy * dy <= 1) }' ||
            fail "tap on the paused button at x $xp: $ev, expected point [$expect] ±1"
        info "tap on the paused button (x $xp): $(echo "$ev" | sed 's/^[0-9.]* //'), expected [$expect] ±1"
    fi
    ctl '{"cmd":"layer.resume","layer":"button"}' >/dev/null || fail "layer.resume button"

    # ------------------------------------------------------------ the transformed dial
    # A tap at (dx + 30, dy - 20): the layer's point is the inverse of scale 1.3 and
    # rotation 30° (clockwise on the y-down screen) about its centre, plus (100, 100).
    t0=$(count $E '"layer.tap"')
    replay "touch tap 0 $(dev $((dx + 30))) $(dev $((dy - 20))) 30"
    sync_replay
    if [ "$E2E" = rehearse ]; then
        ctl '{"cmd":"layer.set","layer":"dial","properties":{"backgroundColor":"#ffff00"},"actions":false}' >/dev/null
    else
        wait_more $E '"layer.tap"' $t0 5 || fail "tap on the dial: no layer.tap event"
        ev=$(grep '"layer.tap"' $E | tail -n 1)
        echo "$ev" | grep -q '"layer":"dial"' || fail "tap on the dial: $ev"
        # (busybox awk has no cos/sin: cos 30° = 0.8660254, sin 30° = 0.5)
        expect=$(awk 'BEGIN { c = 0.8660254037844386; s = 0.5; x = 30.5; y = -19.5
            printf "%.2f %.2f", (x * c + y * s) / 1.3 + 100, (-x * s + y * c) / 1.3 + 100 }')
        echo "$ev" | sed -n 's/.*"point":\[\([^],]*\),\([^]]*\)\].*/\1 \2/p' |
            awk -v e="$expect" '{ split(e, p, " "); dx = $1 - p[1]; dy = $2 - p[2]; exit !(dx * dx <= 4 && dy * dy <= 4) }' ||
            fail "tap on the dial: $ev, expected point [$expect] ±2"
        info "tap on the transformed dial: $(echo "$ev" | sed 's/^[0-9.]* //'), expected [$expect]"
    fi
    [ "$(colour dial)" = "#ffff00" ] || fail "the dial shows $(colour dial), expected #ffff00"
    step 3 "dial yellow after a tap #ffff00>=50000"

    if [ "$E2E" != rehearse ]; then
        # ---------------------------------------------------------- no tap: a drag, bad input
        t0=$(count $E '"layer.tap"')
        xb=$(pres button position.x | awk '{ printf "%d", $1 }')
        replay "touch drag 0 $(dev $xb) $(dev $((by + 10))) $(dev $((xb + 60))) $(dev $((by + 10))) 6 16"
        replay "touch down 0 99999 99999"
        replay "touch move 0 -5000 88888"
        replay "touch up 0"
        xb=$(pres button position.x | awk '{ printf "%d", $1 }')
        replay "touch down 0 $(dev $xb) $(dev $((by + 10)))"
        replay "sleep 50"
        replay "destroy touch"
        sync_replay
        usleep 500000
        kill -0 $pid 2>/dev/null || fail "vitrined ended after a drag, a touch out of range and a device vanishing mid-touch"
        ctl '{"cmd":"ping"}' >/dev/null || fail "vitrined does not answer after bad input"
        [ "$(count $E '"layer.tap"')" = "$t0" ] || fail "a drag, an out-of-range touch or a vanished touch made a tap: $(grep '"layer.tap"' $E | tail -n +$((t0 + 1)) | tr '\n' ' ')"
        info "a drag beyond tap_slop, a touch out of range and a touch whose device vanished: no tap, vitrined answers"

        # ---------------------------------------------------------- hot-plug, then keys
        replay "create touch"
        sync_replay
        udevadm settle --timeout=10
        usleep 300000
        t0=$(count $E '"layer.tap"')
        xb=$(pres button position.x | awk '{ printf "%d", $1 }')
        replay "touch tap 0 $(dev $xb) $(dev $((by + 10))) 30"
        sync_replay
        wait_more $E '"layer.tap"' $t0 5 || fail "no tap from the touchscreen plugged in again"
        info "hot-plug: a tap from the touchscreen plugged in again while vitrined runs"

        k0=$(count $E '"input.key".*"pressed":true|"pressed":true.*"input.key"')
        replay "key KEY_Y"
        replay "key KEY_SEMICOLON"
        replay "key KEY_MINUS"
        replay "key KEY_LEFTSHIFT 1"
        replay "key KEY_Y"
        replay "key KEY_LEFTSHIFT 0"
        replay "key KEY_Z"
        sync_replay
        wait_more $E '"input.key".*"pressed":true|"pressed":true.*"input.key"' $((k0 + 5)) 5 ||
            fail "input.key: $(($(count $E '"input.key"') - k0)) events for 6 key presses"
        typed=$(grep '"input.key"' $E | grep '"pressed":true' | tail -n +$((k0 + 1)) |
            sed 's/.*"text":"\([^"]*\)".*/\1/; s/\\u00f6/ö/; s/\\u00df/ß/' | tr '\n' '|')
        [ "$typed" = "$expected" ] || fail "input.key through [input] xkb_layout '$LAYOUT': typed '$typed', expected '$expected'"
        info "input.key through xkb_layout '$LAYOUT': typed '$typed'"
    fi

    # ------------------------------------------------------------ idle: no frames, few wake-ups
    ctl "{\"cmd\":\"animation.remove\",\"layer\":\"button\",\"key\":\"slide\"}" >/dev/null || fail "animation.remove"
    last=$(frames) i=0
    while [ $i -lt 40 ]; do
        usleep 500000
        now=$(frames)
        [ "$now" = "$last" ] && break
        last=$now i=$((i + 1))
    done
    s0=$(cat /proc/$pid/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n }')
    sleep 3
    s1=$(cat /proc/$pid/task/*/status | awk '/ctxt_switches/ { n += $2 } END { print n }')
    f1=$(frames)
    # (the stats request itself wakes the daemon once: counted after the second read)
    [ "$f1" = "$last" ] || fail "$((f1 - last)) frames presented in 3 idle seconds (expected 0)"
    info "idle$([ "$E2E" = rehearse ] && echo ' (rehearsal: vitrined has no input devices open)' || echo ' with the input devices open'): 0 frames and $((s1 - s0)) context switches of vitrined's $(ls /proc/$pid/task | wc -l) threads in 3 s"

    exec 4>&-
    wait $ctlpid
    kill $pid; wait $pid; pid=
    grep -i "warning\|error" $V | head -n 5 | sed 's/^/VITRINE-INFO vitrined log: /'
}

e2e
