/*
 * fuzz.h - what the fuzz targets share (fuzz/README.md).
 *
 * Each fuzz/fuzz_READER.c defines LLVMFuzzerTestOneInput for one of mring's readers.  A target checks
 * the reader's contract, not only that it survives: an input it refuses gets exactly one non-empty
 * line of reason; an input it accepts yields values its callers may rely on.  A broken contract calls
 * fuzz_fail, which aborts, so libFuzzer (scons fuzz) records the input as a crash and the replay
 * program (the tests) fails on it.
 */
#ifndef MRING_FUZZ_H
#define MRING_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Print "fuzz: <what>" on stderr and abort. */
_Noreturn void fuzz_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Abort unless err is one line: non-empty, no newline.  what names the reader. */
void fuzz_one_line(const char *what, const char *err);

/*
 * The input as a file the reader can open by path: an anonymous in-memory file (memfd), named
 * /proc/self/fd/N in path (len bytes).  Returns its descriptor (close it when done), or aborts.
 */
int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len);

/* The input as a NUL-terminated string (malloc'd; free it), or aborts when memory runs out. */
char *fuzz_string(const uint8_t *data, size_t size);

#endif
