// Types of tgbundle/playwright (playwright.mjs). `page` is a Playwright Page (playwright-core or
// @playwright/test); it is typed structurally so that the package needs neither.

/** The part of Playwright's Download that saveBundle uses. */
export interface DownloadLike {
  suggestedFilename(): string;
  failure(): Promise<string | null>;
  saveAs(path: string): Promise<void>;
}

/** The part of Playwright's Page that these helpers use. */
export interface PageLike {
  waitForEvent(event: 'download', options: { timeout?: number; predicate?: (d: DownloadLike) => boolean }): Promise<DownloadLike>;
  evaluate<R>(fn: () => R | Promise<R>): Promise<R>;
}

/** Chromium flags for WebGPU on SwiftShader in headless Chromium (with --no-sandbox, for containers). */
export const chromiumWebGPUArgs: readonly string[];

/**
 * The page's WebGPU adapter as recordBundle's `adapter` option takes it
 * (`info.description || [info.vendor, info.architecture].filter(Boolean).join(' ')`), or null
 * when the page has no adapter. Headless Chromium with chromiumWebGPUArgs gives "google swiftshader".
 */
export function webgpuAdapterText(page: PageLike): Promise<string | null>;

export interface SaveBundleOptions {
  /** The file to save the bundle to (required; parent folders are made). */
  path: string;
  /** How long to wait for the download, in ms (default 120000). */
  timeout?: number;
  /** Run once the wait has begun, e.g. () => page.goto(url) or () => page.click('#train'). */
  trigger?: () => unknown | Promise<unknown>;
}

export interface SavedBundle {
  /** The saved file, absolute. */
  path: string;
  /** How many steps the bundle holds. */
  steps: number;
  /** The bundle's `adapter`. */
  adapter: string | null;
  /** The bundle's format version (1 or 2). */
  version: 1 | 2;
  /** The download's suggested file name. */
  filename: string;
}

/**
 * Waits for the page to offer a download named *.tgbundle.json (recordBundle's browser path),
 * saves it to `path` and checks that it is a bundle. Rejects with a message saying the page never
 * offered a bundle on timeout, or that the download is not a bundle.
 */
export function saveBundle(page: PageLike, options: SaveBundleOptions): Promise<SavedBundle>;
