#include "CALSA.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static CALSA_API api;
static const CALSA_API *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void quiet(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file, (void)line, (void)function, (void)err, (void)fmt;
}

static void load(void) {
    void *library = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define CALSA_RESOLVE(function)                                                                          \
    if ((*(void **)&api.function = dlsym(library, #function)) == NULL) {                                 \
        snprintf(failure, sizeof failure, "libasound.so.2 has no %s", #function);                        \
        return;                                                                                           \
    }
    CALSA_RESOLVE(snd_pcm_open)
    CALSA_RESOLVE(snd_pcm_set_params)
    CALSA_RESOLVE(snd_pcm_writei)
    CALSA_RESOLVE(snd_pcm_recover)
    CALSA_RESOLVE(snd_pcm_drain)
    CALSA_RESOLVE(snd_pcm_close)
    CALSA_RESOLVE(snd_strerror)
#undef CALSA_RESOLVE
    // ALSA prints its own complaints on stderr (a card it cannot find, twice per attempt); kioskd says what
    // is wrong in its log instead, once.
    __typeof__(snd_lib_error_set_handler) *set_handler = dlsym(library, "snd_lib_error_set_handler");
    if (set_handler != NULL) set_handler(quiet);
    loaded = &api;
}

const CALSA_API *CALSA_load(const char **error) {
    pthread_once(&once, load);
    if (loaded == NULL && error != NULL) *error = failure;
    return loaded;
}
