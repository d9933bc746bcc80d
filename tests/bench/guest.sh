#!/bin/bash
# make bench: the targets of DESIGN.md section 7 (P1..P7), measured inside the
# guest (cfqprio.run=bench) in one boot, cfq-prio side by side with the
# mainline schedulers, as ratios of figures taken in this run.
#
# Environment: CFQ_SRC (the project tree, read-only), CFQ_OUT (the results
# folder shared with the host, build/bench/ there).  CFQ_TESTS (passed by
# scripts/vm.sh through $CFQ_OUT/env) or CFQ_BENCH, a regex, picks the
# measurements by name (P1..P7), e.g. CFQ_TESTS='P[25]'.
#
# Output: a readable report on stdout and in $CFQ_OUT/report.txt, with one
# machine-readable line per target:
#
#   bench: NAME VALUE TARGET VERDICT        (VERDICT: met, missed or n/a)
#
# every scheduler's figure per target in $CFQ_OUT/results.csv (target,
# scheduler, value, goal), from which the host draws build/bench/*.png and
# build/bench/report.md, and the raw fio JSON of every run in $CFQ_OUT/fio/.  The exit status is 0
# when every measurement ran (whatever the verdicts), 1 otherwise.
#
# Devices (null_blk through configfs, memory_backed=0 but for wb):
#   fast  irqmode=1 (softirq), hw_queue_depth=64, 1 submit queue: the guest
#         CPU is the bottleneck (P1, P6);
#   slow  irqmode=2, completion_nsec=1000000, hw_queue_depth=2: 1 ms per
#         request, two at a time (P2..P5).  P2 runs at each scheduler's
#         default nr_requests (the block layer's 4; cfq-prio asks for 64),
#         with readers of depth 1 (psync), 4 and 16; P4 at the default, at
#         4 (the fewest the block layer takes: it turns a smaller
#         nr_requests into BLKDEV_MIN_RQ, 4) and at 128; P3 and P5 at 128
#         (none has no scheduler tags: it keeps 2);
#   deep  the same with hw_queue_depth=32, at its default nr_requests (64):
#         P4 with busy readers of depth 16;
#   wb    slow's timing with memory_backed=1 and ext4 on it, at each
#         scheduler's default nr_requests (P7, made and removed there).
# Readers are fio 3.33 jobs (random 4 KiB reads, O_DIRECT); fio cannot set a
# level itself, so each runs under `ioprio -n LEVEL --` (cfq-prio) or
# `ionice` (the classic classes, for the mainline schedulers).
set -u
export LC_ALL=C

here=$(cd "$(dirname "$0")" && pwd)
export CFQ_SRC=${CFQ_SRC:-$(cd "$here/../.." && pwd)}
export CFQ_OUT=${CFQ_OUT:-/tmp/cfq-bench}
if [ -f "$CFQ_OUT/env" ]; then set -a; . "$CFQ_OUT/env"; set +a; fi
only=${CFQ_BENCH:-${CFQ_TESTS:-}}
. "$CFQ_SRC/tests/guest/common.sh"

SCHEDS=(none mq-deadline kyber bfq cfq-prio)
# nr_requests on the slow device: a number, or "default" to keep what the
# block layer gives the scheduler (twice the device's depth).
SLOW_NR_REQUESTS=128
RAW=$CFQ_OUT/fio
REPORT=$CFQ_OUT/report.txt
# every scheduler's figure per target, for the host's pictures (scripts/plot.py)
RESULTS=$CFQ_OUT/results.csv
mkdir -p "$RAW"
: >"$REPORT"
echo "target,scheduler,value,goal" >"$RESULTS"
WORK=$(mktemp -d /run/cfq-bench.XXXXXX) || exit 1
trap 'rm -rf "$WORK"' EXIT
ERRORS=0
T_START=$(date +%s)

say() { printf '%s\n' "$*" >>"$REPORT"; printf '%s\n' "$*"; }
note() { printf '# %s\n' "$*"; }                 # progress: log only
# Milliseconds since the epoch, without a fork (the clock of fio's
# log_unix_epoch).
now_ms() { local t=${EPOCHREALTIME/./}; echo "${t:0:-3}"; }
# the same into NOW, without a fork
set_now() { NOW=${EPOCHREALTIME/./}; NOW=${NOW:0:-3}; }
wanted() { [ -z "$only" ] || grep -qE "$only" <<<"$1"; }

# ---------------------------------------------------------------------------
# The analysis: one python3 program, one subcommand per measurement.  It
# prints the section's table and its "bench:" lines.
cat >"$WORK/an.py" <<'PYEOF'
import glob, json, math, os, statistics, sys

CLK_TCK = os.sysconf('SC_CLK_TCK')

def fio(path):
    with open(path) as f:
        t = f.read()
    return json.loads(t[t.index('{'):])

def rd(path, default=None):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return default

def snap(path):
    """time, diskstat fields, {reader: read_bytes}"""
    s = {'r': {}}
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == 'time':
            s['time'] = float(w[1])
        elif w[0] == 'stat':
            s['stat'] = [int(x) for x in w[1:]]
        elif w[0] == 'r':
            s['r'][w[1]] = int(w[2]) if len(w) > 2 and w[2].isdigit() else None
    return s

def levels(path):
    """debugfs sched/levels as {level: {column: value}}"""
    try:
        lines = open(path).read().split('\n')
    except OSError:
        return None
    head = lines[0].split()
    out = {}
    for line in lines[1:]:
        w = line.split()
        if len(w) == len(head):
            d = dict(zip(head, (int(x) for x in w)))
            out[d['level']] = d
    return out

def ldelta(a, b, col):
    if a is None or b is None:
        return None
    return {l: b[l][col] - a[l][col] for l in b if l in a}

def meta(d):
    """lines: name weight label words..."""
    m = []
    for line in open(os.path.join(d, 'meta')):
        w = line.split()
        if w:
            m.append((w[0], float(w[1]), ' '.join(w[2:])))
    return m

BENCH = []
GOALS = {}
VALUES = []
def val(name, sched, value):
    """one scheduler's figure for a target, for results.csv (the host's pictures)"""
    VALUES.append((name, sched, value))

def bench(name, value, fmt, target, ok):
    GOALS[name] = target
    if value is None:
        line = 'bench: %s n/a %s n/a' % (name, target)
    else:
        line = 'bench: %s %s %s %s' % (name, fmt % value, target, 'met' if ok(value) else 'missed')
    BENCH.append(line)

def flush_bench():
    for line in BENCH:
        print(line)
    csv = os.environ.get('BENCH_CSV')
    if csv:
        with open(csv, 'a') as f:
            for name, sched, value in VALUES:
                if value is not None:
                    f.write('%s,%s,%.6g,%s\n' % (name, sched, value, GOALS.get(name, '')))

def f(v, fmt):
    return '-' if v is None else fmt % v

ORDER = os.environ.get('BENCH_SCHEDS', '').split()

def order(s):
    return ORDER.index(s) if s in ORDER else len(ORDER)

def runs(top, prefix):
    """run folders, in the order of the schedulers"""
    ds = [d for d in glob.glob(os.path.join(top, prefix + '*')) if os.path.isdir(d)]
    return sorted(ds, key=lambda d: (order(rd(os.path.join(d, 'sched'), '')), d))

