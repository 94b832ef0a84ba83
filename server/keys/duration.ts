const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/**
 * `30d`, `12h`, `15m`, `90s`, `2w` → seconds; `undefined` for anything else.
 * @example parseDuration('30d') // 2592000
 */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  const unit = match ? UNIT_SECONDS[match[2] ?? ''] : undefined;
  if (!match || unit === undefined) return undefined;
  const seconds = Number(match[1]) * unit;
  return seconds > 0 ? seconds : undefined;
}
