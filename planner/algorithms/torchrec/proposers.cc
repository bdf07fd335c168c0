#include "planner/algorithms/torchrec/proposers.h"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <utility>

namespace shardplan::torchrec {
namespace {

// Option indices of each table in ascending score; stable, so equal scores keep enumeration
// order as Python's sort does.
std::vector<std::vector<int>> OptionsByScore(const SearchSpace& space, bool use_depth) {
  std::vector<std::vector<int>> order(space.options_of_table.size());
  for (size_t t = 0; t < order.size(); ++t) {
    const std::vector<ShardingOption>& options = space.options_of_table[t];
    order[t].resize(options.size());
    std::iota(order[t].begin(), order[t].end(), 0);
    std::stable_sort(order[t].begin(), order[t].end(), [&](int a, int b) {
      return OptionScore(options[a], use_depth) < OptionScore(options[b], use_depth);
    });
  }
  return order;
}

class GridSearchProposer : public Proposer {
 public:
  explicit GridSearchProposer(const SearchSpace& space)
      : order_(OptionsByScore(space, /*use_depth=*/true)), position_(order_.size(), 0) {
    total_ = 1;
    for (const std::vector<int>& options : order_) {
      total_ *= static_cast<int64_t>(options.size());
      if (total_ > kMaxGridProposals) break;  // and before it could overflow
    }
    done_ = total_ > kMaxGridProposals || total_ == 0;
  }

  absl::string_view name() const override { return "grid_search"; }
  int64_t MaxProposals() const override { return done_ ? 0 : total_ - proposed_; }

  std::optional<Proposal> Propose() override {
    if (done_) return std::nullopt;
    Proposal proposal(order_.size());
    for (size_t t = 0; t < order_.size(); ++t) proposal[t] = order_[t][position_[t]];
    ++proposed_;
    // Odometer step: the last table varies fastest, as itertools.product.
    done_ = true;
    for (size_t t = order_.size(); t-- > 0;) {
      if (++position_[t] < order_[t].size()) {
        done_ = false;
        break;
      }
      position_[t] = 0;
    }
    return proposal;
  }

 private:
  std::vector<std::vector<int>> order_;
  std::vector<size_t> position_;
  int64_t total_ = 0;
  int64_t proposed_ = 0;
  bool done_ = false;
};

class GreedyProposer : public Proposer {
 public:
  GreedyProposer(const SearchSpace& space, bool use_depth)
      : use_depth_(use_depth),
        order_(OptionsByScore(space, use_depth)),
        position_(order_.size(), 0) {
    storage_.resize(order_.size());
    for (size_t t = 0; t < order_.size(); ++t) {
      for (const ShardingOption& option : space.options_of_table[t]) {
        storage_[t].emplace_back(option.BytesMax(), option.BytesSum());
      }
    }
    for (const std::vector<int>& options : order_) {
      if (options.empty()) done_ = true;
      remaining_ += static_cast<int64_t>(options.size()) - 1;
    }
    ++remaining_;
  }

  absl::string_view name() const override {
    return use_depth_ ? "greedy(use_depth)" : "greedy(no depth)";
  }
  int64_t MaxProposals() const override { return done_ ? 0 : remaining_; }

  std::optional<Proposal> Propose() override {
    if (done_) return std::nullopt;
    Proposal proposal(order_.size());
    for (size_t t = 0; t < order_.size(); ++t) proposal[t] = order_[t][position_[t]];
    --remaining_;
    Advance();
    return proposal;
  }

 private:
  // TorchRec's feedback: strictly larger storage wins, so the first table keeps a tie, and a
  // table at its last option is never chosen.
  void Advance() {
    int largest = -1;
    std::tuple<int64_t, int64_t> largest_storage{0, 0};
    for (size_t t = 0; t < order_.size(); ++t) {
      if (position_[t] + 1 >= order_[t].size()) continue;
      const std::tuple<int64_t, int64_t>& storage = storage_[t][order_[t][position_[t]]];
      if (storage > largest_storage) {
        largest = static_cast<int>(t);
        largest_storage = storage;
      }
    }
    if (largest < 0) {
      done_ = true;
    } else {
      ++position_[largest];
    }
  }

  bool use_depth_;
  std::vector<std::vector<int>> order_;
  // (max shard bytes, total bytes) per [table][option], the feedback's key.
  std::vector<std::vector<std::tuple<int64_t, int64_t>>> storage_;
  std::vector<size_t> position_;
  int64_t remaining_ = 0;
  bool done_ = false;
};

class UniformProposer : public Proposer {
 public:
  explicit UniformProposer(const SearchSpace& space) {
    std::vector<ShardingType> types;  // in order of first appearance
    for (const std::vector<ShardingOption>& options : space.options_of_table) {
      for (const ShardingOption& option : options) {
        if (std::find(types.begin(), types.end(), option.sharding_type) == types.end()) {
          types.push_back(option.sharding_type);
        }
      }
    }
    for (ShardingType type : types) {
      Proposal proposal;
      for (const std::vector<ShardingOption>& options : space.options_of_table) {
        int best = -1;
        for (size_t i = 0; i < options.size(); ++i) {
          if (options[i].sharding_type != type) continue;
          if (best < 0 || OptionScore(options[i], /*use_depth=*/true) <
                              OptionScore(options[best], /*use_depth=*/true)) {
            best = static_cast<int>(i);
          }
        }
        if (best < 0) break;  // a table without this type: no uniform proposal for it
        proposal.push_back(best);
      }
      if (proposal.size() == space.options_of_table.size()) proposals_.push_back(proposal);
    }
  }

  absl::string_view name() const override { return "uniform"; }
  int64_t MaxProposals() const override { return static_cast<int64_t>(proposals_.size() - next_); }

  std::optional<Proposal> Propose() override {
    if (next_ >= proposals_.size()) return std::nullopt;
    return proposals_[next_++];
  }

 private:
  std::vector<Proposal> proposals_;
  size_t next_ = 0;
};

}  // namespace

double OptionScore(const ShardingOption& option, bool use_depth) {
  return use_depth ? option.PerfMax() : option.PerfSum();
}

std::unique_ptr<Proposer> MakeGridSearchProposer(const SearchSpace& space) {
  return std::make_unique<GridSearchProposer>(space);
}

std::unique_ptr<Proposer> MakeGreedyProposer(const SearchSpace& space, bool use_depth) {
  return std::make_unique<GreedyProposer>(space, use_depth);
}

std::unique_ptr<Proposer> MakeUniformProposer(const SearchSpace& space) {
  return std::make_unique<UniformProposer>(space);
}

std::vector<std::unique_ptr<Proposer>> DefaultProposers(const SearchSpace& space) {
  std::vector<std::unique_ptr<Proposer>> proposers;
  proposers.push_back(MakeGridSearchProposer(space));
  proposers.push_back(MakeGreedyProposer(space, /*use_depth=*/true));
  proposers.push_back(MakeGreedyProposer(space, /*use_depth=*/false));
  proposers.push_back(MakeUniformProposer(space));
  return proposers;
}

}  // namespace shardplan::torchrec
