#include "CALSA.h"

#include "CLibraryTable.h"

#include <pthread.h>

static CALSA_API api;
#define CALSA_NAME(function) #function,
static const char *const names[] = {CALSA_FUNCTIONS(CALSA_NAME)};
#undef CALSA_NAME
static CLibraryTable table = CLIBRARY_TABLE("libasound.so.2", names, api);

// ALSA prints its own complaints on stderr (a card it cannot find, twice per attempt); kioskd says what is
// wrong in its log instead, once.
static void quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file, (void)line, (void)function, (void)err, (void)fmt;
}

static pthread_once_t quietened = PTHREAD_ONCE_INIT;
static void quieten(void) { api.snd_lib_error_set_handler(quiet); }

const CALSA_API *CALSA_load(const char **error) {
    const CALSA_API *loaded = CLibraryTable_load(&table, error);
    if (loaded != NULL) pthread_once(&quietened, quieten);
    return loaded;
}

