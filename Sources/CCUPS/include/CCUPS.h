// libcups, opened when a CUPS queue is first used (dlopen), not linked: a kiosk that prints over USB, serial
// or TCP never maps libcups and what it brings (GnuTLS, p11-kit, Avahi, D-Bus: about 2 MiB of resident
// memory). The table's entries have exactly the types of <cups/cups.h> (typeof), so a call through it is
// checked as a direct call would be.
#ifndef CCUPS_H
#define CCUPS_H

#include <cups/cups.h>

#define CCUPS_ENTRY(function) __typeof__(function) *_Nonnull function

/// The libcups functions kioskd calls, each under its own name.
typedef struct {
    CCUPS_ENTRY(cupsServer);
    CCUPS_ENTRY(cupsLastErrorString);
    CCUPS_ENTRY(httpConnect2);
    CCUPS_ENTRY(httpClose);
    CCUPS_ENTRY(cupsCreateJob);
    CCUPS_ENTRY(cupsStartDocument);
    CCUPS_ENTRY(cupsWriteRequestData);
    CCUPS_ENTRY(cupsFinishDocument);
    CCUPS_ENTRY(cupsDoRequest);
    CCUPS_ENTRY(cupsGetDests2);
    CCUPS_ENTRY(cupsFreeDests);
    CCUPS_ENTRY(cupsGetOption);
    CCUPS_ENTRY(ippNewRequest);
    CCUPS_ENTRY(ippAddString);
    CCUPS_ENTRY(ippDelete);
    CCUPS_ENTRY(ippGetStatusCode);
    CCUPS_ENTRY(ippFindAttribute);
    CCUPS_ENTRY(ippGetCount);
    CCUPS_ENTRY(ippGetString);
    CCUPS_ENTRY(ippGetInteger);
    CCUPS_ENTRY(ippGetBoolean);
} CCUPS_API;

#undef CCUPS_ENTRY

/// The table, loaded once (thread-safe); NULL when libcups.so.2 or one of its functions is missing, and then
/// `*error` (when given) says what, for a message that tells the installer which package to add.
const CCUPS_API *_Nullable CCUPS_load(const char *_Nullable *_Nullable error);

#endif
