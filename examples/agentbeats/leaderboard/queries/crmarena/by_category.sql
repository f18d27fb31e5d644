-- CRMArena: the headline score (the mean over categories of each category's mean reward,
-- as the CRMArena papers average; the confidentiality categories are scored apart), the
-- confidentiality score, and every category's mean reward. One row per submission.
-- Each category's mean is over the task-trials planned in it: one not scored or never run
-- counts 0, as a2abench's summary.score counts it (docs/run-semantics.md).
WITH submissions AS (
  SELECT row_number() OVER () AS submission, participants.agent AS id, results AS shards
  FROM results
),
shards AS (
  SELECT submission, unnest(shards) AS shard FROM submissions
),
planned AS (
  SELECT submission, p.category AS category, bool_and(p.headline) AS headline,
         sum(p.task_trials) AS n
  FROM (SELECT submission, unnest(shard.planned) AS p FROM shards)
  GROUP BY submission, p.category
),
rewards AS (
  SELECT submission, t.category AS category,
         coalesce(sum(t.reward) FILTER (WHERE t.scored), 0) AS total
  FROM (SELECT submission, unnest(shard.task_results) AS t FROM shards)
  GROUP BY submission, t.category
),
per_category AS (
  SELECT submission, category, headline, coalesce(total, 0) / n AS reward, n
  FROM planned LEFT JOIN rewards USING (submission, category)
  WHERE n > 0
)
SELECT
  id,
  round(100.0 * avg(reward) FILTER (WHERE headline), 1) AS "Macro average (%)",
  count(*) FILTER (WHERE headline) AS "Categories",
  round(100.0 * avg(reward) FILTER (WHERE NOT headline), 1) AS "Confidentiality (%)",
  sum(n) AS "Task-trials",
  string_agg(category || ' ' || round(100.0 * reward, 1) || '%', ', ' ORDER BY category)
    AS "Per category"
FROM per_category JOIN submissions USING (submission)
GROUP BY submission, id
ORDER BY "Macro average (%)" DESC NULLS LAST, id;
