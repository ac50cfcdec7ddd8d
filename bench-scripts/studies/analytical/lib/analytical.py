#!/usr/bin/env python3
"""Helpers for the analytical study's verbs (standard library only, so a fresh machine runs them).

  datagen  OUT_DIR                      write every table as CSV plus schema.json (deterministic)
  load-sql SYSTEM DATA_DIR              print the SQL script that loads the CSVs into SYSTEM
  drop-sql SYSTEM                       print the SQL script that drops what load-sql made
  render   WORKLOAD_JSON SYSTEM VARIANT OUT_DIR
                                        write setup.sql, batch.sql, check.sql, meta.json for one cell;
                                        exit 3 (printing why) when the workload does not apply
  canon    NULL_TOKEN PRECISION         canonicalize query output on stdin, print checksum and row count
  nocache  BATCH_SQL NONCE              rewrite BATCH_SQL giving every statement a unique comment
  validate WORKLOADS_DIR                check every workload file; print one line per problem
"""
import ast
import decimal
import hashlib
import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from datasets import TABLES, PARQUET_TABLES  # noqa: E402

SYSTEMS = ["postgresql", "duckdb", "sqlite", "mariadb", "pgwire"]
VARIANTS = ["hot", "cold", "no-cache"]
CATEGORIES = ["baseline", "micro", "star", "pg-favoured", "parquet", "vector", "throughput"]
TOOLS = ["hyperfine", "pgwire-tp"]
GENERATOR_VERSION = 1

COLUMN_TYPES = {
    "postgresql": {"int": "INTEGER", "text": "TEXT", "double": "DOUBLE PRECISION"},
    "pgwire": {"int": "INTEGER", "text": "TEXT", "double": "DOUBLE PRECISION"},
    "duckdb": {"int": "INTEGER", "text": "VARCHAR", "double": "DOUBLE"},
    "sqlite": {"int": "INTEGER", "text": "TEXT", "double": "REAL"},
    # VARCHAR, not TEXT: InnoDB indexes and in-memory temp tables handle VARCHAR without prefixes
    "mariadb": {"int": "INT", "text": "VARCHAR(100)", "double": "DOUBLE"},
}


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


def load_sql(system, data_dir):
    schema = load_schema(data_dir)
    types = COLUMN_TYPES[system]
    out = []
    if system == "postgresql":
        # our own schema so the study never touches other studies' tables in the same database
        out += ["SET client_min_messages = warning;",
                "DROP SCHEMA IF EXISTS analytical CASCADE;", "CREATE SCHEMA analytical;",
                "SET search_path = analytical;"]
    for t in schema["tables"]:
        name = t["name"]
        cols = ", ".join(f"{c['name']} {types[c['type']]}" for c in t["columns"])
        csv = os.path.join(data_dir, t["file"])
        if system == "duckdb":
            out.append(f"CREATE OR REPLACE TABLE {name} ({cols});")
        else:
            out.append(f"DROP TABLE IF EXISTS {name};")
            out.append(f"CREATE TABLE {name} ({cols});")
        if system == "postgresql":
            out.append(f"\\copy {name} FROM '{csv}' WITH (FORMAT csv)")
        elif system == "duckdb":
            out.append(f"COPY {name} FROM '{csv}' (FORMAT csv, HEADER false);")
        elif system == "sqlite":
            out.append(f".import --csv {csv} {name}")
        elif system == "mariadb":
            out.append(f"LOAD DATA LOCAL INFILE '{csv}' INTO TABLE {name} FIELDS TERMINATED BY ',' LINES TERMINATED BY '\\n';")
        elif system == "pgwire":
            # plain multi-row INSERTs: a PostgreSQL-wire engine need not implement COPY
            out += pgwire_inserts(name, t, csv)
        for k, idx in enumerate(t["indexes"]):
            out.append(f"CREATE INDEX idx_{name}_{k} ON {name} ({', '.join(idx)});")
    if system == "postgresql":
        out.append("ANALYZE " + ", ".join(t["name"] for t in schema["tables"]) + ";")
    elif system == "sqlite":
        out.append("ANALYZE;")
    elif system == "mariadb":
        out.append("ANALYZE TABLE " + ", ".join(t["name"] for t in schema["tables"]) + ";")
    elif system == "duckdb":
        pq = os.path.join(data_dir, "parquet")
        os.makedirs(pq, exist_ok=True)
        for name in schema["parquet_tables"]:
            out.append(f"COPY {name} TO '{os.path.join(pq, name + '.parquet')}' (FORMAT parquet);")
    return "\n".join(out) + "\n"


def pgwire_inserts(name, table, csv):
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


def drop_sql(system, data_dir):
    if system == "postgresql":
        return "SET client_min_messages = warning;\nDROP SCHEMA IF EXISTS analytical CASCADE;\n"
    names = [t[0] for t in TABLES]
    return "".join(f"DROP TABLE IF EXISTS {n};\n" for n in names)


# ---------------------------------------------------------------- workloads
_EXPR = re.compile(r"\{([^{}]+)\}")
_ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Name, ast.Constant, ast.Load,
            ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub)


def eval_template(text, scope):
    """Fill {expr} in a loop body: integer arithmetic over the loop variables only."""
    def repl(m):
        src = m.group(1)
        tree = ast.parse(src, mode="eval")
        for node in ast.walk(tree):
            if not isinstance(node, _ALLOWED):
                raise ValueError(f"template expression '{src}' uses {type(node).__name__}; allowed: + - * // % and loop variables")
            if isinstance(node, ast.Name) and node.id not in scope:
                raise ValueError(f"template expression '{src}' names '{node.id}'; loop variables here: {sorted(scope)}")
        return str(eval(compile(tree, "<template>", "eval"), {"__builtins__": {}}, dict(scope)))
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


