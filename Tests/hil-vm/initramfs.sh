#!/bin/bash
# Makes a guest's initramfs (sourced by setup.sh and Tests/appliance/image.sh): a static busybox, the kernel's
# modules that MODULES need, in dependency order (modules/load.list, for the init to insmod), INIT as /init,
# and the folders that init mounts on.
#
#   make_initramfs KERNEL_DIR VERSION INIT OUT "MODULES..." "FOLDERS..."
make_initramfs() {
    local kernel=$1 version=$2 init=$3 out=$4 modules=$5 folders=$6 tree m
    tree=$(mktemp -d)
    # shellcheck disable=SC2086
    for m in bin modules proc sys dev $folders; do mkdir -p "$tree/$m"; done
    cp /bin/busybox "$tree/bin/busybox"
    for m in $modules; do
        modprobe -d "$kernel/root" -S "$version" --show-depends "$m" | awk '$1 == "insmod" { print $2 }'
    done | awk '!seen[$0]++' | while read -r module; do
        cp "$module" "$tree/modules/"
        basename "$module" >>"$tree/modules/load.list"
    done
    install -m 0755 "$init" "$tree/init"
    (cd "$tree" && find . | cpio -o -H newc --quiet | gzip -1 >"$out.part")
    mv "$out.part" "$out"
    rm -rf "$tree"
}
