"""Reads faultline export --to parquet's files back with pyarrow and DuckDB (issue 44).

usage: python3 parquet_readback.py PARQUET_DIR OUT_DIR

Writes OUT_DIR/refs.csv and OUT_DIR/evictions.csv, the rows of refs.parquet and
evictions.parquet in file order as faultline dump --format csv prints them (read with pyarrow),
and prints the counts that faultline info shows (computed by DuckDB): a line "references N
reads R writes W", a line "evictions N dirty D", and a line "mapping NAME REFS READS WRITES
PAGES" per mapping, most referenced first, then a line "schema TABLE NAME:TYPE ..." per table
(pyarrow's types, in column order).
"""
import os
import sys

try:
    import duckdb
    import pyarrow.parquet as pq
except ImportError as missing:
    sys.exit("parquet_readback.py needs duckdb and pyarrow (%s): python3 -m pip install duckdb==1.5.6 "
             "pyarrow==25.0.1" % missing)

src, out = sys.argv[1], sys.argv[2]

refs = pq.read_table(os.path.join(src, "refs.parquet")).to_pydict()
with open(os.path.join(out, "refs.csv"), "w") as f:
    for seq, time_ns, pid, tid, address, write, kernel in zip(refs["seq"], refs["time_ns"], refs["pid"], refs["tid"],
                                                                refs["address"], refs["write"], refs["kernel"]):
        f.write("%d,%d,%d,%d,%s,%s,%s\n" % (seq, time_ns, pid, tid, "w" if write else "r", hex(address),
                                            "k" if kernel else ""))

evictions = pq.read_table(os.path.join(src, "evictions.parquet")).to_pydict()
with open(os.path.join(out, "evictions.csv"), "w") as f:
    for seq, time_ns, pid, tid, address, tag in zip(evictions["seq"], evictions["time_ns"], evictions["pid"],
                                                    evictions["tid"], evictions["address"], evictions["tag"]):
        f.write("%d,%d,%d,%d,evict,%s,%s\n" % (seq, time_ns, pid, tid, hex(address), tag))

con = duckdb.connect()
path = lambda table: os.path.join(src, table + ".parquet").replace("'", "''")
n, reads, writes = con.execute("SELECT count(*), count(*) FILTER (NOT write), count(*) FILTER (write) FROM '%s'"
                               % path("refs")).fetchone()
print("references %d reads %d writes %d" % (n, reads, writes))
print("evictions %d dirty %d" % con.execute("SELECT count(*), count(*) FILTER (dirty) FROM '%s'"
                                             % path("evictions")).fetchone())
for row in con.execute("SELECT name, refs, reads, writes, pages FROM '%s' WHERE refs > 0 ORDER BY refs DESC, name"
                       % path("mappings")).fetchall():
    print("mapping %s %d %d %d %d" % row)
for table in ["refs", "evictions", "events", "threads", "processes", "mappings", "stacks", "moca", "header"]:
    schema = pq.read_schema(os.path.join(src, table + ".parquet"))
    print("schema %s %s" % (table, " ".join("%s:%s" % (f.name, f.type) for f in schema)))
