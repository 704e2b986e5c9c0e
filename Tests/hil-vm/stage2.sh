#!/bin/bash
# The rig guest's second stage: PID 1 on the host-backed root. Mounts what a system has, arms a watchdog
# that powers the guest off whatever happens, runs the guest script (hil.script=) with its output on the
# console and in /hil-out/guest.log, writes its exit status to /hil-out/status and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8
exec </dev/console >/dev/console 2>&1
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs -o mode=1777 shm /dev/shm
mount -t tmpfs -o mode=0755 run /run
ln -sf /proc/self/fd /dev/fd
hostname hil-guest
timeout=240
for arg in $(cat /proc/cmdline); do
    case "$arg" in
        hil.timeout=*) timeout=${arg#hil.timeout=} ;;
        hil.script=*) script=${arg#hil.script=} ;;
        hil.repo=*) repo=${arg#hil.repo=} ;;
    esac
done
# A clean /tmp, unless the project itself is under the host's /tmp (a clone in CI): then /tmp stays the
# overlay's, writable as well, and the checks work in a folder of their own.
case "${repo:-/}/" in /tmp/*) ;; *) mount -t tmpfs -o mode=1777 tmp /tmp ;; esac
(sleep "$timeout"; echo "GUEST WATCHDOG: ${timeout}s passed, powering off"; echo o >/proc/sysrq-trigger) &
echo "[stage2 $(cut -d' ' -f1 /proc/uptime)] running $script"
bash "$script" 2>&1 | tee /hil-out/guest.log
status=${PIPESTATUS[0]}
echo "$status" >/hil-out/status
echo "[stage2 $(cut -d' ' -f1 /proc/uptime)] guest script exit status $status"
sync
echo o >/proc/sysrq-trigger
sleep 10
