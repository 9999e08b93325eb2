// tg-inspect end to end: every subcommand run as a user runs it, on the MLP, the transformer and
// a bundle exported from upstream in Dawn; golden summaries (counts and bytes); bad input exits
// 2 with a message naming the problem; the HTML report in headless Chromium.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "shell.h"
#include <regex>
#include <sstream>

#include "inspect.h"

namespace fs = std::filesystem;

namespace {

const std::string kBundle = std::string(TG_PARITY_BUNDLE_DIR) + "/transformer.tgbundle.json";
const std::string kMlpBundle = std::string(TG_PARITY_BUNDLE_DIR) + "/mlp_sin.tgbundle.json";
// The transformer at small sizes where a test lays out or times every kernel.
const std::string kSmallTransformer = "transformer --d 16 --layers 1 --heads 2 --batch 4";

using Result = test_support::Shell;
using test_support::shell;

Result inspect(const std::string& args) {
  return shell(std::string(TG_INSPECT) + " " + args);
}

// The report in headless Chromium (tests/inspect/check_report.mjs): one JSON line.
Result checkReport(const std::filesystem::path& report, const std::string& query) {
  return shell("cd '" + std::string(TG_INSPECT_NODE_DIR) + "' && '" + std::string(TG_NODE) +
               "' check_report.mjs '" + report.string() + "' '" + query + "'");
}

fs::path scratchRoot() {
  return fs::temp_directory_path() / ("tg_inspect_test_" + std::to_string(::getpid()));
}

// Removes the test's scratch files when the run ends.
struct ScratchCleanup : ::testing::Environment {
  void TearDown() override { fs::remove_all(scratchRoot()); }
};
const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

fs::path scratch(const std::string& name) {
  const fs::path dir = scratchRoot() / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

size_t countLines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

size_t countOf(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(needle, at)) != std::string::npos; at += needle.size()) ++n;
  return n;
}

tg_inspect::Subject subject(const std::string& source,
                            std::vector<std::pair<std::string, int64_t>> sizes = {}) {
  return tg_inspect::loadSubject({.source = source, .sizes = std::move(sizes)});
}

// ---- golden summaries ----

void expectGoldenSummary(const std::string& args, const std::string& golden) {
  const Result r = inspect("summary " + args + " --json");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json got = nlohmann::json::parse(r.out);
  const fs::path file = fs::path(TG_INSPECT_GOLDEN_DIR) / golden;
  if (std::getenv("TG_UPDATE_GOLDENS") || !fs::exists(file)) {
    std::ofstream(file) << got.dump(1) << "\n";
    GTEST_SKIP() << "wrote " << file << "; check it in";
  }
  std::ifstream in(file);
  EXPECT_EQ(got, nlohmann::json::parse(in)) << "summary of " << args << " differs from " << file;
}

TEST(InspectSummary, MlpMatchesGolden) {
  expectGoldenSummary("mlp-sin", "mlp_sin.summary.json");
}
TEST(InspectSummary, TransformerMatchesGolden) {
  expectGoldenSummary("transformer", "transformer.summary.json");
}
TEST(InspectSummary, TransformerOwnBuffersMatchesGolden) {
  expectGoldenSummary("transformer --unpooled", "transformer_unpooled.summary.json");
}
TEST(InspectSummary, BundleMatchesGolden) {
  expectGoldenSummary(kBundle, "transformer_bundle.summary.json");
}

