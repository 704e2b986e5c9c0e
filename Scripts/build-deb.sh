#!/usr/bin/env bash
# Builds the clup-kiosk Debian package: kioskd, clup-server and escpos-emulator (Swift runtime linked in
# statically, so only Debian's own libraries are needed), the systemd units and sysusers files, the udev
# rules, the printer profiles and the default configuration as a conffile.
#
#   Scripts/build-deb.sh [-c release|debug] [-o OUTDIR] [-v VERSION]
#   Scripts/build-deb.sh -b PRODUCT    only build PRODUCT as the package has it; print the binary's path
#
# Prints the path of the .deb it wrote. `make deb` runs it (release); `make bench` measures the kioskd it
# ships (-b kioskd).
set -euo pipefail
cd "$(dirname "$0")/.."

configuration=release
outdir=out/deb
# The release series from the source (ServiceSupport/Release.swift), then the commit count.
series=$(sed -n 's/.*static let series = "\([0-9.]*\)".*/\1/p' Sources/ServiceSupport/Release.swift)
version="${series:?no release series in Sources/ServiceSupport/Release.swift}.$(git rev-list --count HEAD 2>/dev/null || echo 0)"
only=
while getopts "b:c:o:v:" option; do
    case "$option" in
        b) only="$OPTARG" ;;
        c) configuration="$OPTARG" ;;
        o) outdir="$OPTARG" ;;
        v) version="$OPTARG" ;;
        *) echo "usage: $0 [-c release|debug] [-o OUTDIR] [-v VERSION] | -b PRODUCT" >&2; exit 64 ;;
    esac
done
# OUTDIR relative to the repository or absolute, as given.
outdir=$(mkdir -p "$outdir" && cd "$outdir" && pwd)

swift=${SWIFT:-swift}
# FoundationNetworking's static archive does not pull in its curl glue by itself: name it, and libcurl
# (libcurl4-openssl-dev provides libcurl.so).
# Its own build folder: objects compiled for the static runtime never mix with the everyday build's.
# --as-needed: a binary that calls no libcurl (kioskd) does not load it and what it brings (OpenSSL, Kerberos,
# LDAP: about 2.5 MiB of resident memory).
# Linked by lld with packed relative relocations (DT_RELR, glibc ≥ 2.36): a position-independent binary this
# size carries ~140,000 relocations that the loader reads and applies at every start; packed, they take 27 KB
# instead of 3.3 MB, and kioskd's idle resident memory drops by about 4 MiB.
flags=(-c "$configuration" --static-swift-stdlib --scratch-path "${DEB_SCRATCH:-.build-deb}"
    -Xlinker --as-needed -Xlinker -l_CFURLSessionInterface -Xlinker -lcurl
    -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
if [ -n "$only" ]; then
    "$swift" build "${flags[@]}" --product "$only" >&2
    echo "$("$swift" build "${flags[@]}" --show-bin-path)/$only"
    exit 0
fi
for product in kioskd clup-server escpos-emulator; do
    "$swift" build "${flags[@]}" --product "$product" >&2
done
bin=$("$swift" build "${flags[@]}" --show-bin-path)

arch=$(dpkg --print-architecture)
root="$outdir/root"
rm -rf "$root" "$outdir"/clup-kiosk_*.deb
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/usr/lib/sysusers.d" \
    "$root/lib/udev/rules.d" "$root/etc/kioskd" "$root/etc/clup-server" "$root/usr/share/clup-kiosk/profiles" \
    "$root/usr/share/doc/clup-kiosk"
for program in kioskd clup-server escpos-emulator; do
    install -m 0755 "$bin/$program" "$root/usr/bin/$program"
    # A debug build's package (make test's) keeps its symbols but not its DWARF, nor the Swift modules' ASTs that
    # only a debugger reads (.swift_ast, 36 MB a program): most of its size, which apt in the appliance guest
    # would unpack under software emulation several times a run, for no test that reads it.
    if [ "$configuration" = release ]; then
        strip --strip-unneeded "$root/usr/bin/$program"
    else
        strip --strip-debug --remove-section=.swift_ast "$root/usr/bin/$program"
    fi
done
install -m 0644 systemd/kioskd.service systemd/clup-server.service "$root/lib/systemd/system/"
install -m 0644 systemd/kioskd.sysusers "$root/usr/lib/sysusers.d/kioskd.conf"
install -m 0644 systemd/clup-server.sysusers "$root/usr/lib/sysusers.d/clup-server.conf"
install -m 0644 udev/70-clup-kiosk.rules "$root/lib/udev/rules.d/"
install -m 0644 config/kioskd.toml "$root/etc/kioskd/kioskd.toml"
install -m 0644 config/clup-server.toml "$root/etc/clup-server/clup-server.toml"
install -m 0644 Sources/Drivers/Profiles/*.toml "$root/usr/share/clup-kiosk/profiles/"
echo "$version" >"$root/usr/share/clup-kiosk/version" # what `kioskd --version` and `clup-server --version` say
chmod 0644 "$root/usr/share/clup-kiosk/version"
install -m 0644 README.md packaging/debian/copyright "$root/usr/share/doc/clup-kiosk/"
# The README's links lead into docs/: the same layout beside it.
install -d "$root/usr/share/doc/clup-kiosk/docs"
install -m 0644 docs/*.md docs/clup-server.openapi.yaml "$root/usr/share/doc/clup-kiosk/docs/"
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"
# preinst carries the sysusers files, so the groups the udev rules name exist before the rules land.
awk '/^@SYSUSERS@$/ { while ((getline line < "systemd/kioskd.sysusers") > 0) print line
                      while ((getline line < "systemd/clup-server.sysusers") > 0) print line; next } { print }' \
    packaging/debian/preinst.in >"$root/DEBIAN/preinst"
chmod 0755 "$root/DEBIAN/preinst"
printf '%s\n' /etc/kioskd/kioskd.toml /etc/clup-server/clup-server.toml >"$root/DEBIAN/conffiles"

# Library dependencies as dpkg-shlibdeps finds them (it wants a debian/control beside it).
shlib=$(mktemp -d)
trap 'rm -rf "$shlib"' EXIT
mkdir "$shlib/debian"
printf 'Source: clup-kiosk\n\nPackage: clup-kiosk\nArchitecture: any\n' >"$shlib/debian/control"
binaries=$(for program in kioskd clup-server escpos-emulator; do echo "$root/usr/bin/$program"; done)
# shellcheck disable=SC2086
depends=$(cd "$shlib" && dpkg-shlibdeps -O $binaries 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "dpkg-shlibdeps found no dependencies (is dpkg-dev installed?)" >&2; exit 1; }
# libcups2 is opened at run time (a cups:// printer), so dpkg-shlibdeps cannot see it.
depends="$depends, libcups2, adduser, tzdata"

size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@DEPENDS@/$depends/" -e "s/@SIZE@/$size/" \
    packaging/debian/control.in >"$root/DEBIAN/control"

deb="$outdir/clup-kiosk_${version}_${arch}.deb"
# A debug package (the test's) is big and thrown away: compress it fast.
if [ "$configuration" = release ]; then compression=(-Zxz); else compression=(-Zgzip -z1); fi
dpkg-deb --root-owner-group "${compression[@]}" --build "$root" "$deb" >&2
rm -rf "$root"
echo "$deb"
