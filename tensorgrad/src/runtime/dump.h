// TENSORGRAD_DUMP=DIR: every compile of the process (trainings, their replaceModel recompiles,
// forwards at each input shape) writes what it made into a folder of its own under DIR, for a
// person to read and for tg-inspect / tgparity to open. The variables are read once, at the first
// compile; unset, a compile pays one test of a flag. See README.md, "Dump every compile".
#pragma once

#include "tensorgrad/runtime.h"

namespace tg::detail {

bool dumpEnabled();

// The folder of one compile: <NNN>-<label>-train or -forward, NNN one more than the highest
// number under DIR (so runs never overwrite each other), the label the function the loss (or the
// forward's output) was computed in. `training`: for an attached forward, the training it
// belongs to (its bundle is that training's with this forward attached); null for a training
// and for a standalone forward (which gets its graph, not a bundle). Never throws: a dump that
// cannot be written is reported once on stderr, and dumping stops for the process while the
// compile goes on.
void dumpCompile(const CompiledIR& ir, const CompiledIR* training, const RuntimeOptions& options);

}  // namespace tg::detail
