"""A stateful fake of GitHub, served over real HTTP (uvicorn on loopback) for every test that talks
to GitHub: the Action's and the App's. Tests never call GitHub.

Repositories are real git repositories on disk; pull requests, apps, installations, tokens, check
runs and suites, workflow runs and webhook deliveries live in `FakeGitHub`. Request bodies are
validated with the pydantic models githubkit generates from GitHub's OpenAPI description, plus the
rules GitHub enforces beyond the schema; responses and webhook payloads follow GitHub's shapes
(templates from @octokit/webhooks-examples, vendored in tests/fixtures/webhooks) and are held to
githubkit's response and webhook models by tests/fakegithub_tests.

Serving and state
    serve(state=None) -> FakeServer(url, state)       context manager; uvicorn on 127.0.0.1:random
    fake.reset()                                      empty everything (ids keep counting; a request an
                                                      injected delay holds across it is answered 503,
                                                      touching and logged in nothing after it)
    fake.add_repo(full_name, path, default_branch=None, private=False) -> RepoInfo
    fake.add_pull(FakePull(...)); fake.pulls_for_head(repo, sha, forks=False)
    fake.add_token(token, write=True)                 a plain token for every repository (Action)
    fake.requests / fake.calls(method, path_regex)    the request log (Recorded, with credential);
                                  an entry lands once its answer is ready, so wait_until a count
    fake.limits (DiffLimits), fake.tree_truncated, fake.associate_fork_commits

Apps (apps.py, jwtcheck.py, gate.py)
    generate_key_pair() / shared_key_pair(name) -> KeyPair(private_pem, public_pem)
    fake.add_app(app_id, slug, name, public_key_pem, webhook_url=, webhook_secret=, permissions=,
                 events=, owner=, client_id=) -> FakeApp          (fake.next_app_id() for a fresh id)
    fake.add_installation(app_id, account, repos=[...] | "all", permissions=None) -> FakeInstallation
    fake.token_ttl (timedelta, 1 h), fake.clock_offset (skews GitHub's clock), fake.jwt_leeway
    fake.issue_token(installation, ...), fake.revoke_token(token)
  The JWT is RS256 by the app's key, `iss` its id (int or digit string; githubkit sends a string)
  or client ID, `iat` not in the future, `exp` in the future and at most 600 s after `iat`; GitHub's
  401 messages (jwtcheck.py). Installation tokens (`ghs_` + 36, checksummed) see only the
  installation's repositories (others 404) and hold only its permissions (403 "Resource not
  accessible by integration" with `x-accepted-github-permissions`).

Webhooks (webhooks.py, payloads.py, receiver.py)
    fake.deliver(app_id, event, payload, guid=None) -> Delivery     signed, sent, recorded; waits
    fake.deliver_raw(app_id, body, headers) / fake.webhook_headers(app_id, event, body)  forgeries
    fake.break_deliveries(app_id, times=1, status=None)   fail at GitHub's side (unreachable / 5xx)
    fake.redeliver(delivery_id); fake.webhook_timeout (10 s); fake.deliveries / deliveries_for(...)
    fake.wait_for_deliveries()            events the fake raises itself go out on a background thread
    payloads.pull_request(fake, action, pull, installation, before=, changes=),
    payloads.pull_request_base_changed, check_run, check_suite, workflow_run, merge_group,
    installation_event, installation_repositories, ping
    receiver() -> Receiver(url, received, status, delay)    a loopback endpoint that records
  Served: GET /app/hook/deliveries (per_page, cursor, status; Link rel="next"),
  GET /app/hook/deliveries/{id}, POST /app/hook/deliveries/{id}/attempts (202).

Checks and Actions (checks.py, actions.py, mergequeue.py)
    fake.add_check_run(repo, head_sha, name, status=, conclusion=, app_slug="github-actions", emit=True)
    fake.complete_check_run(run_id, conclusion="success", emit=True)
    fake.rerequest_check_run(run_id), fake.request_action(run_id, identifier),
    fake.rerequest_check_suite(suite_id)           a user's click: delivered to the owning app
    fake.add_workflow_run(repo, head_sha, name="CI", event=, status=, conclusion=, awaiting_approval=)
    fake.update_workflow_run / complete_workflow_run / approve_workflow_run; fake.dispatches
    fake.add_merge_group(pull) -> MergeGroup       a real merge commit on gh-readonly-queue/...
    fake.check_runs, fake.check_suites, fake.annotations, fake.runs_for(head_sha, name)
  GitHub echoes check_run created/completed to every subscribed app with checks read (its own
  included), check_suite completed when all runs are, rerequested/requested_action to the owner.

Rate limits and faults (ratelimit.py)
    fake.rate.limit (5,000/h per installation), fake.rate.content_per_minute (None; 80 on GitHub)
    fake.inject_server_error(method, path_regex, status=502, times=1)
    fake.inject_secondary_rate_limit(method, path_regex, status=403|429, retry_after=60, times=1)
    fake.inject_delay(method, path_regex, seconds, times=1)
    fake.inject_connection_reset(method, path_regex, times=1)
    fake.inject(Fault(...))                                  anything else
  Every answer carries x-ratelimit-limit/remaining/used/reset/resource and x-github-request-id.

Harness for App tests (harness.py; fixtures registered in tests/conftest.py)
    github_app -> AppWorld: .fake, .api_url, .app, .keys, .installation, .origin (GitRepo), .repo,
        .pull (#7), .app_env(), .webhooks_to(url), .open_pull(files, number=), .push(files),
        .commit_to_base(files), .send(event, payload), .send_pull_request(action),
        .app_client(), .installation_client()
    fake_github_server (session), wait_until(condition, timeout=10.0, what="")
"""

from tests.fakegithub.apps import ALL, FakeApp, FakeInstallation, KeyPair, generate_key_pair, shared_key_pair
from tests.fakegithub.server import FakeServer, serve
from tests.fakegithub.state import FakeGitHub, FakePull, Fault, Recorded
from tests.fakegithub.webhooks import Delivery

__all__ = [
    "ALL",
    "Delivery",
    "FakeApp",
    "FakeGitHub",
    "FakeInstallation",
    "FakePull",
    "FakeServer",
    "Fault",
    "KeyPair",
    "Recorded",
    "generate_key_pair",
    "serve",
    "shared_key_pair",
]
