/* test_read.c - the journal's reading (read.c, scan.c, rules.c): the rules both decoders
 * share (types, unknown kinds, schema, values outside their domain), torn and bad lines, the
 * histogram forms (digit runs, buckets), the caps, a foreign run's records, and the callbacks
 * that pass over a record or stop the reading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/hist.h"
#include "common/histjson.h"
#include "journal/journal.h"
#include "journal/scan.h"

#include "jtest.h"

/* How a trial was measured is in its record: tcp_stream's copy (absent in a record written
 * before nsperf had its zero-copy path, when every stream copied) and the rr kinds' busy_poll,
 * read alike by both decoders. */
static void
test_copy_and_busy_poll(void **state)
{
    (void)state;
    static const struct {
        const char *scenario;
        bool copy, busy_poll;
    } cases[] = {
        {"{\"test\":\"tcp_stream\"}", true, false},
        {"{\"test\":\"tcp_stream\",\"copy\":false}", false, false},
        {"{\"test\":\"tcp_stream\",\"copy\":true}", true, false},
        {"{\"test\":\"tcp_rr\"}", false, false},
        {"{\"test\":\"tcp_rr\",\"busy_poll\":true}", false, true},
        {"{\"test\":\"udp_rr\",\"busy_poll\":false,\"copy\":true}", false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char line[256], why[NS_ERR_MSG_MAX];
        snprintf(line, sizeof line,
                 "{\"schema\":\"%s\",\"scenario\":%s,\"trial\":1,\"status\":\"ok\"}\n",
                 JOURNAL_TRIAL_SCHEMA, cases[i].scenario);
        struct journal_trial t;
        bool took;
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        assert_true(took);
        if (t.scenario.copy != cases[i].copy || t.scenario.busy_poll != cases[i].busy_poll)
            fail_msg("%s: copy %d busy_poll %d", cases[i].scenario, t.scenario.copy,
                     t.scenario.busy_poll);
    }
}

static void
test_reading_rules(void **state)
{
    (void)state;
    struct journal_trial t;
    bool took;
    char why[NS_ERR_MSG_MAX];
    /* wrong types read as absent; reals are not integers; the family is ipv4 unless "ipv6" */
    static const char lenient[] =
        "{\"schema\":\"netsurvey.trial/1\",\"run_id\":5,\"scenario\":{\"name\":\"s\","
        "\"test\":\"tcp_rr\",\"msg_size\":-3,\"streams\":2.0,\"duration_s\":\"10\","
        "\"reverse\":1},\"trial\":2,\"family\":\"IPV6\",\"src\":[1],\"dst\":{\"host\":null},"
        "\"status\":\"failed\",\"error\":{\"x\":1},\"attempts\":-1,"
        "\"result\":{\"throughput_bps\":\"fast\",\"cpu\":{\"local_pct\":1e2},\"udp\":{},"
        "\"rtt_us\":{\"mean\":null,\"hist\":{\"sub_bits\":7.0,\"buckets\":[[1,2]]}}},"
        "\"env\":null,\"tool\":{\"version\":true}}\n";
    assert_int_equal(decode(lenient, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_null(t.run_id);
    assert_int_equal(t.scenario.kind, TESTSPEC_TCP_RR);
    assert_int_equal(t.scenario.msg_size, 0);
    assert_int_equal(t.scenario.streams, 0);
    assert_true(t.scenario.duration_s == 0.0);
    assert_false(t.scenario.reverse);
    assert_int_equal(t.trial, 2);
    assert_int_equal(t.family, JOURNAL_IPV4);
    assert_null(t.src.host);
    assert_null(t.dst.host);
    assert_int_equal(t.status, JOURNAL_FAILED);
    assert_string_equal(t.status_text, "failed");
    assert_null(t.error);
    assert_int_equal(t.attempts, 0);
    assert_null(t.env_src);
    assert_null(t.tool_version);
    assert_true(t.result.present);
    assert_false(t.result.has_metric[TESTSPEC_M_THROUGHPUT]);
    assert_true(t.result.has_cpu_local && t.result.cpu_local_pct == 100.0);
    assert_false(t.result.has_cpu_remote);
    assert_true(t.result.has_udp);
    assert_false(t.result.has_udp_sent);
    assert_true(t.result.has_rtt);
    assert_false(t.result.has_metric[TESTSPEC_M_RTT_MEAN]);
    assert_false(t.result.has_hist); /* sub_bits 7.0 is a real, not a layout */
    assert_int_equal(t.result.hist_sub_bits, 0);
    /* buckets: entries that are not [low >= 0, count > 0] are skipped, in the same way */
    static const char buckets[] =
        "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":\"udp_rr\"},\"trial\":4294967294,"
        "\"status\":\"ok\","
        "\"result\":{\"rtt_us\":{\"hist\":{\"buckets\":[[5,0],[-1,3],[7,2,9],[8],\"x\",[9,1.5],"
        "[ 10 , 4 ],[11,1]],\"sub_bits\":7}}}}";
    assert_int_equal(decode(buckets, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_int_equal(t.trial, 4294967294u);
    assert_true(t.result.has_hist);
    assert_int_equal(t.result.nbuckets, 3);
    assert_int_equal(t.result.buckets[0].low_ns, 7);
    assert_int_equal(t.result.buckets[0].count, 2);
    assert_int_equal(t.result.buckets[1].low_ns, 10);
    assert_int_equal(t.result.buckets[2].count, 1);
    assert_int_equal(t.result.hist_sub_bits, 7); /* the old layout: read, its lows as written */
    /* the layout now (11) is read the same way; any other is not a histogram of ours */
    static const char *const layouts[][2] = {{"11", "11"}, {"7", "7"},  {"9", "0"},
                                             {"12", "0"},  {"-7", "0"}, {"\"11\"", "0"}};
    for (size_t i = 0; i < sizeof layouts / sizeof *layouts; i++) {
        char rec[512];
        snprintf(rec, sizeof rec,
                 "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},"
                 "\"status\":\"ok\",\"trial\":1,"
                 "\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":%s,"
                 "\"buckets\":[[329728,3],[330000,1]]}}}}",
                 layouts[i][0]);
        assert_int_equal(decode(rec, &t, &took, why, sizeof why), 0);
        int want = atoi(layouts[i][1]);
        assert_int_equal(t.result.has_hist, want != 0);
        assert_int_equal(t.result.hist_sub_bits, want);
        assert_int_equal(t.result.nbuckets, want != 0 ? 2 : 0);
    }
    /* lines passed over: another schema, a kind never mapped to another, not JSON, a top-level
     * array; records refused: another version of the schema, a status neither ok nor failed */
    assert_int_equal(decode("{\"schema\":\"netsurvey.other/1\"}", &t, &took, why, sizeof why),
                     NS_EPARSE);
    assert_string_equal(why, "not a trial record");
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/9\"}", &t, &took, why, sizeof why),
                     NS_EPROTO);
    assert_string_equal(why, "unsupported schema 'netsurvey.trial/9' (this netsurvey reads "
                             "netsurvey.trial/1 to netsurvey.trial/5)");
    static const char weird[] = "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":"
                                "\"tcp_rr\"},\"status\":\"weird\"}";
    assert_int_equal(decode(weird, &t, &took, why, sizeof why), NS_EPROTO);
    assert_true(took);
    assert_string_equal(why, "unknown status 'weird' (a trial is ok, failed or not_run)");
    static const char nostatus[] = "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":"
                                   "\"tcp_rr\"},\"status\":true}";
    assert_int_equal(decode(nostatus, &t, &took, why, sizeof why), NS_EPROTO);
    assert_string_equal(why, "no status (a trial is ok, failed or not_run)");
    /* attempts: a list's elements read as objects of strings (anything else: all NULL), its
     * length the count; a count is a count; anything else none */
    static const char attempts[] =
        "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},\"trial\":1,"
        "\"status\":\"not_run\",\"attempts\":[{\"started\":\"a\",\"error\":7,\"x\":[1],"
        "\"host_away\":\"h\"},null,[1,2],{},{\"ended\":\"e\",\"error\":\"why\"}]}";
    assert_int_equal(decode(attempts, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_int_equal(t.status, JOURNAL_NOT_RUN);
    assert_int_equal(t.attempts, 5);
    assert_int_equal(t.nattempt, 5);
    assert_string_equal(t.attempt[0].started, "a");
    assert_null(t.attempt[0].error);
    assert_string_equal(t.attempt[0].host_away, "h");
    assert_null(t.attempt[1].started);
    assert_null(t.attempt[2].ended);
    assert_null(t.attempt[3].error);
    assert_string_equal(t.attempt[4].ended, "e");
    assert_string_equal(t.attempt[4].error, "why");
    static const char *const counts[][2] = {
        {"[]", "0"}, {"4", "4"}, {"\"4\"", "0"}, {"{\"n\":1}", "0"}, {"2.0", "0"}};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        char rec[256];
        snprintf(rec, sizeof rec,
                 "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},"
                 "\"status\":\"failed\",\"trial\":1,\"attempts\":%s}",
                 counts[i][0]);
        assert_int_equal(decode(rec, &t, &took, why, sizeof why), 0);
        assert_true(took);
        assert_int_equal(t.attempts, atoi(counts[i][1]));
        assert_int_equal(t.nattempt, 0);
    }
    /* a trial number that is not an integer from 1 has no place among the planned trials */
    static const char *const numbers[] = {"2.0", "0", "-1", "\"3\"", "null"};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        char nline[256];
        snprintf(nline, sizeof nline,
                 "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":\"tcp_rr\"},"
                 "\"status\":\"ok\",\"trial\":%s}",
                 numbers[i]);
        assert_int_equal(decode(nline, &t, &took, why, sizeof why), NS_EPARSE);
        assert_string_equal(why, "no trial number (an integer from 1)");
    }
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":\"tcp_x\"}}",
                            &t, &took, why, sizeof why),
                     NS_EPARSE);
    assert_string_equal(why, "unknown test kind 'tcp_x'");
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/1\"}", &t, &took, why, sizeof why),
                     NS_EPARSE);
    assert_string_equal(why, "unknown test kind ''");
    assert_int_equal(decode("[{\"schema\":\"netsurvey.trial/1\"}]", &t, &took, why, sizeof why),
                     NS_EPARSE);
    assert_false(took);
    assert_int_equal(decode("{\"schema\":\"netsurvey.trial/1\",}", &t, &took, why, sizeof why),
                     NS_EPARSE);
    /* what jansson refuses, the fast decoder never takes */
    static const char *const refused[] = {
        "{\"schema\":\"netsurvey.trial/1\",\"x\":01}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":\"\\q\"}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":\"\x01\"}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":\"\xc0\xaf\"}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":9223372036854775808}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":1e999}",
        "{\"schema\":\"netsurvey.trial/1\",\"x\":tru}",
        "{\"schema\":\"netsurvey.trial/"
        "1\",\"result\":{\"rtt_us\":{\"hist\":{\"buckets\":[[01,1]]}}}}",
        "{\"schema\":\"netsurvey.trial/1\",\"result\":{\"rtt_us\":{\"hist\":{\"buckets\":"
        "[[99999999999999999999,1]]}}}}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        assert_int_equal(decode(refused[i], &t, &took, why, sizeof why), NS_EPARSE);
        assert_false(took);
    }
    /* what the fast decoder leaves to jansson, jansson reads: a duplicate key it reads (the
     * last wins), an escaped key, a \u escape of a surrogate pair */
    static const char dup[] =
        "{\"schema\":\"netsurvey.trial/1\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":\"ok\","
        "\"trial\":1,\"trial\":3,\"sch\\u0065ma\":\"netsurvey.trial/1\","
        "\"error\":\"\\ud83d\\ude00\"}";
    assert_int_equal(decode(dup, &t, &took, why, sizeof why), 0);
    assert_false(took);
    assert_int_equal(t.trial, 3);
    assert_string_equal(t.error, "\xf0\x9f\x98\x80");
}

