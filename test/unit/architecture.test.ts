/**
 * The shape of the code, held by tests (docs/architecture.md): the core declares its ports in
 * one file, and no file under lambdas/ imports another that imports it back, type imports
 * included, so a reader can follow a delivery top-down without going in circles.
 */

import { readFileSync } from 'node:fs';
import path from 'node:path';
import madge from 'madge';
import ts from 'typescript';
import { ROOT, trackedSources, visitNodes } from '../support/source-files';

describe('the code under lambdas/', () => {
  it('has no import circle, type imports included', async () => {
    const graph = await madge(path.join(ROOT, 'lambdas'), {
      fileExtensions: ['ts'],
      tsConfig: path.join(ROOT, 'tsconfig.json'),
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    });
    // A graph that found nothing would pass vacuously: the core alone has more than 20 files.
    expect(Object.keys(graph.obj()).length).toBeGreaterThan(60);
    expect(graph.circular()).toEqual([]);
  });

  it('declares every port of the core in core/ports.ts and nowhere else in the core', async () => {
    const graph = await madge(path.join(ROOT, 'lambdas/core'), { fileExtensions: ['ts'] });
    const ports = ['ConnectionStore', 'SigningSecrets', 'HttpSender', 'RetryScheduler', 'DeadLetters'];
    const more = ['AttemptLog', 'AttemptLogFallback', 'ParkedDeliveries', 'OperationalEvents', 'HealthStore'];
    const declared = new Map<string, string[]>();
    for (const file of Object.keys(graph.obj())) {
      const text = readFileSync(path.join(ROOT, 'lambdas/core', file), 'utf8');
      for (const name of [...ports, ...more, 'DispatcherDeps', 'Clock', 'Log', 'Metrics']) {
        if (new RegExp(`export (interface|type) ${name}\\b`).test(text)) {
          declared.set(name, [...(declared.get(name) ?? []), file]);
        }
      }
    }
    for (const name of [...ports, ...more, 'DispatcherDeps', 'Clock', 'Log', 'Metrics']) {
      expect({ name, files: declared.get(name) }).toEqual({ name, files: ['ports.ts'] });
    }
  });

  it('keeps every file under 350 lines, so each fits one concern', () => {
    const files = trackedSources('lambdas');
    expect(files.length).toBeGreaterThan(60);
    const long = files
      .map((file) => ({ file, lines: readFileSync(path.join(ROOT, file), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 350);
    expect(long).toEqual([]);
  });

  it('keeps every function within 80 lines, so each reads on a screen or two', () => {
    const files = trackedSources('lambdas');
    const long: string[] = [];
    visitNodes(files, (node, file, lineOf) => {
      if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const lines = lineOf(node.getEnd()) - lineOf(node.getStart()) + 1;
        if (lines > 80) long.push(`${file}:${lineOf(node.getStart())} (${lines} lines)`);
      }
    });
    expect(files.length).toBeGreaterThan(60);
    expect(long).toEqual([]);
  });

  it('keeps the management library off the AWS SDK and the adapters: it is handed its backend', () => {
    const files = trackedSources('lambdas/management');
    expect(files.length).toBeGreaterThan(10);
    const reaching = files.flatMap((file) =>
      readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .filter((line) => /(from |import\()'(@aws-sdk\/|\.\.\/adapters\/)/.test(line))
        .map((line) => `${file}: ${line.trim()}`),
    );
    expect(reaching).toEqual([]);
  });

  it('builds the stores, queues, topics and secret stores in one place: the composition root', () => {
    const files = ['lambdas', 'local', 'cli', 'lib'].flatMap((folder) => trackedSources(folder));
    const building = files
      .filter((file) => !file.startsWith('lambdas/backend/') && !file.startsWith('lambdas/adapters/'))
      .flatMap((file) =>
        readFileSync(path.join(ROOT, file), 'utf8')
          .split(/;\n/)
          .filter((statement) =>
            /import\s*\{[^}]*\b(Dynamo|Sqs|Sns|Kms|SecretsManager)[A-Z]\w*[^}]*\}\s*from\s*'[./]*(lambdas\/)?adapters\//.test(
              statement,
            ),
          )
          .map((statement) => `${file}: ${statement.trim().replace(/\s+/g, ' ')}`),
      );
    expect(files).toContain('lambdas/backend/adapters.ts');
    expect(building).toEqual([]);
  });
});

describe('the whole repository', () => {
  it('has no import circle in any source folder, tests and measurements included, type imports included', async () => {
    const folders = ['lambdas', 'lib', 'cli', 'local', 'console', 'bench', 'scripts', 'bin', 'test'];
    const graph = await madge(
      // madge takes a list of folders too, though its types name only one.
      folders.map((folder) => path.join(ROOT, folder)) as unknown as string,
      {
        fileExtensions: ['ts', 'tsx'],
        tsConfig: path.join(ROOT, 'tsconfig.json'),
        detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
      },
    );
    // Every tracked source file is in the graph: a folder the walk missed would pass vacuously.
    expect(Object.keys(graph.obj()).length).toBe(trackedSources(...folders).length);
    expect(graph.circular()).toEqual([]);
  }, 120_000);
});
