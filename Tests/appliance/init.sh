#!/bin/busybox sh
# The appliance guest's initramfs (PID 1 until systemd): loads the modules that reach the virtio disk, mounts
# its ext4 root read-write (a power cut leaves a journal to replay: the kernel replays it at this mount) and
# hands over to systemd.
export PATH=/bin
busybox mount -t proc proc /proc
busybox mount -t sysfs sysfs /sys
busybox mount -t devtmpfs devtmpfs /dev
log() { echo "[initramfs $(busybox cut -d' ' -f1 /proc/uptime)] $*" >/dev/console; }
while read -r module; do busybox insmod "/modules/$module" 2>/dev/null || true; done </modules/load.list
for _ in 1 2 3 4 5 6 7 8 9 10; do [ -b /dev/vda ] && break; busybox sleep 0.2; done
if ! busybox mount -t ext4 -o rw /dev/vda /newroot; then
    log "cannot mount /dev/vda"; echo o >/proc/sysrq-trigger; busybox sleep 5
fi
busybox umount /proc /sys
busybox mount --move /dev /newroot/dev 2>/dev/null || busybox umount /dev
exec busybox switch_root /newroot /lib/systemd/systemd