/* The fast decoder reads runs of digits and of plain string bytes 8 at a time: every length of
 * a bucket's numbers (1 to 20 digits, past int64 too), with a leading zero or not, and every
 * place of a byte that ends a string's plain run (a quote, a backslash, a control character,
 * UTF-8, a byte jansson refuses), each at every distance from the line's end, read as jansson
 * reads them (decode() compares the two), with the values written. */
static void
test_runs_of_digits_and_strings(void **state)
{
    (void)state;
    static const char digits[] = "98765432109876543210";
    char why[NS_ERR_MSG_MAX], line[1024];
    struct journal_trial t;
    bool took;
    for (size_t len = 1; len <= 20; len++) {
        for (int zero = 0; zero < 2; zero++) {
            for (int pad = 0; pad < 12; pad++) {
                char num[32];
                snprintf(num, sizeof num, "%s%.*s", zero ? "0" : "", (int)len, digits);
                snprintf(line, sizeof line,
                         "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},"
                         "\"status\":\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{"
                         "\"sub_bits\":11,\"buckets\":[[%s,%s],[7,%s]]}}}}%*s\n",
                         num, num, num, pad, "");
                int rc = decode(line, &t, &took, why, sizeof why);
                /* jansson: no leading zero, nothing past int64 (19 digits from 9 are past) */
                bool valid = !(zero && len > 0) && len <= 18;
                if (len == 19 && !zero) /* 9876543210987654321 > INT64_MAX */
                    valid = false;
                if (!valid) {
                    assert_int_equal(rc, NS_EPARSE);
                    continue;
                }
                assert_int_equal(rc, 0);
                assert_true(took);
                uint64_t want = strtoull(num, NULL, 10);
                assert_int_equal(t.result.nbuckets, 2);
                assert_int_equal(t.result.buckets[0].low_ns, want);
                assert_int_equal(t.result.buckets[0].count, want);
                assert_int_equal(t.result.buckets[1].low_ns, 7);
                assert_int_equal(t.result.buckets[1].count, want);
            }
        }
    }
    /* a string of 24 bytes with one special byte (or escape) at every place */
    static const struct {
        const char *raw, *decoded; /* decoded NULL: jansson refuses the line */
    } specials[] = {{"\\\"", "\""},          {"\\\\", "\\"},           {"\\n", "\n"},
                    {"\\u00e9", "\xc3\xa9"}, {"\xc3\xa9", "\xc3\xa9"}, {"\x01", NULL},
                    {"\xff", NULL},          {"\x7f", "\x7f"},         {"\\x", NULL},
                    {"\xe2\x82", NULL}};
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) {
        for (int at = 0; at <= 24; at++) {
            for (int pad = 0; pad < 10; pad++) {
                char val[64], want[64];
                snprintf(val, sizeof val, "%.*s%s%.*s", at, "abcdefghijklmnopqrstuvwx",
                         specials[k].raw, 24 - at, "ABCDEFGHIJKLMNOPQRSTUVWX");
                snprintf(line, sizeof line,
                         "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},"
                         "\"status\":\"failed\",\"trial\":1,\"error\":\"%s\"}%*s\n",
                         val, pad, "");
                int rc = decode(line, &t, &took, why, sizeof why);
                if (specials[k].decoded == NULL) {
                    assert_int_equal(rc, NS_EPARSE);
                    continue;
                }
                assert_int_equal(rc, 0);
                snprintf(want, sizeof want, "%.*s%s%.*s", at, "abcdefghijklmnopqrstuvwx",
                         specials[k].decoded, 24 - at, "ABCDEFGHIJKLMNOPQRSTUVWX");
                assert_string_equal(t.error, want);
            }
        }
    }
}

