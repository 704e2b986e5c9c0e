#!/usr/bin/env bash
# Installs the clup-kiosk .deb on a clean Debian 12 (a minbase debootstrap: no Swift, no build tools) and
# runs kioskd there as the unit would, printing to the packaged escpos-emulator. A chroot, not a booted
# system: systemd is not PID 1, so the unit's own command line is run as its user (the units themselves are
# checked by systemd-analyze in SystemdTests). Needs root and debootstrap.
#
#   Tests/Packaging/install-in-chroot.sh DEB CHROOT_CACHE
#
# CHROOT_CACHE keeps a pristine debootstrap between runs; each run installs into a fresh copy of it.
# Prints one "ok ..." line per check; exits non-zero at the first failure.
set -euo pipefail
deb=$(realpath "$1")
cache=$2
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ ! -x "$cache/pristine/usr/bin/apt-get" ]; then
    rm -rf "$cache/pristine"
    mkdir -p "$cache"
    debootstrap --variant=minbase bookworm "$cache/pristine" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
        { tail -20 "$cache/debootstrap.log"; exit 1; }
fi
root=$(mktemp -d "$cache/run.XXXXXX")
cp -a "$cache/pristine/." "$root/"
emulator=
kioskd=
stop() {
    kill "$1" 2>/dev/null || return 0
    for _ in $(seq 1 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    kill -9 "$1" 2>/dev/null || true
}
cleanup() {
    if [ -n "$kioskd" ]; then stop "$kioskd"; fi
    if [ -n "$emulator" ]; then stop "$emulator"; fi
    umount "$root/proc" 2>/dev/null || true
    umount "$root/dev/pts" 2>/dev/null || true
    umount "$root/dev" 2>/dev/null || true
    rm -rf "$root"
}
trap cleanup EXIT
mount --bind /dev "$root/dev"
mount --bind /dev/pts "$root/dev/pts"
mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
fail() { echo "FAIL: $*"; exit 1; }

if in_root sh -c 'command -v swift' >/dev/null; then fail "the chroot has Swift"; fi
cp "$deb" "$root/tmp/clup-kiosk.deb"
in_root apt-get update -qq >/dev/null
# As on any Debian 12 system: systemd there (its sysusers makes the users); the emulator's fonts.
in_root apt-get install -y -qq --no-install-recommends /tmp/clup-kiosk.deb systemd console-setup-linux >"$root/tmp/install.log" 2>&1 ||
    { tail -30 "$root/tmp/install.log"; fail "apt-get install"; }
echo "ok installed with its dependencies on a clean Debian 12: $(in_root dpkg-query -W -f='${Version}' clup-kiosk)"

for group in dialout input lp audio; do
    in_root id -nG kioskd | grep -qw "$group" || fail "kioskd user or its $group group missing: $(in_root id kioskd)"
done
in_root id clup-server >/dev/null || fail "clup-server user missing"
echo "ok system users: $(in_root id kioskd)"
for file in /usr/bin/kioskd /usr/bin/clup-server /lib/systemd/system/kioskd.service \
    /usr/lib/sysusers.d/kioskd.conf /lib/udev/rules.d/70-clup-kiosk.rules /etc/kioskd/kioskd.toml \
    /usr/share/clup-kiosk/profiles/citizen-ppu-700.toml; do
    [ -e "$root$file" ] || fail "$file not installed"
done
echo "ok files in place"
key="$root/etc/clup-server/storage-key"
[ "$(stat -c %a "$key")" = 600 ] && [ "$(tr -d '\n' <"$key" | wc -c)" = 64 ] ||
    fail "clup-server's storage key missing, not 32 bytes in hex, or readable by others: $(ls -l "$key" 2>&1)"
echo "ok clup-server's storage key made, root's alone"
in_root kioskd --help >/dev/null || fail "kioskd does not start"
in_root clup-server --help >/dev/null || fail "clup-server does not start"
echo "ok the binaries run without a Swift toolchain"

# A kiosk configured by hand, printing to the packaged emulator on loopback (the chroot shares the network).
# Below the ephemeral range (32768–60999), so no outgoing connection holds it.
printer_port=$((20000 + RANDOM % 10000))
http_port=$((printer_port + 1))
# chroot and env exec, so $! is the emulator itself (a shell function here would put a subshell between).
chroot "$root" env -i PATH=/usr/bin:/bin escpos-emulator --profile citizen-ppu-700 --tcp "$printer_port" \
    --out /tmp/tickets </dev/null >"$root/tmp/emulator.log" 2>&1 &
emulator=$!
for _ in $(seq 1 100); do
    grep -q '^ready' "$root/tmp/emulator.log" 2>/dev/null && break
    kill -0 "$emulator" 2>/dev/null || { cat "$root/tmp/emulator.log"; fail "the packaged escpos-emulator exited"; }
    sleep 0.2
done
grep -q '^ready' "$root/tmp/emulator.log" || { cat "$root/tmp/emulator.log"; fail "the packaged escpos-emulator is not ready"; }
[ "$(in_root stat -c '%a %U' /etc/kioskd/credential)" = "600 kioskd" ] ||
    fail "the credential file is not kioskd's alone: $(in_root stat -c '%a %U' /etc/kioskd/credential)"
echo "ok /etc/kioskd/credential: mode 600, owner kioskd"
echo "k1.chroot-credential" >"$root/etc/kioskd/credential"
cat >"$root/etc/kioskd/kioskd.toml" <<TOML
# edited by the installer
[store]
id = "6F1D5C2E-3B8A-4E61-9C7D-2A5B8E4F1C90"
name = "Chroot Market"
[printer]
address = "tcp://127.0.0.1:$printer_port"
profile = "citizen-ppu-700"
[sync]
# Nobody listens there: the kiosk prints while its sync retries.
server = "http://127.0.0.1:9"
credential_file = "/etc/kioskd/credential"
[http]
port = $http_port
TOML
# What systemd's StateDirectory= would make, then the unit's ExecStart as its User=.
install -d -m 0700 "$root/var/lib/kioskd"
in_root chown kioskd:kioskd /var/lib/kioskd
exec_start=$(sed -n 's/^ExecStart=//p' "$root/lib/systemd/system/kioskd.service")
# shellcheck disable=SC2086
chroot --userspec=kioskd:kioskd "$root" env -i PATH=/usr/bin:/bin $exec_start </dev/null >"$root/tmp/kioskd.log" 2>&1 &
kioskd=$!
for _ in $(seq 1 150); do
    if curl -fsS "http://127.0.0.1:$http_port/status" 2>/dev/null | grep -q '"state":"ready"'; then break; fi
    kill -0 "$kioskd" 2>/dev/null || { cat "$root/tmp/kioskd.log"; fail "kioskd exited"; }
    sleep 0.2
done
status=$(curl -fsS "http://127.0.0.1:$http_port/status") || { cat "$root/tmp/kioskd.log"; fail "no status page"; }
echo "$status" | grep -q '"waitingTicket":"A001"' ||
    { tail -5 "$root/tmp/kioskd.log"; cat "$root/tmp/emulator.log"; fail "no ticket waiting: $status"; }
[ -s "$root/tmp/tickets/ticket-0001.png" ] || fail "the emulator cut no ticket"
[ "$(in_root stat -c %U /var/lib/kioskd/kioskd.sqlite)" = kioskd ] || fail "the database is not the kioskd user's"
echo "ok kioskd runs as the kioskd user from the unit's command line: ticket A001 printed and waiting"
# A printer on TCP: libcups (opened only for a cups:// printer) and libcurl are not in the process.
if grep -qE 'libcups|libcurl' "/proc/$kioskd/maps"; then fail "kioskd with a TCP printer maps libcups or libcurl"; fi
echo "ok kioskd with a TCP printer loads neither libcups nor libcurl"
kill -TERM "$kioskd"
wait "$kioskd" || fail "kioskd did not stop cleanly on SIGTERM"
kioskd=
echo "ok SIGTERM stops kioskd with exit 0"

# A changed configuration survives reinstalling the package; removing keeps it, purging takes it.
in_root dpkg -i /tmp/clup-kiosk.deb >/dev/null </dev/null || fail "reinstall"
grep -q "edited by the installer" "$root/etc/kioskd/kioskd.toml" || fail "reinstall overwrote the changed configuration"
echo "ok a changed configuration is kept on reinstall"
in_root apt-get remove -y -qq clup-kiosk >/dev/null 2>&1 || fail "remove"
[ ! -e "$root/usr/bin/kioskd" ] || fail "remove left /usr/bin/kioskd"
[ -e "$root/etc/kioskd/kioskd.toml" ] || fail "remove took the configuration"
in_root dpkg --purge clup-kiosk >/dev/null 2>&1 || fail "purge"
[ ! -e "$root/etc/kioskd/kioskd.toml" ] && [ ! -e "$root/etc/kioskd/credential" ] && [ ! -e "$root/var/lib/kioskd" ] ||
    fail "purge left configuration, credential or state"
echo "ok remove keeps the configuration, purge removes it and the state"
