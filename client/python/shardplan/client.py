"""PlannerClient: the calls a training job makes to the shardplan service at launch.

    import shardplan

    with shardplan.PlannerClient("planner.internal:50051", timeout=60) as client:
        plan = client.plan(json.load(open("task.json")), algorithm="size_lookup_greedy")
        sharding_plan = shardplan.to_torchrec(plan)

Calls take a task as the dict of its JSON file or as a shardplan.v1.Task, return the API's
messages (shardplan.v1.Plan, JobStatus, ...; see plan_to_dict for dicts), and raise
ShardplanError subclasses carrying the gRPC code and the server's message. A call that fails
with UNAVAILABLE, or with a RESOURCE_EXHAUSTED the server marks as transient (busy now), is
retried with capped exponential backoff (and jitter) within its timeout.
"""

import os
import random
import time

import grpc

from shardplan import _health
from shardplan.convert import plan_from_dict, task_from_dict
from shardplan.errors import (ResourceExhaustedError, UnavailableError, error_for_code,
                              from_rpc_error)
from shardplan.v1 import admin_pb2, admin_pb2_grpc, planner_pb2, planner_pb2_grpc

DEFAULT_TARGET = "127.0.0.1:50051"
TOKEN_ENV = "SHARDPLAN_TOKEN"
TERMINAL_STATES = frozenset((planner_pb2.SUCCEEDED, planner_pb2.FAILED, planner_pb2.CANCELLED))


def _param_value(value):
    # The server parses parameters from strings; Python's True must read as "true".
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _bearer_token(token):
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


def _read_pem(parameter, path):
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


def _tls_credentials(tls_ca, tls_cert, tls_key):
    if bool(tls_cert) != bool(tls_key):
        raise ValueError("tls_cert, tls_key: mutual TLS needs both the certificate and its key")
    return grpc.ssl_channel_credentials(root_certificates=_read_pem("tls_ca", tls_ca),
                                        private_key=_read_pem("tls_key", tls_key),
                                        certificate_chain=_read_pem("tls_cert", tls_cert))


