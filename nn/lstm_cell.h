#ifndef SHARDPLAN_NN_LSTM_CELL_H_
#define SHARDPLAN_NN_LSTM_CELL_H_

// The LSTM cell arithmetic shared by inference (Lstm::Step) and training (LstmForward), so an
// LSTM served from its trained parameters reproduces the trainer's outputs bit for bit.

namespace shardplan {

// Packs one torch.nn.LSTM layer for LstmCellForward: wt[in + hidden][4 * hidden] is weight_ih
// [4H][in] and weight_hh [4H][H] transposed and stacked (rows of x, then rows of h), and
// bias[4H] = bias_ih + bias_hh. One dense product over z = [x; h] then gives every gate.
void PackLstmLayer(const float* weight_ih, const float* weight_hh, const float* bias_ih,
                   const float* bias_hh, int in, int hidden, float* wt, float* bias);

// One step of a layer. z holds [x (in floats); h_prev (hidden floats)]; c holds c_prev on entry
// and c' on return. Writes the activated gates (4 * hidden: i, f, g, o as torch orders them; i,
// f, o sigmoid, g tanh) to `gates` and h' = o * tanh(c') to `h`. gates must not overlap z, and
// z, gates, c and h are four separate buffers. Does not allocate.
void LstmCellForward(const float* z, int in, int hidden, const float* wt, const float* bias,
                     float* gates, float* c, float* h);

}  // namespace shardplan

#endif  // SHARDPLAN_NN_LSTM_CELL_H_
