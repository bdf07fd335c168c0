#ifndef SHARDPLAN_NN_DENSE_KERNELS_H_
#define SHARDPLAN_NN_DENSE_KERNELS_H_

// The dense-layer arithmetic shared by inference (Mlp) and training (TrainableMlp), so a trained
// model served from its bundle reproduces the trainer's predictions bit for bit.

namespace shardplan {

// wt[in][out] = weight[out][in] (torch.nn.Linear's layout, transposed): the forward loop then
// runs over contiguous outputs, which the compiler vectorises without reassociating sums.
void TransposeWeights(const float* weight, int in, int out, float* wt);

// Whether the CPU runs AVX2 (the build stays portable, no -march: the wider code is chosen at run
// time, and gives the same bits as the baseline code).
bool CpuHasAvx2();

// y[0..out) = bias + x[0..in) * wt[in][out], then ReLU when `relu`. y must not overlap x.
void DenseForward(const float* __restrict x, int in, int out, const float* __restrict wt,
                  const float* __restrict bias, bool relu, float* __restrict y);

}  // namespace shardplan

#endif  // SHARDPLAN_NN_DENSE_KERNELS_H_
