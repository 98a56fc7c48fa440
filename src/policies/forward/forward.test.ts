import type { CoreClient } from '../../core-client/core-client';
import { CoreCallError } from '../../core-client/core-call-error';
import { runStep } from '../../../test/support/step-harness';
import { forward } from './forward';

function coreStreaming(outcome: 'answered' | Error): CoreClient & { calls: number } {
  const client = {
    calls: 0,
    stream(_req: unknown, res: { end(): void }) {
      client.calls += 1;
      if (outcome instanceof Error) return Promise.reject(outcome);
      res.end();
      return Promise.resolve();
    },
    exchange: () => Promise.reject(new Error('not used')),
  };
  return client as unknown as CoreClient & { calls: number };
}

describe('forward step', () => {
  it('hands the request to the core client, which answers', async () => {
    const core = coreStreaming('answered');
    const run = await runStep(forward({ coreClient: core }));
    expect(core.calls).toBe(1);
    expect(run.answer).not.toBeNull();
  });

  it('passes a failure before the answer started to the error handler', async () => {
    const run = await runStep(forward({ coreClient: coreStreaming(new CoreCallError('core_timeout', true)) }));
    expect(run.error).toMatchObject({ code: 'core_timeout', status: 504 });
  });
});
