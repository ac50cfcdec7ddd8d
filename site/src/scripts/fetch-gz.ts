// A .gz file from this site, inflated as a stream. Many static hosts send a .gz as it is (then it is
// inflated here with DecompressionStream); some (sirv, behind astro preview) send it with
// Content-Encoding: gzip, and the browser has already inflated it.
export function inflated(r: Response, href: string): ReadableStream<Uint8Array> {
  if (!r.ok || !r.body) throw new Error(`could not load ${href}: HTTP ${r.status}`);
  if (/gzip/i.test(r.headers.get("content-encoding") ?? "")) return r.body;
  return r.body.pipeThrough(new DecompressionStream("gzip"));
}
