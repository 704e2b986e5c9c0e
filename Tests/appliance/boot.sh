#!/usr/bin/env bash
# Boots the appliance guest once from DISK (a copy of image.sh's disk.raw; what one boot leaves, the next
# finds) with SHARE as its /rig (the guest script, the package, and what the guest writes back), the console in
# SHARE/console-N.log. The disk is served with cache=none: what the guest has not flushed dies with qemu, as on
# a power cut. Software emulation (or KVM where it really works, as the USB gadget rig decides).
#
#   Tests/appliance/boot.sh IMAGE_DIR DISK SHARE TIMEOUT_SECONDS [QEMU_ARGS...]
#
# APPLIANCE_NETDEV adds options to the user-mode network (e.g. hostfwd=tcp:127.0.0.1:PORT-:18080). The host is
# 10.0.2.2 to the guest: a server or printer the host runs there outlives the guest's power cuts.
# Prints qemu's pid and returns at once; the caller waits for it, or kills it (a power cut).
set -euo pipefail
image=$1 disk=$2 share=$3 timeout=$4
shift 4
kvm=${HIL_KVM:-auto}
if [ "$kvm" = auto ]; then
    kvm=0
    [ -r /dev/kvm ] && [ -w /dev/kvm ] && grep -qE '^flags.* (vmx|svm)( |$)' /proc/cpuinfo && kvm=1
fi
if [ "$kvm" = 1 ]; then accel=(-enable-kvm -cpu host); else accel=(-accel tcg,thread=multi,tb-size=256 -cpu max); fi
boot=$(($(find "$share" -maxdepth 1 -name 'console-*.log' | wc -l) + 1))
# timeout(1) ends a guest that hangs; -no-reboot turns the guest's own reboot into an exit.
timeout -s KILL "$timeout" qemu-system-x86_64 -M q35 "${accel[@]}" -smp 2 -m 768 \
    -nodefaults -no-user-config -display none -no-reboot \
    -chardev "file,id=con,path=$share/console-$boot.log" -serial chardev:con \
    -kernel "$image/vmlinux" -initrd "$image/initramfs.cpio.gz" \
    -append "console=ttyS0 rdinit=/init panic=-1 loglevel=4 systemd.show_status=true" \
    -drive "file=$disk,if=virtio,format=raw,cache=none,aio=threads,discard=unmap" \
    -virtfs "local,path=$share,mount_tag=rig,security_model=none,multidevs=remap" \
    -netdev "user,id=net0${APPLIANCE_NETDEV:+,$APPLIANCE_NETDEV}" -device virtio-net-pci,netdev=net0 \
    -device virtio-rng-pci \
    "$@" </dev/null >"$share/qemu-$boot.log" 2>&1 &
echo $!
