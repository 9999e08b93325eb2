#include "feed.h"

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
    for (int64_t dim : d.shape) {
      if (dim == null) {
        ++wildcards;
      } else {
        known *= dim;
      }
    }
    if (wildcards == 0) continue;
    const std::string where = std::string(call) + ": input '" + name + "' (" + expected(d) + ")";
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
