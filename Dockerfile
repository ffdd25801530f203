# The receipt GitHub App: `receipt serve` (webhook and receipt pages, and its worker process),
# configured only by RECEIPT_* variables (README "Deploying the App").
#   docker build -t receipt .
#   docker run -p 8080:8080 -v receipt-data:/data -e RECEIPT_APP_ID=123 \
#     -e RECEIPT_PRIVATE_KEY_PATH=/run/secrets/app.pem -e RECEIPT_WEBHOOK_SECRET=... receipt
# tests/deploy/test_dockerfile.py lints this file with hadolint and carries out its install steps
# in a fresh virtual environment, then starts the command and asks the health check.

FROM python:3.11.14-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 VENV=/opt/receipt
WORKDIR /src
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY action ./action
# Runtime dependencies only (no dev extras), pinned in pyproject.toml.
RUN python -m venv "$VENV" && "$VENV/bin/pip" install .

FROM python:3.11.14-slim-bookworm
ENV PATH=/opt/receipt/bin:$PATH PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
    RECEIPT_DATABASE_URL=sqlite:////data/receipt.sqlite3
RUN groupadd --system --gid 10001 receipt \
    && useradd --system --uid 10001 --gid 10001 --home-dir /data --create-home --shell /usr/sbin/nologin receipt
COPY --from=build /opt/receipt /opt/receipt
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8080/healthz', timeout=4).status != 200)"]
CMD ["receipt", "serve", "--host", "0.0.0.0", "--port", "8080"]
