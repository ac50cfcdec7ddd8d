// URL state of the Explore page: parameters set without a navigation, list parameters read back.

/** Sets (or, with null, removes) URL parameters without a navigation; other parameters are kept. */
export function setParams(params: Record<string, string | null>) {
  const u = new URL(location.href);
  for (const [k, v] of Object.entries(params)) {
    if (v === null) u.searchParams.delete(k);
    else u.searchParams.set(k, v);
  }
  history.replaceState(null, "", u);
}

/** A comma-separated URL parameter as a list, or undefined when the URL does not set it. */
export function csvParam(name: string): string[] | undefined {
  const v = new URL(location.href).searchParams.get(name);
  return v === null ? undefined : v.split(",").filter(Boolean);
}
