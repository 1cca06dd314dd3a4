/* inv_aws.c - the machines of `aws ec2 describe-instances --output json`.
 *
 * Shape, from the EC2 API reference (DescribeInstances, Reservation, Instance, Placement,
 * InstanceState, Tag) and the AWS CLI's examples (awscli/examples/ec2/describe-instances.rst):
 * {"Reservations": [{"Instances": [{"InstanceId": "i-0abc...", "InstanceType": "m5.large",
 * "Placement": {"AvailabilityZone": "us-east-1a", "AvailabilityZoneId": "use1-az1" (newer
 * API versions), "GroupName", "Tenancy"}, "PrivateIpAddress", "PublicIpAddress" (absent
 * without one), "State": {"Code": 16, "Name": "running"}, "Tags": [{"Key": "Name", "Value":
 * "web1"}] (absent without tags), ...}], "OwnerId", "ReservationId"}]}. The list of instances
 * alone, as --query 'Reservations[].Instances[]' prints it, is read too. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/errors.h"
#include "common/text.h"
#include "inventory/inv_json.h"

/* us-east-1a, us-gov-west-1b, us-west-2-lax-1a (Local Zone), us-east-1-wl1-bos-wlz-1
 * (Wavelength Zone): the region is every '-' part up to the first that starts with a digit,
 * plus that part's digits; at least two parts of letters before it, and more after. */
bool
inv_aws_region(const char *zone, char *buf, size_t len)
{
    size_t letters = 0;
    for (const char *p = zone; *p != '\0';) {
        size_t part = strcspn(p, "-");
        if (part == 0)
            return false;
        if (isdigit((unsigned char)p[0])) {
            size_t digits = strspn(p, "0123456789");
            bool more = p[digits] != '\0';
            size_t n = (size_t)(p - zone) + digits;
            if (letters < 2 || !more || n >= len)
                return false;
            snprintf(buf, len, "%.*s", (int)n, zone);
            return true;
        }
        for (size_t i = 0; i < part; i++)
            if (!islower((unsigned char)p[i]))
                return false;
        letters++;
        p += part;
        if (*p == '-')
            p++;
    }
    return false;
}

static const char *
tag_value(const json_t *tags, const char *key)
{
    for (size_t i = 0; i < json_array_size(tags); i++) {
        const json_t *t = json_array_get(tags, i);
        const char *k = json_string_value(json_object_get(t, "Key"));
        if (k != NULL && strcmp(k, key) == 0)
            return json_string_value(json_object_get(t, "Value"));
    }
    return NULL;
}

static bool
tags_match(const struct inv_ctx *x, const json_t *tags)
{
    for (size_t i = 0; i < x->q->ntags; i++) {
        const char *v = tag_value(tags, x->q->tags[i].key);
        if (v == NULL || strcmp(v, x->q->tags[i].value) != 0)
            return false;
    }
    return true;
}

static void
aws_fill(struct inv_ctx *x, struct inv_machine *m, const json_t *in, const char *where)
{
    const json_t *pl = inv_json_obj(x, in, "Placement", where);
    m->zone = inv_strdup(x, inv_json_str(x, pl, "AvailabilityZone", where));
    m->zone_id = inv_strdup(x, inv_json_str(x, pl, "AvailabilityZoneId", where));
    char region[64];
    if (m->zone != NULL && inv_aws_region(m->zone, region, sizeof region))
        m->region = inv_strdup(x, region);
    else if (m->zone != NULL)
        inv_error(x, "cannot tell the region of zone '%s' of machine '%s' (%s %s)", m->zone,
                  m->name, x->file, where);
    m->data_address = inv_strdup(x, inv_json_str(x, in, "PrivateIpAddress", where));
    m->address = inv_strdup(x, inv_json_str(x, in, "PublicIpAddress", where));
    m->instance_type = inv_strdup(x, inv_json_str(x, in, "InstanceType", where));
}

static bool
aws_instance(struct inv_ctx *x, const json_t *in, const char *where, size_t *renamed)
{
    if (!json_is_object(in)) {
        inv_error(x, "unexpected json in %s %s: expected an instance (an object), found %s",
                  x->file, where, inv_json_kind(in));
        return true;
    }
    const char *id = inv_json_str(x, in, "InstanceId", where);
    if (id == NULL) { /* then the rest is no list of instances either */
        inv_error(x, "unexpected json in %s %s: an instance without an \"InstanceId\"", x->file,
                  where);
        return false;
    }
    if (!inv_count(x))
        return false;
    const json_t *tags = inv_json_list(x, in, "Tags", where);
    /* The Name tag names the host when it can (AWS allows any text in it), else the id. */
    const char *tagged = tag_value(tags, "Name");
    const char *name = tagged != NULL && text_name_ok(tagged) ? tagged : id;
    if (!inv_name_wanted(x, name) || !tags_match(x, tags))
        return true;
    if (tagged != NULL && name == id && (*renamed)++ < 5)
        inv_note(x,
                 "instance %s in %s is named by its id: its Name tag '%s' is not a host name "
                 "(letters, digits, '.', '_' and '-')",
                 id, x->file, tagged);
    struct inv_machine *m = inv_add(x, name, where, 0, 0);
    if (m == NULL)
        return false;
    m->instance_id = inv_strdup(x, id);
    const char *state = inv_json_str(x, inv_json_obj(x, in, "State", where), "Name", where);
    if (state == NULL || strcmp(state, "running") != 0)
        m->state = inv_strdup(x, state != NULL ? state : "no state");
    size_t before = x->errors;
    aws_fill(x, m, in, where);
    m->bad = x->errors > before;
    return true;
}

static bool
aws_instances(struct inv_ctx *x, const json_t *list, const char *prefix, size_t *renamed)
{
    for (size_t i = 0; i < json_array_size(list) && !inv_give_up(x); i++) {
        char where[64];
        snprintf(where, sizeof where, "%s[%zu]", prefix, i);
        if (!aws_instance(x, json_array_get(list, i), where, renamed))
            return false;
    }
    return true;
}

int
inv_read_aws(struct inv_ctx *x, const char *buf, size_t len)
{
    json_t *doc = inv_json_load(x, buf, len);
    if (doc == NULL)
        return x->oom ? NS_ENOMEM : NS_EPARSE;
    size_t renamed = 0;
    if (inv_json_other_cloud(x, doc)) {
        json_decref(doc);
        return NS_EPARSE;
    }
    const json_t *res = inv_json_list(x, doc, "Reservations", "");
    if (json_is_array(doc)) {
        aws_instances(x, doc, "", &renamed);
    } else if (res == NULL) {
        inv_error(x,
                  "unexpected json in %s: expected the object with \"Reservations\" that aws "
                  "ec2 describe-instances --output json prints, found %s",
                  x->file, inv_json_kind(doc));
    }
    bool more = true;
    for (size_t r = 0; r < json_array_size(res) && more && !x->oom; r++) {
        char where[64];
        snprintf(where, sizeof where, "Reservations[%zu]", r);
        const json_t *list = inv_json_list(x, json_array_get(res, r), "Instances", where);
        snprintf(where, sizeof where, "Reservations[%zu].Instances", r);
        more = aws_instances(x, list, where, &renamed);
    }
    if (renamed > 5)
        inv_note(x, "%zu more instances in %s are named by their ids", renamed - 5, x->file);
    json_decref(doc);
    return 0;
}
