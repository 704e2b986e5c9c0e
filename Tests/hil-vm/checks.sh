#!/bin/bash
# The rig's checks, sourced by guest.sh inside the guest (root, gadgets up, udevd running with the project's
# rules). Each writes one line to /hil-out/results.txt: `ok NAME detail` or `fail NAME detail`; the host's
# USBGadgetRigTests reads them back. Needs: bin (the build's products), t (a timestamped log line).
results=/hil-out/results.txt
: >"$results"
failures=0
check() { # name condition-status detail
    if [ "$2" = 0 ]; then echo "ok $1 $3" >>"$results"; t "ok $1 $3"
    else echo "fail $1 $3" >>"$results"; t "FAIL $1 $3"; failures=$((failures + 1)); fi
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# One command to the emulator's control port, its one-line answer.
# (In a subshell: a failed redirection of `exec` would end the script.)
ctl() { (exec 3<>/dev/tcp/127.0.0.1/9101 && echo "$1" >&3 && read -t 2 -r answer <&3 && echo "$answer") 2>/dev/null; }
cut_count() { local n; n=$(ctl tickets | awk '{ print $2 + 0 }'); echo "${n:-0}"; }
status() { curl -fsS http://127.0.0.1:18080/status 2>/dev/null; }
wait_until() { # timeout_ms command...: polls every 10 ms; prints the milliseconds it took, fails after timeout
    local limit=$1 start; shift; start=$(now_ms)
    while ! "$@"; do
        [ $(($(now_ms) - start)) -ge "$limit" ] && return 1
        sleep 0.01
    done
    echo $(($(now_ms) - start))
}
# Where a process's threads wait in the kernel (for a check that timed out).
where() { for task in /proc/"$1"/task/*; do echo "  $(cat "$task/comm"): $(cat "$task/wchan")"; done; }
diagnose() {
    t "kioskd threads:"; where "$kioskd"
    t "emulator threads:"; where "$emulator"
    t "kioskd log:"; tail -8 /hil-out/kioskd.log
}
percentile() { sort -n | awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i] }'; }

# 1. Discovery: the printer by class 7 and by its profile's VID:PID; the scanner's event node.
devices=$("$bin/kioskd" devices 2>&1)
echo "$devices"
printf '%s' "$devices" | grep -q 'usb://1d90:2060' && printf '%s' "$devices" | grep -q 'citizen-ppu-700' &&
    printf '%s' "$devices" | grep -q '/dev/input/by-id/.*-event-kbd'
check devices $? "$(printf '%s' "$devices" | grep -E 'usb://|event' | tr '\n' ';' | tr -s ' ')"

# 6. The project's udev rules: stable names, the kioskd group, mode 0660; usblp holds the printer.
udev_detail=""
udev_ok=0
for link in /dev/clup/printer /dev/clup/scanner; do
    info=$(stat -L -c '%G %a' "$link" 2>/dev/null || echo missing)
    udev_detail="$udev_detail $link($(readlink "$link") $info)"
    [ "$info" = "kioskd 660" ] || udev_ok=1
done
check udev-rules $udev_ok "$udev_detail"
[ -e /dev/usb/lp0 ]
check usblp-bound $? "usblp bound the printer before kioskd started: $(ls /dev/usb 2>/dev/null | tr '\n' ' ')"

# The printer emulator behind the gadget, and kioskd in both roles as the kioskd user.
mkdir -p /hil-out/tickets /tmp/kiosk
"$bin/escpos-emulator" --profile citizen-ppu-700 --device /dev/g_printer0 --control 9101 --out /hil-out/tickets \
    --quiet </dev/null >/hil-out/emulator.log 2>&1 &
emulator=$!
cat >/tmp/kiosk/kioskd.toml <<TOML
[store]
id = "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90"
name = "Gadget Market"
capacity = 5
[device]
id = "gadget-entrance"
state_directory = "/tmp/kiosk/state"
[printer]
address = "usb://1d90:2060"
profile = "citizen-ppu-700"
[door]
enabled = true
scanner = "evdev:///dev/clup/scanner"
[http]
port = 18080
TOML
install -d -o kioskd -g kioskd -m 0700 /tmp/kiosk/state
wait_until 10000 ctl status >/dev/null
setpriv --reuid=kioskd --regid=kioskd --init-groups "$bin/kioskd" run --config /tmp/kiosk/kioskd.toml \
    </dev/null >/hil-out/kioskd.log 2>&1 &
kioskd=$!

# 2. Printing over usb:// with usblp bound first: kioskd detaches it, claims, prints; the QR decodes.
has_tickets() { [ "$(cut_count)" -ge "$1" ]; }
first_ms=$(wait_until 60000 has_tickets 1)
png=$(ctl tickets | awk '{ print $3 }')
payload=$(zbarimg --quiet --raw "$png" 2>/dev/null | head -1)
[ -n "$first_ms" ] && [ -n "$payload" ]
check usb-print $? "first ticket after ${first_ms:-?} ms, QR: ${payload:0:32}…" || true
[ -n "$payload" ] || diagnose
waiting() { status | grep -q "\"waitingTicket\":\"$1\""; }
wait_until 10000 waiting A001 >/dev/null

# 3. Tear-offs through the presenter bit, read over USB: the next ticket's cut, 30 times.
: >/tmp/latencies
for i in $(seq 1 30); do
    n=$(cut_count)
    sleep 0.1
    start=$(now_ms)
    ctl take >/dev/null
    if wait_until 10000 has_tickets $((n + 1)) >/dev/null; then echo $(($(now_ms) - start)) >>/tmp/latencies; fi
done
count=$(wc -l </tmp/latencies)
p50=$(percentile 50 </tmp/latencies)
p99=$(percentile 99 </tmp/latencies)
[ "$count" = 30 ] && [ "${p99:-99999}" -lt 2000 ]
check tear-off $? "$count tear-offs over USB: p50 ${p50} ms p99 ${p99} ms"
[ "$count" = 30 ] || diagnose

# 5. The door over evdev: the first ticket's payload typed by the HID gadget (capitals with shift, digits and
# * + - . / on the keypad) arrives as the exact scan and is admitted; the grab keeps it from other readers.
event=$(readlink -f /dev/clup/scanner)
python3 -c '
import os, select, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
end, got = time.time() + 4, 0
while time.time() < end:
    if select.select([fd], [], [], 0.1)[0]:
        try: got += len(os.read(fd, 4096))
        except BlockingIOError: pass
print(got)' "$event" >/tmp/leaked &
spy=$!
sleep 0.5
# Paced like a scanner set to a moderate keyboard speed: the emulated guest reads events slowly.
"$bin/scanner-emulator" /dev/hidg0 --keypad --key-delay-ms 4 --scan "$payload"
admitted() { status | grep -q '"reason":"admit"'; }
admit_ms=$(wait_until 20000 admitted)
wait "$spy"
leaked=$(cat /tmp/leaked)
[ -n "$admit_ms" ] && [ "$leaked" = 0 ]
check evdev-scan $? "typed ${#payload} characters, admitted after ${admit_ms:-?} ms; bytes another reader saw: $leaked; door: $(status | grep -o '"last":{[^}]*}')"

# 5 (continued). Unplug the scanner and plug it back: the door says so, reopens it, and reads again (the same
# ticket a second time is "already used").
door_is() { status | grep -q "\"door\":{[^}]*\"state\":\"$1\""; }
unplug scanner
scanner_gone_ms=$(wait_until 10000 door_is disconnected)
plug scanner "$(udc 1)"
scanner_back_ms=$(wait_until 20000 door_is ready)
udevadm settle --timeout=10
used() { status | grep -q '"reason":"already_used"'; }
"$bin/scanner-emulator" /dev/hidg0 --key-delay-ms 4 --scan "$payload"
used_ms=$(wait_until 20000 used)
[ -n "$scanner_gone_ms" ] && [ -n "$scanner_back_ms" ] && [ -n "$used_ms" ]
check scanner-replug $? "gone after ${scanner_gone_ms:-?} ms, ready ${scanner_back_ms:-?} ms after the replug, next scan decided after ${used_ms:-?} ms"

# 4. Unplug and plug back the printer mid-run: reported gone within 1 s, printing again within 2 s.
before=$(cut_count)
state_is() { status | grep -q "\"state\":\"$1\""; }
unplug printer
gone_ms=$(wait_until 5000 state_is disconnected)
sleep 1
plug printer "$(udc 0)"
ready_ms=$(wait_until 20000 state_is ready)
ctl take >/dev/null
next_ms=$(wait_until 10000 has_tickets $((before + 1)))
codes=$(status | grep -o '"lastTaken":"[A-Z0-9]*"')
[ -n "$gone_ms" ] && [ "$gone_ms" -le 1000 ] && [ -n "$ready_ms" ] && [ -n "$next_ms" ]
check replug $? "gone after ${gone_ms:-?} ms; ready ${ready_ms:-?} ms after the replug; next ticket ${next_ms:-?} ms after a tear-off; $codes"

kill -TERM "$kioskd"
wait "$kioskd"
check kioskd-stops $? "SIGTERM: exit $?"
kill "$emulator" 2>/dev/null
t "checks done: $failures failed"
exit "$failures"
