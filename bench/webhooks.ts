/**
 * `npm run bench:webhooks`: webhook delivery figures on this machine, against a receiver on
 * 127.0.0.1 that verifies every signature with the client's `verifyWebhook`.
 *
 * 1. Throughput: N events are committed first (one endpoint), then one worker delivers them;
 *    deliveries per second = N / time from worker start to the last receipt.
 * 2. Latency: with the worker running, events are committed at a steady rate; for each, the
 *    time from its transaction's commit to its arrival at the receiver (p50, p99).
 * 3. Latency beside hung receivers: the same trickle, while `--hung` more endpoints point at
 *    a receiver that sends `200` headers and never ends the body (attempt deadline
 *    `--timeout`); the healthy endpoint's p50/p99, and the most sockets the hung receiver
 *    ever held (bounded by hung endpoints × `--endpoint-concurrency`).
 *
 * Bounded: fixed event counts, and each phase gives up after 60 s. Results go to
 * `bench/results/webhooks.md`; nothing is asserted.
 *
 *   npm run bench:webhooks [-- --events 5000 --rate 200 --seconds 5 --concurrency 64
 *     --endpoint-concurrency 8 --hung 4 --timeout 1000 --db URL]
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { verifyWebhook } from '../client/webhook.js';
import { openDb } from '../server/db/open.js';
import type { Db, Dialect } from '../server/db/types.js';
import { type EventObject, emitEvent } from '../server/domain/events.js';
import { newId } from '../server/ids.js';
import { insertWebhook } from '../server/repos/webhooks.js';
import { startDeliveryWorker } from '../server/webhooks/worker.js';
import { integerOption, parseOrExit } from '../tooling/cli/command.js';
import { scratchDatabase } from '../tooling/node/scratch-database.js';
import { checked, secondsOption } from './support/options.js';
import { oneMinuteLoad, resultsFile } from './support/report.js';
import { percentile } from './support/stats.js';

const { values } = parseOrExit({
  name: 'npm run bench:webhooks --',
  prefix: 'bench:webhooks',
  summary:
    'Webhook delivery throughput and commit-to-receipt latency against a signature-verifying receiver on 127.0.0.1; results to bench/results/webhooks.md.',
  options: {
    events: {
      type: 'string',
      value: 'N',
      default: '5000',
      description: 'Events of the throughput phase.',
    },
    rate: {
      type: 'string',
      value: 'N',
      default: '200',
      description: 'Events per second of the latency phase.',
    },
    seconds: secondsOption(5, 'Length of the latency phase.'),
    concurrency: {
      type: 'string',
      value: 'N',
      default: '64',
      description: "The worker's deliveries in flight.",
    },
    'endpoint-concurrency': {
      type: 'string',
      value: 'N',
      default: '8',
      description: 'Deliveries in flight to one endpoint (WEBHOOK_ENDPOINT_CONCURRENCY).',
    },
    hung: {
      type: 'string',
      value: 'N',
      default: '4',
      description: 'Endpoints that hang after their headers, in phase 3.',
    },
    timeout: {
      type: 'string',
      value: 'MS',
      default: '1000',
      description: 'Attempt deadline in phase 3 (WEBHOOK_TIMEOUT_MS).',
    },
    db: {
      type: 'string',
      value: 'URL',
      description: 'A PostgreSQL database instead of a fresh SQLite file.',
    },
    role: {
      type: 'string',
      value: 'ROLE',
      default: 'bench',
      description: 'Internal: bench or receiver (child process).',
    },
  },
});
const [EVENTS, RATE, SECONDS, CONCURRENCY, ENDPOINT_CONCURRENCY, HUNG, TIMEOUT] = checked(
  'bench:webhooks',
  () => [
    integerOption('events', values.events, { min: 1 }),
    integerOption('rate', values.rate, { min: 1 }),
    integerOption('seconds', values.seconds, { min: 1 }),
    integerOption('concurrency', values.concurrency, { min: 1 }),
    integerOption('endpoint-concurrency', values['endpoint-concurrency'], { min: 1 }),
    integerOption('hung', values.hung, { min: 0 }),
    integerOption('timeout', values.timeout, { min: 1 }),
  ],
);
const PHASE_LIMIT_MS = 60_000;
const RESULTS = resultsFile('webhooks.md');
const TITLE = '# Webhook delivery benchmark (bench/webhooks.ts)\n';

/** The results file with this run's section (`## SQLite` or `## PostgreSQL`) replaced. */
function mergeSection(section: string): string {
  const old = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8') : '';
  const heading = section.slice(0, section.indexOf('\n'));
  const sections = old
    .split(/^(?=## )/m)
    .filter((part) => part.startsWith('## ') && !part.startsWith(heading));
  sections.push(section);
  sections.sort();
  return `${TITLE}\n${sections.map((part) => part.trimEnd()).join('\n\n')}\n`;
}

const SECRET = `whsec_${'b'.repeat(40)}`;
const now = () => performance.timeOrigin + performance.now();

/**
 * The receiver runs in its own process, as a real one would, so its HMAC checks and HTTP
 * parsing do not share the worker's event loop. It reports arrivals over IPC in batches.
 */
function runReceiver(): void {
  let batch: Array<[string, number]> = [];
  let rejected = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = now();
      const header = req.headers['patientcare-signature'];
      const { event, error } = verifyWebhook(
        Buffer.concat(chunks),
        Array.isArray(header) ? header[0] : header,
        SECRET,
      );
      if (error) rejected += 1;
      else batch.push([event.id, at]);
      res.statusCode = error ? 400 : 200;
      res.end();
    });
  });
  server.keepAliveTimeout = 60_000;
  // The receiver no deadline of its own would ever free: 200 headers, then silence.
  let hungOpen = 0;
  let hungMax = 0;
  const hung = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('still thinking');
  });
  hung.requestTimeout = 0;
  hung.headersTimeout = 0;
  hung.on('connection', (socket) => {
    hungOpen += 1;
    hungMax = Math.max(hungMax, hungOpen);
    socket.on('close', () => {
      hungOpen -= 1;
    });
  });
  let reported = '';
  setInterval(() => {
    const counts = `${hungOpen}/${hungMax}`;
    if (batch.length === 0 && rejected === 0 && counts === reported) return;
    reported = counts;
    process.send?.({ arrivals: batch, rejected, hungOpen, hungMax });
    batch = [];
    rejected = 0;
  }, 2).unref();
  process.on('disconnect', () => process.exit(0));
  server.listen(0, '127.0.0.1', () => {
    hung.listen(0, '127.0.0.1', () => {
      process.send?.({
        port: (server.address() as AddressInfo).port,
        hungPort: (hung.address() as AddressInfo).port,
      });
    });
  });
}

