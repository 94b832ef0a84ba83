/** `npm run doctor [-- --limit N --json]`: `patient-care doctor` (server/cli/doctor.ts). */
import { doctorCommand } from '../server/cli/doctor.js';
import { runOperatorCommand } from '../server/cli/operator.js';

await runOperatorCommand(doctorCommand, 'npm run doctor --');
