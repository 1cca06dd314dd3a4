/* fuzz_journal.c - differential libFuzzer target for the journal's reader (journal/scan.h): the
 * same bytes, as one results.jsonl line, go to the fast decoder and to jansson. Whenever the fast
 * decoder takes a line, jansson must take it too and journal_trial_from_json must give the same
 * record, member by member; and the reader as report and resume use it (fast with jansson behind
 * it) must give what the jansson-only reader gives: the same record, or the same refusal. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

/* The reader as its users have it, against the jansson-only one. */
static void
readers(const char *line, size_t len)
{
    static struct journal_reader *fast, *slow;
    if (fast == NULL && ((fast = journal_reader_new(false)) == NULL ||
                         (slow = journal_reader_new(true)) == NULL))
        abort();
    struct journal_trial a, b;
    struct err ea, eb;
    int ra = journal_reader_parse(fast, line, len, &a, &ea);
    int rb = journal_reader_parse(slow, line, len, &b, &eb);
    if (ra != rb)
        fail("one reader takes a line the other refuses", ra != 0 ? ea.msg : eb.msg);
    if (ra == 0 && !journal_trial_equal(&a, &b))
        fail("the readers read different records", NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    decoders((const char *)data, size);
    readers((const char *)data, size);
    return 0;
}
