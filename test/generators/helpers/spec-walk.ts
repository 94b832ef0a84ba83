/**
 * An independent reading of a bundled OpenAPI 3.0 document for the artifact tests: written
 * without the generators' code, so a bug there cannot hide itself.
 */
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export interface SpecOperation {
  operationId: string | undefined;
  method: string;
  path: string;
  parameters: { name: string; in: string; required: boolean }[];
  body: { required: boolean; mediaTypes: string[] } | null;
  statuses: string[];
  /** Statuses whose response has content, with the content's media types. */
  content: Record<string, string[]>;
  extensions: { scopes: unknown; keyKinds: unknown };
}

type Node = Record<string, unknown>;

function deref(document: Node, node: unknown): Node {
  let current = node as Node;
  while (current && typeof current.$ref === 'string') {
    const tokens = (current.$ref as string)
      .slice(2)
      .split('/')
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    current = tokens.reduce<Node>((at, token) => at[token] as Node, document);
  }
  return current;
}

export function walkSpec(document: Node): SpecOperation[] {
  const result: SpecOperation[] = [];
  for (const [path, rawItem] of Object.entries(document.paths as Node)) {
    const item = deref(document, rawItem);
    for (const method of METHODS) {
      const op = item[method] as Node | undefined;
      if (!op) continue;
      const params = new Map<string, { name: string; in: string; required: boolean }>();
      for (const raw of [
        ...((item.parameters as unknown[]) ?? []),
        ...((op.parameters as unknown[]) ?? []),
      ]) {
        const p = deref(document, raw);
        params.set(`${p.in}:${p.name}`, {
          name: String(p.name),
          in: String(p.in),
          required: p.in === 'path' || p.required === true,
        });
      }
      const body = op.requestBody ? deref(document, op.requestBody) : null;
      const responses = (op.responses ?? {}) as Node;
      const content: Record<string, string[]> = {};
      for (const [status, raw] of Object.entries(responses)) {
        const response = deref(document, raw);
        if (response.content) content[status] = Object.keys(response.content as Node);
      }
      result.push({
        operationId: op.operationId as string | undefined,
        method,
        path,
        parameters: [...params.values()],
        body: body
          ? {
              required: body.required === true,
              mediaTypes: Object.keys((body.content ?? {}) as Node),
            }
          : null,
        statuses: Object.keys(responses),
        content,
        extensions: { scopes: op['x-scopes'], keyKinds: op['x-key-kinds'] },
      });
    }
  }
  return result;
}