# -- P1 ----------------------------------------------------------------------
def p1(path, scheds):
    """lines: run round scheduler ios t0 t1 cpu-ticks ipis"""
    rounds, cpu, ipi, run_of = {}, {}, {}, {}
    for line in open(path):
        w = line.split()
        if len(w) == 8 and float(w[5]) > float(w[4]):
            k = (int(w[0]), int(w[1]))
            run_of[k] = int(w[0])
            rounds.setdefault(k, {})[w[2]] = int(w[3]) / (float(w[5]) - float(w[4]))
            if int(w[3]):
                # USER_HZ ticks of all CPUs: microseconds of CPU per I/O
                cpu.setdefault(w[2], []).append(int(w[6]) * 1e6 / CLK_TCK / int(w[3]))
                ipi.setdefault(w[2], []).append(int(w[7]) / int(w[3]))
    iops = {s: [rd_[s] for rd_ in rounds.values() if s in rd_] for s in scheds}
    med = {s: statistics.median(v) for s, v in iops.items() if v}
    def ratios(a, b, run=None):
        return sorted(r[a] / r[b] for k, r in rounds.items()
                      if r.get(a) and r.get(b) and run in (None, run_of[k]))
    print('  %-12s %9s %9s %9s %10s %9s  %s' % ('scheduler', 'median', 'min', 'max', 'CPU us/I/O',
                                                'IPIs/I/O', 'x none per round: median (quartiles)'))
    for s in scheds:
        if s not in med:
            print('  %-12s (not measured)' % s)
            continue
        x = ratios(s, 'none')
        q = '%.2f (%.2f..%.2f)' % (statistics.median(x), pct(x, 25), pct(x, 75)) if x else '-'
        c = '%.1f' % statistics.median(cpu[s]) if cpu.get(s) else '-'
        i = '%.3f' % statistics.median(ipi[s]) if ipi.get(s) else '-'
        print('  %-12s %9.0f %9.0f %9.0f %10s %9s  %s' % (s, med[s], min(iops[s]), max(iops[s]), c, i, q))
    def r(o, s='cfq-prio', run=None):
        x = ratios(s, o, run)
        return statistics.median(x) if x else None
    runs = sorted(set(run_of.values()))
    for o in ('none', 'mq-deadline', 'bfq'):
        # Against the peer, three places: the target is 1.00, not 1.00 rounded.
        g = '%.3f' if o == 'mq-deadline' else '%.2f'
        print('  cfq-prio / %-11s %s; both runs %s' % (
            o, ', '.join('run %d %s' % (n, f(r(o, run=n), g)) for n in runs),
            f(r(o), g)))
    for o in ('none', 'mq-deadline', 'bfq'):
        for s in scheds:
            val('P1 cfq-prio/%s' % o, s, r(o, s))
    bench('P1 cfq-prio/none', r('none'), '%.2f', '>=0.90', lambda x: x >= 0.90)
    bench('P1 cfq-prio/mq-deadline', r('mq-deadline'), '%.3f', '>=1.00', lambda x: x >= 1.00)
    bench('P1 cfq-prio/bfq', r('bfq'), '%.2f', '>=1.50', lambda x: x >= 1.50)

# -- P2, P3: shares over a window ---------------------------------------------
def window(d):
    a, b = snap(os.path.join(d, 'snap.a')), snap(os.path.join(d, 'snap.b'))
    dt = b['time'] - a['time']
    got = {}
    for n in b['r']:
        x, y = a['r'].get(n), b['r'][n]
        got[n] = None if x is None or y is None else y - x
    ios = b['stat'][0] - a['stat'][0]
    return dt, got, ios

def p2(top, cfg, name, tol):
    worst = None
    ratio19 = None
    mixed = None
    for d in runs(top, 'p2-%s-' % cfg):
        s = rd(os.path.join(d, 'sched'))
        m = meta(d)
        try:
            dt, got, ios = window(d)
        except (OSError, KeyError, IndexError):
            print('  %-12s (no data)' % s)
            continue
        tot = sum(v for v in got.values() if v)
        wsum = sum(w for _, w, _ in m)
        parts = []
        for n, w, label in m:
            sh = got[n] / tot if got.get(n) is not None and tot else None
            parts.append('%s %s' % (label, f(sh, '%.3f')))
        hi, lo = got.get(m[0][0]), got.get(m[-1][0])
        rat = hi / lo if hi and lo else None
        print('  %-12s %6.0f IOPS  by process: %s  ratio %s' % (s, ios / dt, ', '.join(parts), f(rat, '%.2f')))
        if tot and all(got.get(n) for n, _, _ in m):
            val('P2 %s-share-error' % name, s, max(abs(got[n] / tot / (w / wsum) - 1) for n, w, _ in m))
        if cfg.startswith('pair'):
            val('P2 level19/level1-%s' % cfg.split('-')[-1], s, rat)
        if s != 'cfq-prio':
            continue
        mixed = ios / dt
        # The verdict: the readers' own bytes against their (level + 1).
        if tot and all(got.get(n) for n, _, _ in m):
            worst = max(abs(got[n] / tot / (w / wsum) - 1) for n, w, _ in m)
            ratio19 = hi / lo
        # The scheduler's own counters: requests dispatched per level.
        la, lb = levels(os.path.join(d, 'levels.a')), levels(os.path.join(d, 'levels.b'))
        disp = ldelta(la, lb, 'dispatched')
        secs = ldelta(la, lb, 'sectors')
        if not disp:
            print('  %-12s no debugfs counters' % '')
            continue
        lv = [int(label.split()[-1]) for _, _, label in m]
        dtot = sum(disp[l] for l in lv)
        parts = []
        for (n, w, label), l in zip(m, lv):
            sh = disp[l] / dtot if dtot else 0
            parts.append('level %d %d req %.3f (want %.3f)' % (l, disp[l], sh, w / wsum))
        print('  %-12s debugfs: %s' % ('', ', '.join(parts)))
        print('  %-12s debugfs sectors: %s' % ('', ', '.join('level %d %d' % (l, secs[l]) for l in lv)))
    if tol != '-':
        t = float(tol)
        bench('P2 %s-share-error' % name, worst, '%.3f', '<=%.2f' % t, lambda x: x <= t)
    else:
        print('  %-12s share error %s: not judged, the readers do not ask for more slots than the device has' % ('cfq-prio', f(worst, '%.3f')))
    if 'three' in cfg:
        flat = None
        for d in runs(top, 'p2-%s-' % cfg.replace('three', 'flat')):
            try:
                dt, _, ios = window(d)
                flat = ios / dt
            except (OSError, KeyError, IndexError):
                pass
        print('  %-12s the same readers at level 10: %s IOPS' % ('cfq-prio', f(flat, '%.0f')))
        mname = 'P2 mix/one-level-%s' % name.split('-', 1)[-1]
        bench(mname, mixed / flat if mixed and flat else None, '%.2f', '>=0.85', lambda x: x >= 0.85)
        val(mname, 'cfq-prio', mixed / flat if mixed and flat else None)
    if cfg.startswith('pair'):
        lo_r, hi_r = 10 * (1 - t), 10 * (1 + t)
        bench('P2 level19/level1-%s' % cfg.split('-')[-1], ratio19, '%.2f', '%.2f..%.2f' % (lo_r, hi_r),
              lambda x: lo_r <= x <= hi_r)

def jain(xs):
    s = sum(xs)
    q = sum(x * x for x in xs)
    return s * s / (len(xs) * q) if q else None

def p3(top):
    jc = None
    for d in runs(top, 'p3-'):
        s = rd(os.path.join(d, 'sched'))
        try:
            dt, got, ios = window(d)
        except (OSError, KeyError, IndexError):
            print('  %-12s (no data)' % s)
            continue
        xs = [v for v in got.values() if v is not None]
        j = jain(xs) if len(xs) == len(got) and xs else None
        per = sorted(x / 4096 / dt for x in xs)
        print('  %-12s %6.0f IOPS  Jain %s  per reader IOPS min %.0f max %.0f' % (
            s, ios / dt, f(j, '%.4f'), per[0] if per else 0, per[-1] if per else 0))
        val('P3 jain-index', s, j)
        if s == 'cfq-prio':
            jc = j
    bench('P3 jain-index', jc, '%.4f', '>=0.98', lambda x: x >= 0.98)

# -- P4: RT latency ------------------------------------------------------------
def pct(xs, p):
    """nearest-rank percentile of a sorted list"""
    if not xs:
        return None
    return xs[min(len(xs) - 1, max(0, math.ceil(p / 100 * len(xs)) - 1))]

