/**
 * Jest environment that keeps `npm test` quiet: what a test writes straight to stdout (the
 * fault suite's ledgers, INFO/DEBUG log lines) and the dispatcher's JSON log lines on stderr
 * (Powertools writes WARN and ERROR there) are held back and printed only when that test fails,
 * under its name. Other stderr output (Jest's own reporter, when it runs in this process) passes.
 * `WEBHOOKS_TEST_LOGS=1` prints everything as it comes. console.log in a test is left to Jest.
 */
const { TestEnvironment } = require('jest-environment-node');

const SHOW_ALL = process.env.WEBHOOKS_TEST_LOGS === '1';
/** A structured log line (Powertools JSON), as the dispatcher writes them. */
const LOG_LINE = /^\{"level":"/;

class QuietEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.held = [];
    this.realWrite = undefined;
    this.realErrWrite = undefined;
  }

  async setup() {
    await super.setup();
    if (SHOW_ALL) return;
    this.realWrite = process.stdout.write;
    const held = this.held;
    process.stdout.write = function write(chunk, encoding, callback) {
      held.push(
        typeof chunk === 'string'
          ? chunk
          : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8'),
      );
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') process.nextTick(done);
      return true;
    };
    const realErr = process.stderr.write;
    this.realErrWrite = realErr;
    process.stderr.write = function write(chunk, encoding, callback) {
      const text =
        typeof chunk === 'string'
          ? chunk
          : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8');
      if (!LOG_LINE.test(text)) return realErr.call(process.stderr, chunk, encoding, callback);
      held.push(text);
      const done = typeof encoding === 'function' ? encoding : callback;
      if (typeof done === 'function') process.nextTick(done);
      return true;
    };
  }

  async teardown() {
    if (this.realWrite) {
      // Output after the last test (a failing afterAll, a late log line) is shown only if the file failed.
      if (this.fileFailed) this.flush('(after the tests)');
      process.stdout.write = this.realWrite;
      process.stderr.write = this.realErrWrite;
      this.realWrite = undefined;
    }
    await super.teardown();
  }

  flush(title) {
    if (!this.realWrite || this.held.length === 0) {
      this.held.length = 0;
      return;
    }
    const text = this.held.join('');
    this.held.length = 0;
    this.realWrite.call(
      process.stdout,
      `\n--- output of ${title} ---\n${text}${text.endsWith('\n') ? '' : '\n'}--- end ---\n`,
    );
  }

  async handleTestEvent(event) {
    if (!this.realWrite) return;
    switch (event.name) {
      case 'hook_failure':
      case 'test_fn_failure':
        this.fileFailed = true;
        break;
      case 'test_done':
        if (event.test.errors.length > 0) {
          const names = [];
          for (let block = event.test; block && block.name !== 'ROOT_DESCRIBE_BLOCK'; block = block.parent)
            names.unshift(block.name);
          this.flush(names.join(' › '));
        } else {
          this.held.length = 0;
        }
        break;
    }
  }
}

module.exports = QuietEnvironment;
