"""Reads faultline export --to parquet's files back with pyarrow, pandas, polars and DuckDB (issue 44).

usage: python3 parquet_readback.py PARQUET_DIR OUT_DIR

Writes OUT_DIR/refs.csv and OUT_DIR/evictions.csv, the rows of refs.parquet and
evictions.parquet in file order as faultline dump --format csv prints them, read with pyarrow;
the same rows read with pandas (refs-pandas.csv, evictions-pandas.csv) and with polars
(refs-polars.csv, evictions-polars.csv); and prints the counts that faultline info shows
(computed by DuckDB): a line "references N reads R writes W", a line "evictions N dirty D", and a line "mapping NAME REFS READS WRITES
PAGES" per mapping, most referenced first, then per table a line "schema TABLE NAME:TYPE ..."
(pyarrow's types, in column order) and a line "rows TABLE N P Q", its rows as pyarrow, pandas and
polars count them.
"""
import os
import sys

try:
    import duckdb
    import pandas
    import polars
    import pyarrow.parquet as pq
except ImportError as missing:
    sys.exit("parquet_readback.py needs duckdb, pandas, polars and pyarrow (%s): python3 -m pip install "
             "duckdb==1.5.6 pandas==2.3.3 polars==1.44.2 pyarrow==25.0.1" % missing)

src, out = sys.argv[1], sys.argv[2]

REFS = ["seq", "time_ns", "pid", "tid", "address", "write", "kernel"]
EVICTIONS = ["seq", "time_ns", "pid", "tid", "address", "tag"]


def write_rows(name, refs, evictions):
    """refs and evictions: each column's values in file order, as lists"""
    with open(os.path.join(out, name % "refs"), "w") as f:
        for seq, time_ns, pid, tid, address, write, kernel in zip(*(refs[c] for c in REFS)):
            f.write("%d,%d,%d,%d,%s,%s,%s\n" % (seq, time_ns, pid, tid, "w" if write else "r", hex(address),
                                                "k" if kernel else ""))
    with open(os.path.join(out, name % "evictions"), "w") as f:
        for seq, time_ns, pid, tid, address, tag in zip(*(evictions[c] for c in EVICTIONS)):
            f.write("%d,%d,%d,%d,evict,%s,%s\n" % (seq, time_ns, pid, tid, hex(address), tag))


def parquet(table):
    return os.path.join(src, table + ".parquet")


write_rows("%s.csv", pq.read_table(parquet("refs")).to_pydict(), pq.read_table(parquet("evictions")).to_pydict())
write_rows("%s-pandas.csv", {c: v.tolist() for c, v in pandas.read_parquet(parquet("refs")).items()},
           {c: v.tolist() for c, v in pandas.read_parquet(parquet("evictions")).items()})
write_rows("%s-polars.csv", polars.read_parquet(parquet("refs")).to_dict(as_series=False),
           polars.read_parquet(parquet("evictions")).to_dict(as_series=False))

con = duckdb.connect()
path = lambda table: parquet(table).replace("'", "''")
n, reads, writes = con.execute("SELECT count(*), count(*) FILTER (NOT write), count(*) FILTER (write) FROM '%s'"
                               % path("refs")).fetchone()
print("references %d reads %d writes %d" % (n, reads, writes))
print("evictions %d dirty %d" % con.execute("SELECT count(*), count(*) FILTER (dirty) FROM '%s'"
                                             % path("evictions")).fetchone())
for row in con.execute("SELECT name, refs, reads, writes, pages FROM '%s' WHERE refs > 0 ORDER BY refs DESC, name"
                       % path("mappings")).fetchall():
    print("mapping %s %d %d %d %d" % row)
for table in ["refs", "evictions", "events", "threads", "processes", "mappings", "stacks", "moca", "header"]:
    schema = pq.read_schema(parquet(table))
    print("schema %s %s" % (table, " ".join("%s:%s" % (f.name, f.type) for f in schema)))
    print("rows %s %d %d %d" % (table, pq.read_metadata(parquet(table)).num_rows, len(pandas.read_parquet(parquet(table))),
                                polars.read_parquet(parquet(table)).height))
