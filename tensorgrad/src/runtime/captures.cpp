// Host arrays, captures and result names.
#include <stdexcept>

#include "tensorgrad/runtime.h"

namespace tg {

size_t Array::size() const {
  return std::visit([](const auto& v) { return v.size(); }, data_);
}

const void* Array::data() const {
  return std::visit([](const auto& v) -> const void* { return v.data(); }, data_);
}

const std::vector<float>& Array::f32() const {
  if (const auto* v = std::get_if<std::vector<float>>(&data_)) return *v;
  throw std::logic_error("Array::f32: the array holds i32 values (use i32())");
}

const std::vector<int32_t>& Array::i32() const {
  if (const auto* v = std::get_if<std::vector<int32_t>>(&data_)) return *v;
  throw std::logic_error("Array::i32: the array holds f32 values (use f32())");
}

std::string_view resultKindName(ResultKind kind) {
  switch (kind) {
    case ResultKind::Completed: return "completed";
    case ResultKind::Aborted: return "aborted";
    case ResultKind::Failed: return "failed";
  }
  return "?";
}

namespace {
std::string known(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
  return s.empty() ? "(none registered)" : s;
}
}  // namespace

std::vector<std::string> Captures::names() const {
  std::vector<std::string> out;
  for (const auto& [name, value] : data_) out.push_back(name);
  return out;
}

const Array& Captures::get(const std::string& name) const {
  auto it = data_.find(name);
  if (it == data_.end())
    throw std::out_of_range("Captures::get: '" + name + "' not present. Known: " + known(names()));
  return it->second;
}

const Shape& Captures::shape(const std::string& name) const {
  auto it = shapes_->find(name);
  if (it == shapes_->end()) {
    std::vector<std::string> all;
    for (const auto& [n, s] : *shapes_) all.push_back(n);
    throw std::out_of_range("Captures::shape: '" + name + "' not registered. Known: " + known(all));
  }
  return it->second;
}

std::vector<std::vector<float>> Captures::perHead(const std::string& name) const {
  const Array& flat = get(name);
  if (flat.dtype() != Dtype::F32)
    throw std::invalid_argument("Captures::perHead: '" + name + "' is i32; perHead supports f32 captures only");
  Shape s = shape(name);
  if (s.size() < 2) {
    throw std::invalid_argument("Captures::perHead: '" + name + "' has shape " + showShape(s) +
                                "; it needs at least 2 dims");
  }
  if (s[0] == 1) s.erase(s.begin());
  const auto heads = static_cast<size_t>(s[0]);
  const auto stride = static_cast<size_t>(shapeSize(s)) / std::max<size_t>(heads, 1);
  std::vector<std::vector<float>> out;
  for (size_t h = 0; h < heads; ++h) {
    out.emplace_back(flat.f32().begin() + static_cast<std::ptrdiff_t>(h * stride),
                     flat.f32().begin() + static_cast<std::ptrdiff_t>((h + 1) * stride));
  }
  return out;
}

}  // namespace tg
