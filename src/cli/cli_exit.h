/* cli_exit.h - every exit status of netsurvey: one table per command, X(NAME, status, meaning).
 *
 * Each table gives the enum its command returns and the "exit status" list of its --help
 * (cli_help prints the rows); netsurvey(1) lists the same rows (netsurvey --man-options prints
 * them). A new meaning is a new row here, never a bare number in a command. The same number may
 * mean different things in two commands (3: `run` ran nothing, `compare` could not read a journal):
 * each table is read only with its own command; within one, a number has one meaning. One
 * outcome has one number in every command: an output that could not be written
 * (CLI_STATUS_UNWRITTEN). */
#ifndef NS_CLI_EXIT_H
#define NS_CLI_EXIT_H

#include <stddef.h>

/* "An output could not be written", whichever command wrote it: sysexits.h's EX_CANTCREAT,
 * a number no other row of any table takes, so that a script tells it from the command's own
 * outcomes without knowing which command ran. */
#define CLI_STATUS_UNWRITTEN 73

#define CLI_EXITS_TOP(X)                                                                           \
    X(CLI_TOP_OK, 0, "help or version printed")                                                    \
    X(CLI_TOP_USAGE, 2, "no command, an unknown one, or words after --help or --version")

#define CLI_EXITS_CHECK(X)                                                                         \
    X(CLI_CHECK_OK, 0,                                                                             \
      "the plan is valid (its warnings, if any, are printed); with --connect, every host passed "  \
      "every check")                                                                               \
    X(CLI_CHECK_HOSTS_FAILED, 1,                                                                   \
      "--connect: some host failed a check or could not be checked (the table names each, with "   \
      "why)")                                                                                      \
    X(CLI_CHECK_INVALID, 2,                                                                        \
      "invalid plan or usage error (with --connect: no nsperf, or a dynamic one for ssh hosts): "  \
      "no host contacted")                                                                         \
    X(CLI_CHECK_FAILED, CLI_STATUS_UNWRITTEN,                                                      \
      "out of memory, or the summary, table or JSON could not be written")                         \
    X(CLI_CHECK_INTERRUPTED, 130,                                                                  \
      "--connect interrupted (SIGINT/SIGTERM): what was checked is shown, nothing left running")

#define CLI_EXITS_PLAN(X)                                                                          \
    X(CLI_PLAN_OK, 0, "the dry run is printed")                                                    \
    X(CLI_PLAN_INVALID, 2, "invalid plan or usage error")                                          \
    X(CLI_PLAN_FAILED, CLI_STATUS_UNWRITTEN, "out of memory, or the dry run could not be written")

#define CLI_EXITS_RUN(X)                                                                           \
    X(CLI_RUN_OK, 0, "every trial ok")                                                             \
    X(CLI_RUN_SOME_FAILED, 1, "some trials failed, the rest completed")                            \
    X(CLI_RUN_USAGE, 2,                                                                            \
      "plan or usage error (invalid plan, non-empty -o directory, refused resume, no nsperf): "    \
      "no host contacted")                                                                         \
    X(CLI_RUN_NOTHING, 3,                                                                          \
      "nothing could run (every trial failed, a zone: auto host's cloud metadata gives no zone, "  \
      "or out of memory)")                                                                         \
    X(CLI_RUN_JOURNAL, 4,                                                                          \
      "the journal could not be written (a full disk, an I/O error): the run stopped, the "        \
      "summary counts what reached it; --resume DIR continues once it can be written")             \
    X(CLI_RUN_REPORTS, CLI_STATUS_UNWRITTEN,                                                       \
      "the survey ran (as for 0 or 1) but its reports could not be written; netsurvey report "     \
      "DIR writes them")                                                                           \
    X(CLI_RUN_INTERRUPTED, 130, "interrupted by SIGINT; --resume DIR continues")                   \
    X(CLI_RUN_TERMINATED, 143, "terminated by SIGTERM; --resume DIR continues")

#define CLI_EXITS_REPORT(X)                                                                        \
    X(CLI_REPORT_OK, 0, "every report written, of runs that are complete")                         \
    X(CLI_REPORT_FAILED, 1,                                                                        \
      "a journal could not be read (a DIR that is no run directory: nothing made) or holds a "     \
      "record it refuses (another schema version, an "                                             \
      "unknown status, another run's; see --lenient), or the runs cannot be merged (a scenario "   \
      "of one name with other parameters, one run given twice): nothing written")                  \
    X(CLI_REPORT_USAGE, 2,                                                                         \
      "usage error, or --by zone_id where a host has no zone id, or --same-hosts where a host "    \
      "name is in another place in another run, or OUT is another run's directory: nothing "       \
      "written")                                                                                   \
    X(CLI_REPORT_INCOMPLETE, 4,                                                                    \
      "a run is incomplete (planned trials without a record, or host pairs of adaptive trials "    \
      "whose rule has not decided) or still in progress: every report written, each marked so")    \
    X(CLI_REPORT_UNWRITTEN, CLI_STATUS_UNWRITTEN, "a report could not be written")

