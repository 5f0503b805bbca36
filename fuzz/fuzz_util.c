/* fuzz_util.c - the helpers of fuzz.h. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fuzz: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void fuzz_one_line(const char *what, const char *err)
{
    if (!err[0])
        fuzz_fail("%s refused the input without a reason", what);
    if (strchr(err, '\n'))
        fuzz_fail("%s refused the input with more than one line: %s", what, err);
}

int fuzz_file(const uint8_t *data, size_t size, char *path, size_t len)
{
    int fd = memfd_create("mring-fuzz", 0);
    if (fd < 0)
        fuzz_fail("memfd_create failed");
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            fuzz_fail("writing the input to the memfd failed");
        done += (size_t)n;
    }
    snprintf(path, len, "/proc/self/fd/%d", fd);
    return fd;
}

char *fuzz_string(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        fuzz_fail("out of memory");
    memcpy(s, data, size);
    s[size] = '\0';
    return s;
}
