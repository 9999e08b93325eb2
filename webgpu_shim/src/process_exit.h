// Vulkan teardown when the process exits.
//
// A program's namespace-scope handles (`wgpu::Device device;` at file scope, as Dawn's samples
// write them) are destroyed by exit handlers registered before main ran. A Vulkan driver loaded
// later (at the first instance) registers its own static destructors then, and exit handlers run
// in reverse order of registration: the driver's run first. Chromium's SwiftShader tears down its
// statics there, so a vkDestroyDevice afterwards crashed, joining a queue thread that touched
// them. The shim therefore registers an exit handler of its own once the first device exists
// (after the driver, and what it set up for that device, registered theirs), which runs before
// the driver's: it stores the pipeline caches that grew (the one teardown step with an effect
// outside the process), and from then on destructors make no Vulkan call. The process is ending;
// the OS takes back what the driver held.
#pragma once

namespace wgpu::detail {

class DeviceImpl;

// Registers the exit handler (once per process).
void WatchProcessExit();
// True once the exit handler has run: destructors must leave Vulkan objects alone.
bool ProcessExiting();
// The devices alive now, whose pipeline caches the exit handler stores.
void TrackLiveDevice(DeviceImpl* device);
void UntrackLiveDevice(DeviceImpl* device);

}  // namespace wgpu::detail
