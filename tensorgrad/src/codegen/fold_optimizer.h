// Optimizer folding (KernelSet::Fast only). An optimizer appends, for every parameter, the same
// small element-wise update — new moments and a new parameter from the parameter, its gradient,
// its moments and a few scalars (learning rate, clip scale) — and a copy of each new value over
// the old one after the step: three kernels and three copies per parameter for Adam. Folded,
// one dispatch updates every parameter in place: parameters, gradients and each moment live in
// arenas (one buffer each, a parameter at the same offset in all of them), each workgroup finds
// its parameter from its index, and the copies go. Gradient clipping's norm, a squared sum per
// parameter added up, becomes a two-stage sum over the gradient arena (two dispatches), whose
// second stage also computes the clip scale from the total (NormScale).
//
// The graph does not change: the CPU evaluator still runs the per-parameter ops, which is what
// the fold is tested against. Anything the pattern does not cover (a value read outside the
// update, a state without its writeback, a non-f32 leaf) leaves the optimizer unfolded.
#pragma once

#include <string>
#include <vector>

#include "buffer_use.h"
#include "tensorgrad/codegen.h"

namespace tg::detail {

// A parameter's place in an arena: WebGPU's largest minStorageBufferOffsetAlignment, and arenas no
// larger than its default maxStorageBufferBindingSize, so every device can bind them whole.
inline constexpr int64_t kArenaAlignBytes = 256;
inline constexpr int64_t kArenaMaxBytes = int64_t{128} << 20;

struct ArenaLayout {
  struct Place {
    int arena = 0;
    int64_t offset = 0;  // bytes
  };
  std::vector<Place> places;       // per parameter, in the order given
  std::vector<int64_t> arenaBytes;  // per arena
};
// Parameters of `bytes` each, in order: each at the next aligned offset, a new arena when the
// next one would pass kArenaMaxBytes (a larger parameter gets an arena of its own).
ArenaLayout layoutArenas(const std::vector<int64_t>& bytes);

struct OptimizerFold {
  struct Slot {
    std::string name;         // the parameter's
    int param = -1;           // its ParamInput tensor
    int grad = -1;            // its gradient
    std::vector<int> states;  // its StateInput tensors, in role order
    std::vector<int> news;    // new parameter, then new states (role order)
    std::vector<int> ops;     // the update's ops
    ArenaLayout::Place at;
    int64_t elements = 0;
    size_t body = 0;  // index into bodies
  };
  std::vector<Slot> slots;
  // WGSL statements per distinct update: read p, g, s0.. at index j, write P[j], S0[j]...
  std::vector<std::string> bodies;
  std::string preamble;      // helper functions the bodies call
  std::vector<int> scalars;  // scalar tensors the bodies read (c0, c1, ...)
  size_t stateRoles = 0;
  std::vector<int64_t> arenaBytes;
  std::vector<char> folded;        // by op: computed by the fold, no kernel of its own
  std::vector<int> updateHost;     // by arena: the op whose kernel slot runs the update
  std::vector<char> inPlaceDecl;   // by writeback declaration: done in place
  // Clipping's squared norm (one arena only): its total, and the ops hosting the two stages.
  int normTotal = -1, normStage1Host = -1, normStage2Host = -1;
  int64_t normPartials = 0;  // stage 1's workgroups

  // Filled by planBuffers.
  struct Buffers {
    int params = -1, grads = -1, partials = -1;
    std::vector<int> states;
  };
  std::vector<Buffers> buffers;  // by arena
};

// The fold of `graph`'s optimizer, or null when it does not fold. `paramOrder`: every parameter
// (name, elements) as the runtime lays them out.
std::shared_ptr<OptimizerFold> foldOptimizer(
    const Graph& graph, const ParamGrads& grads, const std::vector<WritebackDecl>& writebacks,
    const std::vector<std::pair<std::string, int64_t>>& paramOrder);

// Clipping's scale, min(limit / (√Σg² + ε), 1), computed by the norm's second stage from the
// total it holds (one dispatch level fewer): the fused group that reads the total alone.
struct NormScale {
  std::vector<int> group;  // its ops, in order (the fused group ending at the scale)
  std::string wgsl;        // `fn second(o : u32, v : f32) -> f32` (fold_second_output.h)
  int buffer = -1;         // the scale's buffer
};

// The scale's group for `fold`'s norm among the fused `groups` (by last op), or none (an empty
// group): when one group reads every use of the total and nothing else, ends in one f32 value,
// and no op between the second stage and it touches the scale's buffer.
NormScale foldNormScale(const Graph& graph, const BufferUse& use, const OptimizerFold& fold,
                        const std::vector<std::vector<int>>& groups);

// The kernel emitKernels puts at op `opIndex` when the fold hosts one there (else nullopt); the
// norm's second stage also writes `scale` when given.
std::optional<KernelSpec> foldedOptimizerKernel(const OptimizerFold& fold, const BufferPlan& plan,
                                                int opIndex, const NormScale* scale = nullptr);

}  // namespace tg::detail
