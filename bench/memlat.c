/* bench/memlat.c — load-to-use latency of this machine's caches and memory: a pointer
 * chase through one cache line per step, in a random cyclic order over a buffer of each
 * size, so that every load waits for the one before it and no prefetcher can guess the
 * next. What a simulation event costs on a large network depends on these figures more
 * than on the instruction count (docs/speed.md, Where a fat-tree event's time goes).
 *
 *   gcc -O2 bench/memlat.c -o /tmp/memlat && taskset -c 1 /tmp/memlat [--huge]
 *
 * --huge asks for transparent huge pages (madvise), as the cclab command does for its
 * heap, so that beyond the L2 the figure is the cache's or memory's, not the TLB's.
 * Prints one line per buffer size: nanoseconds per load (the mean of 20 M loads).
 */
#define _GNU_SOURCE
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

/* splitmix64: a fixed, portable random stream (rand() differs between C libraries). */
static uint64_t next(uint64_t *x) {
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int main(int argc, char **argv) {
    int huge = argc > 1 && strcmp(argv[1], "--huge") == 0;
    if (argc > 1 && !huge) {
        fprintf(stderr, "usage: %s [--huge]\n", argv[0]);
        return 2;
    }
    static const size_t kib[] = {16, 32, 256, 1024, 2048, 4096, 16384, 65536, 262144, 1048576};
    const size_t align = 2u << 20;
    for (size_t s = 0; s < sizeof kib / sizeof kib[0]; s++) {
        size_t bytes = kib[s] << 10, lines = bytes / 64;
        size_t room = (bytes + align - 1) / align * align;
        char *buf = aligned_alloc(align, room);
        size_t *order = malloc(lines * sizeof *order);
        if (!buf || !order) {
            fprintf(stderr, "out of memory at %zu KiB\n", kib[s]);
            return 1;
        }
        if (huge)
            madvise(buf, room, MADV_HUGEPAGE);
        uint64_t seed = 1;
        for (size_t i = 0; i < lines; i++)
            order[i] = i;
        for (size_t i = lines - 1; i > 0; i--) {
            size_t j = next(&seed) % (i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (size_t i = 0; i < lines; i++)
            *(void **)(buf + order[i] * 64) = buf + order[(i + 1) % lines] * 64;
        void *p = buf + order[0] * 64;
        for (size_t i = 0; i < lines; i++) /* once round, to warm what fits */
            p = *(void **)p;
        const size_t loads = 20000000;
        double t0 = now();
        for (size_t i = 0; i < loads; i++)
            p = *(void **)p;
        double t1 = now();
        /* p is printed so the chase cannot be optimised away. */
        printf("%9zu KiB  %7.2f ns per load  (%p)\n", kib[s], (t1 - t0) / loads * 1e9, p);
        free(order);
        free(buf);
    }
    return 0;
}
