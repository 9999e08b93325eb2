#include "transpose_fast.h"

#include <limits>

namespace tg::detail {
namespace {

constexpr int64_t kTile = 32;  // a tile's side; 256 invocations move it, 4 elements each
constexpr int64_t kRowsPerPass = kWorkgroupSize / kTile;

}  // namespace

bool swapsLastTwo(const std::vector<int64_t>& perm) {
  const size_t r = perm.size();
  if (r < 2) return false;
  for (size_t d = 0; d + 2 < r; ++d)
    if (perm[d] != static_cast<int64_t>(d)) return false;
  return perm[r - 2] == static_cast<int64_t>(r - 1) && perm[r - 1] == static_cast<int64_t>(r - 2);
}

KernelSource fastTransposeKernel(const KernelArgs& a) {
  const Shape& in = a.in(0).shape;
  if (!swapsLastTwo(a.op.attrs.perm)) return {};
  const int64_t rows = in[in.size() - 2], cols = in.back();
  if (rows < kTile || cols < kTile) return {};
  const int64_t elements = shapeSize(in);
  // Indices are u32; a workgroup index past 2^31 would overflow the 2-D grid's arithmetic too.
  if (elements > std::numeric_limits<uint32_t>::max()) return {};
  const int64_t batches = elements / (rows * cols);
  const int64_t tilesR = ceilDiv(rows, kTile), tilesC = ceilDiv(cols, kTile);
  const int64_t workgroups = batches * tilesR * tilesC;
  const std::string type = wgslType(a.out().dtype);
  std::string w = "// fast transpose: [" + n(batches) + ", " + n(rows) + ", " + n(cols) +
                  "] to its last two axes swapped, a 32x32 tile a workgroup\n";
  w += a.bindings();
  // A row of 33: a column of the tile falls in 32 different banks.
  w += "var<workgroup> tile : array<array<" + type + ", 33>, 32>;\n";
  w += "@compute @workgroup_size(" + n(kWorkgroupSize) +
       ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : "
       "u32) {\n";
  w += "  let wg = wid.x + wid.y * " + u(kMaxWorkgroupsPerDim) + ";\n";
  w += "  if (wg >= " + u(workgroups) + ") { return; }\n";
  w += "  let b = wg / " + u(tilesR * tilesC) + ";\n";
  w += "  let r0 = (wg / " + u(tilesC) + ") % " + u(tilesR) + " * 32u;\n";
  w += "  let c0 = wg % " + u(tilesC) + " * 32u;\n";
  w += "  let base = b * " + u(rows * cols) + ";\n";
  w += "  let x = lid % 32u;\n  let y = lid / 32u;\n";
  w += "  for (var j = 0u; j < 32u; j += " + u(kRowsPerPass) + ") {\n";
  w += "    let r = r0 + y + j;\n    let c = c0 + x;\n";
  w += "    if (r < " + u(rows) + " && c < " + u(cols) + ") { tile[y + j][x] = " + a.inName(0) +
       "[base + r * " + u(cols) + " + c]; }\n  }\n";
  w += "  workgroupBarrier();\n";
  // Output row c0 + y + j (an input column), its elements input rows r0 + x.
  w += "  for (var j = 0u; j < 32u; j += " + u(kRowsPerPass) + ") {\n";
  w += "    let c = c0 + y + j;\n    let r = r0 + x;\n";
  w += "    if (r < " + u(rows) + " && c < " + u(cols) + ") { out[base + c * " + u(rows) +
       " + r] = tile[x][y + j]; }\n  }\n}\n";
  return {.wgsl = std::move(w), .threads = workgroups * kWorkgroupSize};
}

}  // namespace tg::detail
