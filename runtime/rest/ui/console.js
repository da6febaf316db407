// weir's web console (docs/console.md). Plain JavaScript, no framework and no build
// step: this file is what the browser runs. It polls the node's REST API once a
// second (the same endpoints `weir shell` uses) and keeps all history in the tab:
// the server holds nothing per browser.
"use strict";

const POLL_MS = 1000;
const HISTORY_MS = 5 * 60 * 1000; // the sparklines' window
const MAX_TAP_ROWS = 200;
const MAX_LOG_LINES = 500;
const TOKEN_KEY = "weir.token";

const $ = (selector, root = document) => root.querySelector(selector);

/** Builds an element: el("td", {class: "num"}, "42", child). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

// --- talking to the node -------------------------------------------------------

class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

/** Resolves once the user has entered a token (the form is shown by the first 401). */
let tokenWaiters = [];

function askForToken(message) {
  const form = $("#token-form");
  $("#token-message").textContent = message || "";
  if (form.hidden) {
    form.hidden = false;
    $("#token-input").focus();
  }
  return new Promise((resolve) => tokenWaiters.push(resolve));
}

/** Calls the REST API; answers 401 by asking for the token once, then retrying. */
async function api(method, path, body, { raw = false } = {}) {
  for (;;) {
    const headers = {};
    const token = sessionStorage.getItem(TOKEN_KEY);
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: "no-store",
    });
    if (response.status === 401) {
      const answer = await response.json().catch(() => ({}));
      sessionStorage.removeItem(TOKEN_KEY);
      await askForToken(token ? answer.message : "");
      continue;
    }
    if (raw) return response;
    const text = await response.text();
    let parsed = null;
    if (text) {
      try { parsed = JSON.parse(text); } catch { parsed = text; }
    }
    if (!response.ok) {
      const message = parsed && parsed.message ? parsed.message : `HTTP ${response.status}`;
      throw new ApiError(response.status, message);
    }
    return parsed;
  }
}

function showError(error) {
  const banner = $("#error");
  if (!error) {
    banner.hidden = true;
    banner.textContent = "";
    return;
  }
  banner.hidden = false;
  banner.textContent = error.message || String(error);
}

// --- state shared by the views -------------------------------------------------

const state = {
  connectors: {},   // name → {status, info} from GET /connectors?expand=status&expand=info
  tree: null,       // GET /weir/tree (cluster scope when the node offers it)
  clusterScope: true,
  history: new Map(), // connector → [[time ms, records/s], …] over HISTORY_MS
  view: "connectors",
  pipelineConnector: "", // "" for all
};

function stateBadge(name) {
  const word = (name || "UNKNOWN").toUpperCase();
  return el("span", { class: `state state-${word}` }, word);
}

function formatRate(value) {
  if (value === undefined || value === null) return "–";
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e4) return `${(value / 1e3).toFixed(1)}k`;
  return value >= 100 ? value.toFixed(0) : value.toFixed(1);
}

function formatCount(value) {
  return value === undefined || value === null ? "–" : Number(value).toLocaleString("en");
}

/** Every task of `connector` in the tree, with the node it is drawn under. */
function treeTasks(connector) {
  const tasks = [];
  for (const node of state.tree?.nodes || [])
    for (const c of node.connectors || [])
      if (c.name === connector) for (const task of c.tasks || []) tasks.push({ node, task });
  return tasks;
}

/** A task's throughput: what its last stage passed on (a writer's records in are its output). */
function taskRate(task) {
  const stages = task.stages || [];
  if (!stages.length) return 0;
  const last = stages[stages.length - 1];
  return last.records_out_per_sec ?? last.records_in_per_sec ?? 0;
}

function connectorFigures(name) {
  let rate = 0, lag = null, errors = 0, deadLettered = 0;
  for (const { task } of treeTasks(name)) {
    rate += taskRate(task);
    for (const stage of task.stages || []) {
      errors += stage.errors || 0;
      deadLettered += stage.dead_lettered || 0;
      if (stage.lag !== null && stage.lag !== undefined) lag = (lag || 0) + stage.lag;
    }
  }
  return { rate, lag, errors, deadLettered };
}

