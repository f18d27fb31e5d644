-- tau2: pass rate (%) per domain, one row per submission (a column per tau2 domain; empty
-- where the submission ran none of it).
WITH submissions AS (
  SELECT row_number() OVER () AS submission, participants.agent AS id, results AS shards
  FROM results
),
trials AS (
  SELECT submission, id, unnest(shard.task_results) AS t
  FROM (SELECT submission, id, unnest(shards) AS shard FROM submissions)
)
SELECT
  id,
  round(100.0 * count(*) FILTER (WHERE t.scored AND t.success AND t.domain = 'airline')
        / nullif(count(*) FILTER (WHERE t.scored AND t.domain = 'airline'), 0), 1) AS "airline",
  round(100.0 * count(*) FILTER (WHERE t.scored AND t.success AND t.domain = 'retail')
        / nullif(count(*) FILTER (WHERE t.scored AND t.domain = 'retail'), 0), 1) AS "retail",
  round(100.0 * count(*) FILTER (WHERE t.scored AND t.success AND t.domain = 'telecom')
        / nullif(count(*) FILTER (WHERE t.scored AND t.domain = 'telecom'), 0), 1) AS "telecom",
  round(100.0 * count(*) FILTER (WHERE t.scored AND t.success AND t.domain = 'banking_knowledge')
        / nullif(count(*) FILTER (WHERE t.scored AND t.domain = 'banking_knowledge'), 0), 1)
    AS "banking_knowledge",
  round(100.0 * count(*) FILTER (WHERE t.scored AND t.success AND t.domain = 'mock')
        / nullif(count(*) FILTER (WHERE t.scored AND t.domain = 'mock'), 0), 1) AS "mock"
FROM trials
GROUP BY submission, id
ORDER BY id;
