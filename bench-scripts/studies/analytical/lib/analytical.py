#!/usr/bin/env python3
"""Helpers for the analytical study's verbs (standard library only, so a fresh machine runs them).

  datagen  OUT_DIR                      write every table as CSV plus schema.json (deterministic)
  load-sql DIALECT LOAD SCHEMA DATA_DIR print the SQL script that loads the CSVs (SCHEMA "" = none)
  drop-sql DIALECT SCHEMA DATA_DIR      print the SQL script that drops what load-sql made
  render   WORKLOAD_JSON DIALECT KIND VARIANT OUT_DIR PARQUET_DIR SYSTEM
                                        write setup.sql, batch.sql, check.sql, meta.json for one cell;
                                        exit 3 (printing why) when the variant does not apply or the
                                        system's SQL flavor cannot run the workload

Systems are never named here: SQL is keyed by the system's dialect (system.json sql.dialect),
refined for an engine that speaks it with differences of its own by its flavor (sql.flavor, in
env SYSTEM_SQL_FLAVOR: a workload's dialects["<dialect>:<flavor>"] merged over dialects[dialect]),
loading by its sql.load (native: the dialect's bulk load; insert: plain CREATE TABLE and
multi-row INSERTs, nothing else, for an engine that need not implement more), variants by its
kind. Which workloads a system runs is its capabilities against the file's `requires`
(checked by the run verb, lib/system.sh).
  canon    NULL_TOKEN PRECISION         canonicalize query output on stdin, print checksum and row count
  nocache  BATCH_SQL NONCE              rewrite BATCH_SQL giving every statement unique text (whitespace)
  validate WORKLOADS_DIR                check every workload file; print one line per problem
"""
import ast
import decimal
import functools
import hashlib
import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from datasets import TABLES, PARQUET_TABLES  # noqa: E402

STUDY_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# the capability names, defined once for every schema (workload requires, system capabilities)
DEFS_SCHEMA = os.path.join(STUDY_DIR, "..", "..", "..", "pipeline", "schema", "defs.schema.json")
VARIANTS = ["hot", "cold", "no-cache"]
CATEGORIES = ["baseline", "micro", "star", "pg-favoured", "parquet", "vector", "throughput"]
TOOLS = ["hyperfine", "pgwire-tp"]
GENERATOR_VERSION = 1

# keyed by SQL dialect (system.json sql.dialect); the study's dialects are study.json `dialects`
COLUMN_TYPES = {
    "postgresql": {"int": "INTEGER", "text": "TEXT", "double": "DOUBLE PRECISION"},
    "duckdb": {"int": "INTEGER", "text": "VARCHAR", "double": "DOUBLE"},
    "sqlite": {"int": "INTEGER", "text": "TEXT", "double": "REAL"},
    # VARCHAR, not TEXT: InnoDB indexes and in-memory temp tables handle VARCHAR without prefixes
    "mysql": {"int": "INT", "text": "VARCHAR(100)", "double": "DOUBLE"},
}
LOADS = ["native", "insert"]
KINDS = ["server", "embedded", "external"]


def study_json():
    with open(os.path.join(STUDY_DIR, "study.json")) as f:
        return json.load(f)


def study_dialects():
    return study_json().get("dialects") or sorted(COLUMN_TYPES)


def known_capabilities():
    """The capability names a workload may require (the schemas' shared enum, defs.schema.json)."""
    try:
        with open(DEFS_SCHEMA) as f:
            return json.load(f)["$defs"]["capability"]["enum"]
    except (OSError, ValueError, KeyError):
        return None


@functools.lru_cache(maxsize=None)
def known_flavors():
    """The SQL flavors some system declares (system.json sql.flavor); read once per process."""
    systems = os.path.join(STUDY_DIR, "..", "..", "systems")
    out = set()
    for name in os.listdir(systems):
        try:
            with open(os.path.join(systems, name, "system.json")) as f:
                flavor = (json.load(f).get("sql") or {}).get("flavor")
        except (OSError, ValueError):
            continue
        if flavor:
            out.add(flavor)
    return out


def die(msg, code=2):
    print(msg, file=sys.stderr)
    sys.exit(code)


