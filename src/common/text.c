#include "common/text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

char *
text_escape(const char *in, char *out, size_t cap)
{
    size_t n = 0;
    if (cap == 0)
        return out;
    for (const unsigned char *p = (const unsigned char *)in; p != NULL && *p != '\0'; p++) {
        char esc[5];
        size_t len = 1;
        if (*p < 0x20 || *p == 0x7f) {
            snprintf(esc, sizeof esc, "\\x%02x", *p);
            len = 4;
        } else if (*p == '\\') {
            esc[0] = esc[1] = '\\';
            len = 2;
        } else {
            esc[0] = (char)*p;
        }
        if (n + len >= cap)
            break;
        for (size_t i = 0; i < len; i++)
            out[n++] = esc[i];
    }
    out[n] = '\0';
    return out;
}

bool
text_name_ok(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len > 64 || s[0] == '-' || s[0] == '.')
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!isalnum(ch) && ch != '.' && ch != '_' && ch != '-')
            return false;
    }
    return true;
}
