#!/usr/bin/env python3
"""Compare what tshark shows of mkframes.c's valid frames with what the encoder put in them.

check_fields.py EXPECT.json LUA PCAP

EXPECT.json is mkframes' (one entry per frame: the Info column's expected text, and every
occurrence of each listed field). Runs `tshark -T fields` once over PCAP with every field
named there and prints one line per frame; exits 1 on the first frame that differs.
"""
import json
import subprocess
import sys


def norm(v, like):
    """A value as tshark prints it (-T fields), made comparable to the JSON's @p like: a
    number (decimal, 0x hex, or a boolean) or a string (bytes in hex, an address)."""
    if isinstance(like, int):
        if v in ("True", "False"):
            return int(v == "True")
        try:
            return int(v, 0)
        except ValueError:
            return v
    return v.replace(":", "").lower() if all(c in "0123456789abcdef:" for c in v) else v


def main():
    expect_file, lua, pcap = sys.argv[1:4]
    frames = json.load(open(expect_file))["frames"]
    fields = sorted({k for fr in frames for k in fr["fields"]})
    cmd = ["tshark", "-X", "lua_script:" + lua, "-r", pcap, "-T", "fields",
           "-E", "separator=/t", "-E", "occurrence=a", "-E", "aggregator=,",
           "-e", "frame.number", "-e", "_ws.col.Info"]
    for k in fields:
        cmd += ["-e", k]
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if out.returncode != 0 or "Lua Error" in out.stdout + out.stderr:
        print(out.stdout[-2000:], out.stderr[-2000:])
        sys.exit("check_fields: tshark failed")
    rows = {}
    for line in out.stdout.splitlines():
        cols = line.split("\t")
        if cols and cols[0].isdigit():
            rows[int(cols[0])] = cols
    bad = 0
    for fr in frames:
        row = rows.get(fr["n"])
        if row is None:
            sys.exit("check_fields: frame %d (%s) not in tshark's output" % (fr["n"], fr["what"]))
        info = row[1]
        errs = []
        if fr["info"] not in info:
            errs.append("Info %r lacks %r" % (info, fr["info"]))
        for k, want in fr["fields"].items():
            cell = row[2 + fields.index(k)] if 2 + fields.index(k) < len(row) else ""
            like = want[0] if want else 0
            got = [norm(v, like) for v in cell.split(",")] if cell != "" else []
            if got != want:
                errs.append("%s: %r, want %r" % (k, got, want))
        print("# frame %d, %s: %s" % (fr["n"], fr["what"], "; ".join(errs) if errs else
              "%d fields as encoded" % len(fr["fields"])))
        bad += bool(errs)
    if bad:
        sys.exit("check_fields: %d of %d frames differ from what the encoder wrote" % (
            bad, len(frames)))


if __name__ == "__main__":
    main()
