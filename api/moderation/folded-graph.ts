import * as tf from '@tensorflow/tfjs';

/** The model's layers give an input of [batch, height, width, channels] one output; this runs them. */
export type Predict = (input: tf.Tensor4D) => tf.Tensor;

export class UnsupportedModelError extends Error {}

type Activation = 'linear' | 'relu' | 'relu6';
type Config = Record<string, unknown>;
interface Layer {
  name: string;
  className: string;
  config: Config;
  inputs: string[];
}
interface Step {
  inputs: string[];
  output: string;
  run(inputs: tf.Tensor[]): tf.Tensor;
}

/**
 * A Keras layers model (as nsfwjs loads it) run as a few fused kernels: each BatchNormalization is
 * folded into the convolution before it (kernel × γ/√(σ²+ε), bias (b − μ)·γ/√(σ²+ε) + β) and the
 * ReLU or ReLU6 after that becomes the convolution's own activation. The same function up to float
 * rounding; tfjs-layers runs MobileNetV2's 52 batch norms and 70 ReLU/clip ops one by one, which is
 * about half of its time (docs/decisions.md). Throws UnsupportedModelError for a layer it does not know.
 */
export function foldedPredictor(model: tf.LayersModel): Predict {
  const { layers, input, output } = graphOf(model);
  const consumers = new Map<string, Layer[]>();
  for (const layer of layers) for (const from of layer.inputs) consumers.set(from, [...(consumers.get(from) ?? []), layer]);
  // The layer that alone takes `name`'s output, if it is of `className`: only such a one may be folded in.
  const soleNext = (name: string, className: string) => {
    const next = consumers.get(name);
    return name !== output && next?.length === 1 && next[0]!.className === className ? next[0] : undefined;
  };
  const weights = (name: string) =>
    Object.fromEntries(model.getLayer(name).weights.map((w) => [w.originalName.split('/').at(-1)!.replace(/:\d+$/, ''), w.read()]));

  const steps: Step[] = [];
  const renamed = new Map<string, string>(); // a folded or skipped layer's name → the layer whose output stands for it
  const source = (name: string) => renamed.get(name) ?? name;
  for (const layer of layers) {
    if (layer.className === 'InputLayer' || renamed.has(layer.name)) continue;
    const inputs = layer.inputs.map(source);
    const config = layer.config;
    if (config.data_format !== undefined && config.data_format !== 'channels_last') throw unsupported(layer, `data_format ${String(config.data_format)}`);
    switch (layer.className) {
      case 'Conv2D':
      case 'DepthwiseConv2D': {
        const own = weights(layer.name);
        let kernel = (own.kernel ?? own.depthwise_kernel)!;
        let bias = own.bias;
        let activation = activationOf(layer, config.activation);
        let last = layer.name;
        const norm = activation === 'linear' ? soleNext(last, 'BatchNormalization') : undefined;
        if (norm) {
          ({ kernel, bias } = foldBatchNorm(kernel, bias, weights(norm.name), norm, layer.className === 'DepthwiseConv2D'));
          renamed.set(norm.name, layer.name);
          last = norm.name;
        }
        const relu = activation === 'linear' ? soleNext(last, 'ReLU') : undefined;
        if (relu) {
          activation = reluOf(relu);
          renamed.set(relu.name, layer.name);
        }
        const options = { strides: config.strides as [number, number], pad: config.padding as 'same' | 'valid', dilations: config.dilation_rate as [number, number], bias, activation };
        const filter = kernel as tf.Tensor4D;
        steps.push({
          inputs,
          output: layer.name,
          run: ([x]) =>
            layer.className === 'Conv2D'
              ? tf.fused.conv2d({ x: x as tf.Tensor4D, filter, ...options })
              : tf.fused.depthwiseConv2d({ x: x as tf.Tensor4D, filter, ...options }),
        });
        break;
      }
      case 'BatchNormalization': {
        assertChannelAxis(layer);
        const w = weights(layer.name);
        const epsilon = config.epsilon as number;
        steps.push({ inputs, output: layer.name, run: ([x]) => tf.batchNorm(x!, w.moving_mean!, w.moving_variance!, w.beta, w.gamma, epsilon) });
        break;
      }
      case 'ReLU': {
        const activation = reluOf(layer);
        steps.push({ inputs, output: layer.name, run: ([x]) => (activation === 'relu6' ? tf.relu6(x!) : tf.relu(x!)) });
        break;
      }
      case 'ZeroPadding2D': {
        const [rows, columns] = paddingOf(layer);
        steps.push({ inputs, output: layer.name, run: ([x]) => tf.pad(x!, [[0, 0], rows, columns, [0, 0]]) });
        break;
      }
      case 'Add':
        steps.push({ inputs, output: layer.name, run: (xs) => tf.addN(xs) });
        break;
      case 'AveragePooling2D': {
        const size = config.pool_size as [number, number];
        steps.push({ inputs, output: layer.name, run: ([x]) => tf.avgPool(x as tf.Tensor4D, size, (config.strides as [number, number] | null) ?? size, config.padding as 'same' | 'valid') });
        break;
      }
      case 'Flatten':
        steps.push({ inputs, output: layer.name, run: ([x]) => x!.reshape([x!.shape[0]!, -1]) });
        break;
      case 'Dropout': // training only
        renamed.set(layer.name, inputs[0]!);
        break;
      case 'Dense': {
        const w = weights(layer.name);
        const softmax = config.activation === 'softmax';
        const activation = softmax ? 'linear' : activationOf(layer, config.activation);
        steps.push({
          inputs,
          output: layer.name,
          run: ([x]) => {
            const y = tf.fused.matMul({ a: x as tf.Tensor2D, b: w.kernel as tf.Tensor2D, bias: w.bias, activation });
            return softmax ? tf.softmax(y) : y;
          },
        });
        break;
      }
      default:
        throw unsupported(layer, 'this layer');
    }
  }
  const result = source(output);
  // How many steps read each value: a value is disposed after its last reader, as tfjs-layers does.
  const readers = new Map<string, number>();
  for (const step of steps) for (const name of step.inputs) readers.set(name, (readers.get(name) ?? 0) + 1);
  return (x) =>
    tf.tidy(() => {
      const values = new Map<string, tf.Tensor>([[input, x]]);
      const left = new Map(readers);
      for (const step of steps) {
        values.set(step.output, step.run(step.inputs.map((name) => values.get(name)!)));
        for (const name of step.inputs) {
          left.set(name, left.get(name)! - 1);
          if (left.get(name) === 0 && name !== input && name !== result) values.get(name)!.dispose();
        }
      }
      return values.get(result)!;
    });
}

