// sg_load.cpp - load a SimGrid platform, turning SimGrid's C++ exceptions into an error string.
// (SimGrid reports platform errors by throwing; the rest of mring is C.)
#include <simgrid/engine.h>

#include <cstdio>
#include <exception>

extern "C" int mring_sg_load_platform(const char *file, char *err, size_t errlen)
{
    try {
        simgrid_load_platform(file);
        return 0;
    } catch (const std::exception &e) {
        std::snprintf(err, errlen, "%s", e.what());
        return -1;
    }
}
