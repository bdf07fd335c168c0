#ifndef SHARDPLAN_BENCH_OPER_EXACT_CBC_SOLVER_H_
#define SHARDPLAN_BENCH_OPER_EXACT_CBC_SOLVER_H_

// A mixed-integer linear program solved by COIN-OR CBC through its C interface
// (coin/Cbc_C_Interface.h, Debian's coinor-libcbc-dev): columns and rows added one by one,
// minimised, within a time limit. The only file that sees CBC, so that the models built on it
// stay plain C++. Benchmark and test code only (docs/oper.md, "Exact check"): the server never
// links it.

#include <memory>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace shardplan::oper_exact {

// Column index and coefficient.
using Term = std::pair<int, double>;

struct MipOptions {
  double time_limit_s = 10.0;
  // Start CBC from a feasible solution (the heuristic's): its incumbent is then never worse.
  bool warm_start = true;
};

struct MipResult {
  bool has_solution = false;    // an integer-feasible solution was found
  bool proven_optimal = false;  // and CBC proved it optimal (search completed)
  bool time_limit_hit = false;
  double objective = 0.0;      // the best solution's value (when has_solution)
  double bound = 0.0;          // the best lower bound CBC proved
  double seconds = 0.0;        // wall time of the solve
  std::vector<double> values;  // the best solution, per column
};

// CBC's version ("2.10.8").
const char* CbcVersion();

class CbcSolver {
 public:
  CbcSolver();
  ~CbcSolver();
  CbcSolver(const CbcSolver&) = delete;
  CbcSolver& operator=(const CbcSolver&) = delete;

  // Adds a column in [lower, upper] with cost `objective`; returns its index.
  int AddColumn(double lower, double upper, double objective, bool integer);
  // Adds the row sum(terms) SENSE rhs, SENSE one of 'L' (<=), 'G' (>=), 'E' (=).
  void AddRow(const std::vector<Term>& terms, char sense, double rhs);
  int columns() const { return columns_; }

  // Minimises. `start` (one value per column, or empty) is the warm start when
  // options.warm_start. INTERNAL when CBC abandons the search (numerical trouble).
  absl::StatusOr<MipResult> Minimize(const MipOptions& options, const std::vector<double>& start);

 private:
  struct Model;
  std::unique_ptr<Model> model_;
  int columns_ = 0;
};

}  // namespace shardplan::oper_exact

#endif  // SHARDPLAN_BENCH_OPER_EXACT_CBC_SOLVER_H_
