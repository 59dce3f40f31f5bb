"""`python -m tests.unit.runtime.probe OUT CODE`: what a started process finds itself to be, as
JSON in OUT, then exit with CODE (`sleep`: wait for a signal instead; `raise`: an uncaught exception;
`said`: sys.exit with a message; `ends`: return after a non-daemon thread and an atexit handler that
write, unflushed, to stdout)."""
import atexit
import json
import os
import random
import signal
import sys
import threading

from bus import ids


def _handler(signum: int) -> str | int:
    """A Python handler's name; SIG_DFL/SIG_IGN as their numbers (a cold start inherits SIG_IGN for
    SIGINT from a starter that runs in the background of a shell)."""
    handler = signal.getsignal(signum)
    return getattr(handler, "__name__", None) or int(handler)


if __name__ == "__main__":
    out, code = sys.argv[1], sys.argv[2]
    with open(out, "w") as f:
        json.dump({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": os.environ.get("PROBE"),
                   "sid": os.getsid(0), "comm": open("/proc/self/comm").read().strip(), "pid": os.getpid(), "id": ids.new_id()[:16], "random": random.random(),
                   "threads": threading.active_count(), "sigint": _handler(signal.SIGINT),
                   "sigterm": int(signal.getsignal(signal.SIGTERM))}, f)
    print("to stdout")
    print("to stderr", file=sys.stderr)
    if code == "sleep":
        signal.pause()
    if code == "raise":
        raise RuntimeError("the probe's own error")
    if code == "said":
        sys.exit("the probe says why")
    if code == "ends":
        sys.stdout = open(1, "w", buffering=1 << 16, closefd=False)  # nothing written before the exit flushes it
        atexit.register(lambda: print("atexit ran"))
        threading.Thread(target=lambda: (threading.Event().wait(0.3), print("thread finished"))).start()
    else:
        sys.exit(int(code))
