#!/usr/bin/env bash
# Runs the USB gadget rig: boots Debian's kernel in qemu over the host's filesystem (software emulation, or
# KVM where it really works), runs guest.sh there with the project's test build, and
# leaves in OUT: console.log, guest.log, status (the guest script's exit status), results.txt, and
# host.txt (wall time, qemu's peak memory). A guest that hangs is killed by the timeout.
#
#   Tests/hil-vm/run.sh OUT [TIMEOUT_SECONDS]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=$(mkdir -p "$1" && cd "$1" && pwd)
timeout=${2:-280}
cache=$repo/.build-hil
started=$(date +%s.%N)
version=$("$here/setup.sh" "$cache") || { echo "rig setup failed" >"$out/host.txt"; exit 1; }
kernel=$cache/kernel/$version
rm -f "$out/status" "$out/results.txt" "$out/guest.log"
# KVM where it really works: /dev/kvm usable and a processor with hardware virtualisation (some hosts have a
# /dev/kvm that cannot run Debian's kernel). HIL_KVM=1 forces KVM, HIL_KVM=0 software emulation.
kvm=${HIL_KVM:-auto}
if [ "$kvm" = auto ]; then
    kvm=0
    [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qE '^flags.* (vmx|svm)( |$)' /proc/cpuinfo && kvm=1
fi
if [ "$kvm" = 1 ]; then accel=(-enable-kvm -cpu host); else accel=(-accel tcg,thread=multi,tb-size=256 -cpu max); fi
qemu-system-x86_64 -M q35 "${accel[@]}" -smp 2 -m 512 \
    -nodefaults -no-user-config -display none -no-reboot \
    -chardev "file,id=con,path=$out/console.log" -serial chardev:con \
    -kernel "$kernel/vmlinux" -initrd "$kernel/initramfs.cpio.gz" \
    -append "console=ttyS0 rdinit=/init panic=-1 loglevel=4 hil.stage2=$here/stage2.sh hil.script=${HIL_SCRIPT:-$here/guest.sh} hil.modules=$kernel/root/lib/modules hil.timeout=$((timeout - 15)) hil.repo=$repo" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$out,mount_tag=hilout,security_model=none,multidevs=remap" \
    </dev/null >"$out/qemu.log" 2>&1 &
qemu=$!
peak=0
deadline=$(($(date +%s) + timeout))
while kill -0 "$qemu" 2>/dev/null; do
    rss=$(awk '/VmHWM/ { print $2 }' "/proc/$qemu/status" 2>/dev/null || echo 0)
    [ "${rss:-0}" -gt "$peak" ] && peak=$rss
    if [ "$(date +%s)" -ge "$deadline" ]; then
        echo "rig timeout after ${timeout}s: killing qemu" >>"$out/console.log"
        kill -9 "$qemu"
    fi
    sleep 0.5
done
wait "$qemu"
wall=$(awk -v a="$(date +%s.%N)" -v b="$started" 'BEGIN { print a - b }')
accel_name=$([ "$kvm" = 1 ] && echo kvm || echo tcg)
printf 'wall_seconds %.1f\nqemu_peak_mib %d\nkernel %s\naccel %s\n' "$wall" $((peak / 1024)) "$version" "$accel_name" \
    >"$out/host.txt"
[ -f "$out/status" ] && exit "$(cat "$out/status")"
exit 1
