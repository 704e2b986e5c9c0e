// A table of functions from a shared library opened at first use (dlopen), for the C modules of libraries
// kioskd loads only where configured (CCUPS, CESpeak, CALSA, CGPIOD): each lists its functions once, in an
// X-macro that makes both its table's typed entries and the names looked up here.
#ifndef CLIBRARYTABLE_H
#define CLIBRARYTABLE_H

#include <pthread.h>
#include <stddef.h>

typedef struct {
    const char *soname;
    const char *const *names;
    size_t count;
    /// The module's table: a struct of `count` function pointers, in the order of `names`.
    void *entries;
    pthread_mutex_t lock;
    int tried;
    int loaded;
    char failure[256];
} CLibraryTable;

/// A table for `soname`, its names (an array) and its entries (a struct of function pointers).
#define CLIBRARY_TABLE(soname_, names_, entries_)                                                        \
    {soname_, names_, sizeof(names_) / sizeof((names_)[0]), &(entries_), PTHREAD_MUTEX_INITIALIZER, 0, 0, {0}}

/// The entries, loaded once (thread-safe); NULL when the library or one of its functions is missing, and then
/// `*error` (when given) says what, for a message that tells the installer which package to add.
const void *CLibraryTable_load(CLibraryTable *table, const char **error);

#endif
