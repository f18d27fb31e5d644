-- Scenario team (docs/multi-agent.md): one row per submission (a front agent and its
-- specialist), its shards added up from the Results' per-match rows (`matches`).
-- `agent` / `specialist` are the AgentBeats ids (metadata.agentbeats_ids.agent / .specialist).
-- Team score: the reward of the front agent with its specialist (a match either forfeited
-- counts 0, as in the headline), each task's trials averaged first. Solo baseline: the
-- front agent alone with every tool. Attribution by swap (pairing vs_reference): the front
-- agent with the reference specialist, the specialist with the reference front agent.
-- Overhead: the traffic between the two agents per task-trial of the team.
WITH submissions AS (
  SELECT row_number() OVER () AS submission, participants AS ids, results AS shards
  FROM results
),
shards AS (
  SELECT submission, ids, unnest(shards) AS shard FROM submissions
),
matches AS (
  SELECT submission, ids, unnest(shard.matches) AS m FROM shards
  WHERE shard.scenario = 'team'
),
per_task AS (
  SELECT submission, m.task_id AS task,
    avg(coalesce(m.reward, 0)) FILTER (WHERE m.pairing = 'agent+specialist') AS team,
    avg(coalesce(m.reward, 0)) FILTER (WHERE m.pairing = 'agent+no_specialist') AS solo,
    avg(m.scores.agent) FILTER (WHERE m.pairing = 'agent+reference_specialist') AS front,
    avg(m.scores.specialist) FILTER (WHERE m.pairing = 'reference_agent+specialist')
      AS specialist
  FROM matches GROUP BY submission, m.task_id
),
traffic AS (
  SELECT submission, any_value(ids) AS ids,
    avg(m.delegation.delegations) AS delegations,
    avg(m.delegation.delegations + m.delegation.specialist_turns) AS messages,
    avg(m.delegation.time_ms) AS time_ms,
    avg(m.usage.specialist.input_tokens + m.usage.specialist.output_tokens) AS tokens
  FROM matches WHERE m.pairing = 'agent+specialist'
  GROUP BY submission
)
SELECT
  t.ids.agent AS agent,
  t.ids.specialist AS specialist,
  round(100.0 * avg(p.team), 1) AS "Team score (%)",
  round(100.0 * avg(p.solo), 1) AS "Solo baseline (%)",
  round(100.0 * avg(p.front), 1) AS "Front vs reference (%)",
  round(100.0 * avg(p.specialist), 1) AS "Specialist vs reference (%)",
  round(any_value(t.delegations), 2) AS "Delegations per task-trial",
  round(any_value(t.messages), 2) AS "Messages per task-trial",
  round(any_value(t.time_ms), 1) AS "Delegation time per task-trial (ms)",
  round(any_value(t.tokens), 1) AS "Specialist tokens per task-trial",
  count(p.team) AS "Tasks"
FROM per_task p JOIN traffic t USING (submission)
GROUP BY p.submission, t.ids.agent, t.ids.specialist
ORDER BY "Team score (%)" DESC NULLS LAST, agent;
