// LD_PRELOAD stand-in for a misbehaving NCCL or network plugin inside a cctune worker
// (issue 24 F1): acts only in `cctune __worker` processes, never in the supervisor or the
// GPU query. BAD_BYTES_MODE=log: junk that is not UTF-8 on stderr (the worker log), then
// SIGSEGV. BAD_BYTES_MODE=fd3: a line that is not UTF-8 on the message pipe (fd 3).
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int in_worker(void) {
  char buf[8192];
  const int fd = open("/proc/self/cmdline", O_RDONLY);
  if (fd < 0) return 0;
  const ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  int worker = 0, query = 0;
  for (const char* p = buf; p < buf + n; p += strlen(p) + 1) {
    worker |= strcmp(p, "__worker") == 0;
    query |= strcmp(p, "--query") == 0;
  }
  return worker && !query;
}

static void* misbehave(void* unused) {
  (void)unused;
  const char* mode = getenv("BAD_BYTES_MODE");
  usleep(50000);
  if (mode && strcmp(mode, "log") == 0) {
    static const char junk[] = "plugin: \xff\xfe binary \xc3 junk \x1b]0;PWNED\x07\n";
    (void)!write(2, junk, sizeof junk - 1);
    raise(SIGSEGV);
  } else if (mode && strcmp(mode, "fd3") == 0) {
    static const char junk[] = "\xff\xfe\n";
    (void)!write(3, junk, sizeof junk - 1);
  }
  return NULL;
}

__attribute__((constructor)) static void start(void) {
  if (!in_worker()) return;
  pthread_t t;
  if (pthread_create(&t, NULL, misbehave, NULL) == 0) pthread_detach(t);
}
