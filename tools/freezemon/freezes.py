#!/usr/bin/env python3
"""Machine freezes in a window of time, from a freezemon log (tools/freezemon/freezemon.c).

  freezes.py LOG SINCE [UNTIL]
      SINCE, UNTIL: wall-clock seconds (UNTIL default: now). Prints "N LONGEST_MS": how many
      freezes overlap the window and the longest one in ms. Lines of several CPUs whose
      spans overlap or lie within 50 ms of each other are one freeze of the machine,
      counted once. A missing or empty log prints "0 0".
"""
import sys
import time


def count(path, since, until):
    spans = []
    try:
        for line in open(path, errors="replace"):
            f = line.split()
            # freeze cpu N start S ms L
            if len(f) == 7 and f[0] == "freeze" and f[3] == "start" and f[5] == "ms":
                start, ms = float(f[4]), float(f[6])
                if start <= until and start + ms / 1000 >= since:
                    spans.append((start, start + ms / 1000))
    except OSError:
        pass
    n, longest, end = 0, 0.0, None
    for s, e in sorted(spans):
        if end is None or s > end + 0.05:
            n += 1
        end = e if end is None else max(end, e)
        longest = max(longest, (e - s) * 1000)
    return n, longest


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    until = float(sys.argv[3]) if len(sys.argv) == 4 else time.time()
    n, longest = count(sys.argv[1], float(sys.argv[2]), until)
    print(n, round(longest))


if __name__ == "__main__":
    main()
