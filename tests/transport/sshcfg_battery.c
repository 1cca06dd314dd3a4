/* sshcfg_battery.c - the cases and their homes (see sshcfg_battery.h). */
#include "sshcfg_battery.h"

#include <ftw.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* --- the battery -------------------------------------------------------------------------- */

#define T(n, h, ...)                                                                               \
    {                                                                                              \
        .name = n, .host = h, __VA_ARGS__                                                          \
    }
#define CFG(t) .files = {{.path = "config", .text = t}}
#define FILES(...) .files = {__VA_ARGS__}
#define F(p, t)                                                                                    \
    {                                                                                              \
        .path = p, .text = t                                                                       \
    }
#define OV(...) .ov = {__VA_ARGS__}

const struct tcase sshcfg_cases[] = {
    T("basic", "foo", CFG("Host foo\n HostName foo.example.com\n User alice\n Port 2201\n")),
    T("first_value_wins", "foo",
      CFG("Host foo\n User first\nHost *\n User second\n Port 2202\nHost foo\n Port 9\n")),
    /* the issue's field case: User and ProxyJump from a later pattern block */
    T("later_block_user_and_jump", "zone1-vm",
      CFG("Host zone1-vm\n HostName 10.0.0.4\nHost zone*-vm\n User azureuser\n"
          " ProxyJump bastion\nHost bastion\n HostName 127.0.0.1\n User jump\n")),
    T("negation_skips", "bad1", CFG("Host * !bad*\n User good\nHost *\n User other\n")),
    T("negation_other_host", "ok", CFG("Host * !bad*\n User good\nHost *\n User other\n")),
    T("negation_first_on_line", "foo", CFG("Host !foo *\n Port 2203\n")),
    T("negation_only_never_matches", "bar", CFG("Host !foo\n Port 2204\n")),
    T("several_patterns", "cxd", CFG("Host a b c?d\n Port 2205\n")),
    T("wildcards_question_marks", "web-01.prod", CFG("Host web-??.prod\n User w\n")),
    T("wildcards_question_no_match", "web-001.prod", CFG("Host web-??.prod\n User w\n")),
    T("host_patterns_case_sensitive", "foo", CFG("Host FOO\n User upper\n")),
    T("keywords_any_case", "foo", CFG("HOST foo\n hOsTnAmE Example.COM\n USER Bob\n pOrT 2206\n")),
    T("equals_syntax", "foo", CFG("Host=foo\nHostName=foo.example\nPort = 2207\nUser= eve\n")),
    T("quoted_arguments", "foo",
      CFG("Host \"foo\"\n IdentityFile \"~/.ssh/my key\"\n User \"alice\"\n"
          " UserKnownHostsFile '~/.ssh/kh_one'\n")),
    T("comments_and_blank_lines", "foo",
      CFG("# c\nHost foo # trailing\n  User alice # comment\n\n   # indented\n\tPort 2208\n")),
    T("hostname_token_h", "vm1.lab", CFG("Host *.lab\n HostName %h.internal.example\n")),
    T("hostname_percent_percent", "foo", CFG("Host foo\n HostName a%%b.example\n")),
    T("hostname_bad_token_refused", "foo", CFG("Host foo\n HostName %r.example\n")),
    T("port_config_vs_override", "foo", CFG("Host foo\n Port 2209\n"), OV(.port = 2300)),
    T("user_override_seen_by_match_user", "foo",
      CFG("Host foo\n User cfg\nMatch user plan\n Port 2401\n"), OV(.user = "plan")),
    T("identityfile_accumulates", "foo",
      CFG("Host foo\n IdentityFile ~/.ssh/a\nHost f*\n IdentityFile ~/.ssh/b\n"
          " IdentityFile ~/.ssh/a\nHost *\n IdentityFile %d/c_%h_%r_%p\n")),
    T("identityfile_defaults", "foo", CFG("Host other\n IdentityFile ~/.ssh/x\n")),
    T("identityfile_none_dropped", "foo",
      CFG("Host foo\n IdentityFile none\n IdentityFile ~/.ssh/after_none\n")),
    /* -i takes a file that exists (ssh warns of a missing one and leaves it out) */
    T("identity_override_first", "foo",
      FILES(F("config", "Host foo\n IdentityFile ~/.ssh/cfg_key\n IdentityFile @HOME@/plan_key\n"),
            F("plan_key", "not a key\n")),
      OV(.identity = "@HOME@/plan_key")),
    T("identity_override_missing", "foo", CFG("Host foo\n IdentityFile ~/.ssh/cfg_key\n"),
      OV(.identity = "@HOME@/no_such_key"), .warn = "not accessible"),
    T("identity_tokens_all", "foo",
      CFG("Host foo\n HostName Real.Example\n User u1\n HostKeyAlias KA\n Port 2210\n"
          " IdentityFile ~/.ssh/%C-%L-%i-%k-%l-%n-%p-%d-%h-%r-%u-%%\n")),
    T("identity_env_var", "foo", CFG("Host foo\n IdentityFile ${NS_SSHCFG_VAR}/k\n")),
    T("identity_env_var_missing_refused", "foo",
      CFG("Host foo\n IdentityFile ${NS_SSHCFG_UNSET_VAR}/k\n")),
    T("identity_tilde_user", "foo",
      CFG("Host foo\n IdentityFile ~root/.ssh/rootkey\n IdentityFile ~\n")),
    T("include_glob_relative", "b",
      FILES(F("config", "Include conf.d/*.conf\nHost *\n User fallback\n"),
            F(".ssh/conf.d/10-a.conf", "Host a\n User ua\n"),
            F(".ssh/conf.d/20-b.conf", "Host b\n User ub\n Port 2211\n"),
            F(".ssh/conf.d/README", "Host *\n User readme\n"))),
    T("include_in_host_blocks", "y",
      FILES(F("config", "Host x\n Include inc_x\n HostKeyAlias after_x\nHost y\n Include inc_y\n"
                        "Host *\n Port 2999\n"),
            F(".ssh/inc_x", "User from_x\nHost *\n Port 2001\n"),
            F(".ssh/inc_y", "User from_y\n"))),
    T("include_state_restored", "x",
      FILES(F("config", "Host x\n Include inc_x\n HostKeyAlias after_x\nHost y\n Include inc_y\n"
                        "Host *\n Port 2999\n"),
            F(".ssh/inc_x", "User from_x\nHost nomatch\n Port 2001\n"),
            F(".ssh/inc_y", "User from_y\n"))),
    T("include_tilde_and_absolute", "t",
      FILES(F("config", "Include ~/.ssh/extra.conf @HOME@/abs/*.conf\n"),
            F(".ssh/extra.conf", "Host t\n User from_extra\n"),
            F("abs/one.conf", "Host t\n Port 2212\n IdentityFile ~/.ssh/abs\n"))),
    T("include_nested", "t",
      FILES(F("config", "Include l1\n"),
            F(".ssh/l1", "Include l2\nHost t\n IdentityFile ~/.ssh/l1\n"),
            F(".ssh/l2", "Include l3\nHost t\n IdentityFile ~/.ssh/l2\n"),
            F(".ssh/l3", "Host t\n User deep\n"))),
    T("include_missing_is_fine", "t", CFG("Include nothere/*.conf nothere2\nUser u\n")),
    /* group-writable: Debian's ssh reads it when the group holds the owner alone */
    T("include_group_writable", "t",
      FILES(F("config", "Include gw\n"), {.path = ".ssh/gw", .text = "User u\n", .mode = 0664})),
    T("include_loose_permissions_refused", "t",
      FILES(F("config", "Include loose\n"),
            {.path = ".ssh/loose", .text = "User u\n", .mode = 0666})),
    T("match_host_and_originalhost", "alias",
      CFG("Host alias\n HostName Real.Example\nMatch host real.example\n User by_host\n"
          "Match originalhost alias\n Port 2213\nMatch host alias\n IdentityFile ~/.ssh/no\n")),
    T("match_user_localuser", "t",
      CFG("Match localuser @USER@\n Port 2214\nMatch user nobody-else\n User x\n"
          "Match !user zzz\n IdentityFile ~/.ssh/notzzz\n")),
    T("match_all", "foo", CFG("Host foo\n User u\nMatch all\n Port 2215\n")),
    T("match_lists_and_negation", "a.example",
      CFG("Match host *.example,!skip.example originalhost a*\n User listed\n"
          "Match host *.example !originalhost skip*\n Port 2216\n")),
    /* in the final pass Host lines match the hostname, not the alias (ssh's quirk) */
    T("match_final_rereads_host_lines", "foo",
      CFG("Host foo\n HostName final.example\nMatch final host final.example\n"
          " User final_user\nHost final.example\n Port 2217\nMatch !final\n"
          " IdentityFile ~/.ssh/first_pass\n")),
    T("match_canonical_with_canonicalize", "foo",
      CFG("CanonicalizeHostname yes\nHost foo\n HostName c.example\nMatch canonical\n"
          " User canon\nMatch !canonical\n Port 2218\n")),
    /* what the old port of readconf.c could not do: run Match exec (ssh -G runs it) */
    T("match_exec", "t",
      CFG("Match host t exec \"test -d /\"\n User by_exec\nMatch exec false\n Port 2219\n")),
    T("match_all_combined_refused", "a", CFG("Match host a all\n User u\n")),
    T("match_unknown_attribute_refused", "a", CFG("Match address 10.0.0.1\n User u\n")),
    T("match_missing_argument_refused", "a", CFG("Match host\n User u\n")),
    T("proxyjump_chain", "t", CFG("Host t\n ProxyJump u1@j1:2201,j2,[10.1.1.1]:2203\n")),
    T("proxyjump_none_wins", "t", CFG("Host t\n ProxyJump none\nHost *\n ProxyJump b\n")),
    T("proxyjump_override_wins", "t", CFG("Host t\n ProxyJump from-config\n"),
      OV(.jump = "plan-bastion:2222")),
    T("proxyjump_override_none", "t", CFG("Host t\n ProxyJump from-config\n"), OV(.jump = "none")),
    T("proxyjump_ssh_uri", "t", CFG("Host t\n ProxyJump ssh://u@b.example:2222\n")),
    T("proxyjump_ipv6_user", "t", CFG("Host t\n ProxyJump admin@[2001:db8::1]:2222\n")),
    T("proxyjump_numeric_bracketed", "t", CFG("Host t\n ProxyJump 192.0.2.7\n")),
    T("proxyjump_comment_and_blanks", "t", CFG("Host t\n ProxyJump   bastion  # via\n")),
    T("proxycommand_blocks_proxyjump", "t", CFG("Host t\n ProxyCommand nc %h %p\n ProxyJump b\n"),
      .warn = "ProxyCommand is not run"),
    T("proxycommand_none_then_jump_blocked", "t",
      CFG("Host t\n ProxyCommand none\n ProxyJump b\n")),
    T("jumphost_loop_refused", "t", CFG("Host t\n HostName t\n ProxyJump t\n")),
    T("known_hosts_list_tokens", "t",
      CFG("Host t\n UserKnownHostsFile ~/.ssh/kh_%h %d/kh2 ~/.ssh/kh_%k\n"
          " HostKeyAlias ALIAS.example\n")),
    T("known_hosts_none", "t", CFG("Host t\n UserKnownHostsFile none\n")),
    T("known_hosts_none_not_alone_refused", "t", CFG("Host t\n UserKnownHostsFile none ~/x\n")),
    T("known_hosts_override", "t", CFG("Host t\n UserKnownHostsFile ~/.ssh/cfg_kh\n"),
      OV(.known_hosts = "~/plan_kh")),
    T("connecttimeout_none_then_value", "t",
      CFG("Host t\n ConnectTimeout none\nHost *\n ConnectTimeout 1m30s\n")),
    T("connecttimeout_bad_refused", "t", CFG("ConnectTimeout 5x\n")),
    T("identitiesonly_and_agent", "t",
      CFG("Host t\n IdentitiesOnly yes\n IdentityAgent ~/agent.%r.sock\n")),
    T("identityagent_none", "t", CFG("Host t\n IdentityAgent none\n")),
    T("ignoreunknown", "t", CFG("IgnoreUnknown Foo*,bar\nFooBar baz\nbar 1\nHost t\n User u\n")),
    T("unknown_keyword_refused", "t", CFG("Host t\n Frobnicate yes\n")),
    T("missing_argument_refused", "t", CFG("Host\n")),
    T("extra_argument_refused", "t", CFG("Host t\n ForwardX11 yes no\n")),
    T("bad_port_refused", "t", CFG("Host t\n Port 0\n")),
    T("port_service_name", "t", CFG("Host t\n Port ssh\n")),
    T("unclosed_quote_refused", "t", CFG("Host t\n User \"abc\n")),
    T("deprecated_and_unsupported_accepted", "t",
      CFG("Host t\n UseRoaming no\n RSAAuthentication yes\n Protocol 2\n User u\n"),
      .warn = "Unsupported option"),
    T("ipv6_hostname_canonical", "v6", CFG("Host v6\n HostName 0:0::1\n")),
    T("address_as_host", "10.1.2.3", CFG("Host 10.1.2.3\n User ip\n")),
    T("debian_keywords", "t",
      CFG("Host t\n GSSAPIKeyExchange yes\n SetupTimeOut 7\n ProtocolKeepAlives 9\n User deb\n")),
    /* a keyword Debian's 9.2 knows (deprecated) that the old keyword table lacked */
    T("debian_deprecated_keyword", "t", CFG("Host t\n UseBlacklistedKeys no\n User deb\n")),
    /* keywords of OpenSSH 9.4-9.6 (a config shared with newer machines): accepted by an ssh
     * that knows them, and by any with IgnoreUnknown ... */
    T("newer_keywords_ignored", "t",
      CFG("IgnoreUnknown ChannelTimeout,Tag,ObscureKeystrokeTiming\nHost t\n"
          " ChannelTimeout session=5m\n Tag x\n ObscureKeystrokeTiming no\n User newer\n")),
    /* ... and without it, refused by an ssh that does not, naming the file and line */
    T("newer_keyword_alone", "t", CFG("Host t\n ChannelTimeout session=5m\n User newer\n")),
    T("no_F_system_files", "ns-sshcfg-no-such-host.example", .no_F = true),
};

