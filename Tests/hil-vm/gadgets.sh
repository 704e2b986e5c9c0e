#!/bin/bash
# configfs USB gadget helpers for the rig's guest (Documentation/usb/gadget_configfs.rst): the host side
# (dummy_hcd: two UDC/HCD pairs, two separate "cables") and the gadget side (usb_f_printer, usb_f_hid).
CFS=/sys/kernel/config/usb_gadget
PRINTER_VID=0x1d90 PRINTER_PID=0x2060 SCANNER_VID=0x05e0 SCANNER_PID=0x1200

gadget_modules() {
    modprobe configfs
    mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
    modprobe dummy_hcd num=2
    modprobe libcomposite
    modprobe usb_f_printer
    modprobe usb_f_hid
    # The host side's drivers, in case udev is slow to load them.
    modprobe usblp
    modprobe evdev
    modprobe usbhid
    modprobe hid-generic
    # The voice's sound card: snd-aloop's Loopback (what plays into device 0 is recorded from device 1).
    modprobe snd-aloop
}

udc() { ls /sys/class/udc | sed -n "$(($1 + 1))p"; }

_gadget() { # name vid pid manufacturer product serial
    local g=$CFS/$1
    mkdir -p "$g/strings/0x409" "$g/configs/c.1/strings/0x409"
    echo "$2" >"$g/idVendor"
    echo "$3" >"$g/idProduct"
    echo 0x0200 >"$g/bcdUSB"
    echo 0x0100 >"$g/bcdDevice"
    echo "$4" >"$g/strings/0x409/manufacturer"
    echo "$5" >"$g/strings/0x409/product"
    echo "$6" >"$g/strings/0x409/serialnumber"
    echo "config 1" >"$g/configs/c.1/strings/0x409/configuration"
    echo 100 >"$g/configs/c.1/MaxPower"
}

make_printer_gadget() { # name udc
    local g=$CFS/$1
    _gadget "$1" $PRINTER_VID $PRINTER_PID "CITIZEN" "PPU-700 (emulated)" "HILPRN0001"
    mkdir -p "$g/functions/printer.0"
    echo "MFG:CITIZEN;CMD:ESC/POS;MDL:PPU-700;CLS:PRINTER;DES:CITIZEN PPU-700;" >"$g/functions/printer.0/pnp_string"
    echo 10 >"$g/functions/printer.0/q_len"
    ln -s "$g/functions/printer.0" "$g/configs/c.1/"
    echo "$2" >"$g/UDC"
}

make_hid_keyboard_gadget() { # name udc
    local g=$CFS/$1
    _gadget "$1" $SCANNER_VID $SCANNER_PID "Symbol" "Barcode Scanner (emulated)" "HILSCN0001"
    mkdir -p "$g/functions/hid.0"
    echo 1 >"$g/functions/hid.0/protocol"
    echo 1 >"$g/functions/hid.0/subclass"
    echo 8 >"$g/functions/hid.0/report_length"
    # The boot keyboard report descriptor (Documentation/usb/gadget_hid.rst).
    printf '\x05\x01\x09\x06\xa1\x01\x05\x07\x19\xe0\x29\xe7\x15\x00\x25\x01\x75\x01\x95\x08\x81\x02\x95\x01\x75\x08\x81\x03\x95\x05\x75\x01\x05\x08\x19\x01\x29\x05\x91\x02\x95\x01\x75\x03\x91\x03\x95\x06\x75\x08\x15\x00\x25\x65\x05\x07\x19\x00\x29\x65\x81\x00\xc0' \
        >"$g/functions/hid.0/report_desc"
    ln -s "$g/functions/hid.0" "$g/configs/c.1/"
    echo "$2" >"$g/UDC"
}

# Unplug / plug back: unbind the gadget from its UDC and bind it again.
unplug() { echo "" >"$CFS/$1/UDC"; }
plug() { echo "$2" >"$CFS/$1/UDC"; }
