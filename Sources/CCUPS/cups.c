#include "CCUPS.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static CCUPS_API api;
static const CCUPS_API *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libcups.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
    // Every entry, by its own name; the first one missing fails the whole table (an unusable libcups).
#define CCUPS_RESOLVE(function)                                                                         \
    if ((*(void **)&api.function = dlsym(library, #function)) == NULL) {                                \
        snprintf(failure, sizeof failure, "libcups.so.2 has no %s", #function);                          \
        return;                                                                                          \
    }
    CCUPS_RESOLVE(cupsServer)
    CCUPS_RESOLVE(cupsLastErrorString)
    CCUPS_RESOLVE(httpConnect2)
    CCUPS_RESOLVE(httpClose)
    CCUPS_RESOLVE(cupsCreateJob)
    CCUPS_RESOLVE(cupsStartDocument)
    CCUPS_RESOLVE(cupsWriteRequestData)
    CCUPS_RESOLVE(cupsFinishDocument)
    CCUPS_RESOLVE(cupsDoRequest)
    CCUPS_RESOLVE(cupsGetDests2)
    CCUPS_RESOLVE(cupsFreeDests)
    CCUPS_RESOLVE(cupsGetOption)
    CCUPS_RESOLVE(ippNewRequest)
    CCUPS_RESOLVE(ippAddString)
    CCUPS_RESOLVE(ippDelete)
    CCUPS_RESOLVE(ippGetStatusCode)
    CCUPS_RESOLVE(ippFindAttribute)
    CCUPS_RESOLVE(ippGetCount)
    CCUPS_RESOLVE(ippGetString)
    CCUPS_RESOLVE(ippGetInteger)
    CCUPS_RESOLVE(ippGetBoolean)
#undef CCUPS_RESOLVE
    loaded = &api;
}

const CCUPS_API *CCUPS_load(const char **error) {
    pthread_once(&once, load);
    if (loaded == NULL && error != NULL) *error = failure;
    return loaded;
}
