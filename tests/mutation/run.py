#!/usr/bin/env python3
"""Mutation testing: does a test fail when the code it claims to guard is wrong?

tests/mutation/mutants.md lists mutants: a file of src/ or harness/, a text
found in it exactly once, the text put in its place, the tests that should
catch the change and why the change would hurt a user. Each mutant is applied
alone to a scratch copy of the tree (never to the tree itself), the copy is
rebuilt incrementally (the mutated object, the links, the named tests) and the
named tests run: a test that fails kills the mutant; if all pass it survived.
A mutant the list marks equivalent (no behaviour can tell it apart) is not run;
its reason is printed.

  scripts/mutation.sh [--only FILE...] [--id ID...] [--report FILE] [--scratch DIR]
  scripts/mutation.sh --check      (every mutant still applies; no build; the check
                                    first catches faults it plants in a scratch tree)
  scripts/mutation.sh --list

The scratch copy is DIR/tree with its build in DIR/build (DIR: --scratch, or
$TOOLWIRE_MUTATION_DIR, or build-mutation/ of the tree); both are kept between
runs, so only the first run builds everything the named tests need. Before
any mutant, the named tests must pass on the unchanged copy (the baseline).
Exit status: 0 every non-equivalent mutant killed, 1 one survived (or the
baseline failed, or a mutant did not build), 2 a usage or list error.
"""
import argparse
import datetime
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIST = os.path.join(ROOT, "tests", "mutation", "mutants.md")
# What the mutants may change, and what a ctest test name may be.
MUTABLE = ("src/", "harness/")
CTEST_TIMEOUT = 600


class Mutant:
    def __init__(self, mid, path, line):
        self.id = mid
        self.path = path
        self.line = line
        self.tests = []
        self.why = ""
        self.equivalent = ""
        self.find = None
        self.replace = None


def die(msg):
    print("mutation: " + msg, file=sys.stderr)
    sys.exit(2)


def parse(path):
    """The mutants of the list: `## ID FILE`, `- tests: NAME ...`, `- why: ...`,
    `- equivalent: ...` (optional), then two fenced blocks: the text, and what
    replaces it (an empty block deletes the text)."""
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError as e:
        die(f"{path}: {e.strerror}")
    out, cur, i = [], None, 0
    while i < len(lines):
        ln = lines[i]
        m = re.match(r"^## (M\d+) (\S+)\s*$", ln)
        if m:
            cur = Mutant(m.group(1), m.group(2), i + 1)
            out.append(cur)
        elif ln.startswith("## "):
            die(f"{path}:{i + 1}: a mutant's heading is `## M<number> FILE`")
        elif cur and ln.startswith("- tests:"):
            cur.tests = ln[len("- tests:"):].split()
        elif cur and ln.startswith("- why:"):
            cur.why = ln[len("- why:"):].strip()
        elif cur and ln.startswith("- equivalent:"):
            cur.equivalent = ln[len("- equivalent:"):].strip()
        elif cur and ln.startswith("```"):
            j = i + 1
            while j < len(lines) and lines[j] != "```":
                j += 1
            if j == len(lines):
                die(f"{path}:{i + 1}: a fenced block that does not end")
            text = "\n".join(lines[i + 1:j])
            if cur.find is None:
                cur.find = text
            elif cur.replace is None:
                cur.replace = text
            else:
                die(f"{path}:{i + 1}: {cur.id} has a third block")
            i = j
        i += 1
    return out


def test_names():
    """The ctest tests the tree defines: a Criterion suite per tests/*/test_*.c,
    and the add_test(NAME ...) of the CMake files."""
    names = set()
    for d, _, files in os.walk(os.path.join(ROOT, "tests")):
        if "node_modules" in d or os.sep + "data" in d:
            continue
        names.update(f[:-2] for f in files if f.startswith("test_") and f.endswith(".c"))
    for cm in ("CMakeLists.txt", "fuzz/tests.cmake", "tests/schedule.cmake"):
        try:
            text = open(os.path.join(ROOT, cm), encoding="utf-8").read()
        except OSError:
            continue
        names.update(re.findall(r"add_test\(NAME\s+([A-Za-z0-9_]+)", text))
    return names


