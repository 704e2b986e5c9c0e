#include "CESpeak.h"

#include "CLibraryTable.h"

#include <string.h>

static CESPEAK_API api;
#define CESPEAK_NAME(function) #function,
static const char *const names[] = {CESPEAK_FUNCTIONS(CESPEAK_NAME)};
#undef CESPEAK_NAME
static CLibraryTable table = CLIBRARY_TABLE("libespeak-ng.so.1", names, api);

const CESPEAK_API *CESPEAK_load(const char **error) { return CLibraryTable_load(&table, error); }

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
