// Differential verdicts: every file in differential/valid and differential/invalid goes through
// this translator and through Tint (Dawn for Node: createShaderModule + getCompilationInfo, then
// createComputePipeline), and both must give the verdict the directory names. The only allowed
// disagreement is an input outside the subset, which we must reject with "unsupported in this
// WGSL subset" while Tint accepts: each is listed in kUnsupported below (and a rule WebGPU checks
// at pipeline creation, which the shim enforces: kPipelineChecked).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "wgsl_subset/wgsl_subset.h"

namespace {

namespace fs = std::filesystem;

// Valid WGSL that this subset rejects on purpose (README: textures and samplers, and uniform
// buffers whose WGSL layout std140 cannot express, are outside it).
const std::set<std::string> kUnsupported = {
    "valid/texture_2d_unsupported.wgsl",
    "valid/uniform_mat3x2_array_unsupported.wgsl",
    "valid/binding_shared_unused_unsupported.wgsl",
    "valid/uniform_array_stride_4_unsupported.wgsl",
    "valid/abstract_int_above_2_pow_53_unsupported.wgsl"};

// Invalid only at pipeline creation (Tint's verdict includes createComputePipeline without
// constants): an override's workgroup size outside the limits, or an override without a default
// in @workgroup_size, which WebGPU checks with the pipeline's constants. The translator accepts
// the module and reflects the default (or its absence); the shim rejects such a pipeline
// (tests/shim/wgsl_module_test.cpp: OverriddenWorkgroupSize..., WorkgroupSizeOverrideExpr...).
const std::set<std::string> kPipelineChecked = {"invalid/workgroup_size_override_zero.wgsl",
                                                "invalid/workgroup_size_override_no_default.wgsl"};

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Differential, SameVerdictsAsTint) {
  const fs::path root = TG_WGSL_DIFFERENTIAL;
  std::vector<std::string> files;  // "valid/x.wgsl"
  for (const char* dir : {"valid", "invalid"}) {
    for (const auto& e : fs::directory_iterator(root / dir)) {
      if (e.path().extension() == ".wgsl")
        files.push_back(std::string(dir) + "/" + e.path().filename().string());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 80u);

  const fs::path out =
      fs::temp_directory_path() / ("tg_tint_verdicts_" + std::to_string(::getpid()) + ".json");
  std::string cmd = "cd '" + root.string() +
                    "' && EGL_PLATFORM=surfaceless XDG_RUNTIME_DIR=/tmp " TG_NODE
                    " tint_verdicts.mjs";
  for (const auto& f : files) cmd += " '" + f + "'";
  cmd += " > '" + out.string() + "' 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const nlohmann::json tint = nlohmann::json::parse(readFile(out));
  fs::remove(out);

  size_t exceptions = 0, pipelineChecked = 0;
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const bool expected = f.starts_with("valid/");
    ASSERT_TRUE(tint.contains(f)) << "no verdict from Tint";
    const bool tintOk = tint[f]["ok"].get<bool>();
    EXPECT_EQ(tintOk, expected) << "the corpus is labelled against Tint: "
                                << tint[f]["messages"].dump();
    const wgsl::Result r = wgsl::translate(readFile(root / f));
    if (kUnsupported.contains(f)) {
      ++exceptions;
      ASSERT_FALSE(r.ok()) << "listed as unsupported but accepted";
      EXPECT_NE(r.diagnostics[0].message.find("unsupported in this WGSL subset"), std::string::npos)
          << r.diagnostics[0].rendered;
      continue;
    }
    if (kPipelineChecked.contains(f)) {
      ++pipelineChecked;
      ASSERT_TRUE(r.ok()) << r.diagnostics[0].rendered;
      ASSERT_EQ(r.reflection.overrides.size(), 1u);
      const bool noDefault = r.reflection.computedCounts.size() == 1 &&
                             !r.reflection.computedCounts[0].defaultValue;
      EXPECT_TRUE(r.reflection.overrides[0].defaultValue.value_or(1) < 1.0 || noDefault);
      continue;
    }
    EXPECT_EQ(r.ok(), tintOk) << (r.ok() ? std::string("we accept; Tint says ") +
                                               tint[f]["messages"].dump()
                                         : "we reject: " + r.diagnostics[0].rendered);
    for (const auto& d : r.diagnostics) {  // a real diagnostic, never an internal error at 1:1
      EXPECT_EQ(d.message.find("internal error"), std::string::npos) << d.rendered;
      EXPECT_EQ(d.rendered.rfind(
                    "error: " + std::to_string(d.line) + ":" + std::to_string(d.column) + ": ", 0),
                0u);
    }
  }
  EXPECT_EQ(exceptions, kUnsupported.size());
  EXPECT_EQ(pipelineChecked, kPipelineChecked.size());
}

}  // namespace