// Counts the README states, independent of the golden files.
TEST(InspectSummary, KnownCounts) {
  const tg_inspect::Summary mlp = tg_inspect::summarize(subject("mlp-sin"));
  EXPECT_EQ(mlp.ops, 84u);
  EXPECT_EQ(mlp.kernels, 63u);
  EXPECT_EQ(mlp.levels, 30u);
  const tg_inspect::Summary tr = tg_inspect::summarize(subject("transformer"));
  EXPECT_EQ(tr.ops, 1058u);
  EXPECT_EQ(tr.kernels, 933u);
  EXPECT_EQ(tr.levels, 524u);
  EXPECT_EQ(tg_inspect::summarize(tg_inspect::loadSubject({.source = "transformer", .pool = false}))
                .levels,
            363u);
  int64_t bytes = 0;
  for (const auto& k : tr.byKind) bytes += k.bytes;
  EXPECT_EQ(bytes, tr.totalBytes);
  // Shared across levels (the runtime's GPU default): own buffers' levels in less memory, each
  // byte counted once (a view under its parent's kind only when that kind differs: the fast set's
  // parameters in their arena).
  for (const bool fast : {false, true}) {
    const tg_inspect::Summary own =
        tg_inspect::summarize(tg_inspect::loadSubject({.source = "transformer", .pool = false, .fast = fast}));
    const tg_inspect::Summary shared = tg_inspect::summarize(
        tg_inspect::loadSubject({.source = "transformer", .pool = false, .share = true, .fast = fast}));
    EXPECT_EQ(shared.levels, own.levels);
    EXPECT_LT(shared.totalBytes * 3, own.totalBytes);
    int64_t sharedBytes = 0;
    for (const auto& k : shared.byKind) sharedBytes += k.bytes;
    EXPECT_EQ(sharedBytes, shared.totalBytes) << (fast ? "fast" : "upstream");
  }
  const Result shared = inspect("summary transformer --shared");
  ASSERT_EQ(shared.status, 0);
  EXPECT_NE(shared.out.find("own buffers shared across dispatch levels"), std::string::npos) << shared.out;
  const Result sharedPlan = inspect("plan mlp-sin --shared");
  ASSERT_EQ(sharedPlan.status, 0);
  EXPECT_NE(sharedPlan.out.find("in buffer "), std::string::npos) << sharedPlan.out;  // a view's home
  const Result text = inspect("summary mlp-sin");
  ASSERT_EQ(text.status, 0);
  EXPECT_NE(text.out.find("dispatch levels     30"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("param_grad"), std::string::npos);
}

// ---- one subcommand at a time, on the three sources ----

class EverySource : public ::testing::TestWithParam<std::string> {};

TEST_P(EverySource, KernelsListsEveryKernel) {
  const tg_inspect::Subject s = subject(GetParam());
  const Result r = inspect("kernels " + GetParam());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(countLines(r.out), s.kernels.size() + 1);  // + the header
  const std::vector<tg_inspect::KernelRow> rows = tg_inspect::kernelRows(s);
  EXPECT_EQ(rows.front().phase, "forward");
  EXPECT_EQ(rows.back().phase, "optimizer");
  EXPECT_FALSE(rows.front().site.empty());
}

TEST_P(EverySource, ShadersOfOneKernelAndOfAll) {
  const tg_inspect::Subject s = subject(GetParam());
  const Result w = inspect("wgsl " + GetParam() + " 1");
  ASSERT_EQ(w.status, 0) << w.out;
  EXPECT_NE(w.out.find(s.kernel(1).wgsl), std::string::npos);
  const Result sp = inspect("spirv " + GetParam() + " 1");
  ASSERT_EQ(sp.status, 0) << sp.out;
  EXPECT_NE(sp.out.find("OpEntryPoint GLCompute"), std::string::npos);
  const Result gl = inspect("glsl " + GetParam() + " 1");
  ASSERT_EQ(gl.status, 0) << gl.out;
  EXPECT_NE(gl.out.find("#version 450"), std::string::npos);
  for (const char* what : {"wgsl", "spirv"}) {
    const fs::path dir = scratch(std::string("all_") + what);
    const Result all = inspect(std::string(what) + " " + GetParam() + " --all -o " + dir.string());
    ASSERT_EQ(all.status, 0) << all.out;
    EXPECT_EQ(
        static_cast<size_t>(std::distance(fs::directory_iterator(dir), fs::directory_iterator())),
        s.kernels.size());
  }
}

TEST_P(EverySource, PlanAndSchedule) {
  const tg_inspect::Subject s = subject(GetParam());
  const Result plan = inspect("plan " + GetParam());
  ASSERT_EQ(plan.status, 0) << plan.out;
  EXPECT_EQ(countLines(plan.out), s.ir.plan.buffers.size() + 3);  // report, blank, header
  // Every buffer a kernel touches has a lifetime; params live from the first forward use.
  for (const tg_inspect::BufferRow& b : tg_inspect::bufferRows(s))
    if (b.first) {
      EXPECT_LE(*b.first, *b.last);
    }
  const Result sched = inspect("schedule " + GetParam());
  ASSERT_EQ(sched.status, 0) << sched.out;
  EXPECT_EQ(countOf(sched.out, "\nlevel "), static_cast<size_t>(s.schedule.levels));
  // Level by level, the kernels in the order the runtime dispatches them (what `profile` times).
  std::vector<size_t> listed;
  for (const tg_inspect::LevelRow& l : tg_inspect::levelRows(s))
    for (size_t i : l.kernels) listed.push_back(s.kernels.at(i));
  EXPECT_EQ(listed, s.schedule.order);
  EXPECT_EQ(listed.size(), s.kernels.size());
}

TEST_P(EverySource, GraphAsJsonAndDot) {
  const tg_inspect::Subject s = subject(GetParam());
  const Result json = inspect("graph " + GetParam() + " --format json");
  ASSERT_EQ(json.status, 0) << json.out;
  const nlohmann::json g = nlohmann::json::parse(json.out);
  EXPECT_EQ(g["nodes"].size(), s.ir.graph.ops.size());
  std::set<std::string> phases;
  for (const auto& n : g["nodes"]) phases.insert(n["phase"].get<std::string>());
  EXPECT_EQ(phases, (std::set<std::string>{"forward", "backward", "optimizer"}));
  const Result dot = inspect("graph " + GetParam() + " --format dot");
  ASSERT_EQ(dot.status, 0) << dot.out;
  EXPECT_EQ(countOf(dot.out, "fillcolor="), s.ir.graph.ops.size());
}

TEST_P(EverySource, DiffAgainstItselfIsEmptyAndFusionChangesKernels) {
  const Result same = inspect("diff " + GetParam() + " " + GetParam());
  ASSERT_EQ(same.status, 0) << same.out;
  EXPECT_NE(same.out.find(" 0 changed, 0 added, 0 removed"), std::string::npos) << same.out;
  const tg_inspect::Subject a = subject(GetParam());
  const tg_inspect::Subject b =
      tg_inspect::loadSubject({.source = GetParam(), .fuse = true, .pool = false});
  const tg_inspect::Diff d = tg_inspect::diffSubjects(a, b);
  size_t removed = 0, changed = 0;
  for (const auto& c : d.changes) {
    if (c.kind == tg_inspect::KernelChange::Kind::Removed) ++removed;
    if (c.kind == tg_inspect::KernelChange::Kind::Changed) {
      ++changed;
      EXPECT_NE(c.wgslDiff.find("+// fused"), std::string::npos) << c.wgslDiff;
    }
  }
  // Fusion folds chains into their last op's kernel: each fused kernel replaces its chain.
  EXPECT_EQ(a.kernels.size() - removed, b.kernels.size());
  EXPECT_GT(changed, 0u);
  EXPECT_EQ(d.same + changed, b.kernels.size());
}

INSTANTIATE_TEST_SUITE_P(Sources, EverySource, ::testing::Values("transformer", "mlp-sin", kBundle),
                         [](const ::testing::TestParamInfo<std::string>& p) {
                           return p.index == 0   ? std::string("transformer")
                                  : p.index == 1 ? std::string("mlp_sin")
                                                 : std::string("bundle");
                         });

TEST(InspectDiff, BundleAndSampleOfOneModelGiveTheSameKernels) {
  const Result r = inspect("diff " + kMlpBundle + " mlp-sin");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("63 kernels the same, 0 changed, 0 added, 0 removed"), std::string::npos)
      << r.out;
}