if (values.role === 'receiver') {
  runReceiver();
} else {
  await runBench();
}

/** The receiver child as the bench sees it: what arrived, when, and its hung sockets. */
interface Receiver {
  child: ChildProcess;
  port: number;
  hungPort: number;
  /** Event id → when the receiver had read the whole request. */
  arrivals: Map<string, number>;
  rejected: number;
  hungSockets: { open: number; max: number };
  onArrival: ((ids: readonly string[]) => void) | null;
}

/** Starts the receiver child and follows its messages until the bench ends. */
async function startReceiver(): Promise<Receiver> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', import.meta.filename, '--role', 'receiver'],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  const receiver: Receiver = {
    child,
    port: 0,
    hungPort: 0,
    arrivals: new Map(),
    rejected: 0,
    hungSockets: { open: 0, max: 0 },
    onArrival: null,
  };
  receiver.port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.on(
      'message',
      (message: {
        port?: number;
        hungPort?: number;
        arrivals?: Array<[string, number]>;
        rejected?: number;
        hungOpen?: number;
        hungMax?: number;
      }) => {
        if (message.hungPort !== undefined) receiver.hungPort = message.hungPort;
        if (message.port !== undefined) resolve(message.port);
        if (message.hungOpen !== undefined) receiver.hungSockets.open = message.hungOpen;
        if (message.hungMax !== undefined) receiver.hungSockets.max = message.hungMax;
        const ids: string[] = [];
        for (const [id, at] of message.arrivals ?? []) {
          if (!receiver.arrivals.has(id)) receiver.arrivals.set(id, at);
          ids.push(id);
        }
        receiver.rejected += message.rejected ?? 0;
        receiver.onArrival?.(ids);
      },
    );
  });
  return receiver;
}

/** Whether every one of `ids` arrived within the phase limit. */
function waitForArrivals(receiver: Receiver, ids: readonly string[]): Promise<boolean> {
  const waiting = new Set(ids.filter((id) => !receiver.arrivals.has(id)));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      receiver.onArrival = null;
      resolve(false);
    }, PHASE_LIMIT_MS);
    const check = (arrived: readonly string[]) => {
      for (const id of arrived) waiting.delete(id);
      if (waiting.size === 0) {
        clearTimeout(timer);
        receiver.onArrival = null;
        resolve(true);
      }
    };
    receiver.onArrival = check;
    check([]);
  });
}

/** One `patient.created` event in a transaction of its own, and when its commit returned. */
async function emit(db: Db): Promise<{ id: string; committedAt: number }> {
  const object = { id: newId('pat'), object: 'patient', livemode: false };
  const event = await db.transaction((tx) =>
    emitEvent(
      tx,
      { livemode: false, requestId: null, idempotencyKey: null, now: Date.now },
      { type: 'patient.created', object: object as unknown as EventObject },
    ),
  );
  return { id: event.id, committedAt: now() };
}

