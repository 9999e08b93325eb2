// Dumps the training graphs upstream tensorgrad builds for the README MLP and its transformer
// sample (run by gen_upstream_graphs.sh against a compiled upstream checkout).
import * as tg from './dist/index.js';
import { writeFileSync } from 'node:fs';
const { Module, Linear, LayerNorm, mul, sub, mean, relu, add, sum, swapAxes, matmul, embedding, arange, softmaxCausal,
        splitHeads, mergeHeads, crossEntropy, capture, lr } = tg;

class MLP extends Module { l1 = new Linear(1, 64); l2 = new Linear(64, 64); l3 = new Linear(64, 1) }
const mlpFwd = (p, x) => p.l3.fwd(relu(p.l2.fwd(relu(p.l1.fwd(x)))));
const mlpLoss = (p, { x, y }) => { const d = sub(mlpFwd(p, x), y); return mean(mul(d, d)); };

const D = 64, H = 4, L = 3, V = 12, S = 9, T = 8, B = 128;
class Attention extends Module { q = new Linear(D, D, { bias: false }); k = new Linear(D, D, { bias: false }); v = new Linear(D, D, { bias: false }); o = new Linear(D, D, { bias: false }) }
class Mlp extends Module { up = new Linear(D, 4 * D); down = new Linear(4 * D, D) }
class Block extends Module { ln1 = new LayerNorm(D); attn = new Attention(); ln2 = new LayerNorm(D); mlp = new Mlp() }
class Transformer extends Module {
  constructor() { super(); this.tok_emb = this.param([V, D]); this.pos_emb = this.param([S, D]); this.layers = []; for (let i = 0; i < L; i++) this.layers.push(new Block()); this.lnf = new LayerNorm(D) }
}
function attn(p, x, i) {
  const q = splitHeads(p.q.fwd(x), H), k = splitHeads(p.k.fwd(x), H), v = splitHeads(p.v.fwd(x), H);
  const s = mul(matmul(q, swapAxes(k, -1, -2)), 1 / Math.sqrt(D / H));
  return p.o.fwd(mergeHeads(matmul(capture(`attn.${i}`, softmaxCausal(s)), v)));
}
function block(p, x, i) { const x1 = add(x, attn(p.attn, p.ln1.fwd(x), i)); return add(x1, p.mlp.down.fwd(relu(p.mlp.up.fwd(p.ln2.fwd(x1))))) }
function fwd(p, tokens) {
  let x = add(embedding(p.tok_emb, tokens), embedding(p.pos_emb, arange(T)));
  for (let i = 0; i < p.layers.length; i++) { x = capture(`residual.${i}`, x); x = block(p.layers[i], x, i) }
  return matmul(p.lnf.fwd(x), swapAxes(p.tok_emb, -1, -2));
}
const tLoss = (p, { tokens, targets, mask }) => mul(sum(mul(crossEntropy(fwd(p, tokens), targets, { reduction: 'none' }), mask)), 1 / (B * 3));

function toJson(ir) {
  const g = ir.graph;
  return {
    ops: g.ops.map(op => ({ ...op })),
    tensors: g.tensors.map(t => ({ id: t.id, shape: [...t.shape], dtype: t.dtype, source: t.source })),
    outputs: [...g.outputs],
    captures: Object.fromEntries(g.captures),
    kernels: ir.kernels.filter(k => k.wgsl !== '').length,
  };
}
const mlp = await tg.trace({ model: new MLP(), loss: mlpLoss, inputs: { x: [256, 1], y: [256, 1] }, optimizer: { kind: 'adam', lr: 0.005 } });
const tr = await tg.trace({ model: new Transformer(), loss: tLoss,
  inputs: { tokens: { shape: [B, T], dtype: 'i32' }, targets: { shape: [B, T], dtype: 'i32' }, mask: [T] },
  optimizer: { kind: 'adamw', lr: lr.linear({ peak: 0.005, final: 0.0005, steps: 1500 }), weightDecay: 0.01, clipGradNorm: 1.0 } });
writeFileSync('upstream_mlp.json', JSON.stringify(toJson(mlp)));
writeFileSync('upstream_transformer.json', JSON.stringify(toJson(tr)));
console.log('mlp ops', mlp.graph.ops.length, 'kernels', toJson(mlp).kernels, '; transformer ops', tr.graph.ops.length, 'kernels', toJson(tr).kernels);