function recordHistory(now) {
  for (const name of Object.keys(state.connectors)) {
    const points = state.history.get(name) || [];
    points.push([now, connectorFigures(name).rate]);
    while (points.length && points[0][0] < now - HISTORY_MS) points.shift();
    state.history.set(name, points);
  }
  for (const name of state.history.keys()) if (!(name in state.connectors)) state.history.delete(name);
}

function sparkline(points, now) {
  const width = 120, height = 28;
  const svgNs = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(svgNs, "svg");
  svg.setAttribute("class", "spark");
  svg.setAttribute("width", width);
  svg.setAttribute("height", height);
  svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
  svg.setAttribute("aria-hidden", "true");
  const max = Math.max(1, ...points.map((p) => p[1]));
  // The window grows with the history (at least a minute) up to its 5 minutes, so a
  // fresh tab draws a line rather than a dot at the right edge.
  const span = Math.min(HISTORY_MS, Math.max(60 * 1000, points.length ? now - points[0][0] : 0));
  const line = document.createElementNS(svgNs, "polyline");
  line.setAttribute("points", points
    .map(([t, v]) => `${(width * (1 - (now - t) / span)).toFixed(1)},${(height - 2 - (height - 4) * v / max).toFixed(1)}`)
    .join(" "));
  svg.append(line);
  return svg;
}

// --- polling -------------------------------------------------------------------

async function fetchTree() {
  if (state.clusterScope) {
    try {
      return await api("GET", "/weir/tree?scope=cluster");
    } catch (error) {
      if (!(error instanceof ApiError) || error.status < 400 || error.status >= 500) throw error;
      state.clusterScope = false; // a node without the cluster view: its own tree holds every node it knows
    }
  }
  return api("GET", "/weir/tree");
}

let polling = false;

async function poll() {
  if (polling) return;
  polling = true;
  try {
    const [connectors, tree] = await Promise.all([
      api("GET", "/connectors?expand=status&expand=info"),
      fetchTree(),
    ]);
    state.connectors = connectors || {};
    state.tree = tree;
    recordHistory(Date.now());
    showError(null);
    $("#live").textContent = `Updated ${new Date().toLocaleTimeString("en-GB")}`;
    render();
  } catch (error) {
    showError(error);
  } finally {
    polling = false;
  }
}

function render() {
  const nodes = state.tree?.nodes || [];
  // The node serving this page, when its id is the address the page was loaded from.
  const node = nodes.find((n) => n.id === location.host) || nodes.find((n) => n.leader) || nodes[0];
  if (node) $("#node-id").textContent = `${state.tree.nodes.length > 1 ? `${state.tree.nodes.length} nodes, ` : ""}node ${node.id}`;
  fillConnectorSelects();
  if (state.view === "connectors") renderConnectors();
  if (state.view === "pipeline") renderPipeline();
  if (state.view === "tap") fillTapStages();
}

// --- connectors view -----------------------------------------------------------

async function act(label, method, path) {
  try {
    await api(method, path);
    $("#live").textContent = `${label}: done`;
    await poll();
  } catch (error) {
    showError(new Error(`${label}: ${error.message}`));
  }
}

