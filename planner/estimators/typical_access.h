#ifndef SHARDPLAN_PLANNER_ESTIMATORS_TYPICAL_ACCESS_H_
#define SHARDPLAN_PLANNER_ESTIMATORS_TYPICAL_ACCESS_H_

#include <cstdint>
#include <vector>

namespace shardplan {

// The typical table of the DLRM-like pool (docs/table-pool.md): the central values of the
// synthetic pool's access model, fitted to Meta's published statistics (seed 0). The pool
// generator (lab/data/synthetic_pool.h) draws around them; the server costs a table sent
// without an access histogram as one of these (docs/cost-models.md, "Tables without a
// histogram").
struct TypicalAccessParams {
  int64_t batch_size = 65536;            // the histograms' batch, the reference's
  double active_fraction_log10 = -1.37;  // a batch touches 10^x of the hash range
  double uniform_share = 0.51;           // of lookups spread evenly over the active rows
  double zipf_exponent = 0.87;           // of the Zipf head over the rest
};

// The access histogram (17 bins, summing to 1) of a table of `rows` rows and `pooling_factor`
// lookups per sample under `params`, for one batch of params.batch_size samples as the pool's
// histograms are: the expected histogram of ExpectedZipfAccess over the active rows.
std::vector<double> TypicalAccessBins(int64_t rows, double pooling_factor,
                                      const TypicalAccessParams& params = {});

}  // namespace shardplan

#endif  // SHARDPLAN_PLANNER_ESTIMATORS_TYPICAL_ACCESS_H_
