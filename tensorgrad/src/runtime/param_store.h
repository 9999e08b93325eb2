// Parameter buffers, owned apart from any one graph: a training step, its attached forwards and
// every per-shape sibling bind the same buffers, so an update is visible to the next run.
#pragma once

#include "gpu_worker.h"

namespace tg::detail {

class ParamStore {
 public:
  // Where a parameter lives: its own buffer, or a range of an arena.
  struct Place {
    wgpu::Buffer buffer;
    uint64_t offset = 0, bytes = 0;
  };
  // One storage buffer per parameter, in declaration order; `packed` (the fast set, whose fused
  // optimizer updates them all in one dispatch): arenas laid out by layoutArenas
  // (fold_optimizer.h). Throws CompileError naming a parameter the device cannot bind.
  ParamStore(GpuContext& gpu, const std::vector<std::shared_ptr<const ParamDecl>>& params,
             bool packed = false);

  const Place* find(const std::string& name) const;
  // Strict: every parameter, no unknown names, exact element counts. Checked before anything
  // is written; throws std::invalid_argument naming the offender.
  void upload(GpuContext& gpu, const ParamMap& values) const;
  ParamMap download(GpuContext& gpu) const;
  // Writes the initial values `ir`'s params get from its seed (upstream's init order).
  void initialize(GpuContext& gpu, const CompiledIR& ir) const;

 private:
  struct Entry {
    std::string name;
    Shape shape;
    Place place;
  };
  std::vector<Entry> entries_;
};

// Throws CompileError when a tensor of `bytes` cannot be bound as one storage buffer.
void checkBindable(const GpuContext& gpu, const std::string& tensor, const Shape& shape,
                   int64_t bytes);

}  // namespace tg::detail
