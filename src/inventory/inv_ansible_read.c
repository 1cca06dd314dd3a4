/* inv_ansible_read.c - an Ansible inventory in either form: YAML by its extension (.yaml, .yml,
 * .json, as Ansible's yaml plugin), INI by its (.ini, .cfg), else by its first line (a
 * "key:" line is YAML; "[group]" and "host var=value" are INI), then the selected hosts. */
#include <string.h>

#include "common/errors.h"
#include "inventory/inv_ansible.h"

static bool
ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* The first line that is neither blank nor a comment. */
static bool
first_line_yaml(const char *buf, size_t len)
{
    for (size_t off = 0; off < len;) {
        const char *nl = memchr(buf + off, '\n', len - off);
        size_t n = nl != NULL ? (size_t)(nl - (buf + off)) : len - off;
        const char *s = buf + off;
        size_t lead = 0;
        while (lead < n && (s[lead] == ' ' || s[lead] == '\t' || s[lead] == '\r'))
            lead++;
        off += n + 1;
        if (lead == n || s[lead] == '#' || s[lead] == ';')
            continue;
        size_t end = n;
        while (end > lead && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\r'))
            end--;
        if (s[lead] == '[')
            return false;
        if (s[lead] == '{' || (end - lead >= 3 && memcmp(s + lead, "---", 3) == 0))
            return true;
        for (size_t i = lead; i < end; i++)
            if (s[i] == ':' && (i + 1 == end || s[i + 1] == ' ' || s[i + 1] == '\t'))
                return true;
        return false;
    }
    return false;
}

static bool
is_yaml(const char *file, const char *buf, size_t len)
{
    if (ends_with(file, ".yaml") || ends_with(file, ".yml") || ends_with(file, ".json"))
        return true;
    if (ends_with(file, ".ini") || ends_with(file, ".cfg"))
        return false;
    return first_line_yaml(buf, len);
}

int
inv_read_ansible(struct inv_ctx *x, const char *buf, size_t len)
{
    struct ans_inv a;
    int rc = inv_ans_init(&a, x);
    if (rc == 0)
        rc = is_yaml(x->file, buf, len) ? inv_ansible_yaml(&a, buf, len)
                                        : inv_ansible_ini(&a, buf, len);
    if (rc == 0)
        rc = inv_ans_take(&a);
    inv_ans_release(&a);
    return x->oom ? NS_ENOMEM : rc;
}
