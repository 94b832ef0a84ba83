/**
 * `npm run webhooks:receive -- --secret whsec_…`: a local webhook receiver that verifies every
 * delivery's signature and prints one line per delivery (tooling/webhook-receiver/).
 */

import { runCommand, UsageError } from '../tooling/cli/command.js';
import { startWebhookReceiver } from '../tooling/webhook-receiver/receiver.js';

await runCommand(
  {
    name: 'npm run webhooks:receive --',
    prefix: 'webhooks:receive',
    summary:
      "Listens on 127.0.0.1 for webhook deliveries, verifies each one's PatientCare-Signature with the endpoint's secret and prints `verified <type> <event id>` (answered 200) or `refused <reason>` (answered 400). Stop it with Ctrl-C.",
    options: {
      secret: {
        type: 'string',
        value: 'whsec_…',
        description: 'The endpoint secret createWebhook returned (or set WEBHOOK_SECRET).',
      },
      port: { type: 'string', value: 'N', default: '8000', description: 'Port to listen on.' },
    },
  },
  async ({ values }) => {
    const secret = values.secret ?? process.env.WEBHOOK_SECRET;
    if (secret === undefined || !secret.startsWith('whsec_')) {
      throw new UsageError('--secret (or WEBHOOK_SECRET) must be the endpoint secret, whsec_…');
    }
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError('--port must be an integer from 0 to 65535');
    }
    const { port: bound } = await startWebhookReceiver({
      secret,
      port,
      onDelivery: (delivery) =>
        console.log(
          delivery.verified
            ? `verified ${delivery.type} ${delivery.id}`
            : `refused ${delivery.reason}`,
        ),
    });
    console.log(`receiving webhooks on http://127.0.0.1:${bound}/`);
    // Runs until stopped: Ctrl-C or a signal ends the process.
    await new Promise(() => {});
    return 0;
  },
);
