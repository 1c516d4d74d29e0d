/* Latency of a random line of a buffer: a pointer chase over a random cyclic
 * permutation of its 64-byte lines (docs/table.md, "What memory costs").
 *
 *   gcc -O2 docs/scripts/pointer_chase.c -o /tmp/chase
 *   /tmp/chase MIB HUGE        # HUGE 1: madvise(MADV_HUGEPAGE), 0: no huge pages
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s MIB HUGE\n", argv[0]);
    return 2;
  }
  size_t bytes = (size_t)atol(argv[1]) << 20, align = 2 << 20;
  int huge = atoi(argv[2]);
  char *raw = mmap(0, bytes + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (bytes == 0 || raw == MAP_FAILED) {
    fprintf(stderr, "cannot map %s MiB\n", argv[1]);
    return 1;
  }
  char *p = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
  madvise(p, bytes, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
  memset(p, 1, bytes);
  size_t n = bytes / 64;
  uint32_t *perm = malloc(n * sizeof *perm);
  for (size_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
  uint64_t s = 88172645463325252ull;
  for (size_t i = n - 1; i > 0; i--) {
    s ^= s << 13, s ^= s >> 7, s ^= s << 17;
    size_t j = s % (i + 1);
    uint32_t t = perm[i];
    perm[i] = perm[j], perm[j] = t;
  }
  for (size_t i = 0; i < n; i++)
    *(uint64_t *)(p + (size_t)perm[i] * 64) = (uint64_t)(p + (size_t)perm[(i + 1) % n] * 64);
  uint64_t *q = (uint64_t *)(p + (size_t)perm[0] * 64);
  long iters = 20000000;
  double t0 = now();
  for (long i = 0; i < iters; i++) q = (uint64_t *)*q;
  printf("%s MiB huge=%d: %.1f ns a line (%p)\n", argv[1], huge, (now() - t0) / iters * 1e9, (void *)q);
  return 0;
}