def p4(top, nrq):
    rc = None
    control = False
    print('  %-12s %26s %26s %7s %11s %10s  %s' % ('scheduler', 'idle: I/Os  p50  p99 (us)', 'busy: I/Os  p50  p99 (us)',
                                        'p99 x', 'turns p99 x', 'x 1st idle', 'busy readers, busy turns'))
    for d in runs(top, 'p4-%s-' % nrq):
        s = rd(os.path.join(d, 'sched'))
        skip = int(rd(os.path.join(d, 'skip'), '0'))
        phases = []
        for line in (rd(os.path.join(d, 'phases'), '') or '').splitlines():
            w = line.split()
            phases.append((w[0], int(w[1]) + skip, int(w[2])))
        lat = {'idle': [], 'busy': []}
        per = [[] for _ in phases]
        try:
            for line in open(os.path.join(d, 'rt_clat.1.log')):
                w = line.split(',')
                t, v = int(w[0]), int(w[1])
                for k, (ph, a, b) in enumerate(phases):
                    if a <= t < b:
                        lat[ph].append(v / 1000)
                        per[k].append(v / 1000)
                        break
        except OSError:
            pass
        # Each busy turn against the idle turn before it: a hiccup of the
        # host then spoils one pair, not the whole figure.
        pairs = []
        for k in range(1, len(phases)):
            if phases[k][0] == 'busy' and phases[k - 1][0] == 'idle' and per[k] and per[k - 1]:
                i99 = pct(sorted(per[k - 1]), 99)
                if i99:
                    pairs.append(pct(sorted(per[k]), 99) / i99)
        pairs.sort()
        if not lat['idle'] or not lat['busy']:
            print('  %-12s (no data)' % s)
            continue
        for v in lat.values():
            v.sort()
        i50, i99 = pct(lat['idle'], 50), pct(lat['idle'], 99)
        b50, b99 = pct(lat['busy'], 50), pct(lat['busy'], 99)
        pooled = b99 / i99 if i99 else None
        ratio = statistics.median(pairs) if pairs else None
        # Against the first turn, before the busy readers ever ran: in the
        # later idle turns a scheduler may still hold their requests
        # (strict real time starves them), so those turns are not idle.
        first = pct(sorted(per[0]), 99) if phases and phases[0][0] == 'idle' and per[0] else None
        vs_first = b99 / first if first else None
        # the busy readers' bytes over the busy turns
        bg = '-'
        try:
            lines = open(os.path.join(d, 'busy-snaps')).read().split('time ')[1:]
            tot = 0.0
            secs = 0.0
            for a, b in zip(lines[0::2], lines[1::2]):
                def parse(txt):
                    t = float(txt.split()[0])
                    r = {w[1]: int(w[2]) for w in (l.split() for l in txt.splitlines()) if len(w) == 3 and w[0] == 'r'}
                    return t, r
                ta, ra = parse(a)
                tb, rb_ = parse(b)
                secs += tb - ta
                tot += sum(rb_[n] - ra[n] for n in rb_ if n in ra)
            bg = '%.0f IOPS' % (tot / 4096 / secs)
        except (OSError, ValueError, ZeroDivisionError, IndexError):
            pass
        print('  %-12s %8d %7.0f %8.0f  %8d %7.0f %8.0f  %7s %11s %10s  %s' % (s, len(lat['idle']), i50, i99,
              len(lat['busy']), b50, b99, f(pooled, '%.2f'), f(ratio, '%.2f'), f(vs_first, '%.2f'), bg))
        if s == 'control':
            control = True
            continue
        val('P4 rt-p99-busy/idle-%s' % nrq, s, ratio)
        if s == 'cfq-prio':
            rc = ratio
    if control:
        print('  control: cfq-prio, the 8 readers on a twin of the device: they share only the guest\'s CPUs with the')
        print('  real time reader, so its ratio is what their running costs it under emulation, I/O aside (shown)')
    bench('P4 rt-p99-busy/idle-%s' % nrq, rc, '%.2f', '<=1.25', lambda x: x <= 1.25)

# -- P5: idle ---------------------------------------------------------------------
def lat_times(path):
    t = []
    try:
        for line in open(path):
            w = line.split(',')
            if len(w) > 1:
                t.append(int(w[0]))
    except OSError:
        pass
    return sorted(t)

def p5(top):
    share_c = gap_c = None
    print('  %-12s %10s %10s %9s %14s %16s' % ('scheduler', 'busy I/Os', 'idle I/Os', 'idle %', 'takeover (ms)', 'idle I/Os, 1 s'))
    for d in runs(top, 'p5-'):
        s = rd(os.path.join(d, 'sched'))
        busy = lat_times(os.path.join(d, 'busy_clat.1.log'))
        idle = lat_times(os.path.join(d, 'idle_clat.1.log'))
        w0, w1 = (int(x) for x in rd(os.path.join(d, 'window'), '0 0').split())
        if not busy or not w1:
            print('  %-12s (no data)' % s)
            continue
        nb = sum(1 for t in busy if w0 <= t < w1)
        ni = sum(1 for t in idle if w0 <= t < w1)
        share = ni / (nb + ni) if nb + ni else None
        stop = busy[-1]
        after = [t for t in idle if t > stop]
        gap = after[0] - stop if after else None
        rate = None
        if after:
            rate = sum(1 for t in after if t < after[0] + 1000)
        print('  %-12s %10d %10d %8.3f%% %14s %16s' % (s, nb, ni, 100 * share if share is not None else -1,
              f(gap, '%d'), f(rate, '%d')))
        val('P5 idle-share', s, share)
        val('P5 idle-takeover-ms', s, gap)
        if s == 'cfq-prio':
            share_c, gap_c = share, gap
    bench('P5 idle-share', share_c, '%.5f', '<=0.001', lambda x: x <= 0.001)
    bench('P5 idle-takeover-ms', gap_c, '%d', '<=200', lambda x: x <= 200)

# -- P6: many processes -------------------------------------------------------------
def p6(top):
    rc = None
    print('  %-12s %9s %10s %8s  %s' % ('scheduler', '10 procs', '1000 procs', '1000/10',
                                      '(IOPS, all turns) 1000 procs: how many read in a turn, Jain index over all'))
    for d in runs(top, 'p6-'):
        s = rd(os.path.join(d, 'sched'))
        iops = {}
        per = {}
        active = []
        for k in (10, 1000):
            ios = secs = 0
            for a in sorted(glob.glob(os.path.join(d, 'n%d-t*.a' % k))):
                b = a[:-1] + 'b'
                try:
                    sa, sb = snap(a), snap(b)
                except (OSError, KeyError):
                    continue
                ios += sb['stat'][0] - sa['stat'][0]
                secs += sb['time'] - sa['time']
                n = 0
                for name, y in sb['r'].items():
                    x = sa['r'].get(name)
                    dlt = y - x if x is not None and y is not None else 0
                    per.setdefault(k, {}).setdefault(name, 0)
                    per[k][name] += dlt
                    n += dlt > 0
                if k == 1000:
                    active.append(n)
            iops[k] = ios / secs if secs else None
        ratio = iops[1000] / iops[10] if iops.get(10) and iops.get(1000) else None
        jb = jain(list(per.get(1000, {}).values())) if per.get(1000) else None
        note = 'read in a turn: %s of 1000, Jain %s' % ('/'.join(str(x) for x in active) or '-', f(jb, '%.2f'))
        lb = levels(os.path.join(d, 'levels.b'))
        if lb:
            note += ', queues at level 10: %d' % lb[10]['queues']
        print('  %-12s %9s %10s %8s  %s' % (s, f(iops.get(10), '%.0f'), f(iops.get(1000), '%.0f'), f(ratio, '%.2f'), note))
        val('P6 iops-1000/10', s, ratio)
        if s == 'cfq-prio':
            rc = ratio
    bench('P6 iops-1000/10', rc, '%.2f', '>=0.80', lambda x: x >= 0.80)

