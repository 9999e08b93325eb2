// Runs a CompiledIR's training step on the CPU reference evaluator: feeds the step's inputs and
// optimizer scalars, reads the loss, applies the writebacks. The oracle the runtime must match.
#pragma once

#include <tensorgrad/tensorgrad.h>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>


namespace tg_test {

class CpuTrainer {
 public:
  CpuTrainer(const tg::CompiledIR& ir, uint32_t seed) : ir_(ir) {
    for (auto& [name, data] : tg::initialParams(ir, seed)) {
      const auto& decl = *std::find_if(ir.params.begin(), ir.params.end(),
                                       [&](const auto& p) { return p->path == name; });
      env_.params[name] = tg::HostTensor::f32(decl->shape, std::move(data));
    }
  }

  // One optimizer step; returns the loss computed before the update.
  double step(const std::map<std::string, tg::HostTensor>& inputs) {
    ++t_;
    for (const auto& [name, value] : inputs) env_.inputs[name] = value;
    const tg::StepScalars s = tg::stepScalars(*ir_.optimizerConfig, t_);
    env_.inputs[ir_.optimizer.lrInputName] =
        tg::HostTensor::f32({}, {static_cast<float>(s.lrInput)});
    if (ir_.optimizer.decayShrinkInputName) {
      env_.inputs[*ir_.optimizer.decayShrinkInputName] =
          tg::HostTensor::f32({}, {static_cast<float>(s.decayShrink)});
    }
    const auto values = tg::evaluate(ir_.graph, env_);
    for (const tg::WritebackDecl& w : ir_.optimizer.writebacks) {
      auto& dest = w.destKind == tg::WritebackDecl::Kind::Param ? env_.params : env_.states;
      dest[w.destName] = values[static_cast<size_t>(w.source)];
    }
    return values[static_cast<size_t>(ir_.output)].f.at(0);
  }

  const tg::EvalInputs& env() const { return env_; }

 private:
  const tg::CompiledIR& ir_;
  tg::EvalInputs env_;
  int64_t t_ = 0;
};

// Successive batches of the README MLP's data (tg_models::sineBatch) as host tensors.
struct SineBatches {
  tg::Mulberry32 rng{7};
  std::map<std::string, tg::HostTensor> next(int64_t batch) {
    tg_models::SineBatch b = tg_models::sineBatch(rng, batch);
    return {{"x", tg::HostTensor::f32({batch, 1}, std::move(b.x))},
            {"y", tg::HostTensor::f32({batch, 1}, std::move(b.y))}};
  }
};

}  // namespace tg_test
