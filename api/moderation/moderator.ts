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

interface Scored {
  frame: FrameResult;
  categories: Categories;
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
    const maxFrames = kind === 'video' ? this.options.videoFrames : this.options.gifFrames;
    let total = maxFrames; // with ffmpeg the exact frame count is known only at the end
    let done = 0;
    const score = async (frame: Frame): Promise<Scored> => {
      const categories = await this.model.classify(frame.rgb);
      const value = scoreOf(categories);
      done += 1;
      await onProgress?.(Math.min(0.99, done / total));
      return {
        categories,
        frame: { index: frame.index, ...(frame.timestamp !== undefined ? { timestamp: frame.timestamp } : {}), score: value, verdict: verdictOf(value), category: topCategory(categories) },
      };
    };
    // All of a file's frames go to the model together (not each after the last is scored), so they share batches.
    let scored: Scored[];
    if (decoder === 'ffmpeg') {
      const pending: Promise<Scored>[] = [];
      await ffmpegFrames(file, kind, maxFrames, async (frame) => {
        const scoring = score(frame);
        scoring.catch(() => undefined); // awaited below, once ffmpeg is done
        pending.push(scoring);
      }, signal);
      scored = await Promise.all(pending);
    } else {
      const frames = decoder === 'pages' ? await pageFrames(file, maxFrames) : await imageFrames(file);
      total = frames.length;
      scored = await Promise.all(frames.map(score));
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