/* Buckets that are not kept are checked 64 bytes at a time where they have nsperf's form: every
 * break of that form (a blank, an empty or longer entry, a sign, a real, a leading zero, 17
 * digits, a missing or extra comma or bracket, a string), at every place of arrays of 1 to 40
 * buckets, with little or much of the line after them, is read by the readers without buckets
 * as by those with them (decode() compares the four readers). */
static void
test_buckets_checked_not_kept(void **state)
{
    (void)state;
    static const char *const breaks[] = {
        NULL, /* none */
        "[0,1]",
        "[01,1]",
        "[1,01]",
        "[10,0]",
        "[1,2,3]",
        "[1]",
        "[]",
        "[-1,2]",
        "[1.5,2]",
        "[1,2 ]",
        "[ 1,2]",
        "[[1,2]]",
        "1",
        "[1,2],",
        ",[1,2]",
        "[1,,2]",
        "[1,2]]",
        "[1,2][3,4]",
        "[1234567890123456,1]",
        "[12345678901234567,1]",
        "[99999999999999999999,1]",
        "[1,2",
        "[\"1\",2]",
        "[1e3,1]",
        "[1,2]x",
        "[1,2\xc3\xa9]",
        "[1x2,3]",
        "[1,2]3",
        "[1,2]3]",
        "[1 2,3]",
        "[1,2]\n,[3,4]",
        "{}",
    };
    static const size_t sizes[] = {1, 5, 6, 7, 13, 40};
    static const char tail[] =
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmno";
    char why[NS_ERR_MSG_MAX];
    struct journal_trial t;
    bool took;
    size_t taken = 0, fast_taken = 0;
    for (size_t b = 0; b < sizeof breaks / sizeof *breaks; b++) {
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            for (size_t at = 0; at < sizes[z] && (at == 0 || breaks[b] != NULL); at++) {
                for (int longtail = 0; longtail < 2; longtail++) {
                    char arr[2048], line[4096];
                    size_t o = 0;
                    for (size_t i = 0; i < sizes[z]; i++) {
                        char one[64];
                        snprintf(one, sizeof one, "[%zu,%zu]", 329000 + 256 * i, 1 + i % 300);
                        o += (size_t)snprintf(arr + o, sizeof arr - o, "%s%s", i ? "," : "",
                                              breaks[b] != NULL && i == at ? breaks[b] : one);
                    }
                    snprintf(line, sizeof line,
                             "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},"
                             "\"status\":\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{"
                             "\"sub_bits\":11,\"buckets\":[%s]}}},\"env\":{\"src\":\"%s\"}}\n",
                             arr, longtail ? tail : "");
                    if (decode(line, &t, &took, why, sizeof why) == 0) {
                        taken++;
                        fast_taken += took;
                        assert_true(t.result.has_hist);
                    }
                }
            }
        }
    }
    assert_true(taken > 0 && fast_taken > 0);
}

