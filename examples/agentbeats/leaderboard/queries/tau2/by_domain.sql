-- tau2: pass rate (%) per domain, one row per submission (a column per tau2 domain; empty
-- where the submission ran none of it). Over the task-trials planned in each domain: one not
-- scored or never run counts as failed (docs/run-semantics.md, "Incomplete scores").
WITH submissions AS (
  SELECT row_number() OVER () AS submission, participants.agent AS id, results AS shards
  FROM results
),
shards AS (
  SELECT submission, unnest(shards) AS shard FROM submissions
),
planned AS (
  SELECT submission, p.domain AS domain, sum(p.task_trials) AS n
  FROM (SELECT submission, unnest(shard.planned) AS p FROM shards)
  GROUP BY ALL
),
passed AS (
  SELECT submission, t.domain AS domain,
         count(*) FILTER (WHERE t.scored AND t.success) AS passed
  FROM (SELECT submission, unnest(shard.task_results) AS t FROM shards)
  GROUP BY ALL
),
per_domain AS (
  SELECT submission, domain, 100.0 * coalesce(passed.passed, 0) / nullif(planned.n, 0) AS rate
  FROM planned LEFT JOIN passed USING (submission, domain)
)
SELECT
  id,
  round(max(rate) FILTER (WHERE domain = 'airline'), 1) AS "airline",
  round(max(rate) FILTER (WHERE domain = 'retail'), 1) AS "retail",
  round(max(rate) FILTER (WHERE domain = 'telecom'), 1) AS "telecom",
  round(max(rate) FILTER (WHERE domain = 'banking_knowledge'), 1) AS "banking_knowledge",
  round(max(rate) FILTER (WHERE domain = 'mock'), 1) AS "mock"
FROM per_domain JOIN submissions USING (submission)
GROUP BY submission, id
ORDER BY id;
