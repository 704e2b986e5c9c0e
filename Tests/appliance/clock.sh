#!/bin/bash
# The appliance guest's clock (run by clup-rig.service from /rig at every boot). The first boot installs the
# clup-kiosk package with apt and configures kioskd as the host wrote it (a printer and clup-server on the
# host, a serial scanner on ttyS1), as power-cuts.sh does, and forgets the time systemd-timesyncd saved
# (/var/lib/systemd/timesync/clock), as a box that never synchronized has none: the host then cuts the power and
# boots the guest with its board clock at 1970 (qemu -rtc base=) and no time server, so the clock starts at
# systemd's build date. That boot writes what the clock read (/rig/boot-clock.txt), sets it when the host
# writes the time (/rig/set-clock, seconds since 1970, as NTP would), and on the host's "done" copies kioskd's
# journal out and powers off.
set -o pipefail
boot=$(cat /rig/boot 2>/dev/null || echo 0)
t() { echo "[clock boot $boot $(cut -d' ' -f1 /proc/uptime)] $*"; }
(while :; do journalctl -b --no-pager -o short-monotonic -u kioskd -u systemd-timesyncd >"/rig/journal-$boot.part" 2>&1 &&
    mv "/rig/journal-$boot.part" "/rig/journal-$boot.txt"; sleep 3; done) &

if ! dpkg-query -W -f='${Status}' clup-kiosk 2>/dev/null | grep -q 'install ok installed'; then
    apt-get install -y -qq --no-install-recommends /rig/clup-kiosk.deb >/rig/apt.log 2>&1 ||
        { t "apt failed"; echo "apt-install failed" >/rig/install.txt; exit 1; }
    install -m 0644 /rig/kioskd.toml /etc/kioskd/kioskd.toml
    cat /rig/credential >/etc/kioskd/credential
    systemctl enable --now kioskd.service
    # timesyncd saves the time every minute (SaveIntervalSec=) and when it stops: stopped first, or the file
    # comes back while the host waits for the first tickets and boot 2 starts at this boot's time.
    systemctl stop systemd-timesyncd.service
    rm -f /var/lib/systemd/timesync/clock
    sync
    echo "installed $(dpkg-query -W -f='${Version}' clup-kiosk)" >/rig/install.txt
    exit 0
fi

date -u +%s >/rig/boot-clock.txt
t "the clock reads $(date -u '+%F %T') UTC"
until [ -f /rig/set-clock ]; do sleep 0.5; done
date -u -s "@$(cat /rig/set-clock)" >/dev/null && t "clock set to $(date -u '+%F %T') UTC"
echo set >/rig/clock-set.txt
until [ -f /rig/done ]; do sleep 0.5; done
journalctl -b --no-pager -o short-monotonic -u kioskd -u systemd-timesyncd >/rig/journal-final.txt 2>&1
sync
systemctl poweroff --no-block
