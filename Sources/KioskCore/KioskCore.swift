/// KioskCore: the pure domain of the CLup kiosk.
///
/// Owns tickets, ticket codes, store events, queue state, admission rules (the decision and what it records),
/// the wait estimate, the printer station's decisions (``PrinterStationMachine``, ``TearOffMachine``,
/// ``RetractRule``), the entrance's outputs and exit beams
/// (``EntranceLightsMachine``, ``Announcement``, ``ExitBeamMachine``) and the ticket layout as an abstract
/// ``PrintDocument``.
///
/// Must not touch: any I/O, clocks (time is a parameter), C modules or Glibc. Hardware lives in `Drivers`,
/// which turns a ``PrintDocument`` into printer bytes.
public enum KioskCore {}
