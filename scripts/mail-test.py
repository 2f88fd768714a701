#!/usr/bin/env python3
"""E-mail through a real SMTP server: aiosmtpd receives what a release or
debug `kingpost serve` sends, and the mails are read with Python's own
e-mail parser.

    .venv/bin/python scripts/mail-test.py --database sqlite
    .venv/bin/python scripts/mail-test.py --database postgres://postgres@127.0.0.1:5432/test

Checks: the verification mail (sender, recipient, subject, a text and an
HTML part, the link) and the link verifying the address once; notices of
a challenge, a game's start and a move, with RFC 8058 one-click
unsubscribe headers; a mail server that is down leaves a move unharmed,
and its notice survives a SIGKILL of the server and is delivered once after
the restart; the one-click POST a mail client sends stops the notices;
"forgot password" by a real mail's link.
"""

import argparse
import email
import sys
import tempfile
import time
from email import policy

from aiosmtpd.controller import Controller

from live_server import Server, drop_schema, free_port, scratch_database


class Sink:
    """An SMTP server's end: every message received, as sent."""

    def __init__(self):
        self.received = []

    async def handle_DATA(self, server, session, envelope):
        self.received.append(email.message_from_bytes(envelope.content, policy=policy.default))
        return "250 OK"


def smtp_server(sink, port):
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    return controller


def wait_for(sink, count, seconds):
    deadline = time.time() + seconds
    while len(sink.received) < count and time.time() < deadline:
        time.sleep(0.1)
    assert len(sink.received) >= count, f"{len(sink.received)} mails of {count} after {seconds} s"


