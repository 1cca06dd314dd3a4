/* roff.c - text for manual pages (roff.h). */
#include "common/roff.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

void
roff_block_begin(FILE *out, const char *name)
{
    fprintf(out, ".\\\" @generated %s\n", name);
}

void
roff_block_end(FILE *out)
{
    fputs(".\\\" @end\n", out);
}

/* n bytes of s, escaped, with no line start to guard (the caller's); a `quoted` word is set in
 * bold, as the help's backquotes mark what is typed. */
static void
roff_chars(FILE *out, const char *s, size_t n)
{
    bool quoted = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '`' && (quoted || memchr(s + i + 1, '`', n - i - 1) != NULL)) {
            fputs(quoted ? "\\fR" : "\\fB", out);
            quoted = !quoted;
        } else if (s[i] == '\\')
            fputs("\\e", out);
        else if (s[i] == '-')
            fputs("\\-", out);
        else
            fputc(s[i], out);
    }
}

void
roff_text(FILE *out, const char *text)
{
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, "\n");
        if (*p == '.' || *p == '\'')
            fputs("\\&", out);
        roff_chars(out, p, n);
        fputc('\n', out);
        p += n + (p[n] == '\n');
    }
}

/* A word of a synopsis: an option, a capitalised name (a value to give), or text. */
static void
synopsis_word(FILE *out, const char *w, size_t n)
{
    bool caps = n > 0;
    for (size_t i = 0; i < n; i++)
        caps = caps && (isupper((unsigned char)w[i]) || w[i] == '_');
    const char *font = w[0] == '-' ? "\\fB" : caps ? "\\fI" : "";
    fputs(font, out);
    roff_chars(out, w, n);
    if (*font != '\0')
        fputs("\\fR", out);
}

void
roff_synopsis(FILE *out, const char *text)
{
    if (*text == '.' || *text == '\'')
        fputs("\\&", out);
    /* words are what lies between blanks, brackets, bars and '=' */
    for (const char *p = text; *p != '\0';) {
        size_t n = strcspn(p, " []|=.");
        if (n == 0 && *p == ' ' && isupper((unsigned char)p[1])) {
            fputs("\\ ", out); /* an option and its value stay on one line: "-o DIR" */
            p++;
            continue;
        }
        if (n == 0) {
            fputc(*p, out);
            p++;
            continue;
        }
        synopsis_word(out, p, n);
        p += n;
    }
    fputc('\n', out);
}

void
roff_option(FILE *out, char short_name, const char *name, const char *arg, const char *help)
{
    fputs(".TP\n", out);
    if (short_name != 0)
        fprintf(out, "\\fB\\-%c\\fR, ", short_name);
    fputs("\\fB\\-\\-", out);
    roff_chars(out, name, strlen(name));
    fputs("\\fR", out);
    if (arg != NULL) {
        fputs(" \\fI", out);
        roff_chars(out, arg, strlen(arg));
        fputs("\\fR", out);
    }
    fputc('\n', out);
    roff_text(out, help);
}

void
roff_exit(FILE *out, int status, const char *meaning)
{
    fprintf(out, ".TP\n.B %d\n", status);
    roff_text(out, meaning);
}