def check(mutants, root):
    """Every mutant well formed and still applying: its file exists, its text
    is found there exactly once, the replacement differs, its tests exist."""
    bad, seen = [], {}
    known = test_names()
    for m in mutants:
        where = f"{m.id} ({m.path})"
        if m.id in seen:
            bad.append(f"{where}: the id of the mutant at line {seen[m.id]} too")
        seen[m.id] = m.line
        if not m.path.startswith(MUTABLE):
            bad.append(f"{where}: a mutant changes src/ or harness/ only")
        if m.find is None or m.replace is None:
            bad.append(f"{where}: wants two fenced blocks, the text and its replacement")
            continue
        if not m.find.strip():
            bad.append(f"{where}: an empty text")
        if m.find == m.replace:
            bad.append(f"{where}: the replacement is the text itself")
        if not m.why:
            bad.append(f"{where}: no `- why:` (what a user would see)")
        if not m.tests and not m.equivalent:
            bad.append(f"{where}: no `- tests:` naming the tests that catch it")
        for t in m.tests:
            if t not in known:
                bad.append(f"{where}: no test {t}")
        try:
            src = open(os.path.join(root, m.path), encoding="utf-8").read()
        except OSError:
            bad.append(f"{where}: no such file")
            continue
        n = src.count(m.find)
        if n != 1:
            bad.append(f"{where}: the text is found {n} times, not once")
    return bad


def self_test():
    """The check first catches the faults it is there for, planted in a
    scratch tree: a text found twice, a text not found, a missing reason, an
    unknown test. Returns what it failed to catch (empty: all caught)."""
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "src"))
        with open(os.path.join(d, "src", "x.c"), "w", encoding="utf-8") as f:
            f.write("int a;\nint a;\nint b;\n")
        known = sorted(test_names())[0]
        cases = [("int b;", "int c;", "why", known, None),
                 ("int a;", "int c;", "why", known, "found 2 times"),
                 ("int z;", "int c;", "why", known, "found 0 times"),
                 ("int b;", "int c;", "", known, "no `- why:`"),
                 ("int b;", "int c;", "why", "test_no_such_suite", "no test test_no_such_suite")]
        missed = []
        for i, (find, repl, why, test, want) in enumerate(cases):
            m = Mutant(f"M{i}", "src/x.c", 1)
            m.find, m.replace, m.why, m.tests = find, repl, why, [test]
            got = check([m], d)
            if (want is None and got) or (want and not any(want in g for g in got)):
                missed.append(f"planted fault {i} ({want or 'none'}): got {got}")
        return missed


def tracked_files():
    r = subprocess.run(["git", "-C", ROOT, "ls-files", "-co", "--exclude-standard", "-z"],
                       capture_output=True, check=True)
    return [f for f in r.stdout.decode().split("\0") if f]


def sync(tree):
    """Make tree a copy of the working tree: a file is written only when its
    bytes differ (so the build redoes only what changed); files gone are removed."""
    files = tracked_files()
    keep = set()
    written = 0
    for rel in files:
        src = os.path.join(ROOT, rel)
        if not os.path.isfile(src) or os.path.islink(src):
            continue
        keep.add(rel)
        dst = os.path.join(tree, rel)
        with open(src, "rb") as f:
            data = f.read()
        try:
            with open(dst, "rb") as f:
                same = f.read() == data
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(dst, "wb") as f:
                f.write(data)
            os.chmod(dst, os.stat(src).st_mode & 0o777)
            written += 1
    for d, _, names in os.walk(tree):
        for n in names:
            rel = os.path.relpath(os.path.join(d, n), tree)
            if rel not in keep:
                os.unlink(os.path.join(d, n))
    return written


