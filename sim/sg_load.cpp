// sg_load.cpp - load a SimGrid platform, turning SimGrid's C++ exceptions into an error string.
// (SimGrid reports platform errors by throwing; the rest of mring is C.)
#include <simgrid/engine.h>

#include <cstdio>
#include <exception>

// simgrid_init with the --cfg options in argv; an unknown or bad option throws (std::out_of_range,
// xbt::ParseError): its first line goes to err and -1 is returned.
extern "C" int mring_sg_init(int *argc, char **argv, char *err, size_t errlen)
{
    try {
        simgrid_init(argc, argv);
        return 0;
    } catch (const std::exception &e) {
        const char *what = e.what(), *nl = what;
        while (*nl && *nl != '\n')
            nl++;
        std::snprintf(err, errlen, "%.*s", (int)(nl - what), what);
        return -1;
    }
}

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
