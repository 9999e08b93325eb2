// Layers and losses, as upstream's src/nn.ts. Each layer is a Module whose constructor takes its
// parent and name first (see module.h), then upstream's arguments.
#pragma once

#include "tensorgrad/module.h"
#include "tensorgrad/ops.h"

namespace tg {

struct LinearOptions {
  bool bias = true;
  std::optional<InitSpec> init{};
  std::optional<bool> decay{};
};
// y = x·W + b with W [in, out].
class Linear : public Module {
 public:
  Linear(Module& parent, const std::string& name, int64_t inDim, int64_t outDim,
         LinearOptions opts = {});
  Tensor fwd(const Tensor& x, Loc loc = Loc::current()) const;
  Tensor W, b;  // b undefined when bias = false
};

struct LayerNormOptions {
  double eps = 1e-5;
  bool bias = true;
  bool decay = false;
};
class LayerNorm : public Module {
 public:
  LayerNorm(Module& parent, const std::string& name, int64_t dim, LayerNormOptions opts = {});
  Tensor fwd(const Tensor& x, Loc loc = Loc::current()) const;
  Tensor g, b;
  double eps;
};

struct RMSNormOptions {
  double eps = 1e-6;
  bool decay = false;
};
class RMSNorm : public Module {
 public:
  RMSNorm(Module& parent, const std::string& name, int64_t dim, RMSNormOptions opts = {});
  Tensor fwd(const Tensor& x, Loc loc = Loc::current()) const;
  Tensor g;
  double eps;
};

struct EmbeddingOptions {
  std::optional<InitSpec> init{};
  std::optional<bool> decay{};
};
class Embedding : public Module {
 public:
  Embedding(Module& parent, const std::string& name, int64_t vocab, int64_t dim,
            EmbeddingOptions opts = {});
  Tensor fwd(const Tensor& indices, Loc loc = Loc::current()) const;
  Tensor W;
};

struct Conv2dLayerOptions {
  Size2 stride = 1;  // one number means both dims, as upstream
  Size2 padding = 0;
  int64_t groups = 1;
  bool bias = true;
  std::optional<InitSpec> init{};
  std::optional<bool> decay{};
};
// W [out, in/groups, kH, kW]; the bias is added through a [1, out, 1, 1] reshape.
class Conv2d : public Module {
 public:
  Conv2d(Module& parent, const std::string& name, int64_t inC, int64_t outC,
         Size2 kernelSize, Conv2dLayerOptions opts = {});
  Tensor fwd(const Tensor& x, Loc loc = Loc::current()) const;
  Tensor W, b;
  int64_t outC;
  Conv2dOptions conv;
};

enum class Reduction { Mean, Sum, None };
struct LossOptions {
  Reduction reduction = Reduction::Mean;
};
// Negative log-likelihood of i32 targets under log-probabilities over the last axis.
Tensor nllLoss(const Tensor& logProbs, const Tensor& targets, LossOptions opts = {},
               Loc loc = Loc::current());
// Fused log-softmax + NLL: pass raw logits.
Tensor crossEntropy(const Tensor& logits, const Tensor& targets, LossOptions opts = {},
                    Loc loc = Loc::current());

}  // namespace tg