// --fast compiles the fast kernel set: every matmul kernel is replaced by the tiled one, and
// element-wise chains are fused (with own buffers: the pooled plan leaves the MLP nothing to
// fuse), so there are fewer kernels.
TEST(InspectDiff, FastKernelSetChangesEveryMatmul) {
  const Result r = inspect("diff mlp-sin --unpooled --b-fast");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("the fast kernel set"), std::string::npos) << r.out;
  const tg_inspect::Subject a = tg_inspect::loadSubject({.source = "mlp-sin", .pool = false});
  const tg_inspect::Subject b =
      tg_inspect::loadSubject({.source = "mlp-sin", .pool = false, .fast = true});
  EXPECT_NE(b.options.find("fast kernel set"), std::string::npos) << b.options;
  EXPECT_LT(b.kernels.size(), a.kernels.size());
  size_t matmuls = 0;
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    if (a.kernel(i).kind == tg::OpKind::Matmul) ++matmuls;
  }
  // A matmul whose element-wise reader runs in its store (an epilogue) stands at that reader's
  // place: the diff shows it removed there and added here. A product another kernel computes
  // (the last layer's outer product in the matrix-vector product's, codegen/fold_outer_product.h;
  // the first layer's weight gradient in its bias gradient's column sums, fold_sibling_sums.h)
  // is removed only.
  size_t inOtherKernels = 0;
  for (size_t i = 0; i < b.kernels.size(); ++i) {
    const auto& ops = b.kernel(i).fusedOps;
    const auto products = static_cast<size_t>(std::count_if(ops.begin(), ops.end(), [&](int op) {
      return b.ir.graph.ops[static_cast<size_t>(op)].kind == tg::OpKind::Matmul;
    }));
    const size_t own = b.kernel(i).kind == tg::OpKind::Matmul ? 1 : 0;
    if (products > own) inOtherKernels += products - own;
  }
  EXPECT_EQ(inOtherKernels, 2u);
  size_t changedMatmuls = 0, removedMatmuls = 0, addedMatmuls = 0;
  for (const auto& c : tg_inspect::diffSubjects(a, b).changes) {
    if (c.kind == tg_inspect::KernelChange::Kind::Changed && a.kernel(*c.a).kind == tg::OpKind::Matmul)
      ++changedMatmuls;
    if (c.kind == tg_inspect::KernelChange::Kind::Removed && a.kernel(*c.a).kind == tg::OpKind::Matmul)
      ++removedMatmuls;
    if (c.kind == tg_inspect::KernelChange::Kind::Added && b.kernel(*c.b).kind == tg::OpKind::Matmul)
      ++addedMatmuls;
  }
  EXPECT_GT(matmuls, 0u);
  EXPECT_EQ(addedMatmuls + inOtherKernels, removedMatmuls);
  EXPECT_EQ(changedMatmuls + removedMatmuls, matmuls);
}