# -- P7: buffered writes -------------------------------------------------------------
def p7(top):
    """per run: the writer's level (cfq-prio) or classic class, the device's
    write sectors over the window (the writeback: the reader only reads), the
    reader's rate from its fio output (after --ramp_time)"""
    MiB = 1024 * 1024
    got = {}
    print('  %-12s %-16s %12s %10s %12s %12s %12s  %s' % ('scheduler', 'writer', 'writeback', 'write IOPS',
          'reader (fio)', 'reader (dev)', 'writer (fio)', 'cfq-prio debugfs: sectors by level in the window'))
    ds = runs(top, 'p7-')
    ds.sort(key=lambda d: (order(rd(os.path.join(d, 'sched'), '')), -int(rd(os.path.join(d, 'level'), '-1'))))
    for d in ds:
        s = rd(os.path.join(d, 'sched'))
        lv = int(rd(os.path.join(d, 'level'), '-1'))
        who = rd(os.path.join(d, 'writer'), '?').replace('ioprio -n ', 'level ')
        try:
            a, b = snap(os.path.join(d, 'snap.a')), snap(os.path.join(d, 'snap.b'))
        except (OSError, KeyError, IndexError):
            print('  %-12s %-16s (no data)' % (s, who))
            continue
        dt = b['time'] - a['time']
        wb = (b['stat'][6] - a['stat'][6]) * 512 / dt / MiB
        wios = (b['stat'][4] - a['stat'][4]) / dt
        rdev = (b['stat'][2] - a['stat'][2]) * 512 / dt / MiB
        rfio = wfio = None
        try:
            rfio = fio(os.path.join(d, 'r.json'))['jobs'][0]['read']['bw_bytes'] / MiB
        except (OSError, ValueError, KeyError, IndexError):
            pass
        try:
            wfio = fio(os.path.join(d, 'writer.json'))['jobs'][0]['write']['bw_bytes'] / MiB
        except (OSError, ValueError, KeyError, IndexError):
            pass
        note = ''
        la, lb = levels(os.path.join(d, 'levels.a')), levels(os.path.join(d, 'levels.b'))
        secs = ldelta(la, lb, 'sectors')
        if secs:
            note = ', '.join('level %d %d' % (l, secs[l]) for l in sorted(secs) if secs[l])
        print('  %-12s %-16s %7.2f MiB/s %10.0f %6s MiB/s %6.2f MiB/s %6s MiB/s  %s' % (
            s, who, wb, wios, f(rfio, '%.2f'), rdev, f(wfio, '%.2f'), note))
        got.setdefault(s, {})[lv] = (wb, rfio if rfio is not None else rdev)
    rw = rr = None
    for s, g in sorted(got.items(), key=lambda x: order(x[0])):
        if 19 not in g or 1 not in g:
            continue
        w = g[19][0] / g[1][0] if g[1][0] else None
        r = g[1][1] / g[19][1] if g[19][1] else None
        val('P7 writeback-19/1', s, w)
        val('P7 reader-1/19', s, r)
        print('  %-12s writeback level 19 / level 1: %s, reader beside level 1 / beside level 19: %s' % (
            s, f(w, '%.2f'), f(r, '%.2f')))
        if s == 'cfq-prio':
            rw, rr = w, r
    bench('P7 writeback-19/1', rw, '%.2f', '>=5', lambda x: x >= 5)
    bench('P7 reader-1/19', rr, '%.2f', '>1.00', lambda x: x > 1.0)

cmd = sys.argv[1]
if cmd == 'p1':
    p1(sys.argv[2], sys.argv[3:])
