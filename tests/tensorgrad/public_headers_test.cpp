// Every public header, compiled as a user compiles it: -Wall -Wextra -Wpedantic -Wshadow -Werror
// and none of the project's own warning exceptions (tests/tensorgrad/CMakeLists.txt). GCC 12's
// -Wmissing-field-initializers fires on a designated initializer that leaves out a member
// without a default member initializer, so each option struct below is written the way the
// README writes it, naming one or two members, and the others must come out at their defaults.
#include <tensorgrad/bundle.h>
#include <tensorgrad/codegen.h>
#include <tensorgrad/compile.h>
#include <tensorgrad/cpu_eval.h>
#include <tensorgrad/errors.h>
#include <tensorgrad/grad.h>
#include <tensorgrad/init.h>
#include <tensorgrad/ir.h>
#include <tensorgrad/json.h>
#include <tensorgrad/lr.h>
#include <tensorgrad/module.h>
#include <tensorgrad/nn.h>
#include <tensorgrad/ops.h>
#include <tensorgrad/optim.h>
#include <tensorgrad/parity.h>
#include <tensorgrad/parity_gtest.h>
#include <tensorgrad/passes.h>
#include <tensorgrad/runtime.h>
#include <tensorgrad/safetensors.h>
#include <tensorgrad/schedule.h>
#include <tensorgrad/single_flight.h>
#include <tensorgrad/tensor.h>
#include <tensorgrad/tensorgrad.h>
#include <tensorgrad/trace.h>
#include <webgpu/webgpu_cpp.h>
#include <wgsl_subset/wgsl_subset.h>

#include <gtest/gtest.h>

namespace {

struct Tiny : tg::Module {
  tg::Linear l{*this, "l", 2, 1, {.bias = false}};
};
tg::Tensor fwd(const Tiny& m, const tg::Inputs& in) {
  return m.l.fwd(in["x"]);
}

TEST(PublicHeaders, LayerAndOpOptionsTakeDesignatedInitializers) {
  const tg::ParamOptions param{.dtype = tg::Dtype::I32};
  EXPECT_FALSE(param.init.has_value());
  EXPECT_FALSE(param.decay.has_value());
  const tg::LinearOptions linear{.bias = false};
  EXPECT_FALSE(linear.init.has_value());
  EXPECT_FALSE(linear.decay.has_value());
  const tg::LayerNormOptions layerNorm{.bias = false};
  EXPECT_EQ(layerNorm.eps, 1e-5);
  const tg::RMSNormOptions rmsNorm{.eps = 1e-5};
  EXPECT_FALSE(rmsNorm.decay);
  const tg::EmbeddingOptions embedding{.decay = false};
  EXPECT_FALSE(embedding.init.has_value());
  const tg::Conv2dLayerOptions convLayer{.padding = 1};
  EXPECT_EQ(convLayer.stride, tg::Size2(1));
  EXPECT_FALSE(convLayer.init.has_value());
  const tg::LossOptions loss{.reduction = tg::Reduction::Sum};
  EXPECT_EQ(loss.reduction, tg::Reduction::Sum);
  const tg::ReduceOptions reduce{.keepDims = true};
  EXPECT_TRUE(reduce.keepDims);
  const tg::RopeOptions rope{.base = 500};
  EXPECT_EQ(rope.base, 500);
  const tg::Conv2dOptions conv{.stride = {2, 1}};
  EXPECT_EQ(conv.padding, tg::Size2(0));
  EXPECT_EQ(conv.groups, 1);
  const tg::MaxPool2dOptions pool{.padding = 1};
  EXPECT_FALSE(pool.stride.has_value());
  const tg::init::Randn randn{.scale = 0.1};
  EXPECT_EQ(randn.scale, 0.1);
  const tg::init::Kaiming kaiming{.gain = 1};
  EXPECT_EQ(kaiming.gain, 1);
}

TEST(PublicHeaders, SpecsAndRuntimeOptionsTakeDesignatedInitializers) {
  const Tiny model;
  const tg::InputDecl decl{.shape = {4, 2}};
  EXPECT_EQ(decl.dtype, tg::Dtype::F32);
  const tg::TrainingSpec<Tiny> training{.model = model, .loss = fwd, .seed = 42};
  EXPECT_TRUE(training.inputs.empty());
  EXPECT_TRUE(std::holds_alternative<tg::Adam>(training.optimizer));
  const tg::ForwardSpec<Tiny> forward{.model = model, .forward = fwd};
  EXPECT_FALSE(forward.seed.has_value());
  EXPECT_EQ(forward.maxCachedShapes, 8u);
  const tg::AttachSpec<Tiny> attach{.forward = fwd};
  EXPECT_EQ(attach.output, tg::Dtype::F32);
  const tg::RuntimeOptions runtime{.cacheDir = "none"};
  EXPECT_TRUE(runtime.device.empty());
  EXPECT_FALSE(runtime.poolBuffers.has_value());
  EXPECT_FALSE(runtime.emit.fuseElementwise);
  const tg::EmitOptions emit{.fuseElementwise = true};
  EXPECT_TRUE(emit.fuseElementwise);
  const tg::ResetOptions reset{.params = false};
  EXPECT_TRUE(reset.optimizer);
  const tg::ReplaceOptions replace{.seed = 42};
  EXPECT_FALSE(replace.optimizer.has_value());
  const tg::lr::Linear linear{.peak = 1, .final = 0, .steps = 10};
  EXPECT_FALSE(linear.startStep.has_value());
  const tg::lr::Staircase staircase{.peak = 1, .every = 5, .gamma = 0.5};
  EXPECT_FALSE(staircase.startStep.has_value());
  const tg::parity::Tolerance tolerance{.exact = false, .rtol = 1e-5};
  EXPECT_TRUE(tolerance.accepts(1.0f, 1.000001f));
  const tg::parity::RunOptions run{.steps = 3};
  EXPECT_TRUE(run.tolerance.exact);
  const tg::parity::DiffOptions diff{.step = 2};
  EXPECT_EQ(diff.node, "node");
  const tg::HostTensor host{.shape = {2}, .f = {1, 2}};
  EXPECT_EQ(host.dtype, tg::Dtype::F32);
  const wgsl::Options translate{.validate = false};
  EXPECT_FALSE(translate.validate);
}

}  // namespace

