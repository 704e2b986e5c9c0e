#include "CLibraryTable.h"

#include <dlfcn.h>
#include <stdio.h>

const void *CLibraryTable_load(CLibraryTable *table, const char **error) {
    pthread_mutex_lock(&table->lock);
    if (!table->tried) {
        table->tried = 1;
        void *library = dlopen(table->soname, RTLD_NOW | RTLD_LOCAL);
        if (library == NULL) {
            snprintf(table->failure, sizeof table->failure, "%s", dlerror());
        } else {
            // Every entry, by its own name; the first one missing fails the whole table (an unusable library).
            void **entries = table->entries;
            table->loaded = 1;
            for (size_t i = 0; i < table->count && table->loaded; i++) {
                if ((entries[i] = dlsym(library, table->names[i])) == NULL) {
                    snprintf(table->failure, sizeof table->failure, "%s has no %s", table->soname, table->names[i]);
                    table->loaded = 0;
                }
            }
        }
    }
    pthread_mutex_unlock(&table->lock);
    if (!table->loaded && error != NULL) *error = table->failure;
    return table->loaded ? table->entries : NULL;
}
