-- Overall: one row per submission (one results/*.json file), its shards added up.
-- `id` is the participant's AgentBeats id (metadata.agentbeats_ids.agent in scenario.json5).
-- Every figure is over the task-trials the submission planned (each Result's `planned`): a
-- task-trial that was not scored (an infrastructure error) or never ran (a run stopped
-- early) counts as failed with reward 0, as a2abench's summary.score counts it
-- (docs/run-semantics.md, "Incomplete scores"). "Not scored" says how many; "Complete" is
-- true only when every shard is there and scored every task-trial it planned.
WITH submissions AS (
  SELECT row_number() OVER () AS submission, participants.agent AS id, results AS shards
  FROM results
),
shards AS (
  SELECT submission, id, unnest(shards) AS shard FROM submissions
),
planned AS (
  SELECT submission, sum(p.task_trials) AS n
  FROM (SELECT submission, unnest(shard.planned) AS p FROM shards)
  GROUP BY submission
),
per_shard AS (
  SELECT submission, count(*) AS present, max(shard.shard.count) AS expected,
         bool_and(coalesce(shard.summary.score_complete, false)) AS scored_all,
         sum(shard.time_used) AS time_used
  FROM shards GROUP BY submission
),
trials AS (
  SELECT submission, id, unnest(shard.task_results) AS t FROM shards
)
SELECT
  id,
  round(100.0 * count(*) FILTER (WHERE t.scored AND t.success)
        / nullif(max(planned.n), 0), 1) AS "Pass rate (%)",
  round(coalesce(sum(t.reward) FILTER (WHERE t.scored), 0)
        / nullif(max(planned.n), 0), 4) AS "Mean reward",
  count(DISTINCT t.task_id) AS "Tasks",
  max(planned.n) AS "Task-trials",
  max(planned.n) - count(*) FILTER (WHERE t.scored) AS "Not scored",
  bool_and(per_shard.scored_all AND per_shard.present = per_shard.expected) AS "Complete",
  round(max(per_shard.time_used), 1) AS "Time (s, all shards)"
FROM trials
JOIN planned USING (submission)
JOIN per_shard USING (submission)
GROUP BY submission, id
ORDER BY "Pass rate (%)" DESC NULLS LAST, id;
