#!/usr/bin/env python3
"""Check shmcat's records against a FIFO EVMS model of a workload's reference log.

usage: fifo_check.py <evms_pages> <reflog> <shmcat_output>

The reference log holds "range <start> <len>" and then one "r|w <address>" per reference, in
program order (single thread). Model: a reference to a page outside the FIFO set of at most
evms_pages pages is trapped and recorded (exact address, r/w); the page enters the set, the
oldest leaves when the set is over capacity. Exit 0 iff shmcat recorded exactly that sequence
for addresses inside the range.
"""
import sys

PAGE = 4096


def main():
    evms, reflog, shmout = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    start = length = None
    expected, fifo = [], []
    for line in open(reflog):
        parts = line.split()
        if parts[0] == "range":
            start, length = int(parts[1], 16), int(parts[2], 16)
            continue
        kind, addr = parts[0], int(parts[1], 16)
        page = addr // PAGE
        if page in fifo:
            continue
        expected.append((kind, addr))
        fifo.append(page)
        if len(fifo) > evms:
            fifo.pop(0)
    got = []
    for line in open(shmout):
        parts = line.split()
        if len(parts) >= 5 and parts[0].isdigit():
            addr = int(parts[4], 16)
            if start <= addr < start + length:
                got.append((parts[3], addr))
    if got == expected:
        print(f"fifo_check: OK, {len(got)} records match the FIFO model (evms={evms})")
        return 0
    print(f"fifo_check: MISMATCH: expected {len(expected)} records, got {len(got)}")
    for i in range(max(len(got), len(expected))):
        e = expected[i] if i < len(expected) else None
        g = got[i] if i < len(got) else None
        mark = "  " if e == g else "!!"
        print(f"{mark} {i:4d} expected {e and (e[0], hex(e[1]))}  got {g and (g[0], hex(g[1]))}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
