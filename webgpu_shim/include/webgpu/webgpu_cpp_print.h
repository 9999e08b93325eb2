// Stream output for StringView and the enums of webgpu_cpp.h, as Dawn's header of the same name
// provides: `std::cout << "Error: " << type << " - " << message` prints
// "Error: ErrorType::Validation - <message>". Flags print as "BufferUsage::(MapRead|CopyDst)".
#pragma once

#include <webgpu/webgpu_cpp.h>

#include <initializer_list>
#include <ios>
#include <ostream>
#include <string_view>
#include <type_traits>
#include <utility>

namespace wgpu {

namespace detail {

template <typename E>
using EnumNames = std::initializer_list<std::pair<E, std::string_view>>;

// "Type::Name", or "Type::0x0007" for a value without a name.
template <typename CharT, typename Traits, typename E>
std::basic_ostream<CharT, Traits>& PrintEnum(std::basic_ostream<CharT, Traits>& o,
                                             std::string_view type, E value, EnumNames<E> names) {
  o << type << "::";
  for (const auto& [v, name] : names)
    if (v == value) return o << name;
  const auto flags = o.flags();
  o << "0x" << std::hex << static_cast<uint64_t>(value);
  o.flags(flags);
  return o;
}

}  // namespace detail

template <typename CharT, typename Traits>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& o,
                                              StringView value) {
  return o << std::string_view(value);
}