// --cpu-device: the matmul forms the runtime takes on lavapipe (16×16 blocks of 4×4 outputs
// an invocation: 16 invocations a workgroup), named in the options line.
TEST(InspectDiff, CpuDeviceTakesTheCpuMatmulForms) {
  const Result r = inspect("summary mlp-sin --fast --cpu-device");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("matmuls for a CPU device"), std::string::npos) << r.out;
  const auto matmulWorkgroups = [](bool cpuDevice) {
    const tg_inspect::Subject s =
        tg_inspect::loadSubject({.source = "mlp-sin", .fast = true, .cpuDevice = cpuDevice});
    std::vector<int> sizes;
    for (size_t i = 0; i < s.kernels.size(); ++i)
      if (s.kernel(i).kind == tg::OpKind::Matmul) sizes.push_back(s.kernel(i).workgroupSize);
    return sizes;
  };
  const std::vector<int> cpu = matmulWorkgroups(true), gpu = matmulWorkgroups(false);
  ASSERT_FALSE(cpu.empty());
  EXPECT_EQ(cpu.size(), gpu.size());
  // The 256×64 products take 16×16 blocks of 4×4 (16 invocations); those of the 1-wide head,
  // 16×1 or 1×16 blocks of 4×1 or 1×4 (4).
  for (const int size : cpu) EXPECT_TRUE(size == 16 || size == 4) << ::testing::PrintToString(cpu);
  EXPECT_NE(std::count(cpu.begin(), cpu.end(), 16), 0) << ::testing::PrintToString(cpu);
  EXPECT_NE(cpu, gpu) << ::testing::PrintToString(gpu);
}

TEST(InspectDiff, UnifiedDiffMarksLines) {
  EXPECT_EQ(tg_inspect::unifiedDiff("a\nb\nc\n", "a\nB\nc\n"),
            "--- a\n+++ b\n@@ line 1 @@\n a\n-b\n+B\n c\n");
}

