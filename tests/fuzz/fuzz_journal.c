/* fuzz_journal.c - differential libFuzzer target for the journal's reader (journal/scan.h): the
 * same bytes, as one results.jsonl line, go to the fast decoder and to jansson. Whenever the fast
 * decoder takes a line, jansson must take it too and journal_trial_from_json must give the same
 * record, member by member; and the reader as report and resume use it (fast with jansson behind
 * it) must give what the jansson-only reader gives: the same record, or the same refusal (a line
 * passed over, NS_EPARSE, or a record refused, NS_EPROTO: another schema version, a status
 * neither ok nor failed, and, when the readers are given the run's id, another run's record);
 * and the readers without buckets (journal_read_trials_nobuckets') must give the same refusal,
 * or the same record but for its buckets (either form: common/histjson.h); and the records the
 * two take must be data, or not, alike (journal_trial_domain: a figure outside its domain, an
 * unknown family).
 *
 * Coverage alone hardly leads the fuzzer to a rule the two decoders might read differently (a
 * real where an integer is expected takes the same branches as any other real), so each input
 * is also tried in variants that flip types everywhere at once: integers as reals, numbers as
 * strings, string values as numbers, and blanks between all tokens. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/errors.h"
#include "journal/journal.h"
#include "journal/scan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_journal: %s%s%s\n", what, detail != NULL ? ": " : "",
            detail != NULL ? detail : "");
    abort();
}

/* The fast decoder alone against jansson's tree. */
static void
decoders(const char *line, size_t len)
{
    static struct journal_scan *scan;
    static struct journal_buckets bb;
    if (scan == NULL && (scan = journal_scan_new()) == NULL)
        abort();
    struct journal_trial fast, slow;
    if (!journal_scan_trial(scan, line, len, &fast))
        return; /* left to jansson: the readers below check that path */
    json_error_t je;
    json_t *tree = json_loadb(line, len, 0, &je);
    if (tree == NULL)
        fail("the fast decoder took a line jansson refuses", je.text);
    if (journal_trial_from_json(tree, &bb, &slow) != 0)
        abort();
    struct err ef, es;
    int cf = journal_trial_check(&fast, &ef), cs = journal_trial_check(&slow, &es);
    if (cf != cs)
        fail("the decoders' records pass different checks", cf != 0 ? ef.msg : es.msg);
    if (!journal_trial_equal(&fast, &slow))
        fail("the decoders read different records", NULL);
    json_decref(tree);
}

/* The run id of the corpus' records (and of journal.dict): with it, the readers take them;
 * with another, they refuse them. */
#define FUZZ_RUN_ID "20261130T150000Z-7f3c"

/* The reader as its users have it, against the jansson-only one, for one expected run (NULL:
 * any). */
static void
readers_of(const char *line, size_t len, const char *run_id)
{
    static struct journal_reader *fast, *slow;
    if (fast == NULL &&
        ((fast = journal_reader_new(false)) == NULL || (slow = journal_reader_new(true)) == NULL))
        abort();
    journal_reader_set_run(fast, run_id);
    journal_reader_set_run(slow, run_id);
    struct journal_trial a, b;
    struct err ea, eb;
    int ra = journal_reader_parse(fast, line, len, &a, &ea);
    int rb = journal_reader_parse(slow, line, len, &b, &eb);
    if (ra != rb)
        fail("one reader takes a line the other refuses", ra != 0 ? ea.msg : eb.msg);
    if (ra != 0 && ra != NS_EPARSE && ra != NS_EPROTO && ra != NS_ENOMEM)
        fail("a refusal that is neither a line passed over nor a record refused", ea.msg);
    if (ra != 0 && strcmp(ea.msg, eb.msg) != 0)
        fail("the readers refuse a line for different reasons", ea.msg);
    if (ra == 0 && !journal_trial_equal(&a, &b))
        fail("the readers read different records", NULL);
    /* what the reading then holds to its domain (journal_trial_domain): the same verdict */
    struct err da = {0}, db = {0};
    if (ra == 0 && (journal_trial_domain(&a, &da) != journal_trial_domain(&b, &db) ||
                    strcmp(da.msg, db.msg) != 0))
        fail("the readers' records are held to their domain differently", da.msg);
    if (ra == 0 && run_id != NULL && (a.run_id == NULL || strcmp(a.run_id, run_id) != 0))
        fail("a record of another run was taken", a.run_id);
}

/* The readers without buckets (journal_read_trials_nobuckets'), fast and jansson-only: the
 * same refusal as the reader with them, or its record but for the buckets. */
