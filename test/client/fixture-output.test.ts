import { expect, test } from 'vitest';
import { makeClientFixture } from '../fixtures/client/make-fixture.js';

// The type tests and runtime tests import these files; they must be what the generator makes now.
test('committed fixture output matches the generator', async () => {
  const { types, client } = await makeClientFixture();
  await expect(types).toMatchFileSnapshot('../fixtures/client/out/types.ts');
  await expect(client).toMatchFileSnapshot('../fixtures/client/out/client.ts');
});
