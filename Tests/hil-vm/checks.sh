#!/bin/bash
# The rig's checks, sourced by guest.sh inside the guest (root, gadgets up, udevd running with the project's
# rules). Each writes one line to /hil-out/results.txt: `ok NAME detail` or `fail NAME detail`; the host's
# USBGadgetRigTests reads them back. Needs: bin (the build's products), t (a timestamped log line).
results=/hil-out/results.txt log=/hil-out/kioskd.log
# shellcheck source=helpers.sh
source "$here/helpers.sh"

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
mkdir -p /hil-out/tickets "$work/kiosk"
"$bin/escpos-emulator" --profile citizen-ppu-700 --device /dev/g_printer0 --control 9101 --out /hil-out/tickets \
    --quiet </dev/null >/hil-out/emulator.log 2>&1 &
emulator=$!
cat >"$work/kiosk/kioskd.toml" <<TOML
[store]
id = "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90"
name = "Gadget Market"
capacity = 100
[device]
id = "gadget-entrance"
state_directory = "$work/kiosk/state"
[printer]
address = "usb://1d90:2060"
profile = "citizen-ppu-700"
[door]
enabled = true
scanner = "evdev:///dev/clup/scanner"
gpio_chip = "$SIM_CHIP"
green_line = "clup-green"
red_line = "1"
gate_line = "$SIM_CHIP:2"
exit_beam = "3"
exit_beam_outside = "4"
[http]
port = 18080
[voice]
enabled = true
output = "alsa:plughw:Loopback,0,0"
TOML
install -d -o kioskd -g kioskd -m 0700 "$work/kiosk/state"
wait_until 10000 ctl status >/dev/null
setpriv --reuid=kioskd --regid=kioskd --init-groups "$bin/kioskd" run --config "$work/kiosk/kioskd.toml" \
    </dev/null >/hil-out/kioskd.log 2>&1 &
kioskd=$!

# 2. Printing over usb:// with usblp bound first: kioskd detaches it, claims, prints; the QR decodes.
first_ms=$(wait_until 60000 has_tickets 1)
tickets
payload=$(zbarimg --quiet --raw "$PNG" 2>/dev/null | head -1)
[ -n "$first_ms" ] && [ -n "$payload" ]
check usb-print $? "first ticket after ${first_ms:-?} ms, QR: ${payload:0:32}…" || true
[ -n "$payload" ] || diagnose
wait_until 10000 has_field waitingTicket A001 >/dev/null

# 3. Tear-offs through the presenter bit, read over USB: the next ticket's cut, 30 times.
: >"$work/latencies"
cpu_ms() { awk -v hz="$(getconf CLK_TCK)" '{ print int(($14 + $15) * 1000 / hz) }' "/proc/$1/stat"; } # user + system
kioskd_cpu=$(cpu_ms "$kioskd") emulator_cpu=$(cpu_ms "$emulator")
for i in $(seq 1 30); do
    tickets
    n=$N
    nap 0.1
    start=$(now_ms)
    ctl take
    if wait_until 10000 has_tickets $((n + 1)) >/dev/null; then echo $((CUT_MS - start)) >>"$work/latencies"; fi
done
kioskd_cpu=$((($(cpu_ms "$kioskd") - kioskd_cpu) / 30)) emulator_cpu=$((($(cpu_ms "$emulator") - emulator_cpu) / 30))
count=$(wc -l <"$work/latencies")
p50=$(percentile 50 <"$work/latencies")
p99=$(percentile 99 <"$work/latencies")
[ "$count" = 30 ] && [ "${p99:-99999}" -lt 2000 ]
check tear-off $? "$count tear-offs over USB: p50 ${p50} ms p99 ${p99} ms; CPU per ticket: kioskd $kioskd_cpu ms, emulator $emulator_cpu ms"
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
print(got)' "$event" >"$work/leaked" &
spy=$!
nap 0.5
# Paced like a scanner set to a moderate keyboard speed: the emulated guest reads events slowly.
"$bin/scanner-emulator" /dev/hidg0 --keypad --key-delay-ms 4 --scan "$payload"
admit_ms=$(wait_until 20000 has_field reason admit)
wait "$spy"
leaked=$(cat "$work/leaked")
fetch
[ -n "$admit_ms" ] && [ "$leaked" = 0 ] && [ "$(field message)" = "A001: welcome in" ]
check evdev-scan $? "typed ${#payload} characters, admitted after ${admit_ms:-?} ms; bytes another reader saw: $leaked; door: $(field message)"

