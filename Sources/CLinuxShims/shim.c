// All shims are static inline in include/CLinuxShims.h; this file exists because a C target needs a source.
#include "CLinuxShims.h"