async function addEndpoint(db: Db, url: string): Promise<void> {
  const now0 = Math.floor(Date.now() / 1000);
  await db.transaction((tx) =>
    insertWebhook(
      tx,
      {
        id: newId('wh'),
        object: 'webhook',
        livemode: false,
        created: now0,
        updated: now0,
        url,
        enabled_events: ['*'],
        description: null,
        status: 'enabled',
        api_version: '2026-11-01',
        metadata: {},
      },
      SECRET,
    ),
  );
}

interface Trickle {
  latencies: number[];
  sent: number;
  seconds: number;
  complete: boolean;
}

/** Commits `RATE` events a second for `SECONDS`; each one's commit → receipt latency. */
async function trickle(db: Db, receiver: Receiver): Promise<Trickle> {
  const events: Array<{ id: string; committedAt: number }> = [];
  const total = Math.round(RATE * SECONDS);
  const gap = 1000 / RATE;
  const t0 = now();
  for (let i = 0; i < total; i++) {
    const due = t0 + i * gap;
    const wait = due - now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    events.push(await emit(db));
  }
  const seconds = (now() - t0) / 1000;
  const complete = await waitForArrivals(
    receiver,
    events.map((e) => e.id),
  );
  const latencies: number[] = [];
  for (const e of events) {
    const at = receiver.arrivals.get(e.id);
    if (at !== undefined) latencies.push(at - e.committedAt);
  }
  return { latencies, sent: events.length, seconds, complete };
}

/**
 * Phase 1's backlog: `EVENTS` events committed in chunks of 500 per transaction (the phase
 * measures delivery, not emission).
 */
async function commitBacklog(db: Db): Promise<string[]> {
  const backlog: string[] = [];
  for (let i = 0; i < EVENTS; i += 500) {
    const chunk = await db.transaction(async (tx) => {
      const ids: string[] = [];
      for (let j = i; j < Math.min(EVENTS, i + 500); j++) {
        const object = { id: newId('pat'), object: 'patient', livemode: false };
        const event = await emitEvent(
          tx,
          { livemode: false, requestId: null, idempotencyKey: null, now: Date.now },
          { type: 'patient.created', object: object as unknown as EventObject },
        );
        ids.push(event.id);
      }
      return ids;
    });
    backlog.push(...chunk);
  }
  return backlog;
}

/**
 * Phases 1 and 2 with one worker: the backlog delivered as fast as it can, then the steady
 * trickle, commit → receipt.
 */
async function backlogAndTrickle(db: Db, receiver: Receiver) {
  const backlog = await commitBacklog(db);
  const started = now();
  const worker = startDeliveryWorker({
    db,
    concurrency: CONCURRENCY,
    endpointConcurrency: ENDPOINT_CONCURRENCY,
    pollIntervalMs: 5,
    // The receiver runs on this machine.
    allowPrivateTargets: true,
  });
  const complete = await waitForArrivals(receiver, backlog);
  const elapsed = (now() - started) / 1000;
  const delivered = backlog.filter((id) => receiver.arrivals.has(id)).length;
  const steady = await trickle(db, receiver);
  await worker.stop();
  return { throughput: delivered / elapsed, complete, steady };
}

/** Phase 3: the same trickle while hung endpoints receive every event too. */
async function besideHung(db: Db, receiver: Receiver) {
  for (let i = 0; i < HUNG; i++) {
    await addEndpoint(db, `http://127.0.0.1:${receiver.hungPort}/hung-${i}`);
  }
  const hungWorker = startDeliveryWorker({
    db,
    concurrency: CONCURRENCY,
    endpointConcurrency: ENDPOINT_CONCURRENCY,
    timeoutMs: TIMEOUT,
    // Retries of the hung deliveries stay out of the phase: each is tried once in it.
    schedule: { test: [600_000], live: [600_000], jitter: 0 },
    pollIntervalMs: 5,
    allowPrivateTargets: true,
  });
  const beside = await trickle(db, receiver);
  const timedOut = await db.get<{ n: unknown }>(
    "SELECT COUNT(*) AS n FROM webhook_delivery_attempts WHERE error = 'timeout'",
  );
  await hungWorker.stop();
  // Every hung socket is closed once the last attempts reach their deadline.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { beside, timedOut: Number(timedOut?.n ?? 0), openAfterStop: receiver.hungSockets.open };
}

