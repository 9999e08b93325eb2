// libFuzzer target over the graph-bundle loader (tg::parseBundle: the JSON, the graph it checks op
// by op, the safetensors file inside, the feeds, the recorded outputs and captures): any input
// must give either a Bundle or a tg::BundleError naming the field — never a crash, a hang, a
// sanitizer report, another exception, or an allocation sized by the file's claims rather than
// its bytes (libFuzzer's -rss_limit_mb and -malloc_limit_mb enforce that).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tensorgrad/bundle.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const tg::Bundle b =
        tg::parseBundle(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz");
    // What is accepted keeps the format's promises: every recorded array is as large as its shape.
    for (const tg::BundleForward& f : b.forwards) {
      for (const tg::RecordedRun& r : f.runs) {
        if (static_cast<int64_t>(r.output.size()) != tg::shapeSize(r.outputShape)) std::abort();
      }
    }
  } catch (const tg::BundleError&) {
  }
  return 0;
}
