/**
 * `npm run dev`: one long-running process that keeps the toolchain loaded, runs the service as
 * a child, and reacts to saves:
 *
 * - the spec, its guides, `redocly.yaml` or a lint rule → lint, swap the service onto the new
 *   contract, regenerate (`save.ts`);
 * - server or client code → restart the service, as `tsx watch` would.
 */
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { FileWriter } from './file-writer.js';
import { displayPath, Reporter } from './report.js';
import { type SavePaths, SaveRunner } from './save.js';
import { ServiceProcess } from './service-process.js';
import { Toolchain } from './toolchain.js';
import { watchPaths } from './watch.js';

export interface DevOptions extends SavePaths {
  /** `redocly.yaml`. */
  configPath: string;
  /** Folders whose code the service runs (restart on change). */
  codeDirs: string[];
  /** Folders of lint rules (reload the lint config on change). */
  ruleDirs: string[];
  /** Environment of the service process. */
  env: NodeJS.ProcessEnv;
  reporter?: Reporter;
}

export interface DevLoop {
  /** Resolves when the first save has been served (or refused). */
  ready: Promise<void>;
  /** Stops watching and stops the service. */
  close(): Promise<void>;
}

const CODE_FILE = /\.(?:[cm]?[jt]s|json)$/;

/** Starts the loop; the service starts in parallel with the first lint. */
export function startDevLoop(options: DevOptions): DevLoop {
  const reporter = options.reporter ?? new Reporter();
  const toolchain = new Toolchain(options.root, options.configPath);
  const writer = new FileWriter();
  let signalFirstRun: () => void = () => {};
  const firstRun = new Promise<void>((resolve) => {
    signalFirstRun = resolve;
  });
  let closing = false;
  const service = new ServiceProcess({
    env: options.env,
    firstRun,
    onCrash: (code, signal, wasListening) => {
      if (closing) return;
      const how = signal ?? `exit code ${code}`;
      reporter.error(
        wasListening
          ? `✗ the service stopped (${how}); fix the code and save to restart it`
          : `✗ the service could not start (${how}; its reason is printed above) · not serving; fix that, then save a file under ${restartDirs()} to start it again`,
      );
    },
  });
  const saves = new SaveRunner(options, toolchain, service, writer, reporter);
  const show = (file: string) => displayPath(options.root, file);
  const restartDirs = () =>
    options.codeDirs.map((dir) => `${show(dir)}/`).join(' or ') || 'server/';

  // Saves run one at a time; events during a run are gathered into the next one.
  let running: Promise<void> | null = null;
  let queued: { at: number; recheck: boolean } | null = null;
  const schedule = (at: number, recheck: boolean) => {
    queued = { at: queued?.at ?? at, recheck: (queued?.recheck ?? false) || recheck };
    if (running !== null) return;
    running = (async () => {
      while (queued !== null) {
        const next = queued;
        queued = null;
        if (next.recheck) await toolchain.reloadConfig().catch(reportConfigError);
        await saves.run(next.at, next.recheck);
      }
      running = null;
    })();
  };
  const reportConfigError = (error: unknown) =>
    reporter.error(`✗ redocly.yaml: ${error instanceof Error ? error.message : String(error)}`);

  service.start();
  const ready = (async () => {
    const at = performance.now();
    const code = options.codeDirs.map((dir) => `${show(dir)}/`).join(', ');
    const restart = code === '' ? '' : ` · ${code} → restart`;
    reporter.note(`dev: ${show(options.specFile)} → lint, swap, regenerate${restart}`);
    await toolchain.reloadConfig().catch(reportConfigError);
    await saves.run(at);
    signalFirstRun();
    saves.announceServing(await service.whenStarted());
  })();

  const specDir = dirname(options.specFile);
  const isRule = (file: string) =>
    file === options.configPath || options.ruleDirs.some((dir) => file.startsWith(`${dir}/`));
  const stopSpecWatch = watchPaths(
    [
      { path: specDir, recursive: true },
      {
        path: dirname(options.configPath),
        recursive: false,
        filter: (f) => f === options.configPath,
      },
      ...options.ruleDirs
        .filter((dir) => existsSync(dir) && !dir.startsWith(`${specDir}/`))
        .map((path) => ({ path, recursive: true })),
    ],
    (batch) => {
      void ready.then(() => schedule(batch.at, batch.files.some(isRule)));
    },
  );

  let restarting: Promise<void> | null = null;
  const stopCodeWatch = watchPaths(
    options.codeDirs
      .filter((dir) => existsSync(dir))
      .map((path) => ({
        path,
        recursive: true,
        filter: (file: string) => CODE_FILE.test(file) && !writer.isOwnWrite(file),
      })),
    (batch) => {
      if (restarting !== null || closing) return;
      const names = batch.files.map(show);
      const shown = `${names.slice(0, 3).join(', ')}${names.length > 3 ? ', …' : ''}`;
      reporter.note(`↻ ${shown} changed · restarting the service`);
      restarting = service.restart().finally(() => {
        restarting = null;
      });
    },
  );

  return {
    ready,
    async close() {
      closing = true;
      stopSpecWatch();
      stopCodeWatch();
      await running;
      await service.stop();
      await toolchain.close();
    },
  };
}
