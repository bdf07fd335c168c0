#include "bench/oper_exact/cbc_solver.h"

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "coin/Cbc_C_Interface.h"

namespace shardplan::oper_exact {

const char* CbcVersion() { return Cbc_getVersion(); }

struct CbcSolver::Model {
  Cbc_Model* cbc = Cbc_newModel();
  ~Model() { Cbc_deleteModel(cbc); }
};

CbcSolver::CbcSolver() : model_(std::make_unique<Model>()) {
  Cbc_setLogLevel(model_->cbc, 0);
  Cbc_setObjSense(model_->cbc, 1.0);  // minimise
  // Exact: stop on a proven optimum, not on CBC's default relative gap.
  Cbc_setAllowableGap(model_->cbc, 1e-9);
  Cbc_setAllowableFractionGap(model_->cbc, 1e-9);
}

CbcSolver::~CbcSolver() = default;

int CbcSolver::AddColumn(double lower, double upper, double objective, bool integer) {
  const std::string name = absl::StrCat("c", columns_);
  Cbc_addCol(model_->cbc, name.c_str(), lower, upper, objective, integer ? 1 : 0, 0, nullptr,
             nullptr);
  return columns_++;
}

void CbcSolver::AddRow(const std::vector<Term>& terms, char sense, double rhs) {
  std::vector<int> cols;
  std::vector<double> coefs;
  for (const auto& [col, coef] : terms) {
    if (coef == 0.0) continue;
    cols.push_back(col);
    coefs.push_back(coef);
  }
  Cbc_addRow(model_->cbc, "", static_cast<int>(cols.size()), cols.data(), coefs.data(), sense, rhs);
}

absl::StatusOr<MipResult> CbcSolver::Minimize(const MipOptions& options,
                                              const std::vector<double>& start) {
  if (columns_ == 0) {  // nothing to decide (CBC abandons an empty model)
    MipResult empty;
    empty.has_solution = true;
    empty.proven_optimal = true;
    return empty;
  }
  Cbc_Model* cbc = model_->cbc;
  Cbc_setMaximumSeconds(cbc, options.time_limit_s);
  Cbc_setParameter(cbc, "threads", "1");  // deterministic for a given instance
  // The limit in wall seconds (CBC counts CPU seconds by default, which a busy machine stretches).
  Cbc_setParameter(cbc, "timeMode", "elapsed");
  if (options.warm_start && static_cast<int>(start.size()) == columns_) {
    std::vector<int> indices(columns_);
    for (int c = 0; c < columns_; ++c) indices[c] = c;
    Cbc_setMIPStartI(cbc, columns_, indices.data(), start.data());
  }
  const auto begin = std::chrono::steady_clock::now();
  Cbc_solve(cbc);
  MipResult result;
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  if (Cbc_isAbandoned(cbc)) {
    return absl::InternalError("CBC abandoned the search (numerical difficulties)");
  }
  const double* best = Cbc_bestSolution(cbc);
  result.has_solution = best != nullptr;
  result.proven_optimal = Cbc_isProvenOptimal(cbc) != 0;
  result.time_limit_hit = Cbc_isSecondsLimitReached(cbc) != 0;
  result.bound = Cbc_getBestPossibleObjValue(cbc);
  if (result.has_solution) {
    result.objective = Cbc_getObjValue(cbc);
    result.values.assign(best, best + columns_);
    // A proven optimum's bound is the optimum (CBC may report the root bound otherwise).
    if (result.proven_optimal) result.bound = result.objective;
  }
  return result;
}

}  // namespace shardplan::oper_exact
