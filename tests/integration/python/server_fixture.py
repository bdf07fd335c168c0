"""Runs the real shardplan-server for Python and CLI integration tests.

    with ServerProcess() as server:          # 127.0.0.1:0, --port_file, waits for SERVING
        client = shardplan.PlannerClient(server.target)

The binary is $SHARDPLAN_SERVER_BINARY (ctest sets it). The server is killed when the test
process dies (PR_SET_PDEATHSIG), so a crashed test leaves nothing behind.
"""

import ctypes
import json
import os
import signal
import socket
import subprocess
import tempfile
import time

import grpc

from shardplan import _health

_PR_SET_PDEATHSIG = 1


def _die_with_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def server_binary():
    binary = os.environ.get("SHARDPLAN_SERVER_BINARY")
    if not binary:
        raise RuntimeError("SHARDPLAN_SERVER_BINARY is not set (ctest sets it)")
    return binary


class ServerProcess:
    def __init__(self, extra_args=(), start_timeout=30.0):
        self.extra_args = list(extra_args)
        self.start_timeout = start_timeout
        self.process = None
        self.grpc_port = None
        self.metrics_port = 0  # when extra_args enable the endpoints (e.g. 127.0.0.1:0)
        self.health_port = 0
        self._dir = None

    @property
    def target(self):
        return f"127.0.0.1:{self.grpc_port}"

    def log(self):
        try:
            with open(os.path.join(self._dir.name, "server.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def start(self):
        self._dir = tempfile.TemporaryDirectory(prefix="shardplan-test-")
        port_file = os.path.join(self._dir.name, "ports.json")
        with open(os.path.join(self._dir.name, "server.log"), "wb") as log:
            self.process = subprocess.Popen(
                [server_binary(), "--address", "127.0.0.1:0", "--metrics_address", "",
                 "--port_file", port_file,
                 "--store", "sqlite:" + os.path.join(self._dir.name, "plans.db")]
                + self.extra_args,
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent)
        deadline = time.monotonic() + self.start_timeout
        try:
            ports = self._wait_for_ports(port_file, deadline)
            self.grpc_port = ports["grpc_port"]
            self.metrics_port = ports["metrics_port"]
            self.health_port = ports["health_port"]
            self._wait_for_serving(deadline)
        except Exception:
            self.stop()
            raise
        return self

    def _wait_for_ports(self, port_file, deadline):
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}:\n{self.log()}")
            try:
                with open(port_file) as f:
                    ports = json.load(f)
                return {name: int(ports.get(name, 0))
                        for name in ("grpc_port", "metrics_port", "health_port")}
            except (OSError, ValueError, KeyError):
                time.sleep(0.02)  # not written yet (the server writes it atomically)
        raise RuntimeError(f"server wrote no port file in time:\n{self.log()}")

    def _wait_for_serving(self, deadline):
        with grpc.insecure_channel(self.target) as channel:
            check = channel.unary_unary(_health.CHECK_METHOD,
                                        request_serializer=_health.encode_request,
                                        response_deserializer=_health.decode_response)
            while time.monotonic() < deadline:
                try:
                    if check("", timeout=1.0) == "SERVING":
                        return
                except grpc.RpcError:
                    pass
                time.sleep(0.02)
        raise RuntimeError(f"server not SERVING in time:\n{self.log()}")

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def refused_port():
    """(socket, port) of a loopback port that refuses connections: bound, never listened on.
    Keep the socket open while the port is in use so that no one else takes it."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock, sock.getsockname()[1]
