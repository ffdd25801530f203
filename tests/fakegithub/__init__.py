"""A stateful fake of GitHub's REST API, served over real HTTP for every test that talks to GitHub.

Repositories are real git repositories on disk; pull requests, tokens and check runs live in
`FakeGitHub`. Request bodies are validated with the pydantic models githubkit generates from
GitHub's OpenAPI description, plus the rules GitHub enforces beyond the schema. Responses follow
GitHub's shapes (templates from @octokit/webhooks-examples) and status codes.
"""

from tests.fakegithub.server import FakeServer, serve
from tests.fakegithub.state import FakeGitHub, FakePull, Fault, Recorded

__all__ = ["FakeGitHub", "FakePull", "FakeServer", "Fault", "Recorded", "serve"]
