"""AsyncPlannerClient: PlannerClient's calls for asyncio programs (grpc.aio).

    import shardplan.aio

    async with shardplan.aio.AsyncPlannerClient("planner.internal:50051") as client:
        plan = await client.plan(task)
        async for status in client.watch(await client.submit(big_task)):
            print(status.progress)

Same parameters, defaults, retries and errors (shardplan.errors) as PlannerClient, whose
docstrings say what each call does; the requests and the retry policy are shared
(shardplan._base). Make and use the client on one event loop.
"""

from __future__ import annotations

import asyncio
from typing import Any, AsyncIterator, Callable, Iterable, List, Optional

import grpc
import grpc.aio

from shardplan._base import TERMINAL_STATES, ClientBase, Params, watch_ended_early
from shardplan.client import raise_for_job
from shardplan.convert import PlanLike, TaskLike
from shardplan.errors import from_rpc_error
from shardplan.v1 import admin_pb2, planner_pb2

__all__ = ["AsyncPlannerClient"]


class AsyncPlannerClient(ClientBase):
    """PlannerClient for asyncio: every call is a coroutine, watch() an async iterator."""

    _channels = grpc.aio

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "AsyncPlannerClient":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.close()

    async def plan(self, task: TaskLike, algorithm: Optional[str] = None, params: Params = None,
                   seed: int = 0, model: Optional[str] = None, timeout: Optional[float] = None,
                   bypass_cache: bool = False,
                   job_key: Optional[str] = None) -> planner_pb2.Plan:
        """PlannerClient.plan."""
        return (await self.plan_response(task, algorithm, params, seed, model, timeout,
                                         bypass_cache, job_key)).plan

    async def plan_response(self, task: TaskLike, algorithm: Optional[str] = None,
                            params: Params = None, seed: int = 0, model: Optional[str] = None,
                            timeout: Optional[float] = None, bypass_cache: bool = False,
                            job_key: Optional[str] = None) -> planner_pb2.PlanResponse:
        """PlannerClient.plan_response."""
        request = self._plan_request(task, algorithm, params, seed, model, bypass_cache, job_key)
        return await self._call(self._stub.Plan, request, timeout)

    async def replan(self, task: TaskLike, job_key: str, algorithm: Optional[str] = None,
                     params: Params = None, seed: int = 0, model: Optional[str] = None,
                     timeout: Optional[float] = None) -> planner_pb2.PlanResponse:
        """PlannerClient.replan."""
        request = self._plan_request(task, algorithm, params, seed, model, False, job_key)
        return await self._call(self._stub.Replan, request, timeout)

    async def submit(self, task: TaskLike, algorithm: Optional[str] = None,
                     params: Params = None, seed: int = 0, model: Optional[str] = None,
                     timeout: Optional[float] = None, bypass_cache: bool = False,
                     job_key: Optional[str] = None) -> str:
        """PlannerClient.submit."""
        request = self._plan_request(task, algorithm, params, seed, model, bypass_cache, job_key)
        return (await self._call(self._stub.SubmitPlan, request, timeout)).job_id

    async def get(self, job_id: str, timeout: Optional[float] = None) -> planner_pb2.JobStatus:
        """PlannerClient.get."""
        request = planner_pb2.JobRequest(job_id=job_id)
        return await self._call(self._stub.GetPlan, request, timeout)

    async def watch(self, job_id: str,
                    timeout: Optional[float] = None) -> AsyncIterator[planner_pb2.JobStatus]:
        """PlannerClient.watch, as an async iterator."""
        request = planner_pb2.JobRequest(job_id=job_id)
        retry = self._watch_retry(timeout)
        while True:
            call = self._stub.WatchPlan(request, timeout=retry.remaining(),
                                        metadata=self._metadata)
            received = False
            try:
                async for status in call:
                    received = True
                    yield status
                    if status.state in TERMINAL_STATES:
                        return
                error = watch_ended_early(job_id)
            except grpc.RpcError as e:
                error = from_rpc_error(e)
            finally:
                call.cancel()
            await asyncio.sleep(retry.sleep_after(error, progressed=received))

    async def wait(self, job_id: str, timeout: Optional[float] = None) -> planner_pb2.Plan:
        """PlannerClient.wait."""
        final = None
        async for final in self.watch(job_id, timeout):
            pass
        return raise_for_job(final).result.plan

    async def cancel(self, job_id: str,
                     timeout: Optional[float] = None) -> planner_pb2.JobStatus:
        """PlannerClient.cancel."""
        request = planner_pb2.JobRequest(job_id=job_id)
        return await self._call(self._stub.CancelPlan, request, timeout)

    async def evaluate(self, task: TaskLike, plan: PlanLike, model: Optional[str] = None,
                       ground_truth: Optional[str] = None,
                       timeout: Optional[float] = None) -> planner_pb2.Plan:
        """PlannerClient.evaluate."""
        request = self._evaluate_request(task, plan, model, ground_truth)
        return (await self._call(self._stub.EvaluatePlan, request, timeout)).plan

    async def access_figures(self, task: TaskLike, plan: PlanLike,
                             timeout: Optional[float] = None) -> planner_pb2.AccessFigures:
        """PlannerClient.access_figures."""
        request = self._evaluate_request(task, plan, None, None)
        return (await self._call(self._stub.EvaluatePlan, request, timeout)).access_figures

    async def report_measurement(self, task: TaskLike, plan: PlanLike,
                                 device_ms: Iterable[float], model: Optional[str] = None,
                                 timeout: Optional[float] = None
                                 ) -> planner_pb2.ReportMeasurementResponse:
        """PlannerClient.report_measurement."""
        request = self._measurement_request(task, plan, device_ms, model)
        return await self._call(self._stub.ReportMeasurement, request, timeout)

    async def list_algorithms(self,
                              timeout: Optional[float] = None) -> List[planner_pb2.AlgorithmInfo]:
        """PlannerClient.list_algorithms."""
        request = planner_pb2.ListAlgorithmsRequest()
        return list((await self._call(self._stub.ListAlgorithms, request, timeout)).algorithms)

    async def list_models(self, timeout: Optional[float] = None) -> List[planner_pb2.ModelInfo]:
        """PlannerClient.list_models."""
        request = planner_pb2.ListModelsRequest()
        return list((await self._call(self._stub.ListModels, request, timeout)).models)

    async def reload_models(self,
                            timeout: Optional[float] = None) -> admin_pb2.ReloadModelsResponse:
        """PlannerClient.reload_models."""
        request = admin_pb2.ReloadModelsRequest()
        return await self._call(self._admin.ReloadModels, request, timeout)

    async def delete_plan(self, job_id: Optional[str] = None, job_key: Optional[str] = None,
                          timeout: Optional[float] = None) -> str:
        """PlannerClient.delete_plan."""
        request = self._delete_request(job_id, job_key)
        return (await self._call(self._admin.DeletePlan, request, timeout)).job_id

    async def health(self, service: str = "", timeout: Optional[float] = None) -> str:
        """PlannerClient.health."""
        return await self._call(self._health_check, service, timeout)

    async def _call(self, method: Callable[..., Any], request: Any,
                    timeout: Optional[float]) -> Any:
        retry = self._retry(timeout, method)
        while True:
            try:
                return await method(request, timeout=retry.remaining(), metadata=self._metadata)
            except grpc.RpcError as e:
                await asyncio.sleep(retry.sleep_after(from_rpc_error(e)))
