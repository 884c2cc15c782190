import { describe, expect, it } from 'vitest';
import { ApiError, checkFields, InputProblems, notFound, problemsOf, validationError } from '../../src/errors.js';
import { createAccount, expectError, request } from '../helpers/app.js';
import { useApp } from '../helpers/harness.js';

/** The refusals of a call to checkFields, as [field, message] pairs, or its values when none. */
async function outcome<T>(checking: Promise<T>) {
  try {
    return { values: await checking };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { error, refused: problemsOf(error).map((problem) => [problem.details.field, problem.message]) };
  }
}

/** checkFields: every field's refusal at once, the first leading, for forms that show them all. */
describe('checkFields', () => {
  it('answers every value by its check’s name when nothing is refused', async () => {
    const checked = await checkFields({ name: () => 'n', count: async () => 3, nothing: () => undefined });
    expect(checked).toEqual({ name: 'n', count: 3, nothing: undefined });
  });

  it('runs every check and throws all their refusals together, the first leading', async () => {
    const ran: string[] = [];
    const { error, refused } = await outcome(
      checkFields({
        name: () => {
          ran.push('name');
          throw validationError('name', 'name must not be empty');
        },
        fine: () => ran.push('fine'),
        url: async () => {
          ran.push('url');
          throw new ApiError('invalid_url', 'url must be an https:// URL', { field: 'url' });
        },
      }),
    );
    expect(ran).toEqual(['name', 'fine', 'url']);
    expect(refused).toEqual([
      ['name', 'name must not be empty'],
      ['url', 'url must be an https:// URL'],
    ]);
    // What the API answers (one error) is the first refusal, as when checks stopped at it.
    expect(error).toBeInstanceOf(InputProblems);
    expect([error!.code, error!.message, error!.details.field, error!.status]).toEqual([
      'validation_error',
      'name must not be empty',
      'name',
      400,
    ]);
  });

  it('flattens the refusals of nested checks', async () => {
    const inner = () =>
      checkFields({ a: () => Promise.reject(validationError('a', 'bad a')), b: () => Promise.reject(validationError('b', 'bad b')) });
    const { refused } = await outcome(checkFields({ inner, c: () => Promise.reject(validationError('c', 'bad c')) }));
    expect(refused).toEqual([
      ['a', 'bad a'],
      ['b', 'bad b'],
      ['c', 'bad c'],
    ]);
  });

  it('stops at a refusal naming no field: thrown as it is, unless a field was refused before it', async () => {
    const ran: string[] = [];
    const missing = () => {
      ran.push('owner');
      throw notFound('User');
    };
    const later = () => {
      ran.push('later');
      throw validationError('later', 'bad later');
    };
    const alone = await outcome(checkFields({ owner: missing, later }));
    expect(alone.error).not.toBeInstanceOf(InputProblems);
    expect(alone.error?.code).toBe('not_found');
    expect(ran).toEqual(['owner']);

    const after = await outcome(checkFields({ name: () => Promise.reject(validationError('name', 'bad name')), owner: missing, later }));
    expect(after.refused).toEqual([['name', 'bad name']]);
    expect(ran).toEqual(['owner', 'owner']);
  });

  it('lets an error that is no refusal (a bug, an outage) through at once', async () => {
    const bug = new TypeError('x is undefined');
    await expect(checkFields({ a: () => Promise.reject(validationError('a', 'bad a')), b: () => Promise.reject(bug) })).rejects.toBe(bug);
  });

  describe('through the API', () => {
    const t = useApp();

    it('still answers one error, the first field’s, when a body has several problems', async () => {
      const owner = await createAccount(t, 'pro');
      const response = await request(t, 'POST', '/v1/webhooks', {
        key: owner.key,
        body: { name: ' ', url: 'ftp://example.com/hook', events: ['tag.created'], headers: { 'Bad Header': 'x' } },
      });
      expectError(response, 400, 'validation_error', 'name');
      expect(response.body.error.message).toBe('name must not be empty');
    });
  });
});
