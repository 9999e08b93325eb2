// Every parity case against upstream's golden (tests/parity/README.md): the dispatched kernels
// and their geometry, every kernel's output at every step, the losses, the initial and final
// parameters and the attached forwards' outputs, all bit for bit. A failure names the first step
// and the first kernel (op index, kind, the user's call site) whose output differs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "parity_case.h"
#include "sha256.h"

namespace tg_parity {
namespace {

using json = nlohmann::json;

std::vector<uint8_t> base64(const std::string& text) {
  static const std::string digits =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const size_t v = digits.find(c);
    if (v == std::string::npos) throw std::runtime_error("golden: bad base64 character");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<uint8_t>(acc >> bits));
    }
  }
  return out;
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

// "op 57 sum_to_shape, [sum] model.h:42 (in loss)": where a kernel comes from in the user's code.
std::string describe(const tg::CompiledIR& ir, int opIndex) {
  const tg::Op& op = ir.graph.ops.at(static_cast<size_t>(opIndex));
  std::string s = "op " + std::to_string(opIndex) + " " + std::string(tg::opKindName(op.kind));
  if (const auto& site = ir.graph.tensor(op.out).site) s += ", " + tg::formatSite(*site);
  return s;
}

// Which of upstream's kernel forms ours is (see README.md: thread, tree, tiled, single).
std::string variantOf(const tg::KernelSpec& k) {
  if (k.wgsl.find("var<workgroup> aTile") != std::string::npos) return "tiled";
  if (k.wgsl.find("var<workgroup> partial") != std::string::npos) return "tree";
  return k.workgroupSize == 1 ? "single" : "thread";
}

// The dispatched kernels, their order, form and geometry:
// [opIndex, kind, threads, workgroupSize, variant].
::testing::AssertionResult sameKernels(const tg::CompiledIR& ir, const json& golden) {
  const auto ours = dispatched(ir);
  if (ours.size() != golden.size()) {
    return ::testing::AssertionFailure()
           << ours.size() << " kernels dispatched, upstream dispatches " << golden.size();
  }
  for (size_t j = 0; j < ours.size(); ++j) {
    const tg::KernelSpec& k = *ours[j];
    const json& g = golden[j];
    if (k.opIndex != g[0].get<int>() || tg::opKindName(k.kind) != g[1].get<std::string>() ||
        k.threads != g[2].get<int64_t>() || k.workgroupSize != g[3].get<int>() ||
        variantOf(k) != g[4].get<std::string>()) {
      return ::testing::AssertionFailure()
             << "kernel " << j << " (" << describe(ir, k.opIndex) << "): ours dispatches op "
             << k.opIndex << " " << tg::opKindName(k.kind) << " (" << variantOf(k) << ") with "
             << k.threads << " threads in workgroups of " << k.workgroupSize << ", upstream op "
             << g[0] << " " << g[1] << " (" << g[4].get<std::string>() << ") with " << g[2]
             << " threads in workgroups of " << g[3];
    }
  }
  return ::testing::AssertionSuccess();
}

