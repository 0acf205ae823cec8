"""Checks that a file has the shape of damo's JSON monitoring record, and summarises it.

What is checked is what damo reads back (damonitor/damo, src/_damo_records.py: parse_json(),
DamonRecord.from_kvpairs(), DamonSnapshot.from_kvpairs(); src/_damon.py: DamonIntervals,
DamonRegion, DamonNrAccesses and DamonAge .from_kvpairs()): a JSON list of records; each with
target_id, intervals {sample_us, aggr_us, ops_update_us} and snapshots; each snapshot with
start_time, end_time, regions and total_bytes; each region with start, end, nr_accesses
{samples, percent} and age {usec, aggr_intervals}. Numbers may be JSON numbers or strings of
digits (damo's text_to_nr/_bytes/_ns/_us accept both), or null where damo allows it.

    python3 damo_record_shape.py FILE   prints one summary line per record, exits 1 on a bad shape

FILE may be zlib-compressed, as damo record writes it (damo's file type json_compressed).
"""
import json
import sys
import zlib


def number(value, where, nullable=False):
    if value is None and nullable:
        return 0
    if isinstance(value, bool):
        raise ValueError(where + ': a boolean, not a number')
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    raise ValueError(where + ': not a number: ' + repr(value))


def keys(obj, names, where):
    if not isinstance(obj, dict):
        raise ValueError(where + ': not an object')
    for name in names:
        if name not in obj:
            raise ValueError(where + ': no ' + name)


def main(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:1] == b'\x78':
        data = zlib.decompress(data)
        print('zlib')
    records = json.loads(data.decode())
    if not isinstance(records, list):
        raise ValueError('not a list of records')
    for i, record in enumerate(records):
        where = 'record %d' % i
        keys(record, ['target_id', 'intervals', 'snapshots'], where)
        keys(record['intervals'], ['sample_us', 'aggr_us', 'ops_update_us'], where + ' intervals')
        sample, aggr, update = (number(record['intervals'][k], where + ' ' + k)
                                for k in ('sample_us', 'aggr_us', 'ops_update_us'))
        regions = accesses = ages = covered = 0
        last_end = -1
        for j, snapshot in enumerate(record['snapshots']):
            at = '%s snapshot %d' % (where, j)
            keys(snapshot, ['start_time', 'end_time', 'regions', 'total_bytes'], at)
            start, end = number(snapshot['start_time'], at), number(snapshot['end_time'], at)
            if start > end or start < last_end:
                raise ValueError(at + ': times out of order')
            last_end = end
            total = 0
            for k, region in enumerate(snapshot['regions']):
                rat = '%s region %d' % (at, k)
                keys(region, ['start', 'end', 'nr_accesses', 'age'], rat)
                keys(region['nr_accesses'], ['samples', 'percent'], rat + ' nr_accesses')
                keys(region['age'], ['usec', 'aggr_intervals'], rat + ' age')
                s, e = number(region['start'], rat), number(region['end'], rat)
                if s >= e:
                    raise ValueError(rat + ': empty')
                total += e - s
                regions += 1
                accesses += number(region['nr_accesses']['samples'], rat + ' samples')
                number(region['nr_accesses']['percent'], rat + ' percent', nullable=True)
                number(region['age']['usec'], rat + ' usec', nullable=True)
                ages += number(region['age']['aggr_intervals'], rat + ' aggr_intervals')
            if number(snapshot['total_bytes'], at) != total:
                raise ValueError(at + ': total_bytes is not the sum of the regions')
            covered += total
        print('target=%s sample_us=%d aggr_us=%d ops_update_us=%d snapshots=%d regions=%d samples=%d ages=%d bytes=%d'
              % (record['target_id'], sample, aggr, update, len(record['snapshots']), regions, accesses, ages,
                 covered))


if __name__ == '__main__':
    try:
        main(sys.argv[1])
    except (ValueError, KeyError, TypeError, json.JSONDecodeError) as e:
        print('not a damo record: %s' % e)
        sys.exit(1)