namespace {

// The shim's descriptors as Dawn's samples write them: designated initializers naming a few
// members, nested ones and the Init forms included.
TEST(PublicHeaders, WebGpuDescriptorsTakeDesignatedInitializers) {
  const wgpu::BufferDescriptor buffer{.usage = wgpu::BufferUsage::Storage, .size = 16};
  const wgpu::BindGroupEntry entry{.binding = 1, .size = 4};
  const wgpu::BindGroupLayoutEntry layoutEntry{
      .binding = 0, .visibility = wgpu::ShaderStage::Compute, .buffer = {.type = wgpu::BufferBindingType::Storage}};
  const wgpu::BindGroupDescriptor group{.entryCount = 1, .entries = &entry};
  const wgpu::ComputePipelineDescriptor pipeline{.compute = {.entryPoint = "main"}};
  const wgpu::ShaderSourceWGSL wgsl{{.code = "@compute @workgroup_size(1) fn main() {}"}};
  const wgpu::ShaderModuleDescriptor module{.nextInChain = &wgsl};
  const wgpu::Limits limits{.maxBindGroups = 4};
  const wgpu::DeviceDescriptor device{{.label = "d"}};
  const wgpu::RequestAdapterOptions adapter{.powerPreference = wgpu::PowerPreference::HighPerformance};
  const wgpu::CommandEncoderDescriptor encoder{.label = "e"};
  EXPECT_EQ(buffer.size, 16u);
  EXPECT_FALSE(buffer.mappedAtCreation);
  EXPECT_EQ(entry.offset, 0u);
  EXPECT_EQ(layoutEntry.buffer.type, wgpu::BufferBindingType::Storage);
  EXPECT_EQ(group.entries, &entry);
  EXPECT_EQ(std::string_view(pipeline.compute.entryPoint), "main");
  EXPECT_EQ(module.nextInChain, &wgsl);
  EXPECT_EQ(limits.maxBindGroups, 4u);
  EXPECT_EQ(std::string_view(device.label), "d");
  EXPECT_EQ(adapter.powerPreference, wgpu::PowerPreference::HighPerformance);
  EXPECT_EQ(std::string_view(encoder.label), "e");
}

}  // namespace
