// Shims for Linux APIs that Swift cannot call directly: ioctl(2) is variadic and its request codes are
// macros; the pty calls are declared only for _GNU_SOURCE builds, so they live in shim.c (defining
// _GNU_SOURCE here would change system types such as fd_set for every module that imports this one).
// Each shim does one job and leaves errno for the caller.
#ifndef CLINUXSHIMS_H
#define CLINUXSHIMS_H

#include <stddef.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <linux/input.h>
#include <malloc.h>

/// TIOCEXCL: no other open(2) of this tty succeeds until TIOCNXCL or close (gpsd does the same).
static inline int CLinuxShims_tiocexcl(int fd) { return ioctl(fd, TIOCEXCL); }

/// TIOCNXCL: give up exclusive mode before closing, so the next user is not locked out.
static inline int CLinuxShims_tiocnxcl(int fd) { return ioctl(fd, TIOCNXCL); }

/// TIOCMGET: read the modem lines (TIOCM_CTS, TIOCM_DSR, ...) of a serial port.
static inline int CLinuxShims_tiocmget(int fd, int *bits) { return ioctl(fd, TIOCMGET, bits); }

/// EVIOCGRAB: exclusive grab of an evdev node so scanned keys reach no other reader.
static inline int CLinuxShims_eviocgrab(int fd, int grab) { return ioctl(fd, EVIOCGRAB, grab); }

/// malloc_trim(3): give freed heap pages back to the system (glibc only; Swift's Glibc module omits it).
static inline int CLinuxShims_malloc_trim(size_t pad) { return malloc_trim(pad); }

/// mallopt(M_ARENA_MAX, n): at most n malloc arenas (glibc's default is 8 per core).
static inline int CLinuxShims_limit_malloc_arenas(int n) { return mallopt(M_ARENA_MAX, n); }

/// posix_openpt(3) followed by grantpt and unlockpt: a pty master whose slave can be opened.
int CLinuxShims_openpt(int flags);

/// ptsname_r(3): the slave's path, thread-safe. Returns 0, or -1 with errno set.
int CLinuxShims_ptsname(int fd, char *buffer, size_t length);

#endif
