// Structure: DCE prunes backward work nobody consumes; buffer pooling never aliases live tensors
// (the pooled plan evaluates to the same values as one buffer per tensor); JSON export.
#include <gtest/gtest.h>

#include <set>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/transformer.h>
#include "cpu_trainer.h"


namespace {

int countKind(const tg::Graph& g, tg::OpKind kind) {
  return static_cast<int>(
      std::count_if(g.ops.begin(), g.ops.end(), [&](const tg::Op& op) { return op.kind == kind; }));
}

// A frozen weight passed as an input: autograd emits its dW matmul, DCE must drop it.
struct Frozen : tg::Module {
  tg::Linear l{*this, "l", 4, 3};
};
tg::Tensor frozenLoss(const Frozen& m, const tg::Inputs& in) {
  const tg::Tensor h = tg::matmul(in["x"], in["frozen"]);  // [2,4]·[4,4]
  return tg::mean(m.l.fwd(h));
}

TEST(Dce, RemovesBackwardWorkNobodyConsumes) {
  Frozen model;
  tg::Graph g = tg::traceFn([&] {
    const tg::Tensor w = tg::paramInput("l.W", {4, 3});
    const tg::Tensor x = tg::tensorInput("x", {2, 4});
    const tg::Tensor frozen = tg::tensorInput("frozen", {4, 4});
    const tg::Tensor unused = tg::exp(x);  // forward work that reaches nothing
    (void)unused;
    return std::vector<tg::Tensor>{tg::mean(tg::matmul(tg::matmul(x, frozen), w))};
  });
  const tg::GradResult grads = tg::appendGrad(g);
  const int matmulsBefore = countKind(g, tg::OpKind::Matmul);
  std::vector<int> roots;
  for (const auto& [name, id] : grads.paramGrads) roots.push_back(id);
  tg::eliminateDeadCode(g, roots);
  // Backward adds dH, dW, dx, dfrozen; only dW (and the forward 2) survive, and exp is pruned.
  EXPECT_EQ(matmulsBefore, 6);
  EXPECT_EQ(countKind(g, tg::OpKind::Matmul), 3);
  EXPECT_EQ(countKind(g, tg::OpKind::Exp), 0);
  EXPECT_EQ(countKind(g, tg::OpKind::TensorInput), 2);  // named leaves always stay

  const tg::CompiledIR ir =
      tg::trace(tg::TrainingSpec<Frozen>{.model = model,
                                         .loss = frozenLoss,
                                         .inputs = {{"x", {{2, 4}}}, {"frozen", {{4, 4}}}},
                                         .optimizer = tg::SGD{},
                                         .seed = 1});
  EXPECT_EQ(countKind(ir.graph, tg::OpKind::Matmul),
            3);  // forward 2 + dW; no adjoint for the frozen input
}

tg::EvalInputs mlpInputs(const tg::CompiledIR& ir) {
  tg_test::SineBatches data;
  tg::EvalInputs env;
  for (auto& [name, values] : tg::initialParams(ir, 42)) {
    const auto it = std::find_if(ir.params.begin(), ir.params.end(),
                                 [&](const auto& p) { return p->path == name; });
    env.params[name] = tg::HostTensor::f32((*it)->shape, values);
  }
  for (auto& [name, t] : data.next(256)) env.inputs[name] = t;
  env.inputs["_adam_lrt"] = tg::HostTensor::f32({}, {0.005f});
  return env;
}

TEST(BufferPlan, PoolingNeverAliasesLiveTensors) {
  tg_models::MLP model;
  const tg::CompiledIR ir = tg::trace(tg_models::mlpSpec(model));
  const tg::EvalInputs env = mlpInputs(ir);
  const tg::BufferPlan pooled =
      tg::planBuffers(ir.graph, ir.paramGrads, ir.optimizer.writebacks, true);
  const tg::BufferPlan separate =
      tg::planBuffers(ir.graph, ir.paramGrads, ir.optimizer.writebacks, false);
  EXPECT_LT(pooled.buffers.size(), separate.buffers.size());
  EXPECT_LT(pooled.bytesOf(tg::BufferSpec::Kind::Intermediate),
            separate.bytesOf(tg::BufferSpec::Kind::Intermediate));

  const auto reference = tg::evaluate(ir.graph, env);
  const auto a = tg::evaluatePlanned(ir.graph, pooled, env);
  // Every tensor that outlives the step (loss, grads, writeback sources) has its value.
  const auto check = [&](int tensorId) {
    const auto& got = a[static_cast<size_t>(pooled.tensorToBuffer[static_cast<size_t>(tensorId)])];
    EXPECT_EQ(got.f, reference[static_cast<size_t>(tensorId)].f) << "tensor " << tensorId;
  };
  check(ir.output);
  for (const auto& [name, id] : ir.paramGrads) check(id);
  for (const auto& w : ir.optimizer.writebacks) check(w.source);
}

// The fast set's plan: a reshape's plain intermediate output lives in its input's buffer, which
// pooling then keeps until the alias's last reader; values match one buffer per tensor.
TEST(BufferPlan, AliasedReshapesShareTheirInputsBufferAndKeepValues) {
  tg_models::MLP model;
  const tg::CompiledIR ir = tg::trace(tg_models::mlpSpec(model));
  const tg::EvalInputs env = mlpInputs(ir);
  const tg::BufferPlan plan =
      tg::planBuffers(ir.graph, ir.paramGrads, ir.optimizer.writebacks, true, true);
  const auto bufferOf = [&](int t) { return plan.tensorToBuffer[static_cast<size_t>(t)]; };
  size_t aliased = 0;
  for (const tg::Op& op : ir.graph.ops) {
    if (op.kind == tg::OpKind::Reshape && bufferOf(op.out) == bufferOf(op.inputs[0])) ++aliased;
  }
  EXPECT_EQ(aliased, static_cast<size_t>(countKind(ir.graph, tg::OpKind::Reshape)));
  EXPECT_GT(aliased, 0u);
  // No kernel copies an aliased reshape: one runs only as the last member of a fused group.
  for (const tg::KernelSpec& k : tg::emitKernels(ir.graph, plan, {.kernels = tg::KernelSet::Fast}))
    EXPECT_FALSE(k.kind == tg::OpKind::Reshape && !k.wgsl.empty() && k.fusedOps.size() < 2) << k.wgsl;

  const auto reference = tg::evaluate(ir.graph, env);
  const auto a = tg::evaluatePlanned(ir.graph, plan, env);
  const auto check = [&](int tensorId) {
    EXPECT_EQ(a[static_cast<size_t>(bufferOf(tensorId))].f, reference[static_cast<size_t>(tensorId)].f)
        << "tensor " << tensorId;
  };
  check(ir.output);
  for (const auto& [name, id] : ir.paramGrads) check(id);
  // The fused optimizer writes its new values over their destinations: no buffer keeps them.
  EXPECT_EQ(plan.inPlace.size(), ir.optimizer.writebacks.size());
  EXPECT_TRUE(plan.writebacks.empty());
}

TEST(BufferPlan, ReportsBytesAndKeepsNamedBuffers) {
  tg_models::MLP model;
  const tg::CompiledIR ir = tg::trace(tg_models::mlpSpec(model));
  EXPECT_EQ(ir.plan.paramsByName.size(), 6u);
  EXPECT_EQ(ir.plan.statesByName.size(), 12u);  // Adam m and v per param
  EXPECT_EQ(ir.plan.writebacks.size(), 18u);
  EXPECT_EQ(ir.plan.bytesOf(tg::BufferSpec::Kind::Param), (64 + 64 + 64 * 64 + 64 + 64 + 1) * 4);
  EXPECT_NE(ir.plan.report().find("bytes planned"), std::string::npos);
}

TEST(Json, UsesUpstreamFieldNames) {
  tg_models::MLP model;
  const tg::CompiledIR ir = tg::trace(tg_models::mlpSpec(model));
  const nlohmann::json j = tg::graphToJson(ir.graph);
  ASSERT_EQ(j["ops"].size(), ir.graph.ops.size());
  EXPECT_EQ(j["ops"][0], (nlohmann::json{{"kind", "param_input"}, {"out", 0}, {"name", "l1.W"}}));
  bool sawMatmul = false, sawAdamP = false;
  for (const auto& op : j["ops"]) {
    if (op["kind"] == "matmul") sawMatmul = op.contains("a") && op.contains("b");
    if (op["kind"] == "adam_update_p") {
      sawAdamP = op.contains("mNew") && op.contains("vNew") && op.contains("lrt") &&
                 op["decayShrinkTensor"].is_null() && op["eps"] == 1e-8;
    }
  }
  EXPECT_TRUE(sawMatmul);
  EXPECT_TRUE(sawAdamP);
  EXPECT_EQ(j["tensors"][0]["shape"], (std::vector<int64_t>{1, 64}));
  EXPECT_EQ(j["tensors"][0]["dtype"], "f32");
}

}  // namespace

