#!/usr/bin/env bash
# Makes the appliance guest's disk (idempotent): a Debian 12 root from debootstrap (minbase, systemd as init,
# udev, systemd-timesyncd, systemd-networkd for the one virtio NIC) with what the clup-kiosk package depends on
# and recommends already there — so that apt, in the booted guest, installs the package as an installer's apt
# would, without reaching a mirror — the rig kernel's modules (Tests/hil-vm/setup.sh: Debian's kernel, plus the
# gpio-sim module it builds), a unit that runs the test's guest script from a 9p share, and an initramfs that
# mounts the disk. Everything is kept in CACHE/appliance; a run boots a copy of disk.raw.
#
#   Tests/appliance/image.sh CACHE        prints the image folder
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=$(mkdir -p "$1" && cd "$1" && pwd)
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
version=$("$here/../hil-vm/setup.sh" "$cache")
kernel=$cache/kernel/$version
out=$cache/appliance
mkdir -p "$out"
missing=$(for p in debootstrap e2fsprogs; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"; done)
if [ -n "$missing" ]; then
    echo "installing Debian packages: $missing" >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >&2
fi

# The disk: made once; remade when this script or the guest's units change.
if [ ! -f "$out/disk.raw" ] || [ "$0" -nt "$out/disk.raw" ] || [ "$here/rig.service" -nt "$out/disk.raw" ]; then
    started=$(date +%s)
    root=$out/root
    rm -rf "$root" "$out/disk.raw"
    # What the package depends on and recommends, and the tools the checks use inside (sqlite3, gpiod,
    # alsa-utils, curl).
    packages=systemd-sysv,udev,systemd-timesyncd,kmod,iproute2,curl,ca-certificates,sqlite3,gpiod,alsa-utils
    packages=$packages,libqrencode4,libsqlite3-0,libusb-1.0-0,zlib1g,libcups2,adduser,tzdata,console-setup-linux
    packages=$packages,libespeak-ng1,libasound2,libgpiod2,libcurl4
    debootstrap --variant=minbase --include="$packages" bookworm "$root" "$mirror" >"$out/debootstrap.log" 2>&1 ||
        { tail -20 "$out/debootstrap.log" >&2; exit 1; }
    echo clup-kiosk-guest >"$root/etc/hostname"
    printf '/dev/vda / ext4 defaults,errors=remount-ro 0 1\n' >"$root/etc/fstab"
    printf 'rig /rig 9p trans=virtio,version=9p2000.L,msize=262144,cache=none,nofail,x-systemd.device-timeout=5s 0 0\n' \
        >>"$root/etc/fstab"
    mkdir -p "$root/rig"
    # The one NIC by DHCP (qemu's user network: the host is 10.0.2.2).
    printf '[Match]\nName=en*\n\n[Network]\nDHCP=yes\n' >"$root/etc/systemd/network/50-rig.network"
    chroot "$root" systemctl enable systemd-networkd.service >/dev/null 2>&1
    # The guest's clock is what the test sets (-rtc base=): no time server answers there, by design.
    chroot "$root" systemctl enable systemd-timesyncd.service >/dev/null 2>&1 || true
    install -m 0644 "$here/rig.service" "$root/etc/systemd/system/clup-rig.service"
    chroot "$root" systemctl enable clup-rig.service >/dev/null 2>&1
    # No login prompt on the console (the test reads it as a log).
    chroot "$root" systemctl mask serial-getty@ttyS0.service getty@tty1.service >/dev/null 2>&1
    # The rig kernel's modules, gpio-sim among them.
    mkdir -p "$root/lib/modules"
    cp -a "$kernel/root/lib/modules/$version" "$root/lib/modules/"
    install -D -m 0644 "$kernel/gpio-sim/gpio-sim-rig.ko" "$root/lib/modules/$version/extra/gpio-sim-rig.ko"
    depmod -b "$root" "$version"
    rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*_Packages
    # Inode tables and the journal zeroed now, not by the kernel's ext4lazyinit in the booted guest: its
    # background writes (tens of KiB a minute, boot after boot) were counted as the kiosk's idle flash wear.
    mkfs.ext4 -q -F -L clup-root -E lazy_itable_init=0,lazy_journal_init=0 -d "$root" "$out/disk.part" 3G >/dev/null
    mv "$out/disk.part" "$out/disk.raw"
    rm -rf "$root"
    echo "$(($(date +%s) - started))" >"$out/build-seconds"
fi

# The initramfs: busybox and the modules that reach the virtio disk's ext4 (in dependency order).
initramfs=$out/initramfs.cpio.gz
if [ ! -f "$initramfs" ] || [ "$here/init.sh" -nt "$initramfs" ]; then
    # shellcheck source=../hil-vm/initramfs.sh
    source "$here/../hil-vm/initramfs.sh"
    make_initramfs "$kernel" "$version" "$here/init.sh" "$initramfs" "virtio_pci virtio_blk ext4" newroot
fi
ln -sfn "$kernel/vmlinux" "$out/vmlinux"
echo "$out"
