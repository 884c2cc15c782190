import type { SignedInUser } from '../../features/accounts/index.js';
import { QR_MAX_SIZE, QR_MIN_SIZE } from '../../features/tags/index.js';
import { Alert, Field, SelectField, SubmitButton } from '../components/forms.js';
import { renderAppPage, type PageContext } from '../components/layout.js';
import { TagHeader, tagPath } from './tag-header.js';
import type { UserTag } from './user-tag.js';

/** The QR options as the form shows them: colours as 6 hex digits without '#'. */
export interface QrFormValues {
  format: string;
  size: string;
  color: string;
  background: string;
}

export interface TagQrPage {
  tag: UserTag;
  /** What the code encodes: the tag's scan address. */
  scanUrl: string;
  values: QrFormValues;
  /** Set when the options are valid: then the preview shows them. */
  options?: object;
  errors: Record<string, string>;
}

const FORMATS = [
  { value: 'png', label: 'PNG (image)' },
  { value: 'svg', label: 'SVG (vector, for print)' },
];

/** The query of the image and download addresses for these options. */
function optionsQuery(values: QrFormValues): string {
  return new URLSearchParams({ format: values.format, size: values.size, color: values.color, background: values.background }).toString();
}

/** /dashboard/tags/{id}/qr: preview, options and download of the tag's QR code. */
export function renderTagQr(context: PageContext & { user: SignedInUser }, page: TagQrPage): string {
  const { tag, values, errors } = page;
  const base = tagPath(tag, 'qr');
  return renderAppPage(
    { ...context, path: base },
    `QR code · ${tag.title}`,
    <>
      <TagHeader tag={tag} current="qr" />
      {!page.options && <Alert kind="error">These options cannot make a QR code: correct the form below.</Alert>}
      <div class="grid qr-grid">
        <section class="card qr-preview" aria-labelledby="qr-preview-heading">
          <h2 id="qr-preview-heading">Preview</h2>
          <figure>
            <div class="qr-frame">
              {page.options ? (
                <img
                  id="qr-preview-image"
                  src={`${base}/image?${optionsQuery(values)}`}
                  alt={`QR code of ${page.scanUrl}`}
                  width={240}
                  height={240}
                  data-qr-base={`${base}/image`}
                />
              ) : (
                <p class="muted">No preview for these options.</p>
              )}
            </div>
            <figcaption>
              <span id="qr-caption">{`${values.size} × ${values.size} px, ${values.format.toUpperCase()}`}</span>
              <br />
              Scanning opens <a href={page.scanUrl}>{page.scanUrl}</a>; scans are counted apart from views in Analytics.
            </figcaption>
          </figure>
        </section>
        <section class="card" aria-labelledby="qr-options-heading">
          <h2 id="qr-options-heading">Options</h2>
          <form method="get" action={`${base}/download`} class="stack" id="qr-form">
            <Field
              name="size"
              label="Size (pixels)"
              type="number"
              min={QR_MIN_SIZE}
              max={QR_MAX_SIZE}
              autocomplete="off"
              value={values.size}
              hint={`${QR_MIN_SIZE} to ${QR_MAX_SIZE}. The image is exactly this wide and high, quiet zone included.`}
              error={errors.size}
            />
            <div class="qr-colours">
              <Field name="color" label="Foreground" type="color" autocomplete="off" value={`#${values.color}`} error={errors.color} />
              <Field
                name="background"
                label="Background"
                type="color"
                autocomplete="off"
                value={`#${values.background}`}
                error={errors.background}
              />
            </div>
            <SelectField name="format" label="Format" options={FORMATS} value={values.format} error={errors.format} />
            <p class="field-hint">Keep a dark foreground on a light background with strong contrast, or scanners may fail.</p>
            <div class="actions">
              <SubmitButton>Download</SubmitButton>
            </div>
          </form>
        </section>
      </div>
    </>,
    { scripts: ['tag-qr.js'] },
  );
}
