/* inv_json.c - JSON helpers of the cloud readers. */
#include <string.h>

#include "inventory/inv_json.h"

json_t *
inv_json_load(struct inv_ctx *x, const char *buf, size_t len)
{
    json_error_t jerr;
    json_t *doc = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
    if (doc == NULL && json_error_code(&jerr) == json_error_out_of_memory)
        x->oom = true;
    else if (doc == NULL)
        inv_error(x, "invalid json in %s at %d:%d: %s", x->file, jerr.line, jerr.column, jerr.text);
    return doc;
}

int
inv_json_guess(const json_t *doc)
{
    if (json_is_object(doc) && json_object_get(doc, "Reservations") != NULL)
        return INV_AWS;
    const json_t *first = json_array_get(doc, 0);
    const char *kind = json_string_value(json_object_get(first, "kind"));
    const char *type = json_string_value(json_object_get(first, "type"));
    if (json_object_get(first, "InstanceId") != NULL)
        return INV_AWS;
    if (kind != NULL && strcmp(kind, "compute#instance") == 0)
        return INV_GCP;
    if (type != NULL && strcmp(type, "Microsoft.Compute/virtualMachines") == 0)
        return INV_AZURE;
    return -1;
}

bool
inv_json_other_cloud(struct inv_ctx *x, const json_t *doc)
{
    static const char *const tool[] = {
        [INV_AZURE] = "az vm list -d -o json",
        [INV_AWS] = "aws ec2 describe-instances --output json",
        [INV_GCP] = "gcloud compute instances list --format=json",
    };
    int g = inv_json_guess(doc);
    if (g < 0 || g == (int)x->format)
        return false;
    inv_error(x, "unexpected json in %s: it is what %s prints, not %s; say format: %s", x->file,
              tool[g], tool[x->format], inv_format_name((enum inv_format)g));
    return true;
}

const char *
inv_json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "a list";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
        return "true";
    case JSON_FALSE:
        return "false";
    case JSON_NULL:
        break;
    }
    return "null";
}

/* Member key of o unless absent or null; of type, else reported. */
static const json_t *
member(struct inv_ctx *x, const json_t *o, const char *key, const char *where, json_type type,
       const char *want)
{
    const json_t *v = json_is_object(o) ? json_object_get(o, key) : NULL;
    if (v == NULL || json_is_null(v))
        return NULL;
    if (json_typeof(v) == type)
        return v;
    inv_error(x, "unexpected json in %s%s%s: \"%s\" is %s, expected %s", x->file,
              where[0] != '\0' ? " " : "", where, key, inv_json_kind(v), want);
    return NULL;
}

const char *
inv_json_str(struct inv_ctx *x, const json_t *o, const char *key, const char *where)
{
    return json_string_value(member(x, o, key, where, JSON_STRING, "a string"));
}

const json_t *
inv_json_obj(struct inv_ctx *x, const json_t *o, const char *key, const char *where)
{
    return member(x, o, key, where, JSON_OBJECT, "an object");
}

const json_t *
inv_json_list(struct inv_ctx *x, const json_t *o, const char *key, const char *where)
{
    return member(x, o, key, where, JSON_ARRAY, "a list");
}

bool
inv_json_tags_match(const struct inv_ctx *x, const json_t *tags)
{
    for (size_t i = 0; i < x->q->ntags; i++) {
        const char *v = json_string_value(json_object_get(tags, x->q->tags[i].key));
        if (v == NULL || strcmp(v, x->q->tags[i].value) != 0)
            return false;
    }
    return true;
}

const char *
inv_last_segment(struct inv_ctx *x, const char *s)
{
    if (s == NULL)
        return NULL;
    const char *slash = strrchr(s, '/');
    return inv_strdup(x, slash != NULL ? slash + 1 : s);
}

const char *
inv_first_item(struct inv_ctx *x, const char *s)
{
    if (s == NULL)
        return NULL;
    size_t len = strcspn(s, ",");
    while (len > 0 && (s[0] == ' ' || s[0] == '\t')) {
        s++;
        len--;
    }
    while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    return len > 0 ? inv_strndup(x, s, len) : NULL;
}
