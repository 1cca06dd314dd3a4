/* util.c - byte buffers and whole-file I/O for the report module. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/errors.h"
#include "common/units.h"
#include "report/reportint.h"

void
report_buf_init(struct rbuf *b)
{
    memset(b, 0, sizeof *b);
}

void
report_buf_release(struct rbuf *b)
{
    free(b->data);
    report_buf_init(b);
}

void
report_buf_add(struct rbuf *b, const char *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->data, cap);
        if (p == NULL) {
            b->oom = true;
            return;
        }
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
    if (b->sink != NULL && b->len > RBUF_FLUSH) {
        size_t out = b->len - RBUF_KEEP;
        if (fwrite(b->data, 1, out, b->sink) != out)
            b->sink_err = true;
        memmove(b->data, b->data + out, RBUF_KEEP + 1);
        b->len = RBUF_KEEP;
    }
}

int
report_stream_open(const char *path, struct rbuf *b, struct err *e)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return err_set(e, NS_EINVAL, "path too long: %s", path);
    b->sink = fopen(tmp, "w");
    if (b->sink == NULL)
        return err_sys(e, NS_EIO, errno, "cannot create %s", tmp);
    return 0;
}

int
report_stream_finish(const char *path, struct rbuf *b, int rc, struct err *e)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (b->sink == NULL)
        return rc;
    if (rc == 0 && b->len > 0 && fwrite(b->data, 1, b->len, b->sink) != b->len)
        b->sink_err = true;
    int closed = fclose(b->sink);
    b->sink = NULL;
    if (rc == 0 && b->oom)
        rc = err_set(e, NS_ENOMEM, "out of memory writing %s", path);
    if (rc == 0 && (b->sink_err || closed != 0))
        rc = err_sys(e, NS_EIO, errno, "cannot write %s", tmp);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = err_sys(e, NS_EIO, errno, "cannot rename %s", tmp);
    if (rc != 0)
        unlink(tmp);
    return rc;
}

void
report_buf_puts(struct rbuf *b, const char *s)
{
    report_buf_add(b, s, strlen(s));
}

void
report_buf_printf(struct rbuf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        report_buf_add(b, small, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (big == NULL) {
        b->oom = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    report_buf_add(b, big, (size_t)n);
    free(big);
}

void
report_buf_csv_field(struct rbuf *b, const char *s)
{
    /* a text that a spreadsheet would run as a formula: OWASP's "CSV injection" advice */
    bool formula = s[0] != '\0' && strchr("=+-@\t\r", s[0]) != NULL;
    if (strpbrk(s, ",\"\n\r") == NULL) {
        report_buf_puts(b, formula ? "'" : "");
        report_buf_puts(b, s);
        return;
    }
    report_buf_puts(b, formula ? "\"'" : "\"");
    for (; *s; s++) {
        report_buf_add(b, s, 1);
        if (*s == '"')
            report_buf_add(b, "\"", 1);
    }
    report_buf_puts(b, "\"");
}

json_t *
report_jprintf(const char *fmt, ...)
{
    char b[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    return json_string(b);
}

void
report_file_key(char *out, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, len, fmt, ap);
    va_end(ap);
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '.' || *p == '_' || *p == '-'))
            *p = '_';
}

int
report_write_file(const char *path, const struct rbuf *b, struct err *e)
{
    if (b->oom)
        return err_set(e, NS_ENOMEM, "out of memory building %s", path);
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp)
        return err_set(e, NS_EINVAL, "path too long: %s", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return err_sys(e, NS_EIO, errno, "cannot create %s", tmp);
    size_t off = 0;
    while (off < b->len) {
        ssize_t w = write(fd, b->data + off, b->len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int saved = errno;
            close(fd);
            unlink(tmp);
            return err_sys(e, NS_EIO, saved, "cannot write %s", tmp);
        }
        off += (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int saved = errno;
        unlink(tmp);
        return err_sys(e, NS_EIO, saved, "cannot write %s", path);
    }
    return 0;
}

int
report_read_file(const char *path, char **out, size_t *len, size_t cap, struct err *e)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return err_sys(e, errno == ENOENT ? NS_ENOTFOUND : NS_EIO, errno, "cannot open %s", path);
    struct rbuf b;
    report_buf_init(&b);
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (b.len + n > cap) {
            fclose(f);
            report_buf_release(&b);
            return err_set(e, NS_ETOOBIG, "%s is larger than %zu bytes", path, cap);
        }
        report_buf_add(&b, chunk, n);
    }
    int bad = ferror(f);
    fclose(f);
    if (bad || b.oom) {
        report_buf_release(&b);
        return err_set(e, bad ? NS_EIO : NS_ENOMEM, "cannot read %s", path);
    }
    if (b.data == NULL)
        report_buf_add(&b, "", 0);
    *out = b.data;
    if (len)
        *len = b.len;
    return 0;
}