namespace {

TEST(Codegen, DispatchSplitsPast65535WorkgroupsIntoTwoDimensions) {
  tg::KernelSpec k;
  k.threads = 256;
  EXPECT_EQ(k.dispatch(), (std::array<uint32_t, 2>{1, 1}));
  k.threads = 65535LL * 256;
  EXPECT_EQ(k.dispatch(), (std::array<uint32_t, 2>{65535, 1}));
  k.threads = 65535LL * 256 + 1;
  EXPECT_EQ(k.dispatch(), (std::array<uint32_t, 2>{65535, 2}));
  k.threads = 0;
  EXPECT_EQ(k.dispatch(), (std::array<uint32_t, 2>{0, 0}));
}

TEST(Codegen, KernelsBindInputsFirstAndBakeShapes) {
  tg_models::MLP model;
  const tg::CompiledIR ir = tg::trace(tg_models::mlpSpec(model));
  const auto& kernels = ir.kernels;
  ASSERT_EQ(kernels.size(), ir.graph.ops.size());
  for (const tg::KernelSpec& k : kernels) {
    const tg::Op& op = ir.graph.ops[static_cast<size_t>(k.opIndex)];
    if (k.wgsl.empty()) {
      EXPECT_TRUE(op.kind == tg::OpKind::ParamInput || op.kind == tg::OpKind::TensorInput ||
                  op.kind == tg::OpKind::StateInput);
      continue;
    }
    ASSERT_EQ(k.bindings.size(), op.inputs.size() + 1);
    EXPECT_EQ(k.bindings.back(), ir.plan.tensorToBuffer[static_cast<size_t>(op.out)]);
    EXPECT_NE(k.wgsl.find("var<storage, read_write> out"), std::string::npos);
    // Upstream dispatches its one-value constant as a single invocation, everything else in
    // workgroups of 256.
    const bool single = op.kind == tg::OpKind::ConstScalar;
    EXPECT_EQ(k.workgroupSize, single ? 1 : 256);
    EXPECT_NE(k.wgsl.find(single ? "@workgroup_size(1)" : "@workgroup_size(256)"), std::string::npos);
    EXPECT_EQ(k.wgsl.find("arrayLength"), std::string::npos);  // sizes are baked in
  }
  // Identical ops on identical shapes emit identical WGSL (the runtime dedupes pipelines by text).
  std::set<std::string> distinct;
  for (const auto& k : kernels) {
    if (!k.wgsl.empty()) distinct.insert(k.wgsl);
  }
  EXPECT_LT(distinct.size(), 63u);
}

}  // namespace

