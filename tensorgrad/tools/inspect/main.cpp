// tg-inspect: what tensorgrad makes of a model — every kernel, its WGSL, SPIR-V and GLSL, the
// buffer plan, the schedule, the graph, per-kernel costs, the difference between two compiles,
// and all of it as one HTML file. See `tg-inspect --help` and the README's "Inspect a model".
#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <set>

#include "inspect.h"
#include <tensorgrad/models/registry.h>

namespace {

using tg_inspect::InputError;

// The source and compile options every subcommand takes; sample sizes arrive as extras.
struct SourceArgs {
  std::string source;
  bool fuse = false, unpooled = false, shared = false, fast = false, cpuDevice = false;
  int64_t workgroupBytes = 0;
  void add(CLI::App* cmd, const std::string& name = "source") {
    cmd->add_option(
           name, source,
           "a sample model's name (see `tg-inspect models`) or a graph bundle (.tgbundle.json: the "
           "browser's, tg::saveBundle's, or a TENSORGRAD_DUMP folder, which means its "
           "bundle.tgbundle.json)")
        ->required();
    cmd->add_flag("--fuse", fuse,
                  "fused element-wise kernels (RuntimeOptions::emit.fuseElementwise)");
    cmd->add_flag(
        "--unpooled", unpooled,
        "every intermediate in its own buffer instead of upstream's pooled plan");
    cmd->add_flag("--shared", shared,
                  "own buffers, then intermediates whose dispatch levels never meet share one: "
                  "the same kernels and levels as --unpooled in less memory (the runtime's GPU "
                  "default while that plan fits its budget; implies --unpooled)");
    cmd->add_flag("--fast", fast,
                  "the fast kernel set (RuntimeOptions::emit.kernels = KernelSet::Fast: our tiled "
                  "matmuls and reductions, element-wise chains fused with layout ops as indexing "
                  "and into matmul stores, transposes folded into matmuls, one optimizer dispatch "
                  "over all parameters) instead of upstream's");
    cmd->add_option("--workgroup-bytes", workgroupBytes,
                    "workgroup memory the fast set's kernels may use "
                    "(RuntimeOptions::emit.workgroupStorageBytes; the runtime gives them the "
                    "device's maxComputeWorkgroupStorageSize, e.g. 49152 on an H100; default "
                    "WebGPU's 16384)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
    cmd->add_flag("--cpu-device", cpuDevice,
                  "the fast set's matmul forms for a CPU device (RuntimeOptions::emit.cpuDevice, "
                  "which the runtime sets on a software adapter such as lavapipe: 4x4 outputs an "
                  "invocation read straight from the buffers, weight gradients not split)");
    cmd->footer(
        "Sample sizes: --<size> N, e.g. `transformer --d 256 --layers 6` (`tg-inspect models` "
        "lists them).");
  }
};

using Sizes = std::vector<std::pair<std::string, int64_t>>;

// Sample sizes are flags of the model, not of the tool, so they are taken out of the command line
// before CLI11 sees it: every `--name N` or `--name=N` whose name is none of the tool's options.
// (CLI11's extras would let N fill a positional such as a kernel index.)
Sizes takeSizes(std::vector<std::string>& args) {
  static const std::set<std::string> kOptions = {
      "help",   "fuse",   "unpooled", "json",   "all",        "upstream",   "out",
      "format", "device", "reps",     "a-fuse", "b-fuse",     "a-unpooled", "b-unpooled",
      "profile", "no-graph", "fast", "a-fast", "b-fast", "warm-up", "trace", "workgroup-bytes",
      "cpu-device", "shared"};
  Sizes sizes;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string name = arg.size() > 2 && arg.starts_with("--") ? arg.substr(2) : "", value;
    const size_t eq = name.find('=');
    if (name.empty() || kOptions.count(name.substr(0, eq))) {
      rest.push_back(arg);
      continue;
    }
    if (eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else {
      if (i + 1 >= args.size()) throw InputError("--" + name + " needs a value");
      value = args[++i];
    }
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size())
      throw InputError("--" + name + " takes an integer, not '" + value + "'");
    sizes.emplace_back(name, v);
  }
  args = std::move(rest);
  return sizes;
}

Sizes gSizes;  // what takeSizes found

tg_inspect::Subject load(const SourceArgs& args) {
  return tg_inspect::loadSubject(
      {.source = args.source, .sizes = gSizes, .fuse = args.fuse, .pool = !args.unpooled && !args.shared,
       .share = args.shared, .fast = args.fast,
       .workgroupBytes = args.workgroupBytes, .cpuDevice = args.cpuDevice});
}

void writeFile(const std::filesystem::path& path, const std::string& text) {
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out)
    throw InputError("cannot write " + path.string() +
                     (ec ? ": " + ec.message() : ": permission denied or not a directory"));
}

