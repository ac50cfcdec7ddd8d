# shellcheck shell=bash disable=SC2034  # variables here are used by the verbs that source this
# Python MCP server (sourced, not a verb): main.py (FastMCP) under uvicorn, venv + a copy of main.py
# under $MCP_OPT. Workers and event loop as the seed: uvicorn --workers 4 --loop uvloop.
# shellcheck source=../../lib/mcp-server.sh
. "$(dirname "$0")/../../lib/mcp-server.sh"

PY_VENV="$MCP_OPT/venv"
PY_APP="$MCP_OPT/app"
PY_WORKERS="${UVICORN_WORKERS:-4}"
require_uint UVICORN_WORKERS "$PY_WORKERS" 1

py_require_installed() {
  [[ -x "$PY_VENV/bin/uvicorn" && -f "$PY_APP/main.py" ]] \
    || not_available "mcp-python is not installed ($PY_VENV or $PY_APP/main.py missing): run systems/mcp-python/install"
}

# py_pkg_version NAME: the installed version of a package in the venv.
py_pkg_version() { "$PY_VENV/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$1"; }
