"""samebox's own MCP checks the official suite lacks, run by suite-conformance.

- invalid-arguments-rejected: for every tool the server lists, a call whose arguments violate the
  tool's input schema must come back as an error: one typed property given the wrong JSON type (a
  string property as a number, e.g. user_id 12345; any other type as a string), and, when the schema
  requires properties, all of them left out. An error is an isError result, a JSON-RPC error or an
  HTTP 4xx.
- unknown-tool-rejected: a call of a tool the server does not list must come back as an error.
- input-schema-valid: every listed tool's inputSchema is a JSON Schema of type "object" whose keywords
  have the forms JSON Schema 2020-12 (the dialect spec 2025-11-25 makes the default) gives them:
  type one of the seven type names (or an array of them), properties/$defs objects of schemas,
  required an array of unique strings, items/not/additionalProperties a schema, anyOf/oneOf/allOf
  non-empty arrays of schemas, recursively (stdlib only; the suite's json-schema-2020-12 scenario
  needs its own test tool, and its tools-list only checks that an inputSchema exists).
- negotiated protocol revision: initialize with each client revision the studies use (the k6 script's
  2024-11-05, mcp-load's 2025-06-18, the suite SDK's newest 2025-11-25, mcp-load's stateless
  2026-07-28) and keep the protocolVersion the server answers (a report field, not a pass/fail).

Every request is bounded (REQUEST_TIMEOUT_S); the client is the mcp-servers study's own checker
(conformance beside this file), stdlib only. Results have the suite scenarios' shape plus "own": true.
"""
import importlib.machinery
import importlib.util
import json
import os
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REQUEST_TIMEOUT_S = 10
SESSION_PROTOCOL = "2025-06-18"  # mcp-load's, the studies' load client
CLIENT_REVISIONS = [
    ("k6 script (seed 000)", "2024-11-05"),
    ("mcp-load", "2025-06-18"),
    ("suite SDK, newest", "2025-11-25"),
    ("mcp-load, stateless", "2026-07-28"),
]
OWN_CHECKS = ["invalid-arguments-rejected", "unknown-tool-rejected", "input-schema-valid"]
JSON_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
SCHEMA_KEYS = ("items", "not", "additionalProperties", "contains", "propertyNames", "if", "then", "else",
               "unevaluatedItems", "unevaluatedProperties")
SCHEMA_MAPS = ("properties", "$defs", "definitions", "patternProperties", "dependentSchemas")
SCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
UNKNOWN_TOOL = "samebox_no_such_tool"


def _checker():
    """The conformance checker beside this file (a script without .py), for its MCP client."""
    loader = importlib.machinery.SourceFileLoader("mcps_conformance", os.path.join(HERE, "conformance"))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    mod.TIMEOUT_S = REQUEST_TIMEOUT_S
    return mod


def _short(doc, n=160):
    return json.dumps(doc)[:n]


def rejection(chk, session, name, arguments):
    """(rejected, what came back) for one tools/call."""
    try:
        msg = session.request("tools/call", {"name": name, "arguments": arguments})
    except chk.McpError as e:
        text = str(e)
        return text.startswith("HTTP 4"), text[:200]
    if "error" in msg:
        return True, f"JSON-RPC error {_short(msg['error'])}"
    res = msg.get("result")
    if isinstance(res, dict) and res.get("isError") is True:
        return True, f"isError result {_short(res.get('content'), 120)}"
    return False, f"a normal result {_short(res, 120)}"


def wrong_type(prop):
    """A value of the wrong JSON type for a schema property."""
    return 12345 if prop.get("type") == "string" else "samebox-not-a-" + str(prop.get("type") or "value")


def placeholder(prop):
    """A value of the declared JSON type (for the other required properties of a wrong-type call)."""
    return {"string": "samebox", "number": 1, "integer": 1, "boolean": True, "array": [], "object": {}}.get(prop.get("type"), "samebox")


def violations(tool):
    """(label, arguments) pairs that violate TOOL's input schema: one property of a declared type given
    the wrong type (the first required one, else the first typed one; other required ones filled with
    values of their type), and, when the schema requires any, the required properties left out."""
    schema = tool.get("inputSchema") or {}
    props = schema.get("properties") or {}
    required = [r for r in (schema.get("required") or []) if r in props]
    typed = [n for n, p in props.items() if isinstance(p, dict) and isinstance(p.get("type"), str)]
    target = next((n for n in required if n in typed), typed[0] if typed else None)
    out = []
    if target:
        args = {n: placeholder(props[n]) for n in required if n != target}
        args[target] = wrong_type(props[target])
        out.append((f"{target} as {type(args[target]).__name__}", args))
    if required:
        out.append((f"no {', '.join(required)}", {}))
    return out


def _result(scenario, started, failures, calls, none_why=None):
    status = "pass" if calls and not failures else "fail"
    message = "; ".join(failures) if failures else (none_why or "")
    return {"scenario": scenario, "own": True, "status": status, "seconds": round(time.monotonic() - started, 3),
            "checks": len(calls), "failed": len(failures), "message": message, "calls": calls}


def check_invalid_arguments(chk, session, tools):
    started = time.monotonic()
    calls, failures = [], []
    for tool in tools:
        for label, args in violations(tool):
            rejected, got = rejection(chk, session, tool.get("name"), args)
            calls.append({"tool": tool.get("name"), "arguments": label, "rejected": rejected, "got": got})
            if not rejected:
                failures.append(f"{tool.get('name')} with {label}: {got}")
    return _result("invalid-arguments-rejected", started, failures, calls,
                   None if calls else "no listed tool declares a typed property to violate")


