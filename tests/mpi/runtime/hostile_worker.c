/* An LD_PRELOAD library that makes `cctune __worker` processes misbehave the way code injected
 * into a worker (a plugin, a hostile NCCL build) could; every other process it loads into is
 * left alone. HOSTILE_MODE picks the act, done from a thread 0.2 s after start:
 *   forge    HOSTILE_N point messages for indexes 0..N-1 at 1000 GB/s, on the message fd
 *   repeat   one "skipped" point 0 whose reason holds terminal escapes
 *   orphan   a child that leaves the process group (setsid) and sleeps 60 s
 * Used by tests/mpi/runtime/hostile.py. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { message_fd = 3 };

static int in_measuring_worker(void) {
  char args[8192];
  const int fd = open("/proc/self/cmdline", O_RDONLY);
  if (fd < 0) return 0;
  const ssize_t n = read(fd, args, sizeof args - 1);
  close(fd);
  if (n <= 0) return 0;
  args[n] = 0;
  int worker = 0, query = 0;
  for (const char* a = args; a < args + n; a += strlen(a) + 1) {
    worker |= strcmp(a, "__worker") == 0;
    query |= strcmp(a, "--query") == 0;
  }
  return worker && !query;
}

/* One write() per line: pipe writes up to PIPE_BUF bytes are atomic, so the forged lines never
 * split the worker's own and the supervisor sees them whole. */
static void forge(long count) {
  char line[1024];
  for (long i = 0; i < count; ++i) {
    const int n = snprintf(line, sizeof line,
                           "{\"type\":\"point\",\"point\":%ld,\"result\":{\"collective\":\"allreduce\",\"dtype\":\"float32\","
                           "\"size_bytes\":8,\"status\":\"ok\",\"batch_us\":1,\"iter_us\":{\"median\":1,\"mean\":1,\"min\":1,"
                           "\"max\":1,\"p99\":1,\"stddev\":0,\"cv\":0,\"count\":1},\"algbw_GBps\":1000,\"busbw_GBps\":1000}}\n",
                           i);
    if (n <= 0 || write(message_fd, line, (size_t)n) != n) return;
  }
}

static void* act(void* unused) {
  (void)unused;
  const char* mode = getenv("HOSTILE_MODE");
  if (!mode) return NULL;
  usleep(200000);
  if (strcmp(mode, "forge") == 0) {
    forge(getenv("HOSTILE_N") ? atol(getenv("HOSTILE_N")) : 20000);
  } else if (strcmp(mode, "repeat") == 0) {
    static const char line[] =
        "{\"type\":\"point\",\"point\":0,\"result\":{\"collective\":\"allreduce\",\"dtype\":\"float32\","
        "\"size_bytes\":8,\"status\":\"skipped\",\"reason\":\"\\u001b]0;TITLE\\u0007\\u001b[31mred\\nsecond line\"}}\n";
    if (write(message_fd, line, sizeof line - 1) < 0) return NULL;
  } else if (strcmp(mode, "orphan") == 0) {
    if (fork() == 0) {
      setsid();
      sleep(60);
      _exit(0);
    }
  }
  return NULL;
}

__attribute__((constructor)) static void start(void) {
  if (!in_measuring_worker()) return;
  pthread_t t;
  if (pthread_create(&t, NULL, act, NULL) == 0) pthread_detach(t);
}
