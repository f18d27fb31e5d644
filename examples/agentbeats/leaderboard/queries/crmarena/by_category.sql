-- CRMArena: the headline score (the mean over categories of each category's mean reward,
-- as the CRMArena papers average; the confidentiality categories are scored apart), the
-- confidentiality score, and every category's mean reward. One row per submission.
WITH submissions AS (
  SELECT row_number() OVER () AS submission, participants.agent AS id, results AS shards
  FROM results
),
trials AS (
  SELECT submission, id, unnest(shard.task_results) AS t
  FROM (SELECT submission, id, unnest(shards) AS shard FROM submissions)
),
per_category AS (
  SELECT submission, id, t.category AS category, bool_and(t.headline) AS headline,
         avg(t.reward) AS reward, count(*) AS n
  FROM trials WHERE t.scored
  GROUP BY submission, id, t.category
)
SELECT
  id,
  round(100.0 * avg(reward) FILTER (WHERE headline), 1) AS "Macro average (%)",
  count(*) FILTER (WHERE headline) AS "Categories",
  round(100.0 * avg(reward) FILTER (WHERE NOT headline), 1) AS "Confidentiality (%)",
  sum(n) AS "Task-trials",
  string_agg(category || ' ' || round(100.0 * reward, 1) || '%', ', ' ORDER BY category)
    AS "Per category"
FROM per_category
GROUP BY submission, id
ORDER BY "Macro average (%)" DESC NULLS LAST, id;
