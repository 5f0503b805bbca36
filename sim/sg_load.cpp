// sg_load.cpp - load a SimGrid platform, turning SimGrid's C++ exceptions into an error string.
// (SimGrid reports platform errors by throwing; the rest of mring is C.)
extern "C" {
#include "swprof.h"
}

#include <simgrid/engine.h>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstdio>
#include <exception>
#include <vector>

// The first line of an exception's message into err (SimGrid's messages can span several lines).
static int first_line(const std::exception &e, char *err, size_t errlen)
{
    const char *what = e.what(), *nl = what;
    while (*nl && *nl != '\n')
        nl++;
    std::snprintf(err, errlen, "%.*s", (int)(nl - what), what);
    return -1;
}

// simgrid_init with the --cfg options in argv; an unknown or bad option throws (std::out_of_range,
// xbt::ParseError): its first line goes to err and -1 is returned.
extern "C" int mring_sg_init(int *argc, char **argv, char *err, size_t errlen)
{
    try {
        simgrid_init(argc, argv);
        return 0;
    } catch (const std::exception &e) {
        return first_line(e, err, errlen);
    }
}

// simgrid_load_platform; a parse error throws: its first line goes to err and -1 is returned.
extern "C" int mring_sg_load_platform(const char *file, char *err, size_t errlen)
{
    try {
        simgrid_load_platform(file);
        return 0;
    } catch (const std::exception &e) {
        return first_line(e, err, errlen);
    }
}

// A software profile's factors (swprof.h) as SimGrid's network factor callbacks: the factor of the
// message's size multiplies the route's latency, and bounds the flow's rate to factor x bandwidth.
// Installed once there are pieces; later calls replace the pieces the callbacks read.  SimGrid refuses
// callbacks beside --cfg network/bandwidth-factor or latency-factor (std::invalid_argument): -1 and err.
static std::vector<mring_piece_t> lat_pieces, bw_pieces;
static bool factors_set;

extern "C" int mring_sg_set_factors(const mring_piece_t *lat, int nlat, const mring_piece_t *bw, int nbw, char *err,
                                    size_t errlen)
{
    lat_pieces.assign(lat, lat + nlat);
    bw_pieces.assign(bw, bw + nbw);
    if (factors_set || (nlat == 0 && nbw == 0))
        return 0;
    auto *model = simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model();
    try {
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
    } catch (const std::exception &e) {
        return first_line(e, err, errlen);
    }
    factors_set = true;
    return 0;
}

// Whether SimGrid finds a route from a to b: it throws when a zone has no route between two of its points
// (e.g. "Bad gateways for route"), which, uncaught during a run, aborts it.  Returns 0, or -1 with the pair
// and SimGrid's first line in err.
extern "C" int mring_sg_route_ok(sg_host_t a, sg_host_t b, char *err, size_t errlen)
{
    std::vector<simgrid::s4u::Link *> links;
    double lat = 0;
    try {
        a->route_to(b, links, &lat);
        if (links.empty()) { /* SimGrid 3.32's Full zones return no links where no <route> joins two hosts */
            std::snprintf(err, errlen, "no route from host %s to host %s (no link on it)", a->get_cname(),
                          b->get_cname());
            return -1;
        }
        return 0;
    } catch (const std::exception &e) {
        char why[256];
        first_line(e, why, sizeof why);
        std::snprintf(err, errlen, "no route from host %s to host %s (%s)", a->get_cname(), b->get_cname(), why);
        return -1;
    }
}
