#!/bin/bash
# Helpers for the guests' checks (the USB gadget rig's checks.sh, the appliance guest's scripts): results
# lines, naps and polls with bash builtins alone, the printer emulator's control port, kioskd's /status.
# Set before sourcing: results (the results file), log (kioskd's log, for diagnose), t (a timestamped log
# line). Sets work (a scratch folder).
: >"$results"
failures=0
check() { # name condition-status detail
    if [ "$2" = 0 ]; then echo "ok $1 $3" >>"$results"; t "ok $1 $3"
    else echo "fail $1 $3" >>"$results"; t "FAIL $1 $3"; failures=$((failures + 1)); fi
}
# Polling is done with bash builtins alone (no curl, grep, date or sleep per look): under software emulation a
# process started per look would cost more than what is being measured.
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
work=$(mktemp -d /tmp/hil-checks.XXXXXX) && chmod 0755 "$work"
mkfifo "$work/nap" && exec 9<>"$work/nap"
nap() { read -r -t "$1" -u 9 _ || true; } # sleep, without a process
# One command to the emulator's control port; its one-line answer in R.
ctl() {
    R=
    { echo "$1" >&3 && IFS= read -r -t 5 R <&3; } 3<>/dev/tcp/127.0.0.1/9101 2>/dev/null
    [ -n "$R" ]
}
# The printer emulator (PROGRAM ARGS...) with its control port where ctl looks, in the background: its pid in
# emulator, its output in LOG; returns once it answers.
emulator_up() { # log program args...
    local out=$1; shift
    "$@" --control 9101 </dev/null >"$out" 2>&1 &
    emulator=$!
    wait_until 30000 ctl status >/dev/null
}
# The emulator's count of cut tickets in N, the last one's PNG in PNG and when its cut arrived in CUT_MS (the
# wall clock's milliseconds: latencies end there, not when this script noticed, nor after the PNG was drawn).
tickets() {
    ctl tickets || return 1
    local words
    read -ra words <<<"$R"
    N=$((${words[1]:-0})) PNG=${words[2]:-} CUT_MS=${words[3]:-0}
}
has_tickets() { tickets && [ "$N" -ge "$1" ]; }
# kioskd's GET /status in S.
fetch() {
    S=
    { printf 'GET /status HTTP/1.0\r\nConnection: close\r\n\r\n' >&4 && IFS= read -r -t 5 -d '' S <&4; } \
        4<>/dev/tcp/127.0.0.1/18080 2>/dev/null
    S=${S#*$'\r\n\r\n'}
    [ -n "$S" ]
}
# A string field of the last fetched status ("" when absent).
field() { local re="\"$1\":\"([^\"]*)\""; [[ $S =~ $re ]] && echo "${BASH_REMATCH[1]}"; }
# A role's state: its object may hold flat objects (the last decision, the waiting ticket) before "state", in
# any order (JSON keys come in no fixed order).
role_is() { local re="\"$1\":\\{([^{}]|\\{[^{}]*\\})*\"state\":\"$2\""; fetch && [[ $S =~ $re ]]; }
printer_is() { role_is printer "$1"; }
door_is() { role_is door "$1"; }
has_field() { fetch && [[ $S == *"\"$1\":\"$2\""* ]]; }
wait_until() { # timeout_ms command...: looks every 10 ms; prints the milliseconds it took, fails after timeout
    local limit=$1 start=${EPOCHREALTIME/./} now; shift
    until "$@"; do
        now=${EPOCHREALTIME/./}
        [ $(((now - start) / 1000)) -ge "$limit" ] && return 1
        nap 0.01
    done
    now=${EPOCHREALTIME/./}
    echo $(((now - start) / 1000))
}
# Where a process's threads wait in the kernel (for a check that timed out).
where() { for task in /proc/"$1"/task/*; do echo "  $(cat "$task/comm"): $(cat "$task/wchan")"; done; }
diagnose() {
    t "kioskd threads:"; where "$kioskd"
    t "emulator threads:"; where "$emulator"
    t "kioskd log:"; tail -8 "$log"
}
percentile() { sort -n | awk -v p="$1" '{ v[NR] = $1 } END { i = int(NR * p / 100 + 0.999); if (i < 1) i = 1; print v[i] }'; }

# The door's numbers and lines, and the voice's counters, from the status.
number() { local re="\"$1\":([0-9]+)"; fetch && [[ $S =~ $re ]] && N=${BASH_REMATCH[1]}; }
number_is() { number "$1" && [ "$N" = "$2" ]; }
lines_ready() { fetch && [[ $S == *'"lights":"ready"'* && $S == *'"beams":"ready"'* ]]; }
voice_count() { # spoken + dropped + failed, in V
    local re='"voice":\{([^{}]*)\}' object n
    fetch && [[ $S =~ $re ]] || return 1
    object=${BASH_REMATCH[1]} V=0
    for n in spoken dropped failed; do [[ $object =~ \"$n\":([0-9]+) ]] && V=$((V + BASH_REMATCH[1])); done
    [[ $object == *'"state":"ready"'* ]]
}
voice_quiet() { voice_count && local before=$V && nap 1.5 && voice_count && [ "$V" = "$before" ]; }
voice_spoke() { voice_count && [ "$V" -ge "$1" ]; }
