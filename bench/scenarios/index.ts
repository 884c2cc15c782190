import type { Scenario } from '../lib/scenario.js';
import { analyticsExport, analyticsOverview, analyticsTagYear } from './analytics.js';
import { analyticsStall } from './analytics-stall.js';
import { dashboardPages } from './dashboard.js';
import { dashboardAnalytics } from './dashboard-analytics.js';
import { fileDownload, fileDownloadS3, fileUpload, fileUploadS3 } from './files.js';
import { limiterMemory, limiterRedis } from './limiter.js';
import { linkClick } from './link-click.js';
import { me } from './me.js';
import { pageLocked } from './page-locked.js';
import { pageRecording } from './page-recording.js';
import { pageThemed } from './page-themed.js';
import { qrRenderPng, qrRenderSvg } from './qr-render.js';
import { page, tag, tagQr, tagUpdate } from './tags.js';
import { thumbnails } from './thumbnails.js';
import { webhooksFanout, webhooksIdle } from './webhooks.js';

/**
 * Every scenario, in the order they run. A new one is a module in this folder exporting a
 * Scenario, appended here; BENCH_ONLY=<name>[,<name>] runs a subset.
 */
export const scenarios: Scenario[] = [
  me,
  limiterMemory,
  limiterRedis,
  tag,
  tagUpdate,
  page,
  pageLocked,
  pageThemed,
  tagQr,
  dashboardPages,
  qrRenderPng,
  qrRenderSvg,
  fileUpload,
  fileDownload,
  fileUploadS3,
  fileDownloadS3,
  thumbnails,
  // Idle first: it wants the delivery queue empty, and fan-out leaves the worker busy.
  webhooksIdle,
  webhooksFanout,
  // The report scenarios before page-recording, which adds views to the dataset.
  dashboardAnalytics,
  analyticsTagYear,
  analyticsOverview,
  analyticsExport,
  analyticsStall,
  pageRecording,
  // Beside page-recording, on the same page of the same dataset: what a click costs against a view.
  linkClick,
];