// ---- graph SVG, profile, html ----

TEST(InspectGraph, SvgHasANodePerOp) {
  if (!tg_inspect::haveGraphviz())
    GTEST_SKIP() << "Graphviz's dot is not installed (apt-get install graphviz)";
  for (const std::string& source : {std::string("mlp-sin"), kSmallTransformer}) {
    const fs::path out = scratch("svg") / "graph.svg";
    const Result r = inspect("graph " + source + " --format svg -o " + out.string());
    ASSERT_EQ(r.status, 0) << r.out;
    std::stringstream svg;
    svg << std::ifstream(out).rdbuf();
    const std::string name = source.substr(0, source.find(' '));
    std::vector<std::pair<std::string, int64_t>> sizes;
    if (name == "transformer") sizes = {{"d", 16}, {"layers", 1}, {"heads", 2}, {"batch", 4}};
    EXPECT_EQ(countOf(svg.str(), "class=\"node\""), subject(name, sizes).ir.graph.ops.size())
        << source;
  }
}

TEST(InspectProfile, TimesEveryKernel) {
  for (const std::string& source :
       {std::string("mlp-sin --batch 16"), kSmallTransformer, kMlpBundle}) {
    const auto start = std::chrono::steady_clock::now();
    const Result r = inspect("profile " + source + " --reps 1 --warm-up 0 --json");
    const double wallUs =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(r.status, 0) << source << ": " << r.out;
    const nlohmann::json p = nlohmann::json::parse(r.out);
    EXPECT_FALSE(p["device"].get<std::string>().empty());
    double total = 0;
    for (const auto& k : p["kernels"]) {
      EXPECT_GE(k["us"].get<double>(), 0);
      EXPECT_GT(k["bytes"].get<double>(), 0);
      total += k["us"].get<double>();
    }
    EXPECT_NEAR(p["totalUs"].get<double>(), total, 1e-6 * std::max(1.0, total));
    // A cost for each dispatch level the schedule has, and one for the whole step.
    const Result schedule = inspect("schedule " + source);
    ASSERT_EQ(schedule.status, 0) << schedule.out;
    EXPECT_EQ(p["levelUs"].size(), countOf(schedule.out, "\nlevel ")) << source;
    for (const auto& us : p["levelUs"]) EXPECT_TRUE(us.is_number()) << us;
    EXPECT_TRUE(p["stepUs"].is_number()) << source;
    EXPECT_TRUE(p["submittedStepUs"].is_number()) << source;
    // lavapipe has timestamp queries: each level is also timed inside the step, every one taking
    // some time, and the repetitions fit in the command's own run: a level's time is the median
    // of the repetitions after the first (min(4096 / levels, 32) run), so at least half of them
    // took as long. (Not against stepUs: a wall-clock difference that read 0 on this 2-vCPU VM
    // with six profiles at once.)
    ASSERT_EQ(p["levelInStepUs"].size(), p["levelUs"].size()) << source;
    double inStep = 0;
    for (const auto& us : p["levelInStepUs"]) {
      EXPECT_GT(us.get<double>(), 0) << source;
      inStep += us.get<double>();
    }
    const size_t measured = std::min<size_t>(4096 / p["levelUs"].size(), 32) - 1;
    EXPECT_LT(static_cast<double>((measured + 1) / 2) * inStep, wallUs) << source;
    const size_t kernels = p["kernels"].size();
    if (source.starts_with("mlp-sin")) {
      EXPECT_EQ(kernels, 63u);
    }
  }
  // A matmul kernel counts 2·M·N·K for each product it computes under either kernel set, folded
  // neighbours or not (the fast set's MLP, with its own buffers shared across levels, computes its
  // last layer's K = 1 input gradient in the matrix-vector product's kernel: 8 products in 7
  // kernels).
  for (const bool fast : {false, true}) {
    const Result r = inspect(std::string("profile mlp-sin --batch 16 --reps 1 --json") +
                             (fast ? " --fast --shared" : ""));
    ASSERT_EQ(r.status, 0) << r.out;
    const tg_inspect::Subject s = tg_inspect::loadSubject({.source = "mlp-sin",
                                                           .sizes = {{"batch", 16}},
                                                           .pool = !fast,
                                                           .share = fast,
                                                           .fast = fast});
    const nlohmann::json p = nlohmann::json::parse(r.out);
    size_t matmuls = 0, matmulKernels = 0;
    for (const auto& k : p["kernels"]) {
      const tg::KernelSpec& spec = s.kernel(k["index"].get<size_t>());
      if (spec.kind != tg::OpKind::Matmul) continue;
      std::set<int> ops(spec.fusedOps.begin(), spec.fusedOps.end());  // each op once
      ops.insert(spec.opIndex);
      double flops = 0;
      for (int o : ops) {
        const tg::Op& op = s.ir.graph.ops[static_cast<size_t>(o)];
        if (op.kind != tg::OpKind::Matmul) continue;
        const tg::Shape& a = s.ir.graph.tensor(op.inputs[0]).shape;
        const tg::Shape& b = s.ir.graph.tensor(op.inputs[1]).shape;
        flops += 2.0 * static_cast<double>(a[0] * a[1] * b[1]);
        ++matmuls;
      }
      EXPECT_EQ(k["flops"].get<double>(), flops) << fast << " kernel " << k["index"];
      ++matmulKernels;
    }
    EXPECT_EQ(matmuls, 8u) << fast;  // the forward's 3 and the backward's 5 (no input gradient)
    EXPECT_EQ(matmulKernels, fast ? 7u : 8u);
  }
  {
    // The fast transformer: the attention kernel computes both of a head's products (4 × 2 heads
    // of [8, 8] · [8, 8], twice), and dP = dO·Vᵀ is computed by the kernel of the softmax's
    // gradient, standing at the gradient's last op (fold_row_softmax.h).
    const Result r = inspect("profile " + kSmallTransformer + " --fast --shared --reps 1 --json");
    ASSERT_EQ(r.status, 0) << r.out;
    const tg_inspect::Subject s = tg_inspect::loadSubject(
        {.source = "transformer",
         .sizes = {{"d", 16}, {"layers", 1}, {"heads", 2}, {"batch", 4}},
         .pool = false,
         .share = true,
         .fast = true});
    const nlohmann::json p = nlohmann::json::parse(r.out);
    size_t attention = 0, gradient = 0;
    for (const auto& k : p["kernels"]) {
      const tg::KernelSpec& spec = s.kernel(k["index"].get<size_t>());
      if (spec.wgsl.starts_with("// fast attention")) {
        EXPECT_EQ(k["flops"].get<double>(), 2.0 * 8 * (8 * 8 * 8 + 8 * 8 * 8));
        ++attention;
      }
      if (spec.wgsl.starts_with("// fast softmax gradient")) {
        EXPECT_EQ(k["flops"].get<double>(), 2.0 * 8 * 8 * 8 * 8) << "kernel " << k["index"];
        ++gradient;
      }
    }
    EXPECT_EQ(attention, 1u);
    EXPECT_EQ(gradient, 1u);
  }
  const Result text = inspect("profile mlp-sin --batch 16 --reps 1");
  ASSERT_EQ(text.status, 0) << text.out;
  EXPECT_NE(text.out.find("GFLOP/s"), std::string::npos);
  EXPECT_NE(text.out.find("the step on the GPU"), std::string::npos);
  EXPECT_NE(text.out.find("matmul"), std::string::npos);
}

