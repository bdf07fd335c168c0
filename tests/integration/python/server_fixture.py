"""Runs the real shardplan-server for Python and CLI integration tests.

    with ServerProcess() as server:          # 127.0.0.1:0, --port_file, waits for SERVING
        client = shardplan.PlannerClient(server.target)

    with SecuredPki() as pki, ServerProcess(pki.server_args(), pki.credentials()) as server:
        ...                                  # mutual TLS + bearer tokens (docs/security.md)

    class MyTest(SharedServer, unittest.TestCase): ...   # cls.server for the whole class

The binary is $SHARDPLAN_SERVER_BINARY (ctest sets it). The server is killed when the test
process dies (PR_SET_PDEATHSIG), so a crashed test leaves nothing behind.
"""

import ctypes
import hashlib
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
    """channel_credentials: how to reach a TLS server while waiting for it (None: plaintext)."""

    def __init__(self, extra_args=(), channel_credentials=None, start_timeout=30.0):
        self.extra_args = list(extra_args)
        self.channel_credentials = channel_credentials
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
        if self.channel_credentials is None:
            channel = grpc.insecure_channel(self.target)
        else:
            channel = grpc.secure_channel(self.target, self.channel_credentials)
        with channel:
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


class SharedServer:
    """TestCase mixin: one ServerProcess, cls.server, for the whole class.

        class MyTest(SharedServer, unittest.TestCase): ...
    """

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.server = ServerProcess().start()

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        super().tearDownClass()


_MAKE_TEST_CERTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                                os.pardir, "scripts", "make_test_certs.sh")


class SecuredPki:
    """A throw-away PKI (scripts/make_test_certs.sh: ca.pem, server.pem/key for 127.0.0.1 and
    localhost, client.pem/key, rogue_client.pem/key from another CA) and an auth_tokens_file
    with the tokens PLANNER_TOKEN (role planner) and ADMIN_TOKEN (role admin)."""

    PLANNER_TOKEN = "planner-token-0123456789"
    ADMIN_TOKEN = "admin-token-9876543210"

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="shardplan-pki-")
        subprocess.run(["bash", _MAKE_TEST_CERTS, self._dir.name], check=True, timeout=60,
                       capture_output=True)
        tokens = [{"name": "trainer-a", "role": "planner", "token": self.PLANNER_TOKEN},
                  {"name": "ops", "role": "admin", "token": self.ADMIN_TOKEN}]
        with open(self.file("tokens.json"), "w") as f:
            json.dump({"tokens": [
                {"name": t["name"], "role": t["role"],
                 "sha256": hashlib.sha256(t["token"].encode()).hexdigest()} for t in tokens]}, f)

    def file(self, name):
        return os.path.join(self._dir.name, name)

    def server_args(self, mutual=True, tokens=True):
        """shardplan-server flags: TLS, with mutual=True client certificates from ca.pem, with
        tokens=True the tokens file."""
        args = ["--tls_cert_file", self.file("server.pem"),
                "--tls_key_file", self.file("server.key")]
        if mutual:
            args += ["--tls_client_ca_file", self.file("ca.pem")]
        if tokens:
            args += ["--auth_tokens_file", self.file("tokens.json")]
        return args

    def credentials(self):
        """grpc credentials of a client trusted by server_args()'s server (mutual TLS)."""
        def read(name):
            with open(self.file(name), "rb") as f:
                return f.read()
        return grpc.ssl_channel_credentials(read("ca.pem"), read("client.key"),
                                            read("client.pem"))

    def cleanup(self):
        self._dir.cleanup()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.cleanup()


class SecuredServer:
    """A server with mutual TLS and bearer tokens (SecuredPki) and a models directory holding
    the bundle tiny@1 (for admin calls); .pki, .server."""

    def __init__(self):
        self.pki = None
        self.server = None
        self._models = None

    def start(self):
        try:
            self.pki = SecuredPki()
            self._models = tempfile.TemporaryDirectory(prefix="shardplan-models-")
            subprocess.run([os.environ["SHARDPLAN_TEST_BUNDLE"], self._models.name, "tiny", "1"],
                           check=True, timeout=60)
            self.server = ServerProcess(
                self.pki.server_args() + ["--models_dir", self._models.name,
                                          "--model_reload_interval_s", "0"],
                channel_credentials=self.pki.credentials()).start()
        except Exception:
            self.stop()
            raise
        return self

    def stop(self):
        for part in (self.server, self._models, self.pki):
            if part is not None:
                (part.stop if isinstance(part, ServerProcess) else part.cleanup)()
        self.server = self._models = self.pki = None


def refused_port():
    """(socket, port) of a loopback port that refuses connections: bound, never listened on.
    Keep the socket open while the port is in use so that no one else takes it."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    return sock, sock.getsockname()[1]
