// The pty shims: posix_openpt, grantpt, unlockpt and ptsname_r are declared only with _GNU_SOURCE, which
// must not leak into the header (see CLinuxShims.h). The ioctl shims are static inline in the header.
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "CLinuxShims.h"

int CLinuxShims_openpt(int flags) {
    int fd = posix_openpt(flags);
    if (fd < 0) return -1;
    if (grantpt(fd) != 0 || unlockpt(fd) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int CLinuxShims_ptsname(int fd, char *buffer, size_t length) {
    int rc = ptsname_r(fd, buffer, length);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}
