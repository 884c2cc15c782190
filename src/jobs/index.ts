import type { Job } from './runner.js';

/** Every periodic job the worker runs. Features add theirs here. */
export const jobs: Job[] = [];
