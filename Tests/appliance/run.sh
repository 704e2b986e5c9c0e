#!/usr/bin/env bash
# Runs one appliance guest scenario: makes the image if needed (image.sh; cached in .build-hil), gives the
# guest a fresh copy of the disk and a share holding SCRIPT (as /rig/guest.sh), the guest helpers and DEB (as
# /rig/clup-kiosk.deb), boots it once and waits for it to power off. Leaves in OUT what the guest wrote back
# (results.txt, journal.txt, kioskd.log, ...), console-1.log and host.txt (wall time, image build time).
#
#   Tests/appliance/run.sh OUT SCRIPT DEB [TIMEOUT_SECONDS [FILE...]]   (FILEs are copied into the share too)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
script=$2 deb=$3 timeout=${4:-600}
started=$(date +%s.%N)
image=$("$here/image.sh" "$repo/.build-hil") || { echo "appliance image failed" >"$out/host.txt"; exit 1; }
cp "$script" "$out/guest.sh"
cp "$here/../hil-vm/helpers.sh" "$here/../hil-vm/gadgets.sh" "$here/../hil-vm/gpio.sh" "$out/"
cp "$deb" "$out/clup-kiosk.deb"
[ $# -gt 4 ] && cp "${@:5}" "$out/"
disk=$(mktemp "$repo/.build-hil/appliance-run.XXXXXX.raw")
trap 'rm -f "$disk"' EXIT
cp --sparse=always "$image/disk.raw" "$disk"
qemu=$("$here/boot.sh" "$image" "$disk" "$out" "$timeout")
# The guest writes its status last, after what it leaves here, and syncs (the share has no cache): its shutdown
# is nothing a test reads, so it gets 5 s, and one that hangs (Debian 12's kernel after the printer gadget's
# rebind, devices.sh) costs no more (2026-12-06: a 180 s run took its whole 600; 30 s of grace cost CI a minute).
while kill -0 "$qemu" 2>/dev/null; do
    if [ -f "$out/status" ]; then
        for _ in $(seq 5); do kill -0 "$qemu" 2>/dev/null && sleep 1; done
        stopped=0
        kill -0 "$qemu" 2>/dev/null && stopped=1
        kill "$qemu" 2>/dev/null
        while kill -0 "$qemu" 2>/dev/null; do sleep 1; done
        break
    fi
    sleep 1
done
wall=$(awk -v a="$(date +%s.%N)" -v b="$started" 'BEGIN { print a - b }')
printf 'wall_seconds %.1f\nimage_build_seconds %s\nstopped_after_status %s\n' "$wall" \
    "$(cat "$image/build-seconds" 2>/dev/null || echo ?)" "${stopped:-0}" >"$out/host.txt"
[ -f "$out/status" ] && exit "$(cat "$out/status")"
exit 1
