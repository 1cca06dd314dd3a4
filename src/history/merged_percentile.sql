-- merged_percentile.sql - a percentile of a zone cell's round trips over any set of runs of a
-- netsurvey history database (schema.sql), read from their merged histograms exactly as
-- `netsurvey report DIR1 DIR2 ...` reads it from the runs merged: the histograms' counts added
-- bucket by bucket (never percentiles averaged), then the midpoint of the bucket that holds the
-- ceil(q % of n)-th round trip, clamped to the smallest and largest round trip. PostgreSQL and
-- SQLite give the same value (psql -f / sqlite3 < this file).
--
-- Edit the selection (the WHERE clause of sel: plan, scenario, family, the value of a sweep
-- (sweep = 'msg_size=1K'; '' for a scenario that sweeps nothing), zone pair, and which runs: a
-- time range, run_ids, ...) and the percentile (pct), then run it. It returns the runs and round
-- trips merged and the percentile in microseconds.
WITH sel AS (
    SELECT * FROM cell_rtt_buckets
    -- selection:
    WHERE plan = 'westus3-zones' AND scenario = 'latency' AND family = 'ipv4' AND sweep = ''
      AND src_zone = '1' AND dst_zone = '3'
      AND started_at >= '2026-11-01'
    -- end of selection
),
q AS (SELECT CAST(99 AS DOUBLE PRECISION) AS pct),
merged AS (SELECT low_ns, high_ns, SUM(count) AS n FROM sel GROUP BY low_ns, high_ns),
cum AS (
    SELECT low_ns, high_ns, SUM(n) OVER (ORDER BY low_ns) AS upto, SUM(n) OVER () AS total
    FROM merged),
hit AS (
    SELECT low_ns, high_ns, total FROM cum, q
    WHERE upto >= q.pct / 100.0 * total
    ORDER BY low_ns LIMIT 1),
bounds AS (
    SELECT COUNT(DISTINCT run_id) AS runs, CAST(MIN(rtt_min_ns) AS DOUBLE PRECISION) AS lo,
           CAST(MAX(rtt_max_ns) AS DOUBLE PRECISION) AS hi
    FROM sel),
mid AS (SELECT (CAST(low_ns AS DOUBLE PRECISION) + high_ns) / 2.0 AS ns, total FROM hit)
SELECT b.runs, m.total AS round_trips,
       (CASE WHEN m.ns < b.lo THEN b.lo WHEN m.ns > b.hi THEN b.hi ELSE m.ns END) / 1000.0
           AS value_us
FROM mid m, bounds b;