def check_unknown_tool(chk, session):
    started = time.monotonic()
    rejected, got = rejection(chk, session, UNKNOWN_TOOL, {})
    calls = [{"tool": UNKNOWN_TOOL, "rejected": rejected, "got": got}]
    return _result("unknown-tool-rejected", started, [] if rejected else [f"{UNKNOWN_TOOL}: {got}"], calls)


def schema_problems(schema, where, draft07=False, depth=0):
    """What is malformed in SCHEMA (a subschema at WHERE): [] when every keyword checked has its form."""
    if isinstance(schema, bool):
        return []
    if not isinstance(schema, dict):
        return [f"{where} is {type(schema).__name__}, not a schema (object or boolean)"]
    if depth > 32:
        return [f"{where}: nested deeper than 32"]
    out = []
    t = schema.get("type")
    if t is not None:
        names = t if isinstance(t, list) else [t]
        if not names or not all(isinstance(n, str) and n in JSON_TYPES for n in names) or len(set(map(str, names))) != len(names):
            out.append(f"{where}.type {json.dumps(t)[:60]} is not a JSON type name (valid: {', '.join(sorted(JSON_TYPES))}) or a unique array of them")
    if "$schema" in schema and not isinstance(schema["$schema"], str):
        out.append(f"{where}.$schema is not a string")
    req = schema.get("required")
    if req is not None and (not isinstance(req, list) or not all(isinstance(r, str) for r in req) or len(set(req)) != len(req)):
        out.append(f"{where}.required {json.dumps(req)[:60]} is not an array of unique strings")
    for k in SCHEMA_MAPS:
        if k in schema:
            if not isinstance(schema[k], dict):
                out.append(f"{where}.{k} is not an object")
            else:
                for n, sub in schema[k].items():
                    out += schema_problems(sub, f"{where}.{k}.{n}", draft07, depth + 1)
    for k in SCHEMA_KEYS:
        if k in schema:
            if k == "items" and draft07 and isinstance(schema[k], list):
                for i, sub in enumerate(schema[k]):
                    out += schema_problems(sub, f"{where}.items[{i}]", draft07, depth + 1)
            else:
                out += schema_problems(schema[k], f"{where}.{k}", draft07, depth + 1)
    for k in SCHEMA_LISTS:
        if k in schema:
            if not isinstance(schema[k], list) or not schema[k]:
                out.append(f"{where}.{k} is not a non-empty array of schemas")
            else:
                for i, sub in enumerate(schema[k]):
                    out += schema_problems(sub, f"{where}.{k}[{i}]", draft07, depth + 1)
    return out


def check_input_schemas(tools, revision):
    started = time.monotonic()
    calls, failures = [], []
    for tool in tools:
        schema = tool.get("inputSchema")
        problems = []
        if not isinstance(schema, dict):
            problems.append(f"inputSchema is {json.dumps(schema)[:60]}, not a JSON object")
        else:
            if schema.get("type") != "object":
                problems.append(f"inputSchema.type is {json.dumps(schema.get('type'))}, not \"object\" (MCP requires an object schema)")
            draft07 = "draft-07" in str(schema.get("$schema", "")) or "draft-04" in str(schema.get("$schema", ""))
            problems += schema_problems(schema, "inputSchema", draft07)
        calls.append({"tool": tool.get("name"), "dialect": (schema or {}).get("$schema", "2020-12 (default)") if isinstance(schema, dict) else None, "problems": problems[:5]})
        failures += [f"{tool.get('name')}: {p}" for p in problems[:3]]
    return _result("input-schema-valid", started, failures, calls,
                   None if calls else f"the server listed no tools (revision {revision})")


def run_own_checks(url, only):
    """The own checks named in ONLY (all when empty), as scenario results."""
    chk = _checker()
    wanted = [c for c in OWN_CHECKS if not only or c in only]
    if not wanted:
        return []
    session = chk.Session(url, SESSION_PROTOCOL)
    try:
        session.initialize()
        listed = session.request("tools/list", {})
        tools = (listed.get("result") or {}).get("tools") or []
    except chk.McpError as e:
        return [{"scenario": c, "own": True, "status": "fail", "checks": 0, "failed": None,
                 "message": f"could not open a session and list tools: {e}"} for c in wanted]
    out = []
    if "invalid-arguments-rejected" in wanted:
        out.append(check_invalid_arguments(chk, session, tools))
    if "unknown-tool-rejected" in wanted:
        out.append(check_unknown_tool(chk, session))
    if "input-schema-valid" in wanted:
        out.append(check_input_schemas(tools, SESSION_PROTOCOL))
    session.close()
    return out


def negotiated_revisions(url):
    """Per client revision, the protocolVersion the server answers to initialize (None + message when it fails)."""
    chk = _checker()
    out = []
    for client, revision in CLIENT_REVISIONS:
        session = chk.Session(url, revision)
        entry = {"client": client, "requested": revision, "answered": None, "message": ""}
        # initialize only: what the server answers is the point; notifications/initialized would carry
        # the requested revision in MCP-Protocol-Version, which a server that answered another refuses.
        try:
            msg = session.post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": revision, "capabilities": {}, "clientInfo": {"name": "samebox-conformance", "version": "1"}}})
            answered = (msg.get("result") or {}).get("protocolVersion")
            entry["answered"] = answered if isinstance(answered, str) and answered else None
            if entry["answered"] is None:
                entry["message"] = f"initialize: no protocolVersion in {json.dumps(msg)[:160]}"
        except chk.McpError as e:
            entry["message"] = str(e)[:200]
        session.close()
        out.append(entry)
    return out