# ---------------------------------------------------------------- datagen
def datagen(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    schema_path = os.path.join(out_dir, "schema.json")
    if os.path.exists(schema_path):
        with open(schema_path) as f:
            old = json.load(f)
        if old.get("generator_version") == GENERATOR_VERSION and all(
            os.path.exists(os.path.join(out_dir, t["file"])) for t in old["tables"]
        ):
            print(f"dataset already generated in {out_dir}")
            return
    tables = []
    for name, group, columns, count, row, indexes in TABLES:
        path = os.path.join(out_dir, f"{name}.csv")
        digest = hashlib.sha256()
        with open(path, "w", newline="\n") as f:
            for i in range(count):
                line = ",".join(str(v) for v in row(i)) + "\n"
                f.write(line)
                digest.update(line.encode())
        tables.append({"name": name, "group": group, "file": f"{name}.csv", "rows": count,
                       "columns": [{"name": c, "type": t} for c, t in columns],
                       "indexes": indexes, "sha256": digest.hexdigest()})
    with open(schema_path, "w") as f:
        json.dump({"generator_version": GENERATOR_VERSION, "tables": tables,
                   "parquet_tables": PARQUET_TABLES}, f, indent=1)
    print(f"generated {len(tables)} tables in {out_dir}")


def load_schema(data_dir):
    path = os.path.join(data_dir, "schema.json")
    if not os.path.exists(path):
        die(f"no dataset in {data_dir}: run prepare first (it generates schema.json)")
    with open(path) as f:
        return json.load(f)


def check_dialect(dialect):
    if dialect not in COLUMN_TYPES:
        die(f"unknown SQL dialect '{dialect}'; valid: {', '.join(sorted(COLUMN_TYPES))}")


def load_sql(dialect, load, schema_name, data_dir):
    """native: the dialect's bulk load, statistics, its own schema when SCHEMA is given.
    insert: plain CREATE TABLE, multi-row INSERTs and indexes only."""
    check_dialect(dialect)
    if load not in LOADS:
        die(f"unknown load '{load}'; valid: {', '.join(LOADS)}")
    schema = load_schema(data_dir)
    types = COLUMN_TYPES[dialect]
    native = load == "native"
    out = []
    if schema_name:
        # our own schema so the study never touches other studies' tables in the same database
        out += ["SET client_min_messages = warning;",
                f"DROP SCHEMA IF EXISTS {schema_name} CASCADE;", f"CREATE SCHEMA {schema_name};",
                f"SET search_path = {schema_name};"]
    for t in schema["tables"]:
        name = t["name"]
        cols = ", ".join(f"{c['name']} {types[c['type']]}" for c in t["columns"])
        csv = os.path.join(data_dir, t["file"])
        if dialect == "duckdb":
            out.append(f"CREATE OR REPLACE TABLE {name} ({cols});")
        else:
            out.append(f"DROP TABLE IF EXISTS {name};")
            out.append(f"CREATE TABLE {name} ({cols});")
        if not native:
            # plain multi-row INSERTs: the engine need not implement COPY
            out += insert_statements(name, t, csv)
        elif dialect == "postgresql":
            out.append(f"\\copy {name} FROM '{csv}' WITH (FORMAT csv)")
        elif dialect == "duckdb":
            out.append(f"COPY {name} FROM '{csv}' (FORMAT csv, HEADER false);")
        elif dialect == "sqlite":
            out.append(f".import --csv {csv} {name}")
        elif dialect == "mysql":
            out.append(f"LOAD DATA LOCAL INFILE '{csv}' INTO TABLE {name} FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n';")
        for k, idx in enumerate(t["indexes"]):
            out.append(f"CREATE INDEX idx_{name}_{k} ON {name} ({', '.join(idx)});")
    if native and dialect == "postgresql":
        out.append("ANALYZE " + ", ".join(t["name"] for t in schema["tables"]) + ";")
    elif native and dialect == "sqlite":
        out.append("ANALYZE;")
    elif native and dialect == "mysql":
        out.append("ANALYZE TABLE " + ", ".join(t["name"] for t in schema["tables"]) + ";")
    elif native and dialect == "duckdb":
        # the Parquet copies the parquet workloads read
        pq = os.path.join(data_dir, "parquet")
        os.makedirs(pq, exist_ok=True)
        for name in schema["parquet_tables"]:
            out.append(f"COPY {name} TO '{os.path.join(pq, name + '.parquet')}' (FORMAT parquet);")
    return "\n".join(out) + "\n"


def insert_statements(name, table, csv):
    out, batch = [], []
    kinds = [c["type"] for c in table["columns"]]
    with open(csv) as f:
        for line in f:
            vals = line.rstrip("\n").split(",")
            lit = ", ".join(v if k != "text" else "'" + v.replace("'", "''") + "'" for v, k in zip(vals, kinds))
            batch.append(f"({lit})")
            if len(batch) == 1000:
                out.append(f"INSERT INTO {name} VALUES {', '.join(batch)};")
                batch = []
    if batch:
        out.append(f"INSERT INTO {name} VALUES {', '.join(batch)};")
    return out


def drop_sql(dialect, schema_name, data_dir):
    check_dialect(dialect)
    if schema_name:
        return f"SET client_min_messages = warning;\nDROP SCHEMA IF EXISTS {schema_name} CASCADE;\n"
    names = [t[0] for t in TABLES]
    return "".join(f"DROP TABLE IF EXISTS {n};\n" for n in names)


# ---------------------------------------------------------------- workloads
_EXPR = re.compile(r"\{([^{}]+)\}")
_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Constant, ast.Load,
            ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub)


