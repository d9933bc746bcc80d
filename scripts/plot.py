#!/usr/bin/python3
"""Pictures of make demo and make bench, drawn on the host from the data the
guest wrote (matplotlib, the distribution's python3-matplotlib).

  scripts/plot.py demo DIR    DIR/shares.csv, DIR/events.csv -> DIR/shares.png
  scripts/plot.py bench DIR   DIR/results.csv, DIR/report.txt -> DIR/*.png and
                              DIR/report.md

shares.csv (tests/demo/guest.sh): scene,t,phase,reader,level,requests,mib_s,share
events.csv: scene,t,event
results.csv (tests/bench/guest.sh): target,scheduler,value,goal
"""
import csv
import os
import re
import sys

import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt  # noqa: E402

SCHEDS = ['none', 'mq-deadline', 'kyber', 'bfq', 'cfq-prio']
COLORS = {'a': '#1f77b4', 'b': '#2ca02c', 'c': '#ff7f0e', 'd': '#7f7f7f', 'e': '#d62728'}
SCHED_COLORS = {'none': '#9e9e9e', 'mq-deadline': '#8c6d31', 'kyber': '#7b4173',
                'bfq': '#3182bd', 'cfq-prio': '#d62728'}


def read_csv(path):
    with open(path, newline='') as f:
        return list(csv.DictReader(f))


def level_name(level):
    return {0: 'idle', 20: 'real time'}.get(level, 'level %d' % level)


def classic(level):
    """the classic class the mainline schedulers see for a level (DESIGN.md 3.2)"""
    if level >= 20:
        return 'RT'
    if level <= 0:
        return 'idle'
    return 'BE%d' % min(7, (19 - level) // 2) + (' (level %d)' % level if level in (19, 18) else '')


def short_event(text):
    """a few words for the picture, from the guest's event line"""
    rules = [(r'real time reader (\w) arrives', r'\1 (real time) arrives'),
             (r'^(\w) stops', r'\1 stops'),
             (r'renice --io (\d+) -p \d+ \((\w)', r'renice --io \1 \2'),
             (r'renice -n (\d+) -p \d+ \((\w)', r'renice -n \1 \2 (nice)'),
             (r'^([\w, ]+) stop: only the idle', r'\1 stop')]
    for pat, rep in rules:
        m = re.search(pat, text)
        if m:
            return m.expand(rep)
    return None if 'start reading' in text else text[:24]


def demo(d):
    rows = read_csv(os.path.join(d, 'shares.csv'))
    try:
        events = read_csv(os.path.join(d, 'events.csv'))
    except OSError:
        events = []
    takeover = None
    try:
        with open(os.path.join(d, 'takeover-ms')) as f:
            takeover = float(f.read().strip())
    except (OSError, ValueError):
        pass
    scenes = []
    for r in rows:
        if r['scene'] not in scenes:
            scenes.append(r['scene'])
    if not scenes:
        sys.exit('plot: no data in %s/shares.csv' % d)
    tmax = max(float(r['t']) for r in rows)
    ymax = max(float(r['mib_s']) for r in rows)
    fig, axes = plt.subplots(len(scenes), 1, figsize=(9, 2.7 * len(scenes) + 0.4), squeeze=False)
    for ax, scene in zip(axes[:, 0], scenes):
        readers = {}
        for r in rows:
            if r['scene'] != scene:
                continue
            s = readers.setdefault(r['reader'], {'t': [], 'y': [], 'levels': []})
            s['t'].append(float(r['t']))
            s['y'].append(float(r['mib_s']))
            lv = int(r['level'])
            if not s['levels'] or s['levels'][-1] != lv:
                s['levels'].append(lv)
        name_of = level_name if scene == 'cfq-prio' else classic
        for name in sorted(readers):
            s = readers[name]
            lv = s['levels']
            label = '%s: %s' % (name, ' \u2192 '.join(name_of(x) for x in lv))
            if name == 'b':
                label = 'b: nice 0 \u2192 10' + (' (%s)' % label[3:] if scene == 'cfq-prio' else '')
            ax.plot(s['t'], s['y'], color=COLORS.get(name), lw=1.6, label=label,
                    marker='.', ms=3)
        k = 0
        for e in events:
            if e['scene'] != scene:
                continue
            text = short_event(e['event'])
            if not text:
                continue
            t = float(e['t'])
            ax.axvline(t, color='k', ls=':', lw=0.8)
            ax.text(t + 0.2, ymax * (1.12 - 0.1 * (k % 2)), text, fontsize=7, va='top',
                    bbox=dict(fc='white', ec='none', alpha=0.8, pad=0.5))
            k += 1
        title = scene if scene == 'cfq-prio' else '%s (the levels as classic classes)' % scene
        if scene == 'cfq-prio' and takeover is not None:
            title += ': the idle reader has the disk %.0f ms after the others stop' % takeover
        ax.set_title(title, fontsize=9, loc='left')
        ax.set_xlim(0, tmax + 0.5)
        ax.set_ylim(0, ymax * 1.15)
        ax.set_ylabel('MiB/s', fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7, loc='center left', bbox_to_anchor=(1.0, 0.5), frameon=False)
    axes[-1, 0].set_xlabel('seconds', fontsize=8)
    fig.suptitle('make demo: who gets the slow disk (4 KiB random reads, 1 ms per request, 2 at a time)', fontsize=10)
    fig.tight_layout()
    out = os.path.join(d, 'shares.png')
    fig.savefig(out, dpi=80)
    print('plot: %s' % out)


# --- bench --------------------------------------------------------------------
def goal_lines(goal):
    """[(value, label)] from '<=0.001', '>=0.90', '>1.00' or '9.00..11.00'"""
    m = re.match(r'^(<=|>=|<|>)([0-9.]+)$', goal)
    if m:
        return [(float(m.group(2)), 'goal ' + goal)]
    m = re.match(r'^([0-9.]+)\.\.([0-9.]+)$', goal)
    if m:
        return [(float(m.group(1)), 'goal ' + goal), (float(m.group(2)), None)]
    return []


def fname(target):
    return re.sub(r'[^A-Za-z0-9.]+', '-', target).strip('-') + '.png'


def bar(ax, target, vals, goal):
    names = [s for s in SCHEDS if s in vals] + sorted(s for s in vals if s not in SCHEDS)
    ys = [vals[s] for s in names]
    bars = ax.bar(range(len(names)), ys, color=[SCHED_COLORS.get(s, '#555555') for s in names])
    for b, y in zip(bars, ys):
        ax.text(b.get_x() + b.get_width() / 2, y, '%.3g' % y, ha='center', va='bottom', fontsize=7)
    for v, label in goal_lines(goal):
        ax.axhline(v, color='#d62728', ls='--', lw=1, label=label)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, fontsize=7)
    ax.tick_params(axis='y', labelsize=7)
    top = max(ys + [v for v, _ in goal_lines(goal)] + [0])
    ax.set_ylim(0, top * 1.35 if top > 0 else 1)
    ax.set_title(target, fontsize=9)
    if goal_lines(goal):
        ax.legend(fontsize=7, loc='upper left', frameon=False)
    ax.grid(axis='y', alpha=0.3)


