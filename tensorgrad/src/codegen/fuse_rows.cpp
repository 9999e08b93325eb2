#include "fuse_rows.h"

#include <algorithm>
#include <bit>
#include <set>

#include "../ops/op_registry.h"
#include "fuse_elementwise.h"
#include "fused_chain.h"
#include "wgsl.h"

namespace tg::detail {
namespace {

// Each reduction sums through a workgroup array of its own (at most 1 KiB), so a kernel takes at
// most this many, well within WebGPU's default 16 KiB.
constexpr size_t kMaxRowReductions = 8;

// Rows this short run an invocation a row, in workgroups of this many; longer ones give each
// invocation about kElementsPerLane elements of a row.
constexpr int64_t kSerialRowLength = 32;
constexpr int64_t kSerialWorkgroupSize = 64;
constexpr int64_t kElementsPerLane = 4;
// Every lane of a row sums the row's partials itself (lanes / 4 vec4 loads and adds after the
// barrier), so past this many lanes a row the sum costs more than the lanes save: on an H200
// (2026-11-29, bench/RESULTS.md) D512's layer norms over rows of 512 took 16.1–16.7 µs forward
// and 15.6–16.5 backward with 128 lanes, 10.0–10.4 and 7.9–9.1 with 64, 8.8–9.8 and 6.1–8.4
// with 32 (whose steps were no shorter than with 64); rows of 64 ran best with 16 lanes (D64's step 0.337–0.340 ms pipelined against 0.343–0.345 with 8 and
// 0.371–0.372 with 4).
constexpr int64_t kMaxRowLanes = 64;
// Passes over at most this many elements a lane are written out element by element.
constexpr int64_t kMaxUnrolledElements = 8;

bool contains(const std::vector<int>& sorted, int x) {
  return std::binary_search(sorted.begin(), sorted.end(), x);
}

// The rows a group works on: `wide` is [P..., D]; a per-row value is [P..., 1] or [P...].
struct Rows {
  Shape wide;

  int64_t length() const { return wide.back(); }
  int64_t count() const { return shapeSize(wide) / length(); }
  bool isWide(const Shape& s) const { return s == wide; }
  bool isPerRow(const Shape& s) const {
    if (s.size() + 1 == wide.size()) return std::equal(s.begin(), s.end(), wide.begin());
    return s.size() == wide.size() && s.back() == 1 &&
           std::equal(s.begin(), s.end() - 1, wide.begin());
  }
};

// sum_last, mean_last, or a sum_to_shape that sums the last axis alone, in f32.
bool rowReduction(const Graph& graph, const Op& op) {
  if (op.kind != OpKind::SumLast && op.kind != OpKind::MeanLast && op.kind != OpKind::SumToShape)
    return false;
  if (graph.tensor(op.out).dtype != Dtype::F32 || graph.tensor(op.inputs[0]).dtype != Dtype::F32)
    return false;
  const Shape& in = graph.tensor(op.inputs[0]).shape;
  const Shape& out = graph.tensor(op.out).shape;
  if (in.empty()) return false;
  if (op.kind != OpKind::SumToShape) return true;
  return in.back() > 1 && out.size() == in.size() && Rows{in}.isPerRow(out);
}

class GroupBuilder {
 public:
  GroupBuilder(const Graph& graph, const BufferUse& use, const std::vector<bool>& excluded,
               const std::vector<bool>& claimed)
      : graph_(graph), use_(use), excluded_(excluded), claimed_(claimed) {}

  std::vector<int> grow(int reduction) {
    rows_ = Rows{graph_.tensor(graph_.ops[static_cast<size_t>(reduction)].inputs[0]).shape};
    std::vector<int> group{reduction};
    for (bool grew = true; grew;) {
      grew = false;
      std::set<int> candidates;
      for (int m : group) {
        const Op& op = graph_.ops[static_cast<size_t>(m)];
        for (int t : op.inputs) candidates.insert(*graph_.tensor(t).source);
        for (int r : use_.readers(op.out)) candidates.insert(r);
      }
      for (int c : candidates) {
        if (contains(group, c) || !joins(c)) continue;
        std::vector<int> trial = group;
        trial.insert(std::upper_bound(trial.begin(), trial.end(), c), c);
        // An aliased reshape may pass a value only within: its readers come with it.
        const Op& op = graph_.ops[static_cast<size_t>(c)];
        if (use_.aliasedReshape(op))
          for (int r : use_.readers(op.out))
            if (!contains(trial, r) && joins(r))
              trial.insert(std::upper_bound(trial.begin(), trial.end(), r), r);
        if (!valid(trial)) continue;
        group = std::move(trial);
        grew = true;
        break;
      }
    }
    return group;
  }

