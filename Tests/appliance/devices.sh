#!/bin/bash
# The appliance guest's first boot (run by clup-rig.service from /rig): installs the clup-kiosk package with
# apt, wires the entrance as a shop would (the USB printer gadget with the packaged escpos-emulator behind it,
# gpio-sim lines for the light, gate and exit beams, snd-aloop for the voice), configures kioskd, and lets the
# shipped unit start it. Then every device kind is checked under that unit, and the unit's exposure scored.
# Results in /rig/results.txt (`ok NAME detail` / `fail NAME detail`), the journal in /rig/journal.txt; powers
# the guest off at the end.
set -o pipefail
here=/rig
t() { echo "[appliance $(cut -d' ' -f1 /proc/uptime)] $*"; }
results=/rig/results.txt log=/rig/kioskd.log
# shellcheck source=../hil-vm/helpers.sh
source "$here/helpers.sh"
# shellcheck source=../hil-vm/gadgets.sh
source "$here/gadgets.sh"
# shellcheck source=../hil-vm/gpio.sh
source "$here/gpio.sh"
finish() {
    journalctl -b --no-pager -o short-monotonic >/rig/journal.txt 2>&1
    journalctl -b -u kioskd --no-pager -o cat >"$log" 2>&1
    echo "$failures" >/rig/status
    sync
    # At once, stopping nothing: Debian 12's kernel corrupts a list (an oops, and a shutdown that never ends) when
    # the printer emulator closes /dev/g_printer0 after its gadget was unbound and bound again (3d). An emulated
    # device's fault, not the kiosk's: everything is written back above.
    systemctl poweroff -ff
}
trap finish EXIT

# The entrance's GPIO lines are there before the package, as on a box whose adapter is fitted when it is
# installed: the package's rule must reach a chip that is already there (postinst triggers the gpio subsystem).
gpio_chip_up "/lib/modules/$(uname -r)/extra/gpio-sim-rig.ko" || t "gpio-sim did not come up"
udevadm settle --timeout=10
t "before the package: $SIM_CHIP $(stat -c '%G %a' "/dev/$SIM_CHIP" 2>&1)"

# 1. The package, by apt, as an installer would (its dependencies are on the image: nothing is downloaded).
# A device event between dpkg's unpack and its configure (apt runs them apart), as when something is plugged in
# during an install: udevd loads the rules that just landed (it looks at most every 3 s) and resolves their
# group names then, before postinst runs.
land='if [ -e /lib/udev/rules.d/70-clup-kiosk.rules ] && [ ! -e /run/rig-rules-landed ]; then
    touch /run/rig-rules-landed; sleep 3.5; udevadm trigger --subsystem-match=gpio --action=change; udevadm settle; fi'
apt-get install -y -qq --no-install-recommends -o DPkg::Options::="--post-invoke=$land" \
    /rig/clup-kiosk.deb >/rig/apt.log 2>&1
check apt-install $? "$(dpkg-query -W -f='${Package} ${Version}' clup-kiosk 2>&1)"
chip_is_kioskds() { [ "$(stat -c %G "/dev/$SIM_CHIP" 2>/dev/null)" = kioskd ]; }
for _ in $(seq 60); do chip_is_kioskds && break; nap 0.5; done
chip_is_kioskds
check gpio-rule $? "the chip there before the package: $(stat -c '%G %a' "/dev/$SIM_CHIP" 2>&1) after it"
# udevd names a group it could not resolve when it loaded the rules: the package's users must exist first.
unknown=$(journalctl -b -u systemd-udevd --no-pager 2>/dev/null | grep -c "group.*kioskd\|kioskd.*group")
check udev-group "$([ "$unknown" = 0 ]; echo $?)" "udevd's complaints about the kioskd group: $unknown"

# The printer, plugged in after the package. Under software emulation and a loaded host, udev may take longer
# than settle waits: the checks below time kioskd from its start, not the devices.
gadget_modules
make_printer_gadget printer "$(udc 0)"
udevadm settle --timeout=30
for _ in $(seq 120); do [ -c /dev/g_printer0 ] && break; nap 0.5; done
t "devices: $(ls /dev/clup/ 2>&1 | tr '\n' ' ') $SIM_CHIP $(stat -c '%G %a' "/dev/$SIM_CHIP" 2>&1) $(ls -l /dev/g_printer0 2>&1)"
mkdir -p /rig/tickets
# Not quiet: its log has each ticket's QR payload (`  qr …`), which the scanner types at the door.
emulator_up /rig/emulator.log escpos-emulator --profile citizen-ppu-700 --device /dev/g_printer0 \
    --out /rig/tickets

