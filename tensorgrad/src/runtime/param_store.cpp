#include "param_store.h"

#include <cstring>
#include <stdexcept>

#include "../codegen/fold_optimizer.h"
#include "feed.h"

namespace tg::detail {

void checkBindable(const GpuContext& gpu, const std::string& tensor, const Shape& shape,
                   int64_t bytes) {
  const auto limit = std::min(gpu.limits.maxStorageBufferBindingSize, gpu.limits.maxBufferSize);
  if (static_cast<uint64_t>(bytes) > limit) {
    throw CompileError("tensorgrad: tensor '" + tensor + "' " + showShape(shape) + " needs " +
                       std::to_string(bytes) + " bytes, over this device's " +
                       (limit == gpu.limits.maxBufferSize ? "maxBufferSize"
                                                          : "maxStorageBufferBindingSize") +
                       " (" + std::to_string(limit) + " on " + gpu.adapterName +
                       "). Shrink the batch or the model, or run on an adapter with higher limits.");
  }
}

ParamStore::ParamStore(GpuContext& gpu,
                       const std::vector<std::shared_ptr<const ParamDecl>>& params, bool packed) {
  std::vector<int64_t> bytes;
  for (const auto& p : params) {
    bytes.push_back(shapeSize(p->shape) * 4);
    checkBindable(gpu, p->path, p->shape, bytes.back());
  }
  ArenaLayout layout;
  if (packed) {
    layout = layoutArenas(bytes);
  } else {  // an arena per parameter
    for (size_t i = 0; i < bytes.size(); ++i) {
      layout.places.push_back({static_cast<int>(i), 0});
      layout.arenaBytes.push_back(bytes[i]);
    }
  }
  std::vector<wgpu::Buffer> arenas;
  for (size_t a = 0; a < layout.arenaBytes.size(); ++a) {
    wgpu::BufferDescriptor bd;
    const std::string label = packed ? "param arena " + std::to_string(a) : params[a]->path;
    bd.label = label;
    bd.size = static_cast<uint64_t>(layout.arenaBytes[a]);
    bd.usage = wgpu::BufferUsage::Storage | wgpu::BufferUsage::CopySrc | wgpu::BufferUsage::CopyDst;
    arenas.push_back(gpu.device.CreateBuffer(&bd));
  }
  for (size_t i = 0; i < params.size(); ++i) {
    const ArenaLayout::Place& at = layout.places[i];
    entries_.push_back({params[i]->path, params[i]->shape,
                        {arenas[static_cast<size_t>(at.arena)], static_cast<uint64_t>(at.offset),
                         static_cast<uint64_t>(bytes[i])}});
  }
}

const ParamStore::Place* ParamStore::find(const std::string& name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return &e.place;
  }
  return nullptr;
}

void ParamStore::upload(GpuContext& gpu, const ParamMap& values) const {
  std::string known;
  for (const Entry& e : entries_) known += (known.empty() ? "" : ", ") + e.name;
  for (const auto& [name, data] : values) {
    if (!find(name))
      throw std::invalid_argument("uploadParams: unknown param '" + name + "'. Known: " + known);
  }
  std::string missing;
  for (const Entry& e : entries_) {
    if (!values.count(e.name)) missing += (missing.empty() ? "" : ", ") + e.name;
  }
  if (!missing.empty()) throw std::invalid_argument("uploadParams: missing param(s): " + missing);
  for (const Entry& e : entries_) {
    const size_t n = values.at(e.name).size();
    if (n != static_cast<size_t>(shapeSize(e.shape))) {
      throw std::invalid_argument("uploadParams: '" + e.name + "' has " + std::to_string(n) +
                                  " elements, expected " + std::to_string(shapeSize(e.shape)) +
                                  " (shape " + showShape(e.shape) + ")");
    }
  }
  for (const Entry& e : entries_) {
    const auto& data = values.at(e.name);
    if (auto i = firstNonFinite(data.data(), data.size())) {
      throw std::invalid_argument(describeNonFinite("uploadParams: '" + e.name + "'", data.data(), *i) +
                                  "; nothing was uploaded");
    }
  }
  for (const Entry& e : entries_) {
    const auto& data = values.at(e.name);
    gpu.queue.WriteBuffer(e.place.buffer, e.place.offset, data.data(), data.size() * 4);
  }
}

void ParamStore::initialize(GpuContext& gpu, const CompiledIR& ir) const {
  ParamMap init;
  for (auto& [name, values] : initialParams(ir, ir.seed)) init[name] = std::move(values);
  upload(gpu, init);
}

ParamMap ParamStore::download(GpuContext& gpu) const {
  uint64_t total = 0;
  for (const Entry& e : entries_) total += e.place.bytes;
  ParamMap out;
  if (total == 0) {
    for (const Entry& e : entries_) out[e.name] = {};
    return out;
  }
  wgpu::BufferDescriptor sd;
  sd.label = "downloadParams";
  sd.size = total;
  sd.usage = wgpu::BufferUsage::MapRead | wgpu::BufferUsage::CopyDst;
  wgpu::Buffer staging = gpu.device.CreateBuffer(&sd);
  wgpu::CommandEncoder encoder = gpu.device.CreateCommandEncoder();
  uint64_t offset = 0;
  for (const Entry& e : entries_) {
    encoder.CopyBufferToBuffer(e.place.buffer, e.place.offset, staging, offset, e.place.bytes);
    offset += e.place.bytes;
  }
  wgpu::CommandBuffer commands = encoder.Finish();
  gpu.queue.Submit(1, &commands);
  bool mapped = false;
  gpu.wait(staging.MapAsync(wgpu::MapMode::Read, 0, total, wgpu::CallbackMode::WaitAnyOnly,
                            [&](wgpu::MapAsyncStatus s, std::string_view) {
                              mapped = s == wgpu::MapAsyncStatus::Success;
                            }));
  if (const std::string errors = gpu.takeErrors(); !mapped || !errors.empty())
    throw std::runtime_error("downloadParams: the readback failed: " + errors);
  const auto* bytes = static_cast<const char*>(staging.GetConstMappedRange(0, total));
  offset = 0;
  for (const Entry& e : entries_) {
    std::vector<float>& v = out[e.name];
    v.resize(e.place.bytes / 4);
    std::memcpy(v.data(), bytes + offset, e.place.bytes);
    offset += e.place.bytes;
  }
  staging.Unmap();
  return out;
}

}  // namespace tg::detail