#define WGPU_SHIM_PRINT_ENUM(E, ...)                                                         \
  template <typename CharT, typename Traits>                                                 \
  std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& o, E v) { \
    using enum E;                                                                            \
    return detail::PrintEnum<CharT, Traits, E>(o, #E, v, {__VA_ARGS__});                     \
  }
#define WGPU_SHIM_NAME(x) \
  { x, #x }

WGPU_SHIM_PRINT_ENUM(Status, WGPU_SHIM_NAME(Success), WGPU_SHIM_NAME(Error))
WGPU_SHIM_PRINT_ENUM(WaitStatus, WGPU_SHIM_NAME(Success), WGPU_SHIM_NAME(TimedOut),
                     WGPU_SHIM_NAME(Error))
WGPU_SHIM_PRINT_ENUM(CallbackMode, WGPU_SHIM_NAME(WaitAnyOnly), WGPU_SHIM_NAME(AllowProcessEvents),
                     WGPU_SHIM_NAME(AllowSpontaneous))
WGPU_SHIM_PRINT_ENUM(MapAsyncStatus, WGPU_SHIM_NAME(Success), WGPU_SHIM_NAME(CallbackCancelled),
                     WGPU_SHIM_NAME(Error), WGPU_SHIM_NAME(Aborted))
WGPU_SHIM_PRINT_ENUM(PopErrorScopeStatus, WGPU_SHIM_NAME(Success),
                     WGPU_SHIM_NAME(CallbackCancelled), WGPU_SHIM_NAME(Error))
WGPU_SHIM_PRINT_ENUM(RequestAdapterStatus, WGPU_SHIM_NAME(Success),
                     WGPU_SHIM_NAME(CallbackCancelled), WGPU_SHIM_NAME(Unavailable),
                     WGPU_SHIM_NAME(Error))
WGPU_SHIM_PRINT_ENUM(RequestDeviceStatus, WGPU_SHIM_NAME(Success),
                     WGPU_SHIM_NAME(CallbackCancelled), WGPU_SHIM_NAME(Error))
WGPU_SHIM_PRINT_ENUM(QueueWorkDoneStatus, WGPU_SHIM_NAME(Success),
                     WGPU_SHIM_NAME(CallbackCancelled), WGPU_SHIM_NAME(Error))
WGPU_SHIM_PRINT_ENUM(CreatePipelineAsyncStatus, WGPU_SHIM_NAME(Success),
                     WGPU_SHIM_NAME(CallbackCancelled), WGPU_SHIM_NAME(ValidationError),
                     WGPU_SHIM_NAME(InternalError))
WGPU_SHIM_PRINT_ENUM(CompilationInfoRequestStatus, WGPU_SHIM_NAME(Success),
                     WGPU_SHIM_NAME(CallbackCancelled))
WGPU_SHIM_PRINT_ENUM(CompilationMessageType, WGPU_SHIM_NAME(Error), WGPU_SHIM_NAME(Warning),
                     WGPU_SHIM_NAME(Info))
WGPU_SHIM_PRINT_ENUM(DeviceLostReason, WGPU_SHIM_NAME(Unknown), WGPU_SHIM_NAME(Destroyed),
                     WGPU_SHIM_NAME(CallbackCancelled), WGPU_SHIM_NAME(FailedCreation))
WGPU_SHIM_PRINT_ENUM(ErrorType, WGPU_SHIM_NAME(NoError), WGPU_SHIM_NAME(Validation),
                     WGPU_SHIM_NAME(OutOfMemory), WGPU_SHIM_NAME(Internal), WGPU_SHIM_NAME(Unknown))
WGPU_SHIM_PRINT_ENUM(ErrorFilter, WGPU_SHIM_NAME(Validation), WGPU_SHIM_NAME(OutOfMemory),
                     WGPU_SHIM_NAME(Internal))
WGPU_SHIM_PRINT_ENUM(BufferMapState, WGPU_SHIM_NAME(Unmapped), WGPU_SHIM_NAME(Pending),
                     WGPU_SHIM_NAME(Mapped))
WGPU_SHIM_PRINT_ENUM(PowerPreference, WGPU_SHIM_NAME(Undefined), WGPU_SHIM_NAME(LowPower),
                     WGPU_SHIM_NAME(HighPerformance))
WGPU_SHIM_PRINT_ENUM(FeatureLevel, WGPU_SHIM_NAME(Undefined), WGPU_SHIM_NAME(Compatibility),
                     WGPU_SHIM_NAME(Core))
WGPU_SHIM_PRINT_ENUM(AdapterType, WGPU_SHIM_NAME(DiscreteGPU), WGPU_SHIM_NAME(IntegratedGPU),
                     WGPU_SHIM_NAME(CPU), WGPU_SHIM_NAME(Unknown))
WGPU_SHIM_PRINT_ENUM(BackendType, WGPU_SHIM_NAME(Undefined), WGPU_SHIM_NAME(Null),
                     WGPU_SHIM_NAME(WebGPU), WGPU_SHIM_NAME(D3D11), WGPU_SHIM_NAME(D3D12),
                     WGPU_SHIM_NAME(Metal), WGPU_SHIM_NAME(Vulkan), WGPU_SHIM_NAME(OpenGL),
                     WGPU_SHIM_NAME(OpenGLES))
WGPU_SHIM_PRINT_ENUM(BufferBindingType, WGPU_SHIM_NAME(BindingNotUsed), WGPU_SHIM_NAME(Undefined),
                     WGPU_SHIM_NAME(Uniform), WGPU_SHIM_NAME(Storage),
                     WGPU_SHIM_NAME(ReadOnlyStorage))
WGPU_SHIM_PRINT_ENUM(InstanceFeatureName, WGPU_SHIM_NAME(TimedWaitAny),
                     WGPU_SHIM_NAME(ShaderSourceSPIRV), WGPU_SHIM_NAME(MultipleDevicesPerAdapter))
WGPU_SHIM_PRINT_ENUM(FeatureName, WGPU_SHIM_NAME(CoreFeaturesAndLimits),
                     WGPU_SHIM_NAME(TimestampQuery), WGPU_SHIM_NAME(ShaderF16),
                     WGPU_SHIM_NAME(Subgroups))
WGPU_SHIM_PRINT_ENUM(QueryType, WGPU_SHIM_NAME(Occlusion), WGPU_SHIM_NAME(Timestamp))

#undef WGPU_SHIM_NAME
#undef WGPU_SHIM_PRINT_ENUM

// Flags: the set bits by name, in parentheses when there are several.
template <typename CharT, typename Traits>
std::basic_ostream<CharT, Traits>& operator<<(std::basic_ostream<CharT, Traits>& o,
                                              BufferUsage value) {
  const std::string names = ToString(value);
  const bool several = names.find('|') != std::string::npos;
  return o << "BufferUsage::" << (several ? "(" : "") << names << (several ? ")" : "");
}

}  // namespace wgpu
