-- Scores per role (scenario dual, docs/multi-agent.md): one row per participant of each
-- submission, its shards added up from the Results' per-match rows (`matches`).
-- `id` is the participant's AgentBeats id (metadata.agentbeats_ids.agent / .user).
-- Mean score: over the matches counted for the role (a partner's forfeit is not), each
-- task's matches averaged first (trials of a task are correlated); the 95% interval is the
-- normal one over those task means. Fidelity: the user's mean score against the reference
-- agent (pairing vs_reference).
WITH submissions AS (
  SELECT row_number() OVER () AS submission, participants AS ids, results AS shards
  FROM results
),
shards AS (
  SELECT submission, ids, unnest(shards) AS shard FROM submissions
),
matches AS (
  SELECT submission, ids, unnest(shard.matches) AS m FROM shards
),
seats AS (
  SELECT submission, ids.agent AS id, 'agent' AS role, m.task_id AS task, m.scores.agent AS score,
         m.forfeit = 'agent' AS forfeited, m.roles.user AS partner
  FROM matches WHERE m.roles.agent = 'agent'
  UNION ALL
  SELECT submission, ids."user" AS id, 'user' AS role, m.task_id AS task, m.scores."user" AS score,
         m.forfeit = 'user' AS forfeited, m.roles.agent AS partner
  FROM matches WHERE m.roles."user" = 'user'
),
per_task AS (
  SELECT submission, id, role, task, avg(score) AS mean,
         avg(score) FILTER (WHERE partner = 'reference_agent') AS fidelity
  FROM seats WHERE score IS NOT NULL
  GROUP BY submission, id, role, task
)
SELECT
  p.id,
  p.role AS "Role",
  round(100.0 * avg(p.mean), 1) AS "Mean score (%)",
  round(100.0 * greatest(0, avg(p.mean) - 1.96 * coalesce(stddev_samp(p.mean), 0)
                            / sqrt(count(*))), 1) AS "CI low (%)",
  round(100.0 * least(1, avg(p.mean) + 1.96 * coalesce(stddev_samp(p.mean), 0)
                         / sqrt(count(*))), 1) AS "CI high (%)",
  round(100.0 * avg(p.fidelity), 1) AS "Fidelity (%)",
  count(*) AS "Tasks",
  (SELECT count(*) FROM seats s WHERE s.submission = p.submission AND s.role = p.role)
    AS "Matches",
  (SELECT count(*) FILTER (WHERE s.forfeited) FROM seats s
   WHERE s.submission = p.submission AND s.role = p.role) AS "Forfeits"
FROM per_task p
GROUP BY p.submission, p.id, p.role
ORDER BY p.role, "Mean score (%)" DESC NULLS LAST, p.id;
