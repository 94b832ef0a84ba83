/**
 * The worker thread of `npm run generate`: it loads the generators (TypeScript and
 * openapi-typescript, the heaviest imports of a run) as soon as it starts, while the main thread
 * loads Redocly and parses the spec; then it generates while the main thread validates the
 * same document against the official schema. One request, one answer.
 */
import { parentPort } from 'node:worker_threads';
import { answerOurTree, type OurTreeRequest } from './our-tree.js';

parentPort?.once('message', (request: OurTreeRequest) => {
  void answerOurTree(request).then((answer) => parentPort?.postMessage(answer));
});