elif cmd == 'p2':
    p2(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
elif cmd == 'p3':
    p3(sys.argv[2])
elif cmd == 'p4':
    p4(sys.argv[2], sys.argv[3])
elif cmd == 'p5':
    p5(sys.argv[2])
elif cmd == 'p6':
    p6(sys.argv[2])
elif cmd == 'p7':
    p7(sys.argv[2])
flush_bench()
PYEOF

an() { BENCH_SCHEDS="${SCHEDS[*]}" BENCH_CSV=$RESULTS python3 "$WORK/an.py" "$@" 2>&1; }

# ---------------------------------------------------------------------------
# Devices and schedulers.

# cur_sched DEV: CUR := the scheduler DEV runs (builtins only)
cur_sched() {
	local line
	read -r line <"/sys/block/$1/queue/scheduler"
	CUR=${line#*[}
	CUR=${CUR%%]*}
}

# use DEV SCHED: select the scheduler; on the slow device also raise
# nr_requests (a scheduler switch resets it).  Builtins only (P6).
use() {
	local dev=$1 s=$2 nr
	{ echo "$s" >"/sys/block/$dev/queue/scheduler"; } 2>/dev/null
	cur_sched "$dev"
	[ "$CUR" = "$s" ] || { note "cannot select $s on $dev (it runs $CUR)"; return 1; }
	if [ "$dev" = slow ] && [ "$s" != none ] && [ "$SLOW_NR_REQUESTS" != default ]; then
		{ echo $SLOW_NR_REQUESTS >"/sys/block/$dev/queue/nr_requests"; } 2>/dev/null ||
			note "cannot set nr_requests on $dev for $s"
		read -r nr <"/sys/block/$dev/queue/nr_requests"
		[ "$nr" = "$SLOW_NR_REQUESTS" ] || note "nr_requests on $dev for $s is $nr, not $SLOW_NR_REQUESTS"
	fi
	return 0
}

# The classic priority that stands in for a level on the mainline schedulers
# (DESIGN.md 3.2: level 19..18 is BE 0, level 1 is BE 7, 0 is IDLE, 20 RT).
prio_cmd() { # SCHED LEVEL -> prefix words
	local s=$1 l=$2
	if [ "$s" = cfq-prio ]; then
		echo "ioprio -n $l --"
	elif [ "$l" -ge 20 ]; then
		echo "ionice -c1 -n4"
	elif [ "$l" -le 0 ]; then
		echo "ionice -c3"
	else
		local be=$(((19 - l) / 2))
		[ $be -gt 7 ] && be=7
		echo "ionice -c2 -n$be"
	fi
}

# ---------------------------------------------------------------------------
# Background readers: fio jobs in threads of one fio process each, so that
# /proc/PID/io of that process counts the bytes its reader submitted.
R_PIDS=()
R_NAMES=()
RUN=

# reader NAME PREFIX FIOARGS...: start a reader on $DEV, results in $RUN
reader() {
	local name=$1 prefix=$2
	shift 2
	# shellcheck disable=SC2086
	$prefix fio --name="$name" --thread --filename="/dev/$DEV" --direct=1 \
		--rw=randread --bs=4k --norandommap --randrepeat=0 \
		--time_based --runtime=300 "$@" \
		--output-format=json --output="$RUN/$name.json" >"$RUN/$name.err" 2>&1 &
	R_PIDS+=($!)
	R_NAMES+=("$name")
}

readers_started() {
	started "${R_PIDS[@]}" || { note "readers did not all start: ${R_NAMES[*]}"; return 1; }
}

# snap FILE: time, the device's stat line, each reader's read bytes, and
# cfq-prio's level counters (FILE with .a/.b becomes levels.a/levels.b).
snap() {
	local file=$1 i st lines
	# Builtins only: the shell may compete with 1,000 busy processes (P6).
	read -r st <"/sys/block/$DEV/stat"
	{
		echo "time $EPOCHREALTIME"
		echo "stat $st"
		for i in "${!R_PIDS[@]}"; do
			rb "${R_PIDS[i]}"
			echo "r ${R_NAMES[i]} $RB"
		done
	} >"$file"
	local lv=/sys/kernel/debug/block/$DEV/sched/levels
	if [ -r "$lv" ]; then
		mapfile -t lines <"$lv"
		printf '%s\n' "${lines[@]}" >"${file%/*}/levels.${file##*.}"
	fi
	return 0
}

stop_readers() {
	[ ${#R_PIDS[@]} -eq 0 ] && return 0
	kill -TERM "${R_PIDS[@]}" 2>/dev/null
	wait "${R_PIDS[@]}" 2>/dev/null
	R_PIDS=()
	R_NAMES=()
}

# newrun NAME SCHED: a fresh folder for one run
newrun() {
	RUN=$WORK/$1
	mkdir -p "$RUN"
	echo "$2" >"$RUN/sched"
	: >"$RUN/meta"
}

# keep the fio JSON (and per-I/O latency logs) of the run in the results folder
keep() {
	local j
	for j in "$RUN"/*.json "$RUN"/*_clat.*.log; do
		[ -f "$j" ] && cp "$j" "$RAW/$(basename "$RUN")-$(basename "$j")"
	done
	for j in "$RUN"/*.err; do
		[ -s "$j" ] && grep -v '^fio: terminating on signal' "$j" | sed "s|^|# $(basename "$RUN") $(basename "$j" .err): |" | head -5
	done
	return 0
}

# A fixed CPU work load, to see how fast the (emulated) guest CPU is now.
cpu_probe() {
	local t0 i
	t0=$(now_ms)
	for ((i = 0; i < 20000; i++)); do :; done
	echo $(($(now_ms) - t0))
}

# nap SECONDS: sleep without a fork (read from a FIFO nobody writes)
mkfifo "$WORK/nap" && exec 7<>"$WORK/nap"
# nap SECONDS: sleep without a fork, on a fifo nobody writes.
nap() { read -r -t "$1" -u 7 _; return 0; }

section() { # TITLE
	say ""
	say "$*"
}

took() { # START
	say "  [took $(($(date +%s) - $1)) s]"
}

# ---------------------------------------------------------------------------
# P1: cost of the scheduler on a device faster than the CPU.  Under emulation
# the guest's speed follows the host's load from one second to the next, so
# one fio run (io_uring, 2 jobs x depth 32) goes on while the scheduler is
# switched under it (S12) in rounds: every round gives each scheduler a
# P1_WIN s window after P1_WARM s, and the ratios are taken within a round,
# then their median over the rounds.  mq-deadline's window is next to
# cfq-prio's, last in the round, the two swapped every other round: the
# host's load changes within seconds, and the ratio that the target judges
# is the one between them.  Every window follows a switch: a scheduler that
# went on from one round into the next measured 7-10 % faster than one just
# switched to, and the second of two adjacent windows about 5 % slower.
P1_ROUNDS=16 P1_WARM=0.5 P1_WIN=1 P1_RUNS=2
# cpu_ticks: USER_HZ ticks all CPUs spent busy (not idle or waiting) so far
cpu_ticks() {
	local cpu user nice sys idle iowait irq softirq steal rest
	read -r cpu user nice sys idle iowait irq softirq steal rest </proc/stat
	echo $((user + nice + sys + irq + softirq + steal))
}
# ipis: function call interrupts (remote completions) of all CPUs so far
ipis() {
	awk '$1 == "CAL:" { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i } END { print n + 0 }' /proc/interrupts
}
p1() {
	local n r s st a ta c i order fpid t0=$(date +%s)
	DEV=fast
	section "P1 cost: 4 KiB random reads on null_blk 'fast', io_uring, 2 jobs x depth 32; $P1_RUNS fio runs, in each the scheduler switched under it in" \
		"$P1_ROUNDS rounds, each scheduler ${P1_WIN} s per round after ${P1_WARM} s (mq-deadline next to cfq-prio, last, the two swapped every other round; every window follows a switch); read I/Os from the device's stat, CPU time from /proc/stat, IPIs (function call interrupts: completions sent back to the submitting CPU) from /proc/interrupts"
	# Instructions and cycles per I/O need a PMU, which an emulated CPU lacks.
	if perf stat -x, -e instructions -- true 2>&1 | grep -q 'not supported'; then
		say "  instructions and cycles per I/O: not counted, this CPU has no PMU (QEMU TCG): CPU time per I/O instead"
	fi
	local p1_order=()
	for s in "${SCHEDS[@]}"; do
		[ "$s" = mq-deadline ] || [ "$s" = cfq-prio ] || p1_order+=("$s")
	done
	for s in mq-deadline cfq-prio; do
		[[ " ${SCHEDS[*]} " != *" $s "* ]] || p1_order+=("$s")
	done
	: >"$RAW/p1-samples"
	for ((n = 1; n <= P1_RUNS; n++)); do
		use $DEV none
		fio --name=p1 --filename=/dev/$DEV --direct=1 --ioengine=io_uring --iodepth=32 \
			--numjobs=2 --rw=randread --bs=4k --norandommap --randrepeat=0 \
			--time_based --runtime=600 --group_reporting \
			--output-format=json --output="$RAW/p1-$n.json" >/dev/null 2>&1 &
		fpid=$!
		nap 2
		for ((r = 1; r <= P1_ROUNDS; r++)); do
			order=("${p1_order[@]}")
			# Swap the last two (mq-deadline and cfq-prio) every other round.
			if ! ((r % 2)) && [ ${#order[@]} -ge 2 ]; then
				s=${order[-1]}
				order[-1]=${order[-2]}
				order[-2]=$s
			fi
			# Not on from the last round: park on another one first.
			cur_sched $DEV
			if [ "$CUR" = "${order[0]}" ]; then
				if [ "$CUR" = none ]; then use $DEV mq-deadline; else use $DEV none; fi
			fi
			for s in "${order[@]}"; do
				use $DEV "$s" || continue
				nap $P1_WARM
				read -r st <"/sys/block/$DEV/stat"
				a=${st%% *} ta=$EPOCHREALTIME c=$(cpu_ticks) i=$(ipis)
				nap $P1_WIN
				read -r st <"/sys/block/$DEV/stat"
				echo "$n $r $s $((${st%% *} - a)) $ta $EPOCHREALTIME $(($(cpu_ticks) - c)) $(($(ipis) - i))" >>"$RAW/p1-samples"
			done
			note "P1 run $n round $r done"
		done
		kill -0 $fpid 2>/dev/null || note "fio stopped before the end of P1 run $n"
		kill -INT $fpid 2>/dev/null
		wait $fpid
	done
	an p1 "$RAW/p1-samples" "${SCHEDS[@]}" | tee -a "$REPORT"
	took $t0
}

# ---------------------------------------------------------------------------
# P2: shares of backlogged readers at different levels, at the device's
# default nr_requests, with readers that keep 1 (psync), 4 and 16 requests
# in flight.
P2_WARM=2 P2_WIN=6 P2_DEPTHS="1 4 16"
# depth_args DEPTH: fio options for a reader keeping DEPTH requests in flight
depth_args() {
	if [ "$1" = 1 ]; then echo "--ioengine=psync"; else echo "--ioengine=libaio --iodepth=$1"; fi
}
p2_run() { # CFG SCHED DEPTH LEVEL...
	local cfg=$1 s=$2 depth=$3 l i=0
	shift 3
	newrun "p2-$cfg-$s" "$s"
	use $DEV "$s" || return 1
	for l in "$@"; do
		local prefix
		i=$((i + 1))
		prefix=$(prio_cmd "$s" "$l")
		echo "l${l}_$i $((l + 1)) ${prefix% --} " | sed 's/ionice -c2 -n\([0-7]\)/BE\1/; s/ioprio -n /level /' >>"$RUN/meta"
		# shellcheck disable=SC2046
		reader "l${l}_$i" "$prefix" $(depth_args $depth)
	done
	readers_started
	nap $P2_WARM
	snap "$RUN/snap.a"
	nap $P2_WIN
	snap "$RUN/snap.b"
	stop_readers
	keep
}

# p2_mix PREFIX DEPTH: readers at levels 15, 10 and 5 under each scheduler
# (runs PREFIXthree-dDEPTH), then the same readers at level 10 under
# cfq-prio (PREFIXflat-dDEPTH).
p2_mix() {
	local s
	for s in "${SCHEDS[@]}"; do
		note "P2 $DEV 15:10:5 depth $2 $s"
		p2_run "$1three-d$2" "$s" "$2" 15 10 5
	done
	note "P2 $DEV 15:10:5 depth $2: the same readers at one level"
	p2_run "$1flat-d$2" cfq-prio "$2" 10 10 10
}

p2() {
	local s d tol t0=$(date +%s) SLOW_NR_REQUESTS=default
	DEV=slow
	section "P2 shares: backlogged readers on 'slow' at its default nr_requests, ${P2_WIN} s window after ${P2_WARM} s, judged by the bytes each reader read;" \
		"cfq-prio at levels, the mainline schedulers at the classic classes of those levels (19 = BE0, 1 = BE7; 15 = BE2, 10 = BE4, 5 = BE7)"
	for d in $P2_DEPTHS; do
		tol=0.15
		[ "$d" -lt 16 ] || tol=0.10
		say "  levels 19 and 1, depth $d each (want 10:1 within $tol):"
		for s in "${SCHEDS[@]}"; do
			note "P2 19:1 depth $d $s"
			p2_run pair-d$d "$s" $d 19 1
		done
		an p2 "$WORK" pair-d$d 19:1-d$d $tol | tee -a "$REPORT"
		say "  levels 15, 10 and 5, depth $d each (want 16:11:6 within $tol):"
		p2_mix "" $d
		an p2 "$WORK" three-d$d 15:10:5-d$d $tol | tee -a "$REPORT"
	done
	p2_deep
	p2_fill
	took $t0
}

# p2_deep: the same mix on 'deep' (32 slots), whose default slice_idle_us is
# 0: readers that keep few requests in flight do not fill it, each goes at
# its own pace, and the shares are shown but not judged; the mix must not
# lose throughput against one level.
p2_deep() {
	local d
	DEV=deep
	say "  on 'deep' at its default nr_requests and slice_idle_us ($(use deep cfq-prio && cat /sys/block/deep/queue/iosched/slice_idle_us)): levels 15, 10 and 5 (shares shown, not judged; want the mix >= 0.85 of one level):"
	for d in $P2_DEPTHS; do
		p2_mix deep- $d
		an p2 "$WORK" deep-three-d$d 15:10:5-deep-d$d - | tee -a "$REPORT"
	done
	DEV=slow
}

# p2_fill: readers that fill a device of many slots: 'fill' has 32 slots,
# like 'deep', but 4 ms completions, so that the device and not the emulated
# CPU limits them (8000 requests a second at most).  Readers at depth 16
# want 48 (15:10:5) or 32 (19:1) of its slots at its default nr_requests and
# slice_idle_us (0); the shares of 15:10:5, where the readers ask for more
# slots than there are, are judged as on 'slow' at depth 16.  19:1 is
# shown: two readers that keep 16 requests in flight each fit in the 32
# slots, and a scheduler that does not idle lets each go at its own pace.
p2_fill() {
	local s d=16
	DEV=fill
	say "  on 'fill' (32 slots, 4 ms) at its default nr_requests ($(cat /sys/block/fill/queue/nr_requests)) and slice_idle_us ($(use fill cfq-prio && cat /sys/block/fill/queue/iosched/slice_idle_us)), depth $d each: levels 15, 10 and 5 (want 16:11:6 within 0.10), then 19 and 1 (shown):"
	p2_mix fill- $d
	an p2 "$WORK" fill-three-d$d 15:10:5-fill-d$d 0.10 | tee -a "$REPORT"
	for s in "${SCHEDS[@]}"; do
		note "P2 fill 19:1 depth $d $s"
		p2_run fill-two-d$d "$s" $d 19 1
	done
	an p2 "$WORK" fill-two-d$d 19:1-fill-d$d - | tee -a "$REPORT"
	DEV=slow
}

# ---------------------------------------------------------------------------
# P3: eight readers at one level.
P3_WARM=2 P3_WIN=6
p3() {
	local s i t0=$(date +%s)
	DEV=slow
	section "P3 equal shares: 8 readers at level 10 (mainline: BE4), libaio depth 4 each, on 'slow', ${P3_WIN} s window; Jain's index over the bytes each read"
	for s in "${SCHEDS[@]}"; do
		note "P3 $s"
		newrun "p3-$s" "$s"
		use $DEV "$s" || continue
		for i in 1 2 3 4 5 6 7 8; do
			reader "r$i" "$(prio_cmd "$s" 10)" --ioengine=libaio --iodepth=4
		done
		readers_started
		nap $P3_WARM
		snap "$RUN/snap.a"
		nap $P3_WIN
		snap "$RUN/snap.b"
		stop_readers
		keep
	done
	an p3 "$WORK" | tee -a "$REPORT"
	took $t0
}

# ---------------------------------------------------------------------------
# P4: latency of a real time reader, idle device vs 8 busy readers.  Under
# emulation the latency tail moves with the host's load from one second to
# the next, so the two cases are interleaved in one run of the RT reader:
# the busy readers are stopped (SIGSTOP) and continued in turns of
# P4_PHASE s, and each completion of the RT reader counts for the phase it
# falls in, except in the first P4_SKIP ms of a phase (the stopped readers'
# requests drain, or the continued ones fill the queues again).
P4_PHASE=1.5 P4_PHASES=16 P4_SKIP=200
p4() {
	local t0=$(date +%s)
	# Twins of slow and deep for the control runs.
	nullb_create slow2 irqmode=2 completion_nsec=1000000 hw_queue_depth=2 size=1024 ||
		note "cannot create slow2: no control for slow"
	nullb_create deep2 irqmode=2 completion_nsec=1000000 hw_queue_depth=32 size=1024 ||
		note "cannot create deep2: no control for deep"
	p4_at slow default 4
	p4_at slow 4 4
	p4_at slow 128 4
	p4_at deep default 16
	nullb_remove slow2
	nullb_remove deep2
	took $t0
}
p4_at() { # DEV NR_REQUESTS DEPTH
	local s SLOW_NR_REQUESTS=$2 depth=$3 cfg=$1-$2
	DEV=$1
	section "P4 RT latency on '$DEV' at nr_requests $2: a real time reader (psync, depth 1; cfq-prio level 20, mainline ionice -c1) while 8 readers" \
		"(libaio depth $depth each, level 10 / BE4) are alternately stopped (idle device) and running (busy), $P4_PHASES turns of $P4_PHASE s;" \
		"completion latency (fio clat) of the RT reader, first $P4_SKIP ms of each turn left out;" \
		"'p99 x': busy p99 / idle p99 over all turns; 'turns p99 x': the median over the busy turns of busy p99 / p99 of the idle turn before (the verdict); 'x 1st idle': busy p99 / p99 of the first turn, before the busy readers first ran (shown)"
	for s in "${SCHEDS[@]}"; do
		note "P4 $cfg $s"
		newrun "p4-$cfg-$s" "$s"
		use $DEV "$s" || continue
		p4_run "$s" $DEV
	done
	# The control: the same readers on a twin of the device, so that they
	# share only the guest's CPUs with the real time reader.
	if [ -b /dev/${1}2 ] && [[ " ${SCHEDS[*]} " == *" cfq-prio "* ]]; then
		note "P4 $cfg control"
		newrun "p4-$cfg-control" control
		use $DEV cfq-prio && use ${1}2 cfq-prio && p4_run cfq-prio ${1}2
	fi
	an p4 "$WORK" "$cfg" | tee -a "$REPORT"
}
p4_run() { # SCHED READERS_DEV: one run of P4 in $RUN, the real time reader on $DEV
	local s=$1 i k rt rtpid ph
	echo "$P4_SKIP" >"$RUN/skip"
	p4_readers "$(prio_cmd "$s" 10)" "$2" || return 1
	kill -STOP "${R_PIDS[@]}"
	rt=$(prio_cmd "$s" 20)
	# shellcheck disable=SC2086
	$rt fio --name=rt --thread --filename=/dev/$DEV --direct=1 --ioengine=psync --rw=randread \
		--bs=4k --norandommap --randrepeat=0 --time_based --runtime=300 \
		--write_lat_log="$RUN/rt" --log_avg_msec=0 --log_unix_epoch=1 \
		--output-format=json --output="$RUN/rt.json" >"$RUN/rt.err" 2>&1 &
	rtpid=$!
	started $rtpid || note "the real time reader did not start"
	: >"$RUN/phases"
	for ((k = 0; k < P4_PHASES; k++)); do
		if ((k % 2)); then
			ph=busy
			kill -CONT "${R_PIDS[@]}"
			snap "$RUN/snap.a"
		else
			ph=idle
			((k)) && kill -STOP "${R_PIDS[@]}"
		fi
		set_now
		i=$NOW
		nap $P4_PHASE
		set_now
		echo "$ph $i $NOW" >>"$RUN/phases"
		[ $ph = busy ] && snap "$RUN/snap.b" && cat "$RUN/snap.a" "$RUN/snap.b" >>"$RUN/busy-snaps"
	done
	kill -TERM $rtpid
	wait $rtpid
	kill -CONT "${R_PIDS[@]}"
	# fio stops its jobs itself: a job killed under it can leave it stuck
	# until its reaping times out.
	kill -TERM $P4_FIO
	wait $P4_FIO
	R_PIDS=() R_NAMES=()
	keep
}
# p4_readers PREFIX DEV: P4's 8 busy readers, 8 processes forked by one fio
# (R_PIDS), each reading DEV at depth $depth.  Not 8 fio commands: the main
# thread of each fio wakes about every 5 ms to watch its jobs, and under
# emulation 8 of them, 1,500 wake-ups a second, cost the real time reader's
# p99 a third whatever the scheduler does (build/diag in the notes of
# issue 9); one costs it nothing that can be told from noise.
p4_readers() {
	local i t jobs=()
	for i in 1 2 3 4 5 6 7 8; do
		jobs+=(--name="b$i")
	done
	# shellcheck disable=SC2086
	$1 fio --filename="/dev/$2" --direct=1 --rw=randread --bs=4k --norandommap \
		--randrepeat=0 --time_based --runtime=300 --ioengine=libaio --iodepth=$depth \
		"${jobs[@]}" --output-format=json --output="$RUN/busy.json" >/dev/null 2>"$RUN/busy.err" &
	P4_FIO=$!
	R_PIDS=() R_NAMES=()
	for ((t = 0; t < 300 && ${#R_PIDS[@]} < 8; t++)); do
		nap 0.1
		mapfile -t R_PIDS < <(pgrep -P $P4_FIO)
	done
	for i in "${!R_PIDS[@]}"; do
		R_NAMES+=("b$((i + 1))")
	done
	[ ${#R_PIDS[@]} = 8 ] || { note "fio forked ${#R_PIDS[@]} of the 8 busy readers"; return 1; }
	readers_started
}

# ---------------------------------------------------------------------------
# P5: an idle reader next to a level-1 reader, and after it stops.
P5_WARM=1 P5_WIN=5 P5_AFTER=2
p5() {
	local s t0=$(date +%s) w0 w1
	DEV=slow
	section "P5 idle: an idle reader (cfq-prio level 0, mainline ionice -c3) and a busy level-1 reader (mainline BE7)," \
		"libaio depth 4 each, on 'slow'; idle share over ${P5_WIN} s, then the time from the busy reader's last" \
		"completion to the idle reader's next one, and the idle reader's I/Os in the second after that"
	for s in "${SCHEDS[@]}"; do
		note "P5 $s"
		newrun "p5-$s" "$s"
		use $DEV "$s" || continue
		reader busy "$(prio_cmd "$s" 1)" --ioengine=libaio --iodepth=4 \
			--write_lat_log="$RUN/busy" --log_avg_msec=0 --log_unix_epoch=1
		reader idle "$(prio_cmd "$s" 0)" --ioengine=libaio --iodepth=4 \
			--write_lat_log="$RUN/idle" --log_avg_msec=0 --log_unix_epoch=1
		# The idle reader may never get a request through: wait for the busy one.
		local bp=${R_PIDS[0]}
		started "$bp" || note "the busy reader did not start"
		nap $P5_WARM
		w0=$(now_ms)
		nap $P5_WIN
		w1=$(now_ms)
		echo "$w0 $w1" >"$RUN/window"
		kill -TERM "$bp"
		wait "$bp" 2>/dev/null
		nap $P5_AFTER
		R_PIDS=("${R_PIDS[1]}")
		R_NAMES=(idle)
		stop_readers
		keep
	done
	an p5 "$WORK" | tee -a "$REPORT"
	took $t0
}

# ---------------------------------------------------------------------------
# P6: 1,000 processes vs 10.  fio cannot run 1,000 jobs in the guest's 2 GiB
# (each job process takes 1.5 MB and more), so each process is a dd reading
# 4 KiB blocks with O_DIRECT (synchronous, one request at a time) from its
# own part of the device, all at the default level 10.  Both groups, 10 and
# 1,000 processes, are started once (they wait at a gate, a FIFO, until all
# are forked, so that forking is not slowed down by those already reading)
# and take turns: one group runs while the other is stopped (SIGSTOP; a
# stopped dd holds no request).  The turns interleave the two cases, so that
# the host's changing load hits both alike.  The scheduler is switched under
# the processes (S12); IOPS come from the device's read count.
P6_TURNS=3 P6_WARM=0.5 P6_WIN=1.5
P6_PIDS=()
P6_STARTED=0
p6_spawn() { # N: N more processes into P6_PIDS, waiting at the gate on fd 8
	local i n=${#P6_PIDS[@]}
	for ((i = n; i < n + $1; i++)); do
		{
			read -r _ <&8
			exec dd if=/dev/$DEV of=/dev/null bs=4k iflag=direct skip=$((i * 16384)) status=none 7<&- 8<&-
		} 2>/dev/null &
		P6_PIDS+=($!)
	done
}

# p6_count PID...: P6_STARTED := how many of them have read something
p6_count() {
	local p
	P6_STARTED=0
	for p in "$@"; do
		rb "$p"
		[ -n "$RB" ] && [ "$RB" != 0 ] && P6_STARTED=$((P6_STARTED + 1))
	done
}

p6_stop() {
	kill -CONT "${P6_PIDS[@]}" 2>/dev/null
	kill -TERM "${P6_PIDS[@]}" 2>/dev/null
	wait "${P6_PIDS[@]}" 2>/dev/null
	P6_PIDS=()
}

p6() {
	local s t k i t0=$(date +%s) t0ms t1 t2 gate=$WORK/p6-gate
	local -a small big
	DEV=fast
	section "P6 scale: 10 and 1,000 processes, each reading 4 KiB blocks with dd iflag=direct (sync, depth 1) from 'fast', level 10 (BE4);" \
		"per scheduler $P6_TURNS turns of each group (the other stopped), IOPS over ${P6_WIN} s of each turn after ${P6_WARM} s"
	for s in "${SCHEDS[@]}"; do
		newrun "p6-$s" "$s"
	done
	# With 1,000 runnable processes on 2 CPUs, a normal shell would get a
	# thousandth of the CPU: run this one at a real time CPU priority while
	# its children (reset on fork) stay normal, and use builtins only from
	# here on.
	chrt -f -R -p 10 $$ || note "cannot make the shell real time"
	use $DEV "${SCHEDS[0]}"
	rm -f "$gate"
	mkfifo "$gate" && exec 8<>"$gate"
	set_now; t0ms=$NOW
	p6_spawn 10
	p6_spawn 1000
	small=("${P6_PIDS[@]:0:10}")
	big=("${P6_PIDS[@]:10}")
	set_now; t2=$NOW
	for ((k = 0; k < ${#P6_PIDS[@]}; k++)); do echo; done >&8
	exec 8<&-
	rm -f "$gate"
	# Give them 10 s to start (with none, waiters for a tag can starve: the
	# table says how many read in each turn).
	nap 10
	set_now; t1=$NOW
	p6_count "${P6_PIDS[@]}"
	set_now
	say "  1,010 processes forked in $((t2 - t0ms)) ms; $P6_STARTED of them had read 10 s after the gate opened (with ${SCHEDS[0]}; counted in $((NOW - t1)) ms)"
	for s in "${SCHEDS[@]}"; do
		note "P6 $s"
		RUN=$WORK/p6-$s
		use $DEV "$s" || continue
		for ((t = 1; t <= P6_TURNS; t++)); do
			for k in 10 1000; do
				if [ $k = 10 ]; then
					kill -STOP "${big[@]}"
					kill -CONT "${small[@]}"
					R_PIDS=("${small[@]}")
				else
					kill -STOP "${small[@]}"
					kill -CONT "${big[@]}"
					R_PIDS=("${big[@]}")
				fi
				R_NAMES=()
				for ((i = 0; i < k; i++)); do R_NAMES+=("p$i"); done
				nap $P6_WARM
				set_now; t1=$NOW
				snap "$RUN/n$k-t$t.a"
				set_now
				note "P6 $s turn $t, $k processes: snapshot took $((NOW - t1)) ms"
				nap $P6_WIN
				snap "$RUN/n$k-t$t.b"
			done
		done
	done
	set_now; t1=$NOW
	p6_stop
	set_now
	note "P6: processes stopped in $((NOW - t1)) ms"
	R_PIDS=()
	R_NAMES=()
	chrt -o -p 0 $$
	an p6 "$WORK" | tee -a "$REPORT"
	took $t0
}

# ---------------------------------------------------------------------------
# P7: buffered writes (S13).  A buffered writer (fio, sequential 1 MiB
# writes over a 96 MiB file on ext4, rewritten in place, so that the memory
# the device keeps stays bounded) beside a level-10 direct reader (random
# 4 KiB reads of the device, libaio depth 4), on 'wb': the slow device with
# memory (memory_backed=1; 1 ms per request, two at a time, each
# scheduler's default nr_requests).  The dirty limits are small
# (vm.dirty_bytes 16 MiB, dirty_background_bytes 4 MiB), so that the writer
# is held to the pace of its writeback.  The writer at level 19 and at level
# 1 (mainline: ionice -c2 -n0 and -n7; on mq-deadline and BFQ, which have
# an idle class, also -c3: mq-deadline takes the class from the request,
# which carries the writer's here, BFQ from the submitting task, the
# flusher); its writeback rate is the device's write
# sectors over the window (the reader only reads), the reader's rate is its
# fio output after a ramp as long as the warm-up.
P7_WARM=2 P7_WIN=8 P7_MB=96
P7_MNT=
p7_run() { # SCHED LEVEL
	local s=$1 l=$2 w
	newrun "p7-$s-l$l" "$s"
	echo "$l" >"$RUN/level"
	use $DEV "$s" || return 1
	w=$(prio_cmd "$s" "$l")
	echo "${w% --}" >"$RUN/writer"
	# shellcheck disable=SC2086
	$w fio --name=writer --filename="$P7_MNT/big" --rw=write --bs=1M --size=${P7_MB}M \
		--ioengine=psync --time_based --runtime=300 \
		--output-format=json --output="$RUN/writer.json" >"$RUN/writer.err" 2>&1 &
	R_PIDS+=($!)
	R_NAMES+=(writer)
	reader r "$(prio_cmd "$s" 10)" --ioengine=libaio --iodepth=4 --ramp_time=$P7_WARM
	started "${R_PIDS[1]}" || note "the reader did not start"
	nap $P7_WARM
	snap "$RUN/snap.a"
	nap $P7_WIN
	snap "$RUN/snap.b"
	stop_readers
	sync
	keep
}

p7() {
	local s l t0=$(date +%s) rc=0 vm=/proc/sys/vm saved
	DEV=wb
	P7_MNT=$WORK/p7mnt
	section "P7 buffered writes: a buffered writer (fio, 1 MiB sequential writes rewriting a ${P7_MB} MiB file on ext4) beside a level-10 (BE4) reader" \
		"(random 4 KiB O_DIRECT reads of the device, libaio depth 4) on 'wb' (memory_backed null_blk, 1 ms, depth 2, default nr_requests)," \
		"vm.dirty_bytes 16 MiB, dirty_background_bytes 4 MiB; the writer at level 19 and 1 (mainline: ionice -c2 -n0 and -n7, and -c3 where classes" \
		"count), ${P7_WIN} s window after ${P7_WARM} s; writeback = the device's write sectors, reader = its fio rate over the window"
	if ! nullb_create wb memory_backed=1 irqmode=2 completion_nsec=1000000 hw_queue_depth=2 size=512; then
		say "  error: cannot create the null_blk device wb"
		return 1
	fi
	mkdir -p "$P7_MNT"
	if ! mkfs.ext4 -q -F -b 4096 -E lazy_itable_init=0,lazy_journal_init=0,nodiscard /dev/wb ||
		! mount /dev/wb "$P7_MNT" ||
		! dd if=/dev/zero of="$P7_MNT/big" bs=1M count=$P7_MB status=none; then
		say "  error: cannot make the ext4 filesystem and its file on wb"
		umount "$P7_MNT" 2>/dev/null
		nullb_remove wb
		return 1
	fi
	sync
	saved="$(cat $vm/dirty_ratio) $(cat $vm/dirty_background_ratio)"
	echo $((16 << 20)) >$vm/dirty_bytes
	echo $((4 << 20)) >$vm/dirty_background_bytes
	for s in "${SCHEDS[@]}"; do
		for l in 19 1 0; do
			# idle for the schedulers that serve the classic classes apart
			[ $l = 0 ] && case $s in mq-deadline | bfq) ;; *) continue ;; esac
			note "P7 $s writer at $l"
			p7_run "$s" $l || rc=1
		done
	done
	# writing the ratios restores them and clears the byte limits
	set -- $saved
	echo "$1" >$vm/dirty_ratio
	echo "$2" >$vm/dirty_background_ratio
	umount "$P7_MNT"
	nullb_remove wb
	an p7 "$WORK" | tee -a "$REPORT"
	took $t0
	return $rc
}

# ---------------------------------------------------------------------------
say "cfq-prio bench (DESIGN.md section 7): $(uname -r), $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) " MiB" }' /proc/meminfo), $(date -u '+%Y-%m-%d %H:%M UTC')"
say "fio: $(fio --version), ioprio_from_nice=$(cat /proc/sys/kernel/ioprio_from_nice)${only:+, only: $only}"
CPU0=$(cpu_probe)
say "guest CPU probe (a fixed shell loop; higher = slower, e.g. a loaded host): $CPU0 ms"

if ! nullb_create fast irqmode=1 hw_queue_depth=64 submit_queues=1 size=65536 ||
	! nullb_create slow irqmode=2 completion_nsec=1000000 hw_queue_depth=2 size=1024 ||
	! nullb_create deep irqmode=2 completion_nsec=1000000 hw_queue_depth=32 size=1024 ||
	! nullb_create fill irqmode=2 completion_nsec=4000000 hw_queue_depth=32 size=1024; then
	say "error: cannot create the null_blk devices"
	exit 1
fi
offered=" $(sched_offered fast) "
avail=()
for s in "${SCHEDS[@]}"; do
	case $offered in *" $s "*) avail+=("$s") ;; *) say "note: scheduler $s is not offered, left out" ;; esac
done
SCHEDS=("${avail[@]}")
use slow cfq-prio
say "schedulers: ${SCHEDS[*]} (default tunables); cfq-prio: $(cd /sys/block/slow/queue/iosched && for t in *; do printf '%s=%s ' "$t" "$(cat "$t")"; done)"
use slow bfq && say "bfq: $(cd /sys/block/slow/queue/iosched && for t in slice_idle low_latency; do printf '%s=%s ' "$t" "$(cat "$t")"; done)"
say "devices: fast (null_blk irqmode=1, depth 64, nr_requests $(cat /sys/block/fast/queue/nr_requests)); slow (irqmode=2, 1 ms, depth 2, nr_requests $SLOW_NR_REQUESTS unless a section says otherwise, none: 2); deep (irqmode=2, 1 ms, depth 32, nr_requests $(cat /sys/block/deep/queue/nr_requests)); fill (irqmode=2, 4 ms, depth 32, nr_requests $(cat /sys/block/fill/queue/nr_requests))"

for p in p1 p2 p3 p4 p5 p6 p7; do
	P=${p^^}
	wanted "$P" || continue
	note "$P starts"
	$p || ERRORS=$((ERRORS + 1))
done

CPU1=$(cpu_probe)
say ""
say "guest CPU probe at the end: $CPU1 ms (start: $CPU0 ms)"
say "summary: $(grep -c '^bench: .* met$' "$REPORT") met, $(grep -c '^bench: .* missed$' "$REPORT") missed, $(grep -c '^bench: .* n/a$' "$REPORT") not measured; whole run $(($(date +%s) - T_START)) s"
nullb_remove fast
nullb_remove slow
nullb_remove deep
nullb_remove fill
[ $ERRORS -eq 0 ] && ! grep -q '^bench: .* n/a$' "$REPORT"
