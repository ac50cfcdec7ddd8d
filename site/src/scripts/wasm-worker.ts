// DuckDB's worker, started first thing so that the wasm compiles while it downloads and while the rest
// of the page loads.
//
// The wasm is served gzip-compressed (<wasm>.gz, 8 MB instead of 34) because many static hosts do not
// compress .wasm. Left alone, DuckDB's worker would fetch and compile its module only once the page's
// script had loaded DuckDB's API, the worker had loaded its own 0.8 MB script and the INSTANTIATE
// message had gone round. Instead a small inline script in the page's head (earlyStartScript, run as
// the head is parsed, before any other script) picks the bundle (eh where the browser has wasm
// exceptions, else mvp; DuckDB's own test), starts the worker through a wrapper (WRAPPER), fetches
// <wasm>.gz (the request the head preloads), inflates it as a stream and compiles it with
// WebAssembly.compileStreaming on the page's thread as the bytes arrive, while the worker's thread
// loads DuckDB's worker script; the compiled module is posted to the worker, whose wrapper answers
// DuckDB's fetch of the module URL and instantiates that module. Where the .gz cannot be had or
// compiled here, the worker fetches and compiles the plain .wasm itself. The head script also starts
// the data's download: results-latest.arrow.gz (the rows the default preset reads), or, when the URL
// has a query of its own, results.arrow.gz.
// Each step's time is marked on the page's timeline ("samebox:<step>"; the worker posts its own back
// on a MessageChannel): worker-created, wasm-response, wasm-compiled, worker-start,
// worker-script-loaded, wasm-requested, wasm-instance (site/test/measure.ts reports them).

const MESSAGE = "samebox-wasm";

/**
 * The wrapper: hands DuckDB's worker the module the page compiled, then loads that worker. Its two URLs
 * (absolute) come in the worker's name.
 */
const WRAPPER = `"use strict";
const { module: MODULE, worker: WORKER } = JSON.parse(self.name);
const WA = self.WebAssembly;
// Phase times (epoch ms) posted back on the port the page sends: the page marks them on its own timeline.
let port;
const early = [];
const phase = (name) => { const t = performance.timeOrigin + performance.now(); if (port) port.postMessage([name, t]); else early.push([name, t]); };
let compiled = null;
let give;
const received = new Promise((resolve) => { give = resolve; });
self.addEventListener("message", (e) => {
  if (!(e.data && e.data.type === ${JSON.stringify(MESSAGE)})) return;
  e.stopImmediatePropagation();
  port = e.data.port;
  for (const p of early.splice(0)) port.postMessage(p);
  compiled = e.data.module;
  give();
});
const realFetch = self.fetch.bind(self);
let moduleRequested = false;
self.fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input.url;
  if (url === MODULE) {
    phase("wasm-requested");
    await received;
    // DuckDB reads nothing of this response but its headers: instantiateStreaming below uses the page's module.
    if (compiled) { moduleRequested = true; return new Response(null, { headers: { "content-type": "application/wasm" } }); }
  }
  return realFetch(input, init);
};
WA.instantiateStreaming = async (source, imports) => {
  // DuckDB passes a promise of the response: once it has settled, the fetch above has run.
  source = await source;
  let module = compiled;
  if (!moduleRequested) {
    module = await WA.compileStreaming(source);
    phase("wasm-compiled");
  }
  const instance = await WA.instantiate(module, imports);
  phase("wasm-instance");
  return { module, instance };
};
phase("worker-start");
importScripts(WORKER);
phase("worker-script-loaded");
`;

export interface Bundle {
  mainModule: string;
  mainWorker: string;
}

/**
 * The head's inline script (plain JS, runs before any other script): picks the bundle, starts DuckDB's
 * worker with the wasm streaming into its compile, and leaves { worker, mainModule } in
 * globalThis.__sameboxDuckdb for the page's script. URLs are relative to the page.
 */
export function earlyStartScript(bundles: { eh: Bundle; mvp: Bundle }, data: { latest: string; all: string }): string {
  return `(() => {
  const abs = (u) => new URL(u, location.href).href;
  // The data, downloading while the wasm does: the rows the default preset reads (explore.ts) first,
  // unless the URL brings a query of its own, which gets every record at once.
  const q = new URLSearchParams(location.search).get("q");
  const latest = q ? null : fetch(abs(${JSON.stringify(data.latest)}));
  const all = q ? fetch(abs(${JSON.stringify(data.all)})) : null;
  for (const r of [latest, all]) if (r) r.catch(() => undefined);
  // DuckDB's own test for wasm exceptions (selectBundle): eh where they work, else mvp.
  let eh = false;
  try { eh = WebAssembly.validate(new Uint8Array([0,97,115,109,1,0,0,0,1,4,1,96,0,0,3,2,1,0,10,8,1,6,0,6,64,25,11,11])); } catch {}
  const b = eh ? ${JSON.stringify(bundles.eh)} : ${JSON.stringify(bundles.mvp)};
  const mainModule = abs(b.mainModule), mainWorker = abs(b.mainWorker);
  const wrapper = URL.createObjectURL(new Blob([${JSON.stringify(WRAPPER)}], { type: "text/javascript" }));
  const worker = new Worker(wrapper, { name: JSON.stringify({ module: mainModule, worker: mainWorker }) });
  performance.mark("samebox:worker-created");
  const phases = new MessageChannel();
  phases.port1.onmessage = (e) => performance.mark("samebox:" + e.data[0], { startTime: e.data[1] - performance.timeOrigin });
  const send = (module) => worker.postMessage({ type: ${JSON.stringify(MESSAGE)}, module, port: phases.port2 }, [phases.port2]);
  // Compiled here, on the page's thread, as the bytes arrive, while the worker's thread loads DuckDB's worker script.
  (typeof DecompressionStream === "undefined" ? Promise.reject(new Error("no DecompressionStream")) : fetch(mainModule + ".gz"))
    .then((r) => {
      if (!r.ok || !r.body) throw new Error("HTTP " + r.status);
      performance.mark("samebox:wasm-response");
      // sirv (astro preview) sends a .gz with Content-Encoding: gzip, already inflated by the browser; most hosts send it as it is.
      const body = /gzip/i.test(r.headers.get("content-encoding") || "") ? r.body : r.body.pipeThrough(new DecompressionStream("gzip"));
      return WebAssembly.compileStreaming(new Response(body, { headers: { "content-type": "application/wasm" } }));
    })
    .then((module) => {
      performance.mark("samebox:wasm-compiled");
      send(module);
    })
    .catch((e) => {
      console.warn("samebox: " + mainModule + ".gz could not be compiled here (" + e.message + "); DuckDB's worker fetches the .wasm");
      send(null);
    });
  globalThis.__sameboxDuckdb = { worker, mainModule, latest, all };
})();`;
}