@functools.lru_cache(maxsize=None)
def compile_template_expr(src, names):
    """One {expr} checked and compiled once (a 2,000-row setup repeats each 2,000 times)."""
    tree = ast.parse(src, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED):
            raise ValueError(f"template expression '{src}' uses {type(node).__name__}; allowed: + - * // % and loop variables")
        if isinstance(node, ast.Name) and node.id not in names:
            raise ValueError(f"template expression '{src}' names '{node.id}'; loop variables here: {sorted(names)}")
    return compile(tree, "<template>", "eval")


def eval_template(text, scope):
    """Fill {expr} in a loop body: integer arithmetic over the loop variables only."""
    names = frozenset(scope)

    def repl(m):
        code = compile_template_expr(m.group(1), names)
        return str(eval(code, {"__builtins__": {}}, dict(scope)))
    return _EXPR.sub(repl, text)


def one_line(sql):
    sql = " ".join(sql.split())
    return sql if sql.endswith(";") else sql + ";"


def expand(items, scope, out, scale, depth=0):
    for item in items:
        if isinstance(item, str):
            out.append(one_line(eval_template(item, scope) if scope else item))
        elif isinstance(item, dict) and "loop" in item:
            # loops are never scaled: they build write workloads whose checked answer depends on the count
            count = int(item["count"])
            for i in range(count):
                expand(item["body"], {**scope, item["loop"]: i}, out, scale, depth + 1)
        else:
            raise ValueError(f"batch item must be a SQL string or {{loop, count, body}}, got {item!r}")


def resolve(wl, dialect, flavor=""):
    """The workload in one SQL dialect: the file's `dialects[DIALECT]` merged over its defaults, then
    `dialects[DIALECT:FLAVOR]` (an engine's own differences) over that."""
    merged = dict(wl)
    keys = [dialect] + ([f"{dialect}:{flavor}"] if flavor else [])
    for key in keys:
        d = dict(wl.get("dialects", {}).get(key, {}))
        if "check" in d:
            # a dialect's check refines the file's: it may change the query, never the expected answer
            d["check"] = {**merged.get("check", {}), **d["check"]}
        merged.update(d)
    merged.pop("dialects", None)
    return merged


def batch_statements(w, scale):
    out = []
    if "batch" in w:
        expand(w["batch"], {}, out, scale)
    else:
        count = max(1, round(int(w.get("repeat", 1)) * scale))
        q = one_line(w["query"])
        out = [q] * count
    return out


