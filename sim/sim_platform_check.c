/*
 * sim_platform_check.c - what SimGrid would abort on, checked before SimGrid reads a platform file (see
 * sim.h): the file is a readable regular file, every zone's routing is one SimGrid knows, and no link, host
 * or router id is declared twice, and the file is well-formed XML but for "--" in a comment (which SimGrid's own
 * parser takes, so libxml2 reads leniently, XML_PARSE_RECOVER, past that error only): a tree recovered past
 * any other error may miss elements SimGrid's parser reads (fuzzing found a NUL in a comment hiding a zone
 * of unknown routing, and SimGrid aborted).  SimGrid stops the process on these
 * (xbt_die: "Not a valid model!", "Link 'x' declared several times"), printing a backtrace instead of
 * naming the file; here they get one line with the file and the XML line.
 */
#include "sim.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef MRING_HAVE_LIBXML2
#include <libxml/parser.h>
#include <libxml/tree.h>

/* The routings of SimGrid 3.32's zones (sg_platf_create_zone; compared without case, as SimGrid does). */
static const char *const routings[] = {"Cluster", "ClusterDragonfly", "ClusterFatTree", "ClusterTorus", "Dijkstra",
                                       "DijkstraCache", "Floyd", "Full", "None", "Vivaldi", "Wifi"};

typedef struct named {
    const char *kind, *id; /* "link" or "host or router"; the id */
    int line;
} named_t;

typedef struct walk {
    const char *file;
    named_t *ids;
    size_t n, cap;
    char *err;
    size_t errlen;
} walk_t;

static int cmp_named(const void *a, const void *b)
{
    const named_t *x = a, *y = b;
    int c = strcmp(x->kind, y->kind);
    return c ? c : strcmp(x->id, y->id);
}

static int remember(walk_t *w, const char *kind, const xmlChar *id, int line)
{
    if (!id)
        return 0;
    if (w->n == w->cap) {
        named_t *p = realloc(w->ids, (w->cap ? 2 * w->cap : 256) * sizeof *p);
        if (!p) {
            snprintf(w->err, w->errlen, "platform %s: out of memory checking it", w->file);
            return 2;
        }
        w->ids = p;
        w->cap = w->cap ? 2 * w->cap : 256;
    }
    w->ids[w->n++] = (named_t){kind, (const char *)id, line};
    return 0;
}

static int known_routing(const char *r)
{
    for (size_t i = 0; i < sizeof routings / sizeof *routings; i++)
        if (!strcasecmp(r, routings[i]))
            return 1;
    return 0;
}

/* Check the routings of the zones under node and collect the ids to compare; 0 or 2 with err. */
static int walk(walk_t *w, xmlNode *node)
{
    for (xmlNode *e = node; e; e = e->next) {
        if (e->type != XML_ELEMENT_NODE)
            continue;
        const char *tag = (const char *)e->name;
        int line = (int)xmlGetLineNo(e), rc = 0;
        if (!strcmp(tag, "zone") || !strcmp(tag, "AS")) {
            xmlChar *r = xmlGetProp(e, (const xmlChar *)"routing");
            if (r && !known_routing((const char *)r)) {
                snprintf(w->err, w->errlen, "platform %s:%d: zone routing '%s' is unknown; expected one of Full, Floyd, "
                         "Dijkstra, DijkstraCache, None, Vivaldi, Wifi, Cluster, ClusterTorus, ClusterFatTree, "
                         "ClusterDragonfly", w->file, line, (const char *)r);
                rc = 2;
            }
            xmlFree(r);
        } else if (!strcmp(tag, "link") || !strcmp(tag, "backbone")) {
            rc = remember(w, "link", xmlGetProp(e, (const xmlChar *)"id"), line);
        } else if (!strcmp(tag, "host") || !strcmp(tag, "router")) {
            rc = remember(w, "host or router", xmlGetProp(e, (const xmlChar *)"id"), line);
        }
        if (rc || (rc = walk(w, e->children)))
            return rc;
    }
    return 0;
}

/* The first repeated id, if any: 0 or 2 with err. */
static int duplicates(walk_t *w)
{
    if (w->n > 1)
        qsort(w->ids, w->n, sizeof *w->ids, cmp_named);
    for (size_t i = 1; i < w->n; i++)
        if (!cmp_named(&w->ids[i - 1], &w->ids[i])) {
            const named_t *a = &w->ids[i - 1], *b = &w->ids[i];
            snprintf(w->err, w->errlen, "platform %s:%d: %s id '%s' is declared again (first on line %d); expected "
                     "each id once", w->file, a->line > b->line ? a->line : b->line, a->kind, a->id,
                     a->line < b->line ? a->line : b->line);
            return 2;
        }
    return 0;
}

/* The first error libxml2 meets other than "--" in a comment (which SimGrid's parser takes). */
typedef struct xml_fault {
    int set, line;
    char msg[160];
} xml_fault_t;

static void on_xml_error(void *ctx, xmlErrorPtr e)
{
    xml_fault_t *f = ctx;
    if (f->set || e->level < XML_ERR_ERROR || e->code == XML_ERR_HYPHEN_IN_COMMENT)
        return;
    f->set = 1;
    f->line = e->line;
    snprintf(f->msg, sizeof f->msg, "%s", e->message ? e->message : "unreadable");
    f->msg[strcspn(f->msg, "\n")] = '\0';
}

static int check_xml(const char *file, char *err, size_t errlen)
{
    xml_fault_t fault = {0};
    xmlSetStructuredErrorFunc(&fault, on_xml_error);
    xmlDoc *doc = xmlReadFile(file, NULL, XML_PARSE_RECOVER | XML_PARSE_NONET | XML_PARSE_HUGE);
    xmlSetStructuredErrorFunc(NULL, NULL);
    walk_t w = {file, NULL, 0, 0, err, errlen};
    int rc;
    if (fault.set) { /* the tree libxml2 recovered may miss what SimGrid's parser reads: refuse it */
        snprintf(err, errlen, "platform %s:%d: not well-formed XML: %s", file, fault.line, fault.msg);
        xmlFreeDoc(doc);
        return 2;
    }
    if (!doc)
        return 0;
    rc = walk(&w, xmlDocGetRootElement(doc));
    if (!rc)
        rc = duplicates(&w);
    for (size_t i = 0; i < w.n; i++)
        xmlFree((xmlChar *)w.ids[i].id);
    free(w.ids);
    xmlFreeDoc(doc);
    return rc;
}
#endif

int mring_platform_precheck(const char *file, char *err, size_t errlen)
{
    struct stat st;
    if (stat(file, &st) != 0 || access(file, R_OK) != 0) {
        snprintf(err, errlen, "platform %s: cannot read it (%s)", file, strerror(errno));
        return 2;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "platform %s: not a regular file; expected a SimGrid platform XML file", file);
        return 2;
    }
#ifdef MRING_HAVE_LIBXML2
    return check_xml(file, err, errlen);
#else
    return 0;
#endif
}