void prepareDir(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw InputError("cannot create the output directory " + dir.string() +
                     (ec ? ": " + ec.message() : ""));
}

int listModels() {
  for (const tg_models::SampleEntry& e : tg_models::sampleModels()) {
    std::printf("%-20s %s\n", e.name.c_str(), e.summary.c_str());
    for (const tg_models::SizeOption& o : e.sizes)
      std::printf("    --%-14s %-8lld %s\n", o.name.c_str(), static_cast<long long>(o.defaultValue),
                  o.help.c_str());
  }
  return 0;
}

// wgsl / spirv / glsl: one kernel to stdout, or every kernel (one file each with -o).
int shaderCommand(const std::string& what, const tg_inspect::Subject& s,
                  std::optional<size_t> index, bool all, const std::string& outDir, bool upstream) {
  if (!index && !all)
    throw InputError(what + ": give a kernel index (0.." + std::to_string(s.kernels.size() - 1) +
                     ") or --all");
  if (upstream && !s.bundle)
    throw InputError("--upstream: only a bundle records upstream's kernels");
  std::vector<size_t> which;
  if (all) {
    for (size_t i = 0; i < s.kernels.size(); ++i) which.push_back(i);
  } else {
    s.kernel(*index);  // range check
    which.push_back(*index);
  }
  if (!outDir.empty()) prepareDir(outDir);
  const std::vector<tg_inspect::KernelRow> rows = tg_inspect::kernelRows(s);
  std::map<std::string, tg_inspect::Shader> translated;  // by WGSL: pipelines repeat
  for (size_t i : which) {
    const tg::KernelSpec& k = s.kernel(i);
    std::string text;
    if (what == "wgsl") {
      text = k.wgsl;
      if (upstream) {
        text.clear();
        for (const tg::UpstreamKernel& u : s.bundle->kernels)
          if (u.opIndex == k.opIndex) text = u.wgsl;
        if (text.empty())
          throw InputError("the bundle records no upstream kernel for op " +
                           std::to_string(k.opIndex));
      }
    } else {
      auto it = translated.find(k.wgsl);
      if (it == translated.end())
        it = translated.emplace(k.wgsl, tg_inspect::translateShader(k.wgsl)).first;
      text = what == "spirv" ? it->second.spirvAsm : it->second.glsl;
    }
    const tg_inspect::KernelRow& r = rows[i];
    if (!outDir.empty()) {
      char name[96];
      std::snprintf(name, sizeof name, "%04zu_%s.%s", i, r.kind.c_str(),
                    what == "wgsl"    ? "wgsl"
                    : what == "spirv" ? "spvasm"
                                      : "glsl");
      writeFile(std::filesystem::path(outDir) / name, text);
    } else {
      const char* comment = what == "spirv" ? ";" : "//";
      std::printf("%s kernel %zu: op %d %s -> %s, %lld threads%s%s\n%s\n", comment, i, r.opIndex,
                  r.kind.c_str(), r.output.c_str(), static_cast<long long>(r.threads),
                  r.site.empty() ? "" : ", ", r.site.c_str(), text.c_str());
    }
  }
  if (!outDir.empty())
    std::printf("wrote %zu %s files to %s\n", which.size(), what.c_str(), outDir.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tg-inspect: what tensorgrad makes of a model — its kernels, their WGSL, SPIR-V and GLSL, "
      "the buffer plan, "
      "the schedule, the graph, per-kernel costs and the difference between two compiles, in the "
      "terminal or as one "
      "HTML file. A source is a sample model by name or a graph bundle (.tgbundle.json): exported from "
      "the browser, or a C++ model's written by tg::saveBundle or by TENSORGRAD_DUMP=DIR.\n"
      "Exit status: 0 ok, 1 a failure (a device error), 2 bad input."};
  app.require_subcommand(1);
  app.add_subcommand("models", "List the sample models and their size flags.");

  SourceArgs src;
  bool json = false;
  auto* summary =
      app.add_subcommand("summary",
                         "Ops, kernels, distinct pipelines, dispatch levels, buffers and bytes "
                         "by kind (pooled vs own), kernels per op kind.");
  src.add(summary);
  summary->add_flag("--json", json, "print JSON");

  auto* kernels =
      app.add_subcommand("kernels",
                         "One row per kernel: index, op, phase, level, output, threads, "
                         "workgroups, bindings and the user's call site.");
  src.add(kernels);

  std::optional<size_t> index;
  bool all = false, upstream = false;
  std::string outDir;
  std::map<std::string, CLI::App*> shaders;
  for (const char* what : {"wgsl", "spirv", "glsl"}) {
    const std::string help =
        std::string(what) == "wgsl"    ? "A kernel's WGSL (what the browser runs)."
        : std::string(what) == "spirv" ? "A kernel's SPIR-V (wgsl_subset), disassembled."
                                       : "A kernel's SPIR-V as readable GLSL (SPIRV-Cross).";
    auto* cmd = app.add_subcommand(what, help);
    src.add(cmd);
    cmd->add_option("index", index, "the kernel's index (see `kernels`)");
    cmd->add_flag("--all", all, "every kernel");
    cmd->add_option("-o,--out", outDir, "write one file per kernel into this directory");
    if (std::string(what) == "wgsl")
      cmd->add_flag("--upstream", upstream, "a bundle's: upstream's WGSL for the same op");
    shaders[what] = cmd;
  }

  auto* plan =
      app.add_subcommand("plan",
                         "The buffer plan: every buffer's kind, size, tensors and lifetime (the "
                         "first and last kernel that touches it).");
  src.add(plan);
  auto* schedule = app.add_subcommand(
      "schedule", "The dispatch levels (one barrier each) and the kernels each holds.");
  src.add(schedule);

  std::string format = "dot", out;
  auto* graph =
      app.add_subcommand("graph",
                         "The graph: forward, backward and optimizer ops told apart, fused kernels "
                         "boxed, each node with its op, shape and call site.");
  src.add(graph);
  graph->add_option("--format", format, "dot, svg (through Graphviz's dot) or json")
      ->check(CLI::IsMember({"dot", "svg", "json"}));
  graph->add_option("-o,--out", out, "write to this file (default: stdout)");

  std::string device;
  uint32_t reps = 20, warmUp = 20;
  const std::string warmUpHelp =
      "milliseconds each kernel runs before it is timed, so the device is at working clocks "
      "(default 20; 0 for none)";
  auto* profile =
      app.add_subcommand("profile",
                         "Every kernel timed on the device, grouped by op kind, with achieved "
                         "GB/s and FLOP/s; then each dispatch level and the whole step, without "
                         "the host's submit; where the device has timestamp queries, also each "
                         "level as it runs inside the step.");
  src.add(profile);
  profile->add_option("--device", device,
                      "adapter whose name contains this text (default: the best one)");
  profile->add_option("--reps", reps,
                      "dispatches per timing, at least (default 20; on a GPU more, until a timing "
                      "takes 2 ms)")
      ->check(CLI::PositiveNumber);
  profile->add_option("--warm-up", warmUp, warmUpHelp);
  profile->add_flag("--json", json, "print JSON");
  std::string trace;
  const std::string traceHelp =
      "also write the profile as a timeline of one step (Chrome trace event JSON, for "
      "https://ui.perfetto.dev or chrome://tracing): dispatch levels end to end, each as long as "
      "its slowest kernel, every kernel with its op, output, call site, bytes and FLOPs";
  profile->add_option("--trace", trace, traceHelp);

  SourceArgs srcB;
  bool aFuse = false, bFuse = false, aUnpooled = false, bUnpooled = false, withProfile = false;
  bool aFast = false, bFast = false;
  auto* diff = app.add_subcommand(
      "diff",
      "Two compiles (two bundles or models, or one under two option sets): "
      "kernels added, removed and changed (with a WGSL diff), and the cost change "
      "with --profile.");
  src.add(diff, "a");
  diff->add_option("b", srcB.source, "the second source (default: the first, e.g. with --b-fuse)");
  diff->add_flag("--a-fuse", aFuse, "fused kernels for A");
  diff->add_flag("--b-fuse", bFuse, "fused kernels for B");
  diff->add_flag("--a-fast", aFast, "the fast kernel set for A");
  diff->add_flag("--b-fast", bFast, "the fast kernel set for B");
  diff->add_flag("--a-unpooled", aUnpooled, "own buffers for A");
  diff->add_flag("--b-unpooled", bUnpooled, "own buffers for B");
  diff->add_flag("--profile", withProfile, "time both on the device and compare costs");
  diff->add_option("--device", device, "adapter for --profile");
  diff->add_option("--reps", reps,
                   "dispatches per timing with --profile, at least (on a GPU more, until a "
                   "timing takes 2 ms)")
      ->check(CLI::PositiveNumber);
  diff->add_option("--warm-up", warmUp, warmUpHelp);

  auto* html = app.add_subcommand(
      "html",
      "One self-contained HTML report: searchable kernels with highlighted WGSL "
      "and SPIR-V, the graph, the plan, the schedule and, with --profile, costs.");
  src.add(html);
  html->add_option("-o,--out", out, "the report file")->required();
  bool noGraph = false;
  html->add_flag("--profile", withProfile, "time every kernel on the device and include the costs");
  html->add_option("--trace", trace,
                   "with the profile (implies --profile), write its timeline to this file and link "
                   "it from the report");
  html->add_flag("--no-graph", noGraph,
                 "leave the graph out (Graphviz takes a while past a few thousand ops)");
  html->add_option("--device", device, "adapter for --profile");
  html->add_option("--reps", reps,
                   "dispatches per timing with --profile, at least (on a GPU more, until a "
                   "timing takes 2 ms)")
      ->check(CLI::PositiveNumber);
  html->add_option("--warm-up", warmUp, warmUpHelp);

  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    gSizes = takeSizes(args);
    static const std::set<std::string> kSubcommands = {"models", "summary", "kernels", "wgsl",
                                                       "spirv",  "glsl",    "plan",    "schedule",
                                                       "graph",  "profile", "diff",    "html"};
    if (!args.empty() && !args.front().starts_with("-") && !kSubcommands.count(args.front()))
      throw InputError("unknown subcommand '" + args.front() +
                       "'; the subcommands are: models, summary, kernels, wgsl, spirv, glsl, plan, "
                       "schedule, graph, "
                       "profile, diff, html");
    std::reverse(args.begin(), args.end());  // CLI11 takes the arguments in reverse
    app.parse(args);
  } catch (const InputError& e) {
    std::fprintf(stderr, "tg-inspect: %s\n", e.what());
    return 2;
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (app.got_subcommand("models")) return listModels();
    if (*summary) {
      const tg_inspect::Subject s = load(src);
      const tg_inspect::Summary sum = tg_inspect::summarize(s);
      std::fputs(json ? (tg_inspect::summaryJson(sum).dump(1) + "\n").c_str()
                      : tg_inspect::summaryText(s, sum).c_str(),
                 stdout);
      return 0;
    }
    if (*kernels) {
      std::fputs(tg_inspect::kernelsText(load(src)).c_str(), stdout);
      return 0;
    }
    for (const auto& [what, cmd] : shaders)
      if (*cmd) return shaderCommand(what, load(src), index, all, outDir, upstream);
    if (*plan) {
      std::fputs(tg_inspect::planText(load(src)).c_str(), stdout);
      return 0;
    }
    if (*schedule) {
      std::fputs(tg_inspect::scheduleText(load(src)).c_str(), stdout);
      return 0;
    }
    if (*graph) {
      const tg_inspect::Subject s = load(src);
      if (!out.empty())
        prepareDir(std::filesystem::path(out).parent_path().empty()
                       ? "."
                       : std::filesystem::path(out).parent_path());
      const std::string text = format == "json"  ? tg_inspect::graphJson(s).dump(1) + "\n"
                               : format == "svg" ? tg_inspect::dotToSvg(tg_inspect::graphDot(s))
                                                 : tg_inspect::graphDot(s);
      if (out.empty())
        std::fputs(text.c_str(), stdout);
      else
        writeFile(out, text);
      return 0;
    }
    if (*profile) {
      const tg_inspect::Subject s = load(src);
      if (!trace.empty()) writeFile(trace, "");  // check the destination before timing
      const tg_inspect::Profile p =
          tg_inspect::profileKernels(s, {.device = device, .reps = reps, .warmUpMs = warmUp});
      if (!trace.empty()) writeFile(trace, tg_inspect::traceJson(s, p).dump() + "\n");
      std::fputs(json ? (tg_inspect::profileJson(s, p).dump(1) + "\n").c_str()
                      : tg_inspect::profileText(s, p).c_str(),
                 stdout);
      return 0;
    }
    if (*diff) {
      const Sizes& sizes = gSizes;
      const tg_inspect::Subject a = tg_inspect::loadSubject({.source = src.source,
                                                             .sizes = sizes,
                                                             .fuse = aFuse || src.fuse,
                                                             .pool = !(aUnpooled || src.unpooled || src.shared),
                                                             .share = src.shared,
                                                             .fast = aFast || src.fast,
                                                             .workgroupBytes = src.workgroupBytes,
                                                             .cpuDevice = src.cpuDevice});
      const std::string bSource = srcB.source.empty() ? src.source : srcB.source;
      const tg_inspect::Subject b =
          tg_inspect::loadSubject({.source = bSource,
                                   .sizes = tg_inspect::looksLikeBundle(bSource) ? Sizes{} : sizes,
                                   .fuse = bFuse || src.fuse,
                                   .pool = !(bUnpooled || src.unpooled || src.shared),
                                   .share = src.shared,
                                   .fast = bFast || src.fast,
                                   .workgroupBytes = src.workgroupBytes,
                                   .cpuDevice = src.cpuDevice});
      std::optional<tg_inspect::Profile> pa, pb;
      if (withProfile) {
        pa = tg_inspect::profileKernels(a, {.device = device, .reps = reps, .warmUpMs = warmUp});
        pb = tg_inspect::profileKernels(b, {.device = device, .reps = reps, .warmUpMs = warmUp});
      }
      const tg_inspect::Diff d =
          tg_inspect::diffSubjects(a, b, pa ? &*pa : nullptr, pb ? &*pb : nullptr);
      std::fputs(tg_inspect::diffText(a, b, d).c_str(), stdout);
      return 0;
    }
    if (*html) {
      const tg_inspect::Subject s = load(src);
      // Check the destinations before the slow parts.
      writeFile(out, "");
      if (!trace.empty()) writeFile(trace, "");
      std::optional<tg_inspect::Profile> p;
      if (withProfile || !trace.empty())
        p = tg_inspect::profileKernels(s, {.device = device, .reps = reps, .warmUpMs = warmUp});
      tg_inspect::HtmlOptions o;
      o.profile = p ? &*p : nullptr;
      if (!trace.empty()) {
        writeFile(trace, tg_inspect::traceJson(s, *p).dump() + "\n");
        const std::filesystem::path reportDir =
            std::filesystem::absolute(std::filesystem::path(out)).parent_path();
        o.traceLink = std::filesystem::absolute(trace).lexically_relative(reportDir).string();
      }
      if (noGraph) {
        o.noGraph = "left out (--no-graph); `tg-inspect graph --format svg` draws it";
      } else if (tg_inspect::haveGraphviz()) {
        o.svg = tg_inspect::dotToSvg(tg_inspect::graphDot(s));
      } else {
        std::fprintf(stderr,
                     "tg-inspect: Graphviz's dot is not installed; the report has no graph "
                     "(apt-get install graphviz)\n");
      }
      writeFile(out, tg_inspect::htmlReport(s, o));
      std::printf("wrote %s: %zu kernels%s%s\n", out.c_str(), s.kernels.size(),
                  o.svg ? ", the graph" : "", p ? ", the profile" : "");
      return 0;
    }
  } catch (const InputError& e) {
    std::fprintf(stderr, "tg-inspect: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tg-inspect: %s\n", e.what());
    return 1;
  }
  return 0;
}
