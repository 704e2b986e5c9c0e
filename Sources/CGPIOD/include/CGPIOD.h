// libgpiod (v1, Debian 12's 1.6), opened when the door is configured with GPIO lines (dlopen), not linked: a
// kiosk without a light, a gate or a beam never maps it. The table's entries have exactly the types of
// <gpiod.h> (typeof), so a call through it is checked as a direct call would be.
#ifndef CGPIOD_H
#define CGPIOD_H

#include <gpiod.h>

/// The libgpiod functions kioskd calls, each under its own name (listed once: the table and the names looked up
/// both come from this list).
#define CGPIOD_FUNCTIONS(X) \
    X(gpiod_chip_open_lookup) \
    X(gpiod_chip_close) \
    X(gpiod_chip_name) \
    X(gpiod_chip_num_lines) \
    X(gpiod_chip_get_line) \
    X(gpiod_chip_find_line) \
    X(gpiod_line_offset) \
    X(gpiod_line_consumer) \
    X(gpiod_line_request_output_flags) \
    X(gpiod_line_request_both_edges_events_flags) \
    X(gpiod_line_set_value) \
    X(gpiod_line_get_value) \
    X(gpiod_line_event_get_fd) \
    X(gpiod_line_event_read) \
    X(gpiod_line_release)

#define CGPIOD_ENTRY(function) __typeof__(function) *_Nonnull function;
typedef struct {
    CGPIOD_FUNCTIONS(CGPIOD_ENTRY)
} CGPIOD_API;
#undef CGPIOD_ENTRY

/// The table, loaded once (thread-safe); NULL when libgpiod.so.2 or one of its functions is missing, and then
/// `*error` (when given) says what, for a message that tells the installer which package to add.
const CGPIOD_API *_Nullable CGPIOD_load(const char *_Nullable *_Nullable error);

#endif