interface Findings {
  dialect: Dialect;
  throughput: number;
  complete: boolean;
  steady: Trickle;
  beside: Trickle;
  timedOut: number;
  openAfterStop: number;
  hungMax: number;
  rejected: number;
}

/** The results section of one database. */
function resultsSection(f: Findings): string {
  const ms = (x: number) => `${x.toFixed(1)} ms`;
  const p50 = percentile(f.steady.latencies, 50);
  const p99 = percentile(f.steady.latencies, 99);
  const hungP50 = percentile(f.beside.latencies, 50);
  const hungP99 = percentile(f.beside.latencies, 99);
  const complete2 = f.steady.complete && f.beside.complete;
  const dialect = f.dialect === 'sqlite' ? 'SQLite file (WAL, synchronous=FULL)' : 'PostgreSQL';
  const command = `npm run bench:webhooks -- --events ${EVENTS} --rate ${RATE} --seconds ${SECONDS} --concurrency ${CONCURRENCY} --endpoint-concurrency ${ENDPOINT_CONCURRENCY} --hung ${HUNG} --timeout ${TIMEOUT}${values.db ? ' --db <url>' : ''}`;
  return `## ${f.dialect === 'sqlite' ? 'SQLite' : 'PostgreSQL'}

Command: \`${command}\` — ${dialect}, one worker (concurrency ${CONCURRENCY} per mode, ${ENDPOINT_CONCURRENCY} per endpoint), receiver on
127.0.0.1 in its own process verifying every signature with \`verifyWebhook\`, Node ${process.version},
${cpus().length} CPU cores shared with other work (1-min load average at the end: ${oneMinuteLoad().toFixed(1)}).

| figure | result | target |
|---|---|---|
| deliveries per second (backlog of ${EVENTS} events) | ${Math.round(f.throughput).toLocaleString('en-US')} /s${f.complete ? '' : ' (incomplete: phase limit hit)'} | ≥ 1,000 /s |
| commit → receipt p50 (${f.steady.sent} events at ${RATE}/s over ${f.steady.seconds.toFixed(1)} s) | ${ms(p50)} | ≤ 100 ms |
| commit → receipt p99 | ${ms(p99)} | — |
| same, beside ${HUNG} hung endpoints: p50 (${f.beside.sent} events) | ${ms(hungP50)} | ≤ 100 ms |
| same, beside ${HUNG} hung endpoints: p99 | ${ms(hungP99)} | ≤ 2,000 ms |
| most sockets the hung receiver held at once | ${f.hungMax} | about ${HUNG * ENDPOINT_CONCURRENCY} (hung × per-endpoint cap; a socket closes a moment after its attempt ends) |
| hung attempts ended at the ${TIMEOUT} ms deadline (recorded \`timeout\`) | ${f.timedOut} | — |
| hung sockets still open after the worker stopped | ${f.openAfterStop} | 0 |
| deliveries rejected by verifyWebhook | ${f.rejected} | 0 |
${complete2 ? '' : '\nThe latency phase hit its limit; some events were not received.\n'}
Latency is measured from the moment the emitting transaction's commit returned to the
moment the receiver had read the whole request; p50 and p99 are nearest-rank percentiles of
the events' latencies. The worker finds new deliveries by polling
every 5 ms (\`pollIntervalMs\`; the default is 25 ms). In the hung phase every event also goes
to ${HUNG} endpoints whose receiver sends \`200\` headers and never ends the body; each of
their attempts holds a socket until the deadline, at most ${ENDPOINT_CONCURRENCY} per endpoint.
`;
}

/**
 * The phases: the receiver, the database, phases 1 and 2 (backlog, trickle), phase 3 (beside
 * hung endpoints), the results section.
 */
async function runBench(): Promise<void> {
  const receiver = await startReceiver();
  // PostgreSQL: a schema of its own, dropped afterwards, so the bench never touches other data;
  // any other --db is used as it is.
  const postgres = values.db?.startsWith('postgres') ? values.db : undefined;
  const scratch = await scratchDatabase('bench_webhooks', postgres);
  const db = await openDb(values.db === undefined || postgres ? scratch.url : values.db);
  try {
    await addEndpoint(db, `http://127.0.0.1:${receiver.port}/hook`);
    const { throughput, complete, steady } = await backlogAndTrickle(db, receiver);
    const { beside, timedOut, openAfterStop } = await besideHung(db, receiver);
    const section = resultsSection({
      dialect: db.dialect,
      throughput,
      complete,
      steady,
      beside,
      timedOut,
      openAfterStop,
      hungMax: receiver.hungSockets.max,
      rejected: receiver.rejected,
    });
    writeFileSync(RESULTS, mergeSection(section));
    process.stdout.write(section);
  } finally {
    await db.close();
    await scratch.drop();
    receiver.child.disconnect();
  }
}
