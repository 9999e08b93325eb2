// Where a training step's GPU time goes: every kernel of the step timed alone, grouped by op kind
// (tg-inspect's profile; see tensorgrad/tools/inspect/profile.cpp for the method).
//
//   kernel_costs [MODEL] [--fuse] [--fast] [--unpooled] [--reps N] [--tsv FILE]
// MODEL is a sample model's name (default transformer; `mlp` is mlp-sin). --tsv writes one row
// per kernel (op order): its cost, level in the runtime's schedule and bindings, for studying
// schedules offline. `tg-inspect profile` does the same with sizes and JSON.
#include <cstdio>
#include <cstring>
#include <string>

#include "inspect.h"

int main(int argc, char** argv) {
  tg_inspect::SourceOptions source{.source = "transformer"};
  tg_inspect::ProfileOptions options{.reps = 50};
  const char* tsv = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--fuse"))
      source.fuse = true;
    else if (!std::strcmp(argv[i], "--fast"))
      source.fast = true;
    else if (!std::strcmp(argv[i], "--unpooled"))
      source.pool = false;
    else if (!std::strcmp(argv[i], "--tsv") && i + 1 < argc)
      tsv = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      options.reps = static_cast<uint32_t>(std::atoi(argv[++i]));
    else if (argv[i][0] == '-') {
      std::fprintf(stderr,
                   "usage: kernel_costs [MODEL] [--fuse] [--fast] [--unpooled] [--reps N] [--tsv FILE]\n");
      return 2;
    } else
      source.source = std::strcmp(argv[i], "mlp") ? argv[i] : "mlp-sin";
  }
  try {
    const tg_inspect::Subject s = tg_inspect::loadSubject(source);
    const tg_inspect::Profile p = tg_inspect::profileKernels(s, options);
    if (tsv) {
      FILE* f = std::fopen(tsv, "w");
      if (!f) {
        std::perror(tsv);
        return 1;
      }
      std::fprintf(f, "kernel\tkind\tlevel\tthreads\tus\toutput\tinputs\tbindings\n");
      const std::vector<tg_inspect::KernelRow> rows = tg_inspect::kernelRows(s);
      for (const tg_inspect::KernelCost& c : p.kernels) {
        const tg_inspect::KernelRow& r = rows[c.index];
        std::string inputs, bindings;
        for (int t : s.opOf(c.index).inputs)
          inputs += tg_inspect::shapeText(s.ir.graph.tensor(t).shape);
        for (int b : r.bindings) bindings += (bindings.empty() ? "" : " ") + std::to_string(b);
        std::fprintf(f, "%zu\t%s\t%d\t%lld\t%.3f\t%s\t%s\t%s\n", s.kernels[c.index], r.kind.c_str(),
                     r.level, static_cast<long long>(r.threads), c.us, r.output.c_str(),
                     inputs.c_str(), bindings.c_str());
      }
      std::fclose(f);
    }
    std::fputs(tg_inspect::profileText(s, p).c_str(), stdout);
  } catch (const tg_inspect::InputError& e) {
    std::fprintf(stderr, "kernel_costs: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kernel_costs: %s\n", e.what());
    return 1;
  }
  return 0;
}
