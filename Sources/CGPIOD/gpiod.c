#include "CGPIOD.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static CGPIOD_API api;
static const CGPIOD_API *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libgpiod.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define CGPIOD_RESOLVE(function)                                                                         \
    if ((*(void **)&api.function = dlsym(library, #function)) == NULL) {                                 \
        snprintf(failure, sizeof failure, "libgpiod.so.2 has no %s", #function);                         \
        return;                                                                                           \
    }
    CGPIOD_RESOLVE(gpiod_chip_open_lookup)
    CGPIOD_RESOLVE(gpiod_chip_close)
    CGPIOD_RESOLVE(gpiod_chip_name)
    CGPIOD_RESOLVE(gpiod_chip_num_lines)
    CGPIOD_RESOLVE(gpiod_chip_get_line)
    CGPIOD_RESOLVE(gpiod_chip_find_line)
    CGPIOD_RESOLVE(gpiod_line_offset)
    CGPIOD_RESOLVE(gpiod_line_consumer)
    CGPIOD_RESOLVE(gpiod_line_request_output_flags)
    CGPIOD_RESOLVE(gpiod_line_request_both_edges_events_flags)
    CGPIOD_RESOLVE(gpiod_line_set_value)
    CGPIOD_RESOLVE(gpiod_line_get_value)
    CGPIOD_RESOLVE(gpiod_line_event_get_fd)
    CGPIOD_RESOLVE(gpiod_line_event_read)
    CGPIOD_RESOLVE(gpiod_line_release)
#undef CGPIOD_RESOLVE
    loaded = &api;
}

const CGPIOD_API *CGPIOD_load(const char **error) {
    pthread_once(&once, load);
    if (loaded == NULL && error != NULL) *error = failure;
    return loaded;
}
