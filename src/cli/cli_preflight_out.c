/* cli_preflight_out.c - the table and the JSON of `netsurvey check --connect`
 * (cli_preflight_out.h). */
#include "cli/cli_preflight_out.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/text.h"
#include "common/units.h"

#define PF_NCOLS 10
#define PF_CELL 200

static const char *const pf_columns[PF_NCOLS] = {CLI_PREFLIGHT_COLUMNS};

/* --- words -------------------------------------------------------------------------------- */

static const char *
status_word(enum preflight_status s)
{
    switch (s) {
    case PREFLIGHT_OK:
        return "ok";
    case PREFLIGHT_FAILED:
        return "failed";
    case PREFLIGHT_NOT_CHECKED:
        return "not checked";
    case PREFLIGHT_NA:
        return "n/a";
    }
    return "?";
}

static const char *
hostkey_word(enum transport_hostkey k)
{
    switch (k) {
    case TRANSPORT_HOSTKEY_KNOWN:
        return "known";
    case TRANSPORT_HOSTKEY_UNKNOWN:
        return "unknown";
    case TRANSPORT_HOSTKEY_RECORDED:
        return "recorded";
    case TRANSPORT_HOSTKEY_CHANGED:
        return "changed";
    case TRANSPORT_HOSTKEY_OTHER:
        return "other type";
    case TRANSPORT_HOSTKEY_ERROR:
        return "unreadable";
    case TRANSPORT_HOSTKEY_UNCHECKED:
        break;
    }
    return NULL;
}

static const char *
endpoint_word(enum preflight_endpoint s)
{
    switch (s) {
    case PREFLIGHT_ENDPOINT_LOCAL:
        return "local";
    case PREFLIGHT_ENDPOINT_CACHED:
        return "cached";
    case PREFLIGHT_ENDPOINT_UPLOAD:
        return "upload";
    case PREFLIGHT_ENDPOINT_UPLOADED:
        return "uploaded";
    case PREFLIGHT_ENDPOINT_UNKNOWN:
        break;
    }
    return NULL;
}

static bool
done(const struct preflight_check *c)
{
    return c->status == PREFLIGHT_OK || c->status == PREFLIGHT_FAILED;
}

/* "+42.0 us" */
static char *
signed_seconds(double s, char *buf, size_t len)
{
    if (len < 2)
        return buf;
    buf[0] = s < 0 ? '-' : '+';
    units_format_usec(fabs(s) * 1e6, buf + 1, len - 1);
    return buf;
}

/* --- table cells -------------------------------------------------------------------------- */

static void
cell_host_key(const struct preflight_host *h, char *c, size_t n)
{
    const char *w = hostkey_word(h->verdict.hostkey);
    if (h->host_key.status == PREFLIGHT_NA)
        snprintf(c, n, "n/a");
    else if (done(&h->host_key) && w != NULL)
        snprintf(c, n, "%s", w);
    else
        snprintf(c, n, "-");
}

static void
cell_auth(const struct preflight_host *h, char *c, size_t n)
{
    if (h->auth.status == PREFLIGHT_NA)
        snprintf(c, n, "n/a");
    else if (done(&h->auth))
        snprintf(c, n, "%s (%s)", h->auth.status == PREFLIGHT_OK ? "ok" : "FAILED",
                 h->verdict.user);
    else
        snprintf(c, n, "-");
}

static void
cell_system(const struct preflight_host *h, char *c, size_t n)
{
    if (h->os[0] != '\0')
        snprintf(c, n, "%s %s%s", h->os, h->arch,
                 h->system.status != PREFLIGHT_FAILED ? ""
                 : h->no_build                        ? " (no nsperf build)"
                                                      : " (unsupported)");
    else
        snprintf(c, n, "%s", h->system.status == PREFLIGHT_FAILED ? "FAILED" : "-");
}

static void
cell_endpoint(const struct preflight_host *h, char *c, size_t n)
{
    const char *w = endpoint_word(h->endpoint_state);
    if (h->endpoint.status == PREFLIGHT_FAILED)
        snprintf(c, n, "FAILED");
    else
        snprintf(c, n, "%s", done(&h->endpoint) && w != NULL ? w : "-");
}

