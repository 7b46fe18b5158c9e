import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import * as nsfwjs from 'nsfwjs';
import { foldedPredictor, type Predict, UnsupportedModelError } from './folded-graph.js';
import { INPUT_SIZE, type ThreadReply, type ThreadRequest } from './model.js';
import { type Categories, toCategories } from './verdict.js';

// A worker thread holding one model instance (model.ts starts it). The weights ship inside the npm
// package; nothing is downloaded. Every tensor made here is disposed (leaks fill servers).

// The model's output classes in order (nsfwjs/dist/esm/nsfw_classes.js, which nsfwjs does not export).
const CLASS_NAMES = ['Drawing', 'Hentai', 'Neutral', 'Porn', 'Sexy'];

const port = parentPort;
if (!port) throw new Error('model-thread.ts runs as a worker thread (model.ts starts it)');

const require = createRequire(import.meta.url);
setWasmPaths(`${path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm'))}/`);
await tf.setBackend('wasm');
await tf.ready();
tf.enableProdMode();
const nsfw = await nsfwjs.load('MobileNetV2');
const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
const { predict, how } = predictorOf(nsfw.model);

/**
 * The model folded into fused kernels (folded-graph.ts, twice as fast), once it answers as the
 * model itself does on a test input; otherwise, as a model it cannot fold, the model as tfjs-layers runs it.
 */
function predictorOf(model: tf.LayersModel | tf.GraphModel): { predict: Predict; how: string } {
  const plain: Predict = (x) => model.predict(x) as tf.Tensor;
  if (!(model instanceof tf.LayersModel)) return { predict: plain, how: 'graph model' };
  let folded: Predict;
  try {
    folded = foldedPredictor(model);
  } catch (err) {
    if (err instanceof UnsupportedModelError) return { predict: plain, how: `not folded: ${err.message}` };
    throw err;
  }
  const difference = tf.tidy(() => {
    const probe = tf.randomUniform([2, INPUT_SIZE, INPUT_SIZE, 3], 0, 1, 'float32', 43) as tf.Tensor4D;
    return tf.max(tf.abs(tf.sub(plain(probe), folded(probe)))).dataSync()[0]!;
  });
  return difference < 1e-4 ? { predict: folded, how: 'batch norms folded' } : { predict: plain, how: `not folded: it differs by ${difference}` };
}

/**
 * `count` frames laid end to end, through the model in one call as a tensor4d [count, 224, 224, 3].
 * nsfwjs's own classify takes one image (it reshapes to a batch of 1); this is its normalisation
 * (value / 255) and its model, for a batch.
 */
async function classifyBatch(pixels: Uint8Array, count: number): Promise<Categories[]> {
  const probabilities = tf.tidy(() => {
    const frames = tf.tensor4d(pixels, [count, INPUT_SIZE, INPUT_SIZE, 3], 'int32');
    return predict(frames.toFloat().div(255) as tf.Tensor4D);
  });
  try {
    const values = await probabilities.data();
    return Array.from({ length: count }, (_, i) =>
      toCategories(CLASS_NAMES.map((className, c) => ({ className, probability: values[i * CLASS_NAMES.length + c]! }))),
    );
  } finally {
    probabilities.dispose();
  }
}

async function answer(request: ThreadRequest): Promise<ThreadReply> {
  try {
    const value = request.kind === 'classify' ? await classifyBatch(request.pixels, request.count) : tf.memory().numTensors;
    return { id: request.id, ok: true, value };
  } catch (err) {
    return { id: request.id, ok: false, error: (err as Error).message };
  }
}

port.on('message', (request: ThreadRequest) => void answer(request).then((reply) => port.postMessage(reply)));
port.postMessage({ ready: true, device: `cpu (tfjs ${tf.getBackend()}${simd ? ' simd' : ''}, ${how})` } satisfies ThreadReply);
