// One parity case trained by upstream and recorded through tensorgrad/js/tgbundle.mjs, exactly as
// a user's script would (the recorder wraps train.step). Shared by gen_bundles.mjs (Dawn for
// Node, a file) and gen_bundles_chromium.mjs (Chromium, a download), so both record the same run.
const f32Bits = (x) => new Uint32Array(new Float32Array([x]).buffer)[0].toString(16).padStart(8, '0');

// c: a case (../cases/<name>.mjs applied to tg). Resolves to { bundle, losses } once the recorder
// has written the bundle (Node: `path`; a browser: a download named after it).
export async function recordCase(tg, recordBundle, mulberry32, c, { path, tensorgrad, adapter }) {
  if (!c.training) throw new Error(`case ${c.name}: bundles are of training cases`);
  const train = await tg.compile(c.training);
  const rng = mulberry32(c.feedSeed);
  const forwards = {};
  for (const f of c.forwards ?? []) forwards[f.name] = { spec: f.spec, feed: () => f.feed(rng) };
  const recorder = recordBundle(tg, train, c.training, { steps: c.steps, path, forwards, tensorgrad, adapter });
  const losses = [];
  for (let s = 0; s < c.steps; s++) {
    const r = await train.step(c.feed(rng));
    if (r.kind !== 'completed') throw new Error(`case ${c.name}: step ${s} ${r.kind}`);
    losses.push(f32Bits(r.loss));
  }
  const bundle = await recorder.done;
  train.destroy();
  return { bundle, losses };
}

// Throws unless the bundle's losses are the steps' results.
export function checkRecorded(name, bundle, losses) {
  const recorded = bundle.steps.map((s) => s.loss);
  const i = recorded.findIndex((x, k) => x !== losses[k]);
  if (i >= 0 || recorded.length !== losses.length)
    throw new Error(`case ${name}: the bundle's losses differ from the steps' results at step ${i}`);
}

// The first step whose recorded loss differs from the case's golden (Dawn for Node), or null.
export function goldenMismatch(bundle, golden) {
  const recorded = bundle.steps.map((s) => s.loss);
  const i = recorded.findIndex((x, k) => x !== golden.losses[k]);
  return i < 0 ? null : { step: i, loss: recorded[i], golden: golden.losses[i] };
}
