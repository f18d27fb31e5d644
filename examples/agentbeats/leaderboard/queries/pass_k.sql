-- pass^k (tau2's reliability metric): for each task, C(successes, k) / C(trials, k) over its
-- recorded trials, a trial that was not scored counting as failed (docs/run-semantics.md),
-- averaged over tasks; defined for k up to the fewest trials of any task.
-- Computed from the per-trial rows of every shard, so N shards give the unsharded figure.
-- One row per submission.
WITH submissions AS (
  SELECT row_number() OVER () AS submission, participants.agent AS id, results AS shards
  FROM results
),
trials AS (
  SELECT submission, id, unnest(shard.task_results) AS t
  FROM (SELECT submission, id, unnest(shards) AS shard FROM submissions)
),
per_task AS (
  SELECT submission, id, t.domain AS domain, t.task_id AS task_id,
         count(*)::INTEGER AS n, (count(*) FILTER (WHERE t.scored AND t.success))::INTEGER AS c
  FROM trials
  GROUP BY ALL
),
per_k AS (
  SELECT submission, id, k,
         CASE WHEN min(n) >= k THEN avg(
           CASE WHEN c >= k
                THEN (factorial(c) / (factorial(k) * factorial(greatest(c - k, 0))))
                     / (factorial(n) / (factorial(k) * factorial(greatest(n - k, 0))))
                ELSE 0 END) END AS value
  FROM per_task, (SELECT range::INTEGER AS k FROM range(1, 5))
  GROUP BY submission, id, k
)
SELECT
  id,
  round(max(value) FILTER (WHERE k = 1), 4) AS "pass^1",
  round(max(value) FILTER (WHERE k = 2), 4) AS "pass^2",
  round(max(value) FILTER (WHERE k = 3), 4) AS "pass^3",
  round(max(value) FILTER (WHERE k = 4), 4) AS "pass^4"
FROM per_k
GROUP BY submission, id
ORDER BY "pass^1" DESC NULLS LAST, id;
