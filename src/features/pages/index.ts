/**
 * The HTML of public tag pages, without routes: the public door (src/public/) serves it, and the
 * dashboard's editor previews unsaved changes with it.
 */
export {
  beaconScript,
  document,
  NOT_FOUND_PAGE,
  renderTagPage,
  splitAtBeacon,
  UNAVAILABLE_PAGE,
  withoutBeacon,
  type PageAddresses,
  type PageTag,
} from './render.js';
export { EXPIRED_PAGE, passwordPage, type PasswordForm } from './gates.js';
/** The page's look: presets, accents and their stylesheets; the link preview image drawn in it. */
export {
  accentColours,
  accentStylesheetAt,
  DEFAULT_THEME,
  isThemePreset,
  pageTheme,
  PRESET_STYLES,
  THEME_PRESETS,
  type AccentColours,
  type PageTheme,
} from './theme.js';
export { OG_IMAGE_SIZE, renderOgImage, type OgImageInput } from './og-image.js';
/** The tab icon of every page the service serves. */
export { FAVICON_PATH, FAVICON_SVG } from './favicon.js';