# kioskd configured by its conffile, started by the shipped unit.
cat >/etc/kioskd/kioskd.toml <<TOML
[store]
id = "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90"
name = "Appliance Market"
capacity = 100
[device]
id = "appliance-entrance"
[printer]
address = "usb://1d90:2060"
profile = "citizen-ppu-700"
[door]
enabled = true
scanner = "evdev:///dev/clup/scanner"
gpio_chip = "$SIM_CHIP"
green_line = "clup-green"
red_line = "clup-red"
gate_line = "clup-gate"
exit_beam = "clup-beam-in"
exit_beam_outside = "clup-beam-out"
[http]
port = 18080
[voice]
enabled = true
output = "alsa:plughw:Loopback,0,0"
TOML
systemctl enable --now kioskd.service
ready_ms=$(wait_until 120000 systemctl is-active -q kioskd)
started=$?
kioskd=$(systemctl show -p MainPID --value kioskd)
check unit-started $started "active after ${ready_ms:-?} ms, pid $kioskd, $(systemctl show -p NRestarts kioskd)"

# 2. Printing over the gadget, and a tear-off.
first_ms=$(wait_until 60000 has_tickets 1)
check usb-print $? "first ticket cut after ${first_ms:-?} ms"
tickets
before=$N
ctl take
next_ms=$(wait_until 10000 has_tickets $((before + 1)))
check tear-off $? "the next ticket cut ${next_ms:-?} ms after the tear-off"

# 2b. The scanner, missing when kioskd starts (a cable not plugged in yet): the door says so and waits; plugged
# in, it is opened by the package's rule and the unit's device policy, without a restart.
missing_ms=$(wait_until 20000 door_is disconnected)
missing=$?
make_hid_keyboard_gadget scanner "$(udc 1)"
found_ms=$(wait_until 60000 door_is ready)
found=$?
[ "$missing" = 0 ] && [ "$found" = 0 ] && [ "$(systemctl show -p MainPID --value kioskd)" = "$kioskd" ]
check scanner-missing $? "door disconnected ${missing_ms:-never} ms after the start; ready ${found_ms:-never} ms \
after the scanner was plugged in; $(readlink /dev/clup/scanner 2>&1) $(stat -L -c '%G %a' /dev/clup/scanner 2>&1)"

# 3. The light, gate and beams on the gpiochip: kioskd holds all five lines, and someone walking in through
# the exit's beams (outer, then inner) is seen (nobody is inside yet, so no exit can count).
lines_ms=$(wait_until 20000 lines_ready)
lines_ok=$?
held=$(gpioinfo "$SIM_CHIP" 2>&1 | grep -c '"kioskd"')
beam 4 blocked; nap 0.3; beam 3 blocked; nap 0.2; beam 4 clear; nap 0.2; beam 3 clear
walked_ms=$(wait_until 5000 number_is walkedInThroughExit 1)
[ "$lines_ok" = 0 ] && [ "$held" = 5 ] && [ -n "$walked_ms" ]
check gpio $? "lights and beams ready after ${lines_ms:-never} ms; lines held by \
kioskd: $held of 5; a walk-in through the exit seen after ${walked_ms:-never} ms"

# 3b. The torn-off ticket scanned at the door (the HID gadget types its QR as a scanner in keyboard mode): admitted,
# the green light on and the gate pulsed; then that shopper leaves through the exit's beams (inner, then outer).
qr_of() { awk -v n="$1" '/^ticket [0-9]+:/ { t++ } t == n && $1 == "qr" { print $2; exit }' /rig/emulator.log; }
payload=$(qr_of 1)
scan() { /rig/scanner-emulator /dev/hidg0 --key-delay-ms 4 --scan "$1"; }
scan "$payload"
admit_ms=$(wait_until 20000 has_field reason admit)
admitted=$?
green_ms=$(wait_until 5000 line_is 0 1)
gate_ms=$(wait_until 5000 line_is 2 1)
fetch
[ "$admitted" = 0 ] && [ -n "$green_ms" ] && [ -n "$gate_ms" ]
check hid-scan $? "typed ${#payload} characters; $(field message) after ${admit_ms:-never} ms; green \
${green_ms:-never} ms, gate ${gate_ms:-never} ms later"
number exits
exits=${N:-0}
beam 3 blocked; nap 0.3; beam 4 blocked
exit_ms=$(wait_until 5000 number_is exits $((exits + 1)))
counted=$?
nap 0.2; beam 3 clear; nap 0.2; beam 4 clear
number inside
[ "$counted" = 0 ] && [ "$N" = 0 ]
check exit-beam $? "an exit counted ${exit_ms:-never} ms after the outer beam's break; inside $N"

