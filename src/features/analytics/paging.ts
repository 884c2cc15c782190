/**
 * Views and logs page by offset, and a database reaches an offset only by stepping over every
 * row before it (on SQLite on the thread that answers every request): the offset is capped, so
 * one request stays short however many views a tag has. The export reads every view.
 */
export const MAX_VIEWS_OFFSET = 10_000;
