/// DeviceEmulators: the doubles of the kiosk's hardware, as real programs on real kernel interfaces.
///
/// Owns the ESC/POS printer emulator (``PrinterEmulator``: parses what a client sends, renders each cut
/// ticket to a 1-bit PNG, answers status requests as a chosen profile, simulates paper/cover/take events) and
/// its endpoints: TCP (port 9100 style), a pty pair (serial), and any character device such as
/// `/dev/g_printer0` in the USB gadget rig.
///
/// Must not touch: kiosk logic. It knows printers, not queues; tests and `kiosk-demo` drive it from outside.
public enum DeviceEmulators {}
