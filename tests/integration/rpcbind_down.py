#!/usr/bin/env python3
"""The two ways a portmapper can fail a client, on 127.0.0.1:PORT.

usage: rpcbind_down.py unregistered|silent [PORT]     (PORT: 111)

  unregistered  a portmapper that answers every PMAPPROC_GETPORT with
                port 0: the program is not registered (rpcbind up, the
                NFS server down)
  silent        a listening socket whose accept queue is full: the
                kernel drops every new SYN, so a connect() waits as it
                would for a host that does not answer

Prints "READY" once the port is set up, then serves until killed.  Used
by tests/integration/test_nfs3_bench_down.sh inside its own network
namespace (port 111 there is nobody else's).
"""
import socket
import struct
import sys
import threading


def serve_unregistered(lsock):
    def one(conn):
        with conn:
            while True:
                hdr = conn.recv(4, socket.MSG_WAITALL)
                if len(hdr) < 4:
                    return
                n = struct.unpack(">I", hdr)[0] & 0x7FFFFFFF
                body = conn.recv(n, socket.MSG_WAITALL)
                if len(body) < n:
                    return
                xid = body[:4]
                # REPLY, MSG_ACCEPTED, AUTH_NONE verifier, SUCCESS, port 0
                reply = xid + struct.pack(">IIIIII", 1, 0, 0, 0, 0, 0)
                conn.sendall(struct.pack(">I", 0x80000000 | len(reply)) + reply)

    while True:
        conn, _ = lsock.accept()
        threading.Thread(target=one, args=(conn,), daemon=True).start()


def main():
    mode = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 111
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    if mode == "unregistered":
        lsock.listen(16)
        print("READY", flush=True)
        serve_unregistered(lsock)
    elif mode == "silent":
        # backlog 0 holds one connection; never accepted, it fills the
        # queue and the next SYNs are dropped
        lsock.listen(0)
        held = []
        for _ in range(2):
            c = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            c.setblocking(False)
            c.connect_ex(("127.0.0.1", port))
            held.append(c)
        print("READY", flush=True)
        threading.Event().wait()
    else:
        sys.exit("usage: rpcbind_down.py unregistered|silent [PORT]")


if __name__ == "__main__":
    main()
