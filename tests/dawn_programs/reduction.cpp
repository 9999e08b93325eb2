// A sum reduction with workgroup memory (var<workgroup> + workgroupBarrier), written as a program
// for Dawn's webgpu_cpp.h is written: the same WGSL pipeline runs twice, 65,536 values into 64
// partial sums and those into one, and the total is read back with MapAsync + WaitAny and
// compared with the CPU's sum. It must build against the shim unchanged.
#include <webgpu/webgpu_cpp.h>
#include <webgpu/webgpu_cpp_print.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <vector>

wgpu::Instance instance;
wgpu::Adapter adapter;
wgpu::Device device;

// Each invocation sums a strided slice of the input, then the workgroup folds its 256 sums in
// shared memory; invocation 0 writes the workgroup's total.
const char kReduceWGSL[] = R"(
struct Params {
  n : u32,
}

@group(0) @binding(0) var<storage, read> input : array<f32>;
@group(0) @binding(1) var<storage, read_write> output : array<f32>;
@group(0) @binding(2) var<uniform> params : Params;

const kWorkgroupSize = 256u;
var<workgroup> partial : array<f32, kWorkgroupSize>;

@compute @workgroup_size(kWorkgroupSize)
fn main(@builtin(local_invocation_id) lid : vec3u,
        @builtin(workgroup_id) wid : vec3u,
        @builtin(num_workgroups) groups : vec3u) {
  var sum = 0.0;
  let stride = kWorkgroupSize * groups.x;
  for (var i = wid.x * kWorkgroupSize + lid.x; i < params.n; i += stride) {
    sum += input[i];
  }
  partial[lid.x] = sum;
  workgroupBarrier();

  for (var offset = kWorkgroupSize / 2u; offset > 0u; offset /= 2u) {
    if (lid.x < offset) {
      partial[lid.x] += partial[lid.x + offset];
    }
    workgroupBarrier();
  }

  if (lid.x == 0u) {
    output[wid.x] = partial[0];
  }
}
)";

void Init() {
  static const auto kTimedWaitAny = wgpu::InstanceFeatureName::TimedWaitAny;
  wgpu::InstanceDescriptor instanceDesc{.requiredFeatureCount = 1,
                                        .requiredFeatures = &kTimedWaitAny};
  instance = wgpu::CreateInstance(&instanceDesc);

  wgpu::Future f1 = instance.RequestAdapter(
      nullptr, wgpu::CallbackMode::WaitAnyOnly,
      [](wgpu::RequestAdapterStatus status, wgpu::Adapter a, wgpu::StringView message) {
        if (status != wgpu::RequestAdapterStatus::Success) {
          std::cout << "RequestAdapter: " << message << "\n";
          exit(1);
        }
        adapter = std::move(a);
      });
  instance.WaitAny(f1, UINT64_MAX);

  wgpu::DeviceDescriptor desc{};
  desc.SetUncapturedErrorCallback(
      [](const wgpu::Device&, wgpu::ErrorType errorType, wgpu::StringView message) {
        std::cout << "Error: " << errorType << " - message: " << message << "\n";
        exit(1);
      });

  wgpu::Future f2 = adapter.RequestDevice(
      &desc, wgpu::CallbackMode::WaitAnyOnly,
      [](wgpu::RequestDeviceStatus status, wgpu::Device d, wgpu::StringView message) {
        if (status != wgpu::RequestDeviceStatus::Success) {
          std::cout << "RequestDevice: " << message << "\n";
          exit(1);
        }
        device = std::move(d);
      });
  instance.WaitAny(f2, UINT64_MAX);
}

wgpu::Buffer CreateBuffer(const char* label, uint64_t size, wgpu::BufferUsage usage) {
  wgpu::BufferDescriptor desc{.label = label, .usage = usage, .size = size};
  return device.CreateBuffer(&desc);
}

