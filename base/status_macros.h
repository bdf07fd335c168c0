#ifndef SHARDPLAN_BASE_STATUS_MACROS_H_
#define SHARDPLAN_BASE_STATUS_MACROS_H_

// The usual early-return helpers (this Abseil release does not ship them).

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define SHARDPLAN_STATUS_CONCAT_INNER_(a, b) a##b
#define SHARDPLAN_STATUS_CONCAT_(a, b) SHARDPLAN_STATUS_CONCAT_INNER_(a, b)

// Returns the status of `expr` from the enclosing function unless it is OK.
#define SHARDPLAN_RETURN_IF_ERROR(expr)                                       \
  do {                                                                        \
    if (::absl::Status _shardplan_status = (expr); !_shardplan_status.ok()) { \
      return _shardplan_status;                                               \
    }                                                                         \
  } while (false)

// `lhs = value of expr`, or returns its error status from the enclosing function.
#define SHARDPLAN_ASSIGN_OR_RETURN(lhs, expr)                                                     \
  SHARDPLAN_ASSIGN_OR_RETURN_IMPL_(SHARDPLAN_STATUS_CONCAT_(_shardplan_statusor_, __LINE__), lhs, \
                                   expr)
#define SHARDPLAN_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, expr) \
  auto statusor = (expr);                                     \
  if (!statusor.ok()) return statusor.status();               \
  lhs = *std::move(statusor)

#endif  // SHARDPLAN_BASE_STATUS_MACROS_H_
