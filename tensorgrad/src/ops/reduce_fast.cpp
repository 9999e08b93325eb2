#include "reduce_fast.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

#include "op_registry.h"

namespace tg::detail {
namespace {

int64_t pow2Ceil(int64_t v) {
  int64_t p = 1;
  while (p < v) p *= 2;
  return p;
}

// Enough workgroups to give each of an H100's 132 SMs two; beyond that, wider rows/columns per
// workgroup are worth more than more workgroups.
constexpr int64_t kManyWorkgroups = 264;
// The streaming multiprocessors of an H100 or H200.
constexpr int64_t kSMs = 132;
// Independent accumulators per invocation: loads in flight per invocation in the strided loops.
constexpr int64_t kUnroll = 4;
// Column sums over fewer rows than this are left to upstream's kernel.
constexpr int64_t kShortColumn = 32;

// Adds the statements `add(j, k, indent)` for j = start, start + step, ... < end, k the slot
// of j's trip among kUnroll (independent accumulators, declared by the caller; the tail's trips
// take slot 0). `start` < `step` is a per-invocation expression; `end` and `step` are
// constants, so a loop of at most kUnroll trips is written out without bounds checks where
// every invocation is in range.
using StridedAdd =
    std::function<std::string(const std::string& j, int64_t k, const std::string& indent)>;
std::string stridedSum(const std::string& start, int64_t step, int64_t end, const StridedAdd& add) {
  const int64_t trips = ceilDiv(end, step);
  std::string s = "    let j0 = " + start + ";\n";
  if (trips <= kUnroll) {
    for (int64_t k = 0; k < trips; ++k) {
      const std::string j = "j0 + " + u(k * step);
      // Every invocation's j0 < step, so trip k is in range for all of them when (k+1)·step ≤ end.
      if ((k + 1) * step <= end) {
        s += add(j, k, "    ");
        continue;
      }
      const std::string one = add(j, k, "");
      s += one.find('\n') + 1 == one.size()  // one statement: on the guard's line
               ? "    if (" + j + " < " + u(end) + ") { " + one.substr(0, one.size() - 1) + " }\n"
               : "    if (" + j + " < " + u(end) + ") {\n" + add(j, k, "      ") + "    }\n";
    }
    return s;
  }
  s += "    var j = j0;\n    loop {\n      if (j + " + u((kUnroll - 1) * step) + " >= " + u(end) +
       ") { break; }\n";
  for (int64_t k = 0; k < kUnroll; ++k) s += add(k == 0 ? "j" : "j + " + u(k * step), k, "      ");
  s += "      j = j + " + u(kUnroll * step) + ";\n    }\n";
  s += "    loop {\n      if (j >= " + u(end) + ") { break; }\n" + add("j", 0, "      ") +
       "      j = j + " + u(step) + ";\n    }\n";
  return s;
}

// stridedSum's statements for one sum: s<k> += `load(j)`.
StridedAdd accumulate(const std::function<std::string(const std::string&)>& load) {
  return [load](const std::string& j, int64_t k, const std::string& indent) {
    return indent + "s" + n(k) + " = s" + n(k) + " + " + load(j) + ";\n";
  };
}

std::string accumulators(const std::string& type) {
  std::string s;
  for (int64_t k = 0; k < kUnroll; ++k) s += "  var s" + n(k) + " = " + type + "(0.0);\n";
  return s;
}

std::string header(const std::string& comment, const KernelArgs& a, const std::string& inType,
                   const std::string& outType, const std::string& shared) {
  std::string w = "// " + comment + (a.prologue ? ", input computed in the kernel" : "") + "\n" + shared;
  size_t outBinding = 1;
  if (a.prologue) {
    w += a.prologue->wgsl;
    if (inType == "vec4<f32>") {
      w += "fn prologue4(q : u32) -> vec4<f32> {\n  return vec4<f32>(prologue(4u * q), prologue(4u * q + 1u), "
           "prologue(4u * q + 2u), prologue(4u * q + 3u));\n}\n";
    }
    outBinding = a.prologue->bindings;
  } else {
    w += "@group(0) @binding(0) var<storage, read> " + a.inName(0) + " : array<" + inType + ">;\n";
  }
  w += "@group(0) @binding(" + n(static_cast<int64_t>(outBinding)) + ") var<storage, read_write> out : array<" +
       outType + ">;\n";
  w += "@compute @workgroup_size(" + n(kWorkgroupSize) +
       ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid "
       ": u32) {\n";
  return w;
}

// The input's element (a vec4 of them when `vec4`) at `index`: from its buffer, or computed by
// the prologue.
std::string load(const KernelArgs& a, bool vec4, const std::string& index) {
  if (a.prologue) return (vec4 ? "prologue4(" : "prologue(") + index + ")";
  return a.inName(0) + "[" + index + "]";
}

// The workgroup index over the 2-D grid; workgroups past `count` (the 2-D grid's last row) leave
// together, so the barriers that follow stay in uniform control flow.
std::string workgroupIndex(int64_t count) {
  return "  let wg = wid.x + wid.y * " + u(kMaxWorkgroupsPerDim) + ";\n  if (wg >= " + u(count) +
         ") { return; }\n";
}

// Tree over `width` (a power of two) partials arr[lid], arr[lid + stride], ...,
// arr[lid + (width−1)·stride], taken by the invocations whose `index` < off at each level with
// `combine` (e.g. "a + b"); the result lands in the slot of index 0. One barrier per level; the
// last level needs none when index 0 then reads only its own slot (`shared` false), one more when
// every invocation reads the result (`shared` true).
std::string tree(int64_t width, int64_t stride, const std::string& index,
                 const std::string& arr = "part", const std::string& op = "+",
                 bool shared = false) {
  std::string s = "  workgroupBarrier();\n";
  for (int64_t off = width / 2; off >= 1; off /= 2) {
    const std::string other = arr + "[lid + " + u(off * stride) + "]";
    const std::string value =
        op == "+" ? arr + "[lid] + " + other : op + "(" + arr + "[lid], " + other + ")";
    s += "  if (" + index + " < " + u(off) + ") { " + arr + "[lid] = " + value + "; }\n";
    if (off > 1 || shared) s += "  workgroupBarrier();\n";
  }
  return s;
}

KernelSource copyKernel(const KernelArgs& a, int64_t size) {
  if (a.prologue) return {};  // the producer's own kernel is as good as a copy of it
  const bool vec4 = size % 4 == 0;
  const std::string t = vec4 ? "vec4<f32>" : "f32";
  const int64_t threads = vec4 ? size / 4 : size;
  std::string w = "// fast sum_to_shape (copy)\n";
  w += "@group(0) @binding(0) var<storage, read> " + a.inName(0) + " : array<" + t + ">;\n";
  w += "@group(0) @binding(1) var<storage, read_write> out : array<" + t + ">;\n";
  w += "@compute @workgroup_size(" + n(kWorkgroupSize) +
       ")\nfn main(@builtin(global_invocation_id) gid : vec3<u32>) {\n  let i = gid.x + gid.y * " +
       u(int64_t{kMaxWorkgroupsPerDim} * kWorkgroupSize) + ";\n  if (i >= " + u(threads) +
       ") { return; }\n  out[i] = " + a.inName(0) + "[i];\n}\n";
  return {std::move(w), threads, kWorkgroupSize};
}

}  // namespace

RowReduceGeometry chooseRowGeometry(int64_t rows, int64_t length, bool allowVec4) {
  RowReduceGeometry g;
  g.vec4 = allowVec4 && length % 4 == 0;
  const int64_t units = g.vec4 ? length / 4 : length;  // loads per row
  // Short rows: a thread per row (with vec4 loads a warp still reads one contiguous span).
  if (units <= 4) return g;
  // About four loads per lane, then wider slices while there are too few workgroups to fill
  // the GPU and the row still has loads for every lane.
  g.lanes = std::min<int64_t>(kWorkgroupSize, pow2Ceil(ceilDiv(units, 4)));
  while (g.lanes < kWorkgroupSize && g.lanes < units &&
         ceilDiv(rows, g.rowsPerWorkgroup()) < kManyWorkgroups)
    g.lanes *= 2;
  return g;
}

ColumnReduceGeometry chooseColumnGeometry(int64_t outer, int64_t rows, int64_t cols) {
  ColumnReduceGeometry g;
  g.vec4 = cols % 4 == 0;
  const int64_t units = g.vec4 ? cols / 4 : cols;
  // A row segment of 32 bytes (one memory sector) per workgroup at least: two vec4 lanes or
  // eight scalar ones; narrow tensors get fewer.
  const int64_t widest = std::min<int64_t>(kWorkgroupSize, pow2Ceil(units));
  g.colLanes = std::min<int64_t>(g.vec4 ? 2 : 8, widest);
  // Where two vec4 lanes would leave workgroups for fewer than an H100's or H200's 132 SMs, one:
  // twice the workgroups, each reading half a sector a row. Alone each such sum took longer on
  // an H200 (2026-11-29, bench/RESULTS.md: D512's [4096, 512] sums 5.1–5.3 → 6.1–6.2 µs), but
  // the ~50 of them in D512's last levels overlapped better (314.6 → 199.1 µs for one level)
  // and the steps gained: D512 16.9 → 16.8 ms pipelined, D64 0.345–0.348 → 0.339–0.340.
  if (g.vec4 && outer * ceilDiv(units, g.colLanes) < kSMs) g.colLanes = 1;
  // Wider while the row-lanes outnumber the rows, or while halving the workgroups still leaves
  // plenty of them.
  while (g.colLanes < widest &&
         (g.rowLanes() > rows || outer * ceilDiv(units, 2 * g.colLanes) >= kManyWorkgroups))
    g.colLanes *= 2;
  return g;
}

// Workgroup w covers rows w·G .. w·G + G − 1 (G = 256 / lanes); invocation lid works on row
// w·G + lid / lanes, loads lid % lanes, lid % lanes + lanes, ... of it. The lanes' partials meet
// in a tree over adjacent slots of `part`.
KernelSource fastRowReduceKernel(const KernelArgs& a, int64_t rows, int64_t length, bool mean) {
  const RowReduceGeometry g = chooseRowGeometry(rows, length);
  const int64_t units = g.vec4 ? length / 4 : length, perWg = g.rowsPerWorkgroup();
  const int64_t workgroups = ceilDiv(rows, perWg);
  const std::string type = g.vec4 ? "vec4<f32>" : "f32";
  std::string w =
      header("fast row reduce: " + n(rows) + " rows of " + n(length) + ", " + n(g.lanes) +
                 " lanes per row" + (g.vec4 ? ", vec4" : ", scalar"),
             a, type, "f32",
             g.lanes > 1 ? "var<workgroup> part : array<f32, " + n(kWorkgroupSize) + ">;\n" : "");
  w += workgroupIndex(workgroups);
  w += "  let lane = lid % " + u(g.lanes) + ";\n  let row = wg * " + u(perWg) + " + lid / " +
       u(g.lanes) + ";\n";
  w += accumulators(type);
  w += "  if (row < " + u(rows) + ") {\n    let base = row * " + u(units) + ";\n";
  w += stridedSum("lane", g.lanes, units,
                  accumulate([&](const std::string& j) { return load(a, g.vec4, "base + " + j); }));
  w += "  }\n  let v = (s0 + s1) + (s2 + s3);\n";
  static_assert(kUnroll == 4);
  const std::string total = g.vec4 ? "((v.x + v.y) + (v.z + v.w))" : "v";
  const std::string scale = mean ? " / " + literal(static_cast<double>(length), Dtype::F32) : "";
  if (g.lanes == 1) {
    w += "  if (row < " + u(rows) + ") { out[row] = " + total + scale + "; }\n}\n";
  } else {
    w += "  part[lid] = " + total + ";\n" + tree(g.lanes, 1, "lane");
    w += "  if (lane == 0u && row < " + u(rows) + ") { out[row] = part[lid]" + scale + "; }\n}\n";
  }
  return {std::move(w), workgroups * kWorkgroupSize, kWorkgroupSize};
}

// Workgroup w covers outer index w / T and column lanes (w % T)·C .. + C − 1 (T tiles of C =
// colLanes); invocation lid reads column lid % C of rows lid / C, lid / C + R, ... (R = 256 / C
// row-lanes), so a warp reads whole 32-byte row segments. The row-lanes' partials meet in a
// tree over slots C apart.
KernelSource fastColumnReduceKernel(const KernelArgs& a, int64_t outer, int64_t rows,
                                    int64_t cols) {
  const ColumnReduceGeometry g = chooseColumnGeometry(outer, rows, cols);
  const int64_t units = g.vec4 ? cols / 4 : cols, tiles = ceilDiv(units, g.colLanes);
  const int64_t workgroups = outer * tiles, rowLanes = g.rowLanes();
  const std::string type = g.vec4 ? "vec4<f32>" : "f32";
  std::string w = header(
      "fast column reduce: [" + n(outer) + ", " + n(rows) + ", " + n(cols) + "] over axis 1, " +
          n(g.colLanes) + " column lanes" + (g.vec4 ? ", vec4" : ", scalar"),
      a, type, type, "var<workgroup> part : array<" + type + ", " + n(kWorkgroupSize) + ">;\n");
  w += workgroupIndex(workgroups);
  w += "  let o = wg / " + u(tiles) + ";\n  let c = (wg % " + u(tiles) + ") * " + u(g.colLanes) +
       " + lid % " + u(g.colLanes) + ";\n  let ty = lid / " + u(g.colLanes) + ";\n";
  w += accumulators(type);
  w += "  if (c < " + u(units) + ") {\n    let base = o * " + u(rows * units) + " + c;\n";
  w += stridedSum("ty", rowLanes, rows, accumulate([&](const std::string& j) {
    return load(a, g.vec4, "base + (" + j + ") * " + u(units));
  }));
  w += "  }\n  part[lid] = (s0 + s1) + (s2 + s3);\n";
  if (rowLanes > 1) w += tree(rowLanes, g.colLanes, "ty");
  w +=
      "  if (ty == 0u && c < " + u(units) + ") { out[o * " + u(units) + " + c] = part[lid]; }\n}\n";
  return {std::move(w), workgroups * kWorkgroupSize, kWorkgroupSize};
}

KernelSource fastSumLastKernel(const KernelArgs& a) {
  const Shape& s = a.in(0).shape;
  if (s.empty() || shapeSize(s) == 0) return {};
  return fastRowReduceKernel(a, shapeSize(s) / s.back(), s.back(), false);
}

KernelSource fastMeanLastKernel(const KernelArgs& a) {
  const Shape& s = a.in(0).shape;
  if (s.empty() || shapeSize(s) == 0) return {};
  return fastRowReduceKernel(a, shapeSize(s) / s.back(), s.back(), true);
}

KernelSource fastColumnSumsKernel(const ColumnSums& c) {
  const int64_t count = static_cast<int64_t>(c.outputs);
  if (c.cols % 4 || count < 1 || count > 4 || c.rows < 1)
    throw std::logic_error("fastColumnSumsKernel: 1 to 4 sums of whole vec4 rows");
  const ColumnReduceGeometry g = chooseColumnGeometry(c.outer, c.rows, c.cols);
  const int64_t units = c.cols / 4, tiles = ceilDiv(units, g.colLanes);
  const int64_t workgroups = c.outer * tiles, rowLanes = g.rowLanes();
  std::string w = "// fast column sums: " + n(count) + " × [" + n(c.outer) + ", " + n(c.rows) +
                  ", " + n(c.cols) + "] over axis 1, " + n(g.colLanes) +
                  " column lanes, vec4\n" + c.buffers;
  for (int64_t r = 0; r < count; ++r)
    w += "var<workgroup> part" + n(r) + " : array<vec4<f32>, " + n(kWorkgroupSize) + ">;\n";
  for (int64_t r = 0; r < count; ++r)
    w += "@group(0) @binding(" + n(static_cast<int64_t>(c.bindings) + r) +
         ") var<storage, read_write> out" + n(r) + " : array<vec4<f32>>;\n";
  w += "@compute @workgroup_size(" + n(kWorkgroupSize) +
       ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid "
       ": u32) {\n";
  w += workgroupIndex(workgroups);
  w += "  let o = wg / " + u(tiles) + ";\n  let c = (wg % " + u(tiles) + ") * " + u(g.colLanes) +
       " + lid % " + u(g.colLanes) + ";\n  let ty = lid / " + u(g.colLanes) + ";\n";
  for (int64_t r = 0; r < count; ++r)
    for (int64_t k = 0; k < kUnroll; ++k) w += "  var s" + n(r) + "_" + n(k) + " = vec4<f32>(0.0);\n";
  // Vec4 j of every sum (in its slot k), from one evaluation of the inputs.
  w += "  if (c < " + u(units) + ") {\n    let base = o * " + u(c.rows * units) + " + c;\n";
  w += stridedSum("ty", rowLanes, c.rows,
                  [&](const std::string& j, int64_t k, const std::string& ind) {
                    std::string s = ind + "{\n" +
                                    c.element("base + (" + j + ") * " + u(units), ind + "  ");
                    for (int64_t r = 0; r < count; ++r) {
                      const std::string acc = "s" + n(r) + "_" + n(k);
                      s += ind + "  " + acc + " = " + acc + " + p" + n(r) + ";\n";
                    }
                    return s + ind + "}\n";
                  });
  w += "  }\n";
  for (int64_t r = 0; r < count; ++r) {
    const std::string pr = "part" + n(r), sr = "s" + n(r) + "_";
    w += "  " + pr + "[lid] = (" + sr + "0 + " + sr + "1) + (" + sr + "2 + " + sr + "3);\n";
  }
  static_assert(kUnroll == 4);
  for (int64_t r = 0; r < count; ++r)
    if (rowLanes > 1) w += tree(rowLanes, g.colLanes, "ty", "part" + n(r));
  for (int64_t r = 0; r < count; ++r)
    w += "  if (ty == 0u && c < " + u(units) + ") { out" + n(r) + "[o * " + u(units) +
         " + c] = part" + n(r) + "[lid]; }\n";
  w += "}\n";
  return {std::move(w), workgroups * kWorkgroupSize, kWorkgroupSize};
}

namespace {

// Size-1 source axes don't move the flat index, so they are dropped; the rest are marked summed
// (leading axes, and axes the target keeps as 1) or kept, and neighbours with the same mark
// merge. Kept, summed, kept (each run optional) is [outer, rows, cols] → [outer, cols]; nullopt
// where more than one run is summed.
std::optional<std::array<int64_t, 3>> summedRuns(const Shape& src, const Shape& dst) {
  if (dst.size() > src.size()) return std::nullopt;
  const size_t offset = src.size() - dst.size();
  std::vector<std::pair<bool, int64_t>> runs;  // (summed, extent)
  for (size_t k = 0; k < src.size(); ++k) {
    if (src[k] == 1) continue;
    const bool summed = k < offset || dst[k - offset] == 1;
    if (!runs.empty() && runs.back().first == summed)
      runs.back().second *= src[k];
    else
      runs.emplace_back(summed, src[k]);
  }
  int64_t outer = 1, rows = 1, cols = 1;
  size_t r = 0;
  if (r < runs.size() && !runs[r].first) outer = runs[r++].second;
  if (r < runs.size() && runs[r].first) rows = runs[r++].second;
  if (r < runs.size() && !runs[r].first) cols = runs[r++].second;
  if (r < runs.size()) return std::nullopt;
  return std::array<int64_t, 3>{outer, rows, cols};
}

}  // namespace

std::optional<std::array<int64_t, 3>> columnSumOf(const Shape& src, const Shape& dst) {
  const auto runs = shapeSize(src) ? summedRuns(src, dst) : std::nullopt;
  if (!runs || (*runs)[1] < kShortColumn || (*runs)[2] == 1) return std::nullopt;
  return runs;
}

KernelSource fastSumToShapeKernel(const KernelArgs& a) {
  const Shape& src = a.in(0).shape;
  if (a.out().dtype != Dtype::F32 || shapeSize(src) == 0) return {};
  const auto runs = summedRuns(src, a.out().shape);
  if (!runs) return {};
  const auto [outer, rows, cols] = *runs;
  if (rows == 1) return copyKernel(a, shapeSize(src));
  if (cols == 1) return fastRowReduceKernel(a, outer, rows, false);
  // A short column sum is upstream's thread per output: neighbouring threads read neighbouring
  // columns, and there is too little to sum for row-lanes and a tree to pay.
  if (rows < kShortColumn) return {};
  return fastColumnReduceKernel(a, outer, rows, cols);
}

namespace {

// Shared by both softmaxes: `rows` rows of `d`; `limit` is the exclusive end of a row's live
// columns (a WGSL expression of `row`), `store(j)` the statement writing column j.
KernelSource softmaxKernel(const KernelArgs& a, const std::string& name, const std::string& limit,
                           const std::string& finish,
                           const std::function<std::string(const std::string&)>& store) {
  if (a.prologue) return {};  // reads its input three times: not worth recomputing
  const int64_t d = a.in(0).shape.back(), rows = shapeSize(a.in(0).shape) / d;
  const RowReduceGeometry g = chooseRowGeometry(rows, d, false);
  const int64_t perWg = g.rowsPerWorkgroup(), workgroups = ceilDiv(rows, perWg);
  const std::string x = a.inName(0);
  std::string shared;
  if (g.lanes > 1) {
    shared = "var<workgroup> pmax : array<f32, " + n(kWorkgroupSize) +
             ">;\nvar<workgroup> psum : array<f32, " + n(kWorkgroupSize) + ">;\n";
  }
  std::string w = header("fast " + name + ": " + n(rows) + " rows of " + n(d) + ", " + n(g.lanes) +
                             " lanes per row, scalar",
                         a, "f32", "f32", shared);
  w += workgroupIndex(workgroups);
  w += "  let lane = lid % " + u(g.lanes) + ";\n  let row = wg * " + u(perWg) + " + lid / " +
       u(g.lanes) + ";\n  let live = row < " + u(rows) + ";\n  let base = row * " + u(d) +
       ";\n  let end = select(0u, " + limit + ", live);\n";
  // Upstream's start for the max: -1e30, so a row's max is finite.
  w += "  var m = -1.0e30;\n  for (var j = lane; j < end; j = j + " + u(g.lanes) +
       ") { m = max(m, " + x + "[base + j]); }\n";
  if (g.lanes > 1) {
    const std::string first = "lid - lane";
    w += "  pmax[lid] = m;\n" + tree(g.lanes, 1, "lane", "pmax", "max", true);
    w += "  m = pmax[" + first + "];\n";
  }
  w += "  var s = 0.0;\n  for (var j = lane; j < end; j = j + " + u(g.lanes) + ") { s = s + exp(" +
       x + "[base + j] - m); }\n";
  if (g.lanes > 1) {
    w += "  psum[lid] = s;\n" + tree(g.lanes, 1, "lane", "psum", "+", true);
    w += "  s = psum[lid - lane];\n";
  }
  w += finish + "  if (live) {\n    for (var j = lane; j < " + u(d) + "; j = j + " + u(g.lanes) +
       ") { " + store("j") + " }\n  }\n}\n";
  return {std::move(w), workgroups * kWorkgroupSize, kWorkgroupSize};
}

}  // namespace

KernelSource fastLogSoftmaxKernel(const KernelArgs& a) {
  const Shape& s = a.in(0).shape;
  if (s.empty() || shapeSize(s) == 0) return {};
  const std::string x = a.inName(0);
  return softmaxKernel(a, "log_softmax", u(s.back()), "  let logZ = m + log(s);\n",
                       [&](const std::string& j) {
                         return "out[base + " + j + "] = " + x + "[base + " + j + "] - logZ;";
                       });
}

KernelSource fastSoftmaxCausalKernel(const KernelArgs& a) {
  const Shape& s = a.in(0).shape;
  if (s.empty() || shapeSize(s) == 0) return {};
  const std::string x = a.inName(0);
  return softmaxKernel(a, "softmax_causal", "row % " + u(s.back()) + " + 1u", "",
                       [&](const std::string& j) {
                         return "out[base + " + j + "] = select(0.0, exp(" + x + "[base + " + j +
                                "] - m) / s, " + j + " < end);";
                       });
}

}  // namespace tg::detail
