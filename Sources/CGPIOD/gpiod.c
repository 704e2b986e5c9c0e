#include "CGPIOD.h"

#include "CLibraryTable.h"

static CGPIOD_API api;
#define CGPIOD_NAME(function) #function,
static const char *const names[] = {CGPIOD_FUNCTIONS(CGPIOD_NAME)};
#undef CGPIOD_NAME
static CLibraryTable table = CLIBRARY_TABLE("libgpiod.so.2", names, api);

const CGPIOD_API *CGPIOD_load(const char **error) { return CLibraryTable_load(&table, error); }