# 5 (continued). Unplug the scanner and plug it back: the door says so, reopens it, and reads again (the same
# ticket a second time is "already used").
unplug scanner
scanner_gone_ms=$(wait_until 10000 door_is disconnected)
nap 3 # long enough for kioskd's retries to space out to 2 s: the event node coming back cuts that short
plug scanner "$(udc 1)"
scanner_back_ms=$(wait_until 20000 door_is ready)
udevadm settle --timeout=10
"$bin/scanner-emulator" /dev/hidg0 --key-delay-ms 4 --scan "$payload"
used_ms=$(wait_until 20000 has_field reason already_used)
[ -n "$scanner_gone_ms" ] && [ -n "$scanner_back_ms" ] && [ -n "$used_ms" ]
check scanner-replug $? "gone after ${scanner_gone_ms:-?} ms, ready ${scanner_back_ms:-?} ms after the replug, next scan decided after ${used_ms:-?} ms"

# 8. The entrance's light, gate and exit beams on a real gpiochip (gpio-sim, see gpio.sh): lines named by
# name, by offset and by chip:offset. A refusal lights red, an admission green and pulses the gate; people
# walking out through the two beams are counted, one walking in is not, two a step apart are two, and a beam
# blocked for long is reported, not counted.
scan_ticket() { # n: types the QR of the n-th ticket cut
    local code
    code=$(zbarimg --quiet --raw "/hil-out/tickets/ticket-$(printf %04d "$1").png" 2>/dev/null | head -1)
    "$bin/scanner-emulator" /dev/hidg0 --keypad --key-delay-ms 4 --scan "$code"
}
gpio_detail="" gpio_ok=0
gpio_fail() { gpio_detail="$gpio_detail FAILED: $1;"; gpio_ok=1; }
wait_until 10000 lines_ready >/dev/null || gpio_fail "lines not ready: $(field lights) / $(field beams)"
wait_until 5000 line_is 1 0 >/dev/null # the red of the re-scan above has gone out
# A001 again: already used, red steady, green off.
"$bin/scanner-emulator" /dev/hidg0 --keypad --key-delay-ms 4 --scan "$payload"
scanned=$(now_ms)
red_ms=$(wait_until 5000 line_is 1 1) && line_is 0 0 || gpio_fail "refusal: red ${red_ms:-never} green $L"
gpio_detail="$gpio_detail refusal: red on ${red_ms:-?} ms after the last key;"
# Three admissions: green on and the gate pulsed each time; inside grows.
number inside
inside=$N
for n in 2 3 4; do
    scan_ticket "$n"
    green_ms=$(wait_until 10000 line_is 0 1) || gpio_fail "ticket $n: no green"
    gate_ms=$(wait_until 2000 line_is 2 1) || gpio_fail "ticket $n: no gate pulse"
    wait_until 2000 line_is 2 0 >/dev/null || gpio_fail "ticket $n: the gate stayed on"
done
wait_until 5000 number_is inside $((inside + 3)) >/dev/null || gpio_fail "inside $N after 3 admissions from $inside"
gpio_detail="$gpio_detail admissions: green ${green_ms:-?} ms, gate ${gate_ms:-?} ms, inside $inside→$N;"
inside=$N
number exits
exits=$N
# One person out: inner, then outer.
# (Counted when the outer beam's break has held 20 ms: timed from that break to the exit in the status.)
beam 3 blocked; nap 0.3; beam 4 blocked
exit_ms=$(wait_until 3000 number_is exits $((exits + 1))) || gpio_fail "one out: exits $N"
nap 0.2; beam 3 clear; nap 0.2; beam 4 clear
nap 0.3 # the next person a step later (a beam cleared and broken again within 20 ms is a flicker)
# One person in through the exit: outer, then inner: not an exit.
beam 4 blocked; nap 0.3; beam 3 blocked; nap 0.2; beam 4 clear; nap 0.2; beam 3 clear
wait_until 3000 number_is walkedInThroughExit 1 >/dev/null || gpio_fail "one in: walked in $N"
nap 0.3
# Two out a step apart.
beam 3 blocked; nap 0.3; beam 4 blocked; nap 0.2; beam 3 clear; nap 0.1; beam 3 blocked; nap 0.2
beam 4 clear; nap 0.1; beam 4 blocked; nap 0.2; beam 3 clear; nap 0.3; beam 4 clear
wait_until 3000 number_is exits $((exits + 3)) >/dev/null || gpio_fail "two out: exits $N"
number_is inside $((inside - 3)) || gpio_fail "inside $N after 3 exits from $inside"
gpio_detail="$gpio_detail beams: exits $exits→$((exits + 3)), inside $inside→$N, the first in the status ${exit_ms:-?} ms after the outer beam's break;"
# A trolley left in the inner beam for 11 s: reported, not counted; clear again, ready again.
beam 3 blocked
blocked_ms=$(wait_until 15000 has_field beams "blocked: the inner beam — clear the exit") || gpio_fail "not reported blocked"
beam 3 clear
wait_until 3000 lines_ready >/dev/null || gpio_fail "not ready after clearing"
number_is exits $((exits + 3)) || gpio_fail "the blocked beam counted: exits $N"
gpio_detail="$gpio_detail blocked reported after ${blocked_ms:-?} ms"
check gpio $gpio_ok "$gpio_detail"

