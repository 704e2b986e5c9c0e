// libasound (ALSA), opened when voice plays to a sound card (dlopen), not linked: a kiosk without a speaker,
// or one that speaks into a file, never maps it. The table's entries have exactly the types of
// <alsa/asoundlib.h> (typeof), so a call through it is checked as a direct call would be.
#ifndef CALSA_H
#define CALSA_H

#include <alsa/asoundlib.h>

/// The libasound functions kioskd calls, each under its own name (listed once: the table and the names looked up
/// both come from this list).
#define CALSA_FUNCTIONS(X) \
    X(snd_pcm_open) \
    X(snd_pcm_set_params) \
    X(snd_pcm_writei) \
    X(snd_pcm_recover) \
    X(snd_pcm_drain) \
    X(snd_pcm_close) \
    X(snd_strerror) \
    X(snd_lib_error_set_handler)

#define CALSA_ENTRY(function) __typeof__(function) *_Nonnull function;
typedef struct {
    CALSA_FUNCTIONS(CALSA_ENTRY)
} CALSA_API;
#undef CALSA_ENTRY

/// The table, loaded once (thread-safe); NULL when libasound.so.2 or one of its functions is missing, and then
/// `*error` (when given) says what, for a message that tells the installer which package to add.
const CALSA_API *_Nullable CALSA_load(const char *_Nullable *_Nullable error);

#endif
