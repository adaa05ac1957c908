#!/usr/bin/env python3
"""The package mirror's only way into scripts/fresh-check.sh's root.

The root runs in a network namespace with no route out: its apt talks to
an HTTP proxy on the namespace's loopback (`relay`), which hands each
connection over a UNIX socket to `serve` in the host's namespace; `serve`
forwards a request only when its host is one of the mirrors the host's
apt uses (--allow), one request per connection (the root's apt is told
not to pipeline), and refuses everything else with 403.

usage: fresh-proxy.py serve --unix PATH --allow HOST[,HOST...]
                            [--upstream http://PROXY:PORT/]
       fresh-proxy.py relay --listen ADDR:PORT --unix PATH
"""
import argparse
import os
import socket
import socketserver
import sys
import threading
import urllib.parse

BUF = 1 << 16


def pump(src, dst):
    """Copy src to dst until src ends, then end dst's writing side."""
    try:
        while True:
            data = src.recv(BUF)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    try:
        dst.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def splice(a, b):
    """Copy both ways between a and b until both directions end."""
    t = threading.Thread(target=pump, args=(b, a), daemon=True)
    t.start()
    pump(a, b)
    t.join()


def read_head(sock):
    """The request's head (up to the blank line) and what followed it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(BUF)
        if not chunk:
            return None, b""
        data += chunk
        if len(data) > 1 << 20:
            return None, b""
    head, rest = data.split(b"\r\n\r\n", 1)
    return head.decode("latin-1"), rest


def answer(sock, code, why):
    body = (why + "\n").encode()
    sock.sendall(b"HTTP/1.1 %d %s\r\nContent-Length: %d\r\n"
                 b"Connection: close\r\n\r\n%s" %
                 (code, why.encode(), len(body), body))


class Serve(socketserver.BaseRequestHandler):
    allow = frozenset()
    upstream = None  # (host, port) of the host's own apt proxy, if any

    def handle(self):
        c = self.request
        head, rest = read_head(c)
        if head is None:
            return
        lines = head.split("\r\n")
        try:
            method, target, version = lines[0].split(" ")
        except ValueError:
            answer(c, 400, "Bad Request")
            return
        if method == "CONNECT":
            host, _, port = target.rpartition(":")
            port = int(port or 443)
        else:
            u = urllib.parse.urlsplit(target)
            if u.scheme != "http" or not u.hostname:
                answer(c, 400, "Bad Request")
                return
            host, port = u.hostname, u.port or 80
        if host not in self.allow:
            sys.stderr.write("fresh-proxy: refused %s %s\n" % (method, target))
            answer(c, 403, "Forbidden")
            return
        try:
            up = socket.create_connection(self.upstream or (host, port), 60)
        except OSError as e:
            answer(c, 502, "Bad Gateway (%s)" % e.strerror)
            return
        with up:
            up.settimeout(None)
            if method == "CONNECT" and not self.upstream:
                c.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                if rest:
                    up.sendall(rest)
                splice(c, up)
                return
            if method != "CONNECT" and not self.upstream:
                path = u.path or "/"
                if u.query:
                    path += "?" + u.query
                lines[0] = "%s %s %s" % (method, path, version)
            keep = [l for l in lines if not l.lower().startswith(
                ("connection:", "proxy-connection:", "keep-alive:"))]
            if method != "CONNECT":
                keep.append("Connection: close")
            up.sendall(("\r\n".join(keep) + "\r\n\r\n").encode("latin-1"))
            if rest:
                up.sendall(rest)
            splice(c, up)


class Relay(socketserver.BaseRequestHandler):
    path = None

    def handle(self):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as up:
            up.connect(self.path)
            splice(self.request, up)


class UnixServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


class TCPServer(socketserver.ThreadingMixIn, socketserver.TCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--unix", required=True)
    s.add_argument("--allow", required=True)
    s.add_argument("--upstream")
    r = sub.add_parser("relay")
    r.add_argument("--listen", required=True)
    r.add_argument("--unix", required=True)
    a = p.parse_args()
    if a.mode == "serve":
        Serve.allow = frozenset(h for h in a.allow.split(",") if h)
        if a.upstream:
            u = urllib.parse.urlsplit(a.upstream)
            Serve.upstream = (u.hostname, u.port or 3128)
        if os.path.exists(a.unix):
            os.unlink(a.unix)
        srv = UnixServer(a.unix, Serve)
    else:
        Relay.path = a.unix
        host, _, port = a.listen.rpartition(":")
        srv = TCPServer((host, int(port)), Relay)
    srv.serve_forever()


if __name__ == "__main__":
    main()
