/**
 * The NDJSON shape and key kernels, one module over one memory (ndjson-shape-kernel.ts,
 * ndjson-key-kernel.ts): one instance per process, so a reader that switches between them holds
 * one window, one slot area and one set of string caches.
 */
import { keyKernelBody } from './ndjson-key-kernel.js';
import { instantiate, type ShapeKernel } from './ndjson-shape-kernel.js';

let shared: ShapeKernel | null | undefined;

/** The kernels, instantiated once; null where WebAssembly is not available. */
export function ndjsonKernels(): ShapeKernel | null {
  if (shared === undefined) shared = instantiate(keyKernelBody());
  return shared;
}
