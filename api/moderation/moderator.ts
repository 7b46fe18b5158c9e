import { AppError } from '../../shared/errors.js';
import { detectMedia, ffmpegFrames, type Frame, imageFrames, type MediaKind, pageFrames } from './media.js';
import { MODEL_NAME, type NsfwModel } from './model.js';
import { type Categories, type Category, scoreOf, topCategory, type Verdict, verdictOf } from './verdict.js';

export interface FrameResult {
  index: number;
  timestamp?: number;
  score: number;
  verdict: Verdict;
  category: Category;
}

export interface ModerationResult {
  success: true;
  mediaType: MediaKind;
  verdict: Verdict;
  score: number;
  category: Category;
  categories: Categories;
  frames?: FrameResult[];
  /** the frame whose verdict is the file's (multi-frame media) */
  worstFrame?: number;
  model: string;
  elapsedMs: number;
}

export interface ModeratorOptions {
  gifFrames: number;
  videoFrames: number;
}

/** Decodes a stored file into frames and scores each with the model; a file is its worst frame. */
export class Moderator {
  constructor(
    private readonly model: NsfwModel,
    private readonly options: ModeratorOptions,
  ) {}

  /** `expected` narrows what a route accepts; 'any' picks by content. */
  async moderate(file: string, expected: MediaKind | 'any', onProgress?: (fraction: number) => Promise<void>, signal?: AbortSignal): Promise<ModerationResult> {
    const started = performance.now();
    const { kind, decoder } = await detectMedia(file);
    if (expected !== 'any' && kind !== expected) {
      throw AppError.badRequest(`This is ${kind === 'image' ? 'an image' : `a ${kind}`}, not ${expected === 'image' ? 'an image' : `a ${expected}`}: use /moderate-${kind} or /moderate-media`);
    }
    const scored: { frame: FrameResult; categories: Categories }[] = [];
    const maxFrames = kind === 'video' ? this.options.videoFrames : this.options.gifFrames;
    let total = maxFrames; // with ffmpeg the exact frame count is known only at the end
    const score = async (frame: Frame) => {
      const categories = await this.model.classify(frame.rgb);
      const value = scoreOf(categories);
      scored.push({
        categories,
        frame: { index: frame.index, ...(frame.timestamp !== undefined ? { timestamp: frame.timestamp } : {}), score: value, verdict: verdictOf(value), category: topCategory(categories) },
      });
      await onProgress?.(Math.min(0.99, scored.length / total));
    };
    if (decoder === 'ffmpeg') {
      await ffmpegFrames(file, kind, maxFrames, score, signal);
    } else {
      const frames = decoder === 'pages' ? await pageFrames(file, maxFrames) : await imageFrames(file);
      total = frames.length;
      for (const frame of frames) await score(frame);
    }
    const worst = scored.reduce((a, b) => (b.frame.score > a.frame.score ? b : a));
    return {
      success: true,
      mediaType: kind,
      verdict: worst.frame.verdict,
      score: worst.frame.score,
      category: worst.frame.category,
      categories: worst.categories,
      ...(kind === 'image' ? {} : { frames: scored.map((s) => s.frame), worstFrame: worst.frame.index }),
      model: MODEL_NAME,
      elapsedMs: Math.round(performance.now() - started),
    };
  }
}
