#include "common/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/errors.h"

struct unit {
    const char *suffix;
    double factor;
};

/* Longest suffixes first where one is a prefix of another is irrelevant: we match exactly. */
static const struct unit duration_units[] = {
    {"", 1.0},    {"s", 1.0},  {"sec", 1.0},  {"ns", 1e-9},  {"us", 1e-6},
    {"ms", 1e-3}, {"m", 60.0}, {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0},
};

static const struct unit size_units[] = {
    {"", 1.0},           {"b", 1.0},           {"k", 1024.0},         {"kb", 1024.0},
    {"kib", 1024.0},     {"m", 1048576.0},     {"mb", 1048576.0},     {"mib", 1048576.0},
    {"g", 1073741824.0}, {"gb", 1073741824.0}, {"gib", 1073741824.0},
};

static const struct unit rate_units[] = {
    {"", 1.0},     {"bps", 1.0},  {"bit", 1.0},  {"k", 1e3},     {"kbit", 1e3},
    {"kbps", 1e3}, {"m", 1e6},    {"mbit", 1e6}, {"mbps", 1e6},  {"g", 1e9},
    {"gbit", 1e9}, {"gbps", 1e9}, {"t", 1e12},   {"tbit", 1e12}, {"tbps", 1e12},
};

/* Split s into a finite non-negative number and a suffix; look the suffix up (case-insensitive). */
static int
units_parse(const char *s, const struct unit *tab, size_t n, const char *what, double *out,
            struct err *e)
{
    if (s == NULL || *s == '\0')
        return err_set(e, NS_EPARSE, "empty %s", what);
    const char *p = s;
    while (isspace((unsigned char)*p))
        p++;
    if (*p == '-' || *p == '+')
        return err_set(e, NS_ERANGE, "%s '%s' must not be signed", what, s);
    if (!isdigit((unsigned char)*p) && *p != '.')
        return err_set(e, NS_EPARSE, "invalid %s '%s'", what, s);
    errno = 0;
    char *end;
    double v = strtod(p, &end);
    if (end == p || errno == ERANGE || !isfinite(v) ||
        strspn(p, "0123456789.eE+-") < (size_t)(end - p))
        return err_set(e, NS_EPARSE, "invalid %s '%s'", what, s); /* strtod takes hex too */
    while (isspace((unsigned char)*end))
        end++;
    for (size_t i = 0; i < n; i++) {
        if (strcasecmp(end, tab[i].suffix) == 0) {
            *out = v * tab[i].factor;
            return 0;
        }
    }
    return err_set(e, NS_EPARSE, "unknown unit '%s' in %s '%s'", end, what, s);
}

int
units_parse_duration(const char *s, double *out_seconds, struct err *e)
{
    double v = 0.0;
    int rc = units_parse(s, duration_units, sizeof duration_units / sizeof *duration_units,
                         "duration", &v, e);
    if (rc != 0)
        return rc;
    if (v > 1e9)
        return err_set(e, NS_ERANGE, "duration '%s' is too long", s);
    *out_seconds = v;
    return 0;
}

static int
units_to_u64(double v, const char *s, const char *what, uint64_t *out, struct err *e)
{
    if (v >= 18446744073709551616.0)
        return err_set(e, NS_ERANGE, "%s '%s' is too large", what, s);
    *out = (uint64_t)(v + 0.5); /* llround would overflow above 2^63 */
    return 0;
}

int
units_parse_size(const char *s, uint64_t *out_bytes, struct err *e)
{
    double v = 0.0;
    int rc = units_parse(s, size_units, sizeof size_units / sizeof *size_units, "size", &v, e);
    if (rc == 0 && v < 18446744073709551616.0 && v != floor(v))
        return err_set(e, NS_EPARSE, "size '%s' is not a whole number of bytes", s);
    return rc != 0 ? rc : units_to_u64(v, s, "size", out_bytes, e);
}

int
units_parse_rate(const char *s, uint64_t *out_bps, struct err *e)
{
    double v = 0.0;
    int rc = units_parse(s, rate_units, sizeof rate_units / sizeof *rate_units, "rate", &v, e);
    return rc != 0 ? rc : units_to_u64(v, s, "rate", out_bps, e);
}

/* Four significant digits with a prefix chosen so the mantissa is in [1, 1000). */
static char *
units_format_scaled(double v, const char *const *prefixes, size_t nprefix, double step,
                    const char *unit, char *buf, size_t len)
{
    size_t i = 0;
    double a = fabs(v);
    while (a >= step && i + 1 < nprefix) {
        a /= step;
        v /= step;
        i++;
    }
    int decimals = a >= 100 ? 1 : a >= 10 ? 2 : 3;
    snprintf(buf, len, "%.*f %s%s", decimals, v, prefixes[i], unit);
    return buf;
}

char *
units_format_rate(double bps, char *buf, size_t len)
{
    static const char *const p[] = {"", "K", "M", "G", "T"};
    return units_format_scaled(bps, p, 5, 1000.0, "bit/s", buf, len);
}

char *
units_format_bytes(double bytes, char *buf, size_t len)
{
    static const char *const p[] = {"", "Ki", "Mi", "Gi", "Ti"};
    return units_format_scaled(bytes, p, 5, 1024.0, "B", buf, len);
}

char *
units_format_usec(double usec, char *buf, size_t len)
{
    if (usec >= 1e6)
        snprintf(buf, len, "%.3f s", usec / 1e6);
    else if (usec >= 1e3)
        snprintf(buf, len, "%.3f ms", usec / 1e3);
    else
        snprintf(buf, len, "%.1f us", usec);
    return buf;
}
