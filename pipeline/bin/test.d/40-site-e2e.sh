#!/usr/bin/env bash
# Site end-to-end suite. Builds the site twice under a non-root base path (/samebox/, as on GitHub
# Pages), serves each build with `astro preview` on 127.0.0.1 and drives it with Debian's Chromium
# (playwright-core), running the node:test files in site/test/:
#   1. fixture: synthetic site data from site/test/fixtures/make-site-data.ts (measured + published
#      rows, a failed cell, a skipped system, cell folders with what-ran files in fixture-runs/), so
#      every page feature is exercised;
#   2. real: whatever `samebox publish` makes of data/ (the site as it would be deployed).
# site/test/what-ran.test.ts compares every what-ran file (command.txt, sql/*.sql, args.json) of each
# study's featured run, read from its cell folder, with what the page shows, byte for byte.
# Prints "P passed, F failed" as its last line (sum of both phases).
set -uo pipefail
cd "$(dirname "$0")/../../.."

# pipeline/bin/test has already run `setup node`; run it here only when the suite is started alone.
if [ ! -x node_modules/.bin/node ] && ! bash pipeline/bin/setup node; then echo "site-e2e: setup node failed"; echo "0 passed, 1 failed"; exit 1; fi
if ! bash pipeline/bin/setup browser; then echo "site-e2e: setup browser failed"; echo "0 passed, 1 failed"; exit 1; fi
export ASTRO_TELEMETRY_DISABLED=1 SAMEBOX_BASE=/samebox/
NODE=$PWD/node_modules/.bin/node
work=$(mktemp -d "${TMPDIR:-/tmp}/samebox-site-e2e.XXXXXX")
trap 'rm -rf "$work"' EXIT
# shellcheck source=SCRIPTDIR/../test-lib.sh
. pipeline/bin/test-lib.sh

# Runs the test files against the build in $SAMEBOX_OUT_DIR and adds node:test's counts.
run_tests() {
  local label=$1 log="$work/$1.log"
  echo "--- site-e2e [$label]: node --test site/test/*.test.ts"
  timeout 900 "$NODE" --test --test-concurrency=1 --test-timeout=300000 site/test/*.test.ts 2>&1 | tee "$log"
  count_node "site-e2e [$label] node:test site/test/*.test.ts" "${PIPESTATUS[0]}" "$log"
}

build_site() {
  local label=$1
  echo "--- site-e2e [$label]: astro build (SAMEBOX_SITE_DIR=$SAMEBOX_SITE_DIR, base $SAMEBOX_BASE)"
  if ! timeout 600 "$NODE" node_modules/astro/bin/astro.mjs build > "$work/$label-build.log" 2>&1; then
    tail -40 "$work/$label-build.log"
    bad "site-e2e [$label]: astro build"
    return 1
  fi
  tail -3 "$work/$label-build.log"
}

# Phase 1: fixture data.
export SAMEBOX_SITE_DIR="$work/fixture-site" SAMEBOX_OUT_DIR="$work/fixture-dist"
if "$NODE" site/test/fixtures/make-site-data.ts "$SAMEBOX_SITE_DIR"; then
  build_site fixture && run_tests fixture
else
  bad "site-e2e [fixture]: generate fixture data"
fi

# Phase 2: the real published data (publish writes into a temporary site dir, not the work tree).
export SAMEBOX_SITE_DIR="$work/real-site" SAMEBOX_OUT_DIR="$work/real-dist"
mkdir -p "$SAMEBOX_SITE_DIR"
if "$NODE" --disable-warning=ExperimentalWarning pipeline/cli.ts publish > "$work/publish.log" 2>&1; then
  tail -2 "$work/publish.log"
  build_site real && run_tests real
else
  tail -20 "$work/publish.log"
  bad "site-e2e [real]: samebox publish"
fi

finish
