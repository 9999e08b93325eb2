#include "tensorgrad/json.h"

#include "../ops/op_registry.h"

namespace tg {
namespace {

nlohmann::json attrValue(std::string_view field, const OpAttrs& a) {
  if (field == "name") return a.name;
  if (field == "initValue") return a.initValue;
  if (field == "scalar") return a.scalar;
  if (field == "p") return a.p;
  if (field == "salt") return a.salt;
  if (field == "shape" || field == "newShape" || field == "targetShape" || field == "outShape")
    return a.shape;
  if (field == "perm") return a.perm;
  if (field == "axis") return a.axis;
  if (field == "start") return a.start;
  if (field == "end") return a.end;
  if (field == "depth") return a.depth;
  if (field == "n") return a.n;
  if (field == "dtype") return std::string(dtypeName(a.dtype));
  if (field == "value") return a.value;
  if (field == "fillValue") return a.fillValue;
  if (field == "beta1" || field == "beta2") return a.beta;
  if (field == "eps") return a.eps;
  if (field == "decayShrink") return a.decayShrink;
  if (field == "strideH") return a.strideH;
  if (field == "strideW") return a.strideW;
  if (field == "padH") return a.padH;
  if (field == "padW") return a.padW;
  if (field == "groups") return a.groups;
  if (field == "kH") return a.kH;
  if (field == "kW") return a.kW;
  if (field == "inH") return a.inH;
  if (field == "inW") return a.inW;
  throw std::logic_error("graphToJson: unknown attribute field '" + std::string(field) + "'");
}

}  // namespace

nlohmann::json graphToJson(const Graph& graph) {
  nlohmann::json ops = nlohmann::json::array();
  for (const Op& op : graph.ops) {
    const detail::OpDef& def = detail::opDef(op.kind);
    nlohmann::json j = {{"kind", def.name}, {"out", op.out}};
    if (def.variadic) {
      j[std::string(def.inputNames[0])] = op.inputs;
    } else {
      for (size_t i = 0; i < def.inputNames.size(); ++i) {
        const std::string field(def.inputNames[i]);
        if (i < op.inputs.size())
          j[field] = op.inputs[i];
        else
          j[field] = nullptr;  // optional input absent (adam_update_p's decayShrinkTensor)
      }
    }
    for (std::string_view field : def.attrNames) j[std::string(field)] = attrValue(field, op.attrs);
    ops.push_back(std::move(j));
  }
  nlohmann::json tensors = nlohmann::json::array();
  for (const TensorInfo& t : graph.tensors) {
    tensors.push_back({{"id", t.id},
                       {"shape", t.shape},
                       {"dtype", dtypeName(t.dtype)},
                       {"source", t.source ? nlohmann::json(*t.source) : nlohmann::json(nullptr)}});
  }
  nlohmann::json captures = nlohmann::json::object();
  for (const auto& [name, id] : graph.captures) captures[name] = id;
  return {{"ops", ops}, {"tensors", tensors}, {"outputs", graph.outputs}, {"captures", captures}};
}

nlohmann::json planToJson(const BufferPlan& plan) {
  nlohmann::json buffers = nlohmann::json::array();
  for (const BufferSpec& b : plan.buffers) {
    nlohmann::json j = {
        {"id", b.id},
        {"byteSize", b.byteSize},
        {"dtype", dtypeName(b.dtype)},
        {"shape", b.shape},
        {"kind", bufferKindName(b.kind)},
        {"name", b.name.empty() ? nlohmann::json(nullptr) : nlohmann::json(b.name)}};
    if (b.kind == BufferSpec::Kind::State) j["initValue"] = b.initValue;
    buffers.push_back(std::move(j));
  }
  nlohmann::json writebacks = nlohmann::json::array();
  for (const Writeback& w : plan.writebacks)
    writebacks.push_back({{"source", w.source}, {"dest", w.dest}, {"bytes", w.bytes}});
  return {{"buffers", buffers},
          {"tensorToBuffer", plan.tensorToBuffer},
          {"writebacks", writebacks},
          {"totalBytes", plan.totalBytes()}};
}

}  // namespace tg
