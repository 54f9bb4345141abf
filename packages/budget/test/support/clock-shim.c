/*
 * A clock shim for a test server process (LD_PRELOAD): the wall clock (CLOCK_REALTIME,
 * gettimeofday, time) moved by a whole number of seconds read, at every call, from the file
 * FAKETIME_TIMESTAMP_FILE names ("+86400", "-5"; what fake-clock.ts writes). The monotonic clocks
 * are left alone, so the server's timers run as they would.
 *
 * libfaketime does the same, but redis-server (its allocator asks the time while libfaketime
 * itself starts) fails at start under it, and it reads the file with fopen, which allocates: a
 * PostgreSQL backend asking the time in a signal handler (its timeouts) must not. This shim
 * allocates nothing and calls nothing that could: the time and the file are read with raw system
 * calls, so it is safe in a signal handler. Both servers run under it.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long offset_seconds(void) {
  const char *path = getenv("FAKETIME_TIMESTAMP_FILE");
  if (path == NULL) return 0;
  long fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[32];
  long length = syscall(SYS_read, fd, text, sizeof text - 1);
  syscall(SYS_close, fd);
  if (length <= 0) return 0;
  long value = 0;
  int sign = 1;
  for (long i = 0; i < length; i++) {
    char c = text[i];
    if (c == '-') sign = -1;
    else if (c >= '0' && c <= '9') value = value * 10 + (c - '0');
    else if (c != '+' && c != ' ') break;
  }
  return sign * value;
}

static int is_wall(clockid_t clock) {
  return clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE;
}

int clock_gettime(clockid_t clock, struct timespec *now) {
  long result = syscall(SYS_clock_gettime, clock, now);
  if (result == 0 && now != NULL && is_wall(clock)) now->tv_sec += offset_seconds();
  return (int)result;
}

int gettimeofday(struct timeval *restrict now, void *restrict zone) {
  struct timespec wall;
  long result = syscall(SYS_clock_gettime, CLOCK_REALTIME, &wall);
  if (result != 0) return (int)result;
  if (now != NULL) {
    now->tv_sec = wall.tv_sec + offset_seconds();
    now->tv_usec = wall.tv_nsec / 1000;
  }
  (void)zone;
  return 0;
}

time_t time(time_t *out) {
  struct timespec wall;
  syscall(SYS_clock_gettime, CLOCK_REALTIME, &wall);
  time_t seconds = wall.tv_sec + offset_seconds();
  if (out != NULL) *out = seconds;
  return seconds;
}
