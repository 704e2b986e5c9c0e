#!/usr/bin/env bash
# make test's run of the built suites (docs/testing.md), one test at a time within each of three groups:
#
#   1. the qemu guests (the appliance's three tests and the USB gadget rig: about 17 minutes, most of it a
#      guest booting or waiting), in the background, their output kept and printed when they end;
#   2. beside them, the suites that time no device: the pure modules' unit tests, clup-server's suites but the
#      three that drive Chromium, the soak (what it checks is memory, not latency), the door's fuzzer (what it
#      checks is each decision) and the package installed in a chroot;
#   3. then alone, everything else: the hardware-in-the-loop, station and system suites and the browser suites,
#      whose latencies and timeouts a shared processor would distort.
#
# Groups 1 and 2 are named; group 3 is what they do not name, so a new suite runs in it without a change here.
# Exits non-zero if any group failed; every group runs whatever another did.
#
#   SWIFT=swift Scripts/run-tests.sh [SWIFT BUILD FLAGS...]     (the flags the build was made with)
set -uo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
bin=$("$swift" build --show-bin-path "$@") || exit 1
tests="$bin/clup-kioskPackageTests.xctest"
[ -x "$tests" ] || { echo "no $tests: build the tests first (swift build --build-tests $*)" >&2; exit 1; }
# swift-testing colours its marks unless told not to; CI reads them.
[ -t 1 ] || export NO_COLOR=1

guests=(--filter '^HostHILTests\.(AppliancePowerCutTests|ApplianceTests|USBGadgetRigTests)(/|$)')
beside=(
    --filter '^(KioskCoreTests|DriversTests|DeviceEmulatorsTests|ServiceSupportTests|ServicesTests)\.'
    --filter '^ServerTests\.(?!(PagesTourTests|LeaveByPageTests|PushPageTests)(/|$))'
    --filter '^SystemTests\.(SoakTests|DebianPackageTests)(/|$)'
    --filter '^HostHILTests\.DoorFuzzTests(/|$)'
)
# The third group skips what the first two filter.
rest=()
for ((i = 1; i < ${#guests[@]}; i += 2)); do rest+=(--skip "${guests[i]}"); done
for ((i = 1; i < ${#beside[@]}; i += 2)); do rest+=(--skip "${beside[i]}"); done

run() { "$tests" --testing-library swift-testing --no-parallel "$@"; }

log=$(mktemp -t clup-guest-tests.XXXXXX)
trap 'rm -f "$log"' EXIT
started=$(date +%s)
run "${guests[@]}" >"$log" 2>&1 &
guest_pid=$!
echo "== the qemu guests' suites run in the background (pid $guest_pid); their output follows when they end"
echo "== beside them: the suites that time no device"
run "${beside[@]}"
beside_status=$?
wait "$guest_pid"
guest_status=$?
echo "== the qemu guests' suites ($(($(date +%s) - started)) s from the start):"
cat "$log"
echo "== alone: the hardware-in-the-loop, station, system and browser suites"
run "${rest[@]}"
rest_status=$?
echo "== $(($(date +%s) - started)) s; exit status: guests $guest_status, beside them $beside_status, alone $rest_status"
[ "$guest_status" = 0 ] && [ "$beside_status" = 0 ] && [ "$rest_status" = 0 ]
