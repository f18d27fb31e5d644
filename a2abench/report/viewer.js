// a2abench trajectory viewer: vanilla JS, no network. Summary rows come as JSON; each
// task-trial's transcript and breakdown is a line of a zlib-compressed chunk (base64) of
// consecutive task-trials, inflated when one of them is opened (meta.blobs[i]: [chunk, line]).
"use strict";
(function () {
  const meta = JSON.parse(document.getElementById("a2ab-data").textContent);
  const blobSource = document.getElementById("a2ab-blobs");
  const runs = meta.runs;
  const rows = meta.rows.map(function (r, i) {
    const o = { i: i };
    meta.columns.forEach(function (c, j) { o[c] = r[j]; });
    o.hay = [o.task_id, o.pairing || "", o.domain, o.category, o.status, o.termination, o.error_class, o.error,
      (o.labels || []).join(" ")].join(" ").toLowerCase();
    return o;
  });
  const natural = new Intl.Collator(undefined, { numeric: true });
  const order = rows.slice().sort(function (a, b) {
    return (a.success - b.success) || (a.run - b.run) ||
      natural.compare(String(a.domain), String(b.domain)) ||
      natural.compare(a.task_id, b.task_id) || (a.trial - b.trial);
  });
  let chunks = null;
  const inflated = new Map();
  const cache = new Map();
  const deep = [];
  const state = { status: "all", run: "all", domain: "all", category: "all", termination: "all",
    error: "all", text: "", deep: false, limit: 200, tab: "trials", differs: false };

  function h(tag, attrs) {
    const e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        const v = attrs[k];
        if (v === null || v === undefined || v === false) return;
        if (k === "class") e.className = v;
        else if (k.slice(0, 2) === "on") e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : v);
      });
    }
    for (let a = 2; a < arguments.length; a++) add(e, arguments[a]);
    return e;
  }
  function add(e, kid) {
    if (kid === null || kid === undefined || kid === false) return;
    if (Array.isArray(kid)) kid.forEach(function (k) { add(e, k); });
    else e.append(kid instanceof Node ? kid : String(kid));
  }
  function fmt(v, d) { return v === null || v === undefined ? "n/a" : Number(v).toFixed(d === undefined ? 2 : d); }
  function json(v) { return typeof v === "string" ? v : JSON.stringify(v, null, 2); }
  function pretty(text) {
    if (typeof text !== "string") return json(text);
    const t = text.trim();
    if (t[0] === "{" || t[0] === "[") { try { return JSON.stringify(JSON.parse(t), null, 2); } catch (e) { /* not JSON */ } }
    return text;
  }
  function mark(ok) { return h("span", { class: ok ? "ok" : "no" }, ok ? "✓" : "✗"); }
  function table(head, body, attrs) {
    return h("table", attrs || null, h("thead", null, h("tr", null, head.map(function (x) { return h("th", null, x); }))),
      h("tbody", null, body.map(function (r) { return h("tr", null, r.map(function (c) { return h("td", null, c); })); })));
  }
  function seconds(ms) {
    if (ms === null || ms === undefined) return "";
    return ms < 1000 ? ms.toFixed(ms < 10 ? 1 : 0) + " ms" : (ms / 1000).toFixed(2) + " s";
  }

  function inflate(c) {  // a chunk's bodies (JSON texts), the chunk inflated once
    if (inflated.has(c)) return inflated.get(c);
    if (chunks === null) chunks = blobSource.textContent.split("\n");
    const bin = atob(chunks[c]);
    const bytes = new Uint8Array(bin.length);
    for (let k = 0; k < bin.length; k++) bytes[k] = bin.charCodeAt(k);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    const texts = new Response(stream).text().then(function (t) { return t.split("\n"); });
    if (inflated.size > 8) inflated.clear();
    inflated.set(c, texts);
    return texts;
  }
  async function load(i) {
    if (cache.has(i)) return cache.get(i);
    const ref = meta.blobs[i];
    // {record: the task record as written, requests: its request rows}: one object to show.
    const body = JSON.parse((await inflate(ref[0]))[ref[1]]);
    const value = Object.assign({}, body.record, { requests: body.requests });
    if (cache.size > 200) cache.clear();
    cache.set(i, value);
    return value;
  }

  // ---------------------------------------------------------------- list and filters
  const app = document.getElementById("app");
  const list = h("div", { id: "list" });
  const detail = h("div", { id: "trial-detail", hidden: true });
  app.append(list, detail);

  function distinct(col) {
    const seen = new Set();
    rows.forEach(function (r) { if (r[col] !== null && r[col] !== undefined) seen.add(String(r[col])); });
    return Array.from(seen).sort(natural.compare);
  }
  function select(key, label, options) {
    const s = h("select", { "data-filter": key, onchange: function () { state[key] = s.value; state.limit = 200; draw(); } },
      options.map(function (o) { return h("option", { value: o[0], selected: state[key] === o[0] }, o[1]); }));
    return h("label", null, label + " ", s);
  }
  function matches(r) {
    const s = state.status;
    if (s === "failed" && r.success) return false;
    if (s === "passed" && !r.success) return false;
    if (s !== "all" && s !== "failed" && s !== "passed" && r.status !== s) return false;
    if (state.run !== "all" && String(r.run) !== state.run) return false;
    if (state.domain !== "all" && String(r.domain) !== state.domain) return false;
    if (state.category !== "all" && String(r.category) !== state.category) return false;
    if (state.termination !== "all" && String(r.termination) !== state.termination) return false;
    if (state.error !== "all" && String(r.error_class) !== state.error) return false;
    if (state.text) {
      const q = state.text.toLowerCase();
      if (r.hay.indexOf(q) < 0 && !(state.deep && deep[r.i] && deep[r.i].indexOf(q) >= 0)) return false;
    }
    return true;
  }
  async function indexTranscripts(note) {
    for (let k = 0; k < rows.length; k++) {
      if (deep[k] === undefined) deep[k] = JSON.stringify(await load(k)).toLowerCase();
      if (k % 200 === 0) note.textContent = "indexing " + k + "/" + rows.length;
    }
    note.textContent = "";
  }
  function filters() {
    const opts = function (col) { return [["all", "all"]].concat(distinct(col).map(function (v) { return [v, v]; })); };
    const box = h("div", { class: "filters" },
      select("status", "status", [["all", "all"], ["failed", "failed"], ["passed", "passed"],
        ["ok", "scored ok"], ["agent_error", "agent error"], ["infrastructure_error", "infrastructure error"],
        ["harness_error", "harness error"]]),
      runs.length > 1 ? select("run", "run", [["all", "all"]].concat(runs.map(function (r, i) { return [String(i), r]; }))) : null,
      select("domain", "domain/org", opts("domain")), select("category", "category", opts("category")),
      select("termination", "termination", opts("termination")), select("error", "error class", opts("error_class")));
    const text = h("input", { type: "search", id: "search", placeholder: "search task, error…", value: state.text });
    text.addEventListener("input", function () { state.text = text.value; state.limit = 200; drawRows(); });
    const note = h("span", { class: "muted" });
    const deepBox = h("input", { type: "checkbox", id: "deep", checked: state.deep });
    deepBox.addEventListener("change", async function () {
      state.deep = deepBox.checked;
      if (state.deep) await indexTranscripts(note);
      drawRows();
    });
    box.append(text, h("label", null, deepBox, " search transcripts"), note);
    return box;
  }
  let tbody = null, counter = null, more = null;
  function drawRows() {
    const hits = order.filter(matches);
    counter.textContent = hits.length + " of " + rows.length + " task-trials";
    tbody.replaceChildren.apply(tbody, hits.slice(0, state.limit).map(rowElement));
    more.hidden = hits.length <= state.limit;
  }
  function rowElement(r) {
    return h("tr", { "data-trial": r.i, class: r.success ? "" : "failed", onclick: function () { location.hash = "trial=" + r.i; } },
      runs.length > 1 ? h("td", null, runs[r.run]) : null,
      h("td", null, r.task_id), h("td", null, r.pairing ? r.trial + " · " + r.pairing : r.trial), h("td", null, r.domain || ""), h("td", null, r.category || ""),
      h("td", { class: r.success ? "pass" : "fail" }, r.success ? "pass" : (r.status === "ok" ? "fail" : r.status)),
      h("td", null, fmt(r.reward)), h("td", null, r.termination || ""),
      h("td", { title: r.error || "" }, r.error_class || ""), h("td", null, seconds(r.latency_ms)),
      h("td", null, r.turns), h("td", null, r.tokens), h("td", null, r.cost_usd === null ? "" : fmt(r.cost_usd, 4)));
  }
  function trialsTab() {
    const head = (runs.length > 1 ? ["run"] : []).concat(["task", "trial", "domain/org", "category", "result",
      "reward", "termination", "error", "time", "turns", "tokens", "cost $"]);
    tbody = h("tbody");
    counter = h("p", { class: "muted", id: "count" });
    more = h("button", { onclick: function () { state.limit += 500; drawRows(); } }, "show more");
    const t = h("table", { id: "trials" }, h("thead", null, h("tr", null, head.map(function (x) { return h("th", null, x); }))), tbody);
    return [filters(), counter, t, more];
  }
  function perTaskTab() {
    const tasks = new Map();
    rows.forEach(function (r) {
      const key = [r.benchmark, r.domain, r.task_id].join("\u0000");
      if (!tasks.has(key)) tasks.set(key, { domain: r.domain, task_id: r.task_id, cells: runs.map(function () { return []; }) });
      tasks.get(key).cells[r.run].push(r);
    });
    const entries = Array.from(tasks.values()).sort(function (a, b) {
      return natural.compare(String(a.domain), String(b.domain)) || natural.compare(a.task_id, b.task_id);
    });
    const rate = function (c) { return c.length ? c.filter(function (r) { return r.success; }).length / c.length : null; };
    const differs = function (t) {
      const rates = t.cells.map(rate).filter(function (x) { return x !== null; });
      return rates.some(function (x) { return x !== rates[0]; });
    };
    const shown = entries.filter(function (t) { return !state.differs || differs(t); });
    const box = h("input", { type: "checkbox", id: "differs", checked: state.differs, onchange: function () { state.differs = box.checked; draw(); } });
    const body = shown.map(function (t) {
      return h("tr", null, h("td", null, t.domain || ""), h("td", null, t.task_id), t.cells.map(function (c) {
        if (!c.length) return h("td", { class: "muted" }, "—");
        const passed = c.filter(function (r) { return r.success; }).length;
        const target = c.find(function (r) { return !r.success; }) || c[0];
        return h("td", { class: "cell " + (passed === c.length ? "pass" : "fail"), title: "open a task-trial",
          onclick: function () { location.hash = "trial=" + target.i; } }, passed + "/" + c.length);
      }));
    });
    return [h("div", { class: "filters" }, h("label", null, box, " only tasks where the runs differ"),
      h("span", { class: "muted" }, shown.length + " of " + entries.length + " tasks")),
      h("table", { class: "pertask" }, h("thead", null, h("tr", null, h("th", null, "domain/org"), h("th", null, "task"),
        runs.map(function (r) { return h("th", { title: r }, r.length > 60 ? r.slice(0, 60) + "…" : r); }))), h("tbody", null, body))];
  }
  function draw() {
    const tabs = runs.length > 1 ? h("div", { class: "filters" },
      h("button", { id: "tab-trials", disabled: state.tab === "trials", onclick: function () { state.tab = "trials"; draw(); } }, "task-trials"),
      h("button", { id: "tab-tasks", disabled: state.tab === "tasks", onclick: function () { state.tab = "tasks"; draw(); } }, "per task, side by side")) : null;
    list.replaceChildren();
    add(list, [tabs, state.tab === "tasks" ? perTaskTab() : trialsTab()]);
    if (state.tab === "tasks") return;
    drawRows();
  }

  // ---------------------------------------------------------------- one task-trial
  function header(r, b) {
    const badge = function (text, cls) { return h("span", { class: "badge " + (cls || "") }, text); };
    // previous / next in the list as filtered now (failed first), to walk through failures
    const hits = order.filter(matches);
    const at = hits.indexOf(r);
    const step = function (k, id, label) {
      const target = at >= 0 ? hits[at + k] : undefined;
      return target ? h("a", { href: "#trial=" + target.i, id: id }, label) : h("span", { class: "muted" }, label);
    };
    return h("div", { class: "detail" },
      h("p", null, h("a", { href: "#", id: "back" }, "← all task-trials"), " · ",
        step(-1, "prev", "previous"), " · ", step(1, "next", "next"),
        at >= 0 ? h("span", { class: "muted" }, " (" + (at + 1) + " of " + hits.length + ")") : null),
      h("h2", null, "Task " + r.task_id + " · trial " + r.trial + (r.pairing ? " · match " + r.pairing : "")),
      h("p", null, runs.length > 1 ? badge(runs[r.run]) : null, badge(r.success ? "passed" : "failed", r.success ? "good" : "bad"),
        badge("status " + r.status), badge("reward " + fmt(r.reward, 3)), r.termination ? badge("termination " + r.termination) : null,
        r.domain ? badge(r.domain) : null, r.category ? badge(r.category) : null,
        (r.labels || []).map(function (l) { return badge(l); })),
      b.error ? h("div", { class: "msg err", id: "error" }, h("div", { class: "who" }, b.error.error + " (" + b.error.kind + ")"),
        h("div", null, b.error.message), b.error.hint ? h("div", { class: "muted" }, b.error.hint) : null,
        b.error.traceback ? h("pre", null, b.error.traceback) : null) : null);
  }
  function breakdown(r, b) {
    const sec = h("div", { class: "detail breakdown", id: "breakdown" }, h("h3", null, "Reward " + fmt(r.reward, 3)));
    const comps = b.reward_components || {};
    const names = Object.keys(comps);
    if (names.length) {
      sec.append(table(["component", "value"], names.map(function (k) {
        const v = comps[k];
        return [k, typeof v === "number" ? h("span", { class: v >= 1 - 1e-6 ? "ok" : "no" }, fmt(v, 3)) : json(v)];
      }), { id: "components" }));
    }
    const d = b.details || {};
    if (d.reward_info) add(sec, tau2Breakdown(d.reward_info));
    else if ("reward_metric" in d || "ground_truth" in d) add(sec, crmBreakdown(d));
    return sec;
  }
  function tau2Breakdown(ri) {
    const out = [];
    const info = ri.info || {};
    const env = info.env || {};
    if (info.note) out.push(h("p", { class: "muted" }, info.note));
    if (env.note) out.push(h("p", { class: "muted" }, env.note));
    if (ri.reward_basis) out.push(h("p", null, "Reward basis: " + ri.reward_basis.join(" × ") + (ri.reward_basis_mode === "classic" ? " (classic)" : "")));
    if (ri.nl_skipped) out.push(h("p", { class: "warn" }, (info.nl || {}).note || "NL assertions were not scored."));
    if (ri.db_check) {
      out.push(h("h3", null, mark(ri.db_check.db_match), ri.db_check.db_match ? " DB: the final DB equals the gold DB" : " DB: the final DB differs from the gold DB"));
      if (env.db_diff) out.push(dbDiff(env.db_diff));
    }
    if (env.gold_action_errors) out.push(h("p", { class: "warn" }, "Gold actions that failed: " + env.gold_action_errors.join("; ")));
    if (ri.env_assertions && ri.env_assertions.length) {
      out.push(h("h3", null, "Environment assertions"), table(["met", "env", "function", "arguments", "expected", "message"],
        ri.env_assertions.map(function (c) {
          const a = c.env_assertion;
          return [mark(c.met), a.env_type, a.func_name, h("pre", null, json(a.arguments)), String(a.assert_value), a.message || ""];
        }), { id: "env-assertions" }));
    }
    if (ri.action_checks && ri.action_checks.length) {
      out.push(h("h3", null, "Expected actions"), table(["matched", "action", "by", "tool", "arguments", "compared"],
        ri.action_checks.map(function (c) {
          const a = c.action;
          return [mark(c.action_match), a.action_id, a.requestor, a.name, h("pre", null, json(a.arguments)),
            a.compare_args ? a.compare_args.join(", ") : "all"];
        }), { id: "action-checks" }));
    }
    if (ri.communicate_checks && ri.communicate_checks.length) {
      out.push(h("h3", null, "Information to communicate"), table(["met", "info", "justification"],
        ri.communicate_checks.map(function (c) { return [mark(c.met), c.info, c.justification]; }), { id: "communicate-checks" }));
    }
    if (ri.nl_assertions && ri.nl_assertions.length) {
      out.push(h("h3", null, "NL assertions (judge)"), table(["met", "assertion", "justification"],
        ri.nl_assertions.map(function (c) { return [mark(c.met), c.nl_assertion, c.justification]; }), { id: "nl-assertions" }));
    }
    return out;
  }
  function dbDiff(diff) {
    const cell = function (e, side) { return side in e ? h("pre", null, json(e[side])) : h("span", { class: "muted" }, "(absent)"); };
    return [table(["db", "record / field", "final", "gold"], diff.entries.map(function (e) {
      return [e.db, e.path.join(" › "), cell(e, "final"), cell(e, "gold")];
    }), { id: "db-diff" }), diff.truncated ? h("p", { class: "muted" }, "(more differences left out)") : null];
  }
  function crmBreakdown(d) {
    const pre = function (v) { return v === null || v === undefined ? h("span", { class: "muted" }, "none") : h("pre", null, json(v)); };
    return table(["", ""], [
      ["metric", d.reward_metric || ""], ["scoring path", d.scoring_path || "not scored (no answer)"],
      ["agent's answer", pre(d.answer)], ["extracted answer", pre(d.parsed_answer)],
      ["reference", pre(d.ground_truth)], ["judge verdict", pre(d.judge_reply)],
      ["upstream error", pre(d.upstream_error)], ["invalid replies", String(d.invalid_replies || 0)],
      ["user turns", String(d.user_turns || 0)]], { id: "crm-verdict" });
  }
  function stamp(ts) { const t = Date.parse(ts || ""); return isNaN(t) ? null : t; }
  function tau2Message(m, prev) {
    const who = { assistant: "agent", user: "user simulator", tool: "tool result", system: "system" }[m.role] || m.role;
    const t = stamp(m.timestamp);
    const delta = t !== null && prev !== null ? "+" + ((t - prev) / 1000).toFixed(2) + " s" : "";
    const e = h("div", { class: "msg " + m.role + (m.error ? " err" : "") },
      h("span", { class: "when" }, delta, m.cost ? " · $" + fmt(m.cost, 4) : ""),
      h("div", { class: "who" }, who + (m.role === "tool" ? " (" + m.id + (m.requestor === "user" ? ", user tool" : "") + ")" : "") + (m.error ? " — error" : "")));
    if (m.content !== null && m.content !== undefined && m.content !== "") e.append(m.role === "tool" ? h("pre", null, pretty(m.content)) : h("div", { style: "white-space:pre-wrap" }, m.content));
    (m.tool_calls || []).forEach(function (c) {
      e.append(h("div", { class: "call" }, "→ call ", h("b", null, c.name), c.id ? h("span", { class: "muted" }, " (" + c.id + ")") : null,
        h("pre", null, json(c.arguments))));
    });
    return e;
  }
  function crmMessage(m) {
    const who = { green: "a2abench (" + (m.kind || "message") + ")", agent: "agent", environment: "query result", user: "user simulator" }[m.role] || m.role;
    const e = h("div", { class: "msg " + m.role }, h("div", { class: "who" }, who));
    const text = m.text || "";
    if (m.role === "green" && text.length > 600) e.append(h("details", null, h("summary", null, text.slice(0, 120) + "…"), h("pre", null, text)));
    else if (m.role === "environment") e.append(h("pre", null, text));
    else if (text) e.append(h("div", { style: "white-space:pre-wrap" }, text));
    const a = m.action;
    if (a) {
      const query = a.name === "execute";
      const kind = query ? (/^\s*find\b/i.test(a.content) ? "SOSL query" : "SOQL query") : "answer";
      e.append(h("div", { class: "call" }, "→ " + kind, h("pre", { class: query ? "query" : "answer" }, a.content)));
    } else if (m.role === "agent") e.append(h("div", { class: "no" }, "(no valid action in this reply)"));
    if (m.data) e.append(h("pre", null, json(m.data)));
    return e;
  }
  function a2aBadge(turn) {
    return h("span", { class: "badge a2a", title: "the agent's A2A reply" },
      "A2A " + (turn.state || turn.kind) + " · " + seconds(turn.latency_ms));
  }
  function mcpBadge() {
    return h("span", { class: "badge mcp", title: "a tool call the agent made over MCP (--tool-channel mcp) while holding the turn" }, "MCP call");
  }
  function conversation(b) {
    const t = b.transcript || [];
    const turns = new Map();
    ((b.details || {}).a2a_turns || []).forEach(function (x) { if (x.message !== null && x.message !== undefined) turns.set(x.message, x); });
    const overMcp = new Set((b.details || {}).mcp_calls || []);
    const sec = h("div", { class: "detail transcript", id: "transcript" }, h("h3", null, "Conversation (" + t.length + " messages)"));
    if (!t.length) { sec.append(h("p", { class: "muted" }, "No transcript recorded.")); return sec; }
    const tau2 = t.some(function (m) { return m.role === "assistant" || m.role === "tool"; });
    let prev = null;
    t.forEach(function (m, k) {
      const e = tau2 ? tau2Message(m, prev) : crmMessage(m);
      if (turns.has(k)) e.querySelector(".who").append(" ", a2aBadge(turns.get(k)));
      if (overMcp.has(k)) e.querySelector(".who").append(" ", mcpBadge());
      sec.append(e);
      if (tau2) { const s = stamp(m.timestamp); if (s !== null) prev = s; }
    });
    return sec;
  }
  function timings(r, b) {
    const sec = h("div", { class: "detail", id: "timings" }, h("h3", null, "A2A turns and timings"));
    const turns = (b.details || {}).a2a_turns || [];
    if (turns.length) {
      sec.append(table(["agent turn", "reply", "A2A task state", "latency", "message"], turns.map(function (x, k) {
        return [String(k + 1), x.kind, x.state || "(message)", seconds(x.latency_ms),
          x.message === null || x.message === undefined ? "(none: the reply was rejected)" : "#" + (x.message + 1)];
      }), { id: "a2a-turns" }));
    }
    const f = meta.request_fields;
    const reqs = b.requests || [];
    if (reqs.length) {
      sec.append(h("h3", null, "A2A requests (" + reqs.length + ")"), table(["time", "method", "attempt", "HTTP", "latency", "first event", "tokens in", "tokens out", "error"],
        reqs.map(function (q) {
          const o = {}; f.forEach(function (k, j) { o[k] = q[j]; });
          return [String(o.timestamp || "").slice(11, 23), o.method, String(o.attempt), String(o.status_code === null ? "" : o.status_code),
            seconds(o.latency_ms), seconds(o.first_event_ms), String(o.input_tokens), String(o.output_tokens), o.error || ""];
        })));
    }
    const userCost = (b.transcript || []).reduce(function (s, m) { return s + (m.role === "user" && m.cost ? m.cost : 0); }, 0);
    sec.append(h("h3", null, "Tokens and cost"), table(["", ""], [
      ["total time", seconds(r.latency_ms)], ["time in the agent", seconds(b.agent_latency_ms)],
      ["A2A tokens in / out (estimated)", b.input_tokens + " / " + b.output_tokens],
      ["LLM tokens prompt / completion (user simulator, judge)", b.llm_prompt_tokens + " / " + b.llm_completion_tokens],
      ["cost (USD)", b.cost_usd === null || b.cost_usd === undefined ? "n/a" : fmt(b.cost_usd, 4)],
      ["user simulator cost in the transcript (USD)", fmt(userCost, 4)]].concat(
      Object.keys((b.details || {}).llm_usage || {}).map(function (role) {
        const u = b.details.llm_usage[role];
        // Say what played the role: the demo's user is scripted, not an LLM.
        const user = (meta.users || [])[r.run] || "?";
        const who = role === "user_simulator"
          ? (user.indexOf("scripted") === 0 ? "scripted user (" + user + ", no LLM)" : "LLM user simulator (" + user + ")")
          : "LLM " + role.replace("_", " ");
        return [who + ": calls, tokens prompt / completion, cost",
          u.calls + ", " + u.prompt_tokens + " / " + u.completion_tokens + ", " +
          (u.cost_usd === null || u.cost_usd === undefined ? "n/a" : "$" + fmt(u.cost_usd, 4))];
      }), [
        ["started / finished", (b.started_at || "") + " / " + (b.finished_at || "")], ["seed", String(b.seed)]]), { id: "usage" }));
    return sec;
  }
  // A multi-party match (docs/multi-agent.md): who sat where, each role's score, the forfeit,
  // and every violation with what it was.
  function matchSection(b) {
    const m = b.match;
    if (!m || typeof m !== "object") return null;
    const roles = m.roles || {};
    const scores = m.scores || {};
    const rows = Object.keys(roles).map(function (role) {
      const s = scores[role];
      return [role, String(roles[role]), s === null || s === undefined ? "not counted" : fmt(s, 3),
        m.forfeit === role ? h("span", { class: "no" }, "forfeited") : ""];
    });
    const found = [];
    Object.keys(m.violations || {}).forEach(function (role) {
      (m.violations[role] || []).forEach(function (v) { found.push([role, String(v.kind), String(v.message || "")]); });
    });
    return h("div", { class: "detail", id: "match" }, h("h3", null, "Match " + String(m.pairing)),
      table(["role", "participant", "score", ""], rows, { id: "seats" }),
      found.length ? h("div", null, h("h3", null, "Violations"), table(["role", "kind", "what"], found, { id: "violations" }))
        : h("p", { class: "muted" }, "No violations."));
  }
  async function showTrial(i) {
    const r = rows[i];
    list.hidden = true;
    detail.hidden = false;
    if (!r) { detail.replaceChildren(h("p", { class: "warn" }, "No task-trial #" + i + " in this report.")); return; }
    detail.replaceChildren(h("p", null, "Loading…"));
    let b;
    try { b = await load(i); } catch (e) {
      detail.replaceChildren(h("p", { class: "warn" }, "Could not decode this task-trial: " + e));
      return;
    }
    detail.replaceChildren(header(r, b), matchSection(b), breakdown(r, b), conversation(b), timings(r, b),
      h("details", { class: "detail" }, h("summary", null, "All recorded details (JSON)"), h("pre", null, json(b.details || {}))));
    detail.setAttribute("data-loaded", String(i));
    window.scrollTo(0, document.getElementById("viewer").offsetTop);
  }
  function route() {
    const m = /^#trial=(\d+)$/.exec(location.hash);
    if (m) { showTrial(Number(m[1])); return; }
    detail.hidden = true;
    list.hidden = false;
  }
  window.addEventListener("hashchange", route);
  draw();
  route();
  document.body.setAttribute("data-ready", "1");
})();
