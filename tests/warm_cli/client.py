"""The stand-in process a test starts for a console script: it hands its standard streams,
argv, working folder and environment to the warm start server, forwards the signals it gets,
and ends as the command ended (its exit status, or killed by the same signal).

Standard library only, run with `python -S -E`, so it starts in milliseconds. Usage:
client.py SOCKET SCRIPT [ARG ...]
"""

import json
import os
import signal
import socket
import struct
import sys

FORWARDED = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
    signal.SIGALRM,
    signal.SIGWINCH,
    signal.SIGCONT,
)


def main() -> None:
    path, script, *args = sys.argv[1:]
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.connect(path)
    # what the caller ignored or blocked (nohup, a preexec_fn) is the command's to ignore or
    # block too, and is not forwarded
    ignored = [int(n) for n in FORWARDED if signal.getsignal(n) == signal.SIG_IGN]
    blocked = [int(n) for n in signal.pthread_sigmask(signal.SIG_BLOCK, [])]
    request = json.dumps(
        {
            "script": script,
            "args": args,
            "cwd": os.getcwd(),
            "env": dict(os.environ),
            "ignored": ignored,
            "blocked": blocked,
        }
    ).encode()
    socket.send_fds(server, [struct.pack("!I", len(request)) + request], [0, 1, 2])

    def forward(number: int, _frame: object) -> None:
        server.sendall(f"sig {number}\n".encode())

    for number in FORWARDED:
        if int(number) not in ignored:
            signal.signal(number, forward)
    received = b""
    while b"exit " not in received or not received.endswith(b"\n"):
        more = server.recv(1024)
        if not more:
            sys.stderr.write("warm start: the server is gone; the command's end is unknown\n")
            sys.exit(255)
        received += more
    status = int(received.split(b"exit ")[1].split(b"\n")[0])
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
