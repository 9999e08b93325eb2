// Common base of every shim object: its label, its validity and how error messages name it.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace wgpu::detail {

class DeviceImpl;

class ObjectBase {
 public:
  ObjectBase(std::shared_ptr<DeviceImpl> device, const char* typeName, std::string_view label)
      : device_(std::move(device)), typeName_(typeName), label_(label) {}
  virtual ~ObjectBase() = default;
  ObjectBase(const ObjectBase&) = delete;
  ObjectBase& operator=(const ObjectBase&) = delete;

  // `[Buffer "weights"]`, or `[Buffer (unlabeled)]`, as Dawn names objects in messages.
  std::string Name() const {
    if (label_.empty()) return std::string("[") + typeName_ + " (unlabeled)]";
    return std::string("[") + typeName_ + " \"" + label_ + "\"]";
  }
  const std::string& Label() const { return label_; }
  void SetLabel(std::string_view label) { label_ = label; }
  bool IsValid() const { return valid_; }
  void MarkInvalid() { valid_ = false; }
  DeviceImpl& Device() const { return *device_; }
  const std::shared_ptr<DeviceImpl>& DevicePtr() const { return device_; }

 protected:
  std::shared_ptr<DeviceImpl> device_;

 private:
  const char* typeName_;
  std::string label_;
  bool valid_ = true;
};

// Dawn's message for an object used with a device other than its own:
// `[Buffer "x"] is associated with [Device "a"], and cannot be used with [Device "b"].`
std::string ForeignDeviceMessage(const ObjectBase& object, const DeviceImpl& used);

}  // namespace wgpu::detail
