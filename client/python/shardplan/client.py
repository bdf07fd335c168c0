"""PlannerClient: the calls a training job makes to the shardplan service at launch.

    import shardplan

    with shardplan.PlannerClient("planner.internal:50051", timeout=60) as client:
        plan = client.plan(shardplan.load_task("task.json"), algorithm="size_lookup_greedy")
        sharding_plan = shardplan.to_torchrec(plan)

Calls take a task as the dict of its JSON file or as a shardplan.v1.Task (load_task reads a file
as the CLI and the server do), return the API's messages (shardplan.v1.Plan, JobStatus, ...;
see plan_to_dict for dicts), and raise
ShardplanError subclasses carrying the gRPC code and the server's message. A call that fails
with UNAVAILABLE, or with a RESOURCE_EXHAUSTED the server marks as transient (busy now), is
retried with capped exponential backoff (and jitter) within its timeout.
shardplan.aio.AsyncPlannerClient makes the same calls with asyncio.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Iterator, List, Optional, TypeVar

import grpc

from shardplan._base import (DEFAULT_TARGET, TERMINAL_STATES, ClientBase, Params,
                             watch_ended_early)
from shardplan.convert import PlanLike, TaskLike
from shardplan.errors import UnavailableError, error_for_code, from_rpc_error
from shardplan.v1 import admin_pb2, planner_pb2

__all__ = ["DEFAULT_TARGET", "TERMINAL_STATES", "PlannerClient", "raise_for_job"]

_Response = TypeVar("_Response")


class PlannerClient(ClientBase):
    """A connection to the planner service; thread-safe, cheap to keep for a process's life.

    target: "host:port"; None reads $SHARDPLAN_SERVER, else 127.0.0.1:50051.
    timeout: default deadline in seconds of every call (retries and backoff included); None
        means no deadline. watch() has no deadline unless given one.
    retries: how many times a call failing with UNAVAILABLE, or with a RESOURCE_EXHAUSTED the
        server marks as transient, is tried again; None (the default): as often as its deadline
        allows, so that a job launched while its server (re)starts waits for it; 0: never. A
        call without a deadline (watch() by default) with retries None retries until the
        server answers.
    initial_backoff, max_backoff, backoff_multiplier: the sleeps between attempts, in seconds;
        each is scaled by a random factor in [0.8, 1.2], and cut short to leave the last
        attempt initial_backoff before the deadline. Each retry is logged on the "shardplan"
        logger (WARNING for UNAVAILABLE, INFO for a busy server).
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

    # -- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "PlannerClient":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- planning ---------------------------------------------------------------------------

    def plan(self, task: TaskLike, algorithm: Optional[str] = None, params: Params = None,
             seed: int = 0, model: Optional[str] = None, timeout: Optional[float] = None,
             bypass_cache: bool = False, job_key: Optional[str] = None) -> planner_pb2.Plan:
        """Plans `task` and returns the shardplan.v1.Plan (see plan_response for cache_hit).

        task: the task's JSON dict or a shardplan.v1.Task. algorithm: None for the server's
        default. params: {name: value} (see list_algorithms). model: "name" or "name@version".
        job_key: names the plan; the same key and request return the stored plan later, from
        the same model version, across newer models and server restarts.
        Raises InvalidTaskError, InfeasibleTaskError, NotFoundError, DeadlineExceededError, ...
        """
        return self.plan_response(task, algorithm, params, seed, model, timeout,
                                  bypass_cache, job_key).plan

    def plan_response(self, task: TaskLike, algorithm: Optional[str] = None,
                      params: Params = None, seed: int = 0, model: Optional[str] = None,
                      timeout: Optional[float] = None, bypass_cache: bool = False,
                      job_key: Optional[str] = None) -> planner_pb2.PlanResponse:
        """Like plan(), but returns the PlanResponse: .plan, .cache_hit, .from_store, .job_id."""
        request = self._plan_request(task, algorithm, params, seed, model, bypass_cache, job_key)
        return self._call(self._stub.Plan, request, timeout)

    def replan(self, task: TaskLike, job_key: str, algorithm: Optional[str] = None,
               params: Params = None, seed: int = 0, model: Optional[str] = None,
               timeout: Optional[float] = None) -> planner_pb2.PlanResponse:
        """Plans a keyed task anew and gives `job_key` the new plan; returns the PlanResponse.
        model None keeps the model the key's plan was asked under, so the job's resume call
        (plan() with that model and key) finds the new plan; a model moves the key to it."""
        request = self._plan_request(task, algorithm, params, seed, model, False, job_key)
        return self._call(self._stub.Replan, request, timeout)

    def submit(self, task: TaskLike, algorithm: Optional[str] = None, params: Params = None,
               seed: int = 0, model: Optional[str] = None, timeout: Optional[float] = None,
               bypass_cache: bool = False, job_key: Optional[str] = None) -> str:
        """Queues `task` on the server and returns the job id at once (with a job_key whose
        job exists, that job's id)."""
        request = self._plan_request(task, algorithm, params, seed, model, bypass_cache, job_key)
        return self._call(self._stub.SubmitPlan, request, timeout).job_id

    def get(self, job_id: str, timeout: Optional[float] = None) -> planner_pb2.JobStatus:
        """The job's shardplan.v1.JobStatus (with .result once SUCCEEDED)."""
        return self._call(self._stub.GetPlan, planner_pb2.JobRequest(job_id=job_id), timeout)

    def watch(self, job_id: str,
              timeout: Optional[float] = None) -> Iterator[planner_pb2.JobStatus]:
        """Yields the job's JobStatus on every change until it ends; the last one is terminal
        (SUCCEEDED, FAILED or CANCELLED). A broken stream is reopened (UNAVAILABLE retries);
        the server replays the current status, so a status may repeat. No deadline unless
        `timeout` is given."""
        request = planner_pb2.JobRequest(job_id=job_id)
        retry = self._watch_retry(timeout)
        while True:
            call = self._stub.WatchPlan(request, timeout=retry.remaining(),
                                        metadata=self._metadata)
            received = False
            try:
                for status in call:
                    received = True
                    yield status
                    if status.state in TERMINAL_STATES:
                        return
                error = watch_ended_early(job_id)
            except grpc.RpcError as e:
                error = from_rpc_error(e)
            finally:
                call.cancel()  # no-op once finished; stops the stream if the caller stopped
            time.sleep(retry.sleep_after(error, progressed=received))

    def wait(self, job_id: str, timeout: Optional[float] = None) -> planner_pb2.Plan:
        """Watches the job to its end and returns its Plan; raises the job's error (the same
        ShardplanError subclass a failed plan() call raises, with .job_id set) otherwise."""
        final = None
        for final in self.watch(job_id, timeout):
            pass
        return raise_for_job(final).result.plan

    def cancel(self, job_id: str, timeout: Optional[float] = None) -> planner_pb2.JobStatus:
        """Asks the server to stop the job; returns its JobStatus afterwards."""
        return self._call(self._stub.CancelPlan, planner_pb2.JobRequest(job_id=job_id), timeout)

    def evaluate(self, task: TaskLike, plan: PlanLike, model: Optional[str] = None,
                 ground_truth: Optional[str] = None,
                 timeout: Optional[float] = None) -> planner_pb2.Plan:
        """Recomputes every figure of `plan` for `task` under the cost model `model` (None: the
        server's choice), or, with ground_truth="sim:<profile>" (e.g. "sim:rtx2080ti"),
        measures them on the cluster simulator; returns the evaluated Plan (cost_kind
        "simulated" or "ground_truth"). `plan` is a Plan, a PlanResponse, their dicts, or a
        TorchRec ShardingPlan dict (to_torchrec's, or TorchRec's own; its data_parallel tables
        are replicas of the task's); only its shards are read."""
        request = self._evaluate_request(task, plan, model, ground_truth)
        return self._call(self._stub.EvaluatePlan, request, timeout).plan

    def access_figures(self, task: TaskLike, plan: PlanLike,
                       timeout: Optional[float] = None) -> planner_pb2.AccessFigures:
        """OPER's figures of `plan` for `task` (docs/oper.md, "Access figures"), whatever
        planned it: per device its memory, the rows it looks up for every device and what it
        spends fetching rows from the others, with the device x device communication matrix
        (communication_us, row-major) and the degrees of balance, under the task's fetch costs
        (topology.intra_host_latency_us, inter_host_latency_us, fetch_cost_us). `plan` as for
        evaluate."""
        request = self._evaluate_request(task, plan, None, None)
        return self._call(self._stub.EvaluatePlan, request, timeout).access_figures

    def report_measurement(self, task: TaskLike, plan: PlanLike, device_ms: Iterable[float],
                           model: Optional[str] = None, timeout: Optional[float] = None
                           ) -> planner_pb2.ReportMeasurementResponse:
        """Tells the server what one training iteration of `plan` really took on each device
        (`device_ms`, ms, one per device in device order), so it tracks its cost model's error
        (shardplan_model_prediction_error{model}). The model checked is `model`, else the plan's
        cost_model (a Plan or PlanResponse from this client; a TorchRec plan needs `model`).
        Returns the shardplan.v1.ReportMeasurementResponse: the model's prediction, the relative
        error and the version's mean error over its recent reports."""
        request = self._measurement_request(task, plan, device_ms, model)
        return self._call(self._stub.ReportMeasurement, request, timeout)

    # -- catalogue and health ---------------------------------------------------------------

    def list_algorithms(self, timeout: Optional[float] = None) -> List[planner_pb2.AlgorithmInfo]:
        """The server's algorithms: a list of shardplan.v1.AlgorithmInfo."""
        return list(self._call(self._stub.ListAlgorithms, planner_pb2.ListAlgorithmsRequest(),
                               timeout).algorithms)

    def list_models(self, timeout: Optional[float] = None) -> List[planner_pb2.ModelInfo]:
        """The server's cost models and trained policies (kind "policy"), every version: a list
        of shardplan.v1.ModelInfo."""
        return list(self._call(self._stub.ListModels, planner_pb2.ListModelsRequest(),
                               timeout).models)

    def reload_models(self, timeout: Optional[float] = None) -> admin_pb2.ReloadModelsResponse:
        """AdminService.ReloadModels: the server rescans its models directory now. Returns the
        shardplan.v1.ReloadModelsResponse (loaded, unchanged, removed, refused); refusals are
        part of the answer, not an error."""
        return self._call(self._admin.ReloadModels, admin_pb2.ReloadModelsRequest(), timeout)

    def delete_plan(self, job_id: Optional[str] = None, job_key: Optional[str] = None,
                    timeout: Optional[float] = None) -> str:
        """AdminService.DeletePlan: removes the stored plan named by job_id or job_key (one of
        them). Returns the deleted record's job id."""
        return self._call(self._admin.DeletePlan, self._delete_request(job_id, job_key),
                          timeout).job_id

    def health(self, service: str = "", timeout: Optional[float] = None) -> str:
        """grpc.health.v1 Check: "SERVING", "NOT_SERVING", "UNKNOWN" or "SERVICE_UNKNOWN"."""
        return self._call(self._health_check, service, timeout)

    # -- plumbing ---------------------------------------------------------------------------

    def _call(self, method: Callable[..., _Response], request: Any,
              timeout: Optional[float]) -> _Response:
        retry = self._retry(timeout, method)
        while True:
            try:
                return method(request, timeout=retry.remaining(), metadata=self._metadata)
            except grpc.RpcError as e:
                time.sleep(retry.sleep_after(from_rpc_error(e)))


def raise_for_job(status: Optional[planner_pb2.JobStatus]) -> planner_pb2.JobStatus:
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