  const Rows& rows() const { return rows_; }

 private:
  bool joins(int i) const {
    if (excluded_[static_cast<size_t>(i)] || claimed_[static_cast<size_t>(i)]) return false;
    const Op& op = graph_.ops[static_cast<size_t>(i)];
    if (rowReduction(graph_, op)) return rows_.isWide(graph_.tensor(op.inputs[0]).shape);
    if (!fusable(graph_, i) || op.kind == OpKind::Permute) return false;
    const Shape& out = graph_.tensor(op.out).shape;
    return rows_.isWide(out) || rows_.isPerRow(out);
  }

  bool valid(const std::vector<int>& group) const {
    const int last = group.back();
    std::set<int> outside;
    size_t outputs = 0, reductions = 0;
    for (int m : group) {
      const Op& op = graph_.ops[static_cast<size_t>(m)];
      if (rowReduction(graph_, op) && ++reductions > kMaxRowReductions) return false;
      for (int t : op.inputs) {
        if (contains(group, *graph_.tensor(t).source)) continue;
        if (!use_.untouched(t, m, last)) return false;
        outside.insert(t);
      }
      if (use_.transientWithin(op.out, group)) continue;
      // An aliased reshape's bytes are its input's buffer: it may only pass a value within.
      if (use_.aliasedReshape(op)) return false;
      ++outputs;
      for (int r : use_.readers(op.out))
        if (!contains(group, r) && r < last) return false;
    }
    return outside.size() + outputs <= kMaxStorageBuffersPerKernel;
  }