def write_now(path, text):
    """Write text; the file's time is later than any object built from it
    before, so the build always redoes its object."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    t = time.time() + 1
    os.utime(path, (t, t))


def run(cmd, log, **kw):
    with open(log, "a", encoding="utf-8") as lf:
        lf.write("$ " + " ".join(cmd) + "\n")
        lf.flush()
        return subprocess.run(cmd, stdout=lf, stderr=subprocess.STDOUT, **kw).returncode


def targets_of(tests):
    """The build targets a set of tests needs: the program, and each Criterion suite."""
    suites = set()
    for d, _, files in os.walk(os.path.join(ROOT, "tests")):
        suites.update(f[:-2] for f in files if f.startswith("test_") and f.endswith(".c"))
    return ["toolwire"] + sorted(t for t in tests if t in suites)


def ctest(build, tests, log):
    """Run the tests; the names of those that failed (empty: all passed)."""
    regex = "^(" + "|".join(re.escape(t) for t in tests) + ")$"
    out = subprocess.run(["ctest", "--test-dir", build, "-R", regex, "--timeout",
                          str(CTEST_TIMEOUT), "--output-on-failure"],
                         capture_output=True, text=True, errors="replace")
    with open(log, "a", encoding="utf-8") as lf:
        lf.write(out.stdout + out.stderr)
    failed = re.findall(r"^\s*\d+ - (\S+) \(", out.stdout, re.M)
    if out.returncode != 0 and not failed:
        failed = ["(ctest: exit %d)" % out.returncode]
    if out.returncode == 0 and "No tests were found" in out.stdout + out.stderr:
        failed = ["(no such test)"]
    return failed


def main():
    ap = argparse.ArgumentParser(prog="scripts/mutation.sh", description=__doc__.split("\n")[0])
    ap.add_argument("--only", nargs="+", metavar="FILE", help="the mutants of these files only")
    ap.add_argument("--id", nargs="+", metavar="ID", help="these mutants only (M01 ...)")
    ap.add_argument("--check", action="store_true", help="every mutant still applies; no build")
    ap.add_argument("--list", action="store_true", help="print the mutants and stop")
    ap.add_argument("--report", metavar="FILE", help="also write the results as Markdown")
    ap.add_argument("--scratch", metavar="DIR", help="the scratch copy and its build")
    ap.add_argument("--jobs", type=int, default=2, help="build jobs (default 2)")
    a = ap.parse_args()

    mutants = parse(LIST)
    if a.check:
        missed = self_test()
        for b in missed:
            print("mutation: the check missed a " + b, file=sys.stderr)
        if missed:
            return 1
        bad = check(mutants, ROOT)
        for b in bad:
            print("mutation: " + b, file=sys.stderr)
        if bad:
            return 1
        print(f"all {len(mutants)} mutants of tests/mutation/mutants.md apply (each text found "
              "exactly once); the check caught the faults planted in a scratch tree")
        return 0
    bad = check(mutants, ROOT)
    if bad:
        for b in bad:
            print("mutation: " + b, file=sys.stderr)
        return 2
    sel = mutants
    if a.only:
        only = {os.path.normpath(p) for p in a.only}
        sel = [m for m in sel if os.path.normpath(m.path) in only]
    if a.id:
        sel = [m for m in sel if m.id in set(a.id)]
    if not sel:
        die("no mutant is selected")
    if a.list:
        for m in sel:
            eq = "  [equivalent: " + m.equivalent + "]" if m.equivalent else ""
            print(f"{m.id} {m.path}: {m.why}{eq}")
        return 0

    scratch = os.path.abspath(a.scratch or os.environ.get("TOOLWIRE_MUTATION_DIR") or
                              os.path.join(ROOT, "build-mutation"))
    tree, build = os.path.join(scratch, "tree"), os.path.join(scratch, "build")
    log = os.path.join(scratch, "mutation.log")
    os.makedirs(tree, exist_ok=True)
    open(log, "w").close()
    # the data the tests read beside the tree (../shared of the tree), the same for the copy
    shared, link = os.path.join(os.path.dirname(ROOT), "shared"), os.path.join(scratch, "shared")
    if os.path.isdir(shared) and not os.path.lexists(link):
        os.symlink(shared, link)
    t0 = time.time()
    n = sync(tree)
    print(f"scratch copy {tree}: {n} file(s) updated; log {log}", flush=True)
    if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
        gen = ["-G", "Ninja"] if subprocess.run(["sh", "-c", "command -v ninja"],
                                                capture_output=True).returncode == 0 else []
        # no -Werror: a mutant that leaves a variable unused must still build
        if run(["cmake", "-S", tree, "-B", build, *gen, "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                "-DTOOLWIRE_WERROR=OFF"], log) != 0:
            die(f"the scratch copy does not configure (see {log})")
    live = [m for m in sel if not m.equivalent]
    every = sorted({t for m in live for t in m.tests})
    if live:
        print(f"baseline: building {len(targets_of(every))} target(s), running {len(every)} "
              "test(s) on the unchanged copy", flush=True)
        if run(["cmake", "--build", build, "-j", str(a.jobs), "--target",
                *targets_of(every)], log) != 0:
            die(f"the unchanged copy does not build (see {log})")
        failed = ctest(build, every, log)
        if failed:
            die("on the unchanged copy these tests fail already: " + " ".join(failed) +
                f" (see {log})")
    results = []
    for m in sel:
        if m.equivalent:
            results.append((m, "equivalent", [], 0.0))
            print(f"{m.id} {m.path}: equivalent ({m.equivalent})", flush=True)
            continue
        t = time.time()
        dst = os.path.join(tree, m.path)
        orig = open(dst, encoding="utf-8").read()
        write_now(dst, orig.replace(m.find, m.replace, 1))
        try:
            if run(["cmake", "--build", build, "-j", str(a.jobs), "--target",
                    *targets_of(m.tests)], log) != 0:
                verdict, by = "no build", []
            else:
                by = ctest(build, m.tests, log)
                verdict = "killed" if by else "survived"
        finally:
            write_now(dst, orig)
        secs = time.time() - t
        results.append((m, verdict, by, secs))
        print(f"{m.id} {m.path}: {verdict}" + (" by " + " ".join(by) if by else "") +
              f" ({secs:.0f} s)", flush=True)
    killed = sum(1 for r in results if r[1] == "killed")
    survived = [r for r in results if r[1] in ("survived", "no build")]
    equivalent = sum(1 for r in results if r[1] == "equivalent")
    judged = killed + len(survived)
    share = 100.0 * killed / judged if judged else 100.0
    summary = (f"{len(results)} mutants: {killed} killed, {len(survived)} survived, {equivalent} "
               f"equivalent; {share:.1f}% of the non-equivalent killed "
               f"({time.time() - t0:.0f} s)")
    print(summary)
    if a.report:
        write_report(a.report, mutants, results)
    return 1 if survived else 0


ROW = re.compile(r"^\| (M\d+) \| `([^`]*)` \| ([a-z ]+) \| (.*) \| (.*) \|$")


def write_report(path, mutants, results):
    """The results as Markdown. When the report exists, the mutants of this run
    replace their rows and the rows of the others are kept (a run of a few
    mutants updates a full report); rows of mutants no longer listed go; a
    `## Notes` section at its end (written by hand) is kept."""
    def cell(s):
        return s.replace("|", "\\|").replace("\n", " ")

    rows, notes = {}, []
    try:
        for ln in open(path, encoding="utf-8"):
            m = ROW.match(ln.rstrip("\n"))
            if notes or ln.startswith("## Notes"):
                notes.append(ln.rstrip("\n"))  # written by hand, kept as it is
            elif m:
                rows[m.group(1)] = (m.group(3), m.group(4))
    except OSError:
        pass
    for m, verdict, by, _ in results:
        how = m.equivalent if verdict == "equivalent" else " ".join(f"`{b}`" for b in by)
        rows[m.id] = (verdict, cell(how))
    listed = [m for m in mutants if m.id in rows]
    count = {v: 0 for v in ("killed", "survived", "no build", "equivalent")}
    for m in listed:
        count[rows[m.id][0]] = count.get(rows[m.id][0], 0) + 1
    judged = count["killed"] + count["survived"] + count["no build"]
    share = 100.0 * count["killed"] / judged if judged else 100.0
    rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                         text=True).stdout.strip()
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    lines = [
        f"# Mutation testing, {day}",
        "",
        "`scripts/mutation.sh` over the mutants of `tests/mutation/mutants.md` (docs/testing.md):",
        "each applied alone to a scratch copy of the tree, rebuilt, and the tests it names run.",
        f"Last updated at {rev}.",
        "",
        f"{len(listed)} mutants: {count['killed']} killed, "
        f"{count['survived'] + count['no build']} survived, {count['equivalent']} equivalent; "
        f"{share:.1f}% of the non-equivalent killed.",
        "",
        "| mutant | file | result | killed by, or why it is equivalent | what it would break |",
        "|---|---|---|---|---|",
    ]
    for m in listed:
        verdict, how = rows[m.id]
        lines.append(f"| {m.id} | `{m.path}` | {verdict} | {how} | {cell(m.why)} |")
    if notes:
        lines += [""] + notes
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines).rstrip("\n") + "\n")


if __name__ == "__main__":
    sys.exit(main())
