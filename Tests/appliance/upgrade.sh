#!/bin/bash
# The appliance guest upgraded in place (run by clup-rig.service from /rig): the clup-kiosk package installed by
# apt and kioskd started by its unit, printing to the packaged escpos-emulator on TCP; an installer's edit of
# /etc/kioskd/kioskd.toml; then, with a customer tearing a ticket every 0.5 s, `apt-get install` of the same
# tree packaged with a higher version (/rig/clup-kiosk-next.deb). Checked: kioskd restarted once by the
# upgrade, the edit kept (conffile), no code printed twice and the day's numbering going on, the longest time
# no ticket could be taken; then `apt-get purge` removes what the package made. Results in /rig/results.txt.
set -o pipefail
here=/rig
t() { echo "[upgrade $(cut -d' ' -f1 /proc/uptime)] $*"; }
results=/rig/results.txt log=/rig/kioskd.log
# shellcheck source=../hil-vm/helpers.sh
source "$here/helpers.sh"
finish() {
    journalctl -b --no-pager -o short-monotonic >/rig/journal.txt 2>&1
    echo "$failures" >/rig/status
    sync
    systemctl poweroff --no-block
}
trap finish EXIT

apt-get install -y -qq --no-install-recommends /rig/clup-kiosk.deb >/rig/apt.log 2>&1
check apt-install $? "$(dpkg-query -W -f='${Version}' clup-kiosk 2>&1)"
mkdir -p /rig/tickets
# Without --quiet: each ticket's text in emulator.log, where the host reads the codes printed.
emulator_up /rig/emulator.log escpos-emulator --profile custom-vkp80iii --tcp 9100 --out /rig/tickets
cat >/etc/kioskd/kioskd.toml <<TOML
[store]
id = "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90"
name = "Upgrade Market"
capacity = 500
[device]
id = "upgrade-entrance"
[printer]
address = "tcp://127.0.0.1:9100"
profile = "custom-vkp80iii"
[http]
port = 18080
TOML
echo "# edited by the installer: kept across upgrades" >>/etc/kioskd/kioskd.toml
systemctl enable --now kioskd.service
wait_until 120000 has_tickets 1 >/dev/null
check started $? "kioskd $(kioskd --version 2>&1) printing"

# Flash wear: sectors the guest wrote to its disk (/sys/block/vda/stat, 512 bytes each) a ticket — over 40
# tear-offs on the new database (its write-ahead log grows to its full size then: each commit also changes the
# file's size, a journal commit of ext4's), then over 80 in a steady stream (the log reused, checkpoints
# included) — and in a minute idle, with kioskd's journal lines a ticket at the default log level. Goal: at
# most 64 KiB a ticket in the steady stream.
written() { local fields; read -ra fields </sys/block/vda/stat; echo $((fields[6] * 512)); }
journal_lines() { journalctl -b -u kioskd -o cat --no-pager | wc -l; }
# Bytes a ticket over COUNT tear-offs, in PER (and the tickets made in MADE).
stream() {
    local count=$1 first from
    tickets
    first=$N
    sync
    from=$(written)
    for _ in $(seq "$count"); do ctl take; nap 0.5; done
    wait_until 10000 has_tickets $((first + count * 3 / 4)) >/dev/null
    nap 1
    tickets
    sync
    MADE=$((N - first))
    PER=$((($(written) - from) / (MADE > 0 ? MADE : 1)))
}
lines_from=$(journal_lines)
stream 40
fresh_per_ticket=$PER fresh_made=$MADE
stream 80
per_ticket=$PER made=$MADE
lines=$(($(journal_lines) - lines_from))
# kioskd's own share of the idle minute: the bytes it sent to storage (/proc/PID/io), 0 when it writes nothing.
kioskd_writes() { awk '/^write_bytes/ { print $2 }' "/proc/$(systemctl show -p MainPID --value kioskd)/io"; }
sync
idle_from=$(written) kioskd_from=$(kioskd_writes)
nap 60
sync
idle_bytes=$(($(written) - idle_from)) kioskd_idle=$(($(kioskd_writes) - kioskd_from))
echo "idle_bytes_60s $idle_bytes kioskd_idle_bytes_60s $kioskd_idle bytes_per_ticket $per_ticket tickets $made" \
    "fresh_bytes_per_ticket $fresh_per_ticket fresh_tickets $fresh_made journal_lines $lines" >/rig/flash.txt
