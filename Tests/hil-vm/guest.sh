#!/bin/bash
# Runs inside the rig's guest (as root, on the host's filesystem): loads dummy_hcd and the gadget functions,
# starts udevd with the project's rules, makes an ESC/POS printer gadget (the Citizen PPU-700 profile's
# VID:PID and IEEE 1284 device id) and a HID boot-keyboard scanner gadget, then runs the checks (checks.sh)
# with the project's build. Results go to /hil-out/results.txt.
set -uo pipefail
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        hil.repo=*) repo=${arg#hil.repo=} ;;
        hil.modules=*) modules=${arg#hil.modules=} ;;
    esac
done
here=$repo/Tests/hil-vm
t() { echo "[guest $(cut -d' ' -f1 /proc/uptime)] $*"; }
# shellcheck source=gadgets.sh
source "$here/gadgets.sh"
# shellcheck source=gpio.sh
source "$here/gpio.sh"

# Loopback: the emulator's control port and kioskd's status page are on 127.0.0.1.
ip link set lo up
t "loading modules"
gadget_modules
# udevd with the project's rules: usblp binds the printer first (kioskd must detach it), /dev/clup/* appear.
install -m 0644 "$repo/udev/70-clup-kiosk.rules" /etc/udev/rules.d/70-clup-kiosk.rules
systemd-sysusers "$repo/systemd/kioskd.sysusers"
/lib/systemd/systemd-udevd --daemon
udevadm trigger --action=add >/dev/null 2>&1
make_printer_gadget printer "$(udc 0)"
make_hid_keyboard_gadget scanner "$(udc 1)"
udevadm settle --timeout=30
t "gadgets up: $(ls /sys/class/udc | tr '\n' ' ')"
gpio_chip_up "${modules%/root/lib/modules}/gpio-sim/gpio-sim-rig.ko" || t "gpio-sim did not come up"
udevadm settle --timeout=10
t "gpio-sim: $SIM_CHIP at $SIM_LINES ($(stat -c '%G %a' "/dev/$SIM_CHIP" 2>/dev/null))"

bin=$repo/.build/debug
[ -x "$bin/kioskd" ] || { t "no build at $bin: run swift build first"; exit 1; }
# shellcheck source=checks.sh
source "$here/checks.sh"
