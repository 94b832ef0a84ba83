/**
 * Rendered searchset entries (whole, `fullUrl` included) by record id, those recently used kept.
 * Mapping a stored patient to FHIR costs about 25 µs (parse, map, digest for `versionId`,
 * serialise; measured with tsx on this machine), ten per page, which held the FHIR search to
 * 50% of the `/v1` list's throughput (bench/results/fhir.md); the `/v1` list splices stored
 * text and pays none of it. An entry is kept by the record's id with the stored text and the
 * FHIR base it was made from, and served only when both are the same again, so a changed record
 * or base is rendered afresh and a stale entry can never be served; entries only age out.
 * It holds at most `max` entries of PHI in this process's memory, as the database's own page
 * cache does, and nothing of it leaves the process except in answers to authorised reads.
 */
export class RenderCache {
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /**
   * The rendering of record `id` from its `stored` text on `base` (the FHIR base its
   * `fullUrl` is built on), made by `render` unless the entry kept for `id` came from the same
   * stored text and base. Keyed by the short id, so a hit hashes 30 characters, not the record.
   */
  get(id: string, stored: string, base: string, render: () => string): string {
    const hit = this.#entries.get(id);
    if (hit !== undefined && hit.stored === stored && hit.base === base) {
      hit.used = true;
      return hit.text;
    }
    const text = render();
    if (hit !== undefined) {
      hit.stored = stored;
      hit.base = base;
      hit.text = text;
      hit.used = true;
      return text;
    }
    this.#entries.set(id, { stored, base, text, used: false });
    if (this.#entries.size > this.#max) this.#evictOne();
    return text;
  }

  /**
   * Drops the oldest entry not used since it was last passed over ("second chance", an
   * approximation of least recently used): a hit only sets a flag, where moving the entry to
   * the back of the Map cost a delete and a set per entry served (1.2 µs of a ten-entry page,
   * `--cpu-prof` under bench:fhir's load).
   */
  #evictOne(): void {
    for (const [id, entry] of this.#entries) {
      this.#entries.delete(id);
      if (!entry.used) return;
      entry.used = false;
      this.#entries.set(id, entry);
    }
  }
}

interface Entry {
  stored: string;
  base: string;
  text: string;
  /** Served since the eviction sweep last passed it. */
  used: boolean;
}
