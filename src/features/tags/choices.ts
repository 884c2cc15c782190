/** Who may view a tag's page, and who may change the tag: the choices a tag's input offers. */
export const READ_PERMISSIONS = ['public', 'organization', 'private'] as const;
export const WRITE_PERMISSIONS = ['owner', 'organization'] as const;

/** Tags one batch request may create. */
export const MAX_BATCH_TAGS = 100;

/** A tag's status: a draft is shown to nobody publicly. */
export const TAG_STATUSES = ['published', 'draft'] as const;

/** The looks a public page can take (features/pages/theme.ts styles each). */
export const THEME_PRESETS = ['default', 'minimal', 'bold', 'dark'] as const;

/** A page password's length, in characters: short enough for scrypt's cost to stay bounded. */
export const PAGE_PASSWORD_LENGTH = { min: 4, max: 128 } as const;

/** The largest max_views: what a 32-bit count holds comfortably, and more views than any page gets. */
export const MAX_VIEWS_CAP = 1_000_000_000;
