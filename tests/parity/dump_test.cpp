// TENSORGRAD_DUMP end to end: a user's program (dump_program.cpp) run under the variables leaves
// one folder per compile, named after the function that computed it, with every kernel's WGSL
// (and SPIR-V and GLSL when asked), the plan and a bundle the tools open; a second run numbers on;
// a dump that cannot be written is said once on stderr and the program still runs.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <tensorgrad/bundle.h>

#include "shell.h"

namespace fs = std::filesystem;

namespace {

using test_support::Shell;
using test_support::shell;

fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / ("tg_dump_test_" + std::to_string(::getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

Shell runProgram(const std::string& env, const std::string& args = "") {
  return shell("env TENSORGRAD_CACHE_DIR='" + std::string(TG_TEST_CACHE_DIR) + "' " + env + " " +
               TG_DUMP_PROGRAM + " " + args);
}

std::vector<std::string> entries(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const fs::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

size_t countOf(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = 0; (at = text.find(needle, at)) != std::string::npos; at += needle.size()) ++n;
  return n;
}

TEST(Dump, EveryCompileLeavesAFolderTheToolsOpen) {
  const fs::path dir = scratch("tree");
  Shell r = runProgram("TENSORGRAD_DUMP='" + dir.string() + "' TENSORGRAD_DUMP_SHADERS=spirv,glsl");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.find("tensorgrad:"), std::string::npos) << "no complaint expected:\n" << r.out;
  // The training, the attached forward at its first run's shape, the standalone forward.
  ASSERT_EQ(entries(dir), (std::vector<std::string>{"000-tinyLoss-train", "001-tinyPredict-forward",
                                                    "002-tinyPredict-forward"}));

  const fs::path train = dir / "000-tinyLoss-train";
  EXPECT_EQ(entries(train),
            (std::vector<std::string>{"bundle.tgbundle.json", "compile.txt", "kernels",
                                      "kernels.txt", "plan.json", "plan.txt"}));
  const std::vector<std::string> kernels = entries(train / "kernels");
  std::set<std::string> stems, extensions;
  for (const std::string& k : kernels) {
    stems.insert(fs::path(k).stem().string());
    extensions.insert(fs::path(k).extension().string());
  }
  EXPECT_EQ(extensions, (std::set<std::string>{".glsl", ".spvasm", ".wgsl"}));
  EXPECT_EQ(kernels.size(), 3 * stems.size()) << "each kernel in each form";
  EXPECT_TRUE(stems.count("0000_matmul")) << kernels.front();
  EXPECT_NE(read(train / "kernels" / "0000_matmul.wgsl").find("@compute"), std::string::npos);
  EXPECT_NE(read(train / "kernels" / "0000_matmul.spvasm").find("OpEntryPoint GLCompute"),
            std::string::npos);
  EXPECT_NE(read(train / "kernels" / "0000_matmul.glsl").find("void main"), std::string::npos);
  // One row per dispatched kernel (and a header), the plan, where the model came from.
  const std::string table = read(train / "kernels.txt");
  EXPECT_EQ(countOf(table, "\n"), stems.size() + 1) << table;
  EXPECT_NE(table.find("dump_program.cpp:"), std::string::npos) << table;
  EXPECT_NE(read(train / "plan.txt").find("schedule: " + std::to_string(stems.size()) + " kernels"),
            std::string::npos);
  const std::string about = read(train / "compile.txt");
  EXPECT_NE(about.find("a training (compile)"), std::string::npos) << about;
  EXPECT_NE(about.find("dump_program.cpp:"), std::string::npos) << about;
  EXPECT_NE(about.find("tg-inspect summary " + (train / "bundle.tgbundle.json").string()),
            std::string::npos)
      << about;

  // The bundle is the training: its seed, its graph, and tg-inspect opens it.
  const tg::Bundle b = tg::loadBundle(train / "bundle.tgbundle.json");
  EXPECT_EQ(b.seed, 3u);
  EXPECT_EQ(b.paramNames, (std::vector<std::string>{"hidden.W", "hidden.b", "out.W", "out.b"}));
  r = shell(std::string(TG_INSPECT) + " kernels " + (train / "bundle.tgbundle.json").string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(countOf(r.out, "\n"), stems.size() + 1) << r.out;
  EXPECT_NE(r.out.find("tinyLoss"), std::string::npos) << r.out;
  // The folder itself names its bundle; one without (a standalone forward's) is bad input.
  const Shell byFolder = shell(std::string(TG_INSPECT) + " kernels " + train.string());
  EXPECT_EQ(byFolder.status, 0) << byFolder.out;
  EXPECT_EQ(byFolder.out, r.out);
  r = shell(std::string(TG_INSPECT) + " summary " + (dir / "002-tinyPredict-forward").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("without a bundle.tgbundle.json"), std::string::npos) << r.out;

  // The attached forward's bundle is the training's with the forward at the run's shape.
  const tg::Bundle attached =
      tg::loadBundle(dir / "001-tinyPredict-forward" / "bundle.tgbundle.json");
  ASSERT_EQ(attached.forwards.size(), 1u);
  EXPECT_EQ(attached.forwards[0].name, "tinyPredict");
  EXPECT_EQ(attached.forwards[0].inputs.at(0).second.shape, (tg::Shape{1, 2}));
  // The standalone forward has no training: its graph instead.
  const fs::path alone = dir / "002-tinyPredict-forward";
  EXPECT_TRUE(fs::exists(alone / "graph.json"));
  EXPECT_FALSE(fs::exists(alone / "bundle.tgbundle.json"));
  EXPECT_TRUE(fs::exists(alone / "kernels" / "0000_matmul.wgsl"));
  EXPECT_TRUE(fs::exists(alone / "kernels" / "0000_matmul.spvasm"));

  // A second run into the same folder numbers on and overwrites nothing.
  r = runProgram("TENSORGRAD_DUMP='" + dir.string() + "'");
  ASSERT_EQ(r.status, 0) << r.out;
  const std::vector<std::string> after = entries(dir);
  ASSERT_EQ(after.size(), 6u);
  EXPECT_EQ(after[3], "003-tinyLoss-train");
  EXPECT_FALSE(fs::exists(dir / "003-tinyLoss-train" / "kernels" / "0000_matmul.spvasm"))
      << "shaders only when TENSORGRAD_DUMP_SHADERS asks";
  fs::remove_all(dir.parent_path());
}

// Under the fast kernel set the folder holds the kernels the compile runs, the bundle upstream's;
// replaceModel is a compile of its own.
TEST(Dump, TheFolderHoldsTheCompilesKernelsAndTheBundleUpstreams) {
  const fs::path dir = scratch("fast");
  const Shell fast = runProgram("TENSORGRAD_DUMP='" + dir.string() + "'", "--fast");
  ASSERT_EQ(fast.status, 0) << fast.out;
  ASSERT_EQ(entries(dir), (std::vector<std::string>{"000-tinyLoss-train", "001-tinyLoss-train"}));
  const fs::path train = dir / "000-tinyLoss-train";
  EXPECT_NE(read(train / "compile.txt").find("the fast set (KernelSet::Fast)"), std::string::npos);
  EXPECT_NE(read(train / "compile.txt").find("--fast"), std::string::npos)
      << "the tg-inspect commands say --fast";
  const tg::Bundle b = tg::loadBundle(train / "bundle.tgbundle.json");
  std::set<std::string> dumped, upstream;
  for (const auto& e : fs::directory_iterator(train / "kernels")) dumped.insert(read(e.path()));
  for (const tg::UpstreamKernel& k : b.kernels)
    if (!k.wgsl.empty()) upstream.insert(k.wgsl);
  EXPECT_NE(dumped, upstream) << "the fast set's kernels are not upstream's";
  EXPECT_LT(dumped.size(), upstream.size()) << "the fast set fuses";
  EXPECT_EQ(tg::loadBundle(dir / "001-tinyLoss-train" / "bundle.tgbundle.json").seed, 4u)
      << "the replacement";
  fs::remove_all(dir.parent_path());
}

TEST(Dump, AnUnwritableDumpIsSaidOnceAndTheProgramRuns) {
  const fs::path dir = scratch("unwritable");
  std::ofstream(dir / "file") << "not a directory";
  const Shell r = runProgram("TENSORGRAD_DUMP='" + (dir / "file" / "dump").string() + "'");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("loss "), std::string::npos) << r.out;
  EXPECT_EQ(countOf(r.out, "could not dump"), 1u) << r.out;
  EXPECT_NE(r.out.find("TENSORGRAD_DUMP=" + (dir / "file" / "dump").string()), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("dumping is off for the rest of this process"), std::string::npos) << r.out;
  fs::remove_all(dir.parent_path());
}

TEST(Dump, UnsetDumpsNothing) {
  const fs::path dir = scratch("unset");
  const Shell r =
      shell("cd '" + dir.string() + "' && env -u TENSORGRAD_DUMP TENSORGRAD_CACHE_DIR='" +
            std::string(TG_TEST_CACHE_DIR) + "' " + TG_DUMP_PROGRAM);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(entries(dir).empty());
  fs::remove_all(dir.parent_path());
}

}  // namespace