int main() {
  Init();

  constexpr uint32_t kCount = 65536;
  constexpr uint32_t kPartials = 64;
  // Small integers: every partial sum is exact in f32, so the GPU's order of additions gives
  // the CPU's total bit for bit.
  std::vector<float> values(kCount);
  double expected = 0;
  for (uint32_t i = 0; i < kCount; ++i) {
    values[i] = static_cast<float>((i * 7u) % 13u);
    expected += values[i];
  }

  const wgpu::BufferUsage storage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopyDst;
  wgpu::Buffer input = CreateBuffer("input", kCount * sizeof(float), storage);
  wgpu::Buffer partials = CreateBuffer("partials", kPartials * sizeof(float), storage);
  wgpu::Buffer total = CreateBuffer("total", sizeof(float), storage | wgpu::BufferUsage::CopySrc);
  wgpu::Buffer readback = CreateBuffer("readback", sizeof(float),
                                       wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst);
  const wgpu::BufferUsage uniform = wgpu::BufferUsage::Uniform | wgpu::BufferUsage::CopyDst;
  wgpu::Buffer countAll = CreateBuffer("n = count", 16, uniform);
  wgpu::Buffer countPartials = CreateBuffer("n = partials", 16, uniform);

  wgpu::Queue queue = device.GetQueue();
  queue.WriteBuffer(input, 0, values.data(), kCount * sizeof(float));
  queue.WriteBuffer(countAll, 0, &kCount, sizeof(kCount));
  queue.WriteBuffer(countPartials, 0, &kPartials, sizeof(kPartials));

  wgpu::ShaderSourceWGSL wgsl{{.code = kReduceWGSL}};
  wgpu::ShaderModuleDescriptor shaderModuleDescriptor{.nextInChain = &wgsl};
  wgpu::ShaderModule shaderModule = device.CreateShaderModule(&shaderModuleDescriptor);
  wgpu::ComputePipelineDescriptor pipelineDesc{.compute = {.module = shaderModule}};
  wgpu::ComputePipeline pipeline = device.CreateComputePipeline(&pipelineDesc);

  wgpu::BindGroupEntry firstEntries[] = {
      {.binding = 0, .buffer = input},
      {.binding = 1, .buffer = partials},
      {.binding = 2, .buffer = countAll},
  };
  wgpu::BindGroupDescriptor firstDesc{
      .layout = pipeline.GetBindGroupLayout(0), .entryCount = 3, .entries = firstEntries};
  wgpu::BindGroup first = device.CreateBindGroup(&firstDesc);
  wgpu::BindGroupEntry secondEntries[] = {
      {.binding = 0, .buffer = partials},
      {.binding = 1, .buffer = total},
      {.binding = 2, .buffer = countPartials},
  };
  wgpu::BindGroupDescriptor secondDesc{
      .layout = pipeline.GetBindGroupLayout(0), .entryCount = 3, .entries = secondEntries};
  wgpu::BindGroup second = device.CreateBindGroup(&secondDesc);

  wgpu::CommandEncoder encoder = device.CreateCommandEncoder();
  wgpu::ComputePassEncoder pass = encoder.BeginComputePass();
  pass.SetPipeline(pipeline);
  pass.SetBindGroup(0, first);
  pass.DispatchWorkgroups(kPartials);
  pass.SetBindGroup(0, second);
  pass.DispatchWorkgroups(1);
  pass.End();
  encoder.CopyBufferToBuffer(total, 0, readback, 0, sizeof(float));
  wgpu::CommandBuffer commands = encoder.Finish();
  queue.Submit(1, &commands);

  wgpu::Future mapFuture =
      readback.MapAsync(wgpu::MapMode::Read, 0, sizeof(float), wgpu::CallbackMode::WaitAnyOnly,
                        [](wgpu::MapAsyncStatus status, wgpu::StringView message) {
                          if (status != wgpu::MapAsyncStatus::Success) {
                            std::cout << "MapAsync: " << status << " - " << message << "\n";
                            exit(1);
                          }
                        });
  instance.WaitAny(mapFuture, UINT64_MAX);

  const float sum = *static_cast<const float*>(readback.GetConstMappedRange(0, sizeof(float)));
  readback.Unmap();
  std::cout << "reduction: GPU sum " << sum << ", CPU sum " << expected << "\n";
  if (static_cast<double>(sum) != expected) {
    std::cout << "reduction: sums differ\n";
    return 1;
  }
  std::cout << "reduction: sums match\n";
  return 0;
}