static void
cell_free(const struct preflight_host *h, char *c, size_t n)
{
    char b[32];
    if (h->space.status == PREFLIGHT_NA)
        snprintf(c, n, "n/a");
    else if (h->have_space)
        snprintf(c, n, "%s%s", units_format_bytes((double)h->space_avail, b, sizeof b),
                 h->space.status == PREFLIGHT_FAILED ? " (too little)" : "");
    else
        snprintf(c, n, "-");
}

static void
cell_clock(const struct preflight_host *h, char *c, size_t n)
{
    char off[32], err[32];
    if (h->clock.status != PREFLIGHT_OK)
        snprintf(c, n, "-");
    else if (h->local)
        snprintf(c, n, "0 (local)");
    else
        snprintf(c, n, "%s ±%s", signed_seconds(h->clock_offset_s, off, sizeof off),
                 units_format_usec(h->clock_rtt_s / 2 * 1e6, err, sizeof err));
}

static void
cell_data_address(const struct preflight_host *h, char *c, size_t n)
{
    const struct preflight_check *d = &h->data_address;
    if (d->status == PREFLIGHT_OK)
        snprintf(c, n, "%s (%s%s)", h->daddr, h->interface, h->daddr_learnt ? ", learnt" : "");
    else if (d->status == PREFLIGHT_FAILED && h->daddr_learnt)
        snprintf(c, n, "not learnt");
    else if (d->status == PREFLIGHT_FAILED)
        snprintf(c, n, "%s (not the host's)", h->daddr);
    else
        snprintf(c, n, "%s", d->detail[0] != '\0' ? "not checked" : "-");
}

static void
cell_data_paths(const struct preflight_host *h, char *c, size_t n)
{
    const struct preflight_check *d = &h->data_paths;
    if (done(d))
        snprintf(c, n, "%zu/%zu ok", h->paths_ok, h->paths_ok + h->paths_failed);
    else
        snprintf(c, n, "%s", d->detail[0] != '\0' ? "not checked" : "-");
}

static void
host_cells(const struct preflight_host *h, char cells[PF_NCOLS][PF_CELL])
{
    char raw[PF_CELL];
    void (*const fill[])(const struct preflight_host *, char *,
                         size_t) = {cell_host_key, cell_auth,  cell_system,       cell_endpoint,
                                    cell_free,     cell_clock, cell_data_address, cell_data_paths};
    text_escape(h->name, cells[0], PF_CELL);
    for (size_t i = 0; i < sizeof fill / sizeof fill[0]; i++) {
        fill[i](h, raw, sizeof raw);
        text_escape(raw, cells[1 + i], PF_CELL);
    }
    snprintf(cells[PF_NCOLS - 1], PF_CELL, "%s", h->ok ? "ok" : "FAILED");
}

/* Columns on a terminal: UTF-8 continuation bytes take none (the "±"). */
static size_t
width(const char *s)
{
    size_t w = 0;
    for (; *s != '\0'; s++)
        w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

static void
row_write(FILE *out, char cells[PF_NCOLS][PF_CELL], const size_t *w)
{
    for (size_t c = 0; c < PF_NCOLS; c++) {
        fputs(cells[c], out);
        if (c + 1 < PF_NCOLS)
            fprintf(out, "%*s", (int)(w[c] - width(cells[c]) + 2), "");
    }
    fputc('\n', out);
}

/* --- problems ----------------------------------------------------------------------------- */

static void
problem(FILE *out, const char *host, const char *what, const char *detail)
{
    char h[200], d[PREFLIGHT_DETAIL_MAX + 64];
    size_t n = strlen(host);
    if (strncmp(detail, host, n) == 0 && detail[n] == ':' && detail[n + 1] == ' ')
        detail += n + 2; /* the transport's messages start with the host's name already */
    fprintf(out, "  %s: %s: %s\n", text_escape(host, h, sizeof h), what,
            text_escape(detail, d, sizeof d));
}

static size_t
host_problems(FILE *out, const struct preflight_host *h)
{
    static const char *const names[] = {"connect", "host key",     "authentication",
                                        "system",  "endpoint",     "free space",
                                        "clock",   "data address", "data paths"};
    const struct preflight_check *all[] = {&h->connect, &h->host_key,     &h->auth,
                                           &h->system,  &h->endpoint,     &h->space,
                                           &h->clock,   &h->data_address, &h->data_paths};
    size_t n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        bool shown = all[i]->status == PREFLIGHT_FAILED ||
                     (all[i]->status == PREFLIGHT_NOT_CHECKED && all[i]->detail[0] != '\0');
        if (shown && all[i] != &h->data_paths) {
            problem(out, h->name, names[i], all[i]->detail);
            n++;
        }
    }
    return n;
}