// The timeline (--trace): one slice per kernel, on lanes under its dispatch level, the levels end
// to end, each as long as its slowest kernel; html --trace links it from the report.
TEST(InspectProfile, TraceLaysOutOneStepByLevel) {
  const fs::path dir = scratch("trace");
  const fs::path file = dir / "step.json";
  const Result r = inspect("profile mlp-sin --batch 16 --reps 1 --warm-up 0 --json --trace '" +
                           file.string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const nlohmann::json profile = nlohmann::json::parse(r.out);
  std::ifstream in(file);
  const nlohmann::json trace = nlohmann::json::parse(in);
  const tg_inspect::Subject s = subject("mlp-sin", {{"batch", 16}});
  std::map<size_t, double> costs;  // dispatch index -> µs, from the profile
  for (const auto& k : profile["kernels"]) costs[k["index"].get<size_t>()] = k["us"].get<double>();
  struct Level {
    double ts = 0, dur = 0, longest = 0;
    size_t kernels = 0, seen = 0;
  };
  // A level's event comes before its kernels' (levels may share a start: kernels of 0 µs).
  std::vector<Level> levels;
  std::set<size_t> kernels;
  double measuredEnd = 0;  // the levels timed inside the step, end to end in their own process
  size_t measured = 0;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    if (e["cat"] == "measured level") {
      EXPECT_EQ(e["pid"], 2);
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), measuredEnd);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), profile["levelInStepUs"][measured++].get<double>());
      measuredEnd += e["dur"].get<double>();
      continue;
    }
    if (e["cat"] == "level") {
      levels.push_back({.ts = e["ts"].get<double>(),
                        .dur = e["dur"].get<double>(),
                        .kernels = e["args"]["kernels"].get<size_t>()});
      continue;
    }
    ASSERT_FALSE(levels.empty()) << "a kernel before any level";
    Level& l = levels.back();
    const size_t index = e["args"]["kernel"].get<size_t>();
    EXPECT_TRUE(kernels.insert(index).second) << "kernel " << index << " twice";
    EXPECT_DOUBLE_EQ(e["dur"].get<double>(), costs.at(index));
    EXPECT_DOUBLE_EQ(e["ts"].get<double>(), l.ts) << "kernel " << index << " starts with its level";
    EXPECT_GE(e["tid"].get<int>(), 1);
    for (const char* key : {"op", "output", "call site", "bytes", "flops", "workgroups"})
      EXPECT_TRUE(e["args"].contains(key)) << key;
    EXPECT_EQ(e["args"]["call site"], tg_inspect::callSite(s.ir.graph, s.opOf(index)));
    l.longest = std::max(l.longest, e["dur"].get<double>());
    ++l.seen;
  }
  ASSERT_EQ(levels.size(), static_cast<size_t>(s.schedule.levels));
  EXPECT_EQ(kernels.size(), s.kernels.size());
  double end = 0;
  for (const Level& l : levels) {
    EXPECT_DOUBLE_EQ(l.ts, end) << "levels run end to end";
    EXPECT_DOUBLE_EQ(l.dur, l.longest);
    EXPECT_EQ(l.seen, l.kernels);
    end += l.dur;
  }
  EXPECT_DOUBLE_EQ(trace["metadata"]["modelled step us"].get<double>(), end);
  EXPECT_EQ(measured, levels.size()) << "lavapipe has timestamp queries: every level measured";
  EXPECT_DOUBLE_EQ(trace["metadata"]["measured step us"].get<double>(), measuredEnd);
  EXPECT_DOUBLE_EQ(trace["metadata"]["serial GPU cost us"].get<double>(),
                   profile["totalUs"].get<double>());

  const fs::path report = dir / "report.html";
  const Result html = inspect("html mlp-sin --batch 16 --reps 1 --warm-up 0 --no-graph -o '" +
                              report.string() + "' --trace '" + (dir / "t" / "step.json").string() + "'");
  ASSERT_EQ(html.status, 0) << html.out;
  std::ifstream reportIn(report);
  const std::string text((std::istreambuf_iterator<char>(reportIn)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"trace\":\"t/step.json\""), std::string::npos) << "linked relative to the report";
  EXPECT_TRUE(fs::exists(dir / "t" / "step.json"));
}

