#!/bin/sh
# vitrined's TV control over HDMI-CEC on the kernel's CEC framework (docs/DRM-TEST.md, the
# CEC guest). vivid emulates an HDMI input and an HDMI output whose CEC adapters share one
# bus: the input's plays the TV (cec-ctl --tv, then cec-follower answering as a TV does),
# the output's is vitrined's ([[outputs]] cec = "auto": the one adapter that is not a TV's).
#  1. vitrined replaces the recording device cec-ctl configured on its adapter with a
#     playback device's address, and wakes the TV: the TV receives <Image View On>
#     and <Active Source>; output.list says tvPower "on".
#  2. output.power off: the TV receives <Standby>, goes to standby; output.list and a
#     cec.power event say "standby". output.power on: <Image View On>, "on" again.
#  3. cec.send: the TV's OSD name, its power status, a raw opcode with the reply named;
#     the TV asks vitrined's power status and OSD name (vitrined as a follower).
#  4. No TV: cec-follower stopped and the TV's address released; cec.send says "nack",
#     and output.list "unknown" after the next question.
export VITRINE_SOCKET=/run/vitrine.sock
log=/tmp/vitrined.log
pid=
follower=
started=$(cut -d' ' -f1 /proc/uptime)

fail() {
    echo "VITRINE-FAIL $*"
    tail -n 15 $log | sed 's/^/  vitrined: /'
    tail -n 15 /tmp/follower.log 2>/dev/null | sed 's/^/  cec-follower: /'
    [ -n "$pid" ] && kill $pid 2>/dev/null
    [ -n "$follower" ] && kill $follower 2>/dev/null
    exit 1
}

# Waits up to 20 s until `output.list` says tvPower $1.
wait_power() {
    i=0
    while :; do
        state=$(vitrinectl send '{"cmd":"output.list"}' | sed -n 's/.*"tvPower":"\([^"]*\)".*/\1/p')
        [ "$state" = "$1" ] && break
        [ $i -lt 200 ] || fail "output.list says tvPower \"$state\" after 20 s, not \"$1\": $(vitrinectl send '{"cmd":"output.list"}')"
        usleep 100000; i=$((i + 1))
    done
    echo "VITRINE-INFO tvPower \"$1\" after $((i / 10)).$((i % 10)) s"
}

# Waits up to 10 s until the TV (cec-follower --show-msgs) received opcode $1 from vitrined.
wait_received() {
    i=0
    until grep -q "Playback Device.*$1" /tmp/follower.log; do
        [ $i -lt 100 ] || fail "the TV did not receive $1 in 10 s"
        usleep 100000; i=$((i + 1))
    done
    echo "VITRINE-INFO the TV received $(grep "Playback Device.*$1" /tmp/follower.log | tail -n 1 | sed 's/^[^A-Za-z]*//')"
}

tv=
for d in /dev/cec*; do
    info=$(cec-ctl -d $d)
    name=$(echo "$info" | sed -n 's/.*Adapter Name *: *//p' | head -n 1)
    echo "VITRINE-INFO $d: $name, physical address $(echo "$info" | sed -n 's/.*Physical Address *: *//p' | head -n 1)"
    case $name in *vid-cap*) tv=$d ;; *vid-out*) source=$d ;; esac
done
[ -n "$tv" ] && [ -n "$source" ] || fail "no vivid CEC adapters of an HDMI input and output: $(ls /dev/cec* 2>&1)"

cec-ctl -d $tv --tv --osd-name TV >/tmp/tv.log 2>&1 || fail "cec-ctl --tv: $(tail -n 3 /tmp/tv.log)"
cec-follower -d $tv --show-msgs --show-state >/tmp/follower.log 2>&1 &
follower=$!
# another program's claim on vitrined's adapter, which vitrined replaces with its own
cec-ctl -d $source --record --osd-name Other >/dev/null 2>&1 || fail "cec-ctl --record on $source"

cat >/etc/vitrine-cec.toml <<EOF
[output]
backend = "drm"
[state]
journal = false
[input]
enabled = false
[[outputs]]
connector = "Virtual-1"
cec = "auto"
EOF
vitrined run --config /etc/vitrine-cec.toml --socket "$VITRINE_SOCKET" >>$log 2>&1 &
pid=$!
i=0
while [ ! -S "$VITRINE_SOCKET" ]; do
    kill -0 $pid 2>/dev/null || fail "vitrined exited: $(tail -n 3 $log | tr '\n' ' ')"
    [ $i -lt 600 ] || fail "vitrined: no socket after 60 s"
    usleep 100000; i=$((i + 1))
