"""Errors of the shardplan client: one class per gRPC code the service uses (docs/design.md
section 5).

Every error is a ShardplanError carrying the gRPC code and the server's message unchanged:

    try:
        plan = client.plan(task)
    except shardplan.InfeasibleTaskError as e:   # FAILED_PRECONDITION
        print(e.code, e.message)                  # which table fits nowhere, GiB needed
"""

from __future__ import annotations

from typing import Any, Optional, Union

import grpc


class ShardplanError(Exception):
    """A failed call. `code` is a grpc.StatusCode, `message` the server's text, `job_id` the job
    whose failure this is (None for a failed call), `retry_after` the seconds after which the
    server says a transient refusal may be retried (None: not transient)."""

    code: grpc.StatusCode = grpc.StatusCode.UNKNOWN
    retry_after: Optional[float] = None

    def __init__(self, message: str, code: Optional[grpc.StatusCode] = None,
                 job_id: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.job_id = job_id

    def __str__(self) -> str:
        prefix = f"job {self.job_id}: " if self.job_id else ""
        return f"{self.code.name}: {prefix}{self.message}"


class InvalidTaskError(ShardplanError, ValueError):
    """INVALID_ARGUMENT: the task, plan or a parameter is malformed; the message names the field."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class InfeasibleTaskError(ShardplanError):
    """FAILED_PRECONDITION: no plan fits the devices (which table, memory needed vs available)."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class NotFoundError(ShardplanError, LookupError):
    """NOT_FOUND: unknown model, model version, algorithm or job id."""

    code = grpc.StatusCode.NOT_FOUND


class ResourceExhaustedError(ShardplanError):
    """RESOURCE_EXHAUSTED: a server limit (task size, queue length)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class DeadlineExceededError(ShardplanError, TimeoutError):
    """DEADLINE_EXCEEDED: the call's timeout passed before the plan was ready."""

    code = grpc.StatusCode.DEADLINE_EXCEEDED


class UnavailableError(ShardplanError, ConnectionError):
    """UNAVAILABLE: the server could not be reached, after all retries."""

    code = grpc.StatusCode.UNAVAILABLE


class CancelledError(ShardplanError):
    """CANCELLED: the job (or the call) was cancelled."""

    code = grpc.StatusCode.CANCELLED


class UnauthenticatedError(ShardplanError, PermissionError):
    """UNAUTHENTICATED: the server wants a bearer token (PlannerClient's token= or
    $SHARDPLAN_TOKEN) and got none, or one it does not know."""

    code = grpc.StatusCode.UNAUTHENTICATED


class PermissionDeniedError(ShardplanError, PermissionError):
    """PERMISSION_DENIED: the token's role may not make this call (admin calls need role
    admin); the message names the method, the role needed and the token's."""

    code = grpc.StatusCode.PERMISSION_DENIED


_BY_CODE = {
    cls.code: cls
    for cls in (InvalidTaskError, InfeasibleTaskError, NotFoundError, ResourceExhaustedError,
                DeadlineExceededError, UnavailableError, CancelledError, UnauthenticatedError,
                PermissionDeniedError)
}
_CODE_BY_NUMBER = {code.value[0]: code for code in grpc.StatusCode}


def error_for_code(code: Union[grpc.StatusCode, int], message: str,
                   job_id: Optional[str] = None) -> ShardplanError:
    """The ShardplanError subclass for a grpc.StatusCode (or its number), instantiated."""
    if isinstance(code, int):
        code = _CODE_BY_NUMBER.get(code, grpc.StatusCode.UNKNOWN)
    cls = _BY_CODE.get(code, ShardplanError)
    return cls(message, code=code, job_id=job_id)


# The trailing metadata by which the server marks a refusal as transient (busy now) and says
# after how many milliseconds to try again (proto/shardplan/v1/planner.proto, "Retries").
RETRY_AFTER_METADATA_KEY = "shardplan-retry-after-ms"


def from_rpc_error(error: Any) -> ShardplanError:
    """The ShardplanError for a grpc.RpcError raised by a stub; `retry_after` (seconds) is set
    when the server marked the refusal as transient, else None."""
    code = error.code() if hasattr(error, "code") else grpc.StatusCode.UNKNOWN
    details = error.details() if hasattr(error, "details") else str(error)
    result = error_for_code(code or grpc.StatusCode.UNKNOWN, details or "")
    trailers = error.trailing_metadata() if hasattr(error, "trailing_metadata") else None
    for key, value in trailers or ():
        if key == RETRY_AFTER_METADATA_KEY:
            try:
                result.retry_after = max(0, int(value)) / 1000.0
            except ValueError:
                pass
    return result