def render(path, dialect, kind, variant, out_dir, parquet_dir, system):
    with open(path) as f:
        wl = json.load(f)
    check_dialect(dialect)
    if kind not in KINDS:
        die(f"unknown system kind '{kind}'; valid: {', '.join(KINDS)}")
    if variant not in VARIANTS:
        die(f"unknown variant '{variant}'; valid: {', '.join(VARIANTS)}")
    if variant not in wl.get("variants", ["hot", "cold", "no-cache"]):
        print(f"unsupported: variant {variant} not defined for {wl['name']}")
        sys.exit(3)
    # study.json variant_requires (no-cache -> result-cache), the list the planner skips by; checked here too
    # for a cell run by hand. Only an engine with a result cache differs from hot under no-cache.
    caps = os.environ.get("SYSTEM_CAPS", "").split()
    missing = [c for c in study_json().get("variant_requires", {}).get(variant, []) if c not in caps]
    if missing:
        print(f"unsupported: variant {variant} needs capability {', '.join(missing)}, which {system} lacks (study.json variant_requires)")
        sys.exit(3)
    flavor = os.environ.get("SYSTEM_SQL_FLAVOR", "")
    w = resolve(wl, dialect, flavor)
    if w.get("unsupported"):
        # only a flavor's override may say this, with the engine's own error (validate checks)
        print(f"unsupported: {wl['name']} in {dialect}:{flavor}: {w['unsupported']}")
        sys.exit(3)
    scale = float(os.environ.get("REPEAT_SCALE", "1") or "1")
    os.makedirs(out_dir, exist_ok=True)

    def fill(s):
        return s.replace("{parquet_dir}", parquet_dir)

    setup = []
    expand(w.get("setup", []), {}, setup, 1.0)   # loops allowed: a setup may insert row by row
    setup = [fill(s) for s in setup]
    batch = [fill(s) for s in batch_statements(w, scale)]
    check = w.get("check", {})
    check_sql = [fill(one_line(s)) for s in ([check["query"]] if "query" in check else [])]
    if not check_sql:
        if "query" not in w:
            die(f"{path}: a batch workload needs check.query")
        check_sql = [fill(one_line(w["query"]))]
    for name, lines in (("setup.sql", setup), ("batch.sql", batch), ("check.sql", check_sql)):
        with open(os.path.join(out_dir, name), "w") as f:
            f.write("\n".join(lines) + ("\n" if lines else ""))
    meta = {
        "workload": wl["name"], "system": system, "dialect": dialect, "flavor": flavor, "variant": variant,
        "category": wl["category"],
        "statements": len(batch), "repeat_scale": scale,
        "reset_each_run": bool(w.get("reset_each_run", False)),
        "check_after_batch": bool(check.get("after_batch", False)),
        "precision": int(check.get("precision", 6)),
        "expected": check.get("checksum"), "expected_rows": check.get("rows"),
        "reference": check.get("reference"),
        "requires": w.get("requires", []),
    }
    with open(os.path.join(out_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=1)
    # shell-readable copy for the run verb (values are quoted with shlex, so eval is safe)
    for k, v in meta.items():
        if isinstance(v, bool):
            v = "1" if v else "0"
        elif isinstance(v, list):
            v = " ".join(v)
        elif v is None:
            v = ""
        print(f"M_{k.upper()}={shlex.quote(str(v))}")


# ---------------------------------------------------------------- answers
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def canon_number(v, quantum):
    d = decimal.Decimal(v).quantize(quantum, rounding=decimal.ROUND_HALF_EVEN)
    s = format(d.normalize(), "f")
    return "0" if s in ("-0", "0") else s


def canon_field(v, null_token, quantum):
    if v == null_token:
        return "\\N"
    if _NUMBER.match(v):
        return canon_number(v, quantum)
    items = v[1:-1].split(",") if len(v) >= 2 and v[0] + v[-1] in ("[]", "{}") else None
    if items and all(_NUMBER.match(x.strip()) for x in items):
        # a vector or numeric array: pgvector prints [1,2.5], DuckDB [1.0, 2.5], mskql its own way
        return "[" + ",".join(canon_number(x.strip(), quantum) for x in items) + "]"
    return v


def canonicalize(text, null_token, precision):
    decimal.getcontext().prec = 60
    quantum = decimal.Decimal(1).scaleb(-precision)
    rows = []
    for line in text.split("\n"):
        if line == "":
            continue
        rows.append("\t".join(canon_field(v, null_token, quantum) for v in line.split("\t")))
    rows.sort()
    body = "\n".join(rows)
    return "sha256:" + hashlib.sha256(body.encode()).hexdigest(), len(rows), body


# ---------------------------------------------------------------- no-cache
NOCACHE_BITS = 40


def nocache_whitespace(nonce, k):
    """A run of spaces and tabs unique to (nonce, k): the bits of a 40-bit hash, space 0, tab 1."""
    h = int.from_bytes(hashlib.sha256(f"{nonce}:{k}".encode()).digest()[:5], "big")
    return "".join("\t" if h >> b & 1 else " " for b in range(NOCACHE_BITS))


def nocache(batch_path, nonce):
    """Give every statement of BATCH_SQL text of its own, so a result cache keyed on the query text
    misses. The seed appends a unique comment (/* nc<i> */); mskql at the pinned commit has no
    comments in its lexer and fails on them in GROUP BY and SELECT-list tails, so the unique part is
    whitespace after the first keyword instead: the same statement to every parser, new text to the
    cache. Rewrites the batch of the previous run (between-runs.sh calls this before every run)."""
    with open(batch_path) as f:
        lines = [l for l in f.read().split("\n") if l]
    out = []
    for k, line in enumerate(lines):
        m = re.match(r"(\S+)[ \t]+(.*)$", line)
        if not m:
            die(f"{batch_path}: line {k + 1} has no keyword to put the no-cache whitespace after: {line[:60]}")
        out.append(m.group(1) + nocache_whitespace(nonce, k) + m.group(2))
    with open(batch_path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- validate
def validate(dir_):
    problems, names = [], set()
    dialects = study_dialects()
    caps = known_capabilities()
    files = sorted(f for f in os.listdir(dir_) if f.endswith(".json"))
    for fn in files:
        p = os.path.join(dir_, fn)
        try:
            with open(p) as f:
                wl = json.load(f)
        except ValueError as e:
            problems.append(f"{fn}: not JSON: {e}")
            continue
        for key in ("name", "title", "category", "tool", "description"):
            if key not in wl:
                problems.append(f"{fn}: missing '{key}'")
        for key in ("systems", "unsupported"):
            # a workload says what it needs (requires), never which systems run it; why a system
            # lacks a capability is that system's capability_notes
            if key in wl:
                problems.append(f"{fn}: '{key}' is not a workload key (use 'requires': capabilities)")
        if wl.get("name") != fn[:-5]:
            problems.append(f"{fn}: name '{wl.get('name')}' must equal the file name")
        names.add(wl.get("name"))
        if wl.get("category") not in CATEGORIES:
            problems.append(f"{fn}: category '{wl.get('category')}' not one of {CATEGORIES}")
        if wl.get("tool") not in TOOLS:
            problems.append(f"{fn}: tool '{wl.get('tool')}' not one of {TOOLS}")
        for c in wl.get("requires", []):
            if caps is not None and c not in caps:
                problems.append(f"{fn}: requires unknown capability '{c}'; valid: {caps}")
        for d, override in wl.get("dialects", {}).items():
            base, _, flavor = d.partition(":")
            if base not in dialects:
                problems.append(f"{fn}: dialects: unknown SQL dialect '{base}' in '{d}'; valid: {dialects} (or <dialect>:<flavor>)")
            if flavor and flavor not in known_flavors():
                problems.append(f"{fn}: dialects: unknown SQL flavor '{flavor}' in '{d}'; valid: {sorted(known_flavors())} (system.json sql.flavor)")
            if "unsupported" in override and not flavor:
                problems.append(f"{fn}: dialects.{d}: 'unsupported' belongs to a flavor (<dialect>:<flavor>); a dialect's systems are planned by capability")
            if "requires" in override:
                # capabilities belong to the whole file (the runner plans by them, never by dialect)
                problems.append(f"{fn}: dialects.{d}: 'requires' is the file's, not a dialect's")
        if wl.get("tool") == "hyperfine":
            if "query" not in wl and "batch" not in wl:
                problems.append(f"{fn}: needs 'query' or 'batch'")
            check = wl.get("check", {})
            if not check.get("checksum") and not check.get("reference"):
                problems.append(f"{fn}: check needs 'checksum' (expected answer) or 'reference' (engine)")
            flavored = [tuple(k.split(":", 1)) for k in wl.get("dialects", {}) if ":" in k]
            for d, flavor in [(d, "") for d in dialects] + flavored:
                try:
                    w = resolve(wl, d, flavor)
                    if w.get("unsupported"):
                        continue
                    batch_statements(w, 1.0)
                except (ValueError, KeyError) as e:
                    problems.append(f"{fn}: {d}: {e}")
        elif wl.get("tool") == "pgwire-tp":
            if not wl.get("queries"):
                problems.append(f"{fn}: pgwire-tp workload needs 'queries'")
            if "pgwire" not in wl.get("requires", []):
                problems.append(f"{fn}: a pgwire-tp workload must require capability 'pgwire'")
    for p in problems:
        print(p)
    print(f"{len(files)} workload files, {len(problems)} problems")
    return 1 if problems else 0


def main(argv):
    if not argv:
        die(__doc__)
    cmd, args = argv[0], argv[1:]
    if cmd == "datagen" and len(args) == 1:
        datagen(args[0])
    elif cmd == "load-sql" and len(args) == 4:
        sys.stdout.write(load_sql(*args))
    elif cmd == "drop-sql" and len(args) == 3:
        sys.stdout.write(drop_sql(*args))
    elif cmd == "render" and len(args) == 7:
        render(*args)
    elif cmd == "canon" and len(args) in (2, 3):
        checksum, rows, body = canonicalize(sys.stdin.read(), args[0], int(args[1]))
        if len(args) == 3:
            with open(args[2], "w") as f:
                f.write(body + "\n")
        print(f"{checksum} {rows}")
    elif cmd == "nocache" and len(args) == 2:
        nocache(*args)
    elif cmd == "validate" and len(args) == 1:
        sys.exit(validate(args[0]))
    else:
        die(f"bad arguments '{' '.join(argv)}'; usage:\n{__doc__}")


if __name__ == "__main__":
    main(sys.argv[1:])
