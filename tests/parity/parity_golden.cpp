#include "parity_golden.h"

#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "sha256.h"
#include "tensorgrad/bundle.h"

namespace tg_parity {

std::vector<uint8_t> base64(const std::string& text) {
  std::string error;
  auto bytes = tg::decodeBase64(text, &error);
  if (!bytes) throw std::runtime_error("golden: " + error);
  return std::move(*bytes);
}

std::string hex(const uint8_t* bytes, size_t n) {
  std::string s;
  char b[3];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(b, sizeof b, "%02x", bytes[i]);
    s += b;
  }
  return s;
}

std::string sha256(const tg::Array& a) {
  return tg_test::sha256Hex(static_cast<const uint8_t*>(a.data()), a.size() * 4);
}
std::string sha256(const std::vector<float>& v) {
  return tg_test::sha256Hex(reinterpret_cast<const uint8_t*>(v.data()), v.size() * 4);
}

std::string bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  char b[9];
  std::snprintf(b, sizeof b, "%08x", u);
  return b;
}

std::string head(const tg::Array& a) {
  std::ostringstream os;
  os.precision(9);
  for (size_t i = 0; i < std::min<size_t>(a.size(), 4); ++i) {
    os << (i ? ", " : "");
    if (a.dtype() == tg::Dtype::F32)
      os << a.f32()[i];
    else
      os << a.i32()[i];
  }
  return os.str() + (a.size() > 4 ? ", ..." : "");
}

std::vector<const tg::KernelSpec*> dispatched(const tg::CompiledIR& ir) {
  std::vector<const tg::KernelSpec*> out;
  for (const tg::KernelSpec& k : ir.kernels) {
    if (!k.wgsl.empty() && k.threads > 0) out.push_back(&k);
  }
  return out;
}

std::string describe(const tg::CompiledIR& ir, int opIndex) {
  const tg::Op& op = ir.graph.ops.at(static_cast<size_t>(opIndex));
  std::string s = "op " + std::to_string(opIndex) + " " + std::string(tg::opKindName(op.kind));
  if (const auto& site = ir.graph.tensor(op.out).site) s += ", " + tg::formatSite(*site);
  return s;
}

std::string variantOf(const tg::KernelSpec& k) {
  if (k.wgsl.find("var<workgroup> aTile") != std::string::npos) return "tiled";
  if (k.wgsl.find("var<workgroup> partial") != std::string::npos) return "tree";
  return k.workgroupSize == 1 ? "single" : "thread";
}

std::vector<std::string> paramsDiffering(const tg::ParamMap& ours, const json& golden) {
  std::vector<std::string> bad;
  std::set<std::string> names;
  for (const auto& [name, values] : ours) {
    names.insert(name);
    if (!golden.contains(name))
      bad.push_back(name + " (upstream has no such param)");
    else if (sha256(values) != golden[name].get<std::string>())
      bad.push_back(name);
  }
  for (const auto& [name, digest] : golden.items()) {
    if (!names.contains(name)) bad.push_back(name + " (missing here)");
  }
  return bad;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

json loadGolden(const std::string& name) {
  const std::string path = std::string(TG_PARITY_GOLDEN_DIR) + "/" + name + ".json";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("no golden file " + path + " (tests/parity/upstream/gen_goldens.sh writes it)");
  json j = json::parse(in);
  if (j.value("format", 0) != 1) throw std::runtime_error(path + ": unknown golden format");
  return j;
}

TraceDifference firstDifference(const std::vector<tg::KernelOutput>& ours, const std::string& golden) {
  TraceDifference d;
  const std::vector<uint8_t> digests = base64(golden);
  d.upstreamCount = digests.size() / 8;
  if (d.upstreamCount != ours.size()) {
    d.kernel = 0;
    d.countMismatch = true;
    return d;
  }
  for (size_t j = 0; j < ours.size(); ++j) {
    d.ours = sha256(ours[j].values).substr(0, 16);
    d.upstream = hex(digests.data() + j * 8, 8);
    if (d.ours != d.upstream) {
      d.kernel = static_cast<int>(j);
      return d;
    }
  }
  return {};
}

}  // namespace tg_parity