function graphOf(model: tf.LayersModel): { layers: Layer[]; input: string; output: string } {
  type Inbound = [string, number, number, unknown];
  const { config } = model.toJSON(null, false) as unknown as {
    config: { layers: { name: string; class_name: string; config: Config; inbound_nodes: Inbound[][] }[]; input_layers: Inbound[]; output_layers: Inbound[] };
  };
  if (config.input_layers.length !== 1 || config.output_layers.length !== 1) throw new UnsupportedModelError('The model has more than one input or output');
  const layers = config.layers.map((layer) => {
    if (layer.inbound_nodes.length > 1) throw new UnsupportedModelError(`Layer ${layer.name} is shared`);
    return { name: layer.name, className: layer.class_name, config: layer.config, inputs: (layer.inbound_nodes[0] ?? []).map(([name]) => name) };
  });
  return { layers, input: config.input_layers[0]![0], output: config.output_layers[0]![0] };
}

/** The folded kernel and bias of a convolution followed by a batch norm over its output channels. */
function foldBatchNorm(kernel: tf.Tensor, bias: tf.Tensor | undefined, norm: Record<string, tf.Tensor>, layer: Layer, depthwise: boolean): { kernel: tf.Tensor; bias: tf.Tensor } {
  assertChannelAxis(layer);
  return tf.tidy(() => {
    const { gamma, beta, moving_mean: mean, moving_variance: variance } = norm;
    const scale = tf.rsqrt(tf.add(variance!, layer.config.epsilon as number)).mul(gamma ?? 1);
    // A kernel is [h, w, in, out]; a depthwise one [h, w, in, multiplier], whose output channel is in × multiplier + m.
    const folded = kernel.mul(depthwise ? scale.reshape(kernel.shape.slice(2)) : scale);
    const shift = tf.sub(bias ?? 0, mean!).mul(scale).add(beta ?? 0);
    return { kernel: folded, bias: shift };
  });
}

/** Batch norms here normalise over channels, the last axis (NHWC). */
function assertChannelAxis(layer: Layer): void {
  const axis = ([] as unknown[]).concat(layer.config.axis);
  if (axis.length !== 1 || (axis[0] !== -1 && axis[0] !== 3)) throw unsupported(layer, `axis ${String(layer.config.axis)}`);
}

function reluOf(layer: Layer): Activation {
  const { max_value: max, negative_slope: slope = 0, threshold = 0 } = layer.config as { max_value?: number | null; negative_slope?: number; threshold?: number };
  if (slope !== 0 || threshold !== 0 || (max != null && max !== 6)) throw unsupported(layer, 'a leaky, shifted or capped ReLU');
  return max === 6 ? 'relu6' : 'relu';
}

function activationOf(layer: Layer, name: unknown): Activation {
  if (name === 'linear' || name === 'relu' || name === 'relu6') return name;
  throw unsupported(layer, `activation ${String(name)}`);
}

function paddingOf(layer: Layer): [[number, number], [number, number]] {
  const padding = layer.config.padding as number | [number, number] | [[number, number], [number, number]];
  if (typeof padding === 'number') return [[padding, padding], [padding, padding]];
  return padding.map((side) => (typeof side === 'number' ? [side, side] : side)) as [[number, number], [number, number]];
}

function unsupported(layer: Layer, what: string): UnsupportedModelError {
  return new UnsupportedModelError(`Cannot fold ${layer.className} ${layer.name}: ${what} is not supported`);
}