  const Graph& graph_;
  const BufferUse& use_;
  const std::vector<bool>& excluded_;
  const std::vector<bool>& claimed_;
  Rows rows_;
};

std::string indent(const std::string& lines) {
  std::string s;
  size_t at = 0;
  while (at < lines.size()) {
    const size_t end = lines.find('\n', at);
    s += "  " + lines.substr(at, end - at + 1);
    at = end == std::string::npos ? lines.size() : end + 1;
  }
  return s;
}

// How a row kernel lays rows on invocations: `lanes` invocations a row (each summing every
// lanes-th element), `rowsPerGroup` rows a workgroup.
struct RowLayout {
  int64_t lanes = 1, rowsPerGroup = 1;
  int64_t workgroupSize() const { return lanes * rowsPerGroup; }
};

// About 4 elements a lane, up to kMaxRowLanes lanes; a lane a row for rows of at most
// kSerialRowLength.
// Workgroups of 256 invocations hold several short rows: on lavapipe, a workgroup a row (1024
// workgroups of 64 for the transformer sample) made its row kernels average 4.3 ms, against
// 0.61 ms this way (bench/RESULTS.md).
RowLayout rowLayout(int64_t length) {
  if (length <= kSerialRowLength) return {.lanes = 1, .rowsPerGroup = kSerialWorkgroupSize};
  const auto lanes = static_cast<int64_t>(
      std::bit_ceil(static_cast<uint64_t>((length + kElementsPerLane - 1) / kElementsPerLane)));
  const int64_t l = std::min<int64_t>(kMaxRowLanes, lanes);
  return {.lanes = l, .rowsPerGroup = kWorkgroupSize / l};
}

// The kernel computing `group` (sorted) over `rows`.
KernelSpec rowKernel(const Graph& graph, const BufferUse& use, const std::vector<int>& group,
                     const Rows& rows) {
  const int64_t length = rows.length();
  const RowLayout layout = rowLayout(length);
  const int64_t lanes = layout.lanes, width = layout.workgroupSize();
  const int64_t workgroups = (rows.count() + layout.rowsPerGroup - 1) / layout.rowsPerGroup;
  FusedChain chain(graph, group, 0);
  for (int m : group)
    for (int t : graph.ops[static_cast<size_t>(m)].inputs)
      if (rows.isPerRow(graph.tensor(t).shape)) chain.pin(t, "row");

  size_t seen = 0;  // how much of the chain's body is already placed
  const auto take = [&] {
    std::string s = chain.body().substr(seen);
    seen = chain.body().size();
    return s;
  };
  // A pass over a lane's elements of its row: a loop, or where each lane has a few elements
  // (length a multiple of lanes), one block an element rather than a loop left to the driver to
  // unroll (H100: layer norms of rows of 512 18.9–19.4 → 16.6–17.1 µs, their gradients 21.0–21.3
  // → 16.3–16.6; bench/RESULTS.md).
  const int64_t perLane = length % lanes == 0 ? length / lanes : 0;
  const bool unrolled = perLane > 0 && perLane <= kMaxUnrolledElements;
  const std::string index = "    let i = row * " + u(length) + " + ";
  const auto pass = [&](const std::string& body) {
    if (!unrolled)
      return "  for (var c = " + std::string(lanes > 1 ? "lane" : "0u") + "; c < " + u(length) +
             "; c = c + " + u(lanes) + ") {\n" + index + "c;\n" + body + "  }\n";
    std::string s;
    for (int64_t j = 0; j < perLane; ++j)
      s += "  {\n" + index + (lanes > 1 ? "lane + " + u(j * lanes) : u(j)) + ";\n" + body +
           "  }\n";
    return s;
  };
  std::string body;
  int reductions = 0;
  for (int m : group) {
    const Op& op = graph.ops[static_cast<size_t>(m)];
    if (rowReduction(graph, op)) {
      const std::string r = std::to_string(reductions++);
      const FusedChain::Scope outer = chain.save();
      const std::string v = chain.value(op.inputs[0], "i");
      body += "  var acc" + r + " = 0.0;\n" +
              pass(indent(take()) + "    acc" + r + " = acc" + r + " + " + v + ";\n");
      chain.restore(outer);
      std::string sum = "acc" + r;
      if (lanes > 1) {
        // Each lane sums its row's partials itself after one barrier: the same order, so the
        // same value, in every lane. (A tree takes a barrier a level, and barriers are what cost
        // on a CPU.) Four running sums of vec4s, a quarter of the dependent adds of one (lanes
        // is a power of two from 16). An array per reduction, so no barrier guards its reuse.
        const std::string s4 = "sum4_" + r;
        body += "  red" + r + "[lid / 4u][lid % 4u] = acc" + r + ";\n  workgroupBarrier();\n";
        body += "  var " + s4 + " = vec4<f32>(0.0);\n  for (var l = 0u; l < " + u(lanes / 4) +
                "; l = l + 1u) { " + s4 + " = " + s4 + " + red" + r + "[first / 4u + l]; }\n";
        body += "  let sum" + r + " = (" + s4 + ".x + " + s4 + ".y) + (" + s4 + ".z + " + s4 +
                ".w);\n";
        sum = "sum" + r;
      }
      body +=
          "  let r" + r + " = " + sum +
          (op.kind == OpKind::MeanLast ? " / " + literal(static_cast<double>(length), Dtype::F32)
                                       : std::string()) +
          ";\n";
      chain.provide(op.out, "r" + r);
    } else if (rows.isPerRow(graph.tensor(op.out).shape)) {
      chain.value(op.out, "row");  // once a row, where its inputs are known
      body += take();
    }
  }

  // Stores: per-row values by a row's first lane, row values in one more pass over the row.
  // A workgroup's rows past the last (`live` false) are computed on the last row's values, for
  // the barriers' sake, and stored nowhere.
  std::vector<int> outputs;
  for (int m : group) {
    const int t = graph.ops[static_cast<size_t>(m)].out;
    if (!use.transientWithin(t, group)) outputs.push_back(t);
  }
  const bool partial = rows.count() % layout.rowsPerGroup != 0;
  const auto out = [&](size_t j) { return "out" + std::to_string(j); };
  std::string wideStores;
  const FusedChain::Scope outer = chain.save();
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (!rows.isWide(graph.tensor(outputs[j]).shape)) continue;
    const std::string v = chain.value(outputs[j], "i");
    wideStores += indent(take()) + "    " + out(j) + "[i] = " + v + ";\n";
  }
  chain.restore(outer);
  if (!wideStores.empty()) {
    body += partial ? "  if (live) {\n" + indent(pass(wideStores)) + "  }\n" : pass(wideStores);
  }
  std::string guard = partial ? "live" : "";
  if (lanes > 1) guard += std::string(partial ? " && " : "") + "lane == 0u";
  for (size_t j = 0; j < outputs.size(); ++j) {
    if (rows.isWide(graph.tensor(outputs[j]).shape)) continue;
    const std::string v = chain.value(outputs[j], "row");
    const std::string store = out(j) + "[row] = " + v + ";";
    body +=
        take() + (guard.empty() ? "  " + store + "\n" : "  if (" + guard + ") { " + store + " }\n");
  }

