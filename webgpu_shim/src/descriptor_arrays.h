// Reading Dawn-shaped descriptors: arrays come as a count and a pointer, which may only be null
// when the count is 0. A null pointer behind a nonzero count is a WebGPU validation error that
// names both fields, never a read through null.
#pragma once

#include <optional>
#include <span>
#include <string>

namespace wgpu::detail {

// The `count` elements at `data`; nullopt, with `*error` set, when `data` is null but `count`
// is not 0.
template <typename T>
std::optional<std::span<const T>> DescriptorArray(const T* data, size_t count, const char* field,
                                                  const char* countField, std::string* error) {
  if (count == 0) return std::span<const T>();
  if (data == nullptr) {
    *error =
        std::string(field) + " is null but " + countField + " is " + std::to_string(count) + ".";
    return std::nullopt;
  }
  return std::span<const T>(data, count);
}

}  // namespace wgpu::detail
