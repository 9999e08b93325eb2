// Modules own parameter declarations and child modules, and give them upstream's dotted names
// ("layers.0.attn.q.W"). C++ has no reflection, so a child names itself when it is constructed:
//
//   struct MLP : tg::Module {                         // class MLP extends Module {
//     tg::Linear l1{*this, "l1", 1, 64};              //   l1 = new Linear(1, 64)
//   };
//
// Members are constructed in declaration order, so the parameter order — which decides the
// init PRNG stream — is the declaration order, as in upstream. Tracing never mutates a module:
// a parameter resolves to the current trace's param_input through the trace's bindings (the
// role upstream's clone-before-trace plays).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tensorgrad/tensor.h"

namespace tg {

struct ParamOptions {
  Dtype dtype = Dtype::F32;
  std::optional<InitSpec> init{};  // default init::randn(0.02)
  std::optional<bool> decay{};   // default: true unless init is zeros/ones
};

class Module {
 public:
  Module() = default;                               // a root model
  Module(Module& parent, const std::string& name);  // a named child of `parent`
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  const std::string& path() const { return path_; }
  // Every parameter below this module, depth-first in declaration order.
  std::vector<std::shared_ptr<const ParamDecl>> parameters() const;

 protected:
  Tensor param(const std::string& name, const Shape& shape, ParamOptions opts = {});

 private:
  template <class M>
  friend class ModuleList;
  std::string childPath(const std::string& name) const {
    return path_.empty() ? name : path_ + "." + name;
  }

  struct Entry {
    std::shared_ptr<const ParamDecl> param;  // or
    const Module* child = nullptr;
  };
  std::vector<Entry> entries_;
  std::string path_;
};

// An array of child modules named by index, like a TypeScript array field.
template <class M>
class ModuleList : public Module {
 public:
  using Module::Module;
  template <class... Args>
  M& add(Args&&... args) {
    items_.push_back(
        std::make_unique<M>(*this, std::to_string(items_.size()), std::forward<Args>(args)...));
    return *items_.back();
  }
  M& operator[](size_t i) { return *items_.at(i); }
  const M& operator[](size_t i) const { return *items_.at(i); }
  size_t size() const { return items_.size(); }
  auto begin() { return items_.begin(); }
  auto end() { return items_.end(); }

 private:
  std::vector<std::unique_ptr<M>> items_;
};

}  // namespace tg
