// Types of tgbundle.mjs (the graph bundle recorder). The bundle's fields: BUNDLE_FORMAT.md.

/** A graph bundle as BUNDLE_FORMAT.md describes it (the JSON object written by recordBundle). */
export interface Bundle {
  format: 'tensorgrad-bundle';
  /** 2 when a step or forward run has captures, else 1. */
  version: 1 | 2;
  /** Upstream's version as the `tensorgrad` option gave it, or null. */
  tensorgrad: string | null;
  /** The WebGPU adapter as the `adapter` option gave it, or null; tgparity picks the native device by it. */
  adapter: string | null;
  training: {
    inputs: BundleInput[];
    optimizer: Record<string, unknown> & { kind: string; lr: unknown };
    seed: number;
    paramNames: string[];
    graph: BundleGraph;
    paramGrads: Record<string, number>;
    writebacks: { source: number; destName: string; destKind: 'param' | 'state' }[];
    kernels: BundleKernel[];
  };
  forwards: {
    name: string;
    inputs: BundleInput[];
    output: 'f32' | 'i32';
    graph: BundleGraph;
    kernels: BundleKernel[];
    runs: {
      afterStep: number;
      feeds: Record<string, BundleTensor>;
      output: BundleTensor;
      captures?: Record<string, BundleTensor>;
    }[];
  }[];
  /** base64 of a safetensors file: the initial parameters (F32), in paramNames order. */
  params: string;
  steps: BundleStep[];
}

export interface BundleInput { name: string; shape: number[]; dtype: 'f32' | 'i32' }

/** A tensor's bytes: base64 of little-endian data. */
export interface BundleTensor { dtype: 'f32' | 'i32'; shape: number[]; data: string }

export interface BundleGraph {
  ops: Record<string, unknown>[];
  tensors: {
    id: number; shape: number[]; dtype: string; source: number;
    site: { opName: string; frames: string[] } | null;
  }[];
  outputs: number[];
  captures: Record<string, number>;
}

export interface BundleKernel {
  opIndex: number; opKind: string; wgsl: string; bindings: number[]; threads: number; workgroupSize: number;
}

export interface BundleStep {
  feeds: Record<string, BundleTensor>;
  /** The lr set with train.setLR before this step, or null. */
  setLR: unknown;
  /** The step's loss as f32 bits, 8 lowercase hex digits. */
  loss: string;
  captures?: Record<string, BundleTensor>;
}

/** A forward recorded when the bundle is written: attached with train.attach(spec) and run once on feed. */
export interface ForwardToRecord {
  /** As for train.attach. */
  spec: unknown;
  /** The inputs by name, or a function returning them when the bundle is saved. */
  feed: Record<string, ArrayLike<number>> | (() => Record<string, ArrayLike<number>>);
}

export interface RecordBundleOptions {
  /** How many steps to record (default 10); 0 records every step until save(). */
  steps?: number;
  /** The file in Node; the download's name in a browser (default 'model.tgbundle.json'). */
  path?: string;
  /** Forwards to attach and run once when the bundle is written, by name. */
  forwards?: Record<string, ForwardToRecord>;
  /** Free text recorded as the bundle's `tensorgrad` (upstream's version). */
  tensorgrad?: string | null;
  /**
   * The WebGPU adapter, recorded as the bundle's `adapter`; tgparity picks the native device by it:
   * `info.description || [info.vendor, info.architecture].filter(Boolean).join(' ')` of
   * `(await navigator.gpu.requestAdapter()).info`.
   */
  adapter?: string | null;
}

export interface BundleRecorder {
  /** The bundle object, once it is written; rejects when the recording failed. */
  readonly done: Promise<Bundle>;
  /** Writes the bundle now, with the steps recorded so far. */
  save(): Promise<Bundle>;
  /** Steps recorded so far. */
  readonly steps: number;
}

/**
 * Records a graph bundle of the training `train` (what `tg.compile(spec)` returned): wraps
 * `train.step` and `train.setLR`, and after `options.steps` completed steps writes the bundle
 * (a file in Node, a download in a browser). Call it after compile, before the first step.
 * @param tg the tensorgrad module (`import * as tg from 'tensorgrad'`)
 * @param train what `tg.compile(spec)` returned
 * @param spec the spec passed to compile
 */
export function recordBundle(tg: unknown, train: unknown, spec: unknown, options?: RecordBundleOptions): BundleRecorder;

/**
 * Writes a bundle object as its JSON: the file `path` in Node, a download named after `path`'s
 * last part in a browser. What recordBundle calls when it saves.
 */
export function writeBundle(bundle: Bundle | object, path: string): Promise<void>;
