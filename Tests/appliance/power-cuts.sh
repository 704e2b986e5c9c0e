#!/bin/bash
# The appliance guest under power cuts (run by clup-rig.service from /rig at every boot; the host kills the
# guest without a shutdown and boots it again from the same disk). The first boot installs the clup-kiosk
# package with apt and configures kioskd as the host wrote it (a printer and clup-server on the host, a serial
# scanner on ttyS1) and starts it by the shipped unit. Every later boot checks what the cut left: kioskd's
# database must pass `PRAGMA integrity_check` (/rig/integrity-BOOT.txt).
#
# The boot the host marks final (/rig/final) is a board without a battery-backed clock: the host boots it with
# its clock at 1970 (qemu -rtc base=) and no time server, so the clock starts at systemd's build date. Every boot
# before it forgets the time systemd-timesyncd saved (/var/lib/systemd/timesync/clock), as a box that never
# synchronized has none. The final boot writes what the clock read (/rig/boot-clock.txt), sets it when the host
# writes the time (/rig/set-clock, seconds since 1970, as NTP would), waits for the host's "done" and copies the
# database out as /rig/final.sqlite.
set -o pipefail
boot=$(cat /rig/boot 2>/dev/null || echo 0)
t() { echo "[power-cuts boot $boot $(cut -d' ' -f1 /proc/uptime)] $*"; }
db=/var/lib/kioskd/kioskd.sqlite
# kioskd's journal of this boot, kept fresh in the share (a cut ends the boot at any moment).
(while :; do journalctl -b --no-pager -o short-monotonic -u kioskd >"/rig/journal-$boot.part" 2>&1 &&
    mv "/rig/journal-$boot.part" "/rig/journal-$boot.txt"; sleep 3; done) &

if [ -f /rig/final ]; then
    date -u +%s >/rig/boot-clock.txt
    t "the clock reads $(date -u '+%F %T') UTC"
else
    # timesyncd saves the time every minute (SaveIntervalSec=) and when it stops: stopped first, or the file
    # comes back before the cut and the final boot starts at this boot's time.
    systemctl stop systemd-timesyncd.service
    rm -f /var/lib/systemd/timesync/clock
fi

if ! dpkg-query -W -f='${Status}' clup-kiosk 2>/dev/null | grep -q 'install ok installed'; then
    apt-get install -y -qq --no-install-recommends /rig/clup-kiosk.deb >/rig/apt.log 2>&1 ||
        { t "apt failed"; echo "apt-install failed" >/rig/install.txt; exit 1; }
    install -m 0644 /rig/kioskd.toml /etc/kioskd/kioskd.toml
    cat /rig/credential >/etc/kioskd/credential # the package's file: kioskd's, mode 600
    systemctl enable --now kioskd.service
    sync # what an installer's session leaves on the card before the first cut
    echo "installed $(dpkg-query -W -f='${Version}' clup-kiosk)" >/rig/install.txt
else
    # kioskd opened the database at boot (the unit starts it before this hook): a read transaction sees a
    # consistent file, whatever kioskd writes meanwhile.
    for _ in $(seq 100); do [ -f "$db" ] && break; sleep 0.2; done
    sqlite3 -readonly "$db" 'PRAGMA integrity_check' >"/rig/integrity-$boot.txt" 2>&1 ||
        echo "sqlite3 failed: $?" >>"/rig/integrity-$boot.txt"
    t "integrity: $(head -c 200 "/rig/integrity-$boot.txt")"
fi

[ -f /rig/final ] || exit 0
until [ -f /rig/set-clock ]; do sleep 0.5; done
date -u -s "@$(cat /rig/set-clock)" >/dev/null && t "clock set to $(date -u '+%F %T') UTC"
until [ -f /rig/done ]; do sleep 0.5; done
sqlite3 -readonly "$db" ".backup /rig/final.sqlite" 2>/rig/backup.log
journalctl --no-pager -o short-monotonic -u kioskd -u systemd-timesyncd >/rig/journal-final.txt 2>&1
sync
systemctl poweroff --no-block
