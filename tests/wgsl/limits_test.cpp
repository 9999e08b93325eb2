// Input size must never drive the translator's recursion: expression depth is bounded as Tint
// bounds it ("reached max expression depth of 512"), statement nesting and else-if chains by the
// nesting limit, and a 4,000-function call chain translates without recursing on it. Each
// translation runs on a thread with a 1 MiB stack (8 MiB under AddressSanitizer, whose frames are
// several times larger), so an unbounded recursion crashes the test instead of passing by luck.
#include <gtest/gtest.h>
#include <pthread.h>

#include <string>

#include "wgsl_subset/wgsl_subset.h"

namespace {

wgsl::Result translateOnSmallStack(const std::string& source) {
  struct Job {
    const std::string* source;
    wgsl::Result result;
  } job{&source, {}};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
#if defined(__SANITIZE_ADDRESS__)
  constexpr size_t kStack = size_t{8} << 20;
#else
  constexpr size_t kStack = size_t{1} << 20;
#endif
  pthread_attr_setstacksize(&attr, kStack);
  pthread_t thread;
  const auto run = [](void* p) -> void* {
    auto* j = static_cast<Job*>(p);
    j->result = wgsl::translate(*j->source);
    return nullptr;
  };
  EXPECT_EQ(pthread_create(&thread, &attr, run, &job), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
  return job.result;
}

std::string kernel(const std::string& body) {
  return "@group(0) @binding(0) var<storage, read_write> b : array<f32>;\n"
         "@compute @workgroup_size(1) fn main() {\n" + body + "\n}\n";
}

std::string repeat(const std::string& s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

std::string plusChain(int terms) {
  std::string e = "x";
  for (int i = 1; i < terms; ++i) e += "+x";
  return kernel("var x = 1.0;\nb[0] = " + e + ";");
}

void expectDepthError(const std::string& source, uint32_t line, uint32_t column) {
  const wgsl::Result r = translateOnSmallStack(source);
  ASSERT_FALSE(r.ok());
  const wgsl::Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(d.message, "reached max expression depth of 512");
  EXPECT_EQ(d.line, line);
  EXPECT_EQ(d.column, column);
  EXPECT_EQ(d.rendered.rfind("error: " + std::to_string(line) + ":" + std::to_string(column) + ": ", 0), 0u);
}

TEST(Limits, LongFlatChainsHitTheExpressionDepthLimit) {
  // 1,500 terms in ~3 KB: the 514th term makes the tree 513 deep; the diagnostic points at its '+'.
  expectDepthError(plusChain(1500), 4, 7 + 2 * 513);
  expectDepthError(kernel("var v = vec4f();\nlet y = v" + repeat(".x", 20000) + ";"), 4, 8 + 2 * 513);
  expectDepthError(kernel("var v = vec4f();\nlet y = v" + repeat("[0]", 20000) + ";"), 4, 9 + 3 * 512 + 1);
  expectDepthError("struct S { s : vec4f }\n" +
                       kernel("var v = S();\nlet y = v" + repeat(".s", 1) + repeat(".xyzw", 600) + ";"),
                   5, 11 + 5 * 511 + 1);
}

TEST(Limits, DepthLimitMatchesTint) {  // Tint accepts depth 512 and rejects 513
  EXPECT_TRUE(translateOnSmallStack(plusChain(513)).ok());
  EXPECT_FALSE(translateOnSmallStack(plusChain(514)).ok());
  const std::string v = "var v = vec4f();\nlet y = v";
  EXPECT_TRUE(translateOnSmallStack(kernel(v + repeat(".xyzw", 512) + ";\nb[0] = y.x;")).ok());
  EXPECT_FALSE(translateOnSmallStack(kernel(v + repeat(".xyzw", 513) + ";\nb[0] = y.x;")).ok());
}

TEST(Limits, LongElseIfChainIsBounded) {
  std::string chain = "var x = 1;\nif x == 0 { x = 1; }";
  for (int i = 1; i < 20000; ++i) chain += " else if x == " + std::to_string(i) + " { x = 2; }";
  const wgsl::Result r = translateOnSmallStack(kernel(chain));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.diagnostics[0].message.find("nesting deeper than"), std::string::npos);
}

// 4,000 functions each calling the previous one. Translation time is measured, not asserted here
// (bench/RESULTS.md: 10.6 s before spirv-val ran on a copy without debug names, about 2.5 s after).
TEST(Limits, LongCallChainTranslates) {
  std::string src = "fn g0(x : u32) -> u32 { return x; }\n";
  for (int i = 1; i < 4000; ++i)
    src += "fn g" + std::to_string(i) + "(x : u32) -> u32 { return g" + std::to_string(i - 1) + "(x) + 1u; }\n";
  src += "@group(0) @binding(0) var<storage, read_write> b : array<u32>;\n"
         "@compute @workgroup_size(1) fn main() { b[0] = g3999(b[0]); }\n";
  const wgsl::Result r = translateOnSmallStack(src);
  ASSERT_TRUE(r.ok()) << wgsl::formatDiagnostics(r.diagnostics);
}

}  // namespace
