"""What the synchronous and the asyncio clients share: settings, channel options, credentials,
the requests each call sends, and the retry policy. Nothing here performs I/O or sleeps; the two
clients differ only in how they call, stream and wait.
"""

from __future__ import annotations

import logging
import os
import random
import time
from typing import Any, Iterable, Mapping, Optional, Tuple

import grpc

from shardplan import _health
from shardplan.convert import PlanLike, TaskLike, plan_from_dict, task_from_dict
from shardplan.errors import ResourceExhaustedError, ShardplanError, UnavailableError
from shardplan.v1 import admin_pb2, admin_pb2_grpc, planner_pb2, planner_pb2_grpc

DEFAULT_TARGET = "127.0.0.1:50051"
TOKEN_ENV = "SHARDPLAN_TOKEN"
TARGET_ENV = "SHARDPLAN_SERVER"
TERMINAL_STATES = frozenset((planner_pb2.SUCCEEDED, planner_pb2.FAILED, planner_pb2.CANCELLED))

Params = Optional[Mapping[str, Any]]
JITTER = 0.2  # each backoff sleep is scaled by a random factor in [1 - JITTER, 1 + JITTER]
_log = logging.getLogger("shardplan")


def _param_value(value: Any) -> str:
    # The server parses parameters from strings; Python's True must read as "true".
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _bearer_token(token: Optional[str]) -> Optional[str]:
    """The token given, else $SHARDPLAN_TOKEN, stripped; None when neither is set."""
    source = "token"
    if token is None:
        token, source = os.environ.get(TOKEN_ENV), f"${TOKEN_ENV}"
    token = (token or "").strip()
    # gRPC refuses other header values with an obscure error at the first call.
    if any(not "\x21" <= c <= "\x7e" for c in token):
        raise ValueError(f"{source}: the token holds a space or a character outside printable "
                         "ASCII, which cannot travel in the authorization header")
    return token or None


def _read_pem(parameter: str, path: Optional[str]) -> Optional[bytes]:
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            pem = f.read()
    except OSError as e:
        raise ValueError(f"{parameter}: cannot read {path!r}: {e.strerror}") from e
    if b"-----BEGIN " not in pem:
        raise ValueError(f"{parameter}: {path!r} holds no PEM block")
    return pem


def _tls_credentials(tls_ca: Optional[str], tls_cert: Optional[str],
                     tls_key: Optional[str]) -> grpc.ChannelCredentials:
    if bool(tls_cert) != bool(tls_key):
        raise ValueError("tls_cert, tls_key: mutual TLS needs both the certificate and its key")
    return grpc.ssl_channel_credentials(root_certificates=_read_pem("tls_ca", tls_ca),
                                        private_key=_read_pem("tls_key", tls_key),
                                        certificate_chain=_read_pem("tls_cert", tls_cert))


class ClientBase:
    """The settings of a client, its channel and stubs, and everything about a call but the
    call itself (see PlannerClient for the parameters)."""

    _channels: Any = grpc  # the module whose channels the client opens: grpc or grpc.aio

    def __init__(self, target: Optional[str] = None, timeout: Optional[float] = 30.0,
                 retries: Optional[int] = None, *, initial_backoff: float = 0.2, max_backoff: float = 5.0,
                 backoff_multiplier: float = 2.0,
                 credentials: Optional[grpc.ChannelCredentials] = None,
                 token: Optional[str] = None, tls_ca: Optional[str] = None,
                 tls_cert: Optional[str] = None, tls_key: Optional[str] = None,
                 tls_server_name: Optional[str] = None) -> None:
        self.target: str = target or os.environ.get(TARGET_ENV) or DEFAULT_TARGET
        token = _bearer_token(token)
        self._metadata: Optional[Tuple[Tuple[str, str], ...]] = (
            (("authorization", f"Bearer {token}"),) if token else None)
        if tls_ca or tls_cert or tls_key:
            if credentials is not None:
                raise ValueError("credentials: give either credentials or tls_* files, not both")
            credentials = _tls_credentials(tls_ca, tls_cert, tls_key)
        if tls_server_name and credentials is None:
            raise ValueError("tls_server_name: needs TLS (tls_ca, tls_cert or credentials)")
        self._credentials = credentials
        self.timeout = timeout
        self.retries: Optional[int] = None if retries is None else max(0, int(retries))
        self.initial_backoff = max(0.0, initial_backoff)
        self.max_backoff = max(self.initial_backoff, max_backoff)
        self.backoff_multiplier = max(1.0, backoff_multiplier)
        # gRPC's own reconnect backoff starts at 1 s; align it with ours so that a retry after a
        # refused connection dials again instead of failing fast on a channel still backing off.
        reconnect_ms = max(100, int(self.initial_backoff * 1000))
        self._options = [
            ("grpc.max_receive_message_length", 256 * 1024 * 1024),
            ("grpc.initial_reconnect_backoff_ms", reconnect_ms),
            ("grpc.min_reconnect_backoff_ms", reconnect_ms),
            ("grpc.max_reconnect_backoff_ms", max(reconnect_ms, int(self.max_backoff * 1000))),
        ]
        if tls_server_name:
            self._options.append(("grpc.ssl_target_name_override", tls_server_name))
        self._channel = self._open_channel()
        self._stub = planner_pb2_grpc.PlannerServiceStub(self._channel)
        self._admin = admin_pb2_grpc.AdminServiceStub(self._channel)
        self._health_check = self._channel.unary_unary(
            _health.CHECK_METHOD, request_serializer=_health.encode_request,
            response_deserializer=_health.decode_response)

    def _open_channel(self) -> Any:
        channels = self._channels
        if self._credentials is None:
            return channels.insecure_channel(self.target, options=self._options)
        return channels.secure_channel(self.target, self._credentials, options=self._options)

    # -- requests ---------------------------------------------------------------------------

    @staticmethod
    def _plan_request(task: TaskLike, algorithm: Optional[str], params: Params, seed: int,
                      model: Optional[str], bypass_cache: bool = False,
                      job_key: Optional[str] = None) -> planner_pb2.PlanRequest:
        return planner_pb2.PlanRequest(
            task=task_from_dict(task), algorithm=algorithm or "",
            parameters={str(k): _param_value(v) for k, v in (params or {}).items()},
            seed=int(seed), model=model or "", bypass_cache=bool(bypass_cache),
            job_key=job_key or "")

    @staticmethod
    def _evaluate_request(task: TaskLike, plan: PlanLike, model: Optional[str],
                          ground_truth: Optional[str]) -> planner_pb2.EvaluatePlanRequest:
        if model and ground_truth:
            raise ValueError("give at most one of model and ground_truth")
        task = task_from_dict(task)
        return planner_pb2.EvaluatePlanRequest(task=task, plan=plan_from_dict(plan, task),
                                               model=model or "", ground_truth=ground_truth or "")

    @staticmethod
    def _measurement_request(task: TaskLike, plan: PlanLike, device_ms: Iterable[float],
                             model: Optional[str]) -> planner_pb2.ReportMeasurementRequest:
        task = task_from_dict(task)
        plan = plan_from_dict(plan, task)
        return planner_pb2.ReportMeasurementRequest(
            task=task, plan=plan, device_ms=[float(ms) for ms in device_ms],
            model=model or plan.cost_model)

    @staticmethod
    def _delete_request(job_id: Optional[str],
                        job_key: Optional[str]) -> admin_pb2.DeletePlanRequest:
        return admin_pb2.DeletePlanRequest(job_id=job_id or "", job_key=job_key or "")

    # -- deadlines and retries --------------------------------------------------------------

    def _retry(self, timeout: Optional[float], method: Any = None) -> "Retry":
        """The retry state of one call of `method` (a stub's multi-callable, named in the retry
        log); `timeout` None: the client's."""
        return Retry(self, self.timeout if timeout is None else timeout, _method_name(method))

    def _watch_retry(self, timeout: Optional[float]) -> "Retry":
        """The retry state of a watch: no deadline unless `timeout` is given."""
        return Retry(self, timeout, "WatchPlan")


