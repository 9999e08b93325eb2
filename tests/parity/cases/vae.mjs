// samples/vae at small sizes: 8×8 "images" (64 pixels), hidden 256, latent 8, B = 32; Adam 1e-3,
// clip 1; ε from in-graph randn. Hidden 256 keeps encMu/encLogV's K = 256, N = 8 matmuls on the
// workgroup-tree kernel as at full size; the reconstruction sum (2048) and the KL sum (256) are
// tree reductions too. Pixels are sparse like MNIST's. main.ts's forwards: encode (x → μ, run at
// B = 2 for the interpolation endpoints) and decode (z → image, run at B = 9 for the sample grid
// and B = 1 for the interpolation), both attached with a parametric batch; the latents are
// approximately N(0, 1) (sum of 12 uniforms − 6, in double).
import { pixels, gauss } from './feeds.mjs';

export default (tg) => {
  const { Module, Linear, add, sub, mul, sum, exp, sigmoid, relu, randn, square } = tg;
  const IN = 64, Z = 8, H = 256, B = 32, BETA = 1.0;
  class VAE extends Module {
    enc1 = new Linear(IN, H);
    enc2 = new Linear(H, H);
    encMu = new Linear(H, Z);
    encLogV = new Linear(H, Z);
    dec1 = new Linear(Z, H);
    dec2 = new Linear(H, H);
    decOut = new Linear(H, IN);
  }
  const encoder = (m, x) => {
    let h = relu(m.enc1.fwd(x));
    h = relu(m.enc2.fwd(h));
    return { mu: m.encMu.fwd(h), logVar: m.encLogV.fwd(h) };
  };
  const decoder = (m, z) => {
    let h = relu(m.dec1.fwd(z));
    h = relu(m.dec2.fwd(h));
    return sigmoid(m.decOut.fwd(h));
  };
  const loss = (m, { x }) => {
    const b = x.shape[0];
    const { mu, logVar } = encoder(m, x);
    const eps = randn([b, Z]);
    const sigma = exp(mul(logVar, 0.5));
    const z = add(mu, mul(sigma, eps));
    const xHat = decoder(m, z);
    const recon = mul(sum(square(sub(xHat, x))), 1 / b);
    const klElem = mul(sub(sub(add(logVar, 1), square(mu)), exp(logVar)), -0.5);
    const kl = mul(sum(klElem), 1 / b);
    return add(recon, mul(kl, BETA));
  };
  const encode = { forward: (m, { x }) => encoder(m, x).mu, inputs: { x: [null, IN] } };
  const decode = { forward: (m, { z }) => decoder(m, z), inputs: { z: [null, Z] } };
  return {
    name: 'vae',
    feedSeed: 12,
    steps: 20,
    training: {
      model: new VAE(),
      loss,
      inputs: { x: [B, IN] },
      optimizer: { kind: 'adam', lr: 1e-3, clipGradNorm: 1.0 },
      seed: 6,
    },
    feed: (rng) => ({ x: pixels(rng, B * IN) }),
    forwards: [
      { name: 'encode', spec: encode, feed: (rng) => ({ x: pixels(rng, 2 * IN) }) },
      { name: 'decode_grid', spec: decode, feed: (rng) => ({ z: gauss(rng, 9 * Z) }) },
      { name: 'decode_one', spec: decode, feed: (rng) => ({ z: gauss(rng, Z) }) },
    ],
  };
};
