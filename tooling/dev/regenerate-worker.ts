/** The worker thread that runs `regenerate` (see there for why it is a thread of its own). */
import { parentPort } from 'node:worker_threads';
import { type RegenerateRequest, regenerate } from './regenerate.js';

parentPort?.on('message', (request: RegenerateRequest) => {
  void regenerate(request).then((result) => parentPort?.postMessage(result));
});
