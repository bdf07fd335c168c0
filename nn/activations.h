#ifndef SHARDPLAN_NN_ACTIVATIONS_H_
#define SHARDPLAN_NN_ACTIVATIONS_H_

// exp, sigmoid and tanh for the LSTM's gates from IEEE +, -, *, /, comparisons and bit
// operations only (Cephes's expf and tanhf reductions and polynomials). The same input gives the
// same bits on every CPU and C library (std::exp's last bit is the libm's choice) and in vector
// code (no FMA: neither of this build's targets enables it), and loops over them vectorise
// (std::exp and std::tanh are calls). Inline so that the cell's loop can inline them.

#include <bit>
#include <cstdint>

namespace shardplan {

// e^x with a relative error of a few 1e-7; x is clamped to [-87, 88] (results stay normal and
// finite), NaN stays NaN.
inline float PortableExp(float x) {
  float xc = x > -87.0f ? x : -87.0f;  // also maps NaN to a number for the integer conversion
  xc = xc < 88.0f ? xc : 88.0f;
  // x = n ln 2 + r, |r| <= ln 2 / 2; ln 2 in two parts so that n * kLn2Hi is exact.
  constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float n = (xc * 1.44269504088896341f + kRound) - kRound;
  float r = xc - n * 0.693359375f;
  r = r - n * -2.12194440e-4f;
  const float z = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * z + r + 1.0f;
  // 2^n as a float's exponent field (n in [-126, 127]).
  const float scale = std::bit_cast<float>((static_cast<int32_t>(n) + 127) << 23);
  const float result = p * scale;
  return x == x ? result : x;
}

// 1 / (1 + e^-x).
inline float PortableSigmoid(float x) { return 1.0f / (1.0f + PortableExp(-x)); }

// tanh: an odd polynomial below |x| = 0.625 (no cancellation near 0), 1 - 2 / (e^2|x| + 1)
// with x's sign above.
inline float PortableTanh(float x) {
  const float a = x < 0.0f ? -x : x;
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float large = 1.0f - 2.0f / (PortableExp(2.0f * a) + 1.0f);
  return a < 0.625f ? small : (x < 0.0f ? -large : large);
}

}  // namespace shardplan

#endif  // SHARDPLAN_NN_ACTIVATIONS_H_