/* An entry with the forms' others around its two numbers. */
struct entry_form {
    const char *open, *comma, *close; /* comma "],[": each number in an entry of its own */
};

/* One line of 14 buckets, entry at of them with num as its number which (0, 1) in form f, pad
 * others after the record: the four readers agree (decode()); *taken when they take it, and then
 * the number reads as its text says (unless it is a skipped one: a count of 0, a negative, an
 * entry of one member). */
static void
kept_case(const char *num, int which, const struct entry_form *f, size_t at, int pad, size_t *taken)
{
    char arr[1024], line[2048], why[NS_ERR_MSG_MAX];
    size_t o = 0;
    for (size_t i = 0; i < 14; i++) {
        char a[32], b[32];
        bool here = i == at;
        snprintf(a, sizeof a, "%zu", 255360 + 128 * i);
        snprintf(b, sizeof b, "%zu", 1 + (i * 37) % 400);
        o += (size_t)snprintf(arr + o, sizeof arr - o, "%s%s%s%s%s%s", i ? "," : "",
                              here ? f->open : "[", here && which == 0 ? num : a,
                              here ? f->comma : ",", here && which == 1 ? num : b,
                              here ? f->close : "]");
    }
    snprintf(line, sizeof line,
             "{\"schema\":\"netsurvey.trial/2\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":"
             "\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":11,\"buckets\":"
             "[%s]}}}}%*s",
             arr, pad, "");
    struct journal_trial t;
    bool took;
    if (decode(line, &t, &took, why, sizeof why) != 0)
        return;
    (*taken)++;
    if (num[0] == '-' || strcmp(f->comma, "],[") == 0)
        return;
    uint64_t want = strtoull(num, NULL, 10);
    bool found = which == 1 && want == 0;
    for (size_t i = 0; i < t.result.nbuckets; i++)
        found =
            found || (which == 0 ? t.result.buckets[i].low_ns : t.result.buckets[i].count) == want;
    assert_true(found);
}

/* The kept buckets of nsperf's form are read from the 64-byte blocks' masks, their numbers 8
 * digits at a time: one entry of an array of 14 changed, at every place (kept_case). Its number
 * (either) a run of 1 to 20 digits (of 98765..., of 9s, 1 and 0s) or int64's and uint64's edges,
 * as it is, with a leading zero or a minus; a number with a blank between the entry's tokens,
 * in an entry of one or three members, next to one of one member; the record ending 0 to 40 bytes
 * after the array, so that a number's words would reach past the line. */
