import { isThemePreset, pageTheme, THEME_PRESETS } from '../../features/pages/index.js';
import { describedBy, fieldId, FieldMessages } from '../components/forms.js';

/** The page's look as the edit form holds it. */
export interface ThemeValues {
  preset: string;
  /** #rrggbb, the colour input's value: the owner's accent, else the preset's own. */
  accent: string;
  /** Whether the page takes the preset's own accent (the accent is then only what the input shows). */
  presetAccent: boolean;
}

/** The fields of ThemeFields that can have an error, in the page's order. */
export const THEME_ORDER = ['theme', 'accent_color'];

const PRESET_LOOKS: Record<(typeof THEME_PRESETS)[number], { label: string; about: string }> = {
  default: { label: 'Default', about: 'A card on a soft tint; follows dark mode.' },
  minimal: { label: 'Minimal', about: 'White page, black type.' },
  bold: { label: 'Bold', about: 'Big type, filled buttons.' },
  dark: { label: 'Dark', about: 'Light on blue-black, always.' },
};

/** The accent a preset shows when the owner chose none. */
export function presetAccent(preset: string): string {
  return pageTheme(isThemePreset(preset) ? preset : 'default', null).colours.accent;
}

/**
 * A small drawing of a page in the preset: its background, card, heading and a button, in the
 * preset's own colours (its `.theme-<preset>` rules, which the dashboard's stylesheet includes).
 */
function Sample({ preset }: { preset: string }) {
  return (
    <span class={`theme-sample theme-${preset}`} aria-hidden="true">
      <span class="theme-sample-card">
        <span class="theme-sample-title"></span>
        <span class="theme-sample-text"></span>
        <span class="theme-sample-button"></span>
      </span>
    </span>
  );
}

/**
 * The four presets as radio cards with a sample of each, and the accent: a colour, or the
 * preset's own. The editor's preview shows the choice at once; tags.js keeps the colour input
 * on the chosen preset's accent while "Use the theme’s accent" is ticked, and unticks it when a
 * colour is picked.
 */
export function ThemeFields({ values, errors }: { values: ThemeValues; errors: Record<string, string> }) {
  const themeId = fieldId('theme');
  const accentId = fieldId('accent_color');
  const accentHint = 'Links and buttons take it, darkened or lightened where text needs the contrast.';
  return (
    <>
      <fieldset
        id={themeId}
        class={errors.theme ? 'field field-invalid' : 'field'}
        aria-describedby={describedBy(themeId, undefined, errors.theme)}
      >
        <legend>Theme</legend>
        <div class="theme-choices">
          {THEME_PRESETS.map((preset) => (
            <label key={preset} class="theme-choice">
              <input
                type="radio"
                name="theme_preset"
                value={preset}
                checked={values.preset === preset}
                data-accent={presetAccent(preset)}
                aria-labelledby={`theme-${preset}-name`}
                aria-describedby={`theme-${preset}-about`}
              />
              <Sample preset={preset} />
              <span class="theme-name" id={`theme-${preset}-name`}>
                {PRESET_LOOKS[preset].label}
              </span>
              <span class="theme-about" id={`theme-${preset}-about`}>
                {PRESET_LOOKS[preset].about}
              </span>
            </label>
          ))}
        </div>
        <FieldMessages id={themeId} error={errors.theme} />
      </fieldset>
      <div class={errors.accent_color ? 'field field-invalid' : 'field'}>
        <label for={accentId}>Accent colour</label>
        <div class="accent-row">
          <input
            id={accentId}
            name="accent_color"
            type="color"
            value={values.accent}
            class="accent-input"
            aria-invalid={errors.accent_color ? 'true' : undefined}
            aria-describedby={describedBy(accentId, accentHint, errors.accent_color)}
          />
          <label class="checkbox checkbox-plain" for="field-preset_accent">
            <input type="checkbox" id="field-preset_accent" name="preset_accent" value="yes" checked={values.presetAccent} />
            <span>Use the theme’s accent</span>
          </label>
        </div>
        <FieldMessages id={accentId} hint={accentHint} error={errors.accent_color} />
      </div>
    </>
  );
}
