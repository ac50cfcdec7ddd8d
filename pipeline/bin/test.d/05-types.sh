#!/usr/bin/env bash
# One set of types, checked: tsc --noEmit (pipeline/ and site/ with tsconfig.json; pipeline/ again with
# Node's module resolution, pipeline/tsconfig.json), astro check (the .astro files and everything they
# import), Biome lint and Biome's formatter (biome.json: 120 columns; .astro files left to astro check), the generated pipeline/schema/types.ts
# (the index) and pipeline/schema/types/*.ts (one module a schema) equal to a fresh generation from the
# schemas, and no exported type name declared in two files.
# Needs only `pipeline/bin/setup node` (every tool is a devDependency).
# Checks are functions run through t(), which shellcheck cannot follow.
# shellcheck disable=SC2317
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1
# shellcheck source=pipeline/bin/test-lib.sh
source pipeline/bin/test-lib.sh

bin=node_modules/.bin
node="$bin/node --disable-warning=ExperimentalWarning"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/samebox-types.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

t "tsc --noEmit: zero errors (tsconfig.json: pipeline/, site/src, site/test)" "$bin/tsc" --noEmit -p tsconfig.json --pretty false
t "tsc --noEmit: zero errors in pipeline/ with Node's module resolution (pipeline/tsconfig.json)" "$bin/tsc" --noEmit -p pipeline/tsconfig.json --pretty false

# Warnings fail too: astro check's unused-variable warnings stand in for Biome's, which cannot see the
# template part of an .astro file (biome.json turns those two rules off for .astro).
astro_check() {
  local out
  out=$($node "$bin/astro" check --minimumFailingSeverity warning 2>&1)
  local rc=$?
  printf '%s\n' "$out" | sed 's/\x1b\[[0-9;]*m//g' | grep -E ' - (error|warning) |^- [0-9]+ (error|warning)' | head -n 20
  return "$rc"
}
t "astro check: zero errors and zero warnings" astro_check

# One line a finding (file:line rule: message), so the failure shows which files and rules.
biome_lint() {
  local out rc
  out=$("$bin/biome" lint --error-on-warnings --max-diagnostics=none --reporter=github 2>&1)
  rc=$?
  printf '%s\n' "$out" | sed -nE 's#^::(error|warning|notice) title=([^,]*),file=([^,]*),line=([0-9]+)[^:]*::(.*)$#\1 \3:\4 \2: \5#p' | sed "s#$PWD/##" | head -n 30
  return "$rc"
}
t "biome lint: zero errors and zero warnings (biome.json)" biome_lint

# Formatted as Biome formats it (npm run format rewrites them): the names of the files that are not.
biome_format() {
  local out rc
  out=$("$bin/biome" format --max-diagnostics=none 2>&1)
  rc=$?
  printf '%s\n' "$out" | grep -E '^[^ ].*\.(ts|astro) format' | sed "s#$PWD/##" | head -n 30
  (( rc == 0 )) || echo "run: npm run format"
  return "$rc"
}
t "biome format: every file formatted (120 columns; npm run format)" biome_format

# The generated files: the index types.ts and its folder types/ (one module a schema, defs.ts for $defs).
fresh_types() {
  mkdir -p "$tmp/fresh"
  $node pipeline/schema/gen-types.ts "$tmp/fresh/types.ts" || return 1
  diff -u pipeline/schema/types.ts "$tmp/fresh/types.ts" | head -n 40
  diff -ru pipeline/schema/types "$tmp/fresh/types" | head -n 40
  cmp -s pipeline/schema/types.ts "$tmp/fresh/types.ts" && diff -rq pipeline/schema/types "$tmp/fresh/types" >/dev/null \
    || { echo "pipeline/schema/types.ts or types/ is stale: run npm run gen-types and commit them"; return 1; }
}
t "generated types: pipeline/schema/types.ts and types/*.ts equal a fresh generation from pipeline/schema/*.schema.json" fresh_types

