// k6 script equivalent to seed 003's benchmark.js, written for samebox (no imports from the
// network: only k6's built-in modules; args and checks come from ../tools.json, the study's one
// place for them). Per VU iteration, as the seed: for each tool in order search_products ->
// get_user_cart -> checkout a FRESH MCP session (initialize 2024-11-05, notifications/initialized,
// tools/call, DELETE when the server gave a session id), then a fourth session doing tools/list,
// then THINK_S of think time. User = user-<VU % 1000, 5 digits> as the seed.
//
// Environment: SERVER_URL (required, loopback), VUS (50), RAMP_UP_S (15), HOLD_S (300),
// RAMP_DOWN_S (10), WARMUP_S (60: from the start, ramp included, as the seed), THINK_S (0.05),
// PROTOCOL (2024-11-05).
//
// Two ways of counting, both reported (handleSummary prints one JSON document on stdout):
//   seed_way: every initialize/tools/call/tools/list request (the seed's mcp_requests) over the
//             whole run, ramps and warm-up included; latency after warm-up incl. ramp-down.
//   steady:   only what completed in [WARMUP_S, RAMP_UP_S + HOLD_S] (warm-up and ramp-down
//             excluded): tool calls/s, requests/s, per-tool latency percentiles over all samples
//             of the window, errors by class (http, jsonrpc, is_error, failed_check, timeout,
//             transport, protocol). A tool call counts ok only when its result passes the checks.
import http from 'k6/http';
import { sleep } from 'k6';
import exec from 'k6/execution';
import { Counter, Trend } from 'k6/metrics';

