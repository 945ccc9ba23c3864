/* Basic-block coverage of the extension, per test (tools/asan_select.py).
 *
 * The extension is built with -fsanitize-coverage=trace-pc: the compiler calls
 * __sanitizer_cov_trace_pc() at the start of every basic block.  This file (built without that
 * flag, as a shared library preloaded into the measuring Python) records each distinct return
 * address, as an offset from the start of the extension's mapping, in an open-addressing set.
 * The pytest plugin empties the set before each test and reads it after.  A child process (a
 * test that starts `python -m wpart ...` inherits the preload) writes its set at exit to the
 * file named by ASAN_COVER_CHILD plus its pid, which the plugin adds to the test that started
 * it.  A tool, not part of
 * wpart: nothing in the package or the core links it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define COVER_BITS 20
#define COVER_SLOTS (1u << COVER_BITS)

static uintptr_t cover_slot[COVER_SLOTS]; /* 0 = empty; else offset + 1 */
static size_t cover_count;
static uintptr_t cover_base;
static int cover_is_parent;

void __sanitizer_cov_trace_pc(void) {
  uintptr_t pc = (uintptr_t)__builtin_return_address(0);
  if (cover_base == 0) {
    Dl_info info;
    if (dladdr((void *)pc, &info) == 0 || info.dli_fbase == NULL) return;
    cover_base = (uintptr_t)info.dli_fbase;
  }
  uintptr_t key = pc - cover_base + 1;
  size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> (64 - COVER_BITS));
  for (size_t probe = 0; probe < COVER_SLOTS; probe++) {
    size_t i = (h + probe) & (COVER_SLOTS - 1);
    uintptr_t cur = __atomic_load_n(&cover_slot[i], __ATOMIC_RELAXED);
    if (cur == key) return;
    if (cur == 0) {
      uintptr_t expected = 0;
      if (__atomic_compare_exchange_n(&cover_slot[i], &expected, key, 0, __ATOMIC_RELAXED,
                                      __ATOMIC_RELAXED)) {
        __atomic_add_fetch(&cover_count, 1, __ATOMIC_RELAXED);
        return;
      }
      if (expected == key) return;
    }
  }
}

/* Empty the set. */
void asan_cover_reset(void) {
  for (size_t i = 0; i < COVER_SLOTS; i++) cover_slot[i] = 0;
  cover_count = 0;
}

/* Copy up to cap offsets into out; returns how many the set holds. */
size_t asan_cover_read(uint64_t *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < COVER_SLOTS; i++) {
    if (cover_slot[i] == 0) continue;
    if (n < cap) out[n] = (uint64_t)(cover_slot[i] - 1);
    n++;
  }
  return n;
}

/* The measuring process: its set is read by the plugin, not written at exit. */
void asan_cover_mark_parent(void) { cover_is_parent = 1; }

__attribute__((destructor)) static void cover_write_at_exit(void) {
  const char *prefix = getenv("ASAN_COVER_CHILD");
  if (cover_is_parent || prefix == NULL || cover_count == 0) return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%ld", prefix, (long)getpid());
  FILE *fh = fopen(path, "w");
  if (fh == NULL) return;
  for (size_t i = 0; i < COVER_SLOTS; i++)
    if (cover_slot[i] != 0) fprintf(fh, "%llu\n", (unsigned long long)(cover_slot[i] - 1));
  fclose(fh);
}
