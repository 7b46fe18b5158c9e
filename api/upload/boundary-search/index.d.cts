type MatchCallback = (isMatch: boolean, data: Buffer | undefined, start: number, end: number, isDataSafe: boolean) => void;

declare class BoundarySearch {
  constructor(needle: string | Buffer, cb: MatchCallback);
  maxMatches: number;
  matches: number;
  push(chunk: Buffer | string, pos?: number): number;
  reset(): void;
  destroy(): void;
}

export = BoundarySearch;
