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
      "Listens on 127.0.0.1 for webhook deliveries, verifies each one's PatientCare-Signature with the endpoint's secret and prints `verified <type> <event id>` (answered 200) or `refused <reason>` (answered 400); a GET answers 204, for waiting until it listens. Runs until stopped (Ctrl-C), or with --until until a verified delivery of that event type.",
    options: {
      secret: {
        type: 'string',
        value: 'whsec_…',
        description: 'The endpoint secret createWebhook returned (or set WEBHOOK_SECRET).',
      },
      port: { type: 'string', value: 'N', default: '8000', description: 'Port to listen on.' },
      until: {
        type: 'string',
        value: 'TYPE',
        description: 'Exit (0) after printing a verified delivery of this event type.',
      },
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
    const until = values.until;
    let seen: () => void = () => {};
    const done = new Promise<void>((resolve) => {
      seen = resolve;
    });
    const { server, port: bound } = await startWebhookReceiver({
      secret,
      port,
      onDelivery: (delivery) => {
        console.log(
          delivery.verified
            ? `verified ${delivery.type} ${delivery.id}`
            : `refused ${delivery.reason}`,
        );
        if (delivery.verified && delivery.type === until) seen();
      },
    });
    console.log(`receiving webhooks on http://127.0.0.1:${bound}/`);
    // Without --until it runs until stopped: Ctrl-C or a signal ends the process.
    await done;
    server.close();
    return 0;
  },
);