namespace {

// Every pair of kernels that touch one buffer with at least one write keeps its order and lands
// on different levels; each dispatching kernel appears once; exactly the last binding is written.
void expectScheduleRespectsHazards(const tg::CompiledIR& ir, int maxLevels) {
  const auto& kernels = ir.kernels;
  const tg::DispatchSchedule s = tg::scheduleDispatches(kernels);
  std::vector<int> position(kernels.size(), -1);
  for (size_t p = 0; p < s.order.size(); ++p) position[s.order[p]] = static_cast<int>(p);
  size_t dispatching = 0;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (kernels[i].wgsl.empty()) continue;
    ++dispatching;
    const std::string& w = kernels[i].wgsl;
    const size_t rw = w.find("read_write");
    EXPECT_NE(rw, std::string::npos);
    EXPECT_EQ(w.find("read_write", rw + 1), std::string::npos) << "kernel " << i << " writes twice";
    EXPECT_NE(w.find("@binding(" + std::to_string(kernels[i].bindings.size() - 1) + ") var<storage, read_write>"),
              std::string::npos) << w;
  }
  EXPECT_EQ(s.order.size(), dispatching);
  auto writes = [&](size_t k, int b) { return kernels[k].bindings.back() == b; };
  auto touches = [&](size_t k, int b) {
    return std::find(kernels[k].bindings.begin(), kernels[k].bindings.end(), b) != kernels[k].bindings.end();
  };
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (position[i] < 0) continue;
    for (size_t j = i + 1; j < kernels.size(); ++j) {
      if (position[j] < 0) continue;
      const int wi = kernels[i].bindings.back(), wj = kernels[j].bindings.back();
      if (touches(j, wi) || (touches(i, wj) && writes(j, wj))) {
        ASSERT_LT(position[i], position[j]) << i << " vs " << j;
        ASSERT_LT(s.level[i], s.level[j]) << i << " vs " << j;
      }
    }
  }
  EXPECT_LE(s.levels, maxLevels);
  std::printf("  %zu dispatches in %d levels\n", dispatching, s.levels);
}

