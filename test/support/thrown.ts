import { ApiError } from '../../server/errors.js';

/** Runs `fn` and returns the ApiError it throws (fails the test when it does not throw one). */
export function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}
