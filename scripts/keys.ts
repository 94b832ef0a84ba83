/** `npm run keys -- create|list|revoke|version`: `patient-care keys` (server/cli/keys.ts). */
import { keysCommand } from '../server/cli/keys.js';
import { runOperatorCommand } from '../server/cli/operator.js';

await runOperatorCommand(keysCommand, 'npm run keys --');
