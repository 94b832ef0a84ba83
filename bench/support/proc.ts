/**
 * What the benches read of processes and the machine from /proc (Linux; elsewhere the figures
 * are undefined): a process tree, its RSS and CPU time, the machine's CPU ticks, PostgreSQL's
 * CPU, and where the cores went during a measurement.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** A process's direct children, from /proc (throws where /proc does not have it). */
export function childrenOf(pid: number): number[] {
  const text = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
  return text === '' ? [] : text.split(' ').map(Number);
}

/**
 * The process and its children's pids (the service processes of WORKERS=N); the process
 * alone where /proc cannot say.
 */
export function treeOf(pid: number): number[] {
  try {
    return [pid, ...childrenOf(pid)];
  } catch {
    return [pid];
  }
}

/** `measure` summed over the process tree; undefined when /proc has none of it. */
export function summed(
  pid: number,
  measure: (pid: number) => number | undefined,
): number | undefined {
  const values = treeOf(pid).map(measure);
  return values.every((v) => v === undefined)
    ? undefined
    : values.reduce<number>((sum, v) => sum + (v ?? 0), 0);
}

/** RSS of a process in bytes, from /proc (Linux); undefined elsewhere. */
export function rssOf(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, all threads) a process has used, in ms, from /proc (Linux). */
export function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at index 2 (state).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the file, in clock ticks (100 per second).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

/** The machine's CPU ticks since boot, busy and in all (the `cpu` line of /proc/stat, Linux). */
function machineTicks(): { busy: number; stolen: number; total: number } | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = ticks.reduce((sum, t) => sum + t, 0);
    // idle and iowait are the 4th and 5th fields; steal (a virtual machine's cores taken by
    // its host) the 8th.
    const stolen = ticks[7] ?? 0;
    return { busy: total - (ticks[3] ?? 0) - (ticks[4] ?? 0) - stolen, stolen, total };
  } catch {
    return undefined;
  }
}

/** CPU ms used so far by every PostgreSQL server process on this machine (by command name). */
function postgresCpuMs(): number {
  let sum = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    sum += cpuMsOf(Number(entry)) ?? 0;
  }
  return sum;
}

/**
 * Where the machine's cores went during one measurement, in cores (2 = both cores all the
 * time): the service's processes, PostgreSQL's, this process (autocannon, the load
 * generator), everything else, the host's steal, and idle.
 */
export interface Cores {
  service: number;
  database: number;
  loadGenerator: number;
  other: number;
  /** Taken by the virtual machine's host (steal). */
  stolen: number;
  idle: number;
}

/**
 * Starts counting; the returned function gives the cores used since, and the service's CPU
 * ms in that time (its processes' CPU is read once at each end, for both figures). PostgreSQL
 * backends that exit meanwhile take their CPU with them (the pool keeps its connections).
 */
export function coresFrom(
  servicePid: number,
): () => { cores: Cores; serviceMs: number } | undefined {
  const started = performance.now();
  const machine = machineTicks();
  const service = summed(servicePid, cpuMsOf);
  const database = postgresCpuMs();
  const self = process.cpuUsage();
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const machineNow = machineTicks();
    const serviceNow = summed(servicePid, cpuMsOf);
    if (!machine || !machineNow || service === undefined || serviceNow === undefined) {
      return undefined;
    }
    const total = machineNow.total - machine.total;
    const cores = cpus().length;
    const share = (ticks: number) => (total > 0 ? (ticks / total) * cores : 0);
    const busyCores = share(machineNow.busy - machine.busy);
    const stolen = share(machineNow.stolen - machine.stolen);
    const used = process.cpuUsage(self);
    const of = (ms: number) => ms / 1000 / seconds;
    const serviceCores = of(serviceNow - service);
    const databaseCores = of(postgresCpuMs() - database);
    const loadGenerator = (used.user + used.system) / 1e6 / seconds;
    return {
      cores: {
        service: serviceCores,
        database: databaseCores,
        loadGenerator,
        other: Math.max(0, busyCores - serviceCores - databaseCores - loadGenerator),
        stolen,
        idle: Math.max(0, cores - busyCores - stolen),
      },
      serviceMs: serviceNow - service,
    };
  };
}
