"""A coverage-guided fuzzing campaign over the contracts of tests/fuzz/contracts.py, with atheris
(libFuzzer for Python): `python tools/fuzz_campaign.py --seconds 600` runs every target for that long
each, one process per target, seeded from tests/data/fuzz and the diffs of this repository's own
history (`git log -p`, when there is one), and prints the inputs tried, the coverage reached and the
failures found per target. A failure is any exception a contract does not allow; its input is saved
under --out as `crash-*`, to become a regression test. Exit status 1 when anything failed.

Install atheris first: `.venv/bin/pip install -e '.[fuzz]'`.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ("diff", "manifest", "glob", "regex", "patch", "tokens", "evaluation")


def _history_seeds(corpus: Path, limit: int) -> int:
    """Small diffs of this repository's commits, one file each."""
    try:
        shas = subprocess.run(
            ["git", "-C", str(ROOT), "log", "--format=%H", f"-{limit * 4}"],
            capture_output=True, check=True, text=True,
        ).stdout.split()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return 0
    written = 0
    for sha in shas:
        data = subprocess.run(
            ["git", "-C", str(ROOT), "show", "--format=", "--full-index", sha],
            capture_output=True,
            check=False,
        ).stdout
        if 200 < len(data) < 20_000:
            (corpus / f"git-{sha[:12]}").write_bytes(data)
            written += 1
        if written >= limit:
            break
    return written


def _seed(target: str, corpus: Path) -> None:
    seeds = sorted((ROOT / "tests" / "data" / "fuzz" / "diffs").glob("*.diff"))
    for path in seeds:
        (corpus / path.name).write_bytes(path.read_bytes())
    if target in ("diff", "patch", "evaluation"):
        _history_seeds(corpus, 40)
    if target == "manifest":
        for i, block in enumerate(re.findall(r"```yaml\n(.*?)```", (ROOT / "README.md").read_text(), re.S)):
            (corpus / f"readme-{i}.yml").write_text(block)


def _one_input(target: str) -> object:
    """The function libFuzzer calls with each input: bytes split by the provider into arguments."""
    import atheris

    with atheris.instrument_imports(include=["bot"]):
        from tests.fuzz import contracts

    def run(data: bytes) -> None:
        fdp = atheris.FuzzedDataProvider(data)
        if target == "diff":
            contracts.check_diff(data)
        elif target == "manifest":
            contracts.check_manifest(data)
        elif target == "glob":
            contracts.check_glob(fdp.ConsumeUnicodeNoSurrogates(200), fdp.ConsumeUnicodeNoSurrogates(300))
        elif target == "regex":
            contracts.check_regex(fdp.ConsumeUnicodeNoSurrogates(200), fdp.ConsumeBytes(1000))
        elif target == "patch":
            base = fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 2000))
            contracts.check_patch(fdp.ConsumeBytes(fdp.remaining_bytes()), base)
        elif target == "tokens":
            path = fdp.PickValueInList(["a.py", "a.js", "Makefile", "a.c", "NOTICE", "a.sql", "a.cs"])
            left = fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 4000))
            contracts.check_tokens(path, left, fdp.ConsumeUnicodeNoSurrogates(4000))
        else:
            manifest = fdp.ConsumeBytes(fdp.ConsumeIntInRange(0, 2000)) if fdp.ConsumeBool() else None
            head = fdp.ConsumeUnicodeNoSurrogates(fdp.ConsumeIntInRange(0, 2000))
            contracts.check_evaluation(fdp.ConsumeBytes(fdp.remaining_bytes()), manifest, head)

    return run


def _worker(target: str, seconds: int, corpus: Path, out: Path) -> None:
    import atheris

    sys.path.insert(0, str(ROOT))
    run = _one_input(target)
    args = [sys.argv[0], f"-max_total_time={seconds}", "-rss_limit_mb=4096", "-timeout=60",
            f"-artifact_prefix={out}/crash-{target}-", "-print_final_stats=1", str(corpus)]  # fmt: skip
    atheris.Setup(args, run)
    atheris.Fuzz()


_RUNS = re.compile(r"stat::number_of_executed_units:\s+(\d+)")
_COV = re.compile(r"cov: (\d+)")


def _campaign(targets: list[str], seconds: int, out: Path) -> int:
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    print(f"{'target':<12} {'inputs':>10} {'coverage':>9}  result")
    for target in targets:
        with tempfile.TemporaryDirectory() as work:
            corpus = Path(work)
            _seed(target, corpus)
            done = subprocess.run(
                [sys.executable, __file__, "--worker", target, "--seconds", str(seconds), "--corpus", work,
                 "--out", str(out)],
                capture_output=True, text=True, check=False, cwd=ROOT,
            )  # fmt: skip
        log = done.stderr
        runs = _RUNS.findall(log)
        cov = _COV.findall(log)
        crashed = done.returncode != 0
        failed += crashed
        result = "FAILED: " + (log.strip().splitlines() or ["?"])[-1] if crashed else "no failure"
        print(
            f"{target:<12} {runs[-1] if runs else '?':>10} {cov[-1] if cov else '?':>9}  {result}", flush=True
        )
        if crashed:
            (out / f"log-{target}.txt").write_text(log)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--seconds", type=int, default=60, help="time per target (default 60)")
    parser.add_argument("--target", action="append", choices=TARGETS, help="a target (default: all)")
    parser.add_argument("--out", type=Path, default=ROOT / ".fuzz", help="where failing inputs go")
    parser.add_argument("--worker", choices=TARGETS, help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        _worker(args.worker, args.seconds, args.corpus, args.out)
        return 0
    return _campaign(args.target or list(TARGETS), args.seconds, args.out)


if __name__ == "__main__":
    sys.exit(main())