#define CLI_EXITS_COMPARE(X)                                                                       \
    X(CLI_COMPARE_OK, 0,                                                                           \
      "the gate passed: no cell worse by more than PCT %, and every cell of BASE compared (or "    \
      "--allow-partial)")                                                                          \
    X(CLI_COMPARE_REGRESSION, 1, "a cell significantly worse by more than PCT % (a regression)")   \
    X(CLI_COMPARE_USAGE, 2,                                                                        \
      "usage error, or an output over a run's journal or over another output, or OUT another "     \
      "run's directory: nothing written")                                                          \
    X(CLI_COMPARE_JOURNAL, 3, "a journal could not be read (not 1: no regression was seen)")       \
    X(CLI_COMPARE_INCOMPLETE, 5,                                                                   \
      "no regression, but the gate cannot pass: no cell compared, or a cell or scenario of BASE "  \
      "has no counterpart in NEW with 2 trials or more a side, or a matched cell has failed or "   \
      "not-run trials (without --allow-partial)")                                                  \
    X(CLI_COMPARE_NOT_COMPARABLE, 6,                                                               \
      "not comparable, nothing written: BASE and NEW hold the same run (one run_id), or a "        \
      "scenario of both ran other parameters (each difference named; see --allow-param-change)")   \
    X(CLI_COMPARE_OUTPUT, CLI_STATUS_UNWRITTEN,                                                    \
      "out of memory, or an output (compare.md, compare.html, --junit, --markdown-summary) could " \
      "not be written")

#define CLI_EXITS_TREND(X)                                                                         \
    X(CLI_TREND_OK, 0,                                                                             \
      "the trend is written, and no cell left its first run's 95 % CI by more than PCT %")         \
    X(CLI_TREND_FLAGGED, 1,                                                                        \
      "a cell's mean left its first run's 95 % CI by more than PCT % in a later run (flagged)")    \
    X(CLI_TREND_USAGE, 2,                                                                          \
      "usage error (fewer than two run directories, a run given twice, OUT the directory of a "    \
      "run not in the trend)")                                                                     \
    X(CLI_TREND_JOURNAL, 3, "a journal could not be read, or a run has no start time to place it") \
    X(CLI_TREND_NOTHING, 5,                                                                        \
      "no flag, but nothing to trend: no scenario is shared by two runs (trend.md lists what "     \
      "each has)")                                                                                 \
    X(CLI_TREND_NEWEST_FAILED, 6,                                                                  \
      "no flag, but a cell's newest run has no ok trial (its trials failed or did not run; the "   \
      "cells are named)")                                                                          \
    X(CLI_TREND_OUTPUT, CLI_STATUS_UNWRITTEN,                                                      \
      "out of memory, or an output (trend.md, trend.html, a CSV or chart file) could not be "      \
      "written")

#define CLI_EXITS_CLEAN(X)                                                                         \
    X(CLI_CLEAN_OK, 0, "every ssh host cleaned")                                                   \
    X(CLI_CLEAN_SOME_FAILED, 1, "some ssh hosts could not be reached or cleaned")                  \
    X(CLI_CLEAN_USAGE, 2, "plan or usage error")

#define CLI_EXIT_ENUM(name, status, meaning) name = status,

enum cli_top_exit { CLI_EXITS_TOP(CLI_EXIT_ENUM) };
enum cli_check_exit { CLI_EXITS_CHECK(CLI_EXIT_ENUM) };
enum cli_plan_exit { CLI_EXITS_PLAN(CLI_EXIT_ENUM) };
enum cli_run_exit { CLI_EXITS_RUN(CLI_EXIT_ENUM) };
enum cli_report_exit { CLI_EXITS_REPORT(CLI_EXIT_ENUM) };
enum cli_compare_exit { CLI_EXITS_COMPARE(CLI_EXIT_ENUM) };
enum cli_trend_exit { CLI_EXITS_TREND(CLI_EXIT_ENUM) };
enum cli_clean_exit { CLI_EXITS_CLEAN(CLI_EXIT_ENUM) };

#undef CLI_EXIT_ENUM

/* One row, for --help. */
struct cli_exit {
    int status;
    const char *meaning;
};

/* A table as an array initializer: `static const struct cli_exit t[] = CLI_EXIT_TABLE(RUN);` */
#define CLI_EXIT_ROW(name, status, meaning) {status, meaning},
#define CLI_EXIT_TABLE(CMD)                                                                        \
    {                                                                                              \
        CLI_EXITS_##CMD(CLI_EXIT_ROW)                                                              \
    }
#define CLI_EXIT_COUNT(name, status, meaning) +1

#endif
