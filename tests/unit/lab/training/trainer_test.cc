#include "lab/training/trainer.h"

#include <cmath>
#include <span>
#include <vector>

#include "costmodels/neural/table_features.h"
#include "gtest/gtest.h"
#include "lab/training/comm_objective.h"
#include "lab/training/compute_objective.h"
#include "lab/training/split.h"
#include "lab/training/train_models.h"
#include "tests/unit/lab/training/training_test_data.h"

namespace shardplan::training {
namespace {

TEST(TrainerTest, DeepSetsLearnsASumOfLinearFunctions) {
  const ToySets sets = MakeToySets(2000, 6, 1);
  ComputeObjective objective(sets.features, sets.row_offsets, sets.labels,
                             MlpShape({6, 32, 16}, true), MlpShape({16, 16, 1}, false));
  const Split split = SplitDataset(2000, 0);
  const TrainResult initial = Train(objective, split, SmallOptions(0, 2));
  const TrainResult trained = Train(objective, split, SmallOptions(40, 2));
  EXPECT_EQ(trained.epochs, 40);
  EXPECT_GT(trained.best_epoch, 30);
  EXPECT_GT(initial.test_mse, 1.0);
  EXPECT_LT(trained.test_mse, 0.02 * initial.test_mse)
      << "initial " << initial.test_mse << " trained " << trained.test_mse;
  EXPECT_EQ(trained.test_predictions.size(), split.test.size());
}

TEST(TrainerTest, MlpLearnsALinearMap) {
  const ToyLinear data = MakeToyLinear(2000, 8, 4, 2);
  CommObjective objective(data.inputs, data.labels, MlpShape({8, 32, 16, 4}, false));
  const Split split = SplitDataset(2000, 0);
  const TrainResult initial = Train(objective, split, SmallOptions(0, 1));
  const TrainResult trained = Train(objective, split, SmallOptions(40, 1));
  EXPECT_LT(trained.test_mse, 0.02 * initial.test_mse)
      << "initial " << initial.test_mse << " trained " << trained.test_mse;
  EXPECT_EQ(trained.test_predictions.size(), split.test.size() * 4);
}

TEST(TrainerTest, WeightsAreBitIdenticalForAnyThreadCountAndRun) {
  const ToySets sets = MakeToySets(500, 6, 3);
  ComputeObjective objective(sets.features, sets.row_offsets, sets.labels,
                             MlpShape({6, 16, 8}, true), MlpShape({8, 8, 1}, false));
  const Split split = SplitDataset(500, 1);
  TrainOptions options = SmallOptions(3, 1);
  options.batch_size = 100;  // chunks of 32, 32, 32, 4: a short last chunk
  const TrainResult one = Train(objective, split, options);
  options.threads = 3;
  const TrainResult three = Train(objective, split, options);
  const TrainResult again = Train(objective, split, options);
  EXPECT_EQ(one.params, three.params);
  EXPECT_EQ(three.params, again.params);
  EXPECT_EQ(one.test_mse, three.test_mse);
  EXPECT_EQ(one.test_predictions, three.test_predictions);
  options.seed = 6;
  EXPECT_NE(Train(objective, split, options).params, one.params);
}

TEST(TrainerTest, EarlyStoppingKeepsTheBestValidationWeights) {
  const ToyLinear data = MakeToyLinear(300, 4, 2, 9);
  CommObjective objective(data.inputs, data.labels, MlpShape({4, 8, 2}, false));
  const Split split = SplitDataset(300, 2);
  TrainOptions options = SmallOptions(200, 1);
  options.patience = 2;
  options.adam.lr = 0.3f;  // large steps: validation stops improving early
  const TrainResult result = Train(objective, split, options);
  EXPECT_LT(result.epochs, 200);
  EXPECT_EQ(result.epochs - result.best_epoch, 2);
  // The reported validation MSE is the best one, from the kept weights.
  TrainOptions replay = options;
  replay.max_epochs = result.best_epoch;
  replay.patience = result.best_epoch + 1;
  EXPECT_EQ(Train(objective, split, replay).params, result.params);
}

}  // namespace
}  // namespace shardplan::training
