#include "CESpeak.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static CESPEAK_API api;
static const CESPEAK_API *loaded;
static char failure[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libespeak-ng.so.1", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        snprintf(failure, sizeof failure, "%s", dlerror());
        return;
    }
#define CESPEAK_RESOLVE(function)                                                                        \
    if ((*(void **)&api.function = dlsym(library, #function)) == NULL) {                                 \
        snprintf(failure, sizeof failure, "libespeak-ng.so.1 has no %s", #function);                     \
        return;                                                                                           \
    }
    CESPEAK_RESOLVE(espeak_Initialize)
    CESPEAK_RESOLVE(espeak_SetSynthCallback)
    CESPEAK_RESOLVE(espeak_SetVoiceByName)
    CESPEAK_RESOLVE(espeak_SetParameter)
    CESPEAK_RESOLVE(espeak_Synth)
    CESPEAK_RESOLVE(espeak_Synchronize)
#undef CESPEAK_RESOLVE
    loaded = &api;
}

const CESPEAK_API *CESPEAK_load(const char **error) {
    pthread_once(&once, load);
    if (loaded == NULL && error != NULL) *error = failure;
    return loaded;
}

// espeak-ng's callback has no context of its own but the user_data passed to espeak_Synth, which every
// event of the chunk carries.
struct speech {
    int (*chunk)(const short *, int, void *);
    void *context;
};

static int on_samples(short *samples, int count, espeak_EVENT *events) {
    struct speech *speech = events != NULL ? events->user_data : NULL;
    if (speech == NULL || samples == NULL || count <= 0) return 0;
    return speech->chunk(samples, count, speech->context);
}

int CESPEAK_speak(const CESPEAK_API *api, const char *text, int (*chunk)(const short *, int, void *),
                  void *context) {
    struct speech speech = {chunk, context};
    api->espeak_SetSynthCallback(on_samples);
    return api->espeak_Synth(text, strlen(text) + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, NULL, &speech);
}