const URL = __ENV.SERVER_URL;
if (!URL) throw new Error('SERVER_URL is required, e.g. http://127.0.0.1:18181/mcp');
const num = (name, def) => {
  const v = __ENV[name] === undefined || __ENV[name] === '' ? def : Number(__ENV[name]);
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name}=${__ENV[name]} is not valid (valid: a number >= 0)`);
  return v;
};
const VUS = num('VUS', 50);
const RAMP_UP_S = num('RAMP_UP_S', 15);
const HOLD_S = num('HOLD_S', 300);
const RAMP_DOWN_S = num('RAMP_DOWN_S', 10);
const WARMUP_S = num('WARMUP_S', 60);
const THINK_S = num('THINK_S', 0.05);
const PROTOCOL = __ENV.PROTOCOL || '2024-11-05';
const STEADY_END_S = RAMP_UP_S + HOLD_S;
if (WARMUP_S >= STEADY_END_S) throw new Error(`WARMUP_S=${WARMUP_S} must be below RAMP_UP_S + HOLD_S = ${STEADY_END_S}`);

const SPEC = JSON.parse(open('../tools.json'));
const TOOLS = SPEC.tools.map((t) => t.name);

export const options = {
  stages: [
    { duration: `${RAMP_UP_S}s`, target: VUS },
    { duration: `${HOLD_S}s`, target: VUS },
    { duration: `${RAMP_DOWN_S}s`, target: 0 },
  ],
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)', 'count'],
  discardResponseBodies: false,
  noCookiesReset: true,
};

const mcpRequests = new Counter('mcp_requests'); // seed way: all, never gated
const steadyRequests = new Counter('steady_mcp_requests');
const steadyIterations = new Counter('steady_iterations');
const seedToolMs = new Trend('seed_tool_ms', true); // the seed's: after warm-up, ramp-down included
const toolMs = {};
const toolOk = {};
const toolErr = {};
const CLASSES = ['http', 'jsonrpc', 'is_error', 'failed_check', 'timeout', 'transport', 'protocol'];
for (const t of TOOLS) {
  toolMs[t] = new Trend(`tool_ms_${t}`, true);
  toolOk[t] = new Counter(`tool_ok_${t}`);
  toolErr[t] = {};
  for (const c of CLASSES) toolErr[t][c] = new Counter(`tool_err_${t}_${c}`);
}
const allToolMs = new Trend('tool_ms_all', true); // every tool's samples in one distribution
const listMs = new Trend('tools_list_ms', true);
const initMs = new Trend('initialize_ms', true);

export function setup() {
  const startMs = Date.now();
  // The harness reads this line (stderr) to align its CPU/memory window with ours.
  console.error(`SAMEBOX_K6_START_MS=${startMs}`);
  return { startMs };
}

const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };

class McpFailure {
  constructor(cls, detail) { this.cls = cls; this.detail = detail; }
}

function transportClass(res) {
  // k6 error codes 1050 (request timeout) and 1000-1999 generic/dial errors.
  return res.error_code === 1050 ? 'timeout' : 'transport';
}

// The JSON-RPC response with id `id` from a JSON or SSE body, or an McpFailure.
function rpc(res, id) {
  if (res.status === 0) return new McpFailure(transportClass(res), res.error);
  const ctype = ((res.headers['Content-Type'] || '').split(';')[0] || '').trim();
  let msg = null;
  try {
    if (ctype === 'text/event-stream') {
      for (const event of String(res.body).split(/\r?\n\r?\n/)) {
        const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
        if (!data) continue;
        const m = JSON.parse(data);
        if (m && m.id === id) { msg = m; break; }
      }
    } else if (res.body) {
      msg = JSON.parse(res.body);
    }
  } catch (e) {
    return new McpFailure(res.status >= 400 ? 'http' : 'protocol', `body not JSON-RPC: ${e}`);
  }
  if (msg && msg.error) return new McpFailure('jsonrpc', JSON.stringify(msg.error));
  if (res.status >= 400) return new McpFailure('http', `HTTP ${res.status}`);
  if (!msg || msg.id !== id || msg.result === undefined) return new McpFailure('protocol', 'no JSON-RPC result for the request');
  return msg.result;
}

function post(body, sessionId, timeout, tags) {
  const headers = sessionId ? Object.assign({ 'Mcp-Session-Id': sessionId }, HEADERS) : HEADERS;
  return http.post(URL, JSON.stringify(body), { headers, timeout, tags });
}

// One session: initialize, initialized, one request, DELETE. Returns {result|failure, ms}.
function session(method, params, inWindow, afterWarmup) {
  const init = post({ jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'k6-bench', version: '1.0' } } }, null, '30s', { step: 'initialize' });
  mcpRequests.add(1);
  if (inWindow) steadyRequests.add(1);
  const initRes = rpc(init, 1);
  if (initRes instanceof McpFailure) return { failure: initRes };
  if (afterWarmup) initMs.add(init.timings.duration);
  const sid = init.headers['Mcp-Session-Id'] || null;
  post({ jsonrpc: '2.0', method: 'notifications/initialized' }, sid, '5s', { step: 'initialized' });
  const res = post({ jsonrpc: '2.0', id: 2, method, params }, sid, '30s', { step: method });
  mcpRequests.add(1);
  if (inWindow) steadyRequests.add(1);
  const out = rpc(res, 2);
  if (sid) http.del(URL, null, { headers: { 'Mcp-Session-Id': sid }, timeout: '2s', tags: { step: 'delete' } });
  return out instanceof McpFailure ? { failure: out } : { result: out, ms: res.timings.duration };
}

function getPath(doc, path) {
  let v = doc;
  for (const p of path.split('.')) {
    if (v === null || typeof v !== 'object' || !(p in v)) return undefined;
    v = v[p];
  }
  return v;
}

function deepEqual(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

// Same operators as mcp-load's toolmix and the conformance checker.
function checkResult(tool, result) {
  if (result.isError === true) return new McpFailure('is_error', JSON.stringify(result.content).slice(0, 200));
  const c = result.content;
  if (!Array.isArray(c) || c.length !== 1 || c[0].type !== 'text') return new McpFailure('failed_check', 'want one text content item');
  let doc;
  try { doc = JSON.parse(c[0].text); } catch (e) { return new McpFailure('failed_check', 'text content is not JSON'); }
  for (const ck of tool.checks || []) {
    const v = getPath(doc, ck.path);
    let ok = v !== undefined;
    if (ok && 'eq' in ck) ok = deepEqual(v, ck.eq);
    else if (ok && 'len' in ck) ok = Array.isArray(v) && v.length === ck.len;
    else if (ok && 'min_len' in ck) ok = Array.isArray(v) && v.length >= ck.min_len;
    else if (ok && 'gt' in ck) ok = typeof v === 'number' && v > ck.gt;
    else if (ok && ck.nonempty) ok = v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);
    if (!ok) return new McpFailure('failed_check', `${ck.path} = ${JSON.stringify(v)}`);
  }
  return null;
}

function render(x, user) {
  if (typeof x === 'string') return x.replace('{{u}}', user);
  if (Array.isArray(x)) return x.map((i) => render(i, user));
  if (x && typeof x === 'object') {
    const o = {};
    for (const [k, v] of Object.entries(x)) o[k] = render(v, user);
    return o;
  }
  return x;
}

function argsFor(tool, user) {
  return tool.args && tool.args.template ? render(tool.args.template, user) : tool.args;
}

export default function (data) {
  const user = String(exec.vu.idInTest % 1000).padStart(5, '0');
  for (const tool of SPEC.tools) {
    const t = (Date.now() - data.startMs) / 1000;
    const inWindow = t >= WARMUP_S && t < STEADY_END_S;
    const out = session('tools/call', { name: tool.name, arguments: argsFor(tool, user) }, inWindow, t >= WARMUP_S);
    const fail = out.failure || checkResult(tool, out.result);
    // A call counts in the window it started in (its latency is far below a second).
    if (t >= WARMUP_S && !fail) seedToolMs.add(out.ms);
    if (!inWindow) continue;
    if (fail) toolErr[tool.name][fail.cls].add(1);
    else { toolOk[tool.name].add(1); toolMs[tool.name].add(out.ms); allToolMs.add(out.ms); }
  }
  const t = (Date.now() - data.startMs) / 1000;
  const inWindow = t >= WARMUP_S && t < STEADY_END_S;
  const list = session('tools/list', {}, inWindow, t >= WARMUP_S);
  if (!list.failure && t >= WARMUP_S) listMs.add(list.ms);
  if (inWindow) steadyIterations.add(1);
  sleep(THINK_S);
}

function trend(metric) {
  if (!metric || !metric.values || !metric.values.count) return null;
  const v = metric.values;
  return { p50: v.med, p90: v['p(90)'], p95: v['p(95)'], p99: v['p(99)'], p999: v['p(99.9)'], max: v.max, mean: v.avg, min: v.min, count: v.count };
}

const count = (data, name) => (data.metrics[name] ? data.metrics[name].values.count : 0);

export function handleSummary(data) {
  const runS = data.state.testRunDurationMs / 1000;
  const windowS = STEADY_END_S - WARMUP_S;
  const tools = [];
  const errorsByClass = {};
  let ok = 0;
  let errs = 0;
  for (const name of TOOLS) {
    const byClass = {};
    let total = 0;
    for (const c of CLASSES) {
      const n = count(data, `tool_err_${name}_${c}`);
      if (n) { byClass[c] = n; errorsByClass[c] = (errorsByClass[c] || 0) + n; total += n; }
    }
    const nOk = count(data, `tool_ok_${name}`);
    ok += nOk;
    errs += total;
    tools.push({ name, calls: nOk + total, ok: nOk, errors: { total, by_class: byClass },
      throughput_per_s: nOk / windowS, latency_ms: trend(data.metrics[`tool_ms_${name}`]) });
  }
  const seedReq = count(data, 'mcp_requests');
  const report = {
    tool: 'k6-seed003',
    k6_version: data.k6 ? data.k6.version : undefined,
    protocol: PROTOCOL,
    vus: VUS, ramp_up_s: RAMP_UP_S, hold_s: HOLD_S, ramp_down_s: RAMP_DOWN_S, warmup_s: WARMUP_S, think_s: THINK_S,
    window_s: windowS,
    calls: ok + errs, ok, errors: { total: errs, by_class: errorsByClass },
    throughput_per_s: ok / windowS,
    latency_ms: trend(data.metrics.tool_ms_all),
    requests_per_s: count(data, 'steady_mcp_requests') / windowS,
    iterations: count(data, 'steady_iterations'),
    tools,
    initialize_ms: trend(data.metrics.initialize_ms),
    tools_list_ms: trend(data.metrics.tools_list_ms),
    http_requests: count(data, 'http_reqs'),
    seed_way: {
      mcp_requests: seedReq, run_s: runS, rps: seedReq / runS,
      latency_ms: trend(data.metrics.seed_tool_ms),
    },
  };
  return { stdout: JSON.stringify(report, null, 1) + '\n' };
}