function connectorActions(name, state_) {
  const path = `/connectors/${encodeURIComponent(name)}`;
  const button = (label, onclick, extra = {}) =>
    el("button", { type: "button", onclick, "data-action": label.toLowerCase(), "aria-label": `${label} ${name}`, ...extra }, label);
  return el("div", { class: "actions" },
    state_ === "PAUSED" || state_ === "STOPPED"
      ? button("Resume", () => act(`Resume ${name}`, "PUT", `${path}/resume`))
      : button("Pause", () => act(`Pause ${name}`, "PUT", `${path}/pause`)),
    state_ !== "STOPPED" ? button("Stop", () => act(`Stop ${name}`, "PUT", `${path}/stop`)) : null,
    button("Restart", () => act(`Restart ${name}`, "POST", `${path}/restart?includeTasks=true`)),
    button("Restart failed", () => act(`Restart failed tasks of ${name}`, "POST", `${path}/restart?includeTasks=true&onlyFailed=true`)),
    button("Edit", () => openEditor(name)),
    button("Pipeline", () => { location.hash = `#/pipeline/${encodeURIComponent(name)}`; }),
    button("Delete", () => {
      if (confirm(`Delete connector ${name}? Its configuration is removed; its offsets stay.`))
        act(`Delete ${name}`, "DELETE", path);
    }, { class: "danger" }));
}

function taskList(name, tasks) {
  return el("ul", { class: "tasks" }, tasks.map((task) =>
    el("li", { "data-task": task.id },
      `${task.id} `, stateBadge(task.state), ` on ${task.worker_id || "no node"} `,
      el("button", {
        type: "button", "aria-label": `Restart task ${task.id} of ${name}`,
        onclick: () => act(`Restart task ${task.id} of ${name}`, "POST",
          `/connectors/${encodeURIComponent(name)}/tasks/${task.id}/restart`),
      }, "Restart"),
      task.trace ? el("span", { class: "trace" }, task.trace.split("\n")[0]) : null,
      task.bottleneck ? el("span", { class: "trace" }, task.bottleneck) : null)));
}

/**
 * Replaces a cell's content only when what it shows has changed (`signature`), so a
 * button under the pointer or with the keyboard focus is not swapped away by the
 * once-a-second refresh.
 */
function fillCell(cell, signature, build) {
  if (cell.dataset.signature === signature) return;
  cell.dataset.signature = signature;
  cell.replaceChildren(...[build()].flat().filter((child) => child !== null && child !== undefined));
}

function renderConnectors() {
  const body = $("#connectors tbody");
  const names = Object.keys(state.connectors).sort();
  $("#no-connectors").hidden = names.length > 0;
  const now = Date.now();
  const existing = new Map([...body.rows].map((row) => [row.dataset.connector, row]));
  const rows = names.map((name) => {
    const { status, info } = state.connectors[name];
    const config = info?.config || {};
    const figures = connectorFigures(name);
    const dlq = config["errors.deadletterqueue.topic.name"];
    const connectorState = status?.connector?.state;
    const row = existing.get(name) || el("tr", { "data-connector": name },
      el("th", { scope: "row" }, name), el("td"), el("td", { class: "connector-state" }), el("td"),
      el("td", { class: "num" }), el("td", { class: "num" }), el("td", { class: "num" }), el("td"));
    const cells = row.cells;
    fillCell(cells[1], `${status?.type || info?.type}|${config["connector.class"]}`, () => [
      el("span", {}, status?.type || info?.type || "unknown"), el("br"),
      el("span", { class: "mono muted" }, config["connector.class"] || "")]);
    fillCell(cells[2], `${connectorState}|${status?.connector?.trace || ""}`, () => [stateBadge(connectorState),
      status?.connector?.trace ? el("span", { class: "trace" }, status.connector.trace.split("\n")[0]) : null]);
    fillCell(cells[3], JSON.stringify(status?.tasks || []), () => taskList(name, status?.tasks || []));
    cells[4].replaceChildren(sparkline(state.history.get(name) || [], now), " ",
      el("span", { class: "rate" }, formatRate(figures.rate)),
      el("span", { class: "visually-hidden" }, " records per second now"));
    fillCell(cells[5], String(figures.lag), () => (figures.lag === null ? "–" : formatCount(figures.lag)));
    fillCell(cells[6], `${figures.errors}|${figures.deadLettered}|${dlq}`, () => [`${formatCount(figures.errors)} errors`,
      el("span", { class: "trace" },
        dlq ? `${formatCount(figures.deadLettered)} to DLQ topic ${dlq}` : "no DLQ")]);
    fillCell(cells[7], String(connectorState), () => connectorActions(name, connectorState));
    return row;
  });
  // Rows move only when the set of connectors changes.
  if (rows.length !== body.rows.length || rows.some((row, i) => body.rows[i] !== row)) body.replaceChildren(...rows);
}

