// What an editor shows a user of the installed package: TypeScript's language service (the engine behind VS Code's
// hovers and go-to-definition) over a consumer file, once as an ES module (.mts) and once as CommonJS (.cts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const ts = createRequire(import.meta.url)('typescript');

/**
 * Writes `source` into `consumer` as hover.mts and hover.cts, and for each format and each word of `words` (its last
 * occurrence in the source) returns where go-to-definition lands (paths relative to `consumer`), the hover's
 * documentation, and the file's type errors.
 */
export function editorView(consumer, source, words) {
  const files = { esm: join(consumer, 'hover.mts'), cjs: join(consumer, 'hover.cts') };
  for (const file of Object.values(files)) writeFileSync(file, source);
  const options = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    types: [],
  };
  const service = ts.createLanguageService({
    getScriptFileNames: () => Object.values(files),
    getScriptVersion: () => '1',
    getScriptSnapshot: (file) =>
      existsSync(file) ? ts.ScriptSnapshot.fromString(readFileSync(file, 'utf8')) : undefined,
    getCurrentDirectory: () => consumer,
    getCompilationSettings: () => options,
    getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
    realpath: ts.sys.realpath,
  });
  return Object.entries(files).map(([format, file]) => ({
    format,
    errors: service.getSemanticDiagnostics(file).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' ')),
    words: words.map((word) => {
      const position = source.lastIndexOf(word);
      const definitions = service.getDefinitionAtPosition(file, position) ?? [];
      const info = service.getQuickInfoAtPosition(file, position);
      return {
        word,
        definitions: definitions.map((d) => d.fileName.slice(consumer.length + 1)),
        documentation: ts.displayPartsToString(info?.documentation ?? []),
      };
    }),
  }));
}
