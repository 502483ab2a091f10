// Editor hovers show the model's JSDoc: every field of the model's types (src/model/model-types.ts) has a comment, and
// an example unless the comment says why there is none.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const file = new URL('../../src/model/model-types.ts', import.meta.url);
const source = ts.createSourceFile('model-types.ts', readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);

/** Each property of each exported type alias of the file: `Type.field`, its JSDoc text and its tag names. */
function fields(): { name: string; text: string; tags: string[] }[] {
  const found: { name: string; text: string; tags: string[] }[] = [];
  for (const statement of source.statements) {
    if (!ts.isTypeAliasDeclaration(statement) || !ts.isTypeLiteralNode(statement.type)) continue;
    for (const member of statement.type.members) {
      if (!ts.isPropertySignature(member)) continue;
      const docs = ts.getJSDocCommentsAndTags(member).filter(ts.isJSDoc);
      found.push({
        name: `${statement.name.text}.${member.name.getText(source)}`,
        text: docs.map((doc) => ts.getTextOfJSDocComment(doc.comment) ?? '').join('\n'),
        tags: docs.flatMap((doc) => (doc.tags ?? []).map((tag) => tag.tagName.text)),
      });
    }
  }
  return found;
}

describe('the model fields are documented for hovers', () => {
  it('finds every field of EwayBillAddress and EwayBillModel (7 + 12 + 2 + 2)', () => {
    expect(fields()).toHaveLength(23);
  });

  it.each(fields().map((field) => [field.name, field]))('%s has a description and an example', (_name, field) => {
    expect(field.text.length).toBeGreaterThan(20);
    if (!field.tags.includes('example')) expect(field.text).toMatch(/no example/);
  });
});
