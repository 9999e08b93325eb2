// The sample registry: one entry per sample model, binding its Config fields to size options,
// its spec and forwards to the type-erased Sample, and synthetic feeds of the right ranges
// (token ids below the vocabulary, time buckets in 1..T, masks of ones) so steps run.
#include <tensorgrad/models/registry.h>

#include <cmath>
#include <stdexcept>

#include <tensorgrad/models/cartpole.h>
#include <tensorgrad/models/digit_canvas.h>
#include <tensorgrad/models/flow_matching_tiny.h>
#include <tensorgrad/models/kan_tiny.h>
#include <tensorgrad/models/makemore.h>
#include <tensorgrad/models/mlp_sin.h>
#include <tensorgrad/models/mnist_cnn.h>
#include <tensorgrad/models/nerf_tiny.h>
#include <tensorgrad/models/pokeformer.h>
#include <tensorgrad/models/synthetic_feeds.h>
#include <tensorgrad/models/tic_tac_toe.h>
#include <tensorgrad/models/transformer.h>
#include <tensorgrad/models/vae.h>

namespace tg_models {

const tg::CompiledForward<tg::Module>& SampleTraining::forward(const std::string& name) const {
  std::string known;
  for (const auto& [n, f] : forwards) {
    if (n == name) return f;
    known += (known.empty() ? "" : ", ") + n;
  }
  throw std::invalid_argument("no forward '" + name +
                              "'; this sample attaches: " + (known.empty() ? "none" : known));
}

Sample::Sample(std::string name, Sizes sizes, std::shared_ptr<const tg::Module> model,
               tg::TrainingSpec<tg::Module> spec, FeedFn feed, std::vector<SampleForward> forwards)
    : name_(std::move(name)),
      sizes_(std::move(sizes)),
      model_(std::move(model)),
      spec_(std::move(spec)),
      feed_(std::move(feed)),
      forwards_(std::move(forwards)) {}

tg::CompiledIR Sample::trace(const tg::EmitOptions& emit, bool poolBuffers) const {
  return tg::detail::traceTraining(
      spec_.model, [this](const tg::Inputs& in) { return spec_.loss(spec_.model, in); },
      spec_.inputs, spec_.optimizer, spec_.seed, emit, poolBuffers);
}

SampleTraining Sample::compile(const tg::RuntimeOptions& options) const {
  SampleTraining t{model_, tg::compile(spec_, options), {}};
  for (const SampleForward& f : forwards_)
    t.forwards.emplace_back(f.name, t.training.attach(f.spec));
  return t;
}

Sizes SampleEntry::defaults() const {
  Sizes s;
  for (const SizeOption& o : sizes) s[o.name] = o.defaultValue;
  return s;
}

namespace {

// ---- type erasure: a model's spec over tg::Module ----

template <class M>
tg::TrainingSpec<tg::Module> erase(const tg::TrainingSpec<M>& s) {
  return {
      .model = s.model,
      .loss = [loss = s.loss](const tg::Module& m,
                              const tg::Inputs& in) { return loss(static_cast<const M&>(m), in); },
      .inputs = s.inputs,
      .optimizer = s.optimizer,
      .seed = s.seed};
}

template <class M>
tg::AttachSpec<tg::Module> erase(const tg::AttachSpec<M>& s) {
  return {.forward = [fwd = s.forward](
                         const tg::Module& m,
                         const tg::Inputs& in) { return fwd(static_cast<const M&>(m), in); },
          .inputs = s.inputs,
          .output = s.output,
          .maxCachedShapes = s.maxCachedShapes};
}

// ---- sizes: Config fields as options ----

template <class C>
struct Field {
  const char* name;
  const char* help;
  int64_t C::*member;
  int64_t max = int64_t{1} << 24;
};

template <class C>
std::vector<SizeOption> optionsOf(const std::vector<Field<C>>& fields) {
  const C defaults{};
  std::vector<SizeOption> out;
  for (const Field<C>& f : fields) out.push_back({f.name, f.help, defaults.*f.member, 1, f.max});
  return out;
}

// The config at `sizes`; every size must be one of `options` and within its range.
template <class C>
C configFrom(const std::string& model, const std::vector<Field<C>>& fields, const Sizes& sizes,
             Sizes& resolved) {
  C c{};
  for (const Field<C>& f : fields) resolved[f.name] = c.*f.member;
  for (const auto& [name, value] : sizes) {
    const Field<C>* field = nullptr;
    std::string known;
    for (const Field<C>& f : fields) {
      if (name == f.name) field = &f;
      known += (known.empty() ? "" : ", ") + std::string(f.name);
    }
    if (!field)
      throw std::invalid_argument("model '" + model + "' has no size '" + name +
                                  "'; its sizes are: " + known);
    if (value < 1 || value > field->max)
      throw std::invalid_argument("model '" + model + "': size " + name + " = " +
                                  std::to_string(value) + " is out of range [1, " +
                                  std::to_string(field->max) + "]");
    c.*(field->member) = value;
    resolved[name] = value;
  }
  return c;
}

// Everything but the name and sizes, which the entry fills in.
struct Parts {
  std::shared_ptr<const tg::Module> model;
  tg::TrainingSpec<tg::Module> spec;
  FeedFn feed;
  std::vector<SampleForward> forwards;
};

template <class C>
SampleEntry entry(std::string name, std::string summary, std::vector<Field<C>> fields,
                  std::function<Parts(C, std::optional<uint32_t>)> parts) {
  SampleEntry e{name, std::move(summary), optionsOf(fields), {}};
  e.build = [name, fields, parts](const Sizes& sizes, std::optional<uint32_t> seed) {
    Sizes resolved;
    const C c = configFrom(name, fields, sizes, resolved);
    Parts p = parts(c, seed);
    return Sample(name, std::move(resolved), std::move(p.model), std::move(p.spec),
                  std::move(p.feed), std::move(p.forwards));
  };
  return e;
}

// ---- synthetic feeds (uniform and pixels: synthetic_feeds.h) ----

using synthetic::pixels;
using synthetic::uniform;

size_t count(int64_t n) {
  return static_cast<size_t>(n);
}

// Integers in [lo, hi).
std::vector<int32_t> ints(tg::Mulberry32& rng, int64_t n, int64_t lo, int64_t hi) {
  std::vector<int32_t> out(count(n));
  for (int32_t& v : out)
    v = static_cast<int32_t>(lo + static_cast<int64_t>(rng.next() * static_cast<double>(hi - lo)));
  return out;
}
std::vector<float> filled(int64_t n, float value) {
  return std::vector<float>(count(n), value);
}

// ---- the samples ----

struct MlpSinConfig {
  int64_t batch = 256;
  int64_t hidden = 64;
};

Parts mlpSin(MlpSinConfig c, std::optional<uint32_t> seed) {
  auto model = std::make_shared<const MLP>(c.hidden);
  tg::TrainingSpec<MLP> spec = mlpSpec(*model, c.batch);
  if (seed) spec.seed = seed;
  return {
      model,
      erase(spec),
      [c](tg::Mulberry32& rng) {
        SineBatch b = sineBatch(rng, c.batch);
        return tg::Feed{{"x", std::move(b.x)}, {"y", std::move(b.y)}};
      },
      {{"predict",
        erase(tg::AttachSpec<MLP>{
            .forward = [](const MLP& m, const tg::Inputs& in) { return mlpForward(m, in["x"]); },
            .inputs = {{"x", {{tg::null, 1}}}}}),
        [](tg::Mulberry32& rng) {
          return tg::Feed{{"x", uniform(rng, 64, -M_PI, M_PI)}};
        }}}};
}

Parts transformer(TransformerConfig c, std::optional<uint32_t> seed) {
  auto model = std::make_shared<const Transformer>(c);
  tg::TrainingSpec<Transformer> spec = transformerSpec(*model);
  if (seed) spec.seed = seed;
  return {model,
          erase(spec),
          [c](tg::Mulberry32& rng) {
            TransformerBatch b = randomTransformerBatch(c, rng);
            return tg::Feed{{"tokens", std::move(b.tokens)},
                            {"targets", std::move(b.targets)},
                            {"mask", std::move(b.mask)}};
          },
          {{"predict",
            erase(tg::AttachSpec<Transformer>{
                .forward = [](const Transformer& m,
                              const tg::Inputs& in) { return transformerForward(m, in["tokens"]); },
                .inputs = {{"tokens", {{1, c.t()}, tg::Dtype::I32}}}}),
            [c](tg::Mulberry32& rng) {
              return tg::Feed{{"tokens", ints(rng, c.t(), 0, c.vocab)}};
            }}}};
}

Parts mnistCnn(MnistCnnConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  auto model = std::make_shared<const MnistCnn>(c);
  const int64_t image = c.imageSize * c.imageSize;
  return {model,
          erase(mnistCnnSpec(*model, c)),
          [c, image](tg::Mulberry32& rng) {
            std::vector<float> x = pixels(rng, c.batch * image);
            return tg::Feed{{"x", std::move(x)}, {"y", ints(rng, c.batch, 0, c.classes)}};
          },
          {{"predict",
            erase(tg::AttachSpec<MnistCnn>{.forward = mnistCnnPredict,
                                           .inputs = mnistCnnPredictInputs(c)}),
            [c, image](tg::Mulberry32& rng) {
              return tg::Feed{{"x", pixels(rng, c.evalBatch * image)}};
            }}}};
}

Parts digitCanvas(DigitCanvasConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  auto model = std::make_shared<const DigitMlp>(c);
  const auto predict = erase(tg::AttachSpec<DigitMlp>{.forward = digitCanvasPredict,
                                                      .inputs = digitCanvasPredictInputs(c)});
  return {model,
          erase(digitCanvasSpec(*model, c)),
          [c](tg::Mulberry32& rng) {
            std::vector<float> x = pixels(rng, c.batch * c.inputDim);
            return tg::Feed{{"x", std::move(x)}, {"y", ints(rng, c.batch, 0, c.classes)}};
          },
          {{"predict_canvas", predict,
            [c](tg::Mulberry32& rng) {
              return tg::Feed{{"x", pixels(rng, c.inputDim)}};
            }},
           {"predict_eval", predict, [c](tg::Mulberry32& rng) {
              return tg::Feed{{"x", pixels(rng, c.evalBatch * c.inputDim)}};
            }}}};
}

Parts vae(VaeConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  auto model = std::make_shared<const Vae>(c);
  return {
      model,
      erase(vaeSpec(*model, c)),
      [c](tg::Mulberry32& rng) {
        return tg::Feed{{"x", pixels(rng, c.batch * c.inputDim)}};
      },
      {{"encode", erase(tg::AttachSpec<Vae>{.forward = vaeEncode, .inputs = vaeEncodeInputs(c)}),
        [c](tg::Mulberry32& rng) {
          return tg::Feed{{"x", pixels(rng, c.inputDim)}};
        }},
       {"decode", erase(tg::AttachSpec<Vae>{.forward = vaeDecode, .inputs = vaeDecodeInputs(c)}),
        [c](tg::Mulberry32& rng) {
          return tg::Feed{{"z", uniform(rng, 9 * c.latent)}};
        }}}};
}

// Token batches of a character model: random letters, targets, and a mask of 1/(B·T).
tg::Feed tokenBatch(tg::Mulberry32& rng, int64_t batch, int64_t t, int64_t vocab) {
  std::vector<int32_t> tokens = ints(rng, batch * t, 0, vocab);
  std::vector<int32_t> targets = ints(rng, batch * t, 0, vocab);
  return {{"tokens", std::move(tokens)},
          {"targets", std::move(targets)},
          {"mask", filled(batch * t, static_cast<float>(1.0 / static_cast<double>(batch * t)))}};
}

Parts makemore(MakemoreConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  auto model = std::make_shared<const Makemore>(c);
  FeedFn batch = [c](tg::Mulberry32& rng) { return tokenBatch(rng, c.batch, c.t(), c.vocab); };
  return {model,
          erase(makemoreSpec(*model, c)),
          batch,
          {{"sample", erase(makemoreSampler(c)),
            [c](tg::Mulberry32& rng) {
              return tg::Feed{{"tokens", ints(rng, c.t(), 0, c.vocab)}};
            }},
           {"valLoss", erase(makemoreValLoss(c)), batch}}};
}

Parts pokeformer(PokeformerConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  c.eos = c.vocab - 1;
  auto model = std::make_shared<const Pokeformer>(c);
  return {
      model,
      erase(pokeformerSpec(*model, c)),
      [c](tg::Mulberry32& rng) { return tokenBatch(rng, c.batch, c.t, c.vocab); },
      {{"sample", erase(pokeformerSampler(c)), [c](tg::Mulberry32& rng) {
          std::vector<int32_t> tokens = ints(rng, c.batchInfer * c.t, 0, c.vocab);
          return tg::Feed{{"tokens", std::move(tokens)}, {"temperature", std::vector<float>{0.8f}}};
        }}}};
}

Parts kanTiny(KanConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  auto model = std::make_shared<const Kan>(c);
  return {model,
          erase(kanSpec(*model, c)),
          [c](tg::Mulberry32& rng) {
            std::vector<float> x = uniform(rng, c.batch);
            std::vector<float> y(x.size());
            for (size_t i = 0; i < x.size(); ++i)
              y[i] = static_cast<float>(std::sin(M_PI * static_cast<double>(x[i])));
            return tg::Feed{{"x", std::move(x)}, {"y", std::move(y)}};
          },
          {{"predict", erase(kanPredictor()), [](tg::Mulberry32& rng) {
              return tg::Feed{{"x", uniform(rng, 200)}};
            }}}};
}

Parts flowMatchingTiny(FlowMatchingTinyConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  auto model = std::make_shared<const FlowMatchingTiny>(c);
  const int64_t image = c.imageH * c.imageW;
  return {model,
          erase(flowMatchingTinySpec(*model, c)),
          [c, image, table = flowTNormTable(c)](tg::Mulberry32& rng) {
            std::vector<float> x0 = pixels(rng, c.batch * image);
            return tg::Feed{{"x_0", std::move(x0)},
                            {"t", ints(rng, c.batch, 1, c.tSteps + 1)},
                            {"tNorm_table", table}};
          },
          {{"predict",
            erase(tg::AttachSpec<FlowMatchingTiny>{.forward = flowMatchingPredict<FlowMatchingTiny>,
                                                   .inputs = flowMatchingPredictInputs(c)}),
            [c, image](tg::Mulberry32& rng) {
              std::vector<float> xT = uniform(rng, image);
              return tg::Feed{{"x_t", std::move(xT)}, {"t", ints(rng, 1, 1, c.tSteps + 1)}};
            }}}};
}

Parts nerfTiny(NerfTinyConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  auto model = std::make_shared<const NerfTiny>(c);
  return {model,
          erase(nerfTinySpec(*model, c)),
          [c, freqs = nerfFreqs(c)](tg::Mulberry32& rng) {
            std::vector<float> coords = uniform(rng, 2 * c.batch);
            return tg::Feed{{"coords", std::move(coords)},
                            {"rgb", uniform(rng, 3 * c.batch, 0, 1)},
                            {"freqs", freqs}};
          },
          {{"render",
            erase(tg::AttachSpec<NerfTiny>{.forward = nerfTinyPredict,
                                           .inputs = nerfTinyPredictInputs(c)}),
            [c, freqs = nerfFreqs(c), grid = nerfGridCoords(c)](tg::Mulberry32&) {
              return tg::Feed{{"coords", grid}, {"freqs", freqs}};
            }}}};
}

// A policy-gradient batch: random states and actions, returns in [-1, 1), every slot live.
tg::Feed rolloutBatch(tg::Mulberry32& rng, int64_t slots, int64_t stateDim, int64_t actions,
                      const char* returnsName) {
  std::vector<float> states = uniform(rng, slots * stateDim);
  std::vector<int32_t> acts = ints(rng, slots, 0, actions);
  std::vector<float> returns = uniform(rng, slots);
  return {{"states", std::move(states)},
          {"actions", std::move(acts)},
          {returnsName, std::move(returns)},
          {"mask", filled(slots, 1.f)}};
}

Parts cartpole(CartpoleConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  auto model = std::make_shared<const CartpolePolicy>(c);
  return {model,
          erase(cartpoleSpec(*model, c)),
          [c](tg::Mulberry32& rng) {
            return rolloutBatch(rng, c.slots(), c.stateDim, c.actions, "returns");
          },
          {{"policy", erase(cartpoleActor(c)), [c](tg::Mulberry32& rng) {
              return tg::Feed{{"state", uniform(rng, c.envs * c.stateDim)}};
            }}}};
}

Parts ticTacToe(TicTacToeConfig c, std::optional<uint32_t> seed) {
  c.seed = seed;
  auto model = std::make_shared<const TicTacToePolicy>(c);
  return {model,
          erase(ticTacToeSpec(*model, c)),
          [c](tg::Mulberry32& rng) {
            return rolloutBatch(rng, c.slots(), c.stateDim, c.actions, "outcomes");
          },
          {{"policy", erase(ticTacToeActor(c)), [c](tg::Mulberry32& rng) {
              return tg::Feed{{"state", uniform(rng, c.games * c.stateDim, 0, 1)}};
            }}}};
}

std::vector<SampleEntry> makeRegistry() {
  std::vector<SampleEntry> r;
  r.push_back(
      entry<MlpSinConfig>("mlp-sin", "the README's sine MLP: 1 → 64 → 64 → 1, ReLU, MSE, Adam",
                          {{"batch", "training batch", &MlpSinConfig::batch},
                           {"hidden", "hidden units (64 in the README)", &MlpSinConfig::hidden}},
                          mlpSin));
  r.push_back(entry<TransformerConfig>(
      "transformer",
      "learns addition: pre-norm causal transformer, tied embeddings, AdamW + linear LR",
      {{"vocab", "vocabulary size", &TransformerConfig::vocab},
       {"d", "model width", &TransformerConfig::d},
       {"layers", "transformer blocks", &TransformerConfig::layers},
       {"heads", "attention heads (divides d)", &TransformerConfig::heads},
       {"seq-len", "tokens per sequence (the model sees seq-len - 1)", &TransformerConfig::seqLen},
       {"batch", "training batch", &TransformerConfig::batch},
       {"result-digits", "trailing positions the loss counts", &TransformerConfig::resultDigits}},
      transformer));
  r.push_back(entry<MnistCnnConfig>(
      "mnist-cnn", "two conv + max-pool stages and an MLP head on 28×28 digits, AdamW",
      {{"batch", "training batch", &MnistCnnConfig::batch},
       {"eval-batch", "batch of the attached predictor", &MnistCnnConfig::evalBatch},
       {"image-size", "square image side (a multiple of 4)", &MnistCnnConfig::imageSize},
       {"classes", "output classes", &MnistCnnConfig::classes},
       {"conv1", "channels of the first conv", &MnistCnnConfig::conv1Out},
       {"conv2", "channels of the second conv", &MnistCnnConfig::conv2Out},
       {"hidden", "hidden units of the head", &MnistCnnConfig::hidden}},
      mnistCnn));
  r.push_back(entry<DigitCanvasConfig>(
      "digit-canvas", "digit classifier MLP with dropout for a drawing canvas, AdamW",
      {{"input-dim", "pixels per image", &DigitCanvasConfig::inputDim},
       {"hidden", "hidden units", &DigitCanvasConfig::hidden},
       {"classes", "output classes", &DigitCanvasConfig::classes},
       {"batch", "training batch", &DigitCanvasConfig::batch},
       {"eval-batch", "batch of the evaluation forward", &DigitCanvasConfig::evalBatch}},
      digitCanvas));
  r.push_back(
      entry<VaeConfig>("vae", "variational autoencoder on 28×28 images, reparameterised with randn",
                       {{"input-dim", "pixels per image", &VaeConfig::inputDim},
                        {"latent", "latent dimensions", &VaeConfig::latent},
                        {"hidden", "hidden units", &VaeConfig::hidden},
                        {"batch", "training batch", &VaeConfig::batch}},
                       vae));
  r.push_back(entry<MakemoreConfig>(
      "makemore", "character-level name model: causal transformer over 27 characters, AdamW",
      {{"vocab", "vocabulary size", &MakemoreConfig::vocab},
       {"d", "model width", &MakemoreConfig::d},
       {"layers", "transformer blocks", &MakemoreConfig::layers},
       {"heads", "attention heads (divides d)", &MakemoreConfig::heads},
       {"seq-len", "characters per padded name (the model sees seq-len - 1)",
        &MakemoreConfig::seqLen},
       {"batch", "training batch", &MakemoreConfig::batch}},
      makemore));
  r.push_back(entry<PokeformerConfig>(
      "pokeformer", "Pokémon-name transformer with a temperature sampler (categorical), AdamW",
      {{"vocab", "vocabulary size (the last id is EOS)", &PokeformerConfig::vocab},
       {"t", "sequence length", &PokeformerConfig::t},
       {"d", "model width", &PokeformerConfig::d},
       {"layers", "transformer blocks", &PokeformerConfig::layers},
       {"heads", "attention heads (divides d)", &PokeformerConfig::heads},
       {"batch", "training batch", &PokeformerConfig::batch},
       {"batch-infer", "batch of the sampler", &PokeformerConfig::batchInfer}},
      pokeformer));
  r.push_back(entry<KanConfig>("kan-tiny",
                               "Kolmogorov–Arnold network with cubic B-splines fitting sin(πx)",
                               {{"grid", "spline intervals", &KanConfig::grid},
                                {"degree", "spline degree", &KanConfig::degree, 8},
                                {"hidden", "hidden units", &KanConfig::hidden},
                                {"batch", "training batch", &KanConfig::batch}},
                               kanTiny));
  r.push_back(entry<FlowMatchingTinyConfig>(
      "flow-matching-tiny", "flow-matching image generator: time embedding and convolutions, Adam",
      {{"image-h", "image height", &FlowMatchingTinyConfig::imageH},
       {"image-w", "image width", &FlowMatchingTinyConfig::imageW},
       {"t-steps", "time buckets", &FlowMatchingTinyConfig::tSteps},
       {"batch", "training batch", &FlowMatchingTinyConfig::batch},
       {"conv-ch", "conv channels", &FlowMatchingTinyConfig::convCh},
       {"emb-dim", "time embedding width", &FlowMatchingTinyConfig::embDim}},
      flowMatchingTiny));
  r.push_back(entry<NerfTinyConfig>(
      "nerf-tiny", "2-D NeRF: positional encoding and an MLP fitting an image",
      {{"image-w", "image width", &NerfTinyConfig::imageW, 4096},
       {"image-h", "image height", &NerfTinyConfig::imageH, 4096},
       {"batch", "pixels per step", &NerfTinyConfig::batch},
       {"freqs", "encoding frequencies (2^k, k < freqs)", &NerfTinyConfig::freqs, 30},
       {"hidden", "hidden units", &NerfTinyConfig::hidden}},
      nerfTiny));
  r.push_back(entry<CartpoleConfig>(
      "cartpole", "REINFORCE policy for CartPole: MLP, log-softmax, masked returns",
      {{"envs", "parallel environments", &CartpoleConfig::envs},
       {"max-t", "steps per episode", &CartpoleConfig::maxT},
       {"state-dim", "state size", &CartpoleConfig::stateDim},
       {"actions", "actions", &CartpoleConfig::actions},
       {"hidden", "hidden units", &CartpoleConfig::hidden}},
      cartpole));
  r.push_back(
      entry<TicTacToeConfig>("tic-tac-toe", "self-play policy gradient for tic-tac-toe: MLP policy",
                             {{"games", "parallel games", &TicTacToeConfig::games},
                              {"max-moves", "moves per game", &TicTacToeConfig::maxMoves},
                              {"state-dim", "board encoding size", &TicTacToeConfig::stateDim},
                              {"actions", "cells to play", &TicTacToeConfig::actions},
                              {"hidden", "hidden units", &TicTacToeConfig::hidden}},
                             ticTacToe));
  return r;
}

}  // namespace

const std::vector<SampleEntry>& sampleModels() {
  static const std::vector<SampleEntry> registry = makeRegistry();
  return registry;
}

std::string sampleNames() {
  std::string names;
  for (const SampleEntry& e : sampleModels()) names += (names.empty() ? "" : ", ") + e.name;
  return names;
}

const SampleEntry& findSample(const std::string& name) {
  for (const SampleEntry& e : sampleModels())
    if (e.name == name) return e;
  throw std::invalid_argument("unknown model '" + name +
                              "'; the sample models are: " + sampleNames());
}

}  // namespace tg_models
