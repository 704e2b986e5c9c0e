// Drivers' users call the kernel the same way (``syscall(_:_:)``, ``pollOne(_:events:timeout:)``).
@_exported import SystemCalls

/// Drivers: everything that touches printer and scanner hardware.
///
/// Owns the ESC/POS encoder and status decoder, printer profiles (data files in `Profiles/`), the printer
/// transports (USB through libusb, CUPS, serial, TCP 9100, usblp) behind ``PrinterTransport``, device
/// discovery, and the thin layer over C (`CLibUSB`, `CQREncode`, `CCUPS`, `CLinuxShims`).
///
/// Must not touch: station logic (`KioskStation`) or queue rules (`KioskCore` decides, drivers observe).
/// Transports block; callers run them off the cooperative pool (KioskStation gives each device loop a thread of its own).
public enum Drivers {}
