// Seed-003 MCP server on the official TypeScript SDK, run by two systems: mcp-nodejs (Node 24) and
// mcp-bun (Bun) — one source. As the seed: a cluster of WEB_CONCURRENCY workers (default 4), one
// ioredis connection per worker, global fetch for the api-service, and a new McpServer + stateless
// StreamableHTTPServerTransport per HTTP request (the SDK's stateless pattern). Unlike the seed, the
// transport answers application/json (enableJsonResponse) instead of SSE frames.
// Every tool result is one text item holding the JSON string; a failed I/O throws, and the SDK turns
// a throwing tool into an isError result naming the failure.
//
// Environment: MCP_PORT (default 18183), REDIS_URL, API_SERVICE_URL, SERVER_TYPE (nodejs|bun),
// WEB_CONCURRENCY (workers, default 4), MCP_JSON_RESPONSE (1 = JSON answers, 0 = SSE as the seed).
import cluster from 'node:cluster';
import express from 'express';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

const env = (key, fallback) => (process.env[key] ? process.env[key] : fallback);
const PORT = Number(env('MCP_PORT', '18183'));
const REDIS_URL = env('REDIS_URL', 'redis://127.0.0.1:16379');
const API_SERVICE_URL = env('API_SERVICE_URL', 'http://127.0.0.1:18100').replace(/\/+$/, '');
const SERVER_TYPE = env('SERVER_TYPE', 'nodejs');
const WORKERS = Number(env('WEB_CONCURRENCY', '4'));
const JSON_RESPONSE = env('MCP_JSON_RESPONSE', '1') !== '0';

function fail(message) {
  console.error(`mcp-${SERVER_TYPE}: ${message}`);
  process.exit(2);
}
if (!Number.isInteger(PORT) || PORT < 1 || PORT > 65535) fail(`MCP_PORT=${process.env.MCP_PORT} is not a port number 1-65535`);
if (!Number.isInteger(WORKERS) || WORKERS < 1 || WORKERS > 64) fail(`WEB_CONCURRENCY=${process.env.WEB_CONCURRENCY} is not a worker count 1-64`);