std::string chromiumSkipReason() {
  const char* chromium = std::getenv("CHROMIUM");
  if (!fs::exists(chromium ? chromium : "/usr/bin/chromium"))
    return "chromium is not installed (apt-get install chromium)";
  if (!fs::exists(fs::path(TG_INSPECT_NODE_DIR) / "node_modules" / "playwright-core"))
    return "npm playwright-core is not installed (npm ci --prefix tests/inspect)";
  if (!tg_inspect::haveGraphviz())
    return "Graphviz's dot is not installed (apt-get install graphviz)";
  return "";
}

TEST(InspectHtml, ReportOpensInChromiumDrawsTheGraphAndSearches) {
  if (const std::string why = chromiumSkipReason(); !why.empty()) GTEST_SKIP() << why;
  // The transformer (small) with a profile; the MLP as the browser exported it.
  for (const std::string& source : {kSmallTransformer, kMlpBundle}) {
    SCOPED_TRACE(source);
    const bool bundle = source == kMlpBundle;
    const fs::path report = scratch("html") / "report.html";
    const Result r = inspect("html " + source + " -o " + report.string() +
                             (bundle ? "" : " --profile --reps 1 --warm-up 0"));
    ASSERT_EQ(r.status, 0) << r.out;
    std::vector<std::pair<std::string, int64_t>> sizes;
    if (!bundle) sizes = {{"d", 16}, {"layers", 1}, {"heads", 2}, {"batch", 4}};
    const tg_inspect::Subject s = subject(bundle ? kMlpBundle : "transformer", sizes);
    // What the report's search should leave: the same rule, counted here.
    const std::string query = bundle ? "relu" : "softmax";
    size_t expected = 0;
    for (const tg_inspect::KernelRow& row : tg_inspect::kernelRows(s)) {
      std::string text = row.kind + " " + row.phase + " " + row.output + " " + row.site + " " +
                         s.kernel(row.index).wgsl;
      for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (text.find(query) != std::string::npos) ++expected;
    }
    ASSERT_GT(expected, 0u);
    ASSERT_LT(expected, s.kernels.size());
    const Result check = checkReport(report, query);
    ASSERT_EQ(check.status, 0) << check.out;
    const nlohmann::json j = nlohmann::json::parse(check.out.substr(check.out.rfind('{')));
    EXPECT_TRUE(j["errors"].empty()) << j["errors"].dump();
    EXPECT_EQ(j["graphNodes"].get<size_t>(), s.ir.graph.ops.size());
    EXPECT_EQ(j["kernels"].get<size_t>(), s.kernels.size());
    EXPECT_EQ(j["visibleAfterSearch"].get<size_t>(), expected);
    EXPECT_TRUE(j["detailWgsl"].get<bool>());
    EXPECT_TRUE(j["detailSpirv"].get<bool>());
    EXPECT_GT(j["highlighted"].get<int>(), 0);
    EXPECT_EQ(j["upstreamTab"].get<bool>(), bundle);
    if (bundle) {
      EXPECT_TRUE(j["upstreamWgsl"].get<bool>());
    }
  }
}

