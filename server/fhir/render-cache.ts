/**
 * Rendered searchset entries (whole, `fullUrl` included) by record id, most recent kept.
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
  readonly #entries = new Map<string, { stored: string; base: string; text: string }>();
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
    if (hit !== undefined) {
      // Refresh its place: Map keeps insertion order, the oldest goes first.
      this.#entries.delete(id);
      if (hit.stored === stored && hit.base === base) {
        this.#entries.set(id, hit);
        return hit.text;
      }
    }
    const text = render();
    this.#entries.set(id, { stored, base, text });
    if (this.#entries.size > this.#max) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    return text;
  }
}
