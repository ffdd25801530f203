"""Arms: the candidate agents of a run, each described as fully as the run needs to name it.

`--arm NAME=COMMAND` is a shell command alone. An arm file (`--arm NAME=FILE.yml` or `--arm-file
FILE`; YAML, or JSON, which YAML reads) describes the whole configuration: the command, the model,
the prompt (a file beside it, whose text and digest go into run.json), the tools, the agent's
version and the environment variables it needs. It is validated like the manifest: every problem at
once, each with file:line:col. The agent gets the model, the tools and the prompt file as
`$RECEIPT_MODEL`, `$RECEIPT_TOOLS` (joined with ',') and `$RECEIPT_PROMPT_FILE`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.engine import digest_bytes
from bot.engine.manifest_spec import variable_name
from bot.engine.schema import Field, Invalid, ListOf, Mapping_, String, Walk, YamlSyntaxError, compose
from bot.fileread import read_limited
from bot.replay.errors import ReplayError
from bot.replay.tasks import check_name

ARM_FILE_SUFFIXES = (".yml", ".yaml", ".json")
MAX_ARM_FILE_BYTES = 64 * 1024
MAX_PROMPT_BYTES = 1024 * 1024


def _arm_name(name: str, walk: Walk) -> str | None:
    try:
        check_name(name, "name")
    except ReplayError as exc:
        return exc.problem
    return None


def _tool_name(name: str, walk: Walk) -> str | None:
    if "," in name or "\n" in name:
        return "a tool's name has no ',' or line break ($RECEIPT_TOOLS joins the names with ',')"
    return None


SPEC = Mapping_(
    {
        "name": Field(
            String(
                refine_with=_arm_name,
                description="The arm's name with --arm-file (default: the file's name without its "
                "suffix); --arm NAME=FILE names it NAME.",
            )
        ),
        "command": Field(
            String(
                max_length=16384,
                description="The agent's shell command, run with /bin/sh -c in the copy of the base "
                "commit; the task text is its standard input and $RECEIPT_TASK_FILE.",
            ),
            required=True,
        ),
        "model": Field(String(description="The model the agent uses; the agent gets it as $RECEIPT_MODEL.")),
        "prompt": Field(
            String(
                description="A file of instructions, relative to the arm file; its text is recorded in "
                "run.json with its digest, and the agent gets a copy as $RECEIPT_PROMPT_FILE."
            )
        ),
        "tools": Field(
            ListOf(
                String(refine_with=_tool_name),
                unique=True,
                description="The tools the agent may use; the agent gets them as $RECEIPT_TOOLS, "
                "joined with ','.",
            )
        ),
        "agent_version": Field(String(description="The agent's version, as its own --version says it.")),
        "env": Field(
            ListOf(
                String(refine_with=variable_name),
                unique=True,
                description="Environment variables this arm's agent gets from the caller's (an API key, "
                "say), besides --pass-env; their names are recorded, never their values.",
            )
        ),
        "description": Field(String(description="What this configuration is, for the report.")),
    },
    description="A candidate agent for `receipt replay run`: --arm NAME=FILE or --arm-file FILE.",
)


def json_schema() -> dict[str, Any]:
    """The arm file as JSON Schema (draft 2020-12), for editors: `receipt schema replay-arm`."""
    out: dict[str, Any] = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://receipt.dev/schema/receipt-replay-arm-v1.json",
        "title": "receipt replay arm",
    }
    out.update(SPEC.json_schema())
    return out


@dataclass(frozen=True, slots=True)
class Prompt:
    file: str  # as the arm file names it
    text: str

    def as_json(self) -> dict[str, Any]:
        return {"file": self.file, "digest": digest_bytes(self.text.encode("utf-8")), "text": self.text}


@dataclass(frozen=True, slots=True)
class Arm:
    """A candidate agent: its name, its command and, from an arm file, the rest of its configuration."""

    name: str
    command: str
    model: str | None = None
    prompt: Prompt | None = None
    tools: tuple[str, ...] | None = None
    agent_version: str | None = None
    env: tuple[str, ...] = ()
    description: str | None = None
    file: Mapping[str, str] | None = None  # {path, digest} of the arm file

    def as_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "command": self.command,
            "model": self.model,
            "prompt": self.prompt.as_json() if self.prompt is not None else None,
            "tools": list(self.tools) if self.tools is not None else None,
            "agent_version": self.agent_version,
            "env": list(self.env),
            "description": self.description,
            "file": dict(self.file) if self.file is not None else None,
        }

    @classmethod
    def from_json(cls, body: Mapping[str, Any]) -> Arm:
        """An arm as run.json records it (written by `as_json`, its digest checked by the store)."""
        prompt = body.get("prompt")
        tools = body.get("tools")
        return cls(
            name=str(body["name"]),
            command=str(body["command"]),
            model=body.get("model"),
            prompt=Prompt(str(prompt["file"]), str(prompt["text"])) if prompt else None,
            tools=tuple(tools) if tools is not None else None,
            agent_version=body.get("agent_version"),
            env=tuple(body.get("env") or ()),
            description=body.get("description"),
            file=body.get("file"),
        )

    def variables(self) -> dict[str, str]:
        """What the agent is told of its configuration (the prompt file is written by the runner)."""
        found = {}
        if self.model is not None:
            found["RECEIPT_MODEL"] = self.model
        if self.tools is not None:
            found["RECEIPT_TOOLS"] = ",".join(self.tools)
        return found


def read_input(path: Path, what: str, limit: int) -> bytes:
    """A file replay is named (a task set, an arm file, a prompt, a manifest), no further than `limit`;
    ReplayError naming it when it cannot be read or is larger."""
    try:
        data = read_limited(path, limit)
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read {what}: {exc.strerror}") from exc
    if len(data) > limit:
        raise ReplayError(f"{path}: {what} is larger than {limit:,} bytes")
    return data


def load_arm_file(path: Path, name: str | None = None) -> Arm:
    """The arm an arm file describes, named `name` or by the file; ReplayError naming every problem."""
    data = read_input(path, "the arm file", MAX_ARM_FILE_BYTES)
    try:
        node = compose(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path}: the arm file is not UTF-8 text: {exc.reason}") from exc
    except YamlSyntaxError as exc:
        raise ReplayError(exc.issue.render(str(path))) from exc
    if node is None:
        raise ReplayError(f"{path}: the arm file is empty; it needs at least 'command'")
    walk = Walk()
    raw = SPEC.validate(node, "", walk)
    if walk.issues or isinstance(raw, Invalid):
        issues = sorted(walk.issues, key=lambda i: (i.line, i.column))
        listed = "; ".join(i.render(str(path)) for i in issues)
        raise ReplayError(f"invalid arm file ({len(issues)} problem(s)): {listed}")
    prompt = None
    if "prompt" in raw:
        prompt_path = path.parent / raw["prompt"]
        try:
            text = read_input(prompt_path, "the prompt", MAX_PROMPT_BYTES).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ReplayError(f"{prompt_path}: the prompt is not UTF-8 text: {exc.reason}") from exc
        prompt = Prompt(raw["prompt"], text)
    return Arm(
        name=check_name(name or raw.get("name") or path.stem, "arm name"),
        command=raw["command"],
        model=raw.get("model"),
        prompt=prompt,
        tools=tuple(raw["tools"]) if "tools" in raw else None,
        agent_version=raw.get("agent_version"),
        env=tuple(raw.get("env", ())),
        description=raw.get("description"),
        file={"path": str(path), "digest": digest_bytes(data)},
    )


def _is_arm_file(value: str) -> bool:
    return value.endswith(ARM_FILE_SUFFIXES) and not any(c.isspace() for c in value)


def parse_arms(values: Sequence[str], files: Sequence[Path] = ()) -> tuple[Arm, ...]:
    """`--arm NAME=COMMAND` or `--arm NAME=FILE` (a value ending in .yml, .yaml or .json, with no
    space, is a file), then `--arm-file FILE`, in that order."""
    arms: list[Arm] = []
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not rest.strip():
            raise ReplayError(f"--arm {value!r}: write NAME=COMMAND or NAME=FILE")
        check_name(name, "arm name")
        arms.append(load_arm_file(Path(rest), name) if _is_arm_file(rest) else Arm(name, rest))
    arms.extend(load_arm_file(path) for path in files)
    seen: set[str] = set()
    for arm in arms:
        if arm.name in seen:
            raise ReplayError(f"arm {arm.name}: given twice")
        seen.add(arm.name)
    if not arms:
        raise ReplayError(
            "no --arm given: name at least one agent as NAME=COMMAND, NAME=FILE or --arm-file FILE"
        )
    return tuple(arms)