static void
test_buckets_kept_digit_runs(void **state)
{
    (void)state;
    static const char *const edges[] = {"9223372036854775807",
                                        "9223372036854775808",
                                        "18446744073709551615",
                                        "18446744073709551616",
                                        "4294967296",
                                        "99999999",
                                        "100000000",
                                        "0"};
    static const struct entry_form plain = {"[", ",", "]"},
                                   others[] = {{"[ ", ",", "]"},    {"[", " ,", "]"},
                                               {"[", ",\t", "]"},   {"[", ",", "\r]"},
                                               {" [", ",", "]"},    {"[", ",", "]\n"},
                                               {"[", ",", ",1]"},   {"[", "],[", "]"},
                                               {"[", ",", "],[7]"}, {"[7],[", ",", "]"}};
    static const int pads[] = {0, 1, 9, 40};
    size_t taken = 0, tried = 0;
    for (size_t src = 0; src < 3 + sizeof edges / sizeof *edges; src++) {
        for (size_t len = 1; len <= (src < 3 ? 20 : 1); len++) {
            char digits[32];
            for (size_t i = 0; src < 3 && i < len; i++)
                digits[i] = src == 0 ? "98765432109876543210"[i] : src == 1 ? '9' : "10"[i > 0];
            snprintf(digits + (src < 3 ? len : 0), sizeof digits - (src < 3 ? len : 0), "%s",
                     src < 3 ? "" : edges[src - 3]);
            for (int sign = 0; sign < 3; sign++) {
                char num[40];
                snprintf(num, sizeof num, "%s%s", sign == 1 ? "0" : sign == 2 ? "-" : "", digits);
                for (int which = 0; which < 2; which++)
                    for (size_t at = 0; at < 14; at++)
                        for (size_t pd = 0; pd < sizeof pads / sizeof *pads; pd++, tried++)
                            kept_case(num, which, &plain, at, pads[pd], &taken);
            }
        }
    }
    size_t plain_taken = taken;
    for (size_t f = 0; f < sizeof others / sizeof *others; f++)
        for (int which = 0; which < 2; which++)
            for (size_t at = 0; at < 14; at++)
                for (size_t pd = 0; pd < sizeof pads / sizeof *pads; pd++, tried++)
                    kept_case("123456", which, &others[f], at, pads[pd], &taken);
    assert_true(plain_taken > 0 && taken > plain_taken && taken < tried);
}

/* The runs form (common/histjson.h): one run of an array of n changed to each break at every
 * place, the record ending right after it or 67 bytes later: the four readers agree (decode());
 * the array without a break reads as written, fast, its runs and counts exactly (the runs a step
 * apart of 9 buckets, so none joins). */
static void
test_runs_kept_and_broken(void **state)
{
    (void)state;
    static const char *const breaks[] = {
        NULL,
        "[5]",    /* no count */
        "[-1,2]", /* a negative head */
        "[1,-1]", /* a negative count */
        "[1,01]", /* a leading zero */
        "[01,1]",
        "[1.5,2]", /* not integers */
        "[1,2.0]",
        "[1,\"x\"]",
        "[1,2 ]", /* blanks */
        "[ 1,2]",
        "[1,2,0]",            /* a zero at the run's end: kept, as written */
        "[0,0]",              /* a run of one empty bucket */
        "[274877906944,1,2]", /* 2^38 ns: the last bucket, its second count past it */
        "[274877906944,3]",
        "[]",
        "1",
        "[[1,2]]",
        "[1,,2]",
        "[1234567890123456,1]",
        "[12345678901234567,1]",
        "[\"1\",2]",
        "{}",
    };
    static const size_t sizes[] = {1, 3, 13, 40};
    static const char tail[] =
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmno";
    char why[NS_ERR_MSG_MAX];
    struct journal_trial t;
    bool took;
    size_t taken = 0, fast_taken = 0, plain = 0;
    for (size_t b = 0; b < sizeof breaks / sizeof *breaks; b++) {
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
            for (size_t at = 0; at < sizes[z] && (at == 0 || breaks[b] != NULL); at++) {
                for (int longtail = 0; longtail < 2; longtail++) {
                    char arr[4096], line[8192];
                    size_t o = 0;
                    for (size_t i = 0; i < sizes[z]; i++) {
                        char one[128];
                        size_t idx = 5000 + 9 * i, n = 1 + i % 5, w = 0;
                        w += (size_t)snprintf(one + w, sizeof one - w, "[%llu",
                                              (unsigned long long)hist_bucket_low(idx));
                        for (size_t k = 0; k < n; k++)
                            w += (size_t)snprintf(one + w, sizeof one - w, ",%zu",
                                                  k == 1 ? 0 : 1 + (i * 31 + k * 7) % 900);
                        snprintf(one + w, sizeof one - w, "]");
                        o += (size_t)snprintf(arr + o, sizeof arr - o, "%s%s", i ? "," : "",
                                              breaks[b] != NULL && i == at ? breaks[b] : one);
                    }
                    snprintf(line, sizeof line,
                             "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},"
                             "\"status\":\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{"
                             "\"sub_bits\":11,\"runs\":[%s]}}},\"env\":{\"src\":\"%s\"}}\n",
                             arr, longtail ? tail : "");
                    if (decode(line, &t, &took, why, sizeof why) != 0)
                        continue;
                    taken++;
                    fast_taken += took;
                    assert_true(t.result.has_hist && t.result.hist_runs);
                    if (breaks[b] != NULL)
                        continue;
                    plain++;
                    assert_true(took || !longtail); /* the fast way takes nsperf's form */
                    assert_int_equal(t.result.nruns, sizes[z]);
                    size_t k = 0;
                    for (size_t i = 0; i < sizes[z]; i++) {
                        assert_int_equal(t.result.runs[i].first, 5000 + 9 * i);
                        assert_int_equal(t.result.runs[i].len, 1 + i % 5);
                        for (size_t c = 0; c < 1 + i % 5; c++, k++)
                            assert_int_equal(t.result.counts[k],
                                             c == 1 ? 0 : 1 + (i * 31 + c * 7) % 900);
                    }
                    assert_int_equal(t.result.ncounts, k);
                }
            }
        }
    }
    assert_true(taken > 0 && fast_taken > 0 && plain == 2 * sizeof sizes / sizeof *sizes);
}