static void
readers_nobuckets(const char *line, size_t len)
{
    static struct journal_reader *full, *fast, *slow;
    if (full == NULL) {
        if ((full = journal_reader_new(false)) == NULL ||
            (fast = journal_reader_new(false)) == NULL || (slow = journal_reader_new(true)) == NULL)
            abort();
        journal_reader_keep_buckets(fast, false);
        journal_reader_keep_buckets(slow, false);
    }
    struct journal_trial a, b, c;
    struct err ea, eb, ec;
    int ra = journal_reader_parse(full, line, len, &a, &ea);
    int rb = journal_reader_parse(fast, line, len, &b, &eb);
    int rc = journal_reader_parse(slow, line, len, &c, &ec);
    if (ra != rb || ra != rc)
        fail("a reader without buckets takes a line another refuses", NULL);
    if (ra != 0 && (strcmp(ea.msg, eb.msg) != 0 || strcmp(ea.msg, ec.msg) != 0))
        fail("the readers without buckets refuse a line for other reasons", eb.msg);
    if (ra != 0)
        return;
    if (b.result.nbuckets != 0 || b.result.buckets != NULL || c.result.nbuckets != 0 ||
        b.result.nruns != 0 || b.result.runs != NULL || c.result.nruns != 0 ||
        b.result.ncounts != 0 || b.result.counts != NULL || c.result.ncounts != 0)
        fail("a reader without buckets kept some", NULL);
    a.result.buckets = NULL;
    a.result.nbuckets = 0;
    a.result.runs = NULL;
    a.result.nruns = 0;
    a.result.counts = NULL;
    a.result.ncounts = 0;
    if (!journal_trial_equal(&a, &b) || !journal_trial_equal(&a, &c))
        fail("a reader without buckets read another record", NULL);
}

static void
readers(const char *line, size_t len)
{
    readers_of(line, len, NULL);
    readers_of(line, len, FUZZ_RUN_ID);
    readers_nobuckets(line, len);
}

enum variant { V_REALS, V_QUOTED_NUMBERS, V_NUMBERS_FOR_STRINGS, V_BLANKS, V_COUNT };

#define VARIANT_MAX (64u << 10)

static bool
is_num_char(uint8_t c)
{
    return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* in rewritten as variant v into out (at most VARIANT_MAX bytes); returns the length, or 0 when
 * it does not fit. Strings are told apart from the rest by their quotes and escapes; a string
 * value is one that follows a ':'. */
static size_t
variant(const uint8_t *in, size_t n, enum variant v, char *out)
{
    size_t o = 0;
    bool str = false, esc = false, drop = false;
    uint8_t prev = 0; /* the last byte outside strings that is not blank */
    for (size_t i = 0; i < n; i++) {
        if (o + 8 > VARIANT_MAX)
            return 0;
        uint8_t c = in[i];
        if (str) {
            if (!drop)
                out[o++] = (char)c;
            if (esc)
                esc = false;
            else if (c == '\\')
                esc = true;
            else if (c == '"')
                str = false;
            continue;
        }
        if (c == '"') {
            str = true;
            drop = v == V_NUMBERS_FOR_STRINGS && prev == ':';
            out[o++] = drop ? '7' : '"';
            prev = '"';
            continue;
        }
        bool starts = (c == '-' || (c >= '0' && c <= '9')) && !is_num_char(prev);
        if (starts && (v == V_REALS || v == V_QUOTED_NUMBERS)) {
            size_t j = i;
            bool real = false;
            while (j < n && is_num_char(in[j]))
                real |= in[j] == '.' || in[j] == 'e' || in[j] == 'E', j++;
            if (o + (j - i) + 4 > VARIANT_MAX)
                return 0;
            if (v == V_QUOTED_NUMBERS)
                out[o++] = '"';
            memcpy(out + o, in + i, j - i);
            o += j - i;
            if (v == V_REALS && !real)
                out[o++] = '.', out[o++] = '0';
            if (v == V_QUOTED_NUMBERS)
                out[o++] = '"';
            prev = in[j - 1];
            i = j - 1;
            continue;
        }
        out[o++] = (char)c;
        if (v == V_BLANKS && (c == ':' || c == ',' || c == '{' || c == '['))
            out[o++] = ' ';
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            prev = c;
    }
    return o;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char buf[VARIANT_MAX];
    decoders((const char *)data, size);
    readers((const char *)data, size);
    for (int v = 0; v < V_COUNT; v++) {
        size_t n = variant(data, size, (enum variant)v, buf);
        if (n > 0) {
            decoders(buf, n);
            readers(buf, n);
        }
    }
    return 0;
}
