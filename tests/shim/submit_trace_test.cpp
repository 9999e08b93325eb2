// WEBGPU_SHIM_SUBMIT_TRACE (webgpu_shim/src/submit_trace.h): a device opened with it set writes a
// row for every submission, with the GPU's timestamps of its start and end, in the order the GPU
// ran them; a device opened without it writes nothing.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "shim_test.h"

namespace {

using shim_test::ShimTest;

struct Row {
  long long serial = 0, submitted = 0, seenDone = 0, gpuStart = 0, gpuEnd = 0;
};

std::vector<Row> ReadRows(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "serial,submitted_ns,seen_done_ns,gpu_start_ns,gpu_end_ns");
  std::vector<Row> rows;
  while (std::getline(in, line)) {
    Row r;
    char comma = 0;
    std::istringstream s(line);
    s >> r.serial >> comma >> r.submitted >> comma >> r.seenDone >> comma >> r.gpuStart >> comma >>
        r.gpuEnd;
    EXPECT_TRUE(s) << "row '" << line << "' has no GPU times";
    rows.push_back(r);
  }
  return rows;
}

TEST_F(ShimTest, SubmitTraceWritesEachSubmissionsTimeline) {
  const std::string name = "submit_trace_" + std::to_string(getpid());
  const std::filesystem::path dir = testing::TempDir();
  const auto files = [&] {
    std::vector<std::filesystem::path> found;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      if (e.path().filename().string().starts_with(name + ".")) found.push_back(e.path());
    return found;
  };
  ASSERT_EQ(setenv("WEBGPU_SHIM_SUBMIT_TRACE", (dir / name).c_str(), 1), 0);
  wgpu::Device traced = MakeDevice();
  unsetenv("WEBGPU_SHIM_SUBMIT_TRACE");
  ASSERT_TRUE(traced);
  const wgpu::Device untraced = MakeDevice();
  ASSERT_EQ(files().size(), 1u) << "one traced device, one file";

  device = traced;
  queue = device.GetQueue();
  const std::vector<float> values(4096, 1.0f);
  const wgpu::Buffer a = Upload(values, wgpu::BufferUsage::Storage);
  const wgpu::Buffer b = MakeBuffer(values.size() * 4, wgpu::BufferUsage::Storage);
  const wgpu::ComputePipeline pipeline = Pipeline(shim_test::Kernel("float", "b[i] = a[i] + 1.0;"));
  const wgpu::BindGroup group = Group(pipeline, 0, {a, b});
  constexpr int kDispatches = 3;
  for (int i = 0; i < kDispatches; ++i) {
    DispatchOne(pipeline, group);
    WaitIdle();  // each seen complete before the next is submitted
  }

  const std::vector<Row> rows = ReadRows(files().at(0));
  ASSERT_GE(rows.size(), static_cast<size_t>(kDispatches));  // the upload's copy may add one
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    EXPECT_GE(r.gpuEnd, r.gpuStart) << "row " << i;
    EXPECT_GE(r.seenDone, r.submitted) << "row " << i;
    if (i == 0) continue;
    EXPECT_GT(r.serial, rows[i - 1].serial) << "row " << i;
    EXPECT_GE(r.gpuStart, rows[i - 1].gpuEnd) << "row " << i << " ran before row " << i - 1 << " ended";
  }
  for (const auto& f : files()) std::filesystem::remove(f);
}

}  // namespace
