#include "wgsl.h"

#include <charconv>
#include <cmath>

#include "../ops/op_registry.h"

namespace tg::detail {

namespace {
// Global thread index across the 2-D grid: rows of 65535 workgroups.
std::string gidLine(int workgroupSize) {
  return "  let i = gid.x + gid.y * " + u(int64_t{kMaxWorkgroupsPerDim} * workgroupSize) + ";\n";
}
}  // namespace

std::string u(int64_t value) {
  return std::to_string(value) + "u";
}

std::string n(int64_t value) {
  return std::to_string(value);
}

std::string lane(int64_t j) {
  return std::string(1, "xyzw"[j]);
}

std::string wgslType(Dtype dtype) {
  switch (dtype) {
    case Dtype::F32:
      return "f32";
    case Dtype::I32:
      return "i32";
    case Dtype::Bool:
      return "u32";
  }
  return "?";
}

std::string literal(double value, Dtype dtype) {
  if (dtype == Dtype::Bool) return value != 0 ? "1u" : "0u";
  if (dtype == Dtype::I32) return std::to_string(static_cast<int64_t>(std::trunc(value))) + "i";
  // Upstream writes a non-finite value (±Infinity, NaN) as ±1e30, NaN as -1e30: a finite
  // stand-in that WGSL accepts and that survives `x - m` in softmax-style kernels.
  if (!std::isfinite(value)) return value > 0 ? "1.0e30f" : "-1.0e30f";
  const auto f = static_cast<float>(value);
  if (!std::isfinite(f)) return f > 0 ? "3.4028234663852886e38f" : "-3.4028234663852886e38f";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, f);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string KernelArgs::inName(size_t i) const {
  if (def.variadic) return "in" + std::to_string(i);
  std::string name(def.inputNames.at(i));
  return name == "decayShrinkTensor" ? "decayShrink" : name;
}

std::string KernelArgs::bindings() const {
  std::string s;
  size_t k = 0;
  for (; k < op.inputs.size(); ++k) {
    s += "@group(0) @binding(" + std::to_string(k) + ") var<storage, read> " + inName(k) +
         " : array<" + wgslType(in(k).dtype) + ">;\n";
  }
  s += "@group(0) @binding(" + std::to_string(k) + ") var<storage, read_write> out : array<" +
       wgslType(out().dtype) + ">;\n";
  return s;
}

KernelSource elementwise(const KernelArgs& a, int64_t threads, const std::string& body,
                         const std::string& preamble) {
  std::string w =
      preamble + a.bindings() + "@compute @workgroup_size(" + std::to_string(kWorkgroupSize) +
      ")\nfn main(@builtin(global_invocation_id) gid : vec3<u32>) {\n" + gidLine(kWorkgroupSize) +
      "  if (i >= " + u(threads) + ") { return; }\n" + body + "}\n";
  return {std::move(w), threads, kWorkgroupSize};
}

KernelSource perWorkgroup(const KernelArgs& a, int64_t outputs, const std::string& body,
                          const std::string& preamble) {
  std::string w =
      preamble + "var<workgroup> partial : array<f32, " + std::to_string(kWorkgroupSize) + ">;\n" +
      a.bindings() + "@compute @workgroup_size(" + std::to_string(kWorkgroupSize) +
      ")\nfn main(@builtin(workgroup_id) wid : vec3<u32>, @builtin(local_invocation_index) lid : "
      "u32) {\n"
      "  // One workgroup per output; `i` is workgroup-uniform, so barriers stay in uniform "
      "control flow.\n"
      "  let i = wid.x + wid.y * " +
      u(kMaxWorkgroupsPerDim) + ";\n  if (i >= " + u(outputs) + ") { return; }\n" + body + "}\n";
  return {std::move(w), outputs * kWorkgroupSize, kWorkgroupSize};
}

std::string decompose(const std::string& flat, const Shape& shape, const std::string& prefix) {
  if (shape.empty()) return "";
  const auto strides = stridesOf(shape);
  std::string s, rem = flat;
  for (size_t k = 0; k < shape.size(); ++k) {
    const std::string name = prefix + "_" + std::to_string(k);
    if (k + 1 == shape.size()) {
      s += "  let " + name + " = " + rem + ";\n";
    } else {
      s += "  let " + name + " = " + rem + " / " + u(strides[k]) + ";\n";
      s += "  let " + prefix + "_r" + std::to_string(k) + " = " + rem + " % " + u(strides[k]) +
           ";\n";
      rem = prefix + "_r" + std::to_string(k);
    }
  }
  return s;
}

std::string broadcastIndex(const std::string& var, const Shape& outShape, const Shape& srcShape) {
  if (srcShape == outShape) return "  let " + var + " = i;\n";
  if (shapeSize(srcShape) == 1) return "  let " + var + " = 0u;\n";
  std::string s = decompose("i", outShape, var + "_ax");
  const auto strides = stridesOf(srcShape);
  const size_t offset = outShape.size() - srcShape.size();
  std::string expr;
  for (size_t k = 0; k < srcShape.size(); ++k) {
    if (srcShape[k] == 1) continue;
    expr += (expr.empty() ? "" : " + ") + var + "_ax_" + std::to_string(k + offset) + " * " +
            u(strides[k]);
  }
  return s + "  let " + var + " = " + (expr.empty() ? "0u" : expr) + ";\n";
}

// Upstream sums a workgroup's partial sums with a tree: level by level, element l adds element
// l + off, off = 128, 64, ..., 1, with a barrier after every level. The same additions of the
// same pairs here, with one barrier between two phases instead of one per level: invocations
// 0..31 each fold their own subtree (the elements l ≡ lid mod 32) down to off = 32, then
// invocation 0 folds the last 32. Every sum keeps its operands and their order, so the bits are
// upstream's; lavapipe runs each barrier for every invocation, which made the per-level form 4×
// slower there.
std::string workgroupReduce(const std::string& array, const std::string& acc) {
  static_assert(kWorkgroupSize == 256, "the two phases split 256 = 8 · 32");
  const std::string p = array;
  return "  " + p + "[lid] = " + acc + ";\n  workgroupBarrier();\n"
         "  if (lid < 32u) {\n"
         "    for (var off = 128u; off >= 32u; off = off >> 1u) {\n"
         "      for (var l = lid; l < off; l = l + 32u) { " + p + "[l] = " + p + "[l] + " + p + "[l + off]; }\n"
         "    }\n  }\n  workgroupBarrier();\n"
         "  if (lid == 0u) {\n"
         "    for (var off = 16u; off > 0u; off = off >> 1u) {\n"
         "      for (var l = 0u; l < off; l = l + 1u) { " + p + "[l] = " + p + "[l] + " + p + "[l + off]; }\n"
         "    }\n  }\n";
}

std::string pcgHashFn() {
  return "fn pcg(v : u32) -> u32 {\n"
         "  var h = v * 747796405u + 2891336453u;\n"
         "  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;\n"
         "  return (h >> 22u) ^ h;\n"
         "}\n";
}

std::string saltConstant(int64_t salt) {
  return u(static_cast<uint32_t>(static_cast<uint64_t>(salt) * 0x9E3779B1u));
}

}  // namespace tg::detail
