import type { Oas3Rule, UserContext } from '@redocly/openapi-core';
import { pathOperationsVisitor, type SpecNode } from '../lib/nodes.js';

/**
 * `patient-care/tags-in-groups`: when the document groups its tags (`x-tagGroups`, which Redoc
 * reads), every tag an operation uses and every tag declared under `tags` is in a group. Redoc
 * draws only grouped tags, so an operation whose tags are all outside the groups is missing
 * from /docs, with no warning from Redoc or from Redocly's own rules. A document without
 * `x-tagGroups` is not judged.
 */
export const TagsInGroups: Oas3Rule = () => {
  let grouped: Set<string> | undefined;
  const operations = pathOperationsVisitor(({ operation, ctx, label }) => {
    const groups = grouped;
    if (!groups || !Array.isArray(operation.tags)) return;
    operation.tags.forEach((tag: unknown, index: number) => {
      if (typeof tag === 'string' && !groups.has(tag)) {
        ctx.report({
          message: `Tag "${tag}" of ${label} is in no x-tagGroups group, so Redoc leaves the operation out of /docs. Add "${tag}" to a group's tags in x-tagGroups.`,
          location: ctx.location.child(['tags', index]),
        });
      }
    });
  });
  return {
    ...operations,
    Root: {
      enter(root: SpecNode, ctx: UserContext) {
        const groups = root['x-tagGroups'];
        grouped = Array.isArray(groups)
          ? new Set(
              groups.flatMap((group: SpecNode) =>
                Array.isArray(group?.tags) ? group.tags.map(String) : [],
              ),
            )
          : undefined;
        const declared = grouped;
        if (!declared || !Array.isArray(root.tags)) return;
        root.tags.forEach((tag: SpecNode, index: number) => {
          const name = tag?.name;
          if (typeof name === 'string' && !declared.has(name)) {
            ctx.report({
              message: `Tag "${name}" is declared but in no x-tagGroups group, so Redoc does not show it (nor its description) in /docs. Add "${name}" to a group's tags in x-tagGroups.`,
              location: ctx.location.child(['tags', index, 'name']),
            });
          }
        });
      },
    },
  };
};