  const size_t inputs = chain.external().size();
  std::string w = chain.preamble() + "// row kernel: " + std::to_string(group.size()) + " ops, " +
                  std::to_string(reductions) + " row reductions over " +
                  std::to_string(rows.count()) + " rows of " + std::to_string(length) + ", " +
                  std::to_string(lanes) + (lanes > 1 ? " invocations" : " invocation") +
                  " a row\n" + chain.bindings();
  for (size_t j = 0; j < outputs.size(); ++j)
    w += "@group(0) @binding(" + std::to_string(inputs + j) + ") var<storage, read_write> " +
         out(j) + " : array<" + wgslType(graph.tensor(outputs[j]).dtype) + ">;\n";
  for (int r = 0; r < (lanes > 1 ? reductions : 0); ++r)
    w += "var<workgroup> red" + std::to_string(r) + " : array<vec4<f32>, " +
         std::to_string(width / 4) + ">;\n";
  w += "@compute @workgroup_size(" + std::to_string(width) +
       ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : "
       "u32) {\n  let at = (wid.x + wid.y * " +
       u(kMaxWorkgroupsPerDim) + ") * " + u(layout.rowsPerGroup) + " + lid / " + u(lanes) + ";\n";
  if (partial) {
    w += "  let live = at < " + u(rows.count()) + ";\n  let row = min(at, " + u(rows.count() - 1) +
         ");\n";
  } else {
    w += "  let row = at;\n";
  }
  if (lanes > 1) w += "  let lane = lid % " + u(lanes) + ";\n  let first = lid - lane;\n";
  w += body + "}\n";

  KernelSpec k;
  k.opIndex = group.back();
  k.kind = graph.ops[static_cast<size_t>(group.back())].kind;
  k.wgsl = std::move(w);
  k.threads = workgroups * width;
  k.workgroupSize = static_cast<int>(width);
  k.loopLength = (length + lanes - 1) / lanes;
  k.fusedOps = group;
  for (int t : chain.external()) k.bindings.push_back(use.bufferOf(t));
  for (int t : outputs) k.bindings.push_back(use.bufferOf(t));
  k.outputs = static_cast<int>(outputs.size());
  return k;
}

// Whether some op of `group` computes with a row reduction's result (more than reshaping or
// broadcasting it, as a softmax's gradient broadcasts its row sums): else element-wise fusion and
// a reduction prologue (fold_prologue.h) already make the group one kernel.
bool spansAReduction(const Graph& graph, const std::vector<int>& group) {
  const auto layout = [&](int m) {
    const OpKind kind = graph.ops[static_cast<size_t>(m)].kind;
    return kind == OpKind::Reshape || kind == OpKind::BroadcastTo;
  };
  std::set<int> fromReduction;  // ops of the group whose value is a reduction's, re-laid out
  for (int m : group) {
    const Op& op = graph.ops[static_cast<size_t>(m)];
    for (int t : op.inputs) {
      if (!fromReduction.contains(*graph.tensor(t).source)) continue;
      if (!layout(m)) return true;
      fromReduction.insert(m);
    }
    if (rowReduction(graph, op)) fromReduction.insert(m);
  }
  return false;
}

}  // namespace

RowFusion fuseRows(const Graph& graph, const BufferUse& use, const std::vector<bool>& excluded) {
  const size_t n = graph.ops.size();
  RowFusion rows{.folded = std::vector<bool>(n, false)};
  for (size_t i = 0; i < n; ++i) {
    const Op& op = graph.ops[i];
    if (excluded[i] || rows.folded[i] || !rowReduction(graph, op)) continue;
    const int64_t length = graph.tensor(op.inputs[0]).shape.back();
    if (length < kMinRowLength || length > kMaxRowLength) continue;
    GroupBuilder builder(graph, use, excluded, rows.folded);
    const std::vector<int> group = builder.grow(static_cast<int>(i));
    if (!spansAReduction(graph, group)) continue;
    for (int m : group) rows.folded[static_cast<size_t>(m)] = true;
    rows.kernels.emplace(group.back(), rowKernel(graph, use, group, builder.rows()));
  }
  return rows;
}

}  // namespace tg::detail
