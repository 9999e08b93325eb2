#include "tensorgrad/nn.h"

#include "tensorgrad/errors.h"

namespace tg {
namespace {

ParamOptions userParam(const std::optional<InitSpec>& init, const std::optional<bool>& decay) {
  ParamOptions o;
  o.init = init;
  o.decay = decay;
  return o;
}

// Built in place: moving a temporary InitSpec in made GCC 12 (-O2 with ASan) report its variant
// as maybe-uninitialized.
template <class Init>
ParamOptions fixedParam(Init init, std::optional<bool> decay) {
  ParamOptions o;
  o.init.emplace(init);
  o.decay = decay;
  return o;
}

[[noreturn]] void fail(const char* name, Loc loc, const std::string& message) {
  const CallSite site{name, loc};
  throw ShapeError(std::string(name) + ": " + message, &site);
}

}  // namespace

Linear::Linear(Module& parent, const std::string& name, int64_t inDim, int64_t outDim,
               LinearOptions opts)
    : Module(parent, name),
      W(param("W", {inDim, outDim}, userParam(opts.init, opts.decay))),
      b(opts.bias ? param("b", {outDim}, fixedParam(init::zeros(), std::nullopt)) : Tensor()) {}

Tensor Linear::fwd(const Tensor& x, Loc loc) const {
  const Tensor y = matmul(x, W, loc);
  return b ? add(y, b, loc) : y;
}

LayerNorm::LayerNorm(Module& parent, const std::string& name, int64_t dim, LayerNormOptions opts)
    : Module(parent, name),
      g(param("g", {dim}, fixedParam(init::ones(), opts.decay))),
      b(opts.bias ? param("b", {dim}, fixedParam(init::zeros(), opts.decay)) : Tensor()),
      eps(opts.eps) {}

Tensor LayerNorm::fwd(const Tensor& x, Loc loc) const {
  const Tensor m = mean(x, -1, {.keepDims = true}, loc);
  const Tensor c = sub(x, m, loc);
  const Tensor v = mean(mul(c, c, loc), -1, {.keepDims = true}, loc);
  const Tensor scaled = mul(div(c, sqrt(add(v, eps, loc), loc), loc), g, loc);
  return b ? add(scaled, b, loc) : scaled;
}

RMSNorm::RMSNorm(Module& parent, const std::string& name, int64_t dim, RMSNormOptions opts)
    : Module(parent, name),
      g(param("g", {dim}, fixedParam(init::ones(), opts.decay))),
      eps(opts.eps) {}

Tensor RMSNorm::fwd(const Tensor& x, Loc loc) const {
  const Tensor ms = mean(mul(x, x, loc), -1, {.keepDims = true}, loc);
  return mul(div(x, sqrt(add(ms, eps, loc), loc), loc), g, loc);
}

Embedding::Embedding(Module& parent, const std::string& name, int64_t vocab, int64_t dim,
                     EmbeddingOptions opts)
    : Module(parent, name), W(param("W", {vocab, dim}, userParam(opts.init, opts.decay))) {}

Tensor Embedding::fwd(const Tensor& indices, Loc loc) const {
  return embedding(W, indices, loc);
}

Conv2d::Conv2d(Module& parent, const std::string& name, int64_t inC, int64_t outC_,
               Size2 kernelSize, Conv2dLayerOptions opts)
    : Module(parent, name), outC(outC_), conv{opts.stride, opts.padding, opts.groups} {
  if (opts.groups < 1)
    fail("Conv2d", Loc::current(),
         "groups must be a positive integer, got " + std::to_string(opts.groups));
  if (inC % opts.groups != 0 || outC % opts.groups != 0) {
    fail("Conv2d", Loc::current(),
         "inC=" + std::to_string(inC) + " and outC=" + std::to_string(outC) +
             " must both be divisible by groups=" + std::to_string(opts.groups));
  }
  W = param("W", {outC, inC / opts.groups, kernelSize.h, kernelSize.w},
            userParam(opts.init, opts.decay));
  if (opts.bias) b = param("b", {outC}, fixedParam(init::zeros(), std::nullopt));
}

Tensor Conv2d::fwd(const Tensor& x, Loc loc) const {
  const Tensor y = conv2d(x, W, conv, loc);
  return b ? add(y, reshape(b, {1, outC, 1, 1}, loc), loc) : y;
}

Tensor nllLoss(const Tensor& logProbs, const Tensor& targets, LossOptions opts, Loc loc) {
  if (targets.dtype() != Dtype::I32)
    fail("nllLoss", loc, "targets must be i32, got " + std::string(dtypeName(targets.dtype())));
  if (logProbs.rank() == 0)
    fail("nllLoss", loc, "logProbs must have a class axis, got " + showShape(logProbs.shape()));
  const Tensor picked = sum(
      mul(logProbs, oneHot(targets, logProbs.shape().back(), Dtype::F32, loc), loc), -1, {}, loc);
  const Tensor perPosition = mul(picked, -1.0, loc);
  switch (opts.reduction) {
    case Reduction::Mean:
      return mean(perPosition, loc);
    case Reduction::Sum:
      return sum(perPosition, loc);
    case Reduction::None:
      return perPosition;
  }
  return perPosition;
}

Tensor crossEntropy(const Tensor& logits, const Tensor& targets, LossOptions opts, Loc loc) {
  if (targets.dtype() != Dtype::I32)
    fail("crossEntropy", loc,
         "targets must be i32, got " + std::string(dtypeName(targets.dtype())));
  return nllLoss(logSoftmax(logits, -1, loc), targets, opts, loc);
}

}  // namespace tg
