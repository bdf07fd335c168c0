"""shardplan.aio.AsyncPlannerClient against the real shardplan-server: the same calls, errors
and retries as PlannerClient, on asyncio.

Run by ctest like test_client.py:
    /usr/bin/python3 -m unittest -v test_aio_client
"""

import unittest
from unittest import mock

import grpc

import shardplan
from server_fixture import SecuredPki, SecuredServer, SharedServer, refused_port
from shardplan.aio import AsyncPlannerClient
from tasks import (SLOW_ALGORITHM, SLOW_PARAMS, SLOW_TASK, check_plan, example_task,
                   infeasible_task, invalid_task, small_task)


class AsyncClientTest(SharedServer, unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self):
        self.client = AsyncPlannerClient(self.server.target, timeout=20)

    async def asyncTearDown(self):
        await self.client.close()

    async def test_plans_an_example_like_the_sync_client(self):
        task = example_task("task_4dev.json")
        plan = await self.client.plan(task, algorithm="size_lookup_greedy", seed=3)
        self.assertIsInstance(plan, shardplan.pb.Plan)
        check_plan(self, shardplan.plan_to_dict(plan), task, "size_lookup_greedy")
        with shardplan.PlannerClient(self.server.target, timeout=20) as sync:
            same = sync.plan_response(task, algorithm="size_lookup_greedy", seed=3)
        self.assertTrue(same.cache_hit)  # the same request, so the same plan
        self.assertEqual(same.plan.request_hash, plan.request_hash)

    async def test_errors_map_to_the_same_classes(self):
        with self.assertRaises(shardplan.InvalidTaskError) as invalid:
            await self.client.plan(invalid_task())
        self.assertIn("dim", invalid.exception.message)
        with self.assertRaises(shardplan.InfeasibleTaskError):
            await self.client.plan(infeasible_task(), algorithm="size_greedy")
        with self.assertRaises(shardplan.NotFoundError):
            await self.client.plan(small_task(2, 2), model="no_such_model")
        with self.assertRaises(shardplan.NotFoundError):
            await self.client.get("no-such-job")

    async def test_submit_watch_wait_and_cancel(self):
        task = small_task(4, 2)
        job = await self.client.submit(task, algorithm="dim_greedy")
        states = [status.state async for status in self.client.watch(job, timeout=20)]
        self.assertEqual(states[-1], shardplan.pb.SUCCEEDED)
        plan = await self.client.wait(job, timeout=20)
        check_plan(self, shardplan.plan_to_dict(plan), task, "dim_greedy")
        slow = await self.client.submit(SLOW_TASK, algorithm=SLOW_ALGORITHM, params=SLOW_PARAMS)
        await self.client.cancel(slow)
        with self.assertRaises(shardplan.CancelledError) as cancelled:
            await self.client.wait(slow, timeout=20)
        self.assertEqual(cancelled.exception.job_id, slow)

    async def test_catalogue_evaluate_and_health(self):
        self.assertEqual(await self.client.health(), "SERVING")
        names = [a.name for a in await self.client.list_algorithms()]
        self.assertIn("size_lookup_greedy", names)
        self.assertIn("analytic", [m.name for m in await self.client.list_models()])
        task = small_task(3, 2)
        plan = await self.client.plan(task, algorithm="size_greedy")
        evaluated = await self.client.evaluate(task, shardplan.to_torchrec(plan))
        self.assertAlmostEqual(evaluated.cost_ms, plan.cost_ms, places=6)


class AsyncSecuredTest(unittest.IsolatedAsyncioTestCase):
    """Mutual TLS and bearer tokens reach the server through grpc.aio as through grpc."""

    @classmethod
    def setUpClass(cls):
        cls.secured = SecuredServer().start()

    @classmethod
    def tearDownClass(cls):
        cls.secured.stop()

    def client(self, token):
        pki = self.secured.pki
        return AsyncPlannerClient(self.secured.server.target, timeout=20, retries=0, token=token,
                                  tls_ca=pki.file("ca.pem"), tls_cert=pki.file("client.pem"),
                                  tls_key=pki.file("client.key"))

    async def test_token_on_calls_and_streams_and_refusals(self):
        async with self.client(SecuredPki.PLANNER_TOKEN) as client:
            task = small_task(3, 2)
            check_plan(self, shardplan.plan_to_dict(await client.plan(task)), task)
            job = await client.submit(task, bypass_cache=True)
            check_plan(self, shardplan.plan_to_dict(await client.wait(job, timeout=20)), task)
            with self.assertRaises(shardplan.PermissionDeniedError):
                await client.reload_models()
        async with self.client("not-a-known-token") as client:
            with self.assertRaises(shardplan.UnauthenticatedError):
                await client.list_algorithms()


class AsyncRetryTest(unittest.IsolatedAsyncioTestCase):
    async def test_unavailable_after_the_configured_retries(self):
        sock, port = refused_port()
        with sock:
            client = AsyncPlannerClient(f"127.0.0.1:{port}", retries=2, initial_backoff=0.01)
            try:
                with mock.patch("shardplan.aio.asyncio.sleep") as sleep:
                    with self.assertRaises(shardplan.UnavailableError) as caught:
                        await client.list_models()
                self.assertEqual(sleep.await_count, 2)  # 3 attempts
                self.assertEqual(caught.exception.code, grpc.StatusCode.UNAVAILABLE)
                with mock.patch("shardplan.aio.asyncio.sleep") as sleep:
                    with self.assertRaises(shardplan.UnavailableError):
                        async for _ in client.watch("job"):
                            pass
                self.assertEqual(sleep.await_count, 2)
            finally:
                await client.close()


if __name__ == "__main__":
    unittest.main()
