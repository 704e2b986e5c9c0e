#!/bin/busybox sh
# The rig guest's first stage (PID 1 in the initramfs): mounts the host's / (virtio 9p, read-only) under a
# tmpfs overlay as the root, points /lib/modules at the unpacked kernel's modules, mounts the results share,
# and hands over to stage 2 (hil.stage2=, a path on the host's filesystem).
export PATH=/bin
busybox mount -t proc proc /proc
busybox mount -t sysfs sysfs /sys
busybox mount -t devtmpfs devtmpfs /dev
log() { echo "[stage1 $(busybox cut -d' ' -f1 /proc/uptime)] $*" >/dev/console; }
for arg in $(busybox cat /proc/cmdline); do
    case "$arg" in
        hil.stage2=*) stage2=${arg#hil.stage2=} ;;
        hil.modules=*) modules=${arg#hil.modules=} ;;
    esac
done
while read -r module; do busybox insmod "/modules/$module" || log "insmod $module failed"; done </modules/load.list
if ! busybox mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144,cache=loose hostroot /lower; then
    log "cannot mount the host's root"; echo o >/proc/sysrq-trigger; busybox sleep 5
fi
busybox mount -t tmpfs -o mode=0755 rootrw /rw
busybox mkdir -p /rw/upper /rw/work
busybox mount -t overlay -o lowerdir=/lower,upperdir=/rw/upper,workdir=/rw/work hilroot /newroot
busybox mkdir -p /newroot/usr/lib/modules /newroot/hil-out
# The host may have a folder of that name (its linux-headers package's build link): the link replaces it.
busybox rm -rf "/newroot/usr/lib/modules/$(busybox uname -r)"
busybox ln -sfn "$modules/$(busybox uname -r)" "/newroot/usr/lib/modules/$(busybox uname -r)"
busybox mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none hilout /newroot/hil-out ||
    log "cannot mount the results share"
log "root ready, stage 2: $stage2"
busybox mount --move /proc /newroot/proc
busybox mount --move /sys /newroot/sys
busybox mount --move /dev /newroot/dev
exec busybox switch_root /newroot "$stage2"
