/**
 * Reads openapi-typescript output with the TypeScript parser: for a path and method, which
 * parameters (and whether optional), whether there is a request body, and which response
 * statuses the types declare.
 */
import ts from 'typescript';

export interface TypedOperation {
  parameters: Record<string, Record<string, { optional: boolean }>>;
  requestBody: { optional: boolean } | null;
  statuses: string[];
}

function nameOf(name: ts.PropertyName): string {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name))
    return name.text;
  return name.getText();
}

function members(node: ts.TypeNode | undefined): ts.PropertySignature[] {
  if (!node || !ts.isTypeLiteralNode(node)) return [];
  return node.members.filter(ts.isPropertySignature);
}

function member(node: ts.TypeNode | undefined, name: string): ts.PropertySignature | undefined {
  return members(node).find((m) => nameOf(m.name) === name);
}

export class TypesInspector {
  private readonly interfaces = new Map<string, ts.InterfaceDeclaration>();

  constructor(text: string) {
    const file = ts.createSourceFile('types.ts', text, ts.ScriptTarget.ES2022, true);
    for (const statement of file.statements) {
      if (ts.isInterfaceDeclaration(statement)) this.interfaces.set(statement.name.text, statement);
    }
  }

  /** The names of `paths`' members. */
  paths(): string[] {
    return this.interfaces
      .get('paths')!
      .members.filter(ts.isPropertySignature)
      .map((m) => nameOf(m.name));
  }

  operation(path: string, method: string): TypedOperation | null {
    const item = this.interfaces
      .get('paths')!
      .members.filter(ts.isPropertySignature)
      .find((m) => nameOf(m.name) === path);
    let op = member(item?.type, method)?.type;
    if (!op || op.kind === ts.SyntaxKind.NeverKeyword) return null;
    // `operations["listPets"]`: follow into the `operations` interface.
    if (ts.isIndexedAccessTypeNode(op) && ts.isLiteralTypeNode(op.indexType)) {
      const id = (op.indexType.literal as ts.StringLiteral).text;
      op = this.interfaces
        .get('operations')!
        .members.filter(ts.isPropertySignature)
        .find((m) => nameOf(m.name) === id)?.type;
    }
    const parameters: TypedOperation['parameters'] = {};
    for (const location of members(member(op, 'parameters')?.type)) {
      const entries: Record<string, { optional: boolean }> = {};
      for (const p of members(location.type))
        entries[nameOf(p.name)] = { optional: !!p.questionToken };
      parameters[nameOf(location.name)] = entries;
    }
    const body = member(op, 'requestBody');
    const hasBody = body && body.type?.kind !== ts.SyntaxKind.NeverKeyword;
    return {
      parameters,
      requestBody: hasBody ? { optional: !!body.questionToken } : null,
      statuses: members(member(op, 'responses')?.type).map((m) => nameOf(m.name)),
    };
  }
}