static size_t
path_problems(FILE *out, const struct preflight_report *r, uint32_t host)
{
    size_t n = 0;
    for (size_t i = 0; i < r->npaths; i++) {
        const struct preflight_path *p = &r->paths[i];
        if (p->status != PREFLIGHT_FAILED || (p->blame_src ? p->src : p->dst) != host)
            continue;
        char what[300];
        snprintf(what, sizeof what, "data path %s -> %s", r->hosts[p->src].name,
                 r->hosts[p->dst].name);
        problem(out, r->hosts[host].name, what, p->detail);
        n++;
    }
    return n;
}

int
cli_preflight_table(FILE *out, const struct preflight_report *r)
{
    char(*cells)[PF_NCOLS][PF_CELL] = calloc(r->nhosts + 1, sizeof *cells);
    if (cells == NULL)
        return -1;
    size_t w[PF_NCOLS] = {0};
    for (size_t c = 0; c < PF_NCOLS; c++)
        snprintf(cells[0][c], PF_CELL, "%s", pf_columns[c]);
    for (size_t i = 0; i < r->nhosts; i++)
        host_cells(&r->hosts[i], cells[i + 1]);
    for (size_t i = 0; i <= r->nhosts; i++)
        for (size_t c = 0; c < PF_NCOLS; c++)
            w[c] = width(cells[i][c]) > w[c] ? width(cells[i][c]) : w[c];
    for (size_t i = 0; i <= r->nhosts; i++)
        row_write(out, cells[i], w);
    free(cells);
    size_t failed = 0, undeployed = 0;
    for (size_t i = 0; i < r->nhosts; i++) {
        failed += !r->hosts[i].ok;
        undeployed += r->hosts[i].endpoint_state == PREFLIGHT_ENDPOINT_UPLOAD &&
                      r->hosts[i].data_address.status == PREFLIGHT_NOT_CHECKED;
    }
    if (failed > 0) {
        fprintf(out, "\nproblems:\n");
        for (uint32_t i = 0; i < r->nhosts; i++)
            if (host_problems(out, &r->hosts[i]) + path_problems(out, r, i) == 0 &&
                !r->hosts[i].ok) /* nothing went wrong there: it was not reached */
                problem(out, r->hosts[i].name, "not checked",
                        r->interrupted ? "interrupted" : "the checks stopped before it");
    }
    fprintf(out, "\n%zu host%s: %zu passed, %zu failed%s (%.1f s)\n", r->nhosts,
            r->nhosts == 1 ? "" : "s", r->nhosts - failed, failed,
            r->interrupted ? ", interrupted" : "", r->elapsed_s);
    if (undeployed > 0)
        fprintf(out,
                "the endpoint is not cached on %zu host%s: --deploy uploads it (as a run "
                "would) and checks the data paths\n",
                undeployed, undeployed == 1 ? "" : "s");
    return ferror(out) ? -1 : 0;
}

/* --- JSON --------------------------------------------------------------------------------- */

static json_t *
str_or_null(const char *s)
{
    return s != NULL && *s != '\0' ? json_string(s) : json_null();
}

/* {"status", "detail"} and the check's own members. */
static json_t *
check_json(const struct preflight_check *c)
{
    return json_pack("{s:s, s:o}", "status", status_word(c->status), "detail",
                     str_or_null(c->detail));
}