# 4. Unplug the printer and plug it back, twice. Each time kioskd reports it gone within 1 s. The ticket left
# in the printer is not printed again; a ticket torn off while the cable was out is recorded once, and the
# next one is printed within 2 s of the replug. Every ticket issued is cut exactly once.
fetch
held=$(field waitingTicket)
tickets
before=$N
unplug printer
gone1_ms=$(wait_until 5000 printer_is disconnected)
nap 3 # long enough for kioskd's retries to space out to 2 s: the replug's hotplug notice must cut that short
t "printer plugged back in at $(now_ms)"
plug printer "$(udc 0)"
ready1_ms=$(wait_until 10000 printer_is ready)
tickets
fetch
[ -n "$gone1_ms" ] && [ "$gone1_ms" -le 1000 ] && [ -n "$ready1_ms" ] && [ "$ready1_ms" -le 2000 ] &&
    [ "$N" = "$before" ] && [ "$(field waitingTicket)" = "$held" ]
check replug $? "gone after ${gone1_ms:-?} ms; ready ${ready1_ms:-?} ms after the replug; $held still waiting, \
$((N - before)) tickets printed again; hotplug notices: $(grep -c 'printer is plugged in again' /hil-out/kioskd.log)"

unplug printer
gone2_ms=$(wait_until 5000 printer_is disconnected)
ctl take # the customer tears the ticket off while the cable is out
plugged=$(now_ms)
t "printer plugged back in at $plugged"
plug printer "$(udc 0)"
wait_until 10000 has_tickets $((before + 1)) >/dev/null && next_ms=$((CUT_MS - plugged)) || next_ms=
nap 1 # time enough for a duplicate to show
tickets
fetch
taken=$(field lastTaken) waiting=$(field waitingTicket) today=
[[ $S =~ \"ticketsToday\":([0-9]+) ]] && today=${BASH_REMATCH[1]}
[ -n "$gone2_ms" ] && [ "$gone2_ms" -le 1000 ] && [ -n "$next_ms" ] && [ "$next_ms" -le 2000 ] &&
    [ "$taken" = "$held" ] && [ "$N" = $((before + 1)) ] && [ "$N" = "$today" ] && [ -n "$waiting" ] && [ "$waiting" != "$held" ]
check replug-taken $? "gone after ${gone2_ms:-?} ms; $held torn off meanwhile: taken $taken; next ticket $waiting \
printed ${next_ms:-?} ms after the replug; tickets cut $N, issued ${today:-?}"
[ -n "$next_ms" ] || diagnose

# 7. The voice through a real sound card (snd-aloop's Loopback: kioskd plays into device 0, arecord records
# device 1): ten customers take a ticket, each hears its number and, with room inside, its call. The host's
# test listens to the recording (pocketsphinx) and checks the calls against the codes taken.
wait_until 60000 voice_quiet >/dev/null # what the tear-offs above queued is said (or dropped) first
arecord -q -D hw:Loopback,1,0 -f S16_LE -r 22050 -c 1 -t raw /hil-out/voice.raw 2>/hil-out/arecord.log &
recorder=$!
nap 0.5
: >/hil-out/voice-codes.txt
voice_ok=0
for i in $(seq 1 10); do
    voice_count
    before=$V
    fetch
    echo "$(field waitingTicket)" >>/hil-out/voice-codes.txt
    ctl take
    wait_until 30000 voice_spoke $((before + 2)) >/dev/null || voice_ok=1
    # The next customer a second later: a pause the listener cuts at (0.4 s), so each call is heard alone and
    # not run together with the next number.
    nap 1
done
fetch
first_sample= underruns=
[[ $S =~ \"firstSampleMilliseconds\":([0-9]+) ]] && first_sample=${BASH_REMATCH[1]}
[[ $S =~ \"underruns\":([0-9]+) ]] && underruns=${BASH_REMATCH[1]}
nap 0.5
kill -INT "$recorder"
wait "$recorder"
recorded=$(($(stat -c %s /hil-out/voice.raw 2>/dev/null || echo 0) / 44100))
[ "$voice_ok" = 0 ] && [ "$recorded" -ge 20 ]
check voice $? "10 takes said; ${recorded} s recorded from the loopback card; last phrase's first sample after \
${first_sample:-?} ms; the card ran dry ${underruns:-?} times; codes $(tr '\n' ' ' </hil-out/voice-codes.txt)"

kill -TERM "$kioskd"
wait "$kioskd"
check kioskd-stops $? "SIGTERM: exit $?"
kill "$emulator" 2>/dev/null
t "checks done: $failures failed"
exit "$failures"
