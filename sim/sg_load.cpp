// sg_load.cpp - load a SimGrid platform, turning SimGrid's C++ exceptions into an error string.
// (SimGrid reports platform errors by throwing; the rest of mring is C.)
extern "C" {
#include "swprof.h"
}

#include <simgrid/engine.h>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstdio>
#include <exception>
#include <vector>

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

// A software profile's factors (swprof.h) as SimGrid's network factor callbacks: the factor of the
// message's size multiplies the route's latency, and bounds the flow's rate to factor x bandwidth.
// Installed once there are pieces; later calls replace the pieces the callbacks read.
static std::vector<mring_piece_t> lat_pieces, bw_pieces;
static bool factors_set;

extern "C" void mring_sg_set_factors(const mring_piece_t *lat, int nlat, const mring_piece_t *bw, int nbw)
{
    lat_pieces.assign(lat, lat + nlat);
    bw_pieces.assign(bw, bw + nbw);
    if (factors_set || (nlat == 0 && nbw == 0))
        return;
    auto *model = simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model();
    model->set_lat_factor_cb([](double size, const simgrid::s4u::Host *, const simgrid::s4u::Host *,
                                const std::vector<simgrid::s4u::Link *> &,
                                const std::unordered_set<simgrid::s4u::NetZone *> &) {
        return mring_swprof_factor(lat_pieces.data(), (int)lat_pieces.size(), size);
    });
    model->set_bw_factor_cb([](double size, const simgrid::s4u::Host *, const simgrid::s4u::Host *,
                               const std::vector<simgrid::s4u::Link *> &,
                               const std::unordered_set<simgrid::s4u::NetZone *> &) {
        return mring_swprof_factor(bw_pieces.data(), (int)bw_pieces.size(), size);
    });
    factors_set = true;
}
