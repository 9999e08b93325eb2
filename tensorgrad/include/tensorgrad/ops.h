// The op surface, named like upstream's src/ops.ts. Every call checks shapes and dtypes at trace
// time (ShapeError naming the op, the shapes and the caller's file:line) and appends IR; no
// numeric work happens here. Scalars work on either side; negative axes count from the end.
#pragma once

#include <array>
#include <optional>

#include "tensorgrad/trace.h"

namespace tg {

// ---- Element-wise (trailing-suffix broadcasting) ----
Tensor add(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor add(const Tensor& a, double b, Loc loc = Loc::current());
Tensor add(double a, const Tensor& b, Loc loc = Loc::current());
Tensor sub(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor sub(const Tensor& a, double b, Loc loc = Loc::current());
Tensor sub(double a, const Tensor& b, Loc loc = Loc::current());
Tensor mul(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor mul(const Tensor& a, double b, Loc loc = Loc::current());
Tensor mul(double a, const Tensor& b, Loc loc = Loc::current());
Tensor div(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor div(const Tensor& a, double b, Loc loc = Loc::current());
Tensor div(double a, const Tensor& b, Loc loc = Loc::current());
Tensor min(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor min(const Tensor& a, double b, Loc loc = Loc::current());
Tensor min(double a, const Tensor& b, Loc loc = Loc::current());
Tensor max(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor max(const Tensor& a, double b, Loc loc = Loc::current());
Tensor max(double a, const Tensor& b, Loc loc = Loc::current());
Tensor clamp(const Tensor& a, double lo, double hi, Loc loc = Loc::current());
Tensor mulScalar(const Tensor& a, double scalar, Loc loc = Loc::current());
Tensor addScalar(const Tensor& a, double scalar, Loc loc = Loc::current());

// ---- Unary (f32) ----
Tensor sqrt(const Tensor& a, Loc loc = Loc::current());
Tensor rsqrt(const Tensor& a, Loc loc = Loc::current());
Tensor log(const Tensor& a, Loc loc = Loc::current());
Tensor exp(const Tensor& a, Loc loc = Loc::current());
Tensor relu(const Tensor& a, Loc loc = Loc::current());
Tensor neg(const Tensor& a, Loc loc = Loc::current());
Tensor abs(const Tensor& a, Loc loc = Loc::current());
Tensor tanh(const Tensor& a, Loc loc = Loc::current());
Tensor sigmoid(const Tensor& a, Loc loc = Loc::current());
Tensor erf(const Tensor& a, Loc loc = Loc::current());
Tensor sin(const Tensor& a, Loc loc = Loc::current());
Tensor cos(const Tensor& a, Loc loc = Loc::current());
Tensor square(const Tensor& a, Loc loc = Loc::current());
Tensor silu(const Tensor& a, Loc loc = Loc::current());
enum class GeluApprox { None, Tanh };
Tensor gelu(const Tensor& a, GeluApprox approximate = GeluApprox::None, Loc loc = Loc::current());
Tensor leakyRelu(const Tensor& a, double alpha = 0.01, Loc loc = Loc::current());
Tensor softplus(const Tensor& a, Loc loc = Loc::current());
Tensor stopGradient(const Tensor& a, Loc loc = Loc::current());

// ---- Randomness (per-step seed input "__prngSeed", per-call salt) ----
inline constexpr const char* kPrngSeedInput = "__prngSeed";
Tensor dropout(const Tensor& x, double p, Loc loc = Loc::current());
Tensor randn(const Shape& shape, Loc loc = Loc::current());
Tensor categorical(const Tensor& logits, int64_t axis = -1, Loc loc = Loc::current());

// ---- Comparisons and selection ----
Tensor less(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor less(const Tensor& a, double b, Loc loc = Loc::current());
Tensor less(double a, const Tensor& b, Loc loc = Loc::current());
Tensor greater(const Tensor& a, const Tensor& b, Loc loc = Loc::current());
Tensor greater(const Tensor& a, double b, Loc loc = Loc::current());
Tensor greater(double a, const Tensor& b, Loc loc = Loc::current());
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b, Loc loc = Loc::current());

// ---- Reductions ----
struct ReduceOptions {
  bool keepDims = false;
};
Tensor mean(const Tensor& a, Loc loc = Loc::current());  // all elements → 0-d
Tensor mean(const Tensor& a, int64_t axis, ReduceOptions opts = {}, Loc loc = Loc::current());
Tensor sum(const Tensor& a, Loc loc = Loc::current());
Tensor sum(const Tensor& a, int64_t axis, ReduceOptions opts = {}, Loc loc = Loc::current());
Tensor argmax(const Tensor& a, Loc loc = Loc::current());  // flattened → 0-d i32
Tensor argmax(const Tensor& a, int64_t axis, Loc loc = Loc::current());
Tensor argmin(const Tensor& a, Loc loc = Loc::current());
Tensor argmin(const Tensor& a, int64_t axis, Loc loc = Loc::current());

// ---- Shape ----
Tensor reshape(const Tensor& a, const Shape& newShape, Loc loc = Loc::current());  // one -1 allowed
Tensor permute(const Tensor& a, const std::vector<int64_t>& perm, Loc loc = Loc::current());
Tensor swapAxes(const Tensor& a, int64_t axis1, int64_t axis2, Loc loc = Loc::current());
Tensor splitHeads(const Tensor& x, int64_t nHeads, Loc loc = Loc::current());
Tensor mergeHeads(const Tensor& x, Loc loc = Loc::current());
struct RopeOptions {
  double base = 10000;
};
std::array<Tensor, 2> rope(const Tensor& q, const Tensor& k, RopeOptions opts = {},
                           Loc loc = Loc::current());
Tensor broadcastTo(const Tensor& a, const Shape& targetShape, Loc loc = Loc::current());
Tensor sumToShape(const Tensor& a, const Shape& targetShape, Loc loc = Loc::current());

// ---- Linear algebra: rank-2 rhs broadcasts lhs batch axes; rank>2 rhs is a batched matmul ----
Tensor matmul(const Tensor& a, const Tensor& b, Loc loc = Loc::current());

// ---- Indexing and constants ----
Tensor oneHot(const Tensor& indices, int64_t depth, Dtype dtype = Dtype::F32,
              Loc loc = Loc::current());
Tensor takeAlongAxis(const Tensor& input, const Tensor& indices, int64_t axis,
                     Loc loc = Loc::current());
Tensor embedding(const Tensor& table, const Tensor& indices, Loc loc = Loc::current());
Tensor arange(int64_t n, Dtype dtype = Dtype::I32, Loc loc = Loc::current());
Tensor zeros(const Shape& shape, Dtype dtype = Dtype::F32, Loc loc = Loc::current());
Tensor ones(const Shape& shape, Dtype dtype = Dtype::F32, Loc loc = Loc::current());
Tensor constScalar(double value, Dtype dtype = Dtype::F32, Loc loc = Loc::current());

// ---- ML primitives ----
Tensor softmax(const Tensor& a, int64_t axis = -1, Loc loc = Loc::current());
Tensor logSoftmax(const Tensor& a, int64_t axis = -1, Loc loc = Loc::current());
Tensor softmaxCausal(const Tensor& a, int64_t axis = -1, Loc loc = Loc::current());
Tensor whereCausal(const Tensor& a, double fillValue, Loc loc = Loc::current());

// ---- Slicing and joining ----
Tensor narrow(const Tensor& a, int64_t axis, int64_t start, int64_t length,
              Loc loc = Loc::current());
Tensor concat(const std::vector<Tensor>& tensors, int64_t axis, Loc loc = Loc::current());
Tensor stack(const std::vector<Tensor>& tensors, int64_t axis, Loc loc = Loc::current());
std::vector<Tensor> split(const Tensor& t, const std::vector<int64_t>& sizes, int64_t axis,
                          Loc loc = Loc::current());
// Concat binds every input plus the output; WebGPU allows 8 storage buffers per stage.
inline constexpr size_t kConcatInputCap = 7;

// ---- Convolution and pooling (NCHW, PyTorch layout) ----
// A (height, width) pair where one number means both, as upstream's `number | [h, w]`:
// `{.padding = 1}` pads both dims by 1, `{.padding = {1, 2}}` by 1 and 2.
struct Size2 {
  int64_t h = 0, w = 0;
  constexpr Size2() = default;
  constexpr Size2(int64_t both) : h(both), w(both) {}  // NOLINT: implicit on purpose
  constexpr Size2(int64_t height, int64_t width) : h(height), w(width) {}
  friend constexpr bool operator==(const Size2&, const Size2&) = default;
};
struct Conv2dOptions {
  Size2 stride = 1;
  Size2 padding = 0;
  int64_t groups = 1;
};
Tensor conv2d(const Tensor& input, const Tensor& weight, Conv2dOptions opts = {},
              Loc loc = Loc::current());
// An optional Size2 spelled as a Size2 is: `{.stride = 2}`, `{.stride = {2, 1}}`; unset by
// default. (A plain std::optional<Size2> would need `{{2, 1}}` for a pair.)
class OptionalSize2 : public std::optional<Size2> {
 public:
  using std::optional<Size2>::optional;
  constexpr OptionalSize2() = default;
  constexpr OptionalSize2(int64_t both) : std::optional<Size2>(Size2(both)) {}  // NOLINT: implicit
  constexpr OptionalSize2(int64_t height, int64_t width)
      : std::optional<Size2>(Size2(height, width)) {}
};
struct MaxPool2dOptions {
  OptionalSize2 stride{};  // unset: the kernel size
  Size2 padding = 0;
};
Tensor maxPool2d(const Tensor& input, Size2 kernelSize, MaxPool2dOptions opts = {},
                 Loc loc = Loc::current());
Tensor nearestUpsample2d(const Tensor& x, int64_t factor, Loc loc = Loc::current());

}  // namespace tg