def bench(d):
    rows = read_csv(os.path.join(d, 'results.csv'))
    targets, vals, goals = [], {}, {}
    for r in rows:
        t = r['target']
        if t not in targets:
            targets.append(t)
        vals.setdefault(t, {})[r['scheduler']] = float(r['value'])
        goals[t] = r['goal']
    verdicts, head = {}, []
    report = ''
    try:
        with open(os.path.join(d, 'report.txt')) as f:
            report = f.read()
    except OSError:
        pass
    for line in report.splitlines():
        m = re.match(r'^bench: (.*) (\S+) (\S+) (met|missed|n/a)$', line)
        if m:
            verdicts[m.group(1)] = (m.group(2), m.group(4))
    for line in report.splitlines():
        if not line.strip():
            break
        head.append(line)
    files = []
    for t in targets:
        fig, ax = plt.subplots(figsize=(4.2, 2.8))
        bar(ax, t, vals[t], goals[t])
        fig.tight_layout()
        f = fname(t)
        fig.savefig(os.path.join(d, f), dpi=80)
        plt.close(fig)
        files.append(f)
    if targets:
        n = len(targets)
        cols = 3 if n > 4 else n
        nrows = (n + cols - 1) // cols
        fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 2.8 * nrows), squeeze=False)
        for ax, t in zip(axes.flat, targets):
            bar(ax, t, vals[t], goals[t])
        for ax in list(axes.flat)[n:]:
            ax.axis('off')
        fig.suptitle('make bench: each scheduler per target (DESIGN.md 7), goal lines for cfq-prio', fontsize=10)
        fig.tight_layout()
        fig.savefig(os.path.join(d, 'targets.png'), dpi=80)
        plt.close(fig)
    scheds = [s for s in SCHEDS if any(s in vals[t] for t in targets)]
    md = ['# make bench report', '']
    md += ['    ' + h for h in head] + ['']
    md.append('| target | goal | ' + ' | '.join(scheds) + ' | cfq-prio verdict |')
    md.append('|---|---|' + '---|' * len(scheds) + '---|')
    for t in targets:
        cells = ['%.4g' % vals[t][s] if s in vals[t] else '-' for s in scheds]
        v = verdicts.get(t, ('', ''))[1]
        md.append('| %s | %s | %s | %s |' % (t, goals[t], ' | '.join(cells), v))
    for t, (value, v) in verdicts.items():
        if t not in vals:
            md.append('| %s | | %s | %s: %s |' % (t, ' | '.join('-' for _ in scheds), value, v))
    md += ['', 'All targets: ![targets](targets.png)' if targets else '', '']
    for t, f in zip(targets, files):
        md.append('![%s](%s)' % (t, f))
    md += ['', '## The tables of report.txt', '', '```', report.rstrip(), '```', '']
    with open(os.path.join(d, 'report.md'), 'w') as f:
        f.write('\n'.join(md))
    print('plot: %s/report.md, %d picture(s)' % (d, len(files) + (1 if targets else 0)))


if __name__ == '__main__':
    if len(sys.argv) != 3 or sys.argv[1] not in ('demo', 'bench'):
        sys.exit('usage: plot.py demo|bench DIR')
    {'demo': demo, 'bench': bench}[sys.argv[1]](sys.argv[2])