// --- create / edit -------------------------------------------------------------

function parseProperties(text) {
  const config = {};
  text.split(/\r?\n/).forEach((line, index) => {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith("#") || trimmed.startsWith("!")) return;
    const match = /^([^=:\s]+)\s*[=:\s]\s*(.*)$/.exec(trimmed) || /^([^=:\s]+)$/.exec(trimmed);
    if (!match) throw new Error(`line ${index + 1}: expected key=value`);
    config[match[1]] = match[2] ?? "";
  });
  return config;
}

function readEditor() {
  const name = $("#editor-name").value.trim();
  const text = $("#editor-text").value;
  let config;
  if ($("#editor-format").value === "json") {
    let parsed;
    try { parsed = JSON.parse(text); } catch (error) { throw new Error(`The JSON does not parse: ${error.message}`); }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("The JSON must be an object of config keys");
    config = parsed.config && typeof parsed.config === "object" ? parsed.config : parsed;
    config = Object.fromEntries(Object.entries(config).map(([k, v]) => [k, String(v)]));
  } else {
    config = parseProperties(text);
  }
  if (!name) throw new Error("The connector needs a name");
  config.name = name;
  if (!config["connector.class"]) throw new Error("connector.class is missing");
  return { name, config };
}

/** Shows each key with its value and the validation messages for it. */
function showValidation(config, result) {
  const errorsByKey = new Map();
  for (const entry of result?.configs || []) {
    const errors = entry.value?.errors || [];
    if (errors.length) errorsByKey.set(entry.value.name, errors);
  }
  const keys = [...new Set([...Object.keys(config), ...errorsByKey.keys()])];
  const list = $("#editor-keys");
  list.replaceChildren(...keys.flatMap((key) => [
    el("dt", { "data-key": key }, key),
    el("dd", { "data-key": key },
      el("span", { class: "mono" }, key in config ? config[key] : "(not set)"),
      ...(errorsByKey.get(key) || []).map((message) => el("div", { class: "field-error", "data-key": key }, message))),
  ]));
  const count = result?.error_count ?? 0;
  $("#editor-summary").textContent = count
    ? `${count} error${count === 1 ? "" : "s"}: fix the keys marked below before saving.`
    : "The configuration is valid.";
  return count;
}

async function validateEditor() {
  const { name, config } = readEditor();
  const plugin = config["connector.class"];
  const result = await api("PUT", `/connector-plugins/${encodeURIComponent(plugin)}/config/validate`, config);
  return { name, config, errors: showValidation(config, result) };
}

async function editorAction(save) {
  try {
    $("#editor-summary").textContent = "Validating…";
    const { name, config, errors } = await validateEditor();
    if (!save || errors) return;
    await api("PUT", `/connectors/${encodeURIComponent(name)}/config`, config);
    $("#editor-summary").textContent = `Saved ${name}.`;
    $("#editor").hidden = true;
    await poll();
  } catch (error) {
    $("#editor-keys").replaceChildren();
    $("#editor-summary").textContent = error.message;
  }
}

async function openEditor(name) {
  const form = $("#editor");
  form.hidden = false;
  $("#editor-keys").replaceChildren();
  $("#editor-summary").textContent = "";
  $("#editor-title").textContent = name ? `Edit ${name}` : "New connector";
  $("#editor-name").value = name || "";
  $("#editor-name").readOnly = Boolean(name);
  $("#editor-format").value = "properties";
  $("#editor-text").value = "";
  if (name) {
    try {
      const config = await api("GET", `/connectors/${encodeURIComponent(name)}/config`);
      $("#editor-text").value = Object.entries(config).filter(([k]) => k !== "name")
        .map(([k, v]) => `${k}=${v}`).join("\n");
    } catch (error) {
      $("#editor-summary").textContent = error.message;
    }
  } else {
    $("#editor-text").value = "connector.class=\ntasks.max=1\n";
  }
  (name ? $("#editor-text") : $("#editor-name")).focus();
}

