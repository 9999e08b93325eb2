#include "types.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace wgsl::detail {

std::string glslName(const std::string& name) {
  bool plain = name.size() <= 200 && name.find("__") == std::string::npos && !name.ends_with('_') &&
               !name.starts_with('_');  // "w_" + "_x" would hold the reserved "__"
  for (const char c : name) {
    if (static_cast<unsigned char>(c) >= 0x80) plain = false;
  }
  if (plain) return "w_" + name;
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (const char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  static const char* digits = "0123456789abcdef";
  std::string out = "wx_";
  for (int i = 60; i >= 0; i -= 4) out += digits[(h >> i) & 15];
  return out;
}

int matrixColumns(const std::string& name, bool shorthand) {
  const bool shape = name.size() >= 6 && name.starts_with("mat") && name[3] >= '2' &&
                     name[3] <= '4' && name[4] == 'x' && name[5] >= '2' && name[5] <= '4';
  if (!shape) return 0;
  if (name.size() == 6) return name[3] - '0';
  if (shorthand && name.size() == 7 && (name[6] == 'f' || name[6] == 'h')) return name[3] - '0';
  return 0;
}

double roundToF16(double v) {
  if (!std::isfinite(v) || v == 0) return v;
  int exp = 0;
  std::frexp(v, &exp);  // |v| = m * 2^exp, m in [0.5, 1)
  // 11 significant bits for normal halves; subnormals (below 2^-14) have a fixed quantum 2^-24.
  const int quantumExp = std::max(exp - 11, -24);
  const double r = std::ldexp(std::nearbyint(std::ldexp(v, -quantumExp)), quantumExp);
  if (std::fabs(r) > 65504.0) return std::copysign(INFINITY, v);
  return r;
}

uint16_t f16Bits(double v) {
  const uint16_t sign = std::signbit(v) ? 0x8000 : 0;
  const double a = std::fabs(v);
  if (std::isnan(v)) return 0x7e00;
  if (std::isinf(v)) return sign | 0x7c00;
  if (a < std::ldexp(1.0, -14))  // subnormal: units of 2^-24
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(std::ldexp(a, 24)));
  int exp = 0;
  const double m = std::frexp(a, &exp);  // a = m * 2^exp, m in [0.5, 1): 11 significant bits
  const auto significand = static_cast<uint16_t>(std::ldexp(m, 11));
  return static_cast<uint16_t>(sign | ((exp + 14) << 10) | (significand - 1024));
}

double roundToFloat(double v, Type::K k) {
  if (k == Type::K::F32) return static_cast<double>(static_cast<float>(v));
  if (k == Type::K::F16) return roundToF16(v);
  return v;
}

std::string literalText(double v, const Type& t) {
  if (t.k == Type::K::Bool) return v != 0 ? "true" : "false";
  if (t.k == Type::K::F16) {  // exact: every f16 is a float; GLSL's suffix "hf"
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    std::string s(buf);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    s += "hf";
    return v < 0 ? "(" + s + ")" : s;
  }
  if (t.isFloat()) {
    const auto f = static_cast<float>(v);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(f));
    std::string s(buf);
    if (s.find_first_of(".e") == std::string::npos) s += ".0";
    return f < 0 ? "(" + s + ")" : s;
  }
  const auto i = static_cast<int64_t>(v);
  if (t.k == Type::K::U32) return std::to_string(i) + "u";
  if (i == std::numeric_limits<int32_t>::min()) return "(-2147483647 - 1)";
  return i < 0 ? "(" + std::to_string(i) + ")" : std::to_string(i);
}

bool Type::operator==(const Type& o) const {
  if (k != o.k || n != o.n || name != o.name) return false;
  if (!elem || !o.elem) return !elem && !o.elem;
  return *elem == *o.elem;
}

std::string Type::wgsl() const {
  switch (k) {
    case K::Void:
      return "void";
    case K::Bool:
      return "bool";
    case K::I32:
      return "i32";
    case K::U32:
      return "u32";
    case K::F32:
      return "f32";
    case K::F16:
      return "f16";
    case K::AbstractInt:
      return "abstract-int";
    case K::AbstractFloat:
      return "abstract-float";
    case K::Vec:
      return "vec" + std::to_string(n) + "<" + elem->wgsl() + ">";
    case K::Array:
      return "array<" + elem->wgsl() +
             (name.starts_with("__") ? ", " + name.substr(2, name.rfind('@') - 2)  // computed
              : !name.empty()        ? ", " + name
              : n                    ? ", " + std::to_string(n)
                                     : "") +
             ">";
    case K::Atomic:
      return "atomic<" + elem->wgsl() + ">";
    case K::Struct:
      return name;
    case K::Mat:
      return "mat" + std::to_string(n) + "x" + std::to_string(rows()) + "<" + elem->elem->wgsl() +
             ">";
    case K::Ptr:
      return "ptr<" + name + ", " + elem->wgsl() + (n ? ", read_write>" : ", read>");
  }
  return "?";
}

std::string Type::glsl() const {
  switch (k) {
    case K::Void:
      return "void";
    case K::Bool:
      return "bool";
    case K::I32:
    case K::AbstractInt:
      return "int";
    case K::U32:
      return "uint";
    case K::F32:
    case K::AbstractFloat:
      return "float";
    case K::F16:
      return "float16_t";
    case K::Vec: {
      const std::string prefix = elem->k == K::Bool                               ? "b"
                                 : elem->k == K::I32 || elem->k == K::AbstractInt ? "i"
                                 : elem->k == K::U32                              ? "u"
                                 : elem->k == K::F16                              ? "f16"
                                                                                  : "";
      return prefix + "vec" + std::to_string(n);
    }
    case K::Array:
      return elem->glsl();
    case K::Atomic:
    case K::Ptr:  // pointers are lowered to what they point at
      return elem->glsl();
    case K::Struct:
      return glslName(name);
    case K::Mat:
      return std::string(elem->elem->k == K::F16 ? "f16mat" : "mat") + std::to_string(n) + "x" +
             std::to_string(rows());
  }
  return "?";
}

int Type::byteSize() const {
  switch (k) {
    case K::Vec:
      return n * elem->byteSize();
    case K::Mat:  // columns are vecR, aligned as vecR (vec3 as vec4)
      return n * (rows() == 2 ? 2 : 4) * elem->elem->byteSize();
    case K::F16:
      return 2;
    case K::Array:
      return n * elem->byteSize();
    case K::Atomic:
      return 4;
    case K::Struct:
      return 0;
    default:
      return 4;
  }
}

}  // namespace wgsl::detail
