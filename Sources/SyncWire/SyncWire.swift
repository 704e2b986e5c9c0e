/// SyncWire: the sync API's messages, as kioskd sends and reads them and clup-server reads and answers them.
///
/// One definition of each body on the wire between a kiosk and the server (`/v1/stores/{store}/events`, the key
/// ring, a device's key and health, enrollment), so the two sides cannot drift apart: both import this
/// module, as do the demo and the tests. Codable values only, with the checks of what a field may hold that
/// both sides need (the server answers a bad value with 400 naming the field; a kiosk never sends one).
///
/// Depends on: KioskCore (events and ids). Must not touch: I/O, HTTP, storage — the transports are the
/// server's routes and kioskd's ``SyncAPI``. The document of record is docs/clup-server.openapi.yaml.
public enum SyncWire {}