const size_t sshcfg_ncases = sizeof sshcfg_cases / sizeof sshcfg_cases[0];

/* --- helpers ------------------------------------------------------------------------------ */

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

int
sshcfg_root(char *root, size_t len)
{
    snprintf(root, len, "/tmp/ns-sshcfg-XXXXXX");
    if (mkdtemp(root) == NULL)
        return -1;
    return chmod(root, 0755);
}

void
sshcfg_root_remove(const char *root)
{
    nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
mkdirs(const char *path)
{
    char tmp[2048];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *q = tmp + 1; *q != '\0'; q++) {
        if (*q != '/')
            continue;
        *q = '\0';
        mkdir(tmp, 0755);
        *q = '/';
    }
}

static const char *
local_user(void)
{
    static char user[256];
    struct passwd *pw = getpwuid(getuid());
    snprintf(user, sizeof user, "%s", pw != NULL ? pw->pw_name : "nobody");
    return user;
}

/* text with @HOME@ and @USER@ replaced (malloc'd) */
static char *
subst(const char *text, const char *home)
{
    size_t cap = strlen(text) * 4 + 1024, n = 0;
    char *out = malloc(cap);
    if (out == NULL)
        abort();
    for (const char *p = text; *p != '\0';) {
        if (strncmp(p, "@HOME@", 6) == 0) {
            n += (size_t)snprintf(out + n, cap - n, "%s", home);
            p += 6;
        } else if (strncmp(p, "@USER@", 6) == 0) {
            n += (size_t)snprintf(out + n, cap - n, "%s", local_user());
            p += 6;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    return out;
}

static void
write_file(const char *home, const struct tfile *f)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", home, f->path);
    mkdirs(path);
    char *text = subst(f->text, home);
    FILE *fp = fopen(path, "w");
    if (fp == NULL)
        abort();
    fputs(text, fp);
    fclose(fp);
    free(text);
    chmod(path, f->mode != 0 ? f->mode : 0644);
}

void
sshcfg_case_home(const char *root, const struct tcase *tc, char *home, size_t len)
{
    snprintf(home, len, "%s/%s", root, tc->name);
    mkdir(home, 0755);
    char ssh[2100];
    snprintf(ssh, sizeof ssh, "%s/.ssh", home);
    mkdir(ssh, 0700);
    for (int i = 0; i < SSHCFG_MAX_FILES && tc->files[i].path != NULL; i++)
        write_file(home, &tc->files[i]);
}

struct transport_sshconfig_override
sshcfg_case_override(const struct tcase *tc, const char *home)
{
    static char identity[1200];
    struct transport_sshconfig_override ov = tc->ov;
    if (ov.identity != NULL && strncmp(ov.identity, "@HOME@", 6) == 0) {
        snprintf(identity, sizeof identity, "%s%s", home, ov.identity + 6);
        ov.identity = identity;
    }
    return ov;
}

void
sshcfg_override_args(const struct transport_sshconfig_override *ov, const char **args)
{
    static char buf[3][1100];
    size_t n = 0;
    snprintf(buf[0], sizeof buf[0], "%u", ov->port);
    if (ov->user != NULL)
        args[n++] = "-l", args[n++] = ov->user;
    if (ov->port != 0)
        args[n++] = "-p", args[n++] = buf[0];
    if (ov->identity != NULL)
        args[n++] = "-i", args[n++] = ov->identity;
    /* ProxyJump as -o: ssh -v's ProxyCommand would refuse a -J */
    if (ov->jump != NULL) {
        snprintf(buf[1], sizeof buf[1], "ProxyJump=%s", ov->jump);
        args[n++] = "-o", args[n++] = buf[1];
    }
    if (ov->known_hosts != NULL) {
        snprintf(buf[2], sizeof buf[2], "UserKnownHostsFile=%s", ov->known_hosts);
        args[n++] = "-o", args[n++] = buf[2];
    }
    args[n] = NULL;
}
