// Causal attention as one kernel a head (KernelSet::Fast, codegen/fold_attention.h,
// ops/attention_fast.h) against the CPU evaluator, on lavapipe and in Dawn, pooled and with own
// buffers: the transformer's attention (heads split from projections, scaled scores, merged
// output) with every gradient, which reads the P the kernel stores; rows that are no multiple of
// the invocation grid and three rows an invocation; operands stored transposed and no
// epilogues, heads sharing workgroups (the last one partly); and the attention left to three
// kernels (scores read elsewhere, sides past the kernel's, too little workgroup memory). And the
// fast set's graph pass that lets the query gradient read K itself (readThroughCancellingPermutes).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

#include "../../tensorgrad/src/ops/attention_fast.h"
#include "folded_matmul_case.h"
#include "traced_cases.h"

namespace {

constexpr double kRtol = 1e-4, kAtol = 1e-5;
constexpr tg::EmitOptions kFast{.kernels = tg::KernelSet::Fast};

using Case = tg_test::MatmulCase;

using tg_test::attentionCase;

// Heads given as parameters, forward only (a gradient would read the transposes too, which then
// run kernels of their own): Q stored [dk, t], K stored [t, dk] (the scores' rhs Kᵀ read
// transposed), V stored [dv, t], each read through its folded transpose; no scale, the output
// stored unpermuted.
Case storedCase(int64_t batches, int64_t t, int64_t dk, int64_t dv) {
  return tg_test::withUniformValues(tg::traceFn([&] {
    const tg::Tensor qt = tg::paramInput("qt", {batches, dk, t});
    const tg::Tensor k = tg::paramInput("k", {batches, t, dk});
    const tg::Tensor vt = tg::paramInput("vt", {batches, dv, t});
    const tg::Tensor scores = tg::matmul(tg::swapAxes(qt, -1, -2), tg::swapAxes(k, -1, -2));
    const tg::Tensor p = tg::capture("p", tg::softmaxCausal(scores));
    return std::vector<tg::Tensor>{tg::matmul(p, tg::swapAxes(vt, -1, -2))};
  }), 37);
}

std::vector<tg::KernelSpec> attentionKernels(const tg::Graph& graph,
                                             tg::EmitOptions options = kFast) {
  std::vector<tg::KernelSpec> out;
  for (tg::KernelSpec& k :
       tg::emitKernels(graph, tg::planBuffers(graph, {}, {}, false, true), options))
    if (k.wgsl.starts_with("// fast attention")) out.push_back(std::move(k));
  return out;
}

void expectMatchesCpu(const Case& c) {
  tg_test::expectFoldedMatmulsMatchCpu(c, kFast, kRtol, kAtol);
}

TEST(FastAttention, TheTransformersAttentionIsOneKernelAHead) {
  // (t, dk = dv): (16, 16) four rows and columns of invocations a head; (13, 8) rows past t in
  // the last vec4; (8, 32) output columns past the scores' (their reads clamped); (32, 32) the
  // largest head, 64 invocations.
  for (const auto& [t, d, heads] :
       {std::array<int64_t, 3>{16, 32, 2}, {13, 32, 4}, {8, 64, 2}, {32, 64, 2}}) {
    SCOPED_TRACE("t " + std::to_string(t) + " d " + std::to_string(d));
    const Case c = attentionCase(2, t, d, heads);
    const std::vector<tg::KernelSpec> k = attentionKernels(c.graph);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k.front().outputs, 2);
    EXPECT_EQ(k.front().bindings.size(), 5u);
    EXPECT_NE(k.front().wgsl.find("scoreEpilogue("), std::string::npos);
    EXPECT_NE(k.front().wgsl.find("outIndex("), std::string::npos);  // the head merge
    expectMatchesCpu(c);
  }
}

TEST(FastAttention, OperandsStoredTransposedAndNoEpilogues) {
  // t = 16: a head is 4 × 6 invocations, two heads a workgroup (the third workgroup holds one);
  // t = 21, dv = 3: 6 × 6, a head a workgroup.
  for (const auto& [t, dk, dv, heads] :
       {std::array<int64_t, 4>{16, 8, 24, 2}, {21, 5, 3, 1}}) {
    SCOPED_TRACE("t " + std::to_string(t));
    const Case c = storedCase(5, t, dk, dv);
    const std::vector<tg::KernelSpec> k = attentionKernels(c.graph);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k.front().wgsl.find("epilogue("), std::string::npos);
    EXPECT_EQ(k.front().wgsl.substr(0, k.front().wgsl.find('\n')),
              "// fast attention: 5 × softmax_causal([" + std::to_string(t) + ", " +
                  std::to_string(dk) + "] stored ᵀ · [" + std::to_string(dk) + ", " +
                  std::to_string(t) + "] stored ᵀ) · [" + std::to_string(t) + ", " +
                  std::to_string(dv) + "] stored ᵀ, " + std::to_string(heads) +
                  (heads == 1 ? " head" : " heads") + " a workgroup");
    EXPECT_EQ(k.front().threads,
              (5 + heads - 1) / heads * heads * ((t + 3) / 4) * std::max((t + 3) / 4, (dv + 3) / 4));
    expectMatchesCpu(c);
  }
}

