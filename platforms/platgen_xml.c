/* platgen_xml.c - SimGrid platform elements written with libxml2's xmlTextWriter (see platgen_xml.h). */
#include "platgen_xml.h"

#include <libxml/xmlwriter.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct xw {
    xmlTextWriterPtr w;
    int failed;
};

#define X(w, call)                                                                                               \
    do {                                                                                                         \
        if (!(w)->failed && (call) < 0)                                                                          \
            (w)->failed = 1;                                                                                     \
    } while (0)

static const xmlChar *u(const char *s) { return (const xmlChar *)s; }

xw_t *xw_open(const char *path)
{
    xw_t *w = calloc(1, sizeof *w);
    if (!w || !(w->w = xmlNewTextWriterFilename(path, 0))) {
        free(w);
        return NULL;
    }
    xmlTextWriterSetIndent(w->w, 1);
    xmlTextWriterSetIndentString(w->w, u("  "));
    return w;
}

void xw_start_platform(xw_t *w)
{
    X(w, xmlTextWriterStartDocument(w->w, "1.0", "UTF-8", NULL));
    X(w, xmlTextWriterWriteDTD(w->w, u("platform"), NULL, u("https://simgrid.org/simgrid.dtd"), NULL));
    X(w, xmlTextWriterStartElement(w->w, u("platform")));
    X(w, xmlTextWriterWriteAttribute(w->w, u("version"), u("4.1")));
}

/* An XML comment may not hold "--" (XML 1.0, 2.5): each becomes "- -", so strict parsers read the file too. */
void xw_comment(xw_t *w, const char *text)
{
    size_t n = strlen(text), k = 0;
    char *c = malloc(2 * n + 1);
    if (!c) {
        X(w, -1);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        c[k++] = text[i];
        if (text[i] == '-' && (text[i + 1] == '-' || (i + 1 == n)))
            c[k++] = ' ';
    }
    c[k] = '\0';
    X(w, xmlTextWriterWriteComment(w->w, u(c)));
    free(c);
}

void xw_start_zone(xw_t *w, const char *id, const char *routing)
{
    X(w, xmlTextWriterStartElement(w->w, u("zone")));
    X(w, xmlTextWriterWriteAttribute(w->w, u("id"), u(id)));
    X(w, xmlTextWriterWriteAttribute(w->w, u("routing"), u(routing)));
}

void xw_prop(xw_t *w, const char *id, const char *value)
{
    X(w, xmlTextWriterStartElement(w->w, u("prop")));
    X(w, xmlTextWriterWriteAttribute(w->w, u("id"), u(id)));
    X(w, xmlTextWriterWriteAttribute(w->w, u("value"), u(value)));
    X(w, xmlTextWriterEndElement(w->w));
}

void xw_host(xw_t *w, const char *id, double speed, int rank)
{
    X(w, xmlTextWriterStartElement(w->w, u("host")));
    X(w, xmlTextWriterWriteAttribute(w->w, u("id"), u(id)));
    X(w, xmlTextWriterWriteFormatAttribute(w->w, u("speed"), "%.6gGf", speed / 1e9));
    if (rank >= 0) {
        char r[16];
        snprintf(r, sizeof r, "%d", rank);
        xw_prop(w, "mring_rank", r);
    }
    X(w, xmlTextWriterEndElement(w->w));
}

void xw_router(xw_t *w, const char *id)
{
    X(w, xmlTextWriterStartElement(w->w, u("router")));
    X(w, xmlTextWriterWriteAttribute(w->w, u("id"), u(id)));
    X(w, xmlTextWriterEndElement(w->w));
}

void xw_link(xw_t *w, const char *id, double bw, double lat)
{
    X(w, xmlTextWriterStartElement(w->w, u("link")));
    X(w, xmlTextWriterWriteAttribute(w->w, u("id"), u(id)));
    X(w, xmlTextWriterWriteFormatAttribute(w->w, u("bandwidth"), "%.9gGBps", bw / 1e9));
    X(w, xmlTextWriterWriteFormatAttribute(w->w, u("latency"), "%.9gus", lat * 1e6));
    X(w, xmlTextWriterWriteAttribute(w->w, u("sharing_policy"), u("SPLITDUPLEX")));
    X(w, xmlTextWriterEndElement(w->w));
}

static void link_ctn(xw_t *w, const char *id, const char *direction)
{
    X(w, xmlTextWriterStartElement(w->w, u("link_ctn")));
    X(w, xmlTextWriterWriteAttribute(w->w, u("id"), u(id)));
    X(w, xmlTextWriterWriteAttribute(w->w, u("direction"), u(direction)));
    X(w, xmlTextWriterEndElement(w->w));
}

void xw_route(xw_t *w, const char *src, const char *dst, const char *link) { xw_route2(w, src, dst, link, NULL); }

void xw_route2(xw_t *w, const char *src, const char *dst, const char *up_link, const char *down_link)
{
    const char *links[2] = {up_link, down_link};
    const int down[2] = {0, 1};
    xw_route_n(w, "route", src, dst, down_link ? 2 : 1, links, down);
}

void xw_route_n(xw_t *w, const char *elem, const char *src, const char *dst, int n, const char *const *links,
                const int *down)
{
    X(w, xmlTextWriterStartElement(w->w, u(elem)));
    X(w, xmlTextWriterWriteAttribute(w->w, u("src"), u(src)));
    X(w, xmlTextWriterWriteAttribute(w->w, u("dst"), u(dst)));
    for (int i = 0; i < n; i++)
        link_ctn(w, links[i], down[i] ? "DOWN" : "UP");
    X(w, xmlTextWriterEndElement(w->w));
}

void xw_zone_route(xw_t *w, const char *src, const char *dst, const char *gw_src, const char *gw_dst,
                   const char *up_link, const char *down_link)
{
    X(w, xmlTextWriterStartElement(w->w, u("zoneRoute")));
    X(w, xmlTextWriterWriteAttribute(w->w, u("src"), u(src)));
    X(w, xmlTextWriterWriteAttribute(w->w, u("dst"), u(dst)));
    X(w, xmlTextWriterWriteAttribute(w->w, u("gw_src"), u(gw_src)));
    X(w, xmlTextWriterWriteAttribute(w->w, u("gw_dst"), u(gw_dst)));
    link_ctn(w, up_link, "UP");
    if (down_link)
        link_ctn(w, down_link, "DOWN");
    X(w, xmlTextWriterEndElement(w->w));
}

void xw_end(xw_t *w) { X(w, xmlTextWriterEndElement(w->w)); }

int xw_finish(xw_t *w)
{
    int failed;
    X(w, xmlTextWriterEndDocument(w->w));
    xmlFreeTextWriter(w->w); /* flushes and closes the file */
    failed = w->failed;
    free(w);
    return failed ? -1 : 0;
}