// ---- bad input: a clear message and exit status 2 ----

void expectBadInput(const std::string& args, const std::string& message) {
  const Result r = inspect(args);
  EXPECT_EQ(r.status, 2) << args << ": " << r.out;
  EXPECT_NE(r.out.find(message), std::string::npos) << args << ": " << r.out;
}

TEST(InspectBadInput, ExitsTwoNamingTheProblem) {
  expectBadInput("summary resnet50",
                 "unknown model 'resnet50'; the sample models are: mlp-sin, transformer");
  expectBadInput("summary transformer --width 3", "model 'transformer' has no size 'width'");
  expectBadInput("summary transformer --d many", "--d takes an integer, not 'many'");
  expectBadInput("summary transformer --d -4", "size d = -4 is out of range");
  expectBadInput("wgsl mlp-sin 63",
                 "kernel 63 is out of range: mlp-sin (batch=256 hidden=64) has 63 kernels (0..62)");
  expectBadInput("spirv " + kBundle + " 100000", "kernel 100000 is out of range");
  expectBadInput("wgsl mlp-sin", "give a kernel index");
  expectBadInput("summary /nonexistent/model.tgbundle.json", "cannot read the bundle");
  const fs::path bad = scratch("bad") / "broken.tgbundle.json";
  std::ofstream(bad) << "{\"format\": \"tgbundle\", \"version\": 1";
  expectBadInput("summary " + bad.string(), bad.string());
  // A directory under a regular file can never be created, even as root.
  expectBadInput("wgsl mlp-sin --all -o " + bad.string() + "/kernels",
                 "cannot create the output directory");
  expectBadInput("html mlp-sin -o " + bad.string() + "/report.html", "cannot write");
  expectBadInput("graph mlp-sin --format png", "--format");
  expectBadInput("frobnicate",
                 "unknown subcommand 'frobnicate'; the subcommands are: models, summary");
}

}  // namespace
