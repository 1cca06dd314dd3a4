-- schema.sql - netsurvey's history database, schema version 1: what `netsurvey publish DIR
-- --db URL` (and `netsurvey run --db URL`) writes, and what `trend --db`, `compare --db` and
-- `report --db` read back. netsurvey applies it itself, in one transaction, the first time it
-- writes to a database (schema_version then holds 1); a database whose schema_version is
-- higher than the netsurvey reading it is refused. The same text runs on SQLite (3.25 or newer:
-- window functions) and PostgreSQL (10 or newer): types are PostgreSQL's names, which SQLite
-- reads by their affinity (TIMESTAMPTZ and JSON hold text there), and nothing else differs.
--
-- A run is its run_id: publishing a run again replaces every row of it in one transaction.
-- Figures are in the units of the reports (the `unit` of its scenario: us, Mbit/s, conn/s);
-- zone labels are the reports' (the zone, or region/zone when a run spans regions); times are
-- ISO 8601 text as run.json and the journal hold them, with started_s/started_ns beside the
-- start for ordering (seconds since the epoch, and nanoseconds). JSON columns hold JSON text
-- in the order it was written (PostgreSQL json, not jsonb: cast to jsonb to index it).
--
-- A scenario that sweeps a parameter (issue 30) is one scenario per value, all of one name, as
-- the summary has them: every table that names a scenario names its value too, in a column
-- `sweep` that is part of each key: the parameter's record key and the value as a plan writes
-- it, "msg_size=1K", "rate_bps=10M" ('' for a scenario that sweeps nothing). Select a sweep's
-- value with it (sweep = 'msg_size=64K'); group by it to keep its values apart.
--
-- Views for people and dashboards (Grafana, any SQL client):
--   zone_pair_history   every run's figure of every zone cell, oldest first, with the change
--                       from the run before ("since when is 1 -> 3 slower?")
--   zone_matrix_latest  the zone matrix of each plan's scenario in its newest run
--   cell_rtt_buckets    the merged RTT histogram of each zone cell, bucket by bucket, with its
--                       run's plan and time: merged_percentile.sql reads a percentile of any
--                       set of runs from it, as a report of those runs merged would

CREATE TABLE schema_version (
    version INTEGER NOT NULL PRIMARY KEY,
    application TEXT NOT NULL,      -- 'netsurvey': a schema_version of another tool is refused
    applied_at TEXT NOT NULL,       -- when this version was applied (UTC, ISO 8601)
    netsurvey TEXT NOT NULL         -- the netsurvey version that applied it
);

-- One row per run (run.json, and the summary of its journal as `netsurvey report` makes it).
CREATE TABLE runs (
    run_id TEXT NOT NULL PRIMARY KEY,
    plan_name TEXT,
    plan_file TEXT,
    plan_sha256 TEXT,
    description TEXT,               -- the plan's description; NULL when it has none
    started TEXT NOT NULL,          -- run.json's start, as recorded
    started_at TIMESTAMPTZ NOT NULL,-- the same instant (PostgreSQL: a timestamp; SQLite: text)
    started_s BIGINT NOT NULL,      -- the same, in seconds since the epoch ...
    started_ns INTEGER NOT NULL,    -- ... and nanoseconds: runs are ordered by these, then run_id
    ended TEXT,                     -- when its state became final; NULL while running
    state TEXT,                     -- complete, interrupted, failed, running (NULL: not recorded)
    netsurvey_version TEXT,
    nsperf_version TEXT,
    nsperf_sha256 TEXT,
    command TEXT,                   -- the command line that ran it
    title TEXT,                     -- the report's title
    complete BOOLEAN,               -- every planned trial has a record (the report's sense)
    in_progress BOOLEAN,            -- a netsurvey run held the directory when it was published
    planned BIGINT,                 -- trials: planned (adaptive: the least), ok, failed, not run
    ok BIGINT,
    failed BIGINT,
    not_run BIGINT,
    undecided BIGINT,               -- adaptive host pairs whose rule has not decided; NULL: none
    rj_planned BIGINT NOT NULL,     -- run.json's planned trials (adaptive: min x pairs)
    adaptive BOOLEAN NOT NULL,      -- a scenario has adaptive trials
    tool JSON,                      -- run.json's "tool", as recorded
    completeness JSON,              -- the summary's "completeness"
    journal JSON,                   -- what reading results.jsonl met: torn, skipped, refused lines
    extra JSON,                     -- members of the summary's run without a column here
    run_json TEXT NOT NULL,         -- run.json, byte for byte
    journal_lines BIGINT NOT NULL,  -- lines of results.jsonl (trials + journal_lines)
    journal_torn BOOLEAN NOT NULL,  -- its last line has no newline (a run still writing, killed)
    published_at TEXT NOT NULL,     -- when this row was written (UTC, ISO 8601)
    published_by TEXT NOT NULL,     -- the netsurvey version that wrote it
    source_dir TEXT                 -- the run directory it was published from, as given
);
CREATE INDEX runs_plan_time ON runs (plan_name, started_s, started_ns, run_id);
CREATE INDEX runs_time ON runs (started_s, started_ns, run_id);

-- The hosts of a run, as run.json lists them (with what nsperf env found on each).
CREATE TABLE hosts (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,           -- its place in run.json
    name TEXT NOT NULL,
    zone TEXT,
    zone_id TEXT,                   -- the physical zone: the plan's zone_id, else the cloud's
    region TEXT,
    provider TEXT,                  -- from the host's cloud metadata (env.cloud)
    instance_type TEXT,
    arch TEXT,                      -- uname -m (env.machine)
    address TEXT,                   -- the data address the tests used
    transport TEXT,                 -- local or ssh
    error TEXT,                     -- why it could not be reached; NULL when it was
    env JSON,                       -- nsperf env of the host, as recorded
    PRIMARY KEY (run_id, ord)
);
CREATE INDEX hosts_name ON hosts (name);

-- The scenarios of a run, one row per scenario, address family and value of its sweep, as the
-- summary has them.
CREATE TABLE scenarios (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    ord INTEGER NOT NULL,           -- its place in the summary
    name TEXT NOT NULL,
    family TEXT,                    -- ipv4, ipv6; NULL: no trial of it was recorded
    sweep TEXT NOT NULL DEFAULT '', -- the value swept, "msg_size=1K"; '': no sweep (its
                                    -- {param, value, text} is in extra, as the summary has it)
    kind TEXT NOT NULL,             -- the test kind (tcp_rr, tcp_stream, ...)
    file_key TEXT,
    direction TEXT,
    reverse BOOLEAN,
    metric TEXT,                    -- the headline figure's name and unit
    unit TEXT,
    params JSON,                    -- every parameter as run, in the journal's order
    params_resolved BOOLEAN,
    planned BIGINT,                 -- its trials: planned, ok, failed, not run, runs
    ok BIGINT,
    failed BIGINT,
    not_run BIGINT,
    runs BIGINT,
    undecided BIGINT,
    stat_matrices JSON,             -- the report's p50/p99/min matrices, as summary.json has them
    asymmetry JSON,                 -- the A -> B against B -> A tests, as summary.json has them
    extra JSON,                     -- members of the summary's scenario without a column here
    PRIMARY KEY (run_id, ord),
    UNIQUE (run_id, name, family, sweep)
);
CREATE INDEX scenarios_name ON scenarios (name, family, sweep);

-- The zone cells (level 'zone') and region cells (level 'region': runs spanning regions) of
-- each scenario: the figures of summary.json's zone_cells and region_cells.
CREATE TABLE cells (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    scenario TEXT NOT NULL,
    family TEXT NOT NULL,
    sweep TEXT NOT NULL DEFAULT '', -- its scenario's value swept ('': no sweep)
    level TEXT NOT NULL,
    ord INTEGER NOT NULL,           -- its place in the summary
    src_zone TEXT NOT NULL,         -- the zone labels (level 'region': the regions)
    dst_zone TEXT NOT NULL,
    planned BIGINT,
    n BIGINT,                       -- ok trials; the figures below are over their values
    failed BIGINT,
    not_run BIGINT,
    runs BIGINT,
    undecided BIGINT,
    pairs BIGINT,                   -- host pairs
    mean DOUBLE PRECISION,
    median DOUBLE PRECISION,
    stddev DOUBLE PRECISION,
    min DOUBLE PRECISION,
    max DOUBLE PRECISION,
    ci95_halfwidth DOUBLE PRECISION,
    ci95_low DOUBLE PRECISION,
    ci95_high DOUBLE PRECISION,
    cv DOUBLE PRECISION,
    high_variation BOOLEAN,
    rtt_n BIGINT,                   -- round trips of the merged histogram, and its figures (us)
    rtt_mean DOUBLE PRECISION,
    rtt_min DOUBLE PRECISION,
    rtt_p25 DOUBLE PRECISION,
    rtt_p50 DOUBLE PRECISION,
    rtt_p75 DOUBLE PRECISION,
    rtt_p90 DOUBLE PRECISION,
    rtt_p99 DOUBLE PRECISION,
    rtt_p99_9 DOUBLE PRECISION,
    rtt_p99_99 DOUBLE PRECISION,
    rtt_p99_999 DOUBLE PRECISION,
    rtt_max DOUBLE PRECISION,
    rtt_min_ns BIGINT,              -- rtt_min and rtt_max in whole ns, as the histogram has them
    rtt_max_ns BIGINT,
    cpu_local DOUBLE PRECISION,     -- mean CPU % of one core (local: src, remote: dst)
    cpu_remote DOUBLE PRECISION,
    retransmits_mean DOUBLE PRECISION,
    udp_lost_pct DOUBLE PRECISION,
    udp_jitter_us DOUBLE PRECISION,
    extra JSON,                     -- members of the summary's cell without a column here
    PRIMARY KEY (run_id, scenario, family, sweep, level, src_zone, dst_zone)
);
CREATE INDEX cells_pair ON cells (scenario, src_zone, dst_zone, sweep);

-- The merged RTT histogram of each cell (its ok trials' histograms added up): one row per
-- non-empty bucket [low_ns, high_ns], as common/hist.h lays them out. Adding the counts of
-- several runs' rows merges them exactly (merged_percentile.sql).
CREATE TABLE cell_buckets (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    scenario TEXT NOT NULL,
    family TEXT NOT NULL,
    sweep TEXT NOT NULL DEFAULT '', -- its scenario's value swept ('': no sweep)
    level TEXT NOT NULL,
    src_zone TEXT NOT NULL,
    dst_zone TEXT NOT NULL,
    low_ns BIGINT NOT NULL,
    high_ns BIGINT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (run_id, scenario, family, sweep, level, src_zone, dst_zone, low_ns)
);
CREATE INDEX cell_buckets_pair ON cell_buckets (scenario, src_zone, dst_zone, sweep);

-- Every trial the reports count: for each (scenario, family, sweep, src, dst, trial) the record
-- they keep (the last ok one, else the last failed one), with its line of results.jsonl verbatim.
-- One row per such key (publish picks them; no UNIQUE index: checking one against the rows a
-- republish has just deleted doubled PostgreSQL's time to replace a 100 000-trial run).
CREATE TABLE trials (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    line BIGINT NOT NULL,           -- its line in results.jsonl, from 1
    scenario TEXT NOT NULL,
    family TEXT NOT NULL,
    sweep TEXT NOT NULL DEFAULT '', -- the value of its scenario's sweep it ran ('': no sweep)
    kind TEXT NOT NULL,
    src_host TEXT,
    dst_host TEXT,
    src_zone TEXT,                  -- the zone labels of its cell
    dst_zone TEXT,
    src_region TEXT,
    dst_region TEXT,
    trial INTEGER NOT NULL,
    status TEXT,                    -- as recorded: ok, failed
    ok BOOLEAN NOT NULL,            -- counted ok by the reports (ok, with its figure)
    error TEXT,
    attempts INTEGER,
    started TEXT,
    ended TEXT,
    value DOUBLE PRECISION,         -- the headline figure (NULL unless ok), in unit
    unit TEXT,
    rtt_p50 DOUBLE PRECISION,       -- the trial's RTT percentiles (us), where it has a histogram
    rtt_p99 DOUBLE PRECISION,
    flags JSON,                     -- the record's "flags", when it has them
    record TEXT NOT NULL,           -- the line, byte for byte
    PRIMARY KEY (run_id, line)
);
CREATE INDEX trials_pair ON trials (scenario, src_zone, dst_zone, sweep);

-- The other lines of results.jsonl, byte for byte, so that the journal can be written back
-- whole (`netsurvey report --db URL RUN_ID`): records a later one of the same trial replaced
-- (superseded), lines that are not trial records (bad), records the reports refuse (refused),
-- and a last line without its newline (torn).
CREATE TABLE journal_lines (
    run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
    line BIGINT NOT NULL,
    kind TEXT NOT NULL,
    why TEXT,
    text BYTEA NOT NULL,
    PRIMARY KEY (run_id, line)
);

CREATE VIEW zone_pair_history AS
SELECT r.plan_name AS plan, s.name AS scenario, s.kind, s.family, s.sweep, c.src_zone,
       c.dst_zone, r.run_id, r.started, r.started_at, r.state, r.complete,
       s.metric, s.unit, c.n, c.failed, c.mean, c.ci95_low, c.ci95_high, c.median, c.cv,
       c.rtt_p50, c.rtt_p99,
       LAG(c.mean) OVER w AS previous_mean,
       100.0 * (c.mean - LAG(c.mean) OVER w) / NULLIF(LAG(c.mean) OVER w, 0) AS change_pct
FROM cells c
JOIN scenarios s ON s.run_id = c.run_id AND s.name = c.scenario AND s.family = c.family
                AND s.sweep = c.sweep
JOIN runs r ON r.run_id = c.run_id
WHERE c.level = 'zone'
WINDOW w AS (PARTITION BY r.plan_name, s.name, s.family, s.sweep, c.src_zone, c.dst_zone
             ORDER BY r.started_s, r.started_ns, r.run_id);

CREATE VIEW zone_matrix_latest AS
WITH ranked AS (
    SELECT s.run_id, s.name, s.family, s.sweep, r.plan_name,
           ROW_NUMBER() OVER (PARTITION BY r.plan_name, s.name, s.family, s.sweep
                              ORDER BY r.started_s DESC, r.started_ns DESC, r.run_id DESC) AS age
    FROM scenarios s JOIN runs r ON r.run_id = s.run_id)
SELECT k.plan_name AS plan, s.name AS scenario, s.kind, s.family, s.sweep, c.src_zone,
       c.dst_zone, r.run_id, r.started, r.started_at, r.state, r.complete,
       s.metric, s.unit, c.n, c.failed, c.mean, c.ci95_low, c.ci95_high, c.median, c.cv,
       c.high_variation, c.rtt_p50, c.rtt_p99
FROM ranked k
JOIN scenarios s ON s.run_id = k.run_id AND s.name = k.name AND s.family = k.family
                AND s.sweep = k.sweep
JOIN runs r ON r.run_id = k.run_id
JOIN cells c ON c.run_id = k.run_id AND c.scenario = k.name AND c.family = k.family
            AND c.sweep = k.sweep
WHERE k.age = 1 AND c.level = 'zone';

CREATE VIEW cell_rtt_buckets AS
SELECT r.plan_name AS plan, b.scenario, b.family, b.sweep, b.src_zone, b.dst_zone, r.run_id,
       r.started, r.started_at, r.started_s, c.rtt_min_ns, c.rtt_max_ns, b.low_ns, b.high_ns,
       b.count
FROM cell_buckets b
JOIN cells c ON c.run_id = b.run_id AND c.scenario = b.scenario AND c.family = b.family
            AND c.sweep = b.sweep AND c.level = b.level AND c.src_zone = b.src_zone
            AND c.dst_zone = b.dst_zone
JOIN runs r ON r.run_id = b.run_id
WHERE b.level = 'zone';
