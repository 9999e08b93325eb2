// Imported first by upstream's Worker in a browser (trace_page.mjs prepends the import to the
// worker bundle): installs kernel_trace.mjs's hook on the worker's own WebGPU prototypes, where
// upstream's runtime records its passes, and answers the page's trace requests. Requests are
// messages marked with MARK; they are taken off before upstream's onmessage sees them
// (this listener is registered first, and stops the event), so upstream's protocol is untouched.
// Messages from the page arrive in order, so an 'arm' sent before a step is in place before the
// step's request is handled.
import { installKernelTrace } from './kernel_trace.mjs';

const MARK = '__tensorgradParityTrace';
const { kernelTrace, deviceErrors } = installKernelTrace(self);
let reported = 0;

function flushErrors() {
  for (; reported < deviceErrors.length; reported++) self.postMessage({ [MARK]: 'deviceError', message: deviceErrors[reported] });
}

self.addEventListener('message', (ev) => {
  const m = ev.data;
  if (!m || typeof m !== 'object' || !(MARK in m)) return;
  ev.stopImmediatePropagation();
  if (m[MARK] === 'arm') {
    try { kernelTrace.arm(m.kernels); } catch (e) { self.postMessage({ [MARK]: 'armError', message: String(e?.message ?? e) }); }
  } else if (m[MARK] === 'collect') {
    kernelTrace.collect().then(
      (outputs) => { flushErrors(); self.postMessage({ [MARK]: 'collected', id: m.id, outputs }); },
      (e) => { flushErrors(); self.postMessage({ [MARK]: 'collected', id: m.id, error: String(e?.message ?? e) }); },
    );
  }
});
