"""A Mosquitto broker for the tests: 127.0.0.1 only, free ports, a TCP and a WebSocket
listener, stopped after (docs/ONLINE.md "Tests").

  with Broker() as b:            # b.port (TCP), b.ws_port (WebSocket)
      ...
      b.restart()                # the same ports; retained messages kept only if persist=True

Mosquitto is Debian's package `mosquitto` (mk/online.mk installs it); MOSQUITTO= names
another binary.

  python -m host_tools.online.broker     run one until Ctrl-C (prints its ports)
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time


class BrokerError(RuntimeError):
    pass


def executable():
    exe = os.environ.get("MOSQUITTO")
    if exe:
        return exe if os.path.exists(exe) else None
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.path.exists(p)), None)


def available():
    return executable() is not None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_listening(port, timeout=5.0, proc=None):
    """True once 127.0.0.1:port accepts; False after `timeout` s or once `proc` ended."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and (proc is None or proc.poll() is None):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.02)
    return False


class Broker:
    def __init__(self, persist=False, users=None, verbose=False, tls=None):
        """persist: keep retained messages over a restart (Mosquitto's persistence);
        users: {name: password} to require them (no anonymous client then);
        tls: (certfile, keyfile) for a third listener, MQTT over TLS (`tls_port`)."""
        if not available():
            raise BrokerError("mosquitto not installed: make online-deps (apt-get install mosquitto)")
        self.persist = persist
        self.users = users
        self.verbose = verbose
        self.dir = None
        self.proc = None
        self.port = self.ws_port = None
        self.tls = tls
        self.tls_port = None
        self.starts = 0

    def _config(self):
        lines = ["listener %d 127.0.0.1" % self.port, "protocol mqtt",
                 "listener %d 127.0.0.1" % self.ws_port, "protocol websockets",
                 "per_listener_settings false", "max_keepalive 300", "set_tcp_nodelay true",
                 "log_dest stderr" if self.verbose else "log_type none"]
        if self.tls:
            lines += ["listener %d 127.0.0.1" % self.tls_port, "protocol mqtt",
                      "certfile " + self.tls[0], "keyfile " + self.tls[1]]
        if os.getuid() == 0:  # mosquitto would drop to user `mosquitto`: keep root, own dir
            lines.append("user root")
        if self.users:
            pw = os.path.join(self.dir, "passwd")
            with open(pw, "w") as f:
                for name, secret in self.users.items():
                    f.write("%s:%s\n" % (name, secret))
            subprocess.run([shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd", "-U", pw],
                           check=True, capture_output=True)
            lines += ["allow_anonymous false", "password_file " + pw]
        else:
            lines.append("allow_anonymous true")
        if self.persist:
            lines += ["persistence true", "persistence_location " + self.dir + "/",
                      "autosave_interval 1"]
        path = os.path.join(self.dir, "mosquitto.conf")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def start(self):
        if self.dir is None:
            self.dir = tempfile.mkdtemp(prefix="mosquitto-")
        for attempt in range(5):
            if self.port is None or attempt:
                self.port, self.ws_port = free_port(), free_port()
                self.tls_port = free_port() if self.tls else None
            conf = self._config()
            self.proc = subprocess.Popen([executable(), "-c", conf],
                                         stdout=subprocess.DEVNULL,
                                         stderr=None if self.verbose else subprocess.DEVNULL)
            if wait_listening(self.port, proc=self.proc) and wait_listening(self.ws_port, proc=self.proc) and \
                    (not self.tls or wait_listening(self.tls_port, proc=self.proc)):
                self.starts += 1
                return self
            self._kill()
            if self.starts:  # a restart must keep its ports: another process took them
                break
        raise BrokerError("mosquitto did not start listening on 127.0.0.1")

    def _kill(self):
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
            self.proc = None

    def stop(self):
        self._kill()

    def restart(self, down_s=0.0):
        """Stop it (every client loses its connection), wait, start it on the same ports."""
        self._kill()
        if down_s:
            time.sleep(down_s)
        end = time.monotonic() + 10  # (bounded: a port another process took never comes back)
        while time.monotonic() < end:  # the ports are free again at once (SO_REUSEADDR): try a while
            try:
                return self.start()
            except BrokerError:
                time.sleep(0.05)
        raise BrokerError("mosquitto did not come back on its ports")

    def close(self):
        self._kill()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.close()


def main():
    with Broker(verbose=True) as b:
        print("mosquitto on 127.0.0.1: MQTT port %d, WebSocket port %d (Ctrl-C stops it)" % (b.port, b.ws_port),
              flush=True)
        try:
            b.proc.wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
