/**
 * The service process of `npm run dev`: installs the swapping host, then runs `server/main.ts`
 * unchanged (config, database, first key, background work, graceful shutdown). Started and
 * restarted by `service-process.ts`; talks to the toolchain over the IPC channel.
 */
import { installServiceHost } from '../../server/service-host.js';
import type { ContractPayload, FromService, ProblemPayload, ToService } from './messages.js';
import { SwapHost } from './swap-host.js';

const send = (message: FromService) => process.send?.(message);

let resolveInitial: (state: {
  contract: ContractPayload | null;
  problem: ProblemPayload | null;
}) => void;
const initial = new Promise<{ contract: ContractPayload | null; problem: ProblemPayload | null }>(
  (resolve) => {
    resolveInitial = resolve;
  },
);
const host = new SwapHost(initial, send);

process.on('message', (message: ToService) => {
  switch (message.type) {
    case 'state':
      resolveInitial({ contract: message.contract, problem: message.problem });
      break;
    case 'candidate':
      host.candidate(message.contract);
      break;
    case 'commit':
      void host.commit(message.id);
      break;
    case 'discard':
      host.discard(message.id);
      break;
    case 'problem':
      host.live.publish({ problem: message.problem });
      break;
  }
});
// The toolchain went away (killed, crashed): stop as on Ctrl-C.
process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));

installServiceHost(host);
send({ type: 'hello' });
await import('../../server/main.js');
