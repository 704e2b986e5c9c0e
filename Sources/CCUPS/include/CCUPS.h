// libcups, opened when a CUPS queue is first used (dlopen), not linked: a kiosk that prints over USB, serial
// or TCP never maps libcups and what it brings (GnuTLS, p11-kit, Avahi, D-Bus: about 2 MiB of resident
// memory). The table's entries have exactly the types of <cups/cups.h> (typeof), so a call through it is
// checked as a direct call would be.
#ifndef CCUPS_H
#define CCUPS_H

#include <cups/cups.h>

/// The libcups functions kioskd calls, each under its own name (listed once: the table and the names looked up
/// both come from this list).
#define CCUPS_FUNCTIONS(X) \
    X(cupsServer) \
    X(cupsLastErrorString) \
    X(httpConnect2) \
    X(httpClose) \
    X(cupsCreateJob) \
    X(cupsStartDocument) \
    X(cupsWriteRequestData) \
    X(cupsFinishDocument) \
    X(cupsDoRequest) \
    X(cupsGetDests2) \
    X(cupsFreeDests) \
    X(cupsGetOption) \
    X(ippNewRequest) \
    X(ippAddString) \
    X(ippDelete) \
    X(ippGetStatusCode) \
    X(ippFindAttribute) \
    X(ippGetCount) \
    X(ippGetString) \
    X(ippGetInteger) \
    X(ippGetBoolean)

#define CCUPS_ENTRY(function) __typeof__(function) *_Nonnull function;
typedef struct {
    CCUPS_FUNCTIONS(CCUPS_ENTRY)
} CCUPS_API;
#undef CCUPS_ENTRY

/// The table, loaded once (thread-safe); NULL when libcups.so.2 or one of its functions is missing, and then
/// `*error` (when given) says what, for a message that tells the installer which package to add.
const CCUPS_API *_Nullable CCUPS_load(const char *_Nullable *_Nullable error);

#endif
