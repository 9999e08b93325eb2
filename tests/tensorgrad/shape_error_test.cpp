// Every shape/dtype rule violated once: a ShapeError naming the op, the offending shapes or
// dtypes, and the caller's file:line (this file, the line of the call).
#include <gtest/gtest.h>

#include <tensorgrad/tensorgrad.h>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>


namespace {

using tg::Tensor;

struct T {
  Tensor f23, f4, f34, f234, f33, i23, i4, b23, s, img, w, f0;
};

void expectShapeError(const std::function<void(const T&)>& body, std::vector<std::string> needles,
                      int line) {
  try {
    tg::traceFn([&] {
      T t{tg::tensorInput("f23", {2, 3}),
          tg::tensorInput("f4", {4}),
          tg::tensorInput("f34", {3, 4}),
          tg::tensorInput("f234", {2, 3, 4}),
          tg::tensorInput("f33", {3, 3}),
          tg::tensorInput("i23", {2, 3}, tg::Dtype::I32),
          tg::tensorInput("i4", {4}, tg::Dtype::I32),
          {},
          tg::tensorInput("s", {}),
          tg::tensorInput("img", {1, 2, 5, 5}),
          tg::tensorInput("w", {4, 2, 3, 3}),
          {}};
      t.b23 = tg::less(t.f23, 0.0);
      body(t);
      return std::vector<Tensor>{};
    });
    ADD_FAILURE() << "line " << line << ": no ShapeError";
  } catch (const tg::ShapeError& e) {
    const std::string what = e.what();
    needles.push_back("shape_error_test.cpp:" + std::to_string(line));
    for (const auto& n : needles)
      EXPECT_NE(what.find(n), std::string::npos) << "missing '" << n << "' in:\n" << what;
  }
}

#define EXPECT_SHAPE_ERROR(stmt, ...) \
  expectShapeError([&]([[maybe_unused]] const T& t) { stmt; }, {__VA_ARGS__}, __LINE__)

TEST(ShapeErrors, ElementwiseAndSelection) {
  EXPECT_SHAPE_ERROR(tg::add(t.f23, t.f4), "add", "[2, 3]", "[4]", "Trailing-suffix");
  EXPECT_SHAPE_ERROR(tg::mul(t.f23, t.i23), "mul", "dtype mismatch", "f32", "i32");
  EXPECT_SHAPE_ERROR(tg::div(t.f23, 0.0), "div", "cannot be zero");
  EXPECT_SHAPE_ERROR(tg::less(t.f23, t.f34), "less", "[2, 3]", "[3, 4]");
  EXPECT_SHAPE_ERROR(tg::where(t.f23, t.f23, t.f23), "where", "cond must be bool", "f32");
  EXPECT_SHAPE_ERROR(tg::where(t.b23, t.f23, t.i23), "where", "dtype mismatch");
  EXPECT_SHAPE_ERROR(tg::where(t.b23, t.f34, t.f4), "where", "[3, 4]", "[2, 3]");
  EXPECT_SHAPE_ERROR(tg::exp(t.i23), "exp", "requires f32", "i32");
  EXPECT_SHAPE_ERROR(tg::dropout(t.f23, 1.5), "dropout", "[0, 1)");
  EXPECT_SHAPE_ERROR(tg::randn({2, 0}), "randn", "[2, 0]");
}

TEST(ShapeErrors, Reductions) {
  EXPECT_SHAPE_ERROR(tg::mean(t.f23, 2), "mean", "axis 2", "[2, 3]");
  EXPECT_SHAPE_ERROR(tg::sum(t.f234, -4), "sum", "axis -4", "[2, 3, 4]");
  EXPECT_SHAPE_ERROR(tg::sum(t.s, 0), "sum", "0-d");
  EXPECT_SHAPE_ERROR(tg::argmax(t.i23, 1), "argmax", "requires f32", "i32");
  EXPECT_SHAPE_ERROR(tg::categorical(t.f23, 5), "categorical", "axis 5");
}

TEST(ShapeErrors, ShapeOps) {
  EXPECT_SHAPE_ERROR(tg::reshape(t.f23, {4, 2}), "reshape", "[2, 3]", "[4, 2]");
  EXPECT_SHAPE_ERROR(tg::reshape(t.f23, {-1, -1}), "reshape", "at most one -1");
  EXPECT_SHAPE_ERROR(tg::reshape(t.f23, {-1, 4}), "reshape", "[2, 3]", "known dims multiply to 4");
  EXPECT_SHAPE_ERROR(tg::permute(t.f23, {0}), "permute", "perm length 1", "[2, 3]");
  EXPECT_SHAPE_ERROR(tg::permute(t.f23, {1, 1}), "permute", "duplicate index 1");
  EXPECT_SHAPE_ERROR(tg::swapAxes(t.f23, 0, 3), "swapAxes", "[2, 3]");
  EXPECT_SHAPE_ERROR(tg::broadcastTo(t.f23, {3, 3}), "broadcastTo", "[2, 3]", "[3, 3]");
  EXPECT_SHAPE_ERROR(tg::sumToShape(t.f23, {4}), "sumToShape", "[2, 3]", "[4]");
  EXPECT_SHAPE_ERROR(tg::splitHeads(t.f23, 2), "splitHeads", "not divisible by nHeads 2");
  EXPECT_SHAPE_ERROR(tg::mergeHeads(t.f23), "mergeHeads", "[2, 3]");
}

TEST(ShapeErrors, LinearAlgebraAndIndexing) {
  EXPECT_SHAPE_ERROR(tg::matmul(t.f23, t.f4), "matmul", "rhs must have rank >= 2", "[4]");
  EXPECT_SHAPE_ERROR(tg::matmul(t.f23, t.f23), "matmul", "inner dims", "[2, 3]");
  EXPECT_SHAPE_ERROR(tg::matmul(t.f34, t.f234), "matmul", "rank mismatch", "[3, 4]", "[2, 3, 4]");
  EXPECT_SHAPE_ERROR(tg::matmul(t.f234, t.f234), "matmul", "inner dims", "[2, 3, 4]");
  EXPECT_SHAPE_ERROR(tg::matmul(t.i23, t.f34), "matmul", "requires f32", "i32");
  EXPECT_SHAPE_ERROR(tg::oneHot(t.f23, 3), "oneHot", "indices must be i32", "f32");
  EXPECT_SHAPE_ERROR(tg::oneHot(t.i23, 0), "oneHot", "depth must be positive");
  EXPECT_SHAPE_ERROR(tg::embedding(t.f4, t.i23), "embedding", "[4]");
  EXPECT_SHAPE_ERROR(tg::takeAlongAxis(t.f23, t.i4, 0), "takeAlongAxis", "same rank", "[2, 3]",
                     "[4]");
  EXPECT_SHAPE_ERROR(tg::arange(0), "arange", "positive");
  EXPECT_SHAPE_ERROR(tg::zeros({3, -1}), "zeros", "[3, -1]");
  EXPECT_SHAPE_ERROR(tg::crossEntropy(t.f23, t.f4), "crossEntropy", "targets must be i32");
}

TEST(ShapeErrors, SoftmaxSlicingConv) {
  EXPECT_SHAPE_ERROR(tg::softmaxCausal(t.f23), "softmaxCausal", "square", "[2, 3]");
  EXPECT_SHAPE_ERROR(tg::whereCausal(t.f4, 0), "whereCausal", "rank >= 2", "[4]");
  EXPECT_SHAPE_ERROR(tg::logSoftmax(t.s), "logSoftmax", "0-d");
  EXPECT_SHAPE_ERROR(tg::narrow(t.f23, 1, 2, 2), "narrow", "[2, 4)", "size 3");
  EXPECT_SHAPE_ERROR(tg::concat({t.f23, t.f34}, 0), "concat", "[3, 4]", "[2, 3]");
  EXPECT_SHAPE_ERROR(tg::concat({t.f23, t.i23}, 0), "concat", "dtype mismatch");
  EXPECT_SHAPE_ERROR(tg::stack({t.f23, t.f34}, 0), "stack", "[2, 3]", "[3, 4]");
  EXPECT_SHAPE_ERROR(tg::split(t.f23, {1, 1}, 1), "split", "sum to 2", "[2, 3]");
  EXPECT_SHAPE_ERROR(tg::conv2d(t.f23, t.w), "conv2d", "rank-4", "[2, 3]");
  EXPECT_SHAPE_ERROR(tg::conv2d(t.img, t.w, {.groups = 3}), "conv2d", "not divisible by groups=3");
  EXPECT_SHAPE_ERROR(tg::conv2d(t.img, t.w, {.groups = 2}), "conv2d", "C_in/groups=1");
  EXPECT_SHAPE_ERROR(tg::conv2d(t.img, t.w, {.stride = {0, 1}}), "conv2d", "stride must be >= 1");
  EXPECT_SHAPE_ERROR(tg::maxPool2d(t.img, {7, 7}), "maxPool2d", "output size would be < 1");
  EXPECT_SHAPE_ERROR(tg::nearestUpsample2d(t.img, 0), "nearestUpsample2d", "factor");
  EXPECT_SHAPE_ERROR(tg::rope(t.f23, t.f23), "rope", "even");
}

TEST(TraceErrors, MisuseIsNamed) {
  EXPECT_THROW(tg::exp(Tensor()), tg::TraceError);  // outside any trace
  tg::Graph g = tg::traceFn([] {
    tg::tensorInput("x", {2});
    EXPECT_THROW(tg::tensorInput("x", {2}), tg::TraceError);
    return std::vector<Tensor>{};
  });
  EXPECT_EQ(g.ops.size(), 1u);
  try {
    tg::traceFn([] {
      const Tensor loss = tg::tensorInput("loss", {2});
      return std::vector<Tensor>{loss};
    });
  } catch (...) {
    ADD_FAILURE() << "tracing a non-scalar output is fine; autograd rejects it";
  }
  tg::Graph notScalar =
      tg::traceFn([] { return std::vector<Tensor>{tg::exp(tg::tensorInput("v", {2}))}; });
  try {
    tg::appendGrad(notScalar);
    ADD_FAILURE() << "appendGrad accepted a [2] loss";
  } catch (const tg::ShapeError& e) {
    EXPECT_NE(std::string(e.what()).find("0-d f32 scalar"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("[2]"), std::string::npos) << e.what();
  }
}

// Shape products never wrap (signed overflow is undefined behaviour): shapeSize throws, and every
// tensor a trace creates (inputs, params, op outputs) must have a byte size (elements x 4) that
// fits in int64; each error names the tensor or the op.
TEST(ShapeOverflow, IsAnErrorNamingTheTensorOrOp) {
  constexpr int64_t k32 = int64_t{1} << 32;
  auto expectMessage = [](const std::function<void()>& body, const std::vector<std::string>& needles) {
    try {
      body();
      ADD_FAILURE() << "accepted; wanted: " << needles.front();
    } catch (const std::exception& e) {
      for (const auto& n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
    }
  };
  expectMessage([&] { (void)tg::shapeSize({k32, k32}); }, {"[4294967296, 4294967296]", "overflows"});
  expectMessage([&] { (void)tg::shapeSize({3, -2}); }, {"[3, -2]", "negative"});
  EXPECT_EQ(tg::shapeSize({k32, k32 / 2 - 1}), k32 * (k32 / 2 - 1));
  auto traced = [](const std::function<void()>& body) {
    return [body] {
      tg::traceFn([&] {
        body();
        return std::vector<Tensor>{};
      });
    };
  };
  expectMessage(traced([&] { tg::tensorInput("x", {k32, k32}); }), {"tensorInput 'x'", "overflows"});
  // A spec's input whose shape overflows names the input, never a library source file.
  try {
    tg_models::MLP model;
    tg::TrainingSpec<tg_models::MLP> spec = tg_models::mlpSpec(model);
    spec.inputs = {{"x", {{k32, k32}}}, {"y", {{4, 1}}}};
    (void)tg::trace(spec);
    ADD_FAILURE() << "accepted an overflowing input";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("tensorInput 'x' (the spec's input): shape [4294967296, 4294967296] overflows"), std::string::npos) << m;
    EXPECT_EQ(m.find("tensorgrad/src"), std::string::npos) << m;
  }
  // 2^62 elements fit in int64, their 2^64 bytes do not.
  expectMessage(traced([&] { tg::tensorInput("x", {int64_t{1} << 62, 1}); }), {"tensorInput 'x'", "overflows"});
  expectMessage(traced([&] {
                  const Tensor a = tg::tensorInput("a", {k32});
                  tg::broadcastTo(a, {k32, k32});
                }),
                {"broadcastTo", "overflows"});
  expectMessage(traced([&] {
                  const Tensor a = tg::tensorInput("a", {4});
                  tg::reshape(a, {-1, k32, k32});
                }),
                {"reshape", "overflows"});
  struct Huge : tg::Module {
    Tensor w = param("w", {k32, k32});
  };
  expectMessage([] { Huge h; }, {"param 'w'", "overflows"});
}

}  // namespace