[ "$made" -ge 60 ] && [ "$per_ticket" -gt 0 ] && [ "$per_ticket" -le 65536 ] && [ "$kioskd_idle" = 0 ]
check flash-wear $? "$per_ticket bytes written a ticket over $made tickets in a steady stream (goal 65536), \
$fresh_per_ticket over the first $fresh_made on the new database; $idle_bytes in a minute idle, $kioskd_idle of them \
kioskd's; $lines journal lines for $((made + fresh_made)) tickets"
# One tear-off after the idle minute: the emulator's last cut is then a fresh one, not the minute-old cut the
# upgrade's gap between cuts would otherwise start from.
tickets
ctl take
wait_until 10000 has_tickets $((N + 1)) >/dev/null

# A customer every 0.5 s, before, during and after the upgrade; after each tear-off the emulator's count and
# its last cut's time (wall clock, ms) go to /rig/cuts.txt, where the host finds the longest gap.
customers() {
    while [ ! -f /tmp/stop-customers ]; do
        ctl take
        tickets && echo "$(now_ms) $N $CUT_MS" >>/rig/cuts.txt
        nap 0.5
    done
}
customers &
walker=$!
nap 5
first_pid=$(systemctl show -p MainPID --value kioskd)
apt_started=$(now_ms)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /rig/clup-kiosk-next.deb \
    >/rig/apt-next.log 2>&1
upgraded=$?
apt_ms=$(($(now_ms) - apt_started))
echo "$apt_started $((apt_started + apt_ms))" >/rig/apt-window.txt
wait_until 60000 printer_is ready >/dev/null
nap 8
touch /tmp/stop-customers
wait "$walker"
check upgrade-installed "$upgraded" "$(dpkg-query -W -f='${Version}' clup-kiosk) in ${apt_ms} ms"

# Restarted once by the upgrade, and kioskd says the new version.
starts=$(journalctl -b --no-pager -o cat -u kioskd | grep -c 'msg="kioskd starting"')
second_pid=$(systemctl show -p MainPID --value kioskd)
[ "$starts" = 2 ] && [ "$second_pid" != "$first_pid" ] && [ "$second_pid" != 0 ]
check restarted-once $? "kioskd started $starts times (pid $first_pid, then $second_pid); says $(kioskd --version 2>&1)"
grep -q '^# edited by the installer' /etc/kioskd/kioskd.toml
check conffile-kept $? "the installer's edit $(grep -c '^# edited by the installer' /etc/kioskd/kioskd.toml) time(s) in kioskd.toml"

# The paper: every cut's code once, and the longest gap between cuts while customers kept coming.
ls /rig/tickets >/rig/ticket-files.txt
ctl tickets
t "tickets: $R"
fetch
echo "$S" >/rig/status-after.json
check status-after $? "ticketsToday $(grep -o '"ticketsToday":[0-9]*' <<<"$S")"
kill "$emulator" 2>/dev/null

# Purge: the package's users' state and configuration go.
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq clup-kiosk >/rig/apt-purge.log 2>&1
purged=$?
left=$(ls -d /var/lib/kioskd /etc/kioskd /usr/bin/kioskd /lib/systemd/system/kioskd.service 2>/dev/null | tr '\n' ' ')
[ "$purged" = 0 ] && [ -z "$left" ]
check purge $? "left after purge: ${left:-nothing}"