/* What the runs form's readers make of the cases the writer never writes: runs that meet are
 * one, what is skipped ends a run, both forms or runs of an old layout are no histogram, an
 * empty array is one without buckets. */
static void
test_runs_rules(void **state)
{
    (void)state;
    char why[NS_ERR_MSG_MAX], line[1024];
    struct journal_trial t;
    bool took;
    unsigned long long a = hist_bucket_low(4000), b = hist_bucket_low(4002);
    snprintf(line, sizeof line,
             "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":"
             "\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":11,\"runs\":"
             "[[%llu,4,5],[%llu,6],[%llu,7,-1,8],[%llu],[%llu,9]]}}}}",
             a, b, b + 1, a, a);
    assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
    assert_true(t.result.has_hist && t.result.hist_runs);
    /* [4000: 4 5] [4002: 6] joined; then 7 (4002's bucket again: its own run), -1 ends it;
     * [a] has no count; [a: 9] */
    assert_int_equal(t.result.nruns, 3);
    assert_int_equal(t.result.runs[0].first, 4000);
    assert_int_equal(t.result.runs[0].len, 3);
    assert_int_equal(t.result.runs[1].first, 4002);
    assert_int_equal(t.result.runs[1].len, 1);
    assert_int_equal(t.result.runs[2].first, 4000);
    assert_int_equal(t.result.runs[2].len, 1);
    static const uint64_t counts[] = {4, 5, 6, 7, 9};
    assert_int_equal(t.result.ncounts, 5);
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(t.result.counts[i], counts[i]);
    /* runs that meet, in nsperf's form: joined by the fast way too */
    snprintf(line, sizeof line,
             "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":"
             "\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":11,\"runs\":"
             "[[%llu,4,5],[%llu,6,0,1]]}}},\"env\":{\"src\":\"%s\"}}",
             a, b, "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmno");
    assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
    assert_true(took);
    assert_int_equal(t.result.nruns, 1);
    assert_int_equal(t.result.runs[0].first, 4000);
    assert_int_equal(t.result.runs[0].len, 5);
    assert_int_equal(t.result.ncounts, 5);
    assert_int_equal(t.result.counts[4], 1);
    static const char *const none[] = {
        "\"sub_bits\":11,\"runs\":[[329728,3]],\"buckets\":[[329728,3]]",
        "\"sub_bits\":11,\"buckets\":[[329728,3]],\"runs\":null",
        "\"sub_bits\":7,\"runs\":[[329728,3]]",
        "\"runs\":[[329728,3]]",
        "\"sub_bits\":11,\"runs\":{}",
    };
    for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
        snprintf(line, sizeof line,
                 "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},"
                 "\"status\":\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{%s}}}}",
                 none[i]);
        assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
        assert_false(t.result.has_hist);
        assert_int_equal(t.result.nruns + t.result.ncounts + t.result.nbuckets, 0);
    }
    snprintf(
        line, sizeof line,
        "{\"schema\":\"netsurvey.trial/3\",\"scenario\":{\"test\":\"tcp_rr\"},\"status\":"
        "\"ok\",\"trial\":1,\"result\":{\"rtt_us\":{\"hist\":{\"sub_bits\":11,\"runs\":[]}}}}");
    assert_int_equal(decode(line, &t, &took, why, sizeof why), 0);
    assert_true(t.result.has_hist && t.result.hist_runs);
    assert_int_equal(t.result.nruns, 0);
}

/* A line past the cap is passed over and said, the lines around it are read; one past the cap
 * that ends the file without its newline too. */
