-- Overall: one row per submission (one results/*.json file), its shards added up.
-- `id` is the participant's AgentBeats id (metadata.agentbeats_ids.agent in scenario.json5).
-- Pass rate counts scored task-trials (infrastructure errors are not scored), like
-- a2abench's summary.pass_rate, in percent like stock tau2 greens' pass_rate.
WITH submissions AS (
  SELECT row_number() OVER () AS submission, participants.agent AS id, results AS shards
  FROM results
),
shards AS (
  SELECT submission, id, unnest(shards) AS shard FROM submissions
),
trials AS (
  SELECT submission, id, shard.time_used AS time_used, unnest(shard.task_results) AS t
  FROM shards
)
SELECT
  id,
  round(100.0 * count(*) FILTER (WHERE t.scored AND t.success)
        / nullif(count(*) FILTER (WHERE t.scored), 0), 1) AS "Pass rate (%)",
  round(avg(t.reward) FILTER (WHERE t.scored), 4) AS "Mean reward",
  count(DISTINCT t.task_id) AS "Tasks",
  count(*) AS "Task-trials",
  count(*) FILTER (WHERE NOT t.scored) AS "Not scored",
  (SELECT round(sum(s.shard.time_used), 1) FROM shards s
   WHERE s.submission = trials.submission) AS "Time (s, all shards)"
FROM trials
GROUP BY submission, id
ORDER BY "Pass rate (%)" DESC NULLS LAST, id;