TEST(Schedule, LevelsRespectEveryBufferHazardAndCutBarriers) {
  tg_models::MLP mlp;
  expectScheduleRespectsHazards(tg::trace(tg_models::mlpSpec(mlp)), 50);
  tg_models::Transformer transformer;
  expectScheduleRespectsHazards(tg::trace(tg_models::transformerSpec(transformer)), 700);
}

// The transformer's weight gradients (matmuls over the 1024 rows of the batch) only feed the
// optimizer, so they can wait: the schedule gathers them into a few shared levels instead of one
// level each (a level lasts as long as its slowest kernel). Its bias gradients sum the same rows
// with a workgroup per output, as upstream does, so their threads loop 4 times, not 1024.
TEST(Schedule, GathersSlowKernelsIntoSharedLevels) {
  tg_models::Transformer transformer;
  const tg::CompiledIR ir = tg::trace(tg_models::transformerSpec(transformer));
  const tg::DispatchSchedule s = tg::scheduleDispatches(ir.kernels);
  std::set<int> slowLevels;
  int slow = 0;
  for (size_t k = 0; k < ir.kernels.size(); ++k) {
    if (ir.kernels[k].wgsl.empty() || ir.kernels[k].loopLength < 1024) continue;
    ++slow;
    slowLevels.insert(s.level[k]);
  }
  std::printf("  %d kernels loop over 1024 values, in %zu levels of %d\n", slow, slowLevels.size(), s.levels);
  EXPECT_EQ(slow, 18);
  EXPECT_LE(slowLevels.size(), 14u);
}

// Within a level the kernels with the most work (threads × loop length) dispatch first, so a
// long product takes the GPU before the short kernels beside it; levels stay in order.
TEST(Schedule, ALevelDispatchesItsLongestWorkFirst) {
  tg_models::Transformer transformer;
  const tg::CompiledIR ir = tg::trace(tg_models::transformerSpec(transformer));
  const tg::DispatchSchedule s = tg::scheduleDispatches(ir.kernels);
  const auto work = [&](size_t k) {
    return static_cast<double>(ir.kernels[k].threads) * static_cast<double>(ir.kernels[k].loopLength);
  };
  size_t reordered = 0;  // levels whose op order was not their work order
  for (size_t p = 1; p < s.order.size(); ++p) {
    const size_t a = s.order[p - 1], b = s.order[p];
    ASSERT_LE(s.level[a], s.level[b]);
    if (s.level[a] != s.level[b]) continue;
    EXPECT_GE(work(a), work(b)) << "kernels " << a << " and " << b << " of level " << s.level[a];
    reordered += a > b;
  }
  EXPECT_GT(reordered, 0u);
}

}  // namespace

TEST(CancellingPermutes, AnUnreadSecondPermuteStaysWhereThePlanReadsIt) {
  // w's gradient is swapAxes(swapAxes(·)) of the product's: after the pass nothing reads that
  // second swap, which goes unless something outside the ops (a parameter gradient) reads it.
  const auto build = [] {
    tg::Graph g = tg::traceFn([] {
      const tg::Tensor w = tg::paramInput("w", {3, 4});
      const tg::Tensor x = tg::paramInput("x", {4, 3});
      return std::vector<tg::Tensor>{
          tg::sum(tg::matmul(tg::swapAxes(tg::swapAxes(w, 0, 1), 0, 1), x))};
    });
    const tg::GradResult grads = tg::appendGrad(g);
    int dw = -1;
    for (const auto& [name, t] : grads.paramGrads)
      if (name == "w") dw = t;
    return std::make_pair(g, dw);
  };
  auto [kept, dw] = build();
  ASSERT_GE(dw, 0);
  ASSERT_TRUE(kept.tensor(dw).source);
  ASSERT_EQ(kept.producer(dw).kind, tg::OpKind::Permute);
  tg::readThroughCancellingPermutes(kept, {dw});
  ASSERT_TRUE(kept.tensor(dw).source);
  EXPECT_EQ(kept.producer(dw).kind, tg::OpKind::Permute);
  auto [dropped, same] = build();
  tg::readThroughCancellingPermutes(dropped);
  EXPECT_FALSE(dropped.tensor(same).source);
  // The product reads w itself either way.
  for (const tg::Graph* g : {&kept, &dropped}) {
    for (const tg::Op& op : g->ops) {
      if (op.kind == tg::OpKind::Matmul && g->tensor(op.out).shape == tg::Shape{3, 3}) {
        EXPECT_EQ(g->producer(op.inputs[0]).kind, tg::OpKind::ParamInput);
      }
    }
  }
}
