"""What the scripts that play kingpost through lichess's clients share:
lichess's schemas (lichess-schemas/, copied from lichess's published API
description) and a check of a value against them, kingpost's own API for
what lichess's has no call for, and streams read on threads of their own.
"""

import json
import pathlib
import sys
import threading
import urllib.request

import berserk
import jsonschema
import referencing
import yaml

SCHEMAS = pathlib.Path(__file__).parent / "lichess-schemas"
PASSWORD = "correct horse battery staple"
TIMEOUT = 30


def registry():
    """lichess's schema files, resolving their `./Name.yaml` references, and
    the path files whose answers are described inline (`paths/`), resolving
    their `../../schemas/Name.yaml` ones."""
    resources = []
    for folder, base in ((SCHEMAS, "schemas"), (SCHEMAS / "paths", "tags/paths")):
        for path in folder.glob("*.yaml"):
            contents = yaml.safe_load(path.read_text())
            resource = referencing.Resource.from_contents(
                contents, default_specification=referencing.jsonschema.DRAFT202012
            )
            resources.append((f"file:///lichess/{base}/{path.name}", resource))
    return referencing.Registry().with_resources(resources)


REGISTRY = registry()


def conforms(value, schema_name):
    """Fails unless `value` is valid against lichess's `schema_name`: a
    schema file's name, or `paths/<file>#<pointer>` for one given inline."""
    if schema_name.startswith("paths/"):
        ref = f"file:///lichess/tags/{schema_name}"
    else:
        ref = f"file:///lichess/schemas/{schema_name}.yaml"
    validator = jsonschema.Draft202012Validator({"$ref": ref}, registry=REGISTRY)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
    if errors:
        details = "; ".join(f"{list(e.path)}: {e.message}" for e in errors[:5])
        sys.exit(f"not a lichess {schema_name}: {details}\n{json.dumps(value, default=str)}")
    return value


def call(base, method, path, body=None, token=None, text=None):
    """kingpost's own API, for what lichess's has no call for; `text` is
    sent as plain text instead of a JSON `body`."""
    request = urllib.request.Request(base + path, method=method)
    request.add_header("content-type", "text/plain" if text is not None else "application/json")
    if token:
        request.add_header("authorization", f"Bearer {token}")
    data = text.encode() if text is not None else json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(request, data, timeout=TIMEOUT) as answer:
        text = answer.read().decode()
        return json.loads(text) if answer.headers.get_content_type().endswith("json") else text


def personal_token(base, username, scopes=("game:read", "game:play", "challenge:write")):
    """A kingpost account and a personal token with `scopes` for its
    lichess client."""
    call(base, "POST", "/api/v1/accounts", {"username": username, "password": PASSWORD})
    session = call(
        base,
        "POST",
        "/api/v1/auth/token",
        {"grant_type": "password", "username": username, "password": PASSWORD},
    )["access_token"]
    created = call(base, "POST", "/api/v1/tokens", {"name": "berserk", "scopes": list(scopes)}, session)
    return created["token"]


def client(base, token):
    return berserk.Client(session=berserk.TokenSession(token), base_url=base)


def follow(iterator, into):
    """Puts each item of a stream into a queue, on a thread of its own."""

    def run():
        try:
            for item in iterator:
                into.put(item)
        except Exception as error:  # noqa: BLE001 (reported by the reader)
            into.put(error)
        into.put(None)

    threading.Thread(target=run, daemon=True).start()


def next_of(stream, what):
    item = stream.get(timeout=TIMEOUT)
    if item is None or isinstance(item, Exception):
        sys.exit(f"the stream ended waiting for {what}: {item!r}")
    return item


def raw(state):
    """A game stream's line as sent: berserk turns times into datetimes."""
    out = dict(state)
    for key in ("wtime", "btime", "winc", "binc"):
        if hasattr(out.get(key), "total_seconds"):
            out[key] = int(out[key].total_seconds() * 1000)
    if hasattr(out.get("createdAt"), "timestamp"):
        out["createdAt"] = int(out["createdAt"].timestamp() * 1000)
    return out
