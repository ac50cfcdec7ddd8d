// Shared by the conformance tests (mcp-conformance*.test.ts): where the suite and its wrapper are, and
// stub MCP servers started in the test's own process on loopback.
import { execFile, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { promisify } from "node:util";
import { fixtures, repoRoot, tempDir } from "./helpers.ts";

export const raw = path.join(fixtures, "raw", "mcp-conformance");
export const script = path.join(repoRoot, "bench-scripts", "studies", "mcp-servers", "suite-conformance");
export const scenariosFile = path.join(
  repoRoot,
  "bench-scripts",
  "studies",
  "mcp-servers",
  "conformance-scenarios.json",
);
export const suiteBin = path.join(repoRoot, "node_modules", ".bin", "conformance");
export const node = path.join(repoRoot, "node_modules", ".bin", "node");
export const suiteMissing =
  existsSync(suiteBin) && existsSync(node) ? false : "the suite is not installed (npm ci installs it)";
export const pythonMissing = spawnSync("python3", ["--version"]).status === 0 ? false : "python3 is not available";
export const run = promisify(execFile);

// A server that answers every POST with a valid JSON-RPC result whatever its Host/Origin: it speaks
// the protocol but has no DNS-rebinding protection.
export function openServer(): http.Server {
  return http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.method !== "POST") return void res.writeHead(405).end();
      const msg = JSON.parse(body || "{}");
      if (msg.id === undefined) return void res.writeHead(202).end();
      const result =
        msg.method === "initialize"
          ? {
              protocolVersion: msg.params?.protocolVersion ?? "2025-11-25",
              capabilities: { tools: {} },
              serverInfo: { name: "stub", version: "0" },
            }
          : {};
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }));
    });
  });
}

export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
}

export async function conformance(url: string, only: string, timeoutS: number) {
  const r = await run(
    "python3",
    [script, "--url", url, "--out", tempDir("h22-conf-"), "--only", only, "--timeout-s", String(timeoutS)],
    { timeout: 120_000 },
  );
  return JSON.parse(r.stdout);
}

// A tools-only stub with one tool whose schema requires user_id (a string). VALIDATES = false: every
// tools/call gets a normal result (as Quarkus and Micronaut answered a schema-violating call); true:
// a wrong type or missing argument gets isError and an unknown tool a JSON-RPC error. It answers
// initialize with the client's revision when it knows it, else 2025-06-18.
export const goodSchema = { type: "object", properties: { user_id: { type: "string" } }, required: ["user_id"] };
export function toolServer(validates: boolean, inputSchema: object = goodSchema): http.Server {
  const known = ["2024-11-05", "2025-03-26", "2025-06-18"];
  return http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const msg = JSON.parse(body || "{}");
      if (msg.id === undefined) return void res.writeHead(202).end();
      const reply = (x: object) =>
        res
          .writeHead(200, { "content-type": "application/json" })
          .end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, ...x }));
      if (msg.method === "initialize") {
        const asked = msg.params?.protocolVersion;
        return reply({
          result: {
            protocolVersion: known.includes(asked) ? asked : "2025-06-18",
            capabilities: { tools: {} },
            serverInfo: { name: "stub", version: "0" },
          },
        });
      }
      if (msg.method === "tools/list") return reply({ result: { tools: [{ name: "get_user_cart", inputSchema }] } });
      const { name, arguments: args } = msg.params ?? {};
      if (validates && name !== "get_user_cart")
        return reply({ error: { code: -32602, message: `unknown tool ${name}` } });
      if (validates && typeof args?.user_id !== "string")
        return reply({ result: { isError: true, content: [{ type: "text", text: "user_id must be a string" }] } });
      return reply({ result: { content: [{ type: "text", text: '{"cart":[]}' }] } });
    });
  });
}

export async function withServer<T>(server: http.Server, f: (url: string) => Promise<T>): Promise<T> {
  try {
    return await f(await listen(server));
  } finally {
    server.closeAllConnections();
    server.close();
  }
}