def _method_name(method: Any) -> str:
    """"Plan" for the stub's multi-callable of /shardplan.v1.PlannerService/Plan; "" when the
    callable does not say (grpc keeps the path in a private attribute)."""
    path = getattr(method, "_method", b"")
    path = path.decode(errors="replace") if isinstance(path, bytes) else str(path)
    return path.rsplit("/", 1)[-1]


class Retry:
    """One call's attempts: the time left before its deadline, and after a failed attempt the
    seconds to sleep before the next, or the error raised when there is no next: it is neither
    UNAVAILABLE nor a RESOURCE_EXHAUSTED the server marked transient (busy now, not a task over
    its limits), the client's `retries` (when not None) are spent, or the deadline leaves no
    time for another attempt. The sleep is the backoff (scaled by a random factor in
    [1 - JITTER, 1 + JITTER]), or the server's retry-after hint if longer, cut short so that the
    last attempt starts before the deadline: a job launched while its server (re)starts waits
    for it until the deadline, however many attempts that takes."""

    def __init__(self, client: ClientBase, timeout: Optional[float], method: str = "") -> None:
        self._client = client
        self._method = method
        self._deadline = None if timeout is None else time.monotonic() + timeout
        self._failures = 0
        self._backoff = client.initial_backoff
        self._last_made = False  # a sleep was cut short for the deadline: no retry after it

    def remaining(self) -> Optional[float]:
        """Seconds left before the deadline (None: no deadline)."""
        if self._deadline is None:
            return None
        return max(0.0, self._deadline - time.monotonic())

    def sleep_after(self, error: ShardplanError, progressed: bool = False) -> float:
        """The seconds to sleep after a failed attempt; raises `error` if none may follow.
        progressed: the attempt got somewhere (a stream delivered), so only the failures since
        count."""
        client = self._client
        if progressed:
            self._failures, self._backoff = 0, client.initial_backoff
        self._failures += 1
        transient = isinstance(error, UnavailableError) or (
            isinstance(error, ResourceExhaustedError) and error.retry_after is not None)
        if not transient or (client.retries is not None and self._failures > client.retries):
            raise error
        sleep = max(self._backoff * random.uniform(1.0 - JITTER, 1.0 + JITTER),
                    error.retry_after or 0.0)
        remaining = self.remaining()
        if remaining is not None:
            if self._last_made:
                raise error
            # The last attempt gets at least initial_backoff (a connection's worth) of the call.
            latest = remaining - client.initial_backoff
            if latest <= 0.0:
                raise error
            if sleep >= latest:
                sleep, self._last_made = latest, True
        self._backoff = min(self._backoff * client.backoff_multiplier, client.max_backoff)
        _log.log(logging.WARNING if isinstance(error, UnavailableError) else logging.INFO,
                 "%s: %s: %s; retrying in %.1f s (attempt %d)", self._method or "call",
                 error.code.name, error.message, sleep,
                 self._failures + 1)
        return sleep


def watch_ended_early(job_id: str) -> UnavailableError:
    return UnavailableError(f"WatchPlan stream for job {job_id} ended before the job did")