// --- pipeline view -------------------------------------------------------------

/**
 * The bottleneck a task names (docs/rest.md, "Where the time goes": `bottleneck` in
 * words, `bottleneck_stage` the stage or null); null from a node that has no verdicts.
 */
function bottleneckOf(task) {
  if (!task.bottleneck) return null;
  return { stage: task.bottleneck_stage ?? null, text: task.bottleneck };
}

const percent = (fraction) => `${(fraction * 100).toFixed(0)}%`;

function stageBox(stage, isBottleneck) {
  const rows = [
    ["records/s", formatRate(stage.records_out_per_sec ?? stage.records_in_per_sec)],
  ];
  // The figures of "where the time goes", where the node measures them.
  if (typeof stage.busy === "number") rows.push(["busy", percent(stage.busy)]);
  if (typeof stage.ns_per_record === "number" && stage.ns_per_record > 0)
    rows.push(["µs/record", (stage.ns_per_record / 1000).toFixed(1)]);
  if (typeof stage.credit_wait === "number" && stage.credit_wait > 0) rows.push(["waits for credit", percent(stage.credit_wait)]);
  if (typeof stage.idle === "number" && stage.idle > 0) rows.push(["idle", percent(stage.idle)]);
  rows.push(["mailbox", formatCount(stage.mailbox)]);
  if (stage.credit?.granted?.batches) rows.push(["credit held", `${stage.credit.held.batches}/${stage.credit.granted.batches}`]);
  if (stage.out_credit?.granted?.batches)
    rows.push(["in flight", `${stage.out_credit.in_flight.batches}/${stage.out_credit.granted.batches}`]);
  if (stage.cpu_per_sec !== undefined) rows.push(["CPU", `${(stage.cpu_per_sec * 100).toFixed(1)}%`]);
  if (stage.lag !== null && stage.lag !== undefined) rows.push(["lag", formatCount(stage.lag)]);
  if ((stage.partition_lags || []).length > 1)
    for (const p of stage.partition_lags)
      rows.push([`lag ${p.topic}/${p.partition}`, p.lag === null ? "–" : formatCount(p.lag)]);
  if (stage.errors) rows.push(["errors", formatCount(stage.errors)]);
  return el("li", {},
    el("article", { class: `stage${isBottleneck ? " bottleneck" : ""}`, "data-stage": stage.name,
                    "aria-label": `stage ${stage.name}${isBottleneck ? ", the bottleneck" : ""}` },
      isBottleneck ? el("span", { class: "bottleneck-label" }, "BOTTLENECK") : null,
      el("h5", {}, stage.name, " ", el("span", { class: "muted" }, `(${stage.kind})`)),
      stateBadge(stage.state),
      el("dl", {}, rows.flatMap(([label, value]) => [el("dt", {}, label), el("dd", { "data-figure": label }, value)]))));
}

/** A node's scheduler threads (their busy fractions), process figures and verdict, when it has them. */
function nodeFigures(node) {
  const threads = node.scheduler?.threads || [];
  return [
    node.unreachable ? el("p", { class: "verdict" }, stateBadge("UNREACHABLE"), " did not answer in time") : null,
    threads.length ? el("p", { class: "muted scheduler" },
      `Scheduler: ${threads.length} thread${threads.length === 1 ? "" : "s"}, busy ${threads.map((t) => percent(t.busy)).join(" / ")}`,
      node.scheduler.run_queue ? `, ${node.scheduler.run_queue} actors waiting` : "") : null,
    node.process ? el("p", { class: "muted" },
      `Process: ${(node.process.cpu * 100).toFixed(0)}% of a core, ${(node.process.rss_bytes / 1048576).toFixed(0)} MiB resident`) : null,
    node.verdict ? el("p", { class: "verdict" }, node.verdict) : null,
  ];
}