# The stale-check must be able to fail: a schema with one more property generates a different module.
stale_detected() {
  mkdir -p "$tmp/schema" "$tmp/probe"
  cp pipeline/schema/*.schema.json pipeline/schema/gen-types.ts "$tmp/schema/"
  $node -e 'const f=process.argv[1];const s=JSON.parse(require("fs").readFileSync(f,"utf8"));s.properties.samebox_probe={type:"string"};require("fs").writeFileSync(f,JSON.stringify(s))' "$tmp/schema/record.schema.json"
  ln -s "$PWD/node_modules" "$tmp/node_modules"
  $node "$tmp/schema/gen-types.ts" "$tmp/probe/types.ts" || return 1
  grep -q 'samebox_probe?: string;' "$tmp/probe/types/record.ts" && ! diff -rq pipeline/schema/types "$tmp/probe/types" >/dev/null
}
t "generated types: a changed schema changes the generated module (the freshness check can fail)" stale_detected

# No type declared twice: an exported type or interface name (including the generated ones) appears in
# one file only. Props is every Astro component's own props type, local to its component.
duplicate_types() {
  local dups
  dups=$(git ls-files -co --exclude-standard -- 'pipeline/*.ts' 'site/src/*.ts' 'site/src/*.astro' 'site/test/*.ts' \
    | xargs grep -HoE '^[[:space:]]*export[[:space:]]+(interface|type)[[:space:]]+[A-Za-z_][A-Za-z0-9_]*' \
    | sed -E 's/:[[:space:]]*export[[:space:]]+(interface|type)[[:space:]]+/ /' | awk '$2 != "Props" {print $2, $1}' | sort -u \
    | awk '{n[$1]++; f[$1]=f[$1] " " $2} END {for (k in n) if (n[k] > 1) print k ":" f[k]}' | sort)
  [ -z "$dups" ] || { echo "exported type names declared in more than one file (import the one; derive from pipeline/schema/types.ts):"; echo "$dups"; return 1; }
}
t "no exported type name is declared in two files" duplicate_types

# No hand copy of a generated enum: a union of 3 or more string literals in our code that equals one in
# the generated types (pipeline/schema/types/*.ts; e.g. the cell statuses) must be written as the generated type (RunManifest["cells"][number]["status"]).
enum_copies() {
  local files
  mapfile -t files < <(git ls-files -co --exclude-standard -- 'pipeline/*.ts' 'site/src/*.ts' 'site/src/*.astro' 'site/test/*.ts' | grep -vxE 'pipeline/schema/types(\.ts|/.*\.ts)')
  # shellcheck disable=SC2016 # JavaScript, not shell: its ${...} are template literals
  $node --input-type=module -e '
    import { readdirSync, readFileSync } from "node:fs";
    const unionRe = /"[^"\n]*"(?:\s*\|\s*"[^"\n]*")+/g;
    const key = (m) => [...m.matchAll(/"([^"\n]*)"/g)].map((x) => x[1]).sort().join("|");
    const generatedText = readdirSync("pipeline/schema/types").filter((f) => f.endsWith(".ts")).map((f) => readFileSync(`pipeline/schema/types/${f}`, "utf8")).join("\n");
    const generated = new Set((generatedText.match(unionRe) ?? []).map(key).filter((k) => k.split("|").length >= 3));
    const found = [];
    for (const f of process.argv.slice(1)) {
      readFileSync(f, "utf8").split("\n").forEach((line, i) => {
        for (const m of line.match(unionRe) ?? []) if (generated.has(key(m))) found.push(`${f}:${i + 1}: ${m}`);
      });
    }
    if (found.length) { console.log(["hand copies of enums generated from the schemas:", ...found].join("\n")); process.exitCode = 1; }
  ' "${files[@]}"
}
t "no hand copy of an enum generated from the schemas" enum_copies

finish
