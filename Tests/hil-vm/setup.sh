#!/usr/bin/env bash
# Prepares the USB gadget rig (idempotent), from Debian packages only: qemu, a static busybox, and Debian's
# current kernel package fetched with `apt-get download` and unpacked (modules.dep made with depmod, the
# uncompressed vmlinux taken out of vmlinuz: it boots much faster under software emulation), plus a small
# initramfs that mounts the host's / as the guest's root. Everything is cached in CACHE.
#
# Debian's kernel leaves out gpio-sim (CONFIG_GPIO_SIM and the IRQ_SIM it needs are not set), so the rig builds
# that driver itself, as a module for that very kernel: gpio-sim.c and kernel/irq/irq_sim.c from Debian's
# linux-source package of the same version, against its linux-headers package (one call changed: irq_sim
# reaches handle_simple_irq through irq_to_desc, which modules may not call; generic_handle_irq does the same).
#
#   Tests/hil-vm/setup.sh CACHE        prints the kernel version it prepared
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=$(mkdir -p "$1" && cd "$1" && pwd)
sudo=$([ "$(id -u)" = 0 ] || echo sudo)

missing=$(for p in qemu-system-x86 busybox-static kmod udev xz-utils cpio gpiod; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || echo "$p"; done)
if [ -n "$missing" ]; then
    echo "installing Debian packages: $missing" >&2
    $sudo apt-get update -qq >&2
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >&2
fi

package=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ { print $2; exit }')
[ -n "$package" ] || { echo "no linux-image package behind linux-image-amd64 (apt-get update?)" >&2; exit 1; }
version=${package#linux-image-}
kernel=$cache/kernel/$version
if [ ! -f "$kernel/vmlinux" ]; then
    rm -rf "$kernel" && mkdir -p "$kernel/download"
    # (As root apt would drop to its _apt user, which cannot write into the cache: it would only warn.)
    (cd "$kernel/download" && apt-get download $([ "$(id -u)" = 0 ] && echo -o APT::Sandbox::User=root) "$package" >&2)
    dpkg -x "$kernel"/download/*.deb "$kernel/root"
    rm -rf "$kernel/download"
    depmod -b "$kernel/root" "$version"
    # vmlinuz is a bzImage around an xz stream: the ELF inside boots through qemu's PVH entry point.
    offset=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$kernel/root/boot/vmlinuz-$version" | head -1 | cut -d: -f1)
    tail -c +$((offset + 1)) "$kernel/root/boot/vmlinuz-$version" | xz -dc 2>/dev/null >"$kernel/vmlinux.part" || true
    [ "$(head -c 4 "$kernel/vmlinux.part" | od -An -tx1 | tr -d ' ')" = 7f454c46 ] ||
        { echo "could not take the ELF kernel out of vmlinuz-$version" >&2; exit 1; }
    mv "$kernel/vmlinux.part" "$kernel/vmlinux"
fi

# gpio-sim for the guest, built against the kernel's own headers from its own source.
gpiosim=$kernel/gpio-sim/gpio-sim-rig.ko
if [ ! -f "$gpiosim" ]; then
    headers=linux-headers-$version source=linux-source-${version%%.0-*}
    if ! dpkg-query -W -f='${Status}\n' "$headers" 2>/dev/null | grep -q '^install ok installed$'; then
        echo "installing Debian packages: $headers (to build gpio-sim for the rig)" >&2
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$headers" >&2
    fi
    build=$kernel/gpio-sim/build
    rm -rf "$kernel/gpio-sim" && mkdir -p "$build"
    (cd "$kernel/gpio-sim" && apt-get download $([ "$(id -u)" = 0 ] && echo -o APT::Sandbox::User=root) "$source" >&2)
    dpkg-deb --fsys-tarfile "$kernel"/gpio-sim/"$source"_*.deb | tar -xO "./usr/src/$source.tar.xz" |
        tar -xJ -C "$build" --strip-components=3 \
            "$source/drivers/gpio/gpio-sim.c" "$source/drivers/gpio/gpiolib.h" "$source/kernel/irq/irq_sim.c"
    rm -f "$kernel"/gpio-sim/*.deb
    sed -i 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' "$build/irq_sim.c"
    grep -q 'generic_handle_irq(irqnum);' "$build/irq_sim.c" ||
        { echo "irq_sim.c changed: cannot build gpio-sim for the rig" >&2; exit 1; }
    printf 'obj-m := gpio-sim-rig.o\ngpio-sim-rig-y := gpio-sim.o irq_sim.o\n' >"$build/Kbuild"
    make -s -C "/usr/src/$headers" M="$build" modules >&2
    mv "$build/gpio-sim-rig.ko" "$gpiosim"
    rm -rf "$build"
fi

# The initramfs: busybox and the modules that reach a 9p root and make an overlay (in dependency order).
initramfs=$kernel/initramfs.cpio.gz
if [ ! -f "$initramfs" ] || [ "$here/init-stage1.sh" -nt "$initramfs" ]; then
    # shellcheck source=initramfs.sh
    source "$here/initramfs.sh"
    make_initramfs "$kernel" "$version" "$here/init-stage1.sh" "$initramfs" "virtio_pci 9pnet_virtio 9p overlay" \
        "lower rw newroot"
fi
echo "$version"