static void
test_line_cap(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("cap", dir);
    struct err e = {0};
    struct journal_trial t = sample_trial(1, JOURNAL_FAILED);
    assert_int_equal(journal_append(j, &t, NULL, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "cap", JOURNAL_RESULTS_FILE);
    char first[4096];
    size_t n = file_text(path, first, sizeof first);
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    file_append(path, big);
    file_append(path, "\n");
    file_append(path, first);
    file_append(path, big); /* the last line, past the cap and without its newline */
    struct collected c = {.want = {t, t}};
    struct journal_read_stats st;
    assert_int_equal(
        journal_read_trials_capped(dir, NULL, n + 10, true, collect, skipped, &c, &st, &e), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(st.records, 2);
    assert_int_equal(st.bad, 2);
    assert_int_equal(c.skipped, 2);
    assert_int_equal(c.skipped_line[0], 2);
    assert_int_equal(c.skipped_line[1], 4);
    char want[64];
    snprintf(want, sizeof want, "line longer than %zu bytes", n + 10);
    assert_string_equal(c.why[0], want);
    assert_string_equal(c.why[1], want);
    /* with the real cap the same file reads as before the cap existed */
    c = (struct collected){.want = {t, t}};
    assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &st, &e), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(st.bad, 1);  /* the line of x's is not JSON */
    assert_int_equal(st.torn, 1); /* nor is the last, and it is torn */
}

/* A resumed run's records of one key: the reader hands on each; the key says which they are. */
static void
test_key_of_read_records(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("keys", dir);
    struct err e = {0};
    struct journal_trial a = sample_trial(1, JOURNAL_FAILED), b = sample_trial(1, JOURNAL_OK);
    b.src.host = "other";
    assert_int_equal(append_trial(j, &a, &e), 0);
    assert_int_equal(append_trial(j, &b, &e), 0);
    journal_free(j);
    struct collected c = {.minimal = true, .want = {a, b}};
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, NULL, collect, NULL, &c, &st, &e), 0);
    assert_int_equal(c.n, 2);
    struct journal_key ka, kb;
    journal_trial_key(&a, &ka);
    journal_trial_key(&b, &kb);
    assert_false(journal_key_equal(&ka, &kb));
}

/* The run is part of what a reader takes: given the run's id, another run's record is refused
 * (a journal of two runs read as one would count trials that are not this run's), and one
 * without a run_id too; without an id, every run's record is read. */
static void
test_foreign_run_refused(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("foreign", dir);
    struct err e = {0};
    struct journal_trial a = sample_trial(1, JOURNAL_OK), b = sample_trial(2, JOURNAL_OK);
    b.run_id = "20261201T000000Z-0002";
    struct journal_trial nobody = sample_trial(3, JOURNAL_OK);
    assert_int_equal(append_trial(j, &a, &e), 0);
    assert_int_equal(append_trial(j, &b, &e), 0);
    journal_free(j);
    char path[PATH_MAX];
    path_in(path, sizeof path, "foreign", JOURNAL_RESULTS_FILE);
    json_t *res = json_pack("{s:{s:f}}", "rtt_us", "mean", MINIMAL_RTT_US);
    json_t *rec = journal_trial_json(&nobody, res);
    json_decref(res);
    assert_non_null(rec);
    json_object_del(rec, "run_id");
    nobody.run_id = NULL;
    char *line = json_dumps(rec, JSON_COMPACT);
    file_append(path, line);
    file_append(path, "\n");
    free(line);
    json_decref(rec);
    for (int slow = 0; slow < 2; slow++) {
        if (slow)
            setenv("NETSURVEY_JOURNAL_SLOW", "1", 1);
        struct collected c = {.minimal = true, .want = {a}};
        struct journal_read_stats st;
        assert_int_equal(journal_read_trials(dir, a.run_id, collect, skipped, &c, &st, &e), 0);
        assert_int_equal(c.n, 1);
        assert_int_equal(st.refused, 2);
        assert_int_equal(c.skipped, 2);
        assert_int_equal(c.kind[0], JOURNAL_SKIP_REFUSED);
        assert_int_equal(c.skipped_line[0], 2);
        assert_string_equal(c.why[0], "a record of another run ('20261201T000000Z-0002'; the run "
                                      "is '20261130T150000Z-7f3c')");
        assert_string_equal(c.why[1],
                            "a record without a run_id (the run is '20261130T150000Z-7f3c')");
        c = (struct collected){.minimal = true, .want = {a, b, nobody}};
        assert_int_equal(journal_read_trials(dir, NULL, collect, skipped, &c, &st, &e), 0);
        assert_int_equal(c.n, 3);
        assert_int_equal(st.refused, 0);
        unsetenv("NETSURVEY_JOURNAL_SLOW");
    }
}

/* Values outside their domain are journal problems, never data (journal_trial_domain): each
 * such line is passed over as JOURNAL_SKIP_INVALID with what is wrong, by both readers, and
 * the good records around them are read as they were written. */
