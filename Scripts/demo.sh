#!/usr/bin/env bash
# `make demo`: the ticket printer against an emulated printer, until the full kiosk lands.
# Starts escpos-emulator (a Citizen PPU-700 with presenter) on a local TCP port and a pty, prints the test
# ticket through kioskd over both, and shows each ticket's PNG and a text preview.
set -euo pipefail
bin="$1"
out="$2"
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/ticket-*.png

log="$out/emulator.log"
"$bin/escpos-emulator" --profile citizen-ppu-700 --tcp 0 --pty "$out/printer-tty" --out "$out" --control 0 >"$log" 2>&1 &
emulator=$!
trap 'kill $emulator 2>/dev/null; wait $emulator 2>/dev/null || true' EXIT INT TERM

for _ in $(seq 100); do grep -q '^ready' "$log" && break; sleep 0.1; done
grep -q '^ready' "$log" || { echo "the emulator did not start:"; cat "$log"; exit 1; }
port=$(sed -n 's/^tcp .*:\([0-9]*\)$/\1/p' "$log")
control=$(sed -n 's/^control .*:\([0-9]*\)$/\1/p' "$log")
# One line to the emulator's control port, one line back.
emulator_do() { exec 3<>"/dev/tcp/127.0.0.1/$control"; echo "$1" >&3; read -r answer <&3; exec 3>&-; echo "emulator: $answer"; }

say() { printf '\n\033[1m%s\033[0m\n' "$*"; }
print_ticket() {
    "$bin/kioskd" print-test --printer "$1" --profile citizen-ppu-700 ${2:+--qr "$2"}
    sleep 0.3
}

say "1. A ticket over TCP (tcp://127.0.0.1:$port), QR sent natively with GS ( k:"
print_ticket "tcp://127.0.0.1:$port"
say "2. The same ticket over a serial line (a pty at $out/printer-tty), QR as a raster image:"
print_ticket "serial://$out/printer-tty?baud=115200" raster
say "What the emulated printer printed:"
grep -A8 '^ticket' "$log" || true
if command -v zbarimg >/dev/null; then
    say "QR codes decoded from the PNGs by zbarimg:"
    zbarimg --quiet --raw "$out"/ticket-*.png 2>/dev/null || true
fi

if [ -t 0 ]; then
    say "Enter: print another ticket.  t: take the ticket from the presenter.  p: paper out / back.  q: quit."
    paper=on
    while read -r -p "> " key; do
        case "$key" in
            q) break ;;
            t) emulator_do take ;;
            p) emulator_do "paper-end $paper"; [ $paper = on ] && paper=off || paper=on ;;
            *) print_ticket "tcp://127.0.0.1:$port" || true; tail -n 9 "$log" | grep -A8 '^ticket' || true ;;
        esac
    done
fi
say "Tickets are in $out/ (PNG, one per cut)."
