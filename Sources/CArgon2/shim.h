// The Argon2 reference implementation (libargon2).
#ifndef PORTICO_CARGON2_SHIM_H
#define PORTICO_CARGON2_SHIM_H
#include <argon2.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

// Makes glibc serve blocks of 1 MiB and more (Argon2id's ~19 MiB) from mmap and return them
// when freed. By default glibc raises that threshold after the first such free and keeps the
// block in the freeing thread's arena, so with many worker threads the process would keep one
// block per arena. Elsewhere: nothing to do.
static inline void portico_argon2_return_memory_when_freed(void) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}
#endif
