/** `npm run audit -- …`: `patient-care audit` (server/cli/audit.ts). */
import { auditCommand } from '../server/cli/audit.js';
import { runOperatorCommand } from '../server/cli/operator.js';

await runOperatorCommand(auditCommand, 'npm run audit --');