// One step's (or run's) kernel outputs against upstream's 8-byte digests: the first that differs.
::testing::AssertionResult sameTrace(const tg::CompiledIR& ir, const std::vector<tg::KernelOutput>& ours,
                                     const std::string& golden) {
  const std::vector<uint8_t> digests = base64(golden);
  if (digests.size() != ours.size() * 8) {
    return ::testing::AssertionFailure() << ours.size() << " kernel outputs, upstream's trace has "
                                         << digests.size() / 8;
  }
  for (size_t j = 0; j < ours.size(); ++j) {
    const std::string mine = sha256(ours[j].values).substr(0, 16);
    const std::string theirs = hex(digests.data() + j * 8, 8);
    if (mine != theirs) {
      return ::testing::AssertionFailure()
             << "kernel " << j << " of " << ours.size() << " (" << describe(ir, ours[j].opIndex)
             << ") is the first whose output differs from upstream's (digest " << mine << " vs "
             << theirs << "; ours starts " << head(ours[j].values) << ")";
    }
  }
  return ::testing::AssertionSuccess();
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

class Upstream : public ::testing::TestWithParam<std::string> {};

TEST_P(Upstream, BitForBit) {
  const Case& c = *std::find_if(cases().begin(), cases().end(),
                                [&](const Case& x) { return x.name == GetParam(); });
  const json golden = loadGolden(c.name);
  tg::RuntimeOptions options;
  options.cacheDir = TG_TEST_CACHE_DIR;
  const Recorded r = c.run(options);

  const auto badInit = paramsDiffering(r.initialParams, golden["initialParams"]);
  ASSERT_TRUE(badInit.empty()) << "initial parameters differ from upstream's: " << join(badInit);
  ASSERT_TRUE(sameKernels(*r.ir, golden["kernels"]));

  const bool training = golden.contains("losses");
  const size_t steps = golden["trace"].size();
  ASSERT_EQ(r.trace.size(), steps) << "steps recorded";
  for (size_t s = 0; s < steps; ++s) {
    ASSERT_TRUE(sameTrace(*r.ir, r.trace[s], golden["trace"][s].get<std::string>()))
        << (training ? "step " : "run ") << s;
    if (training) {
      ASSERT_EQ(bits(r.losses[s]), golden["losses"][s].get<std::string>())
          << "step " << s << ": loss " << r.losses[s] << " vs upstream's " << golden["lossValues"][s]
          << " (every kernel output matched, so the step's scalars or feeds differ)";
    } else {
      ASSERT_EQ(sha256(r.outputs[s]), golden["outputs"][s]["sha256"].get<std::string>())
          << "run " << s << " output";
    }
  }
  const auto badFinal = paramsDiffering(r.finalParams, golden["finalParams"]);
  EXPECT_TRUE(badFinal.empty()) << "final parameters differ from upstream's: " << join(badFinal);

  const json forwards = golden.value("forwards", json::array());
  ASSERT_EQ(r.forwards.size(), forwards.size()) << "attached forwards";
  for (size_t f = 0; f < forwards.size(); ++f) {
    const Recorded::Forward& ours = r.forwards[f];
    const json& g = forwards[f];
    SCOPED_TRACE("forward '" + ours.name + "'");
    ASSERT_EQ(ours.name, g["name"].get<std::string>());
    ASSERT_TRUE(sameKernels(*ours.ir, g["kernels"]));
    ASSERT_TRUE(sameTrace(*ours.ir, ours.trace, g["trace"].get<std::string>()));
    const tg::TensorInfo& out = ours.ir->graph.tensor(ours.ir->output);
    EXPECT_EQ(out.shape, g["shape"].get<tg::Shape>());
    EXPECT_EQ(tg::dtypeName(out.dtype), g["dtype"].get<std::string>());
    EXPECT_EQ(sha256(ours.output), g["sha256"].get<std::string>())
        << "output starts " << head(ours.output);
  }
}

// Together the goldens dispatch every op kind in every form upstream's codegen has for it, so a
// change to any branch of ours is checked against upstream somewhere.
TEST(Coverage, EveryKernelVariant) {
  std::set<std::pair<std::string, std::string>> seen;
  const auto collect = [&](const json& kernels) {
    for (const json& k : kernels) seen.emplace(k[1].get<std::string>(), k[4].get<std::string>());
  };
  for (const Case& c : cases()) {
    const json golden = loadGolden(c.name);
    collect(golden["kernels"]);
    for (const json& f : golden.value("forwards", json::array())) collect(f["kernels"]);
  }
  std::set<std::pair<std::string, std::string>> required;
  for (int k = 0; k < tg::kOpKindCount; ++k) {
    const auto kind = static_cast<tg::OpKind>(k);
    if (kind == tg::OpKind::ParamInput || kind == tg::OpKind::TensorInput || kind == tg::OpKind::StateInput)
      continue;  // graph inputs dispatch nothing
    const std::string name(tg::opKindName(kind));
    required.emplace(name, kind == tg::OpKind::ConstScalar ? "single" : "thread");
  }
  for (const char* name : {"mean_last", "sum_last", "sum_to_shape", "matmul", "conv2d_weight_grad"})
    required.emplace(name, "tree");
  for (const char* name : {"matmul", "matmul_batched"}) required.emplace(name, "tiled");
  std::vector<std::string> missing;
  for (const auto& [kind, variant] : required) {
    if (!seen.contains({kind, variant})) missing.push_back(kind + " (" + variant + ")");
  }
  EXPECT_TRUE(missing.empty()) << "no golden dispatches " << join(missing);
  for (const auto& [kind, variant] : seen) {
    EXPECT_TRUE(required.contains({kind, variant})) << kind << " (" << variant << ") is a form this test does not know";
  }
}

std::vector<std::string> caseNames() {
  std::vector<std::string> names;
  for (const Case& c : cases()) names.push_back(c.name);
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(Parity, Upstream, ::testing::ValuesIn(caseNames()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace tg_parity