static json_t *
host_json(const struct preflight_host *h)
{
    json_t *key = check_json(&h->host_key), *auth = check_json(&h->auth);
    json_t *sys = check_json(&h->system), *ep = check_json(&h->endpoint);
    json_t *sp = check_json(&h->space), *clk = check_json(&h->clock);
    json_t *da = check_json(&h->data_address), *dp = check_json(&h->data_paths);
    json_object_set_new(key, "state", str_or_null(hostkey_word(h->verdict.hostkey)));
    json_object_set_new(key, "fingerprint", str_or_null(h->verdict.fingerprint));
    json_object_set_new(auth, "user", str_or_null(h->verdict.user));
    json_object_set_new(auth, "tried", str_or_null(h->verdict.tried));
    json_object_set_new(sys, "os", str_or_null(h->os));
    json_object_set_new(sys, "arch", str_or_null(h->arch));
    json_object_set_new(ep, "state", str_or_null(endpoint_word(h->endpoint_state)));
    json_object_set_new(ep, "path", str_or_null(h->endpoint_path));
    json_object_set_new(ep, "build", str_or_null(h->endpoint_build));
    json_object_set_new(ep, "sha256", str_or_null(h->endpoint_sha256));
    json_object_set_new(
        ep, "bytes", h->endpoint_bytes ? json_integer((json_int_t)h->endpoint_bytes) : json_null());
    json_object_set_new(sp, "bytes",
                        h->have_space ? json_integer((json_int_t)h->space_avail) : json_null());
    json_object_set_new(sp, "path", str_or_null(h->space_path));
    bool clocked = h->clock.status == PREFLIGHT_OK;
    json_object_set_new(clk, "offset_s", clocked ? json_real(h->clock_offset_s) : json_null());
    json_object_set_new(clk, "rtt_s", clocked ? json_real(h->clock_rtt_s) : json_null());
    json_object_set_new(da, "address", str_or_null(h->daddr));
    json_object_set_new(da, "learnt", json_boolean(h->daddr_learnt));
    json_object_set_new(da, "interface", str_or_null(h->interface));
    json_object_set_new(dp, "ok", json_integer((json_int_t)h->paths_ok));
    json_object_set_new(dp, "failed", json_integer((json_int_t)h->paths_failed));
    return json_pack("{s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}", "name",
                     h->name, "transport", h->local ? "local" : "ssh", "ok", h->ok, "connect",
                     check_json(&h->connect), "host_key", key, "auth", auth, "system", sys,
                     "endpoint", ep, "free_space", sp, "clock", clk, "data_address", da,
                     "data_paths", dp);
}

static json_t *
path_json(const struct preflight_report *r, const struct preflight_path *p)
{
    return json_pack("{s:s, s:s, s:s, s:o, s:o, s:s?}", "src", r->hosts[p->src].name, "dst",
                     r->hosts[p->dst].name, "status", status_word(p->status), "rtt_us",
                     p->status == PREFLIGHT_OK ? json_real(p->rtt_us) : json_null(), "detail",
                     str_or_null(p->detail), "counted_against",
                     p->status == PREFLIGHT_FAILED ? (p->blame_src ? "src" : "dst") : NULL);
}

int
cli_preflight_json(FILE *out, const struct plan *p, const struct preflight_report *r)
{
    json_t *hosts = json_array(), *paths = json_array();
    for (size_t i = 0; hosts != NULL && i < r->nhosts; i++)
        json_array_append_new(hosts, host_json(&r->hosts[i]));
    for (size_t i = 0; paths != NULL && i < r->npaths; i++)
        json_array_append_new(paths, path_json(r, &r->paths[i]));
    json_t *doc =
        json_pack("{s:s, s:{s:s, s:s}, s:b, s:b, s:f, s:o, s:o}", "schema", "netsurvey.preflight/1",
                  "plan", "name", plan_name(p), "file", plan_file(p), "ok", r->ok, "interrupted",
                  r->interrupted, "elapsed_s", r->elapsed_s, "hosts", hosts, "paths", paths);
    if (doc == NULL)
        return -1;
    int rc = json_dumpf(doc, out, JSON_COMPACT) == 0 && fputc('\n', out) != EOF ? 0 : -1;
    json_decref(doc);
    return rc == 0 && !ferror(out) ? 0 : -1;
}
