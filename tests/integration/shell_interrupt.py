#!/usr/bin/env python3
"""Ctrl-C in `weir shell` on a terminal (issue 19, item 16), driven through a pty.

Ctrl-C must cancel the half-typed line (the next command runs alone) and the running
command (a `tap` the node holds open), never end the shell; Ctrl-D and `exit` leave
with status 0. The REST API is a small stand-in server: what is tested is the
shell's terminal handling, not the node.

Every wait is bounded; a failure prints what the shell showed so far.
"""
import http.server
import os
import pty
import select
import signal
import socket
import sys
import tempfile
import threading
import time

WEIR = os.environ.get("WEIR_BIN")
WAIT = 20.0  # seconds: the longest any expected output may take to appear


class Api(http.server.BaseHTTPRequestHandler):
    """GET /connectors?expand=status answers no connectors; a tap is held open for
    60 s (longer than any wait here), as a node holds one until records pass."""

    tap_started = threading.Event()

    def do_GET(self):
        if "/tap" in self.path:
            Api.tap_started.set()
            deadline = time.time() + 60
            while time.time() < deadline:  # until the client goes away
                readable, _, _ = select.select([self.connection], [], [], 0.1)
                try:
                    if readable and not self.connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT):
                        return  # closed by the client
                except OSError:
                    return
            body = b""
        else:
            body = b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Shell:
    """`weir shell` on a pty, with everything it printed."""

    def __init__(self, url, home):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["HOME"] = home
            os.environ["LANG"] = "C.UTF-8"
            os.execv(WEIR, [WEIR, "shell", "--url", url])
        self.out = ""

    def type(self, text):
        os.write(self.fd, text.encode())

    def expect(self, text, after=0):
        """Waits until `text` appears in the output past offset `after`; returns where it ends."""
        deadline = time.time() + WAIT
        while time.time() < deadline:
            at = self.out.find(text, after)
            if at >= 0:
                return at + len(text)
            readable, _, _ = select.select([self.fd], [], [], 0.1)
            if readable:
                try:
                    self.out += os.read(self.fd, 4096).decode("utf-8", "replace")
                except OSError:  # the shell is gone
                    break
        fail(f"expected {text!r} in the shell's output after offset {after}")

    def prompt(self, after=0):
        """Waits for the prompt, then a moment more: libedit prints the prompt before it
        puts the terminal in raw mode, and a key typed in between is taken by the
        terminal's line discipline (a Ctrl-D there never reached the shell, 1 run in 25).
        A person never types that fast; a test must not either."""
        at = self.expect("weir> ", after)
        time.sleep(0.2)
        return at

    def exit_status(self):
        deadline = time.time() + WAIT
        while time.time() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return status
            try:
                readable, _, _ = select.select([self.fd], [], [], 0.1)
                if readable:  # a read with nothing to read would wait for ever
                    self.out += os.read(self.fd, 4096).decode("utf-8", "replace")
            except OSError:
                time.sleep(0.1)
        fail("the shell did not exit")

    def alive(self):
        return os.waitpid(self.pid, os.WNOHANG)[0] == 0


shell = None


def fail(message):
    print("FAIL:", message, file=sys.stderr)
    if shell:
        print("--- the shell's output ---\n" + shell.out, file=sys.stderr)
        try:
            os.kill(shell.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    sys.exit(1)


def check(condition, message):
    if not condition:
        fail(message)


def main():
    global shell
    if not WEIR:
        fail("WEIR_BIN is not set (tests/integration/meson.build sets it)")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Api)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    home = tempfile.mkdtemp(prefix="weir-shell-")

    shell = Shell(url, home)
    at = shell.prompt()

    # Ctrl-C at the prompt drops the half-typed line: the next command runs alone.
    shell.type("conn")
    shell.type("\x03")
    at = shell.expect("^C", at)
    at = shell.prompt(at)
    check(shell.alive(), "Ctrl-C at the prompt ended the shell")
    shell.type("connectors\n")
    at = shell.expect("no connectors", at)
    check("unknown command" not in shell.out, "the dropped half line was run")
    at = shell.prompt(at)

    # Ctrl-C during a tap cancels it; the shell goes on.
    shell.type("tap files 0 consumer\n")
    check(Api.tap_started.wait(WAIT), "the tap request never reached the server")
    shell.type("\x03")
    at = shell.expect("error: cancelled", at)
    at = shell.prompt(at)
    check(shell.alive(), "Ctrl-C during tap ended the shell")
    shell.type("connectors\n")  # the client works again after a cancel
    at = shell.expect("no connectors", at)
    at = shell.prompt(at)

    # Ctrl-D leaves, with status 0.
    shell.type("\x04")
    status = shell.exit_status()
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
          f"Ctrl-D: the shell ended with wait status {status}, not exit 0")

    # So does `exit`.
    shell = Shell(url, home)
    shell.prompt()
    shell.type("exit\n")
    status = shell.exit_status()
    check(os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0,
          f"exit: the shell ended with wait status {status}, not exit 0")
    server.shutdown()
    print("ok: Ctrl-C cancels the line and the tap; Ctrl-D and exit leave")


if __name__ == "__main__":
    main()
