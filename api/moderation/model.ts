import { createRequire } from 'node:module';
import path from 'node:path';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as nsfwjs from 'nsfwjs';
import { toCategories, type Categories } from './verdict.js';

export const MODEL_NAME = 'nsfwjs MobileNetV2';
export const INPUT_SIZE = 224;

/**
 * nsfwjs MobileNetV2 on TensorFlow.js with the WebAssembly backend. The weights ship inside the
 * npm package; nothing is downloaded. Every tensor made here is disposed (leaks fill servers).
 */
export class NsfwModel {
  private model: nsfwjs.NSFWJS | undefined;

  get device(): string {
    return `cpu (tfjs ${tf.getBackend() ?? 'wasm'})`;
  }

  async load(): Promise<void> {
    if (this.model) return;
    const require = createRequire(import.meta.url);
    setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
    await tf.setBackend('wasm');
    await tf.ready();
    tf.enableProdMode();
    this.model = await nsfwjs.load('MobileNetV2');
  }

  /** Classifies one 224×224 RGB frame into the four categories (probabilities summing to 1). */
  async classify(rgb: Uint8Array): Promise<Categories> {
    if (!this.model) throw new Error('model not loaded');
    const input = tf.tensor3d(rgb, [INPUT_SIZE, INPUT_SIZE, 3], 'int32');
    try {
      return toCategories(await this.model.classify(input, 5));
    } finally {
      input.dispose();
    }
  }

  /** Tensors alive right now (the model's weights and nothing else, between requests). */
  tensorCount(): number {
    return tf.memory().numTensors;
  }
}
