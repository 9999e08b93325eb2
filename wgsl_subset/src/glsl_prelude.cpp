#include "glsl_prelude.h"

#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace wgsl::detail {
namespace {
using K = Type::K;
}  // namespace

// Helpers the written code calls for WGSL's defined integer and conversion semantics.
static const char* kPrelude =
    R"(int tg_div(int a, int b) { return (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? a : a / b; }
uint tg_div(uint a, uint b) { return b == 0u ? a : a / b; }
int tg_rem(int a, int b) { int d = (b == 0 || (a == (-2147483647 - 1) && b == -1)) ? 1 : b; return a - (a / d) * d; }
uint tg_rem(uint a, uint b) { return b == 0u ? 0u : a % b; }
float tg_rem(float a, float b) { return a - b * trunc(a / b); }
int tg_f2i(float x) { return x != x ? 0 : int(clamp(x, -2147483648.0, 2147483520.0)); }
uint tg_f2u(float x) { return x != x ? 0u : uint(clamp(x, 0.0, 4294967040.0)); }
ivec2 tg_vdiv(ivec2 a, ivec2 b) { return ivec2(tg_div(a.x, b.x), tg_div(a.y, b.y)); }
ivec3 tg_vdiv(ivec3 a, ivec3 b) { return ivec3(tg_div(a.x, b.x), tg_div(a.y, b.y), tg_div(a.z, b.z)); }
ivec4 tg_vdiv(ivec4 a, ivec4 b) { return ivec4(tg_div(a.x, b.x), tg_div(a.y, b.y), tg_div(a.z, b.z), tg_div(a.w, b.w)); }
uvec2 tg_vdiv(uvec2 a, uvec2 b) { return uvec2(tg_div(a.x, b.x), tg_div(a.y, b.y)); }
uvec3 tg_vdiv(uvec3 a, uvec3 b) { return uvec3(tg_div(a.x, b.x), tg_div(a.y, b.y), tg_div(a.z, b.z)); }
uvec4 tg_vdiv(uvec4 a, uvec4 b) { return uvec4(tg_div(a.x, b.x), tg_div(a.y, b.y), tg_div(a.z, b.z), tg_div(a.w, b.w)); }
ivec2 tg_vrem(ivec2 a, ivec2 b) { return ivec2(tg_rem(a.x, b.x), tg_rem(a.y, b.y)); }
ivec3 tg_vrem(ivec3 a, ivec3 b) { return ivec3(tg_rem(a.x, b.x), tg_rem(a.y, b.y), tg_rem(a.z, b.z)); }
ivec4 tg_vrem(ivec4 a, ivec4 b) { return ivec4(tg_rem(a.x, b.x), tg_rem(a.y, b.y), tg_rem(a.z, b.z), tg_rem(a.w, b.w)); }
uvec2 tg_vrem(uvec2 a, uvec2 b) { return uvec2(tg_rem(a.x, b.x), tg_rem(a.y, b.y)); }
uvec3 tg_vrem(uvec3 a, uvec3 b) { return uvec3(tg_rem(a.x, b.x), tg_rem(a.y, b.y), tg_rem(a.z, b.z)); }
uvec4 tg_vrem(uvec4 a, uvec4 b) { return uvec4(tg_rem(a.x, b.x), tg_rem(a.y, b.y), tg_rem(a.z, b.z), tg_rem(a.w, b.w)); }
vec2 tg_vrem(vec2 a, vec2 b) { return a - b * trunc(a / b); }
vec3 tg_vrem(vec3 a, vec3 b) { return a - b * trunc(a / b); }
vec4 tg_vrem(vec4 a, vec4 b) { return a - b * trunc(a / b); }
ivec2 tg_vf2i(vec2 x) { return ivec2(tg_f2i(x.x), tg_f2i(x.y)); }
ivec3 tg_vf2i(vec3 x) { return ivec3(tg_f2i(x.x), tg_f2i(x.y), tg_f2i(x.z)); }
ivec4 tg_vf2i(vec4 x) { return ivec4(tg_f2i(x.x), tg_f2i(x.y), tg_f2i(x.z), tg_f2i(x.w)); }
uvec2 tg_vf2u(vec2 x) { return uvec2(tg_f2u(x.x), tg_f2u(x.y)); }
uvec3 tg_vf2u(vec3 x) { return uvec3(tg_f2u(x.x), tg_f2u(x.y), tg_f2u(x.z)); }
uvec4 tg_vf2u(vec4 x) { return uvec4(tg_f2u(x.x), tg_f2u(x.y), tg_f2u(x.z), tg_f2u(x.w)); }
int tg_dot(ivec2 a, ivec2 b) { return a.x * b.x + a.y * b.y; }
int tg_dot(ivec3 a, ivec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
int tg_dot(ivec4 a, ivec4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
uint tg_dot(uvec2 a, uvec2 b) { return a.x * b.x + a.y * b.y; }
uint tg_dot(uvec3 a, uvec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
uint tg_dot(uvec4 a, uvec4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
)";

// Their f16 overloads, in modules that `enable f16;` (they need its GLSL extensions).
static const char* kF16Prelude =
    R"(float16_t tg_rem(float16_t a, float16_t b) { return a - b * trunc(a / b); }
f16vec2 tg_vrem(f16vec2 a, f16vec2 b) { return a - b * trunc(a / b); }
f16vec3 tg_vrem(f16vec3 a, f16vec3 b) { return a - b * trunc(a / b); }
f16vec4 tg_vrem(f16vec4 a, f16vec4 b) { return a - b * trunc(a / b); }
uvec2 tg_h4bits(f16vec4 v) { return uvec2(packFloat2x16(v.xy), packFloat2x16(v.zw)); }
f16vec4 tg_bitsh4(uvec2 v) { return f16vec4(unpackFloat2x16(v.x), unpackFloat2x16(v.y)); }
)";

// GLSL's array dimensions of `t`, outermost first ("" for a non-array; "[]" runtime-sized):
// array<array<u32, 5>, 7> is `uint x[7][5]`, as Type::glsl() spells only the innermost element.
std::string dims(const Type& t) {
  if (t.k != K::Array) return "";
  if (t.overrideSized()) return "[" + glslName(t.name) + "]" + dims(*t.elem);
  return "[" + (t.n ? std::to_string(t.n) : std::string()) + "]" + dims(*t.elem);
}

std::string zeroOf(const Type& t) {
  switch (t.k) {
    case K::Bool:
      return "false";
    case K::I32:
    case K::AbstractInt:  // a component of an abstract const's zero value (`vec4().x`)
      return "0";
    case K::U32:
      return "0u";
    case K::F32:
    case K::AbstractFloat:
      return "0.0";
    case K::F16:
      return "0.0hf";
    case K::Vec:
      return t.glsl() + "(" + zeroOf(*t.elem) + ")";
    case K::Mat: {  // column by column: GLSL's matCxR(0.0) would be a diagonal
      std::string code = t.glsl() + "(";
      for (int i = 0; i < t.n; ++i) code += (i ? ", " : "") + zeroOf(*t.elem);
      return code + ")";
    }
    default:
      return "";
  }
}

std::string builtinName(const std::string& wgsl) {
  static const std::map<std::string, std::string> renamed = {{"atan2", "atan"},
                                                             {"inverseSqrt", "inversesqrt"},
                                                             {"round", "roundEven"},
                                                             {"countOneBits", "bitCount"},
                                                             {"firstLeadingBit", "findMSB"},
                                                             {"reverseBits", "bitfieldReverse"}};
  auto it = renamed.find(wgsl);
  return it == renamed.end() ? wgsl : it->second;
}

std::string invocationBuiltin(const std::string& wgsl) {
  static const std::map<std::string, std::string> names = {
      {"global_invocation_id", "gl_GlobalInvocationID"},
      {"local_invocation_id", "gl_LocalInvocationID"},
      {"local_invocation_index", "gl_LocalInvocationIndex"},
      {"workgroup_id", "gl_WorkGroupID"},
      {"num_workgroups", "gl_NumWorkGroups"},
      {"subgroup_invocation_id", "gl_SubgroupInvocationID"},
      {"subgroup_size", "gl_SubgroupSize"}};
  return names.at(wgsl);
}

// Each helper is one line, named `tg_<name>(` after its return type, after the helpers it calls.
std::string usedPrelude(const std::string& code, bool f16) {
  std::vector<std::pair<std::string, std::string>> helpers;  // (call, line)
  std::istringstream lines(std::string(kPrelude) + (f16 ? kF16Prelude : ""));
  for (std::string line; std::getline(lines, line);) {
    const size_t start = line.find("tg_"), end = line.find('(');
    helpers.emplace_back(line.substr(start, end - start + 1), line);
  }
  std::vector<bool> used(helpers.size());
  const auto calls = [](const std::string& text, const std::string& call) {
    return text.find(call) != std::string::npos;
  };
  for (size_t i = helpers.size(); i-- > 0;) {  // callers come after their callees
    used[i] = used[i] || calls(code, helpers[i].first);
    if (!used[i]) continue;
    const std::string& line = helpers[i].second;
    const std::string body = line.substr(line.find('{'));
    for (size_t j = 0; j < i; ++j) used[j] = used[j] || calls(body, helpers[j].first);
  }
  std::string out;
  for (size_t i = 0; i < helpers.size(); ++i) {
    if (used[i]) out += helpers[i].second + "\n";
  }
  return out;
}

}  // namespace wgsl::detail
