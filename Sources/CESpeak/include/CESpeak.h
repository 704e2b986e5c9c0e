// libespeak-ng, opened when voice is first configured (dlopen), not linked: a kiosk without a speaker never
// maps it (nor the voice data it reads). The table's entries have exactly the types of <espeak-ng/speak_lib.h>
// (typeof), so a call through it is checked as a direct call would be.
#ifndef CESPEAK_H
#define CESPEAK_H

#include <espeak-ng/speak_lib.h>

/// The libespeak-ng functions kioskd calls, each under its own name (listed once: the table and the names looked up
/// both come from this list).
#define CESPEAK_FUNCTIONS(X) \
    X(espeak_Initialize) \
    X(espeak_SetSynthCallback) \
    X(espeak_SetVoiceByName) \
    X(espeak_SetParameter) \
    X(espeak_Synth) \
    X(espeak_Synchronize)

#define CESPEAK_ENTRY(function) __typeof__(function) *_Nonnull function;
typedef struct {
    CESPEAK_FUNCTIONS(CESPEAK_ENTRY)
} CESPEAK_API;
#undef CESPEAK_ENTRY

/// The table, loaded once (thread-safe); NULL when libespeak-ng.so.1 or one of its functions is missing, and
/// then `*error` (when given) says what, for a message that tells the installer which package to add.
const CESPEAK_API *_Nullable CESPEAK_load(const char *_Nullable *_Nullable error);

/// Speaks `text` (UTF-8) synchronously with the voice set last: `chunk` gets the samples as espeak-ng makes
/// them (mono, signed 16 bit, at the rate espeak_Initialize answered) and returns nonzero to stop early.
/// Answers espeak_Synth's result. Not reentrant: one thread speaks.
int CESPEAK_speak(const CESPEAK_API *_Nonnull api, const char *_Nonnull text,
                  int (*_Nonnull chunk)(const short *_Nonnull samples, int count, void *_Nullable context),
                  void *_Nullable context);

#endif
