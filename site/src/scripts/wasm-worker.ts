// DuckDB's worker, started so that the wasm compiles while it downloads.
//
// The wasm is served gzip-compressed (<wasm>.gz, 8 MB instead of 39) because many static hosts do not
// compress .wasm. DuckDB's worker fetches its module URL and compiles it with
// WebAssembly.instantiateStreaming, so handing it a blob of the inflated file (download, inflate,
// then compile) puts the compile after the whole download. Instead, this page fetches <wasm>.gz
// (the request the page's head preloads), inflates it as a stream and transfers that stream to the
// worker; a small wrapper script answers the worker's fetch of the module URL with it, so
// instantiateStreaming compiles chunk by chunk as they arrive. Where a stream cannot be transferred
// the inflated file is sent whole; where the .gz cannot be had the worker fetches the plain .wasm.

import { fetchInflated } from "./fetch-gz.ts";

const MESSAGE = "samebox-wasm";

/** The wrapper: serves the module URL from the page's stream (or blob), then loads DuckDB's worker. */
function wrapperSource(moduleUrl: string, workerUrl: string): string {
  return `"use strict";
const MODULE = ${JSON.stringify(moduleUrl)};
let give;
const body = new Promise((resolve) => { give = resolve; });
self.addEventListener("message", (e) => {
  if (e.data && e.data.type === ${JSON.stringify(MESSAGE)}) { e.stopImmediatePropagation(); give(e.data.body); }
});
const realFetch = self.fetch.bind(self);
self.fetch = async (input, init) => {
  const url = typeof input === "string" ? input : input.url;
  if (url === MODULE) {
    const b = await body;
    if (b) return new Response(b, { headers: { "content-type": "application/wasm" } });
  }
  return realFetch(input, init);
};
importScripts(${JSON.stringify(workerUrl)});
`;
}

/** The inflated wasm as a stream, or null when the .gz cannot be had (the worker then fetches the plain file). */
async function inflatedWasm(moduleUrl: string): Promise<ReadableStream<Uint8Array> | null> {
  if (typeof DecompressionStream === "undefined") return null;
  return fetchInflated(`${moduleUrl}.gz`).catch(() => null);
}

/** A worker running DuckDB's worker script whose module fetch is fed, as it downloads, by this page. */
export function streamingWorker(workerUrl: string, moduleUrl: string): Worker {
  const blob = new Blob([wrapperSource(moduleUrl, workerUrl)], { type: "text/javascript" });
  const worker = new Worker(URL.createObjectURL(blob));
  void inflatedWasm(moduleUrl).then(async (stream) => {
    performance.mark("samebox:wasm-response");
    if (!stream) return worker.postMessage({ type: MESSAGE, body: null });
    try {
      worker.postMessage({ type: MESSAGE, body: stream }, [stream as unknown as Transferable]);
    } catch {
      // No transferable streams here: send the whole file (still one download, compiled after it).
      worker.postMessage({ type: MESSAGE, body: await new Response(stream).blob() });
    }
  });
  return worker;
}