def resolve(wl, system):
    """The workload as SYSTEM sees it: dialect overrides merged over the defaults.
    A PostgreSQL-wire engine uses the postgresql dialect unless the file has a pgwire one."""
    merged = dict(wl)
    dialects = wl.get("dialects", {})
    chain = ["postgresql", "pgwire"] if system == "pgwire" else [system]
    for key in chain:
        d = dict(dialects.get(key, {}))
        if "check" in d:
            # a dialect's check refines the file's: it may change the query, never the expected answer
            d["check"] = {**wl.get("check", {}), **d["check"]}
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


def render(path, system, variant, out_dir, parquet_dir):
    with open(path) as f:
        wl = json.load(f)
    if system not in SYSTEMS:
        die(f"unknown system '{system}'; valid: {', '.join(SYSTEMS)}")
    if variant not in VARIANTS:
        die(f"unknown variant '{variant}'; valid: {', '.join(VARIANTS)}")
    unsupported = wl.get("unsupported", {})
    if system in unsupported:
        print(f"unsupported: {wl['name']} on {system}: {unsupported[system]}")
        sys.exit(3)
    if system not in wl["systems"]:
        print(f"unsupported: {wl['name']} does not list {system} (systems: {', '.join(wl['systems'])})")
        sys.exit(3)
    if variant not in wl.get("variants", ["hot", "cold", "no-cache"]):
        print(f"unsupported: variant {variant} not defined for {wl['name']}")
        sys.exit(3)
    if variant == "no-cache" and system != "pgwire":
        print(f"unsupported: {system} has no result cache, so no-cache equals hot (see study.json)")
        sys.exit(3)
    w = resolve(wl, system)
    scale = float(os.environ.get("REPEAT_SCALE", "1") or "1")
    os.makedirs(out_dir, exist_ok=True)

    def fill(s):
        return s.replace("{parquet_dir}", parquet_dir)

    setup = [fill(one_line(s)) for s in w.get("setup", [])]
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
        "workload": wl["name"], "system": system, "variant": variant, "category": wl["category"],
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


def canon_field(v, null_token, quantum):
    if v == null_token:
        return "\\N"
    if _NUMBER.match(v):
        d = decimal.Decimal(v).quantize(quantum, rounding=decimal.ROUND_HALF_EVEN)
        s = format(d.normalize(), "f")
        return "0" if s in ("-0", "0") else s
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
def nocache(batch_path, nonce):
    with open(batch_path) as f:
        lines = [l for l in f.read().split("\n") if l]
    out = []
    for k, line in enumerate(lines):
        stmt = re.sub(r"\s*/\* nc:[^*]* \*/;$", ";", line)
        out.append(stmt[:-1] + f" /* nc:{nonce}:{k} */;")
    with open(batch_path, "w") as f:
        f.write("\n".join(out) + "\n")


# ---------------------------------------------------------------- validate
def validate(dir_):
    problems, names = [], set()
    files = sorted(f for f in os.listdir(dir_) if f.endswith(".json"))
    for fn in files:
        p = os.path.join(dir_, fn)
        try:
            with open(p) as f:
                wl = json.load(f)
        except ValueError as e:
            problems.append(f"{fn}: not JSON: {e}")
            continue
        for key in ("name", "title", "category", "tool", "systems", "description"):
            if key not in wl:
                problems.append(f"{fn}: missing '{key}'")
        if wl.get("name") != fn[:-5]:
            problems.append(f"{fn}: name '{wl.get('name')}' must equal the file name")
        names.add(wl.get("name"))
        if wl.get("category") not in CATEGORIES:
            problems.append(f"{fn}: category '{wl.get('category')}' not one of {CATEGORIES}")
        if wl.get("tool") not in TOOLS:
            problems.append(f"{fn}: tool '{wl.get('tool')}' not one of {TOOLS}")
        for s in wl.get("systems", []) + list(wl.get("unsupported", {})) + list(wl.get("dialects", {})):
            if s not in SYSTEMS:
                problems.append(f"{fn}: unknown system '{s}'; valid: {SYSTEMS}")
        if wl.get("tool") == "hyperfine":
            if "query" not in wl and "batch" not in wl:
                problems.append(f"{fn}: needs 'query' or 'batch'")
            check = wl.get("check", {})
            if not check.get("checksum") and not check.get("reference"):
                problems.append(f"{fn}: check needs 'checksum' (expected answer) or 'reference' (engine)")
            for s in wl.get("systems", []):
                if s in wl.get("unsupported", {}):
                    continue
                try:
                    w = resolve(wl, s)
                    batch_statements(w, 1.0)
                except (ValueError, KeyError) as e:
                    problems.append(f"{fn}: {s}: {e}")
        elif wl.get("tool") == "pgwire-tp":
            if not wl.get("queries"):
                problems.append(f"{fn}: pgwire-tp workload needs 'queries'")
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
    elif cmd == "load-sql" and len(args) == 2:
        sys.stdout.write(load_sql(args[0], args[1]))
    elif cmd == "drop-sql" and len(args) == 2:
        sys.stdout.write(drop_sql(args[0], args[1]))
    elif cmd == "render" and len(args) == 5:
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
