/** madge 8 ships no types; this is the part test/unit/architecture.test.ts uses (see its readme). */
declare module 'madge' {
  interface MadgeConfig {
    fileExtensions?: string[];
    tsConfig?: string;
    detectiveOptions?: Record<string, Record<string, unknown>>;
  }

  interface MadgeResult {
    /** Each file (relative to the base directory) with the files it imports. */
    obj(): Record<string, string[]>;
    /** Every import circle, as the files in it. */
    circular(): string[][];
  }

  function madge(path: string, config?: MadgeConfig): Promise<MadgeResult>;
  export = madge;
}