static void
test_values_outside_domain(void **state)
{
    (void)state;
    static const struct {
        const char *result, *family, *why;
    } bad[] = {
        {"null", "ipv6", "status ok without a result"},
        {"{\"cpu\":{\"local_pct\":3}}", "ipv6", "status ok without its headline figure (udp_rr)"},
        {"{\"rtt_us\":{\"mean\":-5}}", "ipv6", "headline figure -5 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":1e300}}", "ipv6",
         "headline figure 1e+300 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":-1e300}}", "ipv6",
         "headline figure -1e+300 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":250,\"min\":-1}}", "ipv6",
         "rtt_us.min -1 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":250},\"udp\":{\"lost_pct\":150}}", "ipv6",
         "udp.lost_pct 150 out of its domain (0 to 100)"},
        {"{\"rtt_us\":{\"mean\":250},\"cpu\":{\"remote_pct\":-0.5}}", "ipv6",
         "cpu.remote_pct -0.5 out of its domain (0 to 1e+12)"},
        {"{\"rtt_us\":{\"mean\":250}}", "ipx", "unknown family 'ipx' (ipv4 or ipv6)"},
    };
    size_t nbad = sizeof bad / sizeof bad[0];
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("domain", dir);
    struct err e = {0};
    struct journal_trial a = sample_trial(1, JOURNAL_OK);
    assert_int_equal(append_trial(j, &a, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "domain", JOURNAL_RESULTS_FILE);
    char first[4096];
    file_text(path, first, sizeof first);
    for (size_t i = 0; i < nbad; i++) {
        json_t *rec = json_loads(first, 0, NULL);
        assert_non_null(rec);
        json_object_set_new(rec, "result", json_loads(bad[i].result, JSON_DECODE_ANY, NULL));
        json_object_set_new(rec, "family", json_string(bad[i].family));
        char *line = json_dumps(rec, JSON_COMPACT);
        file_append(path, line);
        file_append(path, "\n");
        free(line);
        json_decref(rec);
    }
    file_append(path, first); /* a good one after them is read */
    for (int slow = 0; slow < 2; slow++) {
        if (slow)
            setenv("NETSURVEY_JOURNAL_SLOW", "1", 1);
        struct collected c = {.minimal = true, .want = {a, a}};
        struct journal_read_stats st;
        assert_int_equal(journal_read_trials(dir, a.run_id, collect, NULL, &c, &st, &e), 0);
        assert_int_equal(c.n, 2);
        assert_int_equal(st.records, 2);
        assert_int_equal(st.invalid, nbad);
        assert_int_equal(st.bad + st.refused + st.torn, 0);
        unsetenv("NETSURVEY_JOURNAL_SLOW");
    }
    /* each with its reason, at its line */
    struct collected c = {.minimal = true, .want = {a, a}};
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, a.run_id, collect, skipped, &c, &st, &e), 0);
    assert_int_equal(c.skipped, nbad);
    for (size_t i = 0; i < 4 && i < nbad; i++) {
        assert_int_equal(c.kind[i], JOURNAL_SKIP_INVALID);
        assert_int_equal(c.skipped_line[i], i + 2);
        assert_string_equal(c.why[i], bad[i].why);
    }
}

/* A record the caller finds out of place (JOURNAL_PASS_OVER) is passed over as invalid, with
 * the caller's reason, and the reading goes on. */
static int
pass_over_second(void *arg, const struct journal_trial *t, struct err *e)
{
    (void)arg;
    return t->trial == 2 ? err_set(e, JOURNAL_PASS_OVER, "trial 2 past the plan") : 0;
}

static void
test_callback_passes_over(void **state)
{
    (void)state;
    char dir[PATH_MAX];
    struct journal *j = fresh("passover", dir);
    struct err e = {0};
    for (uint32_t n = 1; n <= 3; n++) {
        struct journal_trial t = sample_trial(n, JOURNAL_OK);
        assert_int_equal(append_trial(j, &t, &e), 0);
    }
    journal_free(j);
    struct collected c = {.minimal = true};
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, NULL, pass_over_second, skipped, &c, &st, &e), 0);
    assert_int_equal(st.records, 2);
    assert_int_equal(st.invalid, 1);
    assert_int_equal(c.skipped, 1);
    assert_int_equal(c.kind[0], JOURNAL_SKIP_INVALID);
    assert_int_equal(c.skipped_line[0], 2);
    assert_string_equal(c.why[0], "trial 2 past the plan");
}

/* A skip callback that stops the reading: its code comes back, no record after it is read. */
static int
skip_stop(void *arg, const struct journal_skip *s, struct err *e)
{
    (void)arg;
    return s->kind == JOURNAL_SKIP_REFUSED ? err_set(e, NS_EPROTO, "stop at %lu", s->line) : 0;
}

static void
test_skip_stops_reading(void **state)
{
    (void)state;
    char dir[PATH_MAX], path[PATH_MAX];
    struct journal *j = fresh("stop", dir);
    struct err e = {0};
    struct journal_trial a = sample_trial(1, JOURNAL_OK);
    assert_int_equal(append_trial(j, &a, &e), 0);
    journal_free(j);
    path_in(path, sizeof path, "stop", JOURNAL_RESULTS_FILE);
    char first[4096];
    file_text(path, first, sizeof first);
    file_append(path, "garbage\n");
    char *weird = strdup(first);
    char *st_at = strstr(weird, "\"status\":\"ok\"");
    assert_non_null(st_at);
    memcpy(st_at, "\"status\":\"no\"", 13);
    file_append(path, weird);
    file_append(path, first);
    free(weird);
    struct collected c = {.minimal = true, .want = {a, a}};
    struct journal_read_stats st;
    assert_int_equal(journal_read_trials(dir, NULL, collect, skip_stop, &c, &st, &e), NS_EPROTO);
    assert_string_equal(e.msg, "stop at 3");
    assert_int_equal(c.n, 1);
    assert_int_equal(st.bad, 1);
    assert_int_equal(st.refused, 1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_kept_and_broken),
        cmocka_unit_test(test_runs_rules),
        cmocka_unit_test(test_reading_rules),
        cmocka_unit_test(test_runs_of_digits_and_strings),
        cmocka_unit_test(test_buckets_checked_not_kept),
        cmocka_unit_test(test_buckets_kept_digit_runs),
        cmocka_unit_test(test_copy_and_busy_poll),
        cmocka_unit_test(test_key_of_read_records),
        cmocka_unit_test(test_line_cap),
        cmocka_unit_test(test_foreign_run_refused),
        cmocka_unit_test(test_skip_stops_reading),
        cmocka_unit_test(test_values_outside_domain),
        cmocka_unit_test(test_callback_passes_over),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
