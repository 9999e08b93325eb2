// Upstream's conv and pool sizes are `number | [h, w]` in eight places: conv2d's stride and
// padding, maxPool2d's kernel size, stride and padding, and the Conv2d layer's kernel size, stride
// and padding. Each takes both forms here (tg::Size2, and tg::OptionalSize2 for the pool's
// optional stride): one number means both dims, a pair gives each, as upstream's pairOpt.
#include <gtest/gtest.h>

#include <array>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>


namespace {

// The (h, w) pairs an op was traced with: kernel, stride, padding.
using Pairs = std::array<int64_t, 6>;

struct Weight : tg::Module {
  tg::Tensor w = param("w", {2, 1, 3, 3});
};

// Traces `f` on a [1, 1, 9, 9] input and returns the attributes of its one `kind` op.
template <class M, class F>
Pairs traced(const M& model, tg::OpKind kind, F f) {
  const tg::CompiledIR ir = tg::traceForward(tg::ForwardSpec<M>{
      .model = model,
      .forward = [&](const M& m, const tg::Inputs& in) { return f(m, in["x"]); },
      .inputs = {{"x", {{1, 1, 9, 9}}}}});
  for (const tg::Op& op : ir.graph.ops) {
    if (op.kind == kind) {
      const tg::OpAttrs& a = op.attrs;
      return {a.kH, a.kW, a.strideH, a.strideW, a.padH, a.padW};
    }
  }
  ADD_FAILURE() << "no " << tg::opKindName(kind) << " op";
  return {};
}

template <class F>
Pairs conv(F f) {
  return traced(Weight{}, tg::OpKind::Conv2d,
                [&](const Weight& m, const tg::Tensor& x) { return f(x, m.w); });
}
template <class F>
Pairs pool(F f) {
  return traced(Weight{}, tg::OpKind::MaxPool2d,
                [&](const Weight&, const tg::Tensor& x) { return f(x); });
}

TEST(NumberOrPair, Conv2dStrideAndPadding) {
  const Pairs both = conv([](auto& x, auto& w) { return tg::conv2d(x, w, {.stride = 2, .padding = 1}); });
  EXPECT_EQ(both, conv([](auto& x, auto& w) { return tg::conv2d(x, w, {.stride = {2, 2}, .padding = {1, 1}}); }));
  EXPECT_EQ((Pairs{both[0], both[1], 2, 2, 1, 1}), both);
  const Pairs each = conv([](auto& x, auto& w) { return tg::conv2d(x, w, {.stride = {2, 1}, .padding = {0, 1}}); });
  EXPECT_EQ((Pairs{each[0], each[1], 2, 1, 0, 1}), each);
}

TEST(NumberOrPair, MaxPool2dKernelStrideAndPadding) {
  const Pairs both = pool([](auto& x) { return tg::maxPool2d(x, 3, {.stride = 2, .padding = 1}); });
  EXPECT_EQ(both, (Pairs{3, 3, 2, 2, 1, 1}));
  EXPECT_EQ(both, pool([](auto& x) { return tg::maxPool2d(x, {3, 3}, {.stride = {2, 2}, .padding = {1, 1}}); }));
  EXPECT_EQ(pool([](auto& x) { return tg::maxPool2d(x, {3, 2}, {.stride = {2, 1}, .padding = {1, 0}}); }),
            (Pairs{3, 2, 2, 1, 1, 0}));
  // No stride: the kernel size, as upstream's default.
  EXPECT_EQ(pool([](auto& x) { return tg::maxPool2d(x, {3, 2}); }), (Pairs{3, 2, 3, 2, 0, 0}));
  EXPECT_EQ(pool([](auto& x) { return tg::maxPool2d(x, 3, {.padding = 1}); }), (Pairs{3, 3, 3, 3, 1, 1}));
}

struct Layers : tg::Module {
  tg::Conv2d one{*this, "one", 1, 2, 3, {.stride = 2, .padding = 1}};
  tg::Conv2d pair{*this, "pair", 1, 2, {3, 3}, {.stride = {2, 2}, .padding = {1, 1}}};
  tg::Conv2d each{*this, "each", 1, 2, {3, 1}, {.stride = {2, 1}, .padding = {0, 1}}};
};

TEST(NumberOrPair, Conv2dLayerKernelStrideAndPadding) {
  const Layers model;
  EXPECT_EQ(model.one.W.shape(), (tg::Shape{2, 1, 3, 3}));
  EXPECT_EQ(model.pair.W.shape(), (tg::Shape{2, 1, 3, 3}));
  EXPECT_EQ(model.each.W.shape(), (tg::Shape{2, 1, 3, 1}));
  auto layer = [&](const tg::Conv2d Layers::*which) {
    return traced(model, tg::OpKind::Conv2d,
                  [&](const Layers& m, const tg::Tensor& x) { return (m.*which).fwd(x); });
  };
  const Pairs one = layer(&Layers::one);
  EXPECT_EQ((Pairs{one[0], one[1], 2, 2, 1, 1}), one);
  EXPECT_EQ(one, layer(&Layers::pair));
  const Pairs each = layer(&Layers::each);
  EXPECT_EQ((Pairs{each[0], each[1], 2, 1, 0, 1}), each);
}

// A literal port of `{ padding: 1 }` must pad both dims (it once read as (1, 0) and gave
// [.., 8, 6] for an 8×8 input).
struct OneConv : tg::Module {
  tg::Conv2d conv{*this, "conv", 1, 2, 3, {.padding = 1}};
  tg::Conv2d strided{*this, "strided", 2, 2, {3, 1}, {.stride = 2, .padding = {1, 0}}};
};

TEST(NumberOrPair, OneNumberMeansBothDimsInTheOutputShapes) {
  const OneConv model;
  const tg::CompiledIR ir = tg::traceForward(tg::ForwardSpec<OneConv>{
      .model = model,
      .forward =
          [](const OneConv& m, const tg::Inputs& in) {
            const tg::Tensor same = m.conv.fwd(in["x"]);                 // [1, 2, 8, 8]
            const tg::Tensor half = m.strided.fwd(same);                 // [1, 2, 4, 4]
            return tg::maxPool2d(half, 2, {.stride = 1, .padding = 1});  // [1, 2, 5, 5]
          },
      .inputs = {{"x", {{1, 1, 8, 8}}}}});
  std::vector<tg::Shape> convShapes;
  for (const tg::Op& op : ir.graph.ops) {
    if (op.kind == tg::OpKind::Conv2d || op.kind == tg::OpKind::MaxPool2d)
      convShapes.push_back(ir.graph.tensor(op.out).shape);
  }
  EXPECT_EQ(convShapes, (std::vector<tg::Shape>{{1, 2, 8, 8}, {1, 2, 4, 4}, {1, 2, 5, 5}}));
}

}  // namespace
