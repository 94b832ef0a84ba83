/**
 * Rendered searchset entries by the stored JSON text they were made from, most recent kept.
 * Mapping a stored patient to FHIR costs about 25 µs (parse, map, digest for `versionId`,
 * serialise; measured with tsx on this machine), ten per page, which held the FHIR search to
 * 50% of the `/v1` list's throughput (bench/results/fhir.md); the `/v1` list splices stored
 * text and pays none of it. The key is the whole stored text (id and mode included), so any
 * change to a record is a new key and a stale entry can never be served; entries only age out.
 * It holds at most `max` entries of PHI in this process's memory, as the database's own page
 * cache does, and nothing of it leaves the process except in answers to authorised reads.
 */
export class RenderCache {
  readonly #entries = new Map<string, string>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  /** The rendering of `stored`, made by `render` on a miss. */
  get(stored: string, render: () => string): string {
    const hit = this.#entries.get(stored);
    if (hit !== undefined) {
      // Refresh its place: Map keeps insertion order, the oldest goes first.
      this.#entries.delete(stored);
      this.#entries.set(stored, hit);
      return hit;
    }
    const text = render();
    this.#entries.set(stored, text);
    if (this.#entries.size > this.#max) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
    return text;
  }
}
