/** `npm run worker`: `patient-care worker` (server/cli/worker.ts), until SIGTERM/SIGINT. */
import { runOperatorCommand } from '../server/cli/operator.js';
import { workerCommand } from '../server/cli/worker.js';

await runOperatorCommand(workerCommand, 'npm run worker --');