/** A latency in seconds in the unit that reads best: "850 µs", "12.5 ms", "1.20 s". */
function formatDuration(seconds) {
  if (seconds < 1e-3) return `${(seconds * 1e6).toFixed(0)} µs`;
  if (seconds < 1) return `${(seconds * 1e3).toFixed(1)} ms`;
  return `${seconds.toFixed(2)} s`;
}

function renderPipeline() {
  const wanted = state.pipelineConnector;
  const nodes = state.tree?.nodes || [];
  $("#pipeline-scope").textContent = `${nodes.length} node${nodes.length === 1 ? "" : "s"}` +
    (state.clusterScope ? "" : " (this node's /weir/tree: /weir/tree?scope=cluster was refused)");
  const columns = nodes.map((node) => el("section", { class: "node-col", "data-node": node.id, "aria-label": `node ${node.id}` },
    el("h3", {}, `Node ${node.id}`, node.leader ? " (leader)" : ""),
    nodeFigures(node),
    (node.connectors || []).filter((c) => !wanted || c.name === wanted).flatMap((c) => (c.tasks || []).map((task) => {
      const bottleneck = bottleneckOf(task);
      return el("div", { class: "task", "data-task": `${c.name}-${task.id}` },
        el("h4", {}, `${c.name} task ${task.id} `, stateBadge(task.state)),
        bottleneck ? el("p", { class: "verdict" }, bottleneck.text) : null,
        task.poll_to_ack ? el("p", { class: "muted", "data-figure": "poll to ack" },
          `Poll to ack: p50 ${formatDuration(task.poll_to_ack.p50)}, p99 ${formatDuration(task.poll_to_ack.p99)}`) : null,
        task.trace ? el("p", { class: "trace" }, task.trace.split("\n")[0]) : null,
        el("ol", { class: "stages", "aria-label": `pipeline of ${c.name} task ${task.id}` },
          (task.stages || []).map((stage) => stageBox(stage, Boolean(bottleneck && bottleneck.stage === stage.name)))));
    }))));
  $("#pipeline").replaceChildren(...columns);
}

function fillConnectorSelects() {
  const names = Object.keys(state.connectors).sort();
  for (const id of ["#pipeline-connector", "#logs-connector"]) {
    const select = $(id);
    const have = [...select.options].slice(1).map((o) => o.value);
    if (have.join("\n") === names.join("\n")) continue;
    const value = select.value;
    select.replaceChildren(select.options[0], ...names.map((n) => el("option", { value: n }, n)));
    select.value = names.includes(value) ? value : "";
  }
  $("#pipeline-connector").value = state.pipelineConnector;
}

// --- tap view ------------------------------------------------------------------

const tap = { running: false, controller: null, seen: 0 };

function fillTapStages() {
  const select = $("#tap-stage");
  const options = [];
  for (const node of state.tree?.nodes || [])
    for (const c of node.connectors || [])
      for (const task of c.tasks || [])
        for (const stage of task.stages || [])
          // Records are decoded at the SMTs, the sink's writer and a source's
          // producer; readers pass raw batches, which the node does not tap.
          if (stage.role === "transform" || stage.role === "sink_writer" || stage.role === "source_writer")
            options.push(`${c.name}/${task.id}/${stage.name}`);
  const have = [...select.options].map((o) => o.value);
  if (have.join("\n") === options.join("\n")) return;
  const value = select.value;
  select.replaceChildren(...options.map((v) => {
    const [c, t, s] = v.split("/");
    return el("option", { value: v }, `${c} task ${t}: ${s}`);
  }));
  if (options.includes(value)) select.value = value;
}