# 3c. The scanner unplugged and plugged back: the door says so, reopens it, reads again (the same ticket a second
# time is "already used"); kioskd is not restarted.
unplug scanner
gone_ms=$(wait_until 10000 door_is disconnected)
nap 3
plug scanner "$(udc 1)"
back_ms=$(wait_until 30000 door_is ready)
udevadm settle --timeout=10
scan "$payload"
used_ms=$(wait_until 20000 has_field reason already_used)
fetch
[ -n "$gone_ms" ] && [ -n "$back_ms" ] && [ -n "$used_ms" ] && [ "$(systemctl show -p MainPID --value kioskd)" = "$kioskd" ]
check scanner-replug $? "gone after ${gone_ms:-?} ms, ready ${back_ms:-?} ms after the replug, the next scan \
decided after ${used_ms:-?} ms ($(field reason)); pid $(systemctl show -p MainPID --value kioskd)"

# 3d. The printer's cable out for 30 s (its gadget unbound) and back: kioskd says so, and without a restart the
# ticket left in the printer is still there and the next tear-off prints.
tickets
before=$N
unplug printer
out_ms=$(wait_until 10000 printer_is disconnected)
nap 30
plug printer "$(udc 0)"
ready_ms=$(wait_until 60000 printer_is ready)
ctl take
next_ms=$(wait_until 20000 has_tickets $((before + 1)))
[ -n "$out_ms" ] && [ -n "$ready_ms" ] && [ -n "$next_ms" ] && [ "$(systemctl show -p MainPID --value kioskd)" = "$kioskd" ]
check printer-unplugged $? "disconnected after ${out_ms:-?} ms; ready ${ready_ms:-?} ms after 30 s out; the next \
tear-off printed after ${next_ms:-?} ms; pid $(systemctl show -p MainPID --value kioskd), $(systemctl show -p NRestarts kioskd)"

# 4. The voice on the sound card: a tear-off is said (the host listens to voice.raw).
wait_until 60000 voice_quiet >/dev/null
arecord -q -D hw:Loopback,1,0 -f S16_LE -r 22050 -c 1 -t raw /rig/voice.raw 2>/rig/arecord.log &
recorder=$!
nap 0.5
voice_count
spoken=${V:-0}
fetch
field waitingTicket >/rig/voice-codes.txt
ctl take
said_ms=$(wait_until 30000 voice_spoke $((spoken + 1)))
said=$?
nap 2
kill -INT "$recorder"; wait "$recorder"
recorded=$(($(stat -c %s /rig/voice.raw 2>/dev/null || echo 0) / 441))
fetch
[ "$said" = 0 ] && [ "$recorded" -ge 100 ]
check voice $? "said after ${said_ms:-?} ms; $((recorded / 100)).$((recorded % 100)) s recorded; voice $(field state)"

# 5. A hang: kioskd stopped (SIGSTOP) stops pinging; systemd's watchdog ends it and starts it again, and the next
# tear-off prints.
restarts() { systemctl show -p NRestarts --value kioskd; }
before_restarts=$(restarts)
kill -STOP "$kioskd"
restarted() { [ "$(restarts)" -gt "$before_restarts" ] && systemctl is-active -q kioskd; }
hung_ms=$(wait_until 120000 restarted)
hung=$?
wait_until 60000 printer_is ready >/dev/null
tickets
before=$N
ctl take
resumed_ms=$(wait_until 20000 has_tickets $((before + 1)))
resumed=$?
[ "$hung" = 0 ] && [ "$resumed" = 0 ]
check watchdog $? "stopped kioskd restarted by the watchdog after ${hung_ms:-never} ms (pid \
$(systemctl show -p MainPID --value kioskd), NRestarts=$(restarts)); the next tear-off printed after ${resumed_ms:-never} ms"

# The unit starts without a complaint from systemd about what the package installed, nor the Swift runtime's
# about a system call the unit's filter refuses.
complaints=$(journalctl -b --no-pager -o cat -u kioskd | grep -c -e 'already exists but the mode is different' -e 'Unknown key' -e 'Ignoring' -e 'Failed to set thread priority')
check unit-clean "$([ "$complaints" = 0 ]; echo $?)" "systemd's complaints about the unit at its start: $complaints"

# 6. The unit's exposure, as systemd scores it.
score=$(systemd-analyze security kioskd.service --no-pager 2>/dev/null | sed -n 's/.*Overall exposure level for kioskd.service: \([0-9.]*\).*/\1/p')
awk -v s="${score:-99}" 'BEGIN { exit !(s <= 2.0) }'
check security $? "systemd-analyze security kioskd: ${score:-?}"
systemd-analyze security kioskd.service --no-pager >/rig/security.txt 2>&1
kill "$emulator" 2>/dev/null
