#!/usr/bin/env python3
"""A Web Push service on loopback for the tests (RFC 8030), checking what clup-server sends with code of its own:
the VAPID header (RFC 8292) by py_vapid, the payload (RFC 8291, aes128gcm) decrypted by http_ece with the
subscription's private key, which only the test and this service know.

    push_service.py CERT KEY      HTTPS on 127.0.0.1, a free port; prints "ready PORT"

Reads commands on stdin, one per line:

    key ID PRIVATE AUTH           the browser keys of subscription ID (base64: the P-256 scalar, the auth
                                  secret); its endpoint is https://127.0.0.1:PORT/push/ID   -> ok key ID
    answer ID CODE...             the statuses to answer ID's next messages with, in turn
                                  (then 201)                                                -> ok answer ID
    redirect ID URL               answer ID's messages with 307 to URL                      -> ok redirect ID

and prints, for each message received (at any time, between the answers above):

    got ID TTL URGENCY JSON       verified and decrypted (JSON: the text, as one line)
    answered ID CODE              verified and decrypted, answered CODE (as told by `answer`)
    redirected ID                 answered 307 (as told by `redirect`)
    bad ID WHY                    refused (no or bad VAPID, a wrong audience, an undecryptable body, ...)
"""
import base64
import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
import py_vapid
from cryptography.hazmat.primitives.asymmetric import ec

keys = {}
answers = {}
redirects = {}
lock = threading.Lock()


def say(text):
    with lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()


def claims(header):
    """The VAPID token's claims, once py_vapid verified its signature with the key the header names."""
    scheme, _, params = header.partition(" ")
    if scheme.lower() != "vapid":
        raise ValueError("not a vapid Authorization")
    parts = dict(p.strip().split("=", 1) for p in params.split(","))
    if not py_vapid.Vapid02.verify("vapid t=%s,k=%s" % (parts["t"], parts["k"])):
        raise ValueError("VAPID signature does not verify")
    body = parts["t"].split(".")[1]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_POST(self):
        ident = self.path.rsplit("/", 1)[-1]
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length) if 0 < length <= 8192 else b""
        with lock:
            queue = answers.get(ident)
            code = queue.pop(0) if queue else 201
            redirect = redirects.get(ident)
        if redirect:
            self.send_response(307)
            self.send_header("Location", redirect)
            self.end_headers()
            say("redirected %s" % ident)
            return
        try:
            found = claims(self.headers.get("Authorization", ""))
            audience = "https://127.0.0.1:%d" % self.server.server_address[1]
            if found.get("aud") != audience:
                raise ValueError("audience %r, not %r" % (found.get("aud"), audience))
            if not time.time() < found.get("exp", 0) <= time.time() + 24 * 3600:
                raise ValueError("expiry out of range")
            if not str(found.get("sub", "")).startswith(("mailto:", "https://")):
                raise ValueError("no subject")
            if self.headers.get("Content-Encoding") != "aes128gcm":
                raise ValueError("Content-Encoding is not aes128gcm")
            private, auth = keys[ident]
            text = http_ece.decrypt(body, private_key=private, auth_secret=auth, version="aes128gcm")
            if code < 300:
                say("got %s %s %s %s" % (ident, self.headers.get("TTL"), self.headers.get("Urgency"),
                                         json.dumps(json.loads(text))))
            else:
                say("answered %s %d" % (ident, code))
        except Exception as error:  # a refused message is what the test looks for
            say("bad %s %s" % (ident, " ".join(str(error).split())))
            code = 400
        self.send_response(code)
        if code == 429:
            self.send_header("Retry-After", "1")
        self.send_header("Content-Length", "0")
        self.end_headers()


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    say("ready %d" % server.server_address[1])
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        with lock:
            if words[0] == "key":
                scalar = int.from_bytes(base64.b64decode(words[2]), "big")
                keys[words[1]] = (ec.derive_private_key(scalar, ec.SECP256R1()), base64.b64decode(words[3]))
            elif words[0] == "answer":
                answers[words[1]] = [int(c) for c in words[2:]]
            elif words[0] == "redirect":
                redirects[words[1]] = words[2]
        say("ok %s %s" % (words[0], words[1] if len(words) > 1 else ""))
    server.shutdown()


if __name__ == "__main__":
    main()