class PlannerClient:
    """A connection to the planner service; thread-safe, cheap to keep for a process's life.

    target: "host:port"; None reads $SHARDPLAN_SERVER, else 127.0.0.1:50051.
    timeout: default deadline in seconds of every call (retries and backoff included); None
        means no deadline. watch() has no deadline unless given one.
    retries: how many times a call failing with UNAVAILABLE, or with a RESOURCE_EXHAUSTED the
        server marks as transient, is tried again (0: never).
    initial_backoff, max_backoff, backoff_multiplier: the sleeps between attempts, in seconds;
        each is scaled by a random factor in [0.8, 1.2].
    token: bearer token sent as "authorization: Bearer <token>" on every call (servers with
        auth_tokens_file, docs/security.md); None reads $SHARDPLAN_TOKEN, else no token.
    tls_ca: PEM file of the CA that signed the server's certificate: connects with TLS.
    tls_cert, tls_key: PEM files of a client certificate and its key for mutual TLS (both or
        neither); without tls_ca the server is verified against gRPC's default roots.
    tls_server_name: name checked against the server's certificate instead of the target's
        host (e.g. when connecting by an IP address the certificate does not list).
    credentials: grpc.ChannelCredentials of your own instead of the tls_* files; None and no
        tls_* file: insecure (plaintext).
    Unreadable tls_* files, tls_cert without tls_key and a token that cannot travel in a
    header raise ValueError naming the parameter.
    """

    def __init__(self, target=None, timeout=30.0, retries=3, *, initial_backoff=0.2,
                 max_backoff=5.0, backoff_multiplier=2.0, credentials=None, token=None,
                 tls_ca=None, tls_cert=None, tls_key=None, tls_server_name=None):
        self.target = target or os.environ.get("SHARDPLAN_SERVER") or DEFAULT_TARGET
        token = _bearer_token(token)
        self._metadata = (("authorization", f"Bearer {token}"),) if token else None
        if tls_ca or tls_cert or tls_key:
            if credentials is not None:
                raise ValueError("credentials: give either credentials or tls_* files, not both")
            credentials = _tls_credentials(tls_ca, tls_cert, tls_key)
        if tls_server_name and credentials is None:
            raise ValueError("tls_server_name: needs TLS (tls_ca, tls_cert or credentials)")
        self.timeout = timeout
        self.retries = max(0, int(retries))
        self.initial_backoff = max(0.0, initial_backoff)
        self.max_backoff = max(self.initial_backoff, max_backoff)
        self.backoff_multiplier = max(1.0, backoff_multiplier)
        # gRPC's own reconnect backoff starts at 1 s; align it with ours so that a retry after a
        # refused connection dials again instead of failing fast on a channel still backing off.
        reconnect_ms = max(100, int(self.initial_backoff * 1000))
        options = [
            ("grpc.max_receive_message_length", 256 * 1024 * 1024),
            ("grpc.initial_reconnect_backoff_ms", reconnect_ms),
            ("grpc.min_reconnect_backoff_ms", reconnect_ms),
            ("grpc.max_reconnect_backoff_ms", max(reconnect_ms, int(self.max_backoff * 1000))),
        ]
        if tls_server_name:
            options.append(("grpc.ssl_target_name_override", tls_server_name))
        if credentials is None:
            self._channel = grpc.insecure_channel(self.target, options=options)
        else:
            self._channel = grpc.secure_channel(self.target, credentials, options=options)
        self._stub = planner_pb2_grpc.PlannerServiceStub(self._channel)
        self._admin = admin_pb2_grpc.AdminServiceStub(self._channel)
        self._health_check = self._channel.unary_unary(
            _health.CHECK_METHOD, request_serializer=_health.encode_request,
            response_deserializer=_health.decode_response)

    # -- lifecycle --------------------------------------------------------------------------

    def close(self):
        self._channel.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- planning ---------------------------------------------------------------------------

    def plan(self, task, algorithm=None, params=None, seed=0, model=None, timeout=None,
             bypass_cache=False, job_key=None):
        """Plans `task` and returns the shardplan.v1.Plan (see plan_response for cache_hit).

        task: the task's JSON dict or a shardplan.v1.Task. algorithm: None for the server's
        default. params: {name: value} (see list_algorithms). model: "name" or "name@version".
        job_key: names the plan; the same key and request return the stored plan later, from
        the same model version, across newer models and server restarts.
        Raises InvalidTaskError, InfeasibleTaskError, NotFoundError, DeadlineExceededError, ...
        """
        return self.plan_response(task, algorithm, params, seed, model, timeout,
                                  bypass_cache, job_key).plan

    def plan_response(self, task, algorithm=None, params=None, seed=0, model=None, timeout=None,
                      bypass_cache=False, job_key=None):
        """Like plan(), but returns the PlanResponse: .plan, .cache_hit, .from_store, .job_id."""
        request = self._plan_request(task, algorithm, params, seed, model, bypass_cache, job_key)
        return self._call(self._stub.Plan, request, timeout)

    def replan(self, task, job_key, algorithm=None, params=None, seed=0, model=None,
               timeout=None):
        """Plans a keyed task anew and gives `job_key` the new plan; returns the PlanResponse."""
        request = self._plan_request(task, algorithm, params, seed, model, False, job_key)
        return self._call(self._stub.Replan, request, timeout)

    def submit(self, task, algorithm=None, params=None, seed=0, model=None, timeout=None,
               bypass_cache=False, job_key=None):
        """Queues `task` on the server and returns the job id at once (with a job_key whose
        job exists, that job's id)."""
        request = self._plan_request(task, algorithm, params, seed, model, bypass_cache, job_key)
        return self._call(self._stub.SubmitPlan, request, timeout).job_id

    def get(self, job_id, timeout=None):
        """The job's shardplan.v1.JobStatus (with .result once SUCCEEDED)."""
        return self._call(self._stub.GetPlan, planner_pb2.JobRequest(job_id=job_id), timeout)

    def watch(self, job_id, timeout=None):
        """Yields the job's JobStatus on every change until it ends; the last one is terminal
        (SUCCEEDED, FAILED or CANCELLED). A broken stream is reopened (UNAVAILABLE retries);
        the server replays the current status, so a status may repeat. No deadline unless
        `timeout` is given."""
        request = planner_pb2.JobRequest(job_id=job_id)
        deadline = None if timeout is None else time.monotonic() + timeout
        failures = 0
        backoff = self.initial_backoff
        while True:
            call = self._stub.WatchPlan(request, timeout=self._remaining(deadline),
                                        metadata=self._metadata)
            received = False
            try:
                for status in call:
                    received = True
                    yield status
                    if status.state in TERMINAL_STATES:
                        return
                error = UnavailableError(f"WatchPlan stream for job {job_id} ended before the "
                                         "job did")
            except grpc.RpcError as e:
                error = from_rpc_error(e)
            finally:
                call.cancel()  # no-op once finished; stops the stream if the caller stopped
            if received:  # consecutive failures only: progress starts afresh
                failures, backoff = 0, self.initial_backoff
            failures += 1
            backoff = self._sleep_before_retry(error, failures, backoff, deadline)

    def wait(self, job_id, timeout=None):
        """Watches the job to its end and returns its Plan; raises the job's error (the same
        ShardplanError subclass a failed plan() call raises, with .job_id set) otherwise."""
        final = None
        for final in self.watch(job_id, timeout):
            pass
        return raise_for_job(final).result.plan

    def cancel(self, job_id, timeout=None):
        """Asks the server to stop the job; returns its JobStatus afterwards."""
        return self._call(self._stub.CancelPlan, planner_pb2.JobRequest(job_id=job_id), timeout)

    def evaluate(self, task, plan, model=None, ground_truth=None, timeout=None):
        """Recomputes every figure of `plan` for `task` under the cost model `model` (None: the
        server's choice), or, with ground_truth="sim:<profile>" (e.g. "sim:rtx2080ti"),
        measures them on the cluster simulator; returns the evaluated Plan (cost_kind
        "simulated" or "ground_truth"). `plan` is a Plan, a PlanResponse, their dicts, or a
        TorchRec ShardingPlan dict (to_torchrec's, or TorchRec's own; its data_parallel tables
        are replicas of the task's); only its shards are read."""
        if model and ground_truth:
            raise ValueError("give at most one of model and ground_truth")
        task = task_from_dict(task)
        request = planner_pb2.EvaluatePlanRequest(task=task, plan=plan_from_dict(plan, task),
                                                  model=model or "",
                                                  ground_truth=ground_truth or "")
        return self._call(self._stub.EvaluatePlan, request, timeout).plan

    def report_measurement(self, task, plan, device_ms, model=None, timeout=None):
        """Tells the server what one training iteration of `plan` really took on each device
        (`device_ms`, ms, one per device in device order), so it tracks its cost model's error
        (shardplan_model_prediction_error{model}). The model checked is `model`, else the plan's
        cost_model (a Plan or PlanResponse from this client; a TorchRec plan needs `model`).
        Returns the shardplan.v1.ReportMeasurementResponse: the model's prediction, the relative
        error and the version's mean error over its recent reports."""
        task = task_from_dict(task)
        plan = plan_from_dict(plan, task)
        request = planner_pb2.ReportMeasurementRequest(
            task=task, plan=plan, device_ms=[float(ms) for ms in device_ms],
            model=model or plan.cost_model)
        return self._call(self._stub.ReportMeasurement, request, timeout)

    # -- catalogue and health ---------------------------------------------------------------

    def list_algorithms(self, timeout=None):
        """The server's algorithms: a list of shardplan.v1.AlgorithmInfo."""
        return list(self._call(self._stub.ListAlgorithms, planner_pb2.ListAlgorithmsRequest(),
                               timeout).algorithms)

    def list_models(self, timeout=None):
        """The server's cost models, every version: a list of shardplan.v1.ModelInfo."""
        return list(self._call(self._stub.ListModels, planner_pb2.ListModelsRequest(),
                               timeout).models)

    def reload_models(self, timeout=None):
        """AdminService.ReloadModels: the server rescans its models directory now. Returns the
        shardplan.v1.ReloadModelsResponse (loaded, unchanged, removed, refused); refusals are
        part of the answer, not an error."""
        return self._call(self._admin.ReloadModels, admin_pb2.ReloadModelsRequest(), timeout)

    def delete_plan(self, job_id=None, job_key=None, timeout=None):
        """AdminService.DeletePlan: removes the stored plan named by job_id or job_key (one of
        them). Returns the deleted record's job id."""
        request = admin_pb2.DeletePlanRequest(job_id=job_id or "", job_key=job_key or "")
        return self._call(self._admin.DeletePlan, request, timeout).job_id

    def health(self, service="", timeout=None):
        """grpc.health.v1 Check: "SERVING", "NOT_SERVING", "UNKNOWN" or "SERVICE_UNKNOWN"."""
        return self._call(self._health_check, service, timeout)

    # -- plumbing ---------------------------------------------------------------------------

    def _plan_request(self, task, algorithm, params, seed, model, bypass_cache, job_key=None):
        return planner_pb2.PlanRequest(
            task=task_from_dict(task), algorithm=algorithm or "",
            parameters={str(k): _param_value(v) for k, v in (params or {}).items()},
            seed=int(seed), model=model or "", bypass_cache=bool(bypass_cache),
            job_key=job_key or "")

    def _deadline(self, timeout):
        timeout = self.timeout if timeout is None else timeout
        return None if timeout is None else time.monotonic() + timeout

    @staticmethod
    def _remaining(deadline):
        return None if deadline is None else max(0.0, deadline - time.monotonic())

    def _sleep_before_retry(self, error, attempt, backoff, deadline):
        """Sleeps before retry number `attempt` and returns the next backoff; raises `error`
        when it is neither UNAVAILABLE nor a RESOURCE_EXHAUSTED the server marked transient
        (busy now, not a task over its limits), the retries are spent, or the sleep would pass
        the deadline. The sleep is the backoff, or the server's retry-after hint if longer."""
        transient = isinstance(error, UnavailableError) or (
            isinstance(error, ResourceExhaustedError) and error.retry_after is not None)
        if not transient or attempt > self.retries:
            raise error
        sleep = max(backoff * random.uniform(0.8, 1.2), error.retry_after or 0.0)
        if deadline is not None and time.monotonic() + sleep >= deadline:
            raise error
        time.sleep(sleep)
        return min(backoff * self.backoff_multiplier, self.max_backoff)

    def _call(self, method, request, timeout):
        deadline = self._deadline(timeout)
        backoff = self.initial_backoff
        attempt = 0
        while True:
            try:
                return method(request, timeout=self._remaining(deadline),
                              metadata=self._metadata)
            except grpc.RpcError as e:
                error = from_rpc_error(e)
            attempt += 1
            backoff = self._sleep_before_retry(error, attempt, backoff, deadline)


def raise_for_job(status):
    """Returns a JobStatus that is not FAILED or CANCELLED; raises the job's error otherwise
    (error_code mapped like a call's, CancelledError for a cancelled job without a code)."""
    if status is None:
        raise UnavailableError("WatchPlan returned no status")
    if status.state == planner_pb2.FAILED or status.state == planner_pb2.CANCELLED:
        code = status.error_code
        if code == 0:
            code = grpc.StatusCode.CANCELLED if status.state == planner_pb2.CANCELLED \
                else grpc.StatusCode.UNKNOWN
        state = planner_pb2.JobState.Name(status.state)
        raise error_for_code(code, status.error_message or f"job {state}",
                             job_id=status.job_id)
    return status
