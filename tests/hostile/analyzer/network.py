"""Reach a server of the host on 127.0.0.1 (it listens on {PORT})."""
import socket
try:
    s = socket.create_connection(("127.0.0.1", {PORT}), timeout=2)
    s.sendall(b"{TOKEN}")
    print("ESCAPED: connected to the host")
except OSError:
    pass
