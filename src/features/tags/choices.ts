/** Who may view a tag's page, and who may change the tag: the choices a tag's input offers. */
export const READ_PERMISSIONS = ['public', 'organization', 'private'] as const;
export const WRITE_PERMISSIONS = ['owner', 'organization'] as const;

/** Tags one batch request may create. */
export const MAX_BATCH_TAGS = 100;
