// Traced graphs that several fast-set tests share: causal attention with every gradient
// captured, and a layernorm with its gradients.
#pragma once

#include <cmath>

#include "folded_matmul_case.h"

namespace tg_test {

// Every gradient of the traced loss captured, so the backward's reads of P are checked too. The
// leaves are halved: scores of a few units, where a peaked softmax would amplify the products'
// rounding (the CPU's sums run in another order) past the tolerance.
inline MatmulCase withGradients(tg::Graph g) {
  for (const auto& [name, grad] : tg::appendGrad(g).paramGrads)
    g.captures.emplace_back("d" + name, grad);
  MatmulCase c = withUniformValues(std::move(g), 31);
  for (auto& [name, value] : c.env.params)
    for (float& f : value.f) f *= 0.5f;
  return c;
}

// The transformer's attention over x [b, t, d] with `heads` heads: q, k, v projections split
// into heads, scores scaled by 1/√(d/heads), causal softmax, weighted sum merged and projected.
// With `scoresCaptured` the scaled scores are an output too.
inline MatmulCase attentionCase(int64_t b, int64_t t, int64_t d, int64_t heads,
                                bool scoresCaptured = false) {
  return withGradients(tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {b, t, d});
    const tg::Tensor wq = tg::paramInput("wq", {d, d});
    const tg::Tensor wk = tg::paramInput("wk", {d, d});
    const tg::Tensor wv = tg::paramInput("wv", {d, d});
    const tg::Tensor wo = tg::paramInput("wo", {d, d});
    const tg::Tensor qh = tg::splitHeads(tg::matmul(x, wq), heads);
    const tg::Tensor kh = tg::splitHeads(tg::matmul(x, wk), heads);
    const tg::Tensor vh = tg::splitHeads(tg::matmul(x, wv), heads);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d / heads));
    const tg::Tensor raw = tg::mul(tg::matmul(qh, tg::swapAxes(kh, -1, -2)), scale);
    const tg::Tensor scores = scoresCaptured ? tg::capture("scores", raw) : raw;
    const tg::Tensor p = tg::softmaxCausal(scores);
    const tg::Tensor out = tg::matmul(tg::mergeHeads(tg::matmul(p, vh)), wo);
    return std::vector<tg::Tensor>{tg::sum(tg::mul(out, out))};
  }));
}

// A layernorm of x [batch, rows, dim] as tg::LayerNorm writes it, its gradients, and a per-row
// sum beside it: loss = sum(layernorm(x) · w) + sum(sum_last(x · x) · s).
inline tg::Graph layerNormGraph(int64_t batch, int64_t rows, int64_t dim) {
  tg::Graph g = tg::traceFn([&] {
    const tg::Tensor x = tg::paramInput("x", {batch, rows, dim});
    const tg::Tensor gain = tg::paramInput("gain", {dim});
    const tg::Tensor bias = tg::paramInput("bias", {dim});
    const tg::Tensor w = tg::paramInput("w", {batch, rows, dim});
    const tg::Tensor s = tg::paramInput("s", {batch, rows});
    const tg::Tensor m = tg::mean(x, -1, {.keepDims = true});
    const tg::Tensor c = tg::sub(x, m);
    const tg::Tensor v = tg::mean(tg::mul(c, c), -1, {.keepDims = true});
    const tg::Tensor y = tg::add(tg::mul(tg::div(c, tg::sqrt(tg::addScalar(v, 1e-5))), gain), bias);
    const tg::Tensor sq = tg::sum(tg::mul(x, x), -1);
    return std::vector<tg::Tensor>{
        tg::add(tg::sum(tg::mul(tg::capture("y", y), w)), tg::sum(tg::mul(sq, s)))};
  });
  for (const auto& [name, t] : tg::appendGrad(g).paramGrads) g.captures.emplace_back("d" + name, t);
  return g;
}

}  // namespace tg_test