def mail_titled(sink, subject, seconds):
    """The first mail received with `subject`, waiting up to `seconds`."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        for mail in sink.received:
            if mail["Subject"] == subject:
                return mail
        time.sleep(0.1)
    raise AssertionError(f"no mail {subject!r} after {seconds} s: {[m['Subject'] for m in sink.received]}")


def check_notice(mail, address, subject):
    """A notification mail: both bodies, the link to act on, and RFC 8058's
    one-click unsubscribe headers naming a link of this server. The link."""
    assert mail["To"] == address and mail["Subject"] == subject, (mail["To"], mail["Subject"])
    assert mail.get_content_type() == "multipart/alternative", mail.get_content_type()
    text = mail.get_body(("plain",)).get_content()
    html = mail.get_body(("html",)).get_content()
    assert "https://chess.kingpost.test/#/" in text and 'href="https://chess.kingpost.test/#/' in html, text
    assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click", mail["List-Unsubscribe-Post"]
    header = mail["List-Unsubscribe"]
    prefix = "<https://chess.kingpost.test/api/v1/notifications/unsubscribe?token="
    assert header.startswith(prefix) and header.endswith(">"), header
    link = header[1:-1]
    assert link in text, "the footer names the same link"
    return link


def check_verification_mail(mail, address):
    assert mail["From"] == "kingpost <noreply@kingpost.test>", mail["From"]
    assert mail["To"] == address, mail["To"]
    assert mail["Subject"] == "Confirm your address for kingpost", mail["Subject"]
    assert mail.get_content_type() == "multipart/alternative", mail.get_content_type()
    text = mail.get_body(("plain",)).get_content()
    html = mail.get_body(("html",)).get_content()
    marker = "https://chess.kingpost.test/#/verify-email/"
    assert marker in text and f'href="{marker}' in html, (text, html)
    return text.split(marker, 1)[1].split()[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--database", default="sqlite", help="sqlite, or a postgres:// URL")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="kingpost-mail-")
    url, schema = scratch_database(args.database, work, "mail")
    sink, smtp_port = Sink(), free_port()
    smtp = smtp_server(sink, smtp_port)
    server = Server(url, [
        "--smtp-url", f"smtp://127.0.0.1:{smtp_port}",
        "--mail-from", "kingpost <noreply@kingpost.test>",
        "--public-url", "https://chess.kingpost.test",
    ])
    server.start()
    try:
        token = server.sign_up("alice")

        print("- the verification mail arrives, and its link verifies the address once")
        status, shown = server.call("PUT", "/account/email", token, {"address": "alice@example.org"})
        assert status == 202 and shown == {"address": "alice@example.org", "verified": False}, (status, shown)
        wait_for(sink, 1, 15)
        link = check_verification_mail(sink.received[0], "alice@example.org")
        status, _ = server.call("POST", "/account/email/verify", body={"token": link})
        assert status == 204, status
        status, problem = server.call("POST", "/account/email/verify", body={"token": link})
        assert status == 422 and problem["code"] == "invalid_token", (status, problem)
        status, shown = server.call("GET", "/account/email", token)
        assert shown == {"address": "alice@example.org", "verified": True}, shown

        print("- a challenge, a game's start and a move are mailed, with one-click unsubscribe")
        bob = server.sign_up("bob")
        status, challenge = server.call("POST", "/challenges", bob, {"rules": "standard", "start": {"kind": "standard"}, "days_per_move": 3, "color": "white", "opponent": "alice"})
        assert status == 201, challenge
        check_notice(mail_titled(sink, "bob challenges you", 15), "alice@example.org", "bob challenges you")
        status, game = server.call("POST", f"/challenges/{challenge['id']}/accept", token)
        assert status == 201, game
        check_notice(mail_titled(sink, "A game against bob started", 15), "alice@example.org", "A game against bob started")
        moves = f"/games/{game['id']}/moves"
        status, _ = server.call("POST", moves, bob, {"move": "e2e4", "ply": 0})
        assert status == 200, _
        unsubscribe = check_notice(mail_titled(sink, "Your move against bob: 1. e4", 15), "alice@example.org", "Your move against bob: 1. e4")
        status, _ = server.call("POST", moves, token, {"move": "e7e5", "ply": 1})
        assert status == 200, _

        print("- the mail server down: the move is answered, its notice waits")
        smtp.stop()
        status, _ = server.call("POST", moves, bob, {"move": "g1f3", "ply": 2})
        assert status == 200, _
        time.sleep(4)  # an attempt fails; the next is ten seconds on

        print("- the server killed, the mail server back: the notice is sent once")
        server.kill()
        sent_before = len(sink.received)
        smtp = smtp_server(sink, smtp_port)
        server.start()
        check_notice(mail_titled(sink, "Your move against bob: 2. Nf3", 40), "alice@example.org", "Your move against bob: 2. Nf3")
        time.sleep(5)
        assert len(sink.received) == sent_before + 1, f"{len(sink.received) - sent_before} mails: one was sent twice"

        print("- the one-click POST a mail client sends: no more notices")
        path = unsubscribe.split("/api/v1", 1)[1]
        status, page = server.call("POST", path, form="List-Unsubscribe=One-Click")
        assert status == 200 and "Unsubscribed" in page, (status, page)
        status, _ = server.call("POST", moves, token, {"move": "b8c6", "ply": 3})
        status, _ = server.call("POST", moves, bob, {"move": "f1b5", "ply": 4})
        assert status == 200, _
        received = len(sink.received)
        time.sleep(5)
        assert len(sink.received) == received, [m["Subject"] for m in sink.received[received:]]

        print("- forgot password: the link of a real mail sets a new one")
        status, _ = server.call("POST", "/account/password-reset", body={"login": "alice@example.org"})
        assert status == 202, _
        reset = mail_titled(sink, "Your kingpost password", 15)
        assert reset["List-Unsubscribe"] is None, "not a notification"
        marker = "https://chess.kingpost.test/#/reset-password/"
        reset_token = reset.get_body(("plain",)).get_content().split(marker, 1)[1].split()[0]
        status, _ = server.call("POST", "/account/password-reset/confirm", body={"token": reset_token, "new_password": "a new and long passphrase"})
        assert status == 204, _
        server.sign_in("alice", "a new and long passphrase")
        print(f"mail test ({args.database.split(':')[0]}): every step passed")
    finally:
        server.stop()
        smtp.stop()
        drop_schema(args.database, schema)


if __name__ == "__main__":
    sys.exit(main())
