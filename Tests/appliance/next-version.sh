#!/usr/bin/env bash
# The same package with a higher version, for the upgrade test: DEB unpacked, its version given a "+next"
# suffix (dpkg orders 0.1.273+next after 0.1.273), packed again in OUTDIR. Prints the new package's path.
#
#   Tests/appliance/next-version.sh DEB OUTDIR
set -euo pipefail
deb=$1 outdir=$2
root=$(mktemp -d "$outdir/next.XXXXXX")
trap 'rm -rf "$root"' EXIT
dpkg-deb -R "$deb" "$root"
version=$(sed -n 's/^Version: //p' "$root/DEBIAN/control")
sed -i "s/^Version: .*/Version: $version+next/" "$root/DEBIAN/control"
echo "$version+next" >"$root/usr/share/clup-kiosk/version"
next="$outdir/clup-kiosk-next.deb"
dpkg-deb --root-owner-group -Zgzip -z1 --build "$root" "$next" >&2
echo "$next"