/* --- jansson's allocations while a report is made --------------------------------------------
 * A 100-host report builds ~2 million small JSON values (the summary and the view), all freed
 * together at the end. Carving them from big chunks, marked for transparent huge pages, halves
 * the time a report takes (malloc's bookkeeping and page faults were most of it); nothing is
 * freed one by one, the chunks go at the end. */
struct jchunk {
    struct jchunk *next;
    size_t size;
};

static struct {
    struct jchunk *chunks;
    char *cur;
    size_t left;
    json_malloc_t old_malloc;
    json_free_t old_free;
    int depth;
} jarena;

#define JARENA_CHUNK ((size_t)8 << 20)

static void *
jarena_malloc(size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if (n > jarena.left) {
        size_t size = n + 64 > JARENA_CHUNK ? n + 64 : JARENA_CHUNK;
        void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        madvise(p, size, MADV_HUGEPAGE); /* advice only: failure changes nothing */
        struct jchunk *c = p;
        c->next = jarena.chunks;
        c->size = size;
        jarena.chunks = c;
        jarena.cur = (char *)p + 64;
        jarena.left = size - 64;
    }
    void *r = jarena.cur;
    jarena.cur += n;
    jarena.left -= n;
    return r;
}

static void
jarena_free(void *p)
{
    (void)p; /* released with the chunks */
}

void
report_jarena_begin(void)
{
    if (jarena.depth++ > 0)
        return;
    json_get_alloc_funcs(&jarena.old_malloc, &jarena.old_free);
    json_set_alloc_funcs(jarena_malloc, jarena_free);
}

void
report_jarena_end(void)
{
    if (--jarena.depth > 0)
        return;
    json_set_alloc_funcs(jarena.old_malloc, jarena.old_free);
    while (jarena.chunks != NULL) {
        struct jchunk *next = jarena.chunks->next;
        munmap(jarena.chunks, jarena.chunks->size);
        jarena.chunks = next;
    }
    jarena.cur = NULL;
    jarena.left = 0;
}

void
report_scenario_key(char *buf, size_t len, const char *name, const char *value, const char *fam)
{
    char v[64] = "";
    if (value != NULL)
        report_file_key(v, sizeof v, "%s", value);
    report_file_key(buf, len, "%s", name);
    size_t n = strlen(buf);
    snprintf(buf + n, len - n, "%s%s%s%s", value != NULL ? "=" : "", v, fam != NULL ? "-" : "",
             fam != NULL ? fam : "");
}

int
report_matrix_file(char *buf, size_t len, const char *file_key, const char *suffix)
{
    if (suffix != NULL)
        return snprintf(buf, len, "matrix-%s-%s.csv", file_key, suffix);
    return snprintf(buf, len, "matrix-%s.csv", file_key);
}

void
report_csv_corner(struct rbuf *b, const char *unit)
{
    report_buf_puts(b, "src\\dst (");
    report_buf_puts(b, unit);
    report_buf_puts(b, ")");
}

json_t *
report_flagged_text(enum testspec_kind k, const json_t *cell)
{
    const json_t *f = json_object_get(cell, "flagged");
    json_int_t flagged = ji(f, "trials"), n = ji(cell, "n");
    if (flagged <= 0)
        return NULL;
    struct rbuf b;
    report_buf_init(&b);
    report_buf_printf(&b, "%lld of %lld trial%s flagged (", (long long)flagged, (long long)n,
                      n == 1 ? "" : "s");
    for (int i = 0, listed = 0; i < HOSTFLAG_COUNT; i++) {
        json_int_t c = ji(f, hostflag_name((enum hostflag)i));
        if (c > 0)
            report_buf_printf(&b, "%s%s %lld", listed++ ? ", " : "",
                              hostflag_name((enum hostflag)i), (long long)c);
    }
    const json_t *without = json_object_get(f, "mean_without");
    char v[64];
    if (json_is_number(without))
        report_buf_printf(&b, "); %s without them",
                          testspec_kind_value_text(k, json_number_value(without), v, sizeof v));
    else
        report_buf_puts(&b, "); no trial without them");
    json_t *out = json_string(b.oom ? "" : b.data);
    report_buf_release(&b);
    return out;
}
