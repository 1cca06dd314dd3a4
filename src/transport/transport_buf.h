/* transport_buf.h - the capped output buffer both transport variants collect a program's
 * stdout and stderr in (internal to the transport library; callers of transport.h never see it).
 *
 * A buffer keeps at most a limit given on each append; what goes over is dropped and the
 * buffer marked truncated. The caller reads it either a line at a time (transport_read_line)
 * or gives the whole of it away into a struct transport_output (transport_wait). */
#ifndef NS_TRANSPORT_TRANSPORT_BUF_H
#define NS_TRANSPORT_TRANSPORT_BUF_H

#include <stdbool.h>
#include <stddef.h>

/* Zero-initialise to start empty (no _init); release with transport_buf_release. */
struct transport_buf {
    char *data; /* NULL while nothing was kept, else NUL-terminated at data[len] */
    size_t len, alloc;
    bool truncated; /* bytes were dropped at a limit (by an append or a give) */
};

/* Append n bytes of data, keeping at most limit bytes in b: what does not fit is dropped and
 * b->truncated set. A limit below what b already holds keeps it as it is (nothing is cut
 * here). 0, or NS_ENOMEM with b unchanged. */
int transport_buf_append(struct transport_buf *b, const void *data, size_t n, size_t limit);

/* Take the first complete line (up to and excluding '\n') out of b into line (len bytes,
 * NUL-terminated); the bytes after it stay in b. *got tells whether a line was taken. 0 with
 * *got false when b holds no '\n' yet and what it holds could still fit line; NS_ETOOBIG (b
 * unchanged) when the line, or the incomplete line held so far, does not fit in len - 1. */
int transport_buf_take_line(struct transport_buf *b, char *line, size_t len, bool *got);

/* Give everything in b away: *data gets a NUL-terminated string (never NULL, "" when b is
 * empty; the receiver frees it), *len its length, *truncated whether bytes were dropped. More
 * than cap bytes are cut to cap and reported truncated. b is empty afterwards (its truncated
 * flag cleared), ready for more. 0, or NS_ENOMEM with b unchanged and the outputs untouched. */
int transport_buf_give(struct transport_buf *b, size_t cap, char **data, size_t *len,
                       bool *truncated);

/* Free what b holds and leave it empty. NULL is safe. */
void transport_buf_release(struct transport_buf *b);

#endif
