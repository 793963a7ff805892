/**
 * The demo receiver of local mode: a real HTTPS endpoint on 127.0.0.1 that verifies every
 * delivery with the receiver library, exactly as a customer's endpoint would, and says what
 * it got. Paths choose its behaviour, for the demo tour:
 *
 * - `/hooks`: answers 200 `{"received":true}` to every valid delivery;
 * - `/flaky`: answers 503 to the first two attempts of each delivery, then 200;
 * - `/dead`: answers 503 until {@link DemoReceiver.heal} is called.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connectionIdOf, isDeliveryId } from '../lambdas/core/ids';
import { verifyWebhook, WebhookVerificationError } from '../lambdas/receiver';

export interface ReceivedDelivery {
  path: string;
  deliveryId?: string;
  attempt?: number;
  userId?: string;
  status: number;
  verified: boolean;
  problem?: string;
}

export interface DemoReceiver {
  origin: string;
  port: number;
  received: ReceivedDelivery[];
  /** Make `/dead` answer 200 from now on. */
  heal(): void;
  close(): Promise<void>;
}

export interface DemoReceiverOptions {
  certPem: string;
  keyPem: string;
  headerPrefix: string;
  /** The secrets a delivery of this connection may be signed with (current first). */
  secretsOf(connectionId: string): Promise<string[]>;
  onDelivery?(delivery: ReceivedDelivery): void;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1024 * 1024) req.destroy(new Error('body too large'));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startDemoReceiver(options: DemoReceiverOptions): Promise<DemoReceiver> {
  const received: ReceivedDelivery[] = [];
  let healed = false;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    const rawBody = await readBody(req);
    const deliveryHeader = req.headers[`${options.headerPrefix.toLowerCase()}-delivery`];
    const deliveryId =
      typeof deliveryHeader === 'string' && isDeliveryId(deliveryHeader) ? deliveryHeader : undefined;
    const record: ReceivedDelivery = { path, deliveryId, status: 401, verified: false };
    try {
      const secrets = deliveryId ? await options.secretsOf(connectionIdOf(deliveryId)) : [];
      if (secrets.length === 0)
        throw new WebhookVerificationError('signature_mismatch', 'unknown connection');
      const verified = verifyWebhook({
        rawBody,
        headers: req.headers,
        secret: secrets,
        prefix: options.headerPrefix,
      });
      record.verified = true;
      record.attempt = verified.attempt;
      record.userId = verified.payload?.user?.id;
      const failFlaky = path === '/flaky' && (verified.attempt ?? 1) <= 2;
      const failDead = path === '/dead' && !healed;
      record.status = failFlaky || failDead ? 503 : 200;
    } catch (error) {
      record.problem =
        error instanceof WebhookVerificationError ? `${error.code}: ${error.message}` : String(error);
    }
    received.push(record);
    options.onDelivery?.(record);
    res.writeHead(record.status, { 'content-type': 'application/json' });
    res.end(
      record.status === 200
        ? '{"received":true}'
        : JSON.stringify({ received: false, error: record.problem ?? 'unavailable' }),
    );
  }

  const server: Server = createServer({ cert: options.certPem, key: options.keyPem }, (req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    port,
    received,
    heal() {
      healed = true;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