done
echo "VITRINE-INFO vitrined up after $((i / 10)).$((i % 10)) s"
vitrinectl watch cec.power --json >/tmp/events.log 2>&1 &
watcher=$!

# 1. claimed, the TV woken and shown this source
wait_received IMAGE_VIEW_ON
wait_received ACTIVE_SOURCE
wait_power on
listed=$(vitrinectl send '{"cmd":"output.list"}' | sed -n 's/.*\("cec":{[^}]*}\).*/\1/p')
echo "VITRINE-INFO output.list: $listed"
echo "$listed" | grep -q "\"device\":\"$source\"" && echo "$listed" | grep -q '"logicalAddress":4' || fail "cec = auto: not $source at logical address 4: $listed"

# 2. standby with the output, woken with it
vitrinectl send '{"cmd":"output.power","output":"Virtual-1","on":false}' >/dev/null || fail "output.power off"
wait_received STANDBY
wait_power standby
grep -q '"tvPower":"standby"' /tmp/events.log || fail "no cec.power event with \"standby\": $(cat /tmp/events.log)"
n=$(grep -c IMAGE_VIEW_ON /tmp/follower.log)
vitrinectl send '{"cmd":"output.power","output":"Virtual-1","on":true}' >/dev/null || fail "output.power on"
i=0
until [ "$(grep -c IMAGE_VIEW_ON /tmp/follower.log)" -gt "$n" ]; do
    [ $i -lt 100 ] || fail "no second <Image View On> in 10 s"
    usleep 100000; i=$((i + 1))
done
wait_power on
echo "VITRINE-INFO cec.power events: $(tr '\n' ' ' </tmp/events.log)"

# 3. cec.send, and vitrined answering as a follower
reply=$(vitrinectl send '{"cmd":"cec.send","opcode":"give-osd-name"}')
echo "VITRINE-INFO cec.send give-osd-name: $reply"
echo "$reply" | grep -q '"osdName":"TV"' || fail "cec.send give-osd-name: $reply"
reply=$(vitrinectl send '{"cmd":"cec.send","opcode":"give-device-power-status"}')
echo "$reply" | grep -q '"powerStatus":"on"' || fail "cec.send give-device-power-status: $reply"
reply=$(vitrinectl send '{"cmd":"cec.send","to":0,"opcode":159,"reply":158}')
echo "VITRINE-INFO cec.send raw 0x9f (get-cec-version): $reply"
echo "$reply" | grep -q '"status":"ok"' && echo "$reply" | grep -q '"replyOpcode":"cec-version"' || fail "cec.send 0x9f: $reply"
reply=$(vitrinectl send '{"cmd":"cec.send","opcode":"no-such-thing"}')
echo "$reply" | grep -q '"ok":false' || fail "cec.send of an unknown opcode: $reply"
kill $follower; wait $follower 2>/dev/null; follower=
answer=$(cec-ctl -d $tv --to 4 --give-device-power-status 2>&1 | tr -s ' \t\n' ' ')
echo "VITRINE-INFO the TV asks vitrined's power status: $(echo "$answer" | sed -n 's/.*\(Received from .*pwr-state: [a-z ]*\).*/\1/p')"
echo "$answer" | grep -qi "pwr-state: on" || fail "vitrined did not report its power status: $answer"
answer=$(cec-ctl -d $tv --to 4 --give-osd-name 2>&1 | tr -s ' \t\n' ' ')
echo "$answer" | grep -q "Vitrine" || fail "vitrined did not report its OSD name: $answer"

# 4. no TV
cec-ctl -d $tv --clear >/dev/null
reply=$(vitrinectl send '{"cmd":"cec.send","opcode":"give-device-power-status"}')
echo "VITRINE-INFO cec.send without a TV: $reply"
echo "$reply" | grep -q '"status":"nack"' || fail "cec.send without a TV: $reply"
vitrinectl send '{"cmd":"output.power","output":"Virtual-1","on":false}' >/dev/null || fail "output.power off"
wait_power unknown
grep -q '"tvPower":"unknown"' /tmp/events.log || fail "no cec.power event with \"unknown\": $(cat /tmp/events.log)"

kill $watcher $pid
wait $pid
echo "VITRINE-INFO CEC guest script: $(awk -v s=$started '{printf "%.1f", $1 - s}' /proc/uptime) s"
