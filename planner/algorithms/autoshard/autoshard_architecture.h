#ifndef SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_ARCHITECTURE_H_
#define SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_ARCHITECTURE_H_

// The AutoShard policy-value-cost network of the reference (autoshard/training.py, Net), as the
// inference algorithm and the trainer (lab/rl/autoshard/) both lay it out: its MLPs and LSTM,
// their sizes, and the tensor names of torch's state_dict, in state_dict order.

#include <cstdint>
#include <string>
#include <vector>

namespace shardplan {

inline constexpr char kAutoShardArchitecture[] = "autoshard-1";

inline constexpr int kAutoShardFeatures = 21;     // dims, rows, pooling, size, 17 access bins
inline constexpr int kAutoShardTableLatent = 32;  // t_fc's output: a table's representation
inline constexpr int kAutoShardStepLatent = 32;   // s_fc_0's output
inline constexpr int kAutoShardCoreSize = 64;     // LSTM input and hidden size
inline constexpr int kAutoShardCoreLayers = 2;
inline constexpr int kAutoShardActionOther = 2;  // [predicted shard cost, shard size GB]
inline constexpr int kAutoShardActionSize = 64;  // [table-latent sum, ReLU(a_fc_0(other))]
inline constexpr int kAutoShardPolicyInput = 3 * kAutoShardCoreSize;  // [s, a, s * a]

// One MLP of the network: layers "<prefix>_<l>.weight" [out][in] and "<prefix>_<l>.bias" [out],
// ReLU between layers and, when relu_on_output, after the last.
struct AutoShardMlpSpec {
  std::string prefix;
  std::vector<int> sizes;  // {in, hidden..., out}
  bool relu_on_output = false;
};

// The MLPs by role.
AutoShardMlpSpec AutoShardTableMlp();   // t_fc: 21 -> 128 -> 32, ReLU on the output
AutoShardMlpSpec AutoShardStepMlp();    // s_fc: 1 -> 32, ReLU
AutoShardMlpSpec AutoShardActionMlp();  // a_fc: 2 -> 32, ReLU
AutoShardMlpSpec AutoShardPolicyMlp();  // p_fc: 192 -> 128 -> 128 -> 64 -> 1
AutoShardMlpSpec AutoShardValueMlp();   // b_fc: 64 -> 64 -> 1
AutoShardMlpSpec AutoShardCostMlp();    // c_fc: 32 -> 64 -> 1

// The LSTM's tensor names: core.weight_ih_l<k>, core.weight_hh_l<k>, core.bias_ih_l<k>,
// core.bias_hh_l<k>.
std::string AutoShardCoreTensor(const char* what, int layer);

// Every tensor of the network with its shape, in torch's state_dict order (t_fc, s_fc, a_fc,
// core, p_fc, b_fc, c_fc: the order Net.__init__ defines them).
struct AutoShardTensorSpec {
  std::string name;
  std::vector<uint32_t> shape;
};
std::vector<AutoShardTensorSpec> AutoShardTensorSpecs();

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ALGORITHMS_AUTOSHARD_AUTOSHARD_ARCHITECTURE_H_
