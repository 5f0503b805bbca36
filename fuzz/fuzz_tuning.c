/*
 * fuzz_tuning.c - the tuning-file reader (mring_tuning_load: JSON written by `mring tune --out`, read
 * by mring-bench --tuning and the interposer's MRING_TUNING).
 *
 * Contract: a refused file gets one line; an accepted file is for 1..MRING_MAX_RANKS ranks, and a pick
 * for its rank count either gives a configuration on that many ranks that mring_config_check accepts
 * and (on up to 64 ranks) the verifier proves at a few counts, or refuses in one line; a pick for
 * another rank count is refused in one line.
 */
#include "fuzz.h"

#include "config.h"
#include "topology.h"
#include "tuning.h"
#include "verify.h"

#include <unistd.h>

static void check_pick(const mring_tuning_t *t, int nranks, int64_t bytes)
{
    mring_config_t c;
    char err[512] = "";
    if (mring_tuning_pick(t, nranks, bytes, &c, err, sizeof err)) {
        fuzz_one_line("mring_tuning_pick", err);
        return;
    }
    if (nranks != mring_tuning_ranks(t) || c.topo.nranks != nranks)
        fuzz_fail("a pick for %d ranks on a file for %d gave a configuration on %d ranks", nranks,
                  mring_tuning_ranks(t), c.topo.nranks);
    if (mring_config_check(&c, err, sizeof err))
        fuzz_fail("the tuning file's configuration for %lld bytes is refused: %s", (long long)bytes, err);
    if (nranks > 64)
        return;
    for (int64_t count = 0; count < 70; count += 23) {
        mring_verify_result_t res;
        if (mring_verify(&c, (mring_call_t){count, 4}, &res) || !res.ok)
            fuzz_fail("the tuning file's configuration for %lld bytes fails the verifier at count %lld: %s",
                      (long long)bytes, (long long)count, res.msg);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64], err[512] = "";
    int fd = fuzz_file(data, size, path, sizeof path);
    mring_tuning_t *t = mring_tuning_load(path, err, sizeof err);
    close(fd);
    if (!t) {
        fuzz_one_line("mring_tuning_load", err);
        return 0;
    }
    int P = mring_tuning_ranks(t);
    if (P < 1 || P > MRING_MAX_RANKS)
        fuzz_fail("a tuning file for %d ranks was accepted", P);
    static const int64_t sizes[] = {0, 1, 4096, 1 << 20, INT64_MAX};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        check_pick(t, P, sizes[i]);
    check_pick(t, P + 1, 4096);
    mring_tuning_free(t);
    return 0;
}
