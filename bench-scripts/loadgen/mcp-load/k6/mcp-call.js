// k6 driver for the same workload as `mcp-load --workload call`: every VU opens
// one MCP session (initialize + notifications/initialized, once per VU) and then
// sends tools/call in a closed loop over Streamable HTTP. Used by ../calibrate to
// compare k6's ceiling with mcp-load's against mcp-trivial.
//
// Environment: SERVER_URL (http://127.0.0.1:PORT/mcp), VUS (default 1),
// DURATION (measured seconds, default 10), WARMUP (seconds, default 0),
// TOOL (default echo), ARGS (JSON object, default {"text":"hello"}),
// PROTOCOL (2025-03-26 | 2025-06-18 | 2026-07-28, default 2025-06-18).
//
// Output (handleSummary): one JSON document on stdout with the measured-scenario
// figures: calls, errors, throughput_per_s, latency_ms{p50,p90,p95,p99,p999,max,mean}.
import http from 'k6/http';
import { Counter, Trend } from 'k6/metrics';

const URL = __ENV.SERVER_URL;
if (!URL) throw new Error('SERVER_URL is required, e.g. http://127.0.0.1:8765/mcp');
const VUS = parseInt(__ENV.VUS || '1', 10);
const DURATION = parseFloat(__ENV.DURATION || '10');
const WARMUP = parseFloat(__ENV.WARMUP || '0');
const TOOL = __ENV.TOOL || 'echo';
const ARGS = JSON.parse(__ENV.ARGS || '{"text":"hello"}');
const PROTOCOL = __ENV.PROTOCOL || '2025-06-18';
const PROTOCOLS = ['2025-03-26', '2025-06-18', '2026-07-28'];
if (!PROTOCOLS.includes(PROTOCOL)) throw new Error(`PROTOCOL ${PROTOCOL}: valid: ${PROTOCOLS.join(', ')}`);
const STATELESS = PROTOCOL >= '2026-07-28';

const callMs = new Trend('mcp_call_ms', true);
const calls = new Counter('mcp_calls');
const errors = new Counter('mcp_errors');

const scenarios = {
  measure: {
    executor: 'constant-vus', vus: VUS, duration: `${DURATION}s`, startTime: `${WARMUP}s`,
    gracefulStop: '5s',
  },
};
if (WARMUP > 0) {
  scenarios.warmup = { executor: 'constant-vus', vus: VUS, duration: `${WARMUP}s`, gracefulStop: '0s' };
}

export const options = {
  scenarios,
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)'],
  // Thresholds that always pass make k6 keep per-scenario sub-metrics, so
  // the summary can exclude the warm-up.
  thresholds: {
    'mcp_call_ms{scenario:measure}': ['max>=0'],
    'mcp_calls{scenario:measure}': ['count>=0'],
    'mcp_errors{scenario:measure}': ['count>=0'],
  },
  discardResponseBodies: false,
  noCookiesReset: true,
};

// Per-VU state: module scope is instantiated once per VU.
let sessionId = null;
let negotiated = null;
let nextId = 0;

function headers(method, name) {
  const h = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  if (STATELESS) {
    h['MCP-Protocol-Version'] = PROTOCOL;
    h['Mcp-Method'] = method;
    if (name) h['Mcp-Name'] = name;
  } else {
    if (sessionId) h['Mcp-Session-Id'] = sessionId;
    if (negotiated && negotiated >= '2025-06-18') h['MCP-Protocol-Version'] = negotiated;
  }
  return h;
}

// The JSON-RPC response with the given id, from a JSON or SSE body.
function responseFor(res, id) {
  const ctype = (res.headers['Content-Type'] || '').split(';')[0].trim();
  if (ctype === 'application/json') {
    const m = JSON.parse(res.body);
    return m.id === id ? m : null;
  }
  if (ctype === 'text/event-stream') {
    for (const event of res.body.split(/\r?\n\r?\n/)) {
      const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).replace(/^ /, '')).join('\n');
      if (!data) continue;
      const m = JSON.parse(data);
      if (m.id === id && !m.method) return m;
    }
  }
  return null;
}

function rpc(method, params, name) {
  nextId += 1;
  const id = nextId;
  if (STATELESS) {
    params = Object.assign({}, params, {
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL,
        'io.modelcontextprotocol/clientInfo': { name: 'k6-mcp-call', version: '0.1.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    });
  }
  const res = http.post(URL, JSON.stringify({ jsonrpc: '2.0', id, method, params }), {
    headers: headers(method, name), tags: { name: method },
  });
  return { res, msg: res.status >= 200 && res.status < 300 ? responseFor(res, id) : null };
}

function initialize() {
  const { res, msg } = rpc('initialize', {
    protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'k6-mcp-call', version: '0.1.0' },
  });
  if (!msg || !msg.result) throw new Error(`initialize failed: HTTP ${res.status} ${res.body}`);
  negotiated = msg.result.protocolVersion;
  sessionId = res.headers['Mcp-Session-Id'] || null;
  const n = http.post(URL, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), {
    headers: headers('notifications/initialized'), tags: { name: 'notifications/initialized' },
  });
  if (n.status !== 202 && n.status !== 200 && n.status !== 204) throw new Error(`notifications/initialized: HTTP ${n.status}`);
}

export default function () {
  if (!STATELESS && sessionId === null && negotiated === null) {
    initialize(); // once per VU; the session then persists across iterations
    return;
  }
  const { res, msg } = rpc('tools/call', { name: TOOL, arguments: ARGS }, TOOL);
  calls.add(1);
  callMs.add(res.timings.duration);
  if (!msg || msg.error || (msg.result && msg.result.isError)) {
    errors.add(1);
    if (res.status === 404 && sessionId) { sessionId = null; negotiated = null; } // session lost: re-initialize
  }
}

function num(v) { return typeof v === 'number' ? Math.round(v * 10000) / 10000 : null; }

export function handleSummary(data) {
  const m = (k) => (data.metrics[k] ? data.metrics[k].values : {});
  const lat = m('mcp_call_ms{scenario:measure}');
  const n = m('mcp_calls{scenario:measure}').count || 0;
  const e = m('mcp_errors{scenario:measure}').count || 0;
  const out = {
    tool: 'k6', protocol: PROTOCOL, mode: 'closed', concurrency: VUS, duration_s: DURATION, warmup_s: WARMUP,
    tool_name: TOOL,
    calls: n, ok: n - e, errors: { total: e },
    calls_all_scenarios: m('mcp_calls').count || 0,
    throughput_per_s: num((n - e) / DURATION),
    latency_ms: {
      p50: num(lat.med), p90: num(lat['p(90)']), p95: num(lat['p(95)']), p99: num(lat['p(99)']),
      p999: num(lat['p(99.9)']), max: num(lat.max), mean: num(lat.avg),
    },
    latency_note: 'k6 http_req timings (sending+waiting+receiving) of tools/call; excludes JS time',
  };
  return { stdout: JSON.stringify(out, null, 2) + '\n' };
}
