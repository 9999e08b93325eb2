#include "feed.h"

#include <cmath>
#include <cstring>

namespace tg::detail {

namespace {

std::string expected(const InputDecl& d) {
  std::string s = std::string(dtypeName(d.dtype)) + " [";
  for (size_t i = 0; i < d.shape.size(); ++i)
    s += (i ? ", " : "") + (d.shape[i] == null ? std::string("null") : std::to_string(d.shape[i]));
  return s + "]";
}

std::string declared(const InputDecls& decls) {
  std::string s;
  for (const auto& [name, d] : decls) s += (s.empty() ? "" : ", ") + name + ": " + expected(d);
  return s;
}

}  // namespace

bool isParametric(const InputDecls& decls) {
  for (const auto& [name, d] : decls) {
    for (int64_t dim : d.shape) {
      if (dim == null) return true;
    }
  }
  return false;
}

std::variant<InputDecls, std::string> resolveShapes(const InputDecls& decls, const Feed& feed,
                                                    std::string_view call) {
  InputDecls resolved = decls;
  std::optional<int64_t> agreed;
  std::string agreedBy;
  for (auto& [name, d] : resolved) {
    int wildcards = 0;
    int64_t known = 1;
    const std::string where = std::string(call) + ": input '" + name + "' (" + expected(d) + ")";
    for (int64_t dim : d.shape) {
      if (dim == null) {
        ++wildcards;
      } else if (dim <= 0) {
        return where + " has a dim that is neither positive nor tg::null";
      } else if (__builtin_mul_overflow(known, dim, &known) || known > kMaxTensorElements) {
        return where + " overflows: its element count (and byte size, elements x 4) must fit "
                       "in int64";
      }
    }
    if (wildcards == 0) continue;
    if (wildcards > 1) return where + " has more than one null dim; at most one is allowed";
    auto it = feed.find(name);
    if (it == feed.end()) return where + " is missing (declared: " + declared(decls) + ")";
    const auto n = static_cast<int64_t>(it->second.size());
    if (known == 0 || n % known != 0 || n == 0) {
      return where + " has " + std::to_string(n) + " elements, not a positive multiple of " +
             std::to_string(known);
    }
    const int64_t dim = n / known;
    if (agreed && *agreed != dim) {
      return std::string(call) + ": the null dims disagree: input '" + agreedBy + "' gives " +
             std::to_string(*agreed) + ", input '" + name + "' gives " + std::to_string(dim) +
             " (every null in one call stands for the same size)";
    }
    agreed = dim;
    agreedBy = name;
    for (int64_t& x : d.shape) {
      if (x == null) x = dim;
    }
  }
  return resolved;
}

std::string checkFeed(const InputDecls& decls, const Feed& feed, std::string_view call) {
  for (const auto& [name, value] : feed) {
    bool known = false;
    for (const auto& [n, d] : decls) known = known || n == name;
    if (!known) {
      return std::string(call) + ": unknown input '" + name + "' (declared: " + declared(decls) + ")";
    }
  }
  for (const auto& [name, d] : decls) {
    const std::string where = std::string(call) + ": input '" + name + "'";
    auto it = feed.find(name);
    if (it == feed.end()) return where + " is missing; expected " + expected(d);
    // bool inputs travel as i32 0/1, as in upstream.
    const Dtype want = d.dtype == Dtype::F32 ? Dtype::F32 : Dtype::I32;
    if (it->second.dtype() != want) {
      return where + " is " + std::string(dtypeName(it->second.dtype())) + ", expected " + expected(d);
    }
    if (static_cast<int64_t>(it->second.size()) != shapeSize(d.shape)) {
      return where + " has " + std::to_string(it->second.size()) + " elements, expected " +
             std::to_string(shapeSize(d.shape)) + " (" + expected(d) + ")";
    }
  }
  return {};
}

std::optional<size_t> firstNonFinite(const float* values, size_t n) {
  constexpr size_t kBlock = 1024;
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t end = std::min(n, begin + kBlock);
    uint32_t bad = 0;  // an all-ones exponent: NaN or ±Inf
    for (size_t i = begin; i < end; ++i) {
      uint32_t bits;
      std::memcpy(&bits, values + i, 4);
      bad |= static_cast<uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
    }
    if (bad) {
      for (size_t i = begin; i < end; ++i) {
        if (!std::isfinite(values[i])) return i;
      }
    }
  }
  return std::nullopt;
}

std::string describeNonFinite(const std::string& what, const float* values, size_t index) {
  const float v = values[index];
  return what + " has " + (std::isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf") + " at index " +
         std::to_string(index) + " (the first non-finite value)";
}

std::string checkFinite(const Feed& feed, std::string_view call) {
  for (const auto& [name, value] : feed) {
    if (value.dtype() != Dtype::F32) continue;
    const std::vector<float>& v = value.f32();
    if (auto i = firstNonFinite(v.data(), v.size())) {
      // A step would carry the value into the parameters; a run has none to protect, and says
      // only what is true of it.
      return describeNonFinite(std::string(call) + ": input '" + name + "'", v.data(), *i) +
             (call == "step" ? "; non-finite inputs are rejected before they can reach the parameters"
                             : "; non-finite inputs are rejected (upstream tensorgrad does not check them)");
    }
  }
  return {};
}

std::map<std::string, const void*> feedBytes(const Feed& feed) {
  std::map<std::string, const void*> bytes;
  for (const auto& [name, value] : feed) bytes[name] = value.data();
  return bytes;
}

std::string shapeKey(const InputDecls& resolved) {
  std::string key;
  for (const auto& [name, d] : resolved) key += name + showShape(d.shape) + ";";
  return key;
}

}  // namespace tg::detail
