#!/usr/bin/env python3
"""Web Push to a push service written here: a `kingpost serve` with a
VAPID key pushes a player's notifications to a local HTTP endpoint that
checks each request as a push service does and decrypts it as a browser
does, with implementations nobody here wrote: py_vapid verifies the
VAPID signature (RFC 8292), http_ece decrypts the aes128gcm payload
(RFC 8291) with the browser's private key.

    .venv/bin/python scripts/push-test.py --database sqlite
    .venv/bin/python scripts/push-test.py --database postgres://postgres@127.0.0.1:5432/test

Checks: the public key; each push's headers (TTL, Content-Encoding,
Authorization) and VAPID claims (audience the endpoint's origin, subject,
expiry within a day); the decrypted payloads of a challenge, a game's start
and a move (title, text, the page to open); a subscription whose push
service answers 410 is removed.
"""

import argparse
import base64
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import py_vapid
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from live_server import DEFAULT_BINARY, Server, drop_schema, free_port, scratch_database


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """A browser's side of a subscription: its P-256 key pair and secret."""

    def __init__(self, endpoint):
        self.endpoint = endpoint
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = os.urandom(16)

    def subscription(self):
        point = self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "expirationTime": None, "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)}}

    def decrypt(self, body):
        return json.loads(http_ece.decrypt(body, private_key=self.key, auth_secret=self.auth, version="aes128gcm"))


class PushService:
    """Receives pushes at /push/<name>: 201, or 410 for names in `gone`."""

    def __init__(self):
        self.received, self.gone, self.lock = [], set(), threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                name = self.path.rsplit("/", 1)[1]
                with service.lock:
                    service.received.append((name, self.headers, body, time.time()))
                self.send_response(410 if name in service.gone else 201)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.port = free_port()
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, name):
        return f"http://127.0.0.1:{self.port}/push/{name}"

    def wait(self, name, count, seconds):
        deadline = time.time() + seconds
        while time.time() < deadline:
            with self.lock:
                got = [r for r in self.received if r[0] == name]
            if len(got) >= count:
                return got
            time.sleep(0.05)
        raise AssertionError(f"{len(got)} pushes to {name} of {count} after {seconds} s")


def check_vapid(headers, endpoint, server_key):
    """The Authorization header as RFC 8292 has it: `vapid t=<JWT>, k=<key>`,
    the key the server publishes, the JWT signed by it (py_vapid checks the
    signature), for the endpoint's origin, with a contact, for a day at most."""
    scheme, _, params = headers["Authorization"].partition(" ")
    assert scheme.lower() == "vapid", headers["Authorization"]
    parts = dict(part.strip().split("=", 1) for part in params.split(","))
    assert parts["k"] == server_key, (parts["k"], server_key)
    header_and_claims, signature = parts["t"].rsplit(".", 1)
    verifier = py_vapid.Vapid02.from_raw_public(parts["k"].encode())
    assert verifier.verify_token(validation_token=header_and_claims.encode(), verification_token=signature), "a bad VAPID signature"
    claims = json.loads(unb64url(header_and_claims.split(".")[1]))
    origin = endpoint.split("/push/")[0]
    assert claims["aud"] == origin, (claims["aud"], origin)
    assert claims["sub"] == "mailto:push-test@kingpost.test", claims
    assert time.time() < claims["exp"] <= time.time() + 24 * 3600 + 60, claims


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", default="sqlite", help="sqlite, or a postgres:// URL")
    parser.add_argument("--binary", default=DEFAULT_BINARY)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="kingpost-push-")
    url, schema = scratch_database(args.database, work, "push")
    made = subprocess.run([args.binary, "vapid-key"], capture_output=True, text=True, check=True).stdout
    private_key = made.splitlines()[0].split("=", 1)[1]
    service = PushService()
    server = Server(
        url,
        ["--allow-private-webhooks", "--vapid-subject", "mailto:push-test@kingpost.test"],
        {"KINGPOST_VAPID_PRIVATE_KEY": private_key},
        binary=args.binary,
    )
    server.start()
    try:
        status, key = server.call("GET", "/push/public-key")
        assert status == 200 and len(unb64url(key["public_key"])) == 65, key
        server_key = key["public_key"]
        alice, bob = server.sign_up("alice"), server.sign_up("bob")
        phone, old = Browser(service.url("phone")), Browser(service.url("old"))
        service.gone.add("old")
        for browser in (phone, old):
            status, made = server.call("POST", "/push-subscriptions", bob, browser.subscription())
            assert status == 201, made

        print("- a challenge, a game's start and a move reach bob's browser, signed and encrypted")
        status, challenge = server.call("POST", "/challenges", alice, {"rules": "standard", "start": {"kind": "standard"}, "days_per_move": 3, "color": "white", "opponent": "bob"})
        assert status == 201, challenge
        service.wait("phone", 1, 20)
        status, game = server.call("POST", f"/challenges/{challenge['id']}/accept", bob)
        assert status == 201, game
        service.wait("phone", 2, 20)
        moved_at = time.time()
        status, _ = server.call("POST", f"/games/{game['id']}/moves", alice, {"move": "e2e4", "ply": 0})
        assert status == 200, _
        pushes = service.wait("phone", 3, 20)
        payloads = []
        for _, headers, body, _ in pushes:
            assert headers["Content-Encoding"] == "aes128gcm", headers
            assert int(headers["TTL"]) > 0, headers
            check_vapid(headers, phone.endpoint, server_key)
            payloads.append(phone.decrypt(body))
        assert pushes[2][1]["Topic"] == game["id"], "a newer push on the game replaces it at the push service"
        titles = [p["title"] for p in payloads]
        assert titles == ["alice challenges you", "A game against alice started", "Your move against alice: 1. e4"], titles
        move = payloads[2]
        assert move["url"] == f"/#/games/{game['id']}" and move["tag"] == game["id"], move
        assert "alice played 1. e4" in move["body"], move
        print(f"  the move's push arrived {1000 * (pushes[2][3] - moved_at):.0f} ms after the move was sent")

        print("- the subscription whose push service answers 410 is removed")
        service.wait("old", 1, 20)
        deadline = time.time() + 10
        while time.time() < deadline:
            status, listed = server.call("GET", "/push-subscriptions", bob)
            if [s["endpoint"] for s in listed["subscriptions"]] == [phone.endpoint]:
                break
            time.sleep(0.1)
        else:
            raise AssertionError(f"the gone subscription is still listed: {listed}")
        print(f"push test ({args.database.split(':')[0]}): every step passed")
    finally:
        server.stop()
        service.server.shutdown()
        drop_schema(args.database, schema)


if __name__ == "__main__":
    sys.exit(main())
