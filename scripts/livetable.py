#!/usr/bin/env python3
"""Redraw make demo's per-second table in place on a terminal.

    ... | scripts/livetable.py        (stdout a terminal)

Copies the guest's log lines from stdin to stdout.  A row of the table (a
line that starts with the time: "    12.0 | ...") that comes right after
another row replaces it: the cursor goes back up over the screen lines the
previous row took (more than one when the terminal is narrower than the
row) and clears to the end of the screen.  Any other line (an event, a new
table head, ps output) is printed as it comes and leaves the last row above
it on the screen.  So each table shows one row that changes each second,
with the events scrolling past, and ends with its final row kept.

scripts/vm.sh puts it between the guest's log and the terminal only when
its output is a terminal; the log file itself keeps every row.
"""
import os
import re
import sys

ROW = re.compile(r'^ +[0-9]+\.[0-9] \| ')


def columns():
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns
    except OSError:
        return 0


def main():
    out = sys.stdout
    prev = 0  # screen lines the row on screen took; 0: the last line was no row
    for line in iter(sys.stdin.readline, ''):
        text = line.rstrip('\n')
        if ROW.match(text):
            if prev:
                out.write('\x1b[%dA\r\x1b[J' % prev)
            cols = columns()
            prev = max(1, -(-len(text) // cols)) if cols > 0 else 1
        else:
            prev = 0
        out.write(text + '\n')
        out.flush()


if __name__ == '__main__':
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