TEST(FastAttention, ScoresReadElsewhereKeepTheirKernels) {
  const Case c = attentionCase(2, 16, 32, 2, true);
  EXPECT_TRUE(attentionKernels(c.graph).empty());
  expectMatchesCpu(c);
}

TEST(FastAttention, SidesPastTheKernelsAndTooLittleWorkgroupMemoryKeepThreeKernels) {
  const tg::EmitOptions roomy{.kernels = tg::KernelSet::Fast, .workgroupStorageBytes = 65536};
  EXPECT_TRUE(attentionKernels(storedCase(1, 33, 8, 8).graph, roomy).empty());   // t
  EXPECT_TRUE(attentionKernels(storedCase(1, 16, 8, 33).graph, roomy).empty());  // dv
  EXPECT_TRUE(attentionKernels(storedCase(1, 16, 65, 8).graph, roomy).empty());  // dk
  // t = dv = 32, dk = 64 takes 19,456 bytes a head: past WebGPU's default 16 KiB.
  const Case big = storedCase(1, 32, 64, 32);
  EXPECT_TRUE(attentionKernels(big.graph).empty());
  EXPECT_EQ(attentionKernels(big.graph, roomy).size(), 1u);
  const tg::detail::AttentionProblem p{.t = 32, .dk = 64, .dv = 32};
  EXPECT_EQ(tg::detail::attentionWorkgroupBytes(p), 19456);
  EXPECT_THROW(tg::detail::fastAttentionKernel(p), std::logic_error);
}

// Ops reading permute(permute(x)) whose second permute undoes the first.
size_t cancellingReads(const tg::Graph& g) {
  const auto permute = [&](int t) -> const tg::Op* {
    const auto& src = g.tensor(t).source;
    return src && g.ops[static_cast<size_t>(*src)].kind == tg::OpKind::Permute
               ? &g.ops[static_cast<size_t>(*src)]
               : nullptr;
  };
  size_t n = 0;
  for (const tg::Op& op : g.ops)
    for (int in : op.inputs)
      if (const tg::Op* second = permute(in))
        if (const tg::Op* first = permute(second->inputs[0]))
          n += first->attrs.perm == second->attrs.perm && first->attrs.perm.size() == 4 &&
               first->attrs.perm[2] == 3 && first->attrs.perm[3] == 2;
  return n;
}

TEST(CancellingPermutes, TheQueryGradientReadsKAndItsSecondTransposeGoes) {
  // dQ = dS · swapAxes(swapAxes(K)): after the pass it reads K, and the second swap goes; every
  // value is the same bits on the CPU, and the fast kernels (K's projection now storing heads,
  // the scores reading K transposed) match the CPU on lavapipe and in Dawn.
  for (const int64_t t : {16, 40}) {  // the attention kernel's, and three kernels'
    SCOPED_TRACE(t);
    const Case before = attentionCase(2, t, 32, 2);
    Case after = before;
    tg::readThroughCancellingPermutes(after.graph);
    const auto permutes = [](const tg::Graph& g) {
      return std::count_if(g.ops.begin(), g.ops.end(),
                           [](const tg::Op& op) { return op.kind == tg::OpKind::Permute; });
    };
    EXPECT_EQ(cancellingReads(before.graph), 1u);
    EXPECT_EQ(cancellingReads(after.graph), 0u);
    EXPECT_EQ(permutes(after.graph), permutes(before.graph) - 1);
    const auto a = tg::evaluate(before.graph, before.env), b = tg::evaluate(after.graph, after.env);
    for (const auto& [name, id] : before.graph.captures) {
      const std::vector<float>& x = a.at(static_cast<size_t>(id)).f;
      const std::vector<float>& y = b.at(static_cast<size_t>(id)).f;
      ASSERT_EQ(x.size(), y.size()) << name;
      for (size_t i = 0; i < x.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(x[i]), std::bit_cast<uint32_t>(y[i])) << name << " " << i;
    }
    expectMatchesCpu(after);
  }
}

}  // namespace
