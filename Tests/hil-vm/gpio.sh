#!/bin/bash
# gpio-sim helpers for the rig's guest (Documentation/admin-guide/gpio/gpio-sim.rst): one simulated chip with
# the door's lines — 0 green, 1 red, 2 gate (outputs kioskd drives; their values are read back), 3 and 4 the
# inner and outer exit beams (inputs this script drives through the simulated pull). The module is built by
# setup.sh for the rig's kernel (Debian's leaves gpio-sim out).
GPIOSIM=/sys/kernel/config/gpio-sim/door

# Loads gpio-sim and makes the chip; sets SIM_CHIP (gpiochipN) and SIM_LINES (its sysfs folder).
gpio_chip_up() { # module
    insmod "$1" || return 1
    mkdir -p "$GPIOSIM/bank0"
    echo 5 >"$GPIOSIM/bank0/num_lines"
    local i=0 name
    for name in clup-green clup-red clup-gate clup-beam-in clup-beam-out; do
        mkdir -p "$GPIOSIM/bank0/line$i"
        echo "$name" >"$GPIOSIM/bank0/line$i/name"
        i=$((i + 1))
    done
    echo 1 >"$GPIOSIM/live"
    SIM_CHIP=$(cat "$GPIOSIM/bank0/chip_name")
    SIM_LINES=/sys/devices/platform/$(cat "$GPIOSIM/dev_name")/$SIM_CHIP
    [ -e "$SIM_LINES/sim_gpio0/value" ]
}

# The value an output line is driven to (0 or 1), in L.
line_value() { read -r L <"$SIM_LINES/sim_gpio$1/value"; }
line_is() { line_value "$1" && [ "$L" = "$2" ]; }
# An input line pulled high (the beam blocked: kioskd is configured active-high) or low (clear).
beam() { # line blocked|clear
    if [ "$2" = blocked ]; then echo pull-up >"$SIM_LINES/sim_gpio$1/pull"; else echo pull-down >"$SIM_LINES/sim_gpio$1/pull"; fi
}
