import { RevisionCache } from '../../perf/revision-cache.js';
import { decodedSize, type DecodedSet } from './visitor-sets.js';

/**
 * The visitor sets this process has decoded, by revision (perf/revision-cache.ts): the scope
 * sets (scope-visitors.ts) and the tags' month sets (tag-visitors.ts). A large account's year
 * is about 6 MB of them, a busy tag's 2 MB, and each is written once or a few times, when its
 * day or month closes, so a report mostly finds them kept and reads only their revisions.
 */
export const keptSets = new RevisionCache<DecodedSet>(64 * 1024 * 1024, decodedSize);
