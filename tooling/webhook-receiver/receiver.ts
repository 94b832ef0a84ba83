/**
 * A local webhook receiver for trying the API (`npm run webhooks:receive`, the README's walk):
 * listens on loopback, checks each delivery's `PatientCare-Signature` against the endpoint's
 * secret with the client's `verifyWebhook` (the scheme the server signs with), answers 200 to
 * a verified delivery and 400 to anything else, and reports each one. A GET or HEAD is a
 * readiness probe (204, not reported), so a script can wait for the receiver with curl instead
 * of sleeping. A stand-in for the receiver an integrator writes, never a production component.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADER, verifyWebhook } from '../../client/webhook.js';

/** What one delivery turned out to be. */
export type Delivery =
  | { readonly verified: true; readonly type: string; readonly id: string }
  | { readonly verified: false; readonly reason: string };

export interface ReceiverOptions {
  readonly secret: string;
  readonly port: number;
  readonly host?: string;
  readonly onDelivery: (delivery: Delivery) => void;
}

/** Starts listening; resolves with the server and the port it bound. */
export async function startWebhookReceiver(
  options: ReceiverOptions,
): Promise<{ server: Server; port: number }> {
  const server = createServer(async (request, response) => {
    if (request.method === 'GET' || request.method === 'HEAD') {
      response.statusCode = 204;
      response.end();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const header = request.headers[SIGNATURE_HEADER.toLowerCase()];
    const { event, error } = verifyWebhook<{ id: string; type: string }>(
      Buffer.concat(chunks),
      Array.isArray(header) ? header[0] : header,
      options.secret,
    );
    response.statusCode = error ? 400 : 200;
    response.end();
    options.onDelivery(
      error
        ? { verified: false, reason: `${error.code}: ${error.message}` }
        : { verified: true, type: event.type, id: event.id },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}
