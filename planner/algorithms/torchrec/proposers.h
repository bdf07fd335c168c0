#ifndef SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_PROPOSERS_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_PROPOSERS_H_

// TorchRec's proposers (planner/proposers.py): each turns the search space into a sequence of
// proposals, one option per table. None of the defaults learns from the partitioner's verdict
// (TorchRec's `feedback` only steps them), so Propose() simply yields the next one.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/string_view.h"
#include "planner/algorithms/torchrec/sharding_option.h"

namespace shardplan::torchrec {

// TorchRec's MAX_PROPOSALS: the grid search is skipped above this many combinations.
inline constexpr int64_t kMaxGridProposals = 10000;

// _sharding_option_score: the slowest shard with `use_depth` (the option's critical path),
// else the sum over its shards.
double OptionScore(const ShardingOption& option, bool use_depth);

class Proposer {
 public:
  virtual ~Proposer() = default;
  virtual absl::string_view name() const = 0;
  // The next proposal, or nullopt when the proposer is done.
  virtual std::optional<Proposal> Propose() = 0;
  // An upper bound on the proposals left, for progress reports.
  virtual int64_t MaxProposals() const = 0;
};

// The Cartesian product of every table's options sorted by score, last table fastest; nothing
// when the product exceeds kMaxGridProposals.
std::unique_ptr<Proposer> MakeGridSearchProposer(const SearchSpace& space);

// Starts from every table's best-scoring option; after each proposal, moves the table whose
// current option takes the most storage (max shard bytes, then total bytes; the first table on
// ties) to its next-best option. Done when no table has a next option.
std::unique_ptr<Proposer> MakeGreedyProposer(const SearchSpace& space, bool use_depth);

// Per sharding type that every table offers (in order of first appearance): each table's
// best-scoring option of that type.
std::unique_ptr<Proposer> MakeUniformProposer(const SearchSpace& space);

// TorchRec's default list, in its order: grid search, greedy with depth, greedy without,
// uniform.
std::vector<std::unique_ptr<Proposer>> DefaultProposers(const SearchSpace& space);

}  // namespace shardplan::torchrec

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_TORCHREC_PROPOSERS_H_