function addTapRow(record) {
  const body = $("#tap tbody");
  const show = (v) => (v === null || v === undefined ? "null" : typeof v === "string" ? v : JSON.stringify(v));
  // Newest first, so the latest records are in view without scrolling.
  body.prepend(el("tr", {}, el("td", {}, record.topic ?? ""), el("td", { class: "num" }, record.partition ?? ""),
    el("td", { class: "num" }, record.offset ?? ""), el("td", { class: "key" }, show(record.key)),
    el("td", { class: "value" }, show(record.value))));
  while (body.rows.length > MAX_TAP_ROWS) body.deleteRow(-1);
  tap.seen += 1;
  $("#tap-status").textContent = `${tap.seen} record${tap.seen === 1 ? "" : "s"} seen`;
}

/** Taps in rounds of up to 2 s, each a plain GET that ends by itself, until paused. */
async function tapLoop() {
  while (tap.running) {
    const [connector, task, stage] = ($("#tap-stage").value || "").split("/");
    if (!stage) {
      $("#tap-status").textContent = "No stage to tap yet.";
      await new Promise((r) => setTimeout(r, POLL_MS));
      continue;
    }
    tap.controller = new AbortController();
    try {
      const path = `/weir/connectors/${encodeURIComponent(connector)}/tasks/${task}/stages/${encodeURIComponent(stage)}/tap?count=100&timeout_ms=2000`;
      const token = sessionStorage.getItem(TOKEN_KEY);
      const response = await fetch(path, {
        headers: token ? { Authorization: `Bearer ${token}` } : {},
        signal: tap.controller.signal,
        cache: "no-store",
      });
      if (response.status === 401) {
        await askForToken("");
        continue;
      }
      if (!response.ok) {
        const answer = await response.json().catch(() => ({}));
        throw new Error(answer.message || `HTTP ${response.status}`);
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let pending = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        pending += decoder.decode(value, { stream: true });
        let end;
        while ((end = pending.indexOf("\n")) >= 0) {
          const line = pending.slice(0, end);
          pending = pending.slice(end + 1);
          if (line.trim()) addTapRow(JSON.parse(line));
        }
      }
    } catch (error) {
      if (error.name === "AbortError") break;
      $("#tap-status").textContent = `Tap failed: ${error.message}`;
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}

function setTapRunning(running) {
  tap.running = running;
  const button = $("#tap-toggle");
  button.textContent = running ? "Pause" : tap.seen ? "Resume" : "Start";
  button.setAttribute("aria-pressed", String(running));
  if (running) {
    $("#tap-status").textContent = tap.seen ? `${tap.seen} records seen` : "Waiting for records…";
    tapLoop();
  } else {
    tap.controller?.abort();
    $("#tap-status").textContent = `Paused after ${tap.seen} record${tap.seen === 1 ? "" : "s"}`;
  }
}

// --- logs view -----------------------------------------------------------------

const logs = { after: 0, paused: false, connector: "" };

async function pollLogs() {
  if (logs.paused || state.view !== "logs") return;
  const connector = $("#logs-connector").value;
  if (connector !== logs.connector) {
    logs.connector = connector;
    logs.after = 0;
    $("#logs").replaceChildren();
  }
  try {
    const query = new URLSearchParams({ after: logs.after, limit: 200 });
    if (connector) query.set("connector", connector);
    const answer = await api("GET", `/weir/logs?${query}`);
    const list = $("#logs");
    const atBottom = list.scrollTop + list.clientHeight >= list.scrollHeight - 4;
    for (const line of answer.lines) {
      logs.after = line.seq;
      list.append(el("li", {},
        el("time", { datetime: new Date(line.time).toISOString() }, new Date(line.time).toLocaleTimeString("en-GB")), " ",
        el("span", { class: `level level-${line.level}` }, line.level), " ", line.message));
    }
    while (list.children.length > MAX_LOG_LINES) list.firstElementChild.remove();
    if (atBottom) list.scrollTop = list.scrollHeight;
  } catch (error) {
    showError(error);
  }
}

async function loadLoggers() {
  try {
    const loggers = await api("GET", "/admin/loggers");
    $("#loggers tbody").replaceChildren(...Object.entries(loggers).map(([name, l]) =>
      el("tr", {}, el("td", { class: "mono" }, name), el("td", {}, l.level),
        el("td", {}, l.last_modified ? new Date(l.last_modified).toLocaleString("en-GB") : "never"))));
  } catch (error) {
    showError(error);
  }
}

// --- views and keyboard --------------------------------------------------------

const VIEWS = ["connectors", "pipeline", "tap", "logs"];

function route() {
  const [, view = "connectors", arg] = location.hash.split("/");
  state.view = VIEWS.includes(view) ? view : "connectors";
  for (const name of VIEWS) {
    const selected = name === state.view;
    $(`#view-${name}`).hidden = !selected;
    const tab = $(`#tab-${name}`);
    tab.setAttribute("aria-selected", String(selected));
    tab.tabIndex = selected ? 0 : -1;
  }
  if (state.view === "pipeline") state.pipelineConnector = arg ? decodeURIComponent(arg) : "";
  if (state.view !== "tap" && tap.running) setTapRunning(false);
  if (state.view === "logs") {
    loadLoggers();
    pollLogs();
  }
  render();
}

function setUpTabs() {
  const tabs = VIEWS.map((name) => $(`#tab-${name}`));
  // Arrow keys move between tabs (WAI-ARIA tabs pattern); Enter follows the link.
  $("#tabs").addEventListener("keydown", (event) => {
    const index = tabs.indexOf(document.activeElement);
    if (index < 0) return;
    let next = null;
    if (event.key === "ArrowRight") next = (index + 1) % tabs.length;
    if (event.key === "ArrowLeft") next = (index + tabs.length - 1) % tabs.length;
    if (event.key === "Home") next = 0;
    if (event.key === "End") next = tabs.length - 1;
    if (next === null) return;
    event.preventDefault();
    tabs[next].focus();
    location.hash = `#/${VIEWS[next]}`;
  });
}

function start() {
  $("#token-form").addEventListener("submit", (event) => {
    event.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("#token-input").value);
    $("#token-input").value = "";
    $("#token-form").hidden = true;
    const waiters = tokenWaiters;
    tokenWaiters = [];
    waiters.forEach((resolve) => resolve());
  });
  $("#new-connector").addEventListener("click", () => openEditor(null));
  $("#editor-validate").addEventListener("click", () => editorAction(false));
  $("#editor").addEventListener("submit", (event) => {
    event.preventDefault();
    editorAction(true);
  });
  $("#editor-cancel").addEventListener("click", () => { $("#editor").hidden = true; $("#new-connector").focus(); });
  $("#pipeline-connector").addEventListener("change", () => {
    location.hash = `#/pipeline/${encodeURIComponent($("#pipeline-connector").value)}`;
  });
  $("#tap-toggle").addEventListener("click", () => setTapRunning(!tap.running));
  $("#tap-clear").addEventListener("click", () => {
    $("#tap tbody").replaceChildren();
    tap.seen = 0;
    $("#tap-status").textContent = "";
  });
  $("#logs-toggle").addEventListener("click", () => {
    logs.paused = !logs.paused;
    $("#logs-toggle").textContent = logs.paused ? "Resume" : "Pause";
    $("#logs-toggle").setAttribute("aria-pressed", String(logs.paused));
  });
  $("#logs-connector").addEventListener("change", pollLogs);
  $("#logger-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const name = $("#logger-name").value.trim();
    try {
      await api("PUT", `/admin/loggers/${encodeURIComponent(name)}`, { level: $("#logger-level").value });
      await loadLoggers();
    } catch (error) {
      showError(error);
    }
  });
  setUpTabs();
  window.addEventListener("hashchange", route);
  route();
  poll();
  // One request set at a time: a slow node delays the next poll rather than piling them up.
  setInterval(() => { poll(); pollLogs(); }, POLL_MS);
}

start();