async function apiJson(path, init) {
  const what = `${init?.method ?? 'GET'} ${API_SERVICE_URL}${path}`;
  let res;
  try {
    res = await fetch(`${API_SERVICE_URL}${path}`, init);
  } catch (e) {
    // Node's fetch says only "fetch failed"; the reason is in e.cause.
    throw new Error(`${what}: ${e.cause?.code ?? e.cause?.message ?? e.message}`);
  }
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status}`);
  return res.json();
}

const textResult = (doc) => ({ content: [{ type: 'text', text: JSON.stringify(doc) }] });

function buildServer(redis) {
  const server = new McpServer({ name: `samebox-mcp-${SERVER_TYPE}`, version: '1.0.0' });

  server.registerTool(
    'search_products',
    {
      description: 'Search products by category and price range, merged with popularity data',
      // The seed's defaults when an argument is missing (its k6 script always sends all of them).
      inputSchema: {
        category: z.string().default('Electronics').describe('product category, e.g. Electronics'),
        min_price: z.number().default(50.0).describe('minimum price (inclusive)'),
        max_price: z.number().default(500.0).describe('maximum price (inclusive)'),
        limit: z.number().int().default(10).describe('maximum number of products to return'),
      },
    },
    async ({ category, min_price, max_price, limit }) => {
      const query = new URLSearchParams({ category, min_price: String(min_price), max_price: String(max_price), limit: String(limit) });
      const [found, popular] = await Promise.all([
        apiJson(`/products/search?${query}`),
        redis.zrevrange('bench:popular', 0, 9),
      ]);
      const top10 = popular.map((m) => Number.parseInt(m.slice(m.indexOf(':') + 1), 10));
      const rank = new Map(top10.map((id, i) => [id, i + 1]));
      if (!Array.isArray(found.products)) throw new Error('api-service search answer has no products array');
      const products = found.products.map((p) => ({
        id: p.id, sku: p.sku, name: p.name, price: p.price, rating: p.rating, popularity_rank: rank.get(p.id) ?? 0,
      }));
      return textResult({ category, total_found: found.total_found, products, top10_popular_ids: top10, server_type: SERVER_TYPE });
    },
  );

  server.registerTool(
    'get_user_cart',
    {
      description: 'Get user cart details with recent order history',
      inputSchema: { user_id: z.string().default('user-00042').describe('user id, e.g. user-00042') },
    },
    async ({ user_id }) => {
      // The cart comes first: its first product decides the product lookup.
      const cart = await redis.hgetall(`bench:cart:${user_id}`);
      const items = cart.items ? JSON.parse(cart.items) : [];
      const firstProduct = items[0]?.product_id ?? 1;
      // The product body is fetched for its I/O and discarded, as in the seed.
      const [, history] = await Promise.all([
        apiJson(`/products/${firstProduct}`),
        redis.lrange(`bench:history:${user_id}`, 0, 4),
      ]);
      const recent = history.map((e) => { try { return JSON.parse(e); } catch { return { raw: e }; } });
      return textResult({
        user_id,
        cart: { items, item_count: items.length, estimated_total: Number.parseFloat(cart.total ?? '0') },
        recent_history: recent,
        server_type: SERVER_TYPE,
      });
    },
  );

  server.registerTool(
    'checkout',
    {
      description: 'Process checkout: calculate total, update rate limit, record history',
      inputSchema: {
        user_id: z.string().default('user-00042').describe('user id, e.g. user-00042'),
        items: z.array(z.object({ product_id: z.number().int(), quantity: z.number().int() }))
          .min(1)
          .default([{ product_id: 42, quantity: 2 }, { product_id: 1337, quantity: 1 }])
          .describe('items to buy: product_id and quantity'),
      },
    },
    async ({ user_id, items }) => {
      const userNum = Number.parseInt(user_id.split('-').pop(), 10);
      const rateKey = `bench:ratelimit:user-${String((Number.isNaN(userNum) ? 42 : userNum) % 100).padStart(5, '0')}`;
      const now = Math.floor(Date.now() / 1000);
      const orderEntry = JSON.stringify({ order_id: `ORD-${user_id}-${now}`, items, ts: now });
      // The POST and three separate Redis writes in parallel (as the seed's Node server).
      const [calc, rateCount] = await Promise.all([
        apiJson('/cart/calculate', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ user_id, items }) }),
        redis.incr(rateKey),
        redis.rpush(`bench:history:${user_id}`, orderEntry),
        redis.zincrby('bench:popular', 1, `product:${items[0].product_id}`),
      ]);
      if (typeof calc.total !== 'number') throw new Error('api-service cart answer has no total');
      return textResult({
        order_id: calc.order_id, user_id, total: calc.total, items_count: items.length,
        rate_limit_count: rateCount, status: 'confirmed', server_type: SERVER_TYPE,
      });
    },
  );
  return server;
}

function startWorker() {
  const redis = new Redis(REDIS_URL, { enableReadyCheck: false, maxRetriesPerRequest: 3 });
  redis.on('error', (e) => console.error(`redis: ${e.message}`));
  const app = express();
  app.use(express.json({ limit: '1mb' }));
  app.post('/mcp', async (req, res) => {
    // Per request, as the seed: a fresh server + stateless transport (no shared session state).
    const server = buildServer(redis);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: JSON_RESPONSE });
    res.on('close', () => { transport.close(); server.close(); });
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    } catch (e) {
      console.error('MCP request failed:', e);
      if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: String(e?.message ?? e) }, id: null });
    }
  });
  const notAllowed = (_req, res) => res.status(405).set('Allow', 'POST').json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: stateless server, POST only' }, id: null });
  app.get('/mcp', notAllowed);
  app.delete('/mcp', notAllowed);
  app.get('/health', (_req, res) => res.json({ status: 'ok', server_type: SERVER_TYPE }));
  app.listen(PORT, '127.0.0.1', () => console.log(`mcp-${SERVER_TYPE} worker ${process.pid} listening on http://127.0.0.1:${PORT}/mcp`));
}

if (cluster.isPrimary && WORKERS > 1) {
  console.log(`mcp-${SERVER_TYPE} primary ${process.pid}: ${WORKERS} workers, json_response=${JSON_RESPONSE}, redis ${REDIS_URL}, api ${API_SERVICE_URL}`);
  for (let i = 0; i < WORKERS; i++) cluster.fork();
  // A worker that dies is replaced (as the seed), but a crash loop must not spin forever.
  let restarts = 0;
  let stopping = false;
  for (const sig of ['SIGTERM', 'SIGINT']) {
    process.on(sig, () => {
      stopping = true;
      for (const w of Object.values(cluster.workers)) w.kill('SIGTERM');
      setTimeout(() => process.exit(0), 200).unref();
    });
  }
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    console.error(`worker ${worker.process.pid} exited (code ${code}, signal ${signal})`);
    if (++restarts <= 20) cluster.fork();
    else fail('more than 20 worker restarts: giving up');
  });
} else {
  startWorker();
}
