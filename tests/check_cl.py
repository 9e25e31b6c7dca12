#!/usr/bin/env python3
"""The strict compile check (TAP): every program the host built during the
test run, compiled by clang for SPIR with warnings.

The list is not written by hand: the suite's processes append each program
they ask for to TILEDCL_PROGRAM_LOG (files and the options the host's
builders made: "compiled|cached, ms, files, options"), and this check runs
after every other test and reads it. Programs are grouped by their files,
the names of the macros defined and the types given (the values of sizes
and counts change no code path clang checks), which bounds the set to a
few dozen; each group's first option set is compiled at -O0 (nothing
inlined: a helper without a definition of its own is left as a declared
function) and each file set once at -O2 as well. A compile fails on any
warning of -Wall but -Wunused-function (the preludes hold helpers each
program uses some of) and on any function the program declares but does
not define, other than OpenCL's built-ins.

    check_cl.py LOG CL_DIR

The log is consumed (removed), so that the next run checks what it built;
without one (the check run alone) it skips. Known warnings, each with its
reason, are in KNOWN below.
"""
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile

# (file, warning text) pairs that are not defects: why each is here.
KNOWN = {
    # A __local variable set by work-item 0 and read by all after a
    # barrier: clang's flow analysis knows no barriers.
    ("life/tiles.cl", "variable 'take' is used uninitialized"),
}

TYPES = r"(?:float|double|half|long|ulong|int|uint|short|ushort|char|uchar)"


def group_key(files, options):
    names = tuple(sorted(set(re.findall(r"-D(\w+)", options))))
    types = tuple(sorted(re.findall(r"-D(\w+=" + TYPES + r")\b", options)))
    return files, names, types


def read_log(path, cl_dir):
    groups = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                continue
            files, options = parts[2], parts[3]
            # programs of a private kernel directory (the cache tests) are not cl/'s
            if not all(os.path.isfile(os.path.join(cl_dir, n)) for n in files.split("+")):
                continue
            groups.setdefault(group_key(files, options), options)
    return groups


def source(cl_dir, files):
    names = files.split("+")
    parts = []
    for n in names:
        with open(os.path.join(cl_dir, n), encoding="utf-8") as f:
            text = f.read()
        # as the host joins them (src/runtime/clrt.c read_sources)
        parts.append(('#line 1 "%s"\n' % n if len(names) > 1 else "") + text + "\n")
    return "".join(parts)


def compile_one(cc, tmp, idx, cl_dir, files, options, level):
    src = os.path.join(tmp, "%d%s.cl" % (idx, level))
    with open(src, "w", encoding="utf-8") as f:
        f.write(source(cl_dir, files))
    out = os.path.join(tmp, "%d%s.ll" % (idx, level))
    opts = [o for o in options.split() if not o.startswith("-cl-std=")]
    cmd = [cc, "-x", "cl", "-cl-std=CL1.2", "-target", "spir64", "-Xclang",
           "-finclude-default-header", "-S", "-emit-llvm", level, "-Wall",
           "-Wno-unused-function", "-o", out, src] + opts
    r = subprocess.run(cmd, capture_output=True, text=True)
    problems = []
    for w in re.findall(r"^(\S+?):\d+:\d+: (?:warning|error): (.*)$", r.stderr, re.M):
        if not any(w[0] == k[0] and w[1].startswith(k[1]) for k in KNOWN):
            problems.append("%s: %s" % w)
    if r.returncode != 0 and not problems:
        problems.append(r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "clang failed")
    if r.returncode == 0:
        with open(out, encoding="utf-8") as f:
            own = [m for m in re.findall(r"^declare .*?@([\w.$]+)\(", f.read(), re.M)
                   if not m.startswith("_Z") and not m.startswith("llvm.")]
        if own:
            problems.append("declared, never defined: " + ", ".join(own))
    return problems


def main():
    log, cl_dir = sys.argv[1], sys.argv[2]
    cc = next((c for c in ("clang", "clang-14") if shutil.which(c)), None)
    if cc is None:
        print("1..0 # SKIP no clang (.ci/install-deps --tests installs it)")
        return 0
    if not os.path.isfile(log):
        print("1..0 # SKIP no program log: the check runs after the device and cli tests")
        return 0
    groups = read_log(log, cl_dir)
    os.unlink(log)
    jobs = []
    seen_files = set()
    for i, ((files, _, _), options) in enumerate(sorted(groups.items())):
        jobs.append((i, files, options, "-O0"))
        if files not in seen_files:
            seen_files.add(files)
            jobs.append((i, files, options, "-O2"))
    print("1..%d" % len(jobs))
    failed = 0
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        futures = [pool.submit(compile_one, cc, tmp, i, cl_dir, f, o, lvl) for i, f, o, lvl in jobs]
        for n, ((i, files, options, level), fut) in enumerate(zip(jobs, futures), 1):
            problems = fut.result()
            name = "%s %s %s" % (files, level, options)
            if problems:
                failed += 1
                print("not ok %d - %s" % (n, name))
                for p in problems[:5]:
                    print("# " + p)
            else:
                print("ok %d - %s" % (n, name))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
