#include "CCUPS.h"

#include "CLibraryTable.h"

static CCUPS_API api;
#define CCUPS_NAME(function) #function,
static const char *const names[] = {CCUPS_FUNCTIONS(CCUPS_NAME)};
#undef CCUPS_NAME
static CLibraryTable table = CLIBRARY_TABLE("libcups.so.2", names, api);

const CCUPS_API *CCUPS_load(const char **error) { return CLibraryTable_load(&table, error); }

